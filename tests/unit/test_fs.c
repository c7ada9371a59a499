/*
 * Paths and files: joining, containment through symlinks, whole-file reads
 * with a limit, and directories made and removed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "str.h"
#include "test.h"

static void paths(void)
{
    char *p;

    p = pg_path_join("a/b", "c.c");
    CHECK_STR(p, "a/b/c.c");
    free(p);
    p = pg_path_join("a/b/", "c.c");
    CHECK_STR(p, "a/b/c.c");
    free(p);
    p = pg_path_dirname("a/b/c.c");
    CHECK_STR(p, "a/b");
    free(p);
    p = pg_path_dirname("c.c");
    CHECK_STR(p, ".");
    free(p);
}

static void containment_follows_links(void)
{
    char *root = pg_test_scratch(), *in, *out, *link_in, *link_out, *outside;

    REQUIRE(root != NULL);
    in = pg_strdupf("%s/tree", root);
    outside = pg_strdupf("%s/secret", root);
    out = pg_strdupf("%s/tree/src", in);
    REQUIRE(pg_mkdir_p(out) == 0);
    REQUIRE(pg_write_file(outside, "token\n", 6, 0) == 0);
    link_in = pg_strdupf("%s/tree/src/ok.c", in);
    link_out = pg_strdupf("%s/tree/src/leak.c", in);
    REQUIRE(pg_write_file(link_in, "int x;\n", 7, 0) == 0);
    REQUIRE(symlink(outside, link_out) == 0);
    CHECK(pg_path_inside(in, link_in) == 1);
    CHECK(pg_path_inside(in, in) == 1);
    /* A link that leads out of the tree is outside, whatever its name. */
    CHECK(pg_path_inside(in, link_out) == 0);
    free(out);
    out = pg_strdupf("%s/../secret", in);
    CHECK(pg_path_inside(in, out) == 0);
    pg_rm_rf(root);
    CHECK(!pg_path_exists(root));
    free(root);
    free(in);
    free(out);
    free(outside);
    free(link_in);
    free(link_out);
}

static void read_with_a_limit(void)
{
    char *root = pg_test_scratch(), *path, *text = NULL;
    size_t len = 0;

    REQUIRE(root != NULL);
    path = pg_path_join(root, "f");
    REQUIRE(pg_write_file(path, "0123456789", 10, 0) == 0);
    CHECK(pg_path_is_file(path));
    CHECK(!pg_path_is_file(root));
    REQUIRE(pg_read_file(&text, &len, path, 10) == 0);
    CHECK(len == 10 && !strcmp(text, "0123456789"));
    free(text);
    text = NULL;
    /* Larger than allowed: refused, nothing returned. */
    errno = 0;
    CHECK(pg_read_file(&text, &len, path, 9) == -1);
    CHECK(errno == EFBIG);
    CHECK(text == NULL);
    CHECK(pg_read_file(&text, NULL, "/nonexistent/f", 10) == -1);
    CHECK(text == NULL);
    pg_rm_rf(root);
    free(root);
    free(path);
}

const pg_test pg_tests_fs[] = {
    {"paths", paths},
    {"containment_follows_links", containment_follows_links},
    {"read_with_a_limit", read_with_a_limit},
    PG_TESTS_END};
