/*
 * sides.c - the two sides of a comparison (sides.h).
 */
#include "sides.h"
#include "str.h"
#include "error.h"
#include "fs.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

/*
 * A base the user named.  With base...head it becomes the merge base of
 * the two, as git's A...B.  Else, when it has commits the head has not (a
 * topic branch compared with main's tip after main moved on), those
 * commits would count against the change, undone by it: that is said in
 * *note, with the merge base offered.
 */
static int base_of_range(pg_rev rev[2], char **note, pg_repo *repo,
                         int merge_base)
{
    pg_rev *base = &rev[0], *head = &rev[1];
    const char *head_name = head->worktree ? "HEAD" : head->spec;
    char mb[PG_OID_HEX];
    size_t ahead = 0;
    int err;

    if (!*head->commit)
        return merge_base ? pg_error_set(PG_ERR_USAGE,
                                         "%s...: the repository has no commit "
                                         "yet to find a merge base with",
                                         base->spec)
                          : 0;
    if (merge_base) {
        char *spec;
        if ((err = pg_repo_merge_base(mb, repo, base->commit, head->commit)) <
            0)
            return err;
        spec = pg_strdupf("merge base of %s and %s", base->spec, head_name);
        pg_rev_clear(base);
        if ((err = pg_repo_resolve(base, repo, mb)) < 0) {
            free(spec);
            return err;
        }
        free(base->spec);
        base->spec = spec;
        return 0;
    }
    if (pg_repo_ahead(&ahead, repo, base->commit, head->commit) < 0 || !ahead)
        return 0;
    /* The head an ancestor of the base: the two were given the other way
     * round, and the merge base would be the head itself. */
    if (pg_repo_merge_base(mb, repo, base->commit, head->commit) == 0 &&
        !strcmp(mb, head->commit) && !head->worktree) {
        *note = pg_strdupf("%s is an ancestor of %s: the %zu commit%s "
                           "between them %s measured backwards, as undone; "
                           "to measure %s as made: perfgate compare %s %s",
                           head->spec, base->spec, ahead, ahead == 1 ? "" : "s",
                           ahead == 1 ? "is" : "are",
                           ahead == 1 ? "it" : "them", head->spec, base->spec);
        return 0;
    }
    *note = pg_strdupf(
        "%s has %zu commit%s that the head has not, so this change is "
        "measured as undoing %s; to compare with where the head left %s: "
        "perfgate compare %s...%s",
        base->spec, ahead, ahead == 1 ? "" : "s", ahead == 1 ? "it" : "them",
        base->spec, base->spec, head->worktree ? "" : head->spec);
    return 0;
}

int pg_sides_resolve(pg_rev rev[2], char **note, pg_repo *repo,
                     const pg_sides_want *w, pg_progress *progress)
{
    int err, s;

    *note = NULL;
    if (!w->aa && !w->base && !w->head && w->ci &&
        w->ci->system != PG_CI_NONE) {
        pg_progress_sayf(progress, "%s, %s", pg_ci_name(w->ci->system),
                         w->ci->what);
        return pg_repo_resolve_ci(&rev[0], &rev[1], repo, w->ci);
    }
    if (w->aa) {
        /* Both sides from the same revision, built apart: what differs
         * between them is this machine's noise. */
        for (s = 0; s < 2; s++) {
            if (w->base)
                err = pg_repo_resolve(&rev[s], repo, w->base);
            else
                err = pg_repo_worktree(&rev[s], repo);
            if (err < 0)
                return err;
        }
        return 0;
    }
    if ((err = pg_repo_resolve(&rev[0], repo, w->base ? w->base : "HEAD")) < 0)
        return err;
    if (w->head)
        err = pg_repo_resolve(&rev[1], repo, w->head);
    else
        err = pg_repo_worktree(&rev[1], repo);
    if (err < 0 || !w->base)
        return err;
    return base_of_range(rev, note, repo, w->merge_base);
}

int pg_sides_checkout(pg_rev rev[2], pg_repo *repo, const char *tmp,
                      int writable, pg_progress *progress)
{
    int err, s;

    for (s = 0; s < 2; s++) {
        char *dir;
        /* The working tree is used in place, unless a project build is to
         * run in it: then in a copy, so that nothing is written to it. */
        if (rev[s].worktree && !writable)
            continue;
        dir = pg_path_join(tmp, s == 0 ? "base" : "head");
        if (rev[s].worktree)
            pg_progress_sayf(progress, "copying the working tree");
        else
            pg_progress_sayf(progress, "checking out %s (%.10s)", rev[s].spec,
                             rev[s].commit);
        if (pg_mkdir_p(dir) < 0)
            err = pg_error_set(PG_ERR_GENERIC, "cannot create %s", dir);
        else if (rev[s].worktree)
            err = pg_repo_copy_worktree(repo, &rev[s], dir);
        else if (s == 1 && !writable)
            /* Nothing writes into the trees: the head shares the base's
             * identical files. */
            err = pg_repo_materialize_beside(repo, &rev[s], dir, &rev[0]);
        else
            err = pg_repo_materialize(repo, &rev[s], dir);
        free(dir);
        if (err < 0)
            return err;
    }
    return 0;
}
