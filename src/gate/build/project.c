/*
 * project.c - a project's own build, run once per tree (project.h).
 */
#include "project.h"
#include "affected.h"
#include "error.h"
#include "outputs.h"
#include "str.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* The kept build `data` put back into `rev`'s tree. */
static int put_back(pg_build *out, const pg_rev *rev, const char *side,
                    const char *data, size_t len)
{
    char *why = NULL;
    int err = 0;

    if (pg_outputs_unpack(&why, data, len, rev->dir) < 0)
        err = pg_error_set(PG_ERR_GENERIC,
                           "the build cache's copy of the %s's build could "
                           "not be put back (%s): run again with --no-cache, "
                           "or empty the cache directory",
                           side, why);
    else
        out->ok = out->cached = 1;
    free(why);
    return err;
}

int pg_project_build(pg_build *out, char **note, pg_cache *cache,
                     const char *command, const pg_strvec *earlier,
                     const pg_rev *rev, const char *other_dir, const char *side,
                     double timeout)
{
    pg_tree_state *before = NULL;
    char key[PG_CACHE_ID], *data = NULL, *why = NULL;
    pg_str kept = PG_STR_INIT, tree = PG_STR_INIT;
    size_t len = 0, i;
    int err, keyed;

    *note = NULL;
    memset(out, 0, sizeof(*out));
    /* The tree as checked out: its id, less what skip_paths leaves out. */
    pg_str_puts(&tree, rev->tree);
    for (i = 0; *rev->tree && i < rev->nskip; i++)
        pg_str_printf(&tree, " skipping %s", rev->skip[i]);
    keyed =
        cache && pg_cache_dir(cache) && !rev->worktree &&
        pg_affected_project_key(key, pg_str_cstr(&tree), earlier, command) == 0;
    pg_str_clear(&tree);
    if (keyed && pg_cache_get(cache, key, "project", &data, &len)) {
        err = put_back(out, rev, side, data, len);
        free(data);
        return err;
    }
    /* Without the state before it, what it made cannot be told. */
    if (keyed && pg_tree_state_read(&before, rev->dir) < 0)
        keyed = 0;
    err = pg_build_project(out, command, rev->dir, other_dir, side, timeout);
    if (err < 0 || !out->ok || !keyed)
        goto done;
    /* A tree that lacks files the repository could not give is not the
     * tree its id names. */
    if (rev->unreadable.n)
        *note = pg_strdupf("the %s's build is not kept: its tree lacks files "
                           "the repository could not give",
                           side);
    else if (pg_outputs_pack(&kept, &why, before, rev->dir, PG_PROJECT_MAX))
        *note = pg_strdupf("the %s's build is not kept: %s", side, why);
    else if (pg_cache_put(cache, key, "project", kept.ptr, kept.size) < 0)
        *note =
            pg_strdupf("the %s's build could not be kept in the cache", side);
done:
    pg_tree_state_free(before);
    pg_str_clear(&kept);
    free(why);
    return err;
}
