/*
 * proc.h - running and supervising child processes.
 *
 * Everything perfgate runs that it does not trust (a compiler, the user's
 * code) runs in a child process in its own process group, with its output
 * captured into a capped buffer, a time limit, and a watchdog callback.  A
 * crash, a hang or a flood of output never takes perfgate down.
 */
#ifndef PG_PROC_H
#define PG_PROC_H

#include <stdarg.h>
#include <sys/types.h>

#include "box.h"
#include "str.h"

typedef struct pg_proc_opts {
    const char *cwd;   /* NULL: the current directory */
    double timeout;    /* seconds; 0: none */
    size_t output_cap; /* most bytes of output kept (newest); 0: 64 KiB */
    /*
     * Called about every 20 ms while the child runs; returning non-zero
     * kills the child and is stored in pg_proc_result.watchdog.
     */
    int (*watchdog)(void *payload);
    void *payload;
    /*
     * Receives the lines the child writes to its message pipe: fn's msg_fd,
     * or a program's fd 3.
     */
    void (*on_line)(void *payload, const char *line);
    /* A descriptor a program gets as its fd 4 (0: none). */
    int share_fd;
    /* 1: a pipe the program reads on PG_PROC_REQUEST_FD, which perfgate
     * writes with pg_proc_live_send() (pg_proc_start only). */
    int request;
    /* The most address space the child may map, in bytes (0: no limit). */
    size_t memory_limit;
    /* 1: the child's addresses are not randomized (ASLR off), so that
     * what depends on them is the same in every run. */
    int no_aslr;
    /*
     * A program run from a revision runs in this box (box.h) where one can
     * be made, with a private TMPDIR removed when it ends; NULL: as is.
     * With --sandbox require and no box, the run is refused.
     */
    const pg_box *box;
} pg_proc_opts;

typedef struct pg_proc_result {
    int exited; /* 1: exited normally with exit_code */
    int exit_code;
    int signal;     /* the signal that ended it, or 0 */
    int timed_out;  /* killed at opts.timeout */
    int watchdog;   /* the watchdog's non-zero verdict, or 0 */
    int disk_low;   /* killed: a disk its box writes to was down to the
                       floor it must keep (boxcap.h) */
    double seconds; /* wall time */
    int not_run;    /* the program could not be started: why (an errno;
                       it also exited 127, saying so) */
    pg_str output;  /* stdout and stderr, interleaved, capped */
} pg_proc_result;

/*
 * Runs argv[0] (looked up in PATH) with `argv`, stdin from /dev/null.
 * Returns 0 once the child is gone (whatever its fate, see `out`), or a
 * negative error when it could not be started or perfgate was interrupted
 * (`out` then holds nothing to clear: what the child wrote is dropped).
 */
int pg_proc_run_argv(pg_proc_result *out, char *const argv[],
                     const pg_proc_opts *opts);

/*
 * Forks and runs fn(arg, msg_fd) in the child, which exits with fn's return
 * value.  Lines the child writes to msg_fd go to opts->on_line.  Returns as
 * pg_proc_run_argv().
 */
int pg_proc_run_fn(pg_proc_result *out, int (*fn)(void *arg, int msg_fd),
                   void *arg, const pg_proc_opts *opts);

void pg_proc_result_clear(pg_proc_result *res);

/* The descriptor a program started with opts->request reads perfgate's
 * requests on (not 5: bubblewrap reads the box's seccomp filter there). */
#define PG_PROC_REQUEST_FD 6

/* The exit status of a process whose reader went away (below). */
#define PG_PROC_READER_GONE 125

/*
 * In a program perfgate started: a thread that ends this process (exit
 * status PG_PROC_READER_GONE) once the reading end of the pipe `fd`
 * writes to is closed everywhere, perfgate gone.  perfgate's own
 * children go with it by their parent-death signal, but a program in the
 * box is bubblewrap's grandchild, and bubblewrap arms its parent-death
 * signal after its fork without looking whether its parent still lives:
 * a perfgate killed in that moment (SIGKILL) left perfgate-measure running
 * a hanging function on, unwatched (compare.Interrupt under ASan).  The
 * thread blocks in poll() with every signal blocked: the timed code pays
 * nothing.  0, or -1 when no thread could be made (nothing changes then).
 */
int pg_proc_exit_with_reader(int fd);

/*
 * A program perfgate talks with while it runs: started as
 * pg_proc_run_argv() starts it (boxed, its lines to opts->on_line), then
 * asked with pg_proc_live_send() and heard with pg_proc_live_wait(), and
 * ended with pg_proc_finish(), which fills `res` as pg_proc_run_argv()
 * does.  `opts` and `res` must outlive it.
 */
typedef struct pg_proc_live pg_proc_live;

/* 0 with *out set, or a negative error (nothing to finish then). */
int pg_proc_start(pg_proc_live **out, pg_proc_result *res, char *const argv[],
                  const pg_proc_opts *opts);

/* One request line (a newline is added).  0, or -1 when the program no
 * longer reads them. */
int pg_proc_live_send(pg_proc_live *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int pg_proc_live_vsend(pg_proc_live *p, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/*
 * Waits at most `ms` for the program to write, and takes what it wrote
 * (its lines reach opts->on_line); kills it at opts->timeout, when the
 * watchdog says so, or when perfgate is interrupted (*err set).  1 once it
 * has exited, else 0.
 */
int pg_proc_live_wait(pg_proc_live *p, int ms, int *err);

/* Its process id (its process group's too). */
pid_t pg_proc_live_pid(const pg_proc_live *p);

/* Stops the program if it still runs (not said as a signal of its own),
 * reaps it, fills its result and frees `p`; returns `err`, or negative
 * when perfgate was interrupted.  `p` may be NULL. */
int pg_proc_finish(pg_proc_live *p, int err);

/*
 * Tasks run in children, up to `jobs` at once, as git's
 * run_processes_parallel(): the parent asks next_task() for each task to
 * start, every child runs as pg_proc_run_fn()'s does (its own process
 * group, stopped by a signal to perfgate, `opts`' time limit, its output
 * captured), the lines it writes to its message descriptor reach on_line()
 * as they come, and task_done() gets its result when it ends.  All
 * callbacks run in the parent, one at a time.
 */
typedef struct pg_proc_parallel {
    int jobs; /* at most this many children at once (at least one) */
    /* timeout and output_cap for each child; its on_line and payload
     * are not used (see on_line below) */
    pg_proc_opts opts;
    /*
     * The next task: sets *fn and *task (fn's argument) and returns 1, or
     * returns 0 when there are no more.
     */
    int (*next_task)(void *payload, int (**fn)(void *task, int msg_fd),
                     void **task);
    /* A line from a task's message descriptor (may be NULL). */
    void (*on_line)(void *payload, void *task, const char *line);
    /* A task's end; `res` is cleared after it returns. */
    void (*task_done)(void *payload, void *task, const pg_proc_result *res);
    void *payload;
} pg_proc_parallel;

/*
 * Runs pp's tasks until next_task() has no more and every child has
 * ended.  0, or a negative error when perfgate was interrupted (every
 * running child is then stopped and reaped before it returns, without
 * task_done) or a child could not be started (the running ones finish).
 */
int pg_proc_run_parallel(const pg_proc_parallel *pp);

/*
 * The message channel from a child to perfgate: one line per message,
 * "[TOKEN ]WORD REST\n", written by the child to the descriptor it was
 * given (fn's msg_fd, a program's fd 3 or --fd) and read by the parent
 * through opts->on_line.  The token, when there is one, marks the lines of
 * one run, so that what the user's code writes to the same descriptor is
 * not taken for perfgate's (it can still lie on purpose: the README says
 * what a verdict on untrusted code proves).
 */

/*
 * Writes one message (printf-style; newlines in it become spaces), whole:
 * short writes are resumed and EINTR retried.  `token` may be NULL.
 * 0, or -1 when the parent is gone.
 */
int pg_proc_send(int fd, const char *token, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Reads a message line: when it carries `token` (or `token` is NULL),
 * copies its first word into `word` (at most `size` - 1 bytes) and
 * returns what follows the word and its spaces; NULL when the line is not
 * one of this run's messages or has no word.
 */
const char *pg_proc_message(const char *line, const char *token, char *word,
                            size_t size);

/* "SIGSEGV (segmentation fault)" for a signal number; static storage. */
const char *pg_signal_describe(int sig);

/*
 * What perfgate lets one process it starts map: half the machine's memory,
 * so that runaway code or a compiler fed /dev/zero fails, not the machine.
 * 0 when unknown.
 */
size_t pg_proc_memory_limit(void);

#endif
