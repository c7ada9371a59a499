/*
 * cleanup.h - temporaries that never outlive perfgate, and interruption.
 *
 * Every temporary directory perfgate makes is registered here and removed
 * on exit, on error, and on SIGINT, SIGTERM or SIGHUP.  A signal records
 * itself, stops the child process that is running, and the code waiting on
 * that child sees pg_interrupted() and unwinds through its normal cleanup.
 * Work that cannot see the flag (a long computation, a blocked read) gets
 * two seconds: then, or at a second signal, the handler removes the
 * directories itself, with async-signal-safe calls only, and perfgate exits
 * 130 as an interrupted run does.  A run that was killed outright
 * (SIGKILL) leaves its directory; each directory names its owner process,
 * and the next run removes those whose owner is gone.
 */
#ifndef PG_CLEANUP_H
#define PG_CLEANUP_H

#include <sys/types.h>

/* Installs the signal handlers and the exit-time cleanup; call once. */
void pg_cleanup_init(void);

/*
 * Creates a private directory (mode 0700) under $TMPDIR or /tmp, named
 * "perfgate-XXXXXX", registered for removal.  *out is owned by the caller.
 * On error (PG_ERR_GENERIC, with the reason) *out is untouched.
 */
int pg_tempdir_create(char **out);

/* Removes every registered directory now. */
void pg_tempdir_remove_all(void);

/* The signal that interrupted perfgate, or 0. */
int pg_interrupted(void);

/*
 * Registers the process group of a child that a signal must stop, until
 * pg_cleanup_drop_child() (children run in their own group so that a
 * signal reaches their descendants too).  Up to 64 at once; one beyond is
 * still ended with perfgate (proc.c's children die with their parent).
 */
void pg_cleanup_add_child(pid_t pgid);
void pg_cleanup_drop_child(pid_t pgid);

#endif
