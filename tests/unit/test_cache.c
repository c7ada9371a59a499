/*
 * The build cache's store: entries written whole and read back, damaged
 * ones refused and removed, the size bound, and ids that are git's blob ids.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "fs.h"
#include "str.h"
#include "test.h"

static const char key[] = "0123456789abcdef0123456789abcdef01234567";

static void ids_are_blob_ids(void)
{
    char id[PG_CACHE_ID];

    /* `printf hello | git hash-object --stdin` */
    pg_cache_id(id, "hello", 5);
    CHECK_STR(id, "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0");
    pg_cache_id(id, "", 0);
    CHECK_STR(id, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

static void put_then_get(void)
{
    char *dir = pg_test_scratch(), *data = NULL, *path;
    pg_cache *c = NULL;
    size_t len = 0;

    REQUIRE(dir);
    REQUIRE(pg_cache_open(&c, dir, 1 << 20) == 0);
    CHECK(pg_cache_get(c, key, "so", &data, &len) == 0); /* a miss */
    CHECK(pg_cache_put(c, key, "so", "library\0bytes", 13) == 0);
    REQUIRE(pg_cache_get(c, key, "so", &data, &len) == 1);
    CHECK(len == 13 && !memcmp(data, "library\0bytes", 13));
    free(data);
    /* Other kinds under the same key are other entries. */
    CHECK(pg_cache_get(c, key, "deps", &data, &len) == 0);
    /* To a file, as a library is used. */
    path = pg_path_join(dir, "out.so");
    CHECK(pg_cache_get_file(c, key, "so", path) == 1);
    CHECK(pg_path_is_file(path));
    CHECK(pg_cache_get_stats(c).hits == 2);
    CHECK(pg_cache_get_stats(c).stored == 1);
    pg_cache_free(c);
    /* What a cache without a directory keeps: nothing. */
    REQUIRE(pg_cache_open(&c, NULL, 1 << 20) == 0);
    CHECK(pg_cache_put(c, key, "so", "x", 1) == -1);
    CHECK(pg_cache_get(c, key, "so", &data, &len) == 0);
    pg_cache_free(c);
    pg_rm_rf(dir);
    free(path);
    free(dir);
}

/* Rewrites the entry's file with `text`. */
static void overwrite(const char *dir, const char *text, size_t len)
{
    char *path = pg_strdupf("%s/v1/%.2s/%s.so", dir, key, key);

    CHECK(pg_write_file(path, text, len, 0) == 0);
    free(path);
}

static void damaged_entries_are_refused_and_removed(void)
{
    static const char *const bad[] = {
        /* a byte of the payload changed */
        "perfgate-cache 1 b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0 5\nhellp",
        /* cut short */
        "perfgate-cache 1 b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0 5\nhel",
        /* no header */
        "hello",
        /* another format */
        "perfgate-cache 9 b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0 5\nhello",
        ""};
    char *dir = pg_test_scratch(), *data, *path;
    pg_cache *c = NULL;
    size_t len, i;

    REQUIRE(dir);
    REQUIRE(pg_cache_open(&c, dir, 1 << 20) == 0);
    path = pg_strdupf("%s/v1/%.2s/%s.so", dir, key, key);
    CHECK(pg_cache_put(c, key, "so", "hello", 5) == 0);
    for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        overwrite(dir, bad[i], strlen(bad[i]));
        data = NULL;
        CHECK(pg_cache_get(c, key, "so", &data, &len) == 0);
        CHECK(data == NULL);
        CHECK(!pg_path_exists(path));
    }
    /* The whole entry, as it was written, still reads. */
    {
        char good[] = "perfgate-cache 1 "
                      "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0 5\nhello";
        overwrite(dir, good, strlen(good));
    }
    CHECK(pg_cache_get(c, key, "so", &data, &len) == 1);
    free(data);
    CHECK(pg_cache_get_stats(c).damaged == 5);
    pg_cache_free(c);
    pg_rm_rf(dir);
    free(path);
    free(dir);
}

static void the_bound_removes_the_least_recently_used(void)
{
    char *dir = pg_test_scratch(), keys[4][PG_CACHE_ID], *data;
    char payload[1000];
    pg_cache *c = NULL;
    size_t len;
    int i;

    REQUIRE(dir);
    memset(payload, 'x', sizeof(payload));
    /* Four entries of about 1,060 bytes under a bound of 3,000. */
    REQUIRE(pg_cache_open(&c, dir, 3000) == 0);
    for (i = 0; i < 4; i++) {
        char *path;
        struct timespec t[2] = {{1000 + i, 0}, {1000 + i, 0}};
        pg_cache_id(keys[i], &i, sizeof(i));
        CHECK(pg_cache_put(c, keys[i], "so", payload, sizeof(payload)) == 0);
        path = pg_strdupf("%s/v1/%.2s/%s.so", dir, keys[i], keys[i]);
        CHECK(utimensat(AT_FDCWD, path, t, 0) == 0); /* used long ago */
        free(path);
    }
    /* Using the oldest makes it the newest. */
    CHECK(pg_cache_get(c, keys[0], "so", &data, &len) == 1);
    free(data);
    pg_cache_trim(c);
    /* Down to 80% of the bound: two left, the two used last. */
    CHECK(pg_cache_get_stats(c).evicted == 2);
    CHECK(pg_cache_get(c, keys[0], "so", &data, &len) == 1);
    free(data);
    CHECK(pg_cache_get(c, keys[1], "so", &data, &len) == 0);
    CHECK(pg_cache_get(c, keys[2], "so", &data, &len) == 0);
    CHECK(pg_cache_get(c, keys[3], "so", &data, &len) == 1);
    free(data);
    pg_cache_free(c);
    pg_rm_rf(dir);
    free(dir);
}

static void a_directory_that_cannot_be_one_is_refused(void)
{
    char *dir = pg_test_scratch(), *file;
    pg_cache *c = NULL;

    REQUIRE(dir);
    file = pg_path_join(dir, "file");
    CHECK(pg_write_file(file, "x", 1, 0) == 0);
    CHECK(pg_cache_open(&c, file, 1 << 20) < 0);
    CHECK(c == NULL);
    pg_rm_rf(dir);
    free(file);
    free(dir);
}

/* A symbolic link planted among the cache's directories is not followed
 * by the trim: the files where it leads stay. */
static void the_trim_follows_no_link(void)
{
    char *dir = pg_test_scratch(), *outside, *victim, *link, *cache;
    pg_cache *c = NULL;

    REQUIRE(dir);
    outside = pg_path_join(dir, "outside");
    victim = pg_path_join(outside, "precious");
    cache = pg_path_join(dir, "cache");
    link = pg_path_join(cache, "v1/zz");
    CHECK(mkdir(outside, 0700) == 0);
    CHECK(pg_write_file(victim, "keep me", 7, 0) == 0);
    REQUIRE(pg_cache_open(&c, cache, 1) == 0);
    CHECK(symlink(outside, link) == 0);
    CHECK(pg_cache_put(c, key, "so", "library", 7) == 0);
    pg_cache_trim(c); /* over its bound of 1 byte: trims */
    CHECK(pg_path_is_file(victim));
    CHECK(pg_cache_get_stats(c).evicted == 1);
    pg_cache_free(c);
    pg_rm_rf(dir);
    free(outside);
    free(victim);
    free(link);
    free(cache);
    free(dir);
}

/* A FIFO where an entry should be is a miss, at once (not a read that
 * waits for a writer forever). */
static void a_fifo_entry_is_a_miss(void)
{
    char *dir = pg_test_scratch(), *sub, *fifo, *data = NULL;
    pg_cache *c = NULL;
    size_t len = 0;

    REQUIRE(dir);
    REQUIRE(pg_cache_open(&c, dir, 1 << 20) == 0);
    sub = pg_strdupf("%s/v1/%.2s", dir, key);
    fifo = pg_strdupf("%s/%s.so", sub, key);
    CHECK(mkdir(sub, 0700) == 0);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(pg_cache_get(c, key, "so", &data, &len) == 0);
    CHECK(data == NULL);
    /* And a put replaces it. */
    CHECK(pg_cache_put(c, key, "so", "library", 7) == 0);
    CHECK(pg_cache_get(c, key, "so", &data, &len) == 1);
    free(data);
    pg_cache_free(c);
    pg_rm_rf(dir);
    free(sub);
    free(fifo);
    free(dir);
}

/* A --cache-dir that is a link, or that others may write to, is refused
 * before anything is made in it or changed; one of the user's own is left
 * with the mode it had. */
static void a_directory_is_checked_before_it_is_touched(void)
{
    char *dir = pg_test_scratch(), *target, *link, *v1, *open_dir, *mine;
    pg_cache *c = NULL;
    struct stat st;

    REQUIRE(dir);
    target = pg_path_join(dir, "target");
    link = pg_path_join(dir, "link");
    open_dir = pg_path_join(dir, "open");
    mine = pg_path_join(dir, "mine");
    CHECK(mkdir(target, 0700) == 0);
    CHECK(symlink(target, link) == 0);
    CHECK(pg_cache_open(&c, link, 1 << 20) < 0 && c == NULL);
    v1 = pg_path_join(target, "v1");
    CHECK(!pg_path_exists(v1));
    free(v1);
    CHECK(mkdir(open_dir, 0700) == 0 && chmod(open_dir, 0777) == 0);
    CHECK(pg_cache_open(&c, open_dir, 1 << 20) < 0 && c == NULL);
    CHECK(stat(open_dir, &st) == 0 && (st.st_mode & 0777) == 0777);
    v1 = pg_path_join(open_dir, "v1");
    CHECK(!pg_path_exists(v1));
    free(v1);
    CHECK(mkdir(mine, 0700) == 0 && chmod(mine, 0755) == 0);
    REQUIRE(pg_cache_open(&c, mine, 1 << 20) == 0);
    CHECK(stat(mine, &st) == 0 && (st.st_mode & 0777) == 0755);
    pg_cache_free(c);
    pg_rm_rf(dir);
    free(target);
    free(link);
    free(open_dir);
    free(mine);
    free(dir);
}

const pg_test pg_tests_cache[] = {
    {"ids_are_blob_ids", ids_are_blob_ids},
    {"ids_are_blob_ids", ids_are_blob_ids},
    {"put_then_get", put_then_get},
    {"damaged_entries_are_refused_and_removed",
     damaged_entries_are_refused_and_removed},
    {"the_bound_removes_the_least_recently_used",
     the_bound_removes_the_least_recently_used},
    {"a_directory_that_cannot_be_one_is_refused",
     a_directory_that_cannot_be_one_is_refused},
    {"the_trim_follows_no_link", the_trim_follows_no_link},
    {"a_fifo_entry_is_a_miss", a_fifo_entry_is_a_miss},
    {"a_directory_is_checked_before_it_is_touched",
     a_directory_is_checked_before_it_is_touched},
    PG_TESTS_END};
