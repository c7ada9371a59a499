/*
 * mainline.h - the history of main from perfgate's records (store.h,
 * record.h): per benchmark and machine, a series along main's first-parent
 * line, each point a push, with its absolute time and its paired change
 * against the push before.
 */
#ifndef PG_MAINLINE_H
#define PG_MAINLINE_H

#include <stddef.h>

#include "history.h"
#include "result.h"
#include "revision.h"

/* How many pushes back `perfgate history` looks by default. */
#define PG_MAINLINE_LAST 200

typedef struct pg_mainline_opts {
    const char *ref;         /* the history's ref; NULL: PG_STORE_REF */
    const char *rev;         /* main's tip; NULL: HEAD */
    size_t last;             /* how many pushes back; 0: PG_MAINLINE_LAST */
    const char *machine;     /* only this machine's records; NULL: each its own
                                series */
    const char *const *only; /* NULL-terminated benchmark names, or NULL */
} pg_mainline_opts;

/*
 * Fills `h` (labels: commits, subjects; h->floor: the newest record's
 * floor; notes: what was left out and why) from the records on the ref
 * for the commits of main's line, from the oldest with a record.  A record
 * that cannot be read (damaged, hostile, another format) is left out with
 * a note.  PG_ERR_USAGE when the ref holds no record of the line, saying
 * how to make one.
 */
int pg_mainline_load(pg_history *h, pg_repo *repo,
                     const pg_mainline_opts *opts);

/*
 * How main moved before `r`'s base: for each benchmark of `r` with records
 * along the base's last `last` first-parent commits (this machine's where
 * there are, else another's, one machine for all), the paired changes
 * chained and the change points and creeps found, into its main_*
 * fields, and the machine into r->main_machine.  Nothing when there is no
 * history (no ref, no records): a pull request's comment then has no such
 * line.
 */
void pg_mainline_moves(pg_result *r, pg_repo *repo, const char *ref,
                       size_t last);

/* How many pushes before the base a pull request's comment looks at. */
#define PG_MAINLINE_MOVES_LAST 20

#endif
