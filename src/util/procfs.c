/*
 * procfs.c - what /proc says of a process (procfs.h).
 */
#include "procfs.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

int pg_proc_stat(pid_t pid, pid_t *ppid, unsigned long long *started)
{
    char path[64], buf[1024], *p;
    int fd, n, parent;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = (int)read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* After the command's name, which may hold spaces and parentheses:
     * state, ppid, then the 20th field after it, the start time. */
    if (!(p = strrchr(buf, ')')) ||
        sscanf(p + 1,
               " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u "
               "%*d %*d %*d %*d %*d %*d %llu",
               &parent, started) != 2)
        return -1;
    *ppid = (pid_t)parent;
    return 0;
}
