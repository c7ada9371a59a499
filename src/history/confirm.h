/*
 * confirm.h - `perfgate history --confirm`: each change point and creep
 * the records suggest is measured again, the commits on either side of it
 * compared interleaved as `perfgate compare` compares them (re-measuring
 * beats statistics), and a slowdown that spans more than one commit is
 * bisected to the commit that made it (bisect.h).  Each answer is kept on
 * the history's ref as a check record (record.h), so that the history
 * shows the state from then on: suspected, confirmed, not confirmed, or
 * bisected to a commit.
 */
#ifndef PG_CONFIRM_H
#define PG_CONFIRM_H

#include "compare.h"
#include "history.h"
#include "revision.h"

typedef struct pg_confirm_opts {
    /* How each span is measured: config, timing, cache, jobs, progress;
     * the floor, when not set, is the history's.  base, head and only
     * are each check's. */
    pg_compare_opts compare;
    const char *ref;     /* the history's ref, written */
    const char *machine; /* this machine's name (NULL: as record names it):
                            only its series are measured */
    /* What is being measured, and what could not be; may be NULL. */
    void (*say)(void *payload, const char *line);
    void *payload;
} pg_confirm_opts;

/*
 * Measures again every change point and creep of `h` (detected, from
 * records) that has no check yet, on this machine's series; a span that
 * cannot be measured or kept is said and passed over (the others are
 * still measured).  *checked: how many were kept.  0, or
 * PG_ERR_INTERRUPTED.
 */
int pg_history_confirm(size_t *checked, const pg_history *h, pg_repo *repo,
                       const pg_confirm_opts *o);

#endif
