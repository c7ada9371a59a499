/*
 * boxcap.h - the box's caps: how many processes it runs at once, the room
 * it leaves on the disk it writes to, and the groups it keeps.
 *
 * A pull request's build can fork until the machine has no process left
 * to give (a fork bomb holds it until the build's timeout).  Each boxed
 * run is capped at PG_BOX_PROCESSES tasks (processes and threads) where
 * the machine lets perfgate do it:
 *
 * - "rlimit": perfgate runs as a user other than root.  RLIMIT_NPROC,
 *   set in the run before bubblewrap starts, binds inside the box's user
 *   namespace, whose own count holds the box's tasks alone (Linux 5.14's
 *   per-namespace counts); the user's count outside is held to the tasks
 *   it had when perfgate looked, plus the cap.
 * - "cgroup": perfgate runs as root, whom RLIMIT_NPROC does not bind, on
 *   a machine where it can make a pids cgroup (cgroup v1's pids
 *   hierarchy, writable): its boxes share one, pids.max the cap, made
 *   once and removed when perfgate exits (one left by a perfgate killed
 *   outright is removed by the next run).
 *
 * Elsewhere (root in a container whose cgroups are read-only, a unified
 * hierarchy only) runs are not capped, and pg_boxcap_how() says why.
 *
 * The disk: what a box writes into the places it may write (a side's
 * tree) is on the machine's disk, and no quota can be had without
 * privilege.  A boxed run is ended once a disk it writes to is down to
 * its floor: 1 GiB free, or 5% of the disk, or half of what was free when
 * the run started, the least of them.  The machine keeps room to work.
 */
#ifndef PG_BOXCAP_H
#define PG_BOXCAP_H

/* The most tasks a box runs at once, unless PERFGATE_MAX_PROCESSES says
 * otherwise: a parallel build of a large project on a large machine stays
 * well below. */
#define PG_BOX_PROCESSES 4096

/* The cap in force: PERFGATE_MAX_PROCESSES (1 to 1,000,000), else
 * PG_BOX_PROCESSES. */
int pg_boxcap_max(void);

#define PG_BOX_DISK_PATHS 4

/* How a run ended for the disk is said (pg_proc_result.disk_low). */
#define PG_BOX_DISK_SAID                                                       \
    "ended as it filled the disk it writes to (a boxed run must leave 1 "      \
    "GiB, 5% of the disk or half of what was free when it started, the "       \
    "least of them)"

/* One run's caps: the cgroup.procs it joins (perfgate's own), or NULL;
 * the disks it writes to, and the free space each must keep. */
typedef struct pg_boxcap {
    const char *procs;
    char *disk[PG_BOX_DISK_PATHS];
    unsigned long long floor[PG_BOX_DISK_PATHS];
    long long next_look; /* when the disks are looked at again (ns) */
} pg_boxcap;

/*
 * How boxes are capped on this machine, found once: "rlimit", "cgroup",
 * or NULL with `why` (static storage) saying why they are not.
 */
const char *pg_boxcap_how(const char **why);

/*
 * The supplementary groups the box keeps, which an unprivileged user
 * namespace cannot drop (setgroups() is refused there): "docker (999),
 * adm (4)", a new string; NULL when there are none beyond the user's own
 * group.  What they may read outside the hidden places, the box's code
 * may read.
 */
char *pg_boxcap_groups(void);

/* Before a boxed run starts: the cgroup it joins, where that is the way,
 * and the floors of the disks under `writes` (NULL ends the list early;
 * at most PG_BOX_DISK_PATHS).  Never fails. */
void pg_boxcap_open(pg_boxcap *c, const char *const *writes);

/* While the run runs: 1 when a disk it writes to is down to its floor
 * (looked at every 100 ms at most), else 0. */
int pg_boxcap_disk_low(pg_boxcap *c);

/* In the run's process, after fork() and before exec(): into its
 * cgroup, or under its RLIMIT_NPROC.  Async-signal-safe. */
void pg_boxcap_enter(const pg_boxcap *c);

/* After the run ended: what open() kept, freed. */
void pg_boxcap_close(pg_boxcap *c);

#endif
