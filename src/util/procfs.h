/*
 * procfs.h - what /proc says of a process: below both proc.c (which ends
 * orphans by their parents) and cleanup.c (which tells a live owner of a
 * temporary directory from a reused pid by its start time).
 */
#ifndef PG_PROCFS_H
#define PG_PROCFS_H

#include <sys/types.h>

/* A process's parent and start time (clock ticks since boot), from
 * /proc/PID/stat; -1 when it cannot be read (gone, or no /proc). */
int pg_proc_stat(pid_t pid, pid_t *ppid, unsigned long long *started);

#endif
