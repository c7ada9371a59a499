/*
 * catalog.c - the problems perfgate knows: the data directory with the
 * built-in problems, and a benchmark's problem source.
 */
#include "catalog.h"
#include "env.h"
#include "box.h"
#include "error.h"
#include "fs.h"
#include "str.h"
#include "strvec.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static int is_data_dir(const char *dir)
{
    char *h = pg_path_join(dir, "include/perfgate/problem.h");
    int ok = pg_path_is_file(h);
    free(h);
    return ok;
}

const char *pg_catalog_data_dir(void)
{
    static char *dir;
    char *bin;

    if (dir)
        return dir;
    if (pg_env_nonempty("PERFGATE_DATA_DIR")) {
        dir = pg_strdup(pg_env("PERFGATE_DATA_DIR"));
    } else if ((bin = pg_self_dir())) {
        dir = pg_strdupf("%s/../share/perfgate", bin);
        free(bin);
        if (!is_data_dir(dir)) {
            free(dir);
            dir = NULL;
        }
    }
    if (!dir)
        dir = pg_strdup(PG_SOURCE_DIR);
    /* The problems' sources are compiled in the box, which hides homes. */
    pg_box_show(dir);
    return dir;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *const *pg_catalog_builtin(void)
{
    static pg_strvec names;
    static int listed;
    char *pdir;
    DIR *d;
    struct dirent *e;

    if (listed)
        return pg_strvec_list(&names);
    listed = 1;
    pdir = pg_path_join(pg_catalog_data_dir(), "problems");
    if ((d = opendir(pdir))) {
        while ((e = readdir(d))) {
            size_t len = strlen(e->d_name);
            if (len < 3 || strcmp(e->d_name + len - 2, ".c"))
                continue;
            pg_strvec_pushf(&names, "%.*s", (int)(len - 2), e->d_name);
        }
        closedir(d);
    }
    free(pdir);
    if (names.n)
        qsort(names.v, names.n, sizeof(char *), name_cmp);
    return pg_strvec_list(&names);
}

char *pg_catalog_source(const pg_bench_config *b)
{
    if (b->problem_path)
        return pg_strdup(b->problem_path);
    /* Generated: one of its own per benchmark. */
    if (b->function)
        return pg_strdupf("function %s", b->name);
    return pg_strdupf("%s/problems/%s.c", pg_catalog_data_dir(), b->problem);
}
