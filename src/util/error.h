/*
 * error.h - the last error, as libgit2's git_error_set/git_error_last.
 *
 * Functions return 0 on success and a negative value on failure, after
 * setting a message for the user with pg_error_set().  The message says what
 * failed, names the file, key, revision or benchmark, and says what to do.
 */
#ifndef PG_ERROR_H
#define PG_ERROR_H

/* Process exit codes; part of perfgate's interface (see README). */
enum {
    PG_EXIT_PASS = 0,         /* the gate passed */
    PG_EXIT_FAIL = 1,         /* the gate failed: regression or broken head */
    PG_EXIT_USAGE = 2,        /* bad usage, config or revision */
    PG_EXIT_INTERNAL = 3,     /* perfgate itself failed (I/O, toolchain) */
    PG_EXIT_INTERRUPTED = 130 /* SIGINT or SIGTERM; temporaries removed */
};

/* Error classes: which exit code a failure maps to. */
enum {
    PG_ERR_GENERIC = -1, /* internal: exit 3 */
    PG_ERR_USAGE = -2,   /* user input: exit 2 */
    PG_ERR_INTERRUPTED = -3
};

/* Sets the last error message (printf format); returns `code`. */
int pg_error_set(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The last error message, or NULL when none is set. */
const char *pg_error_last(void);

/* Forgets the last error. */
void pg_error_clear(void);

/* The exit code for a negative return value. */
int pg_error_exit_code(int err);

#endif
