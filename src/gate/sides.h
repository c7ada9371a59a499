/*
 * sides.h - the two sides of a comparison: which revisions they are (the
 * user's, a CI system's, a self-check's, a range's merge base), and a tree
 * of each to build from, never the user's own files written.
 */
#ifndef PG_SIDES_H
#define PG_SIDES_H

#include "ci.h"
#include "progress.h"
#include "revision.h"

typedef struct pg_sides_want {
    const char *base; /* NULL: HEAD (or the CI system's) */
    const char *head; /* NULL: the working tree (or the CI system's) */
    int merge_base;   /* base...head: the base is their merge base */
    int aa;           /* both sides from `base`, built apart */
    const pg_ci *ci;  /* with neither base nor head; may be NULL */
} pg_sides_want;

/*
 * Resolves the sides into rev[0] (base) and rev[1] (head).  When the base
 * has commits the head has not, *note says so and offers the merge base
 * (a new string; else NULL).  PG_ERR_USAGE for a revision that is not
 * there; rev[] is to be pg_rev_clear()ed either way.
 */
int pg_sides_resolve(pg_rev rev[2], char **note, pg_repo *repo,
                     const pg_sides_want *want, pg_progress *progress);

/*
 * Gives each side a tree under `tmp` ("base", "head"), setting rev[s].dir:
 * a commit checked out, the working tree copied.  Unless `writable` (a
 * project build will write into them), the working tree is used in place
 * and the head shares the base's identical files.
 */
int pg_sides_checkout(pg_rev rev[2], pg_repo *repo, const char *tmp,
                      int writable, pg_progress *progress);

#endif
