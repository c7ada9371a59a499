/*
 * What a project build wrote into its tree, taken and put back: new and
 * rewritten files, links, removals and empty directories come back; what
 * the build did not touch is not kept; nothing is written through a link,
 * outside the tree, or from an archive perfgate did not write.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fs.h"
#include "outputs.h"
#include "str.h"
#include "test.h"

static void put(const char *dir, const char *rel, const char *text)
{
    char *path = pg_path_join(dir, rel), *parent = pg_path_dirname(path);

    REQUIRE(pg_mkdir_p(parent) == 0);
    REQUIRE(pg_write_file(path, text, strlen(text), 0) == 0);
    free(parent);
    free(path);
}

/* The file `rel` under `dir`, a new string; NULL when there is none. */
static char *text_of(const char *dir, const char *rel)
{
    char *path = pg_path_join(dir, rel), *data = NULL;
    size_t len;

    if (pg_read_regular_file(&data, &len, path, 1 << 20) < 0)
        data = NULL;
    free(path);
    return data;
}

/* Two checkouts of one tree: src/a.c, src/b.c, README. */
static void checkout(const char *dir)
{
    put(dir, "src/a.c", "int a;\n");
    put(dir, "src/b.c", "int b;\n");
    put(dir, "README", "read me\n");
}

/* The "build": a library and an object in a new directory, a link to it,
 * an empty directory, src/b.c rewritten in place to the same size, and
 * README removed. */
static void build(const char *dir)
{
    char *path = pg_path_join(dir, "src/b.c"), *link, *empty;
    int fd;

    put(dir, "build/libp.a", "!<arch>\nbytes and more");
    put(dir, "build/obj/a.o", "object");
    link = pg_path_join(dir, "libp.a");
    REQUIRE(symlink("build/libp.a", link) == 0);
    empty = pg_path_join(dir, "build/empty");
    REQUIRE(mkdir(empty, 0750) == 0);
    /* Same size, same inode: only its change time says it moved. */
    fd = open(path, O_WRONLY);
    REQUIRE(fd >= 0);
    REQUIRE(write(fd, "int c;\n", 7) == 7);
    close(fd);
    REQUIRE(chmod(path, 0600) == 0 && chmod(path, 0644) == 0);
    put(dir, "build/tool", "#!/bin/sh\n");
    free(path);
    path = pg_path_join(dir, "build/tool");
    REQUIRE(chmod(path, 0755) == 0);
    free(path);
    path = pg_path_join(dir, "README");
    REQUIRE(unlink(path) == 0);
    free(path);
    free(empty);
    free(link);
}

static void what_a_build_wrote_comes_back(void)
{
    char *root = pg_test_scratch(), *one, *two, *why = NULL, *t, buf[64];
    pg_tree_state *before = NULL;
    pg_str ar = PG_STR_INIT;
    struct stat st;
    ssize_t n;

    REQUIRE(root);
    one = pg_path_join(root, "one");
    two = pg_path_join(root, "two");
    checkout(one);
    checkout(two);
    REQUIRE(pg_tree_state_read(&before, one) == 0);
    build(one);
    REQUIRE(pg_outputs_pack(&ar, &why, before, one, 1 << 20) == 0);
    CHECK(why == NULL);
    /* What the build did not touch is not in it. */
    CHECK(!strstr(ar.ptr, " src/a.c\n"));
    CHECK_CONTAINS(ar.ptr, "x 0 0 README\n");
    REQUIRE(pg_outputs_unpack(&why, ar.ptr, ar.size, two) == 0);
    CHECK((t = text_of(two, "src/b.c")) && !strcmp(t, "int c;\n"));
    free(t);
    CHECK((t = text_of(two, "src/a.c")) && !strcmp(t, "int a;\n"));
    free(t);
    CHECK((t = text_of(two, "build/obj/a.o")) && !strcmp(t, "object"));
    free(t);
    t = pg_path_join(two, "build/libp.a");
    CHECK(stat(t, &st) == 0 && st.st_size == 22);
    free(t);
    t = pg_path_join(two, "libp.a");
    n = readlink(t, buf, sizeof(buf) - 1);
    CHECK(n == 12 && !memcmp(buf, "build/libp.a", 12));
    free(t);
    t = pg_path_join(two, "build/tool");
    CHECK(stat(t, &st) == 0 && (st.st_mode & 0777) == 0755);
    free(t);
    t = pg_path_join(two, "build/empty");
    CHECK(stat(t, &st) == 0 && S_ISDIR(st.st_mode));
    free(t);
    t = pg_path_join(two, "README");
    CHECK(!pg_path_exists(t));
    free(t);
    pg_tree_state_free(before);
    pg_str_clear(&ar);
    pg_rm_rf(root);
    free(one);
    free(two);
    free(root);
}

static void what_cannot_be_kept_says_why(void)
{
    char *root = pg_test_scratch(), *fifo, *why = NULL;
    pg_tree_state *before = NULL;
    pg_str ar = PG_STR_INIT;

    REQUIRE(root);
    checkout(root);
    REQUIRE(pg_tree_state_read(&before, root) == 0);
    /* Over the bound. */
    put(root, "big", "0123456789abcdef0123456789abcdef");
    CHECK(pg_outputs_pack(&ar, &why, before, root, 16) == 1);
    CHECK_CONTAINS(why, "over");
    free(why);
    pg_str_reset(&ar);
    /* A FIFO. */
    fifo = pg_path_join(root, "pipe");
    REQUIRE(mkfifo(fifo, 0600) == 0);
    CHECK(pg_outputs_pack(&ar, &why, before, root, 1 << 20) == 1);
    CHECK_CONTAINS(why, "pipe");
    free(why);
    pg_tree_state_free(before);
    pg_str_clear(&ar);
    pg_rm_rf(root);
    free(fifo);
    free(root);
}

static int unpacks(const char *dir, const char *archive, size_t len)
{
    char *why = NULL;
    int err = pg_outputs_unpack(&why, archive, len, dir);

    free(why);
    return err;
}

#define ARCHIVE(text)                                                          \
    "perfgate-outputs 1\n" text, sizeof("perfgate-outputs 1\n" text) - 1

static void nothing_is_written_outside_the_tree(void)
{
    char *root = pg_test_scratch(), *tree, *outside, *t;

    REQUIRE(root);
    tree = pg_path_join(root, "tree");
    outside = pg_path_join(root, "outside");
    REQUIRE(pg_mkdir_p(tree) == 0 && pg_mkdir_p(outside) == 0);
    put(outside, "victim", "keep me");
    /* Paths that leave the tree, or are not plain. */
    CHECK(unpacks(tree, ARCHIVE("f 644 1 ../outside/victim\nx")) < 0);
    CHECK(unpacks(tree, ARCHIVE("f 644 1 /etc/x\nx")) < 0);
    CHECK(unpacks(tree, ARCHIVE("f 644 1 a//b\nx")) < 0);
    CHECK(unpacks(tree, ARCHIVE("f 644 1 a/./b\nx")) < 0);
    /* Cut short, or not an archive at all. */
    CHECK(unpacks(tree, ARCHIVE("f 644 9 short\nx")) < 0);
    CHECK(unpacks(tree, "garbage\n", 8) < 0);
    /* A link to outside, then a file and a removal through it: refused,
     * never followed. */
    t = pg_strdupf("perfgate-outputs 1\nl 777 %zu out\n%sf 644 1 out/victim\n"
                   "x",
                   strlen(outside), outside);
    CHECK(unpacks(tree, t, strlen(t)) < 0);
    free(t);
    t = pg_strdupf("perfgate-outputs 1\nl 777 %zu out\n%sx 0 0 out/victim\n",
                   strlen(outside), outside);
    CHECK(unpacks(tree, t, strlen(t)) == 0);
    free(t);
    CHECK((t = text_of(outside, "victim")) && !strcmp(t, "keep me"));
    free(t);
    /* A file in place of a link is written as a file, not through it. */
    t = pg_strdupf("perfgate-outputs 1\nl 777 %zu e\n%s/victimf 644 3 e\nnew",
                   strlen(outside) + 7, outside);
    CHECK(unpacks(tree, t, strlen(t)) == 0);
    free(t);
    CHECK((t = text_of(outside, "victim")) && !strcmp(t, "keep me"));
    free(t);
    CHECK((t = text_of(tree, "e")) && !strcmp(t, "new"));
    free(t);
    pg_rm_rf(root);
    free(tree);
    free(outside);
    free(root);
}

const pg_test pg_tests_outputs[] = {
    {"what_a_build_wrote_comes_back", what_a_build_wrote_comes_back},
    {"what_cannot_be_kept_says_why", what_cannot_be_kept_says_why},
    {"nothing_is_written_outside_the_tree",
     nothing_is_written_outside_the_tree},
    PG_TESTS_END};
