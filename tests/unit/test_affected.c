/*
 * affected.c's key of what a build reads: the same tree gives the same key,
 * a change to anything the build reads (a header it includes, a header
 * that would now be found first) gives another, a change to what it does
 * not read gives none, and what perfgate cannot see into has no key.  The
 * compiler ($CC or cc) says what a file includes; nothing is timed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "affected.h"
#include "cache.h"
#include "config.h"
#include "error.h"
#include "fs.h"
#include "str.h"
#include "test.h"

#define TIMEOUT 60.0

static const char *const builtins[] = {"reduce_sum", NULL};

static const char bench[] =
    "version: 1\n"
    "benchmarks:\n"
    "  - {name: a, problem: reduce_sum, sources: [src/a.c],\n"
    "     include: [inc, lib], cases: [{n: 1000}]%s}\n";

static const char source[] = "#include <stddef.h>\n"
                             "#include \"a.h\"\n"
                             "float reduce_sum(const float *x, size_t n)\n"
                             "{\n"
                             "    float s = 0;\n"
                             "    for (size_t i = 0; i < n; i++)\n"
                             "        s += x[i] * SCALE;\n"
                             "    return s;\n"
                             "}\n";

/* Writes `text` to DIR/NAME, making the directories on the way. */
static void put(const char *dir, const char *name, const char *text)
{
    char *path = pg_path_join(dir, name), *parent = pg_path_dirname(path);

    REQUIRE(pg_mkdir_p(parent) == 0);
    REQUIRE(pg_write_file(path, text, strlen(text), 0) == 0);
    free(parent);
    free(path);
}

/* A side's tree: src/a.c, which includes a.h from lib/ (inc/ comes first
 * in the include path, and is empty). */
static char *tree(const char *root, const char *name)
{
    char *dir = pg_path_join(root, name), *inc = pg_path_join(dir, "inc");

    put(dir, "src/a.c", source);
    put(dir, "lib/a.h", "#define SCALE 1.0f\n");
    put(dir, "lib/unread.h", "/* included by nobody */\n");
    REQUIRE(pg_mkdir_p(inc) == 0);
    free(inc);
    return dir;
}

/* Parses the one benchmark with `extra` keys (", cflags: [...]"). */
static void config(pg_config *cfg, const char *extra)
{
    pg_str text = PG_STR_INIT;

    pg_str_printf(&text, bench, extra);
    pg_error_clear();
    REQUIRE(pg_config_parse(cfg, pg_str_cstr(&text), text.size, "perfgate.yml",
                            ".", builtins) == 0);
    REQUIRE(cfg->nbenchmarks == 1);
    pg_str_clear(&text);
}

/* The key of `dir`'s build, which must have one. */
static void key_of(char key[PG_CACHE_ID], pg_cache *cache, const pg_config *cfg,
                   const char *dir)
{
    REQUIRE(pg_affected_key(key, cache, &cfg->benchmarks[0], dir, TIMEOUT) ==
            0);
    CHECK(strlen(key) == PG_CACHE_ID - 1);
}

static void the_same_tree_has_the_same_key(void)
{
    char *root = pg_test_scratch(), *base, *head;
    char kb[PG_CACHE_ID], kh[PG_CACHE_ID];
    pg_cache *cache = NULL;
    pg_config cfg;

    REQUIRE(root);
    base = tree(root, "base");
    head = tree(root, "head");
    config(&cfg, "");
    REQUIRE(pg_cache_open(&cache, NULL, 1 << 20) == 0);
    key_of(kb, cache, &cfg, base);
    key_of(kh, cache, &cfg, head);
    CHECK_STR(kb, kh);
    /* A file the build does not read changes nothing. */
    put(head, "lib/unread.h", "/* changed */\n");
    put(head, "README", "changed\n");
    key_of(kh, cache, &cfg, head);
    CHECK_STR(kb, kh);
    pg_cache_free(cache);
    pg_config_clear(&cfg);
    pg_rm_rf(root);
    free(base);
    free(head);
    free(root);
}

static void what_the_build_reads_changes_the_key(void)
{
    char *root = pg_test_scratch(), *base, *head;
    char kb[PG_CACHE_ID], kh[PG_CACHE_ID];
    pg_cache *cache = NULL;
    pg_config cfg;

    REQUIRE(root);
    base = tree(root, "base");
    head = tree(root, "head");
    config(&cfg, "");
    REQUIRE(pg_cache_open(&cache, NULL, 1 << 20) == 0);
    key_of(kb, cache, &cfg, base);
    /* The header it includes. */
    put(head, "lib/a.h", "#define SCALE 2.0f\n");
    key_of(kh, cache, &cfg, head);
    CHECK(strcmp(kb, kh) != 0);
    /* A comment in the source: the key is of contents, not of code. */
    put(head, "lib/a.h", "#define SCALE 1.0f\n");
    key_of(kh, cache, &cfg, head);
    CHECK_STR(kb, kh);
    put(head, "src/a.c", "/* a comment */\n");
    key_of(kh, cache, &cfg, head);
    CHECK(strcmp(kb, kh) != 0);
    pg_cache_free(cache);
    pg_config_clear(&cfg);
    pg_rm_rf(root);
    free(base);
    free(head);
    free(root);
}

/* A header a change adds earlier in the include path is read instead of
 * the old one, though no file the last build read has changed: asked
 * afresh, and through a kept manifest alike. */
static void a_new_header_that_shadows_changes_the_key(void)
{
    char *root = pg_test_scratch(), *base, *store;
    char before[PG_CACHE_ID], again[PG_CACHE_ID], after[PG_CACHE_ID];
    pg_cache *cache = NULL;
    pg_config cfg;

    REQUIRE(root);
    base = tree(root, "base");
    store = pg_path_join(root, "cache");
    config(&cfg, "");
    REQUIRE(pg_cache_open(&cache, store, 1 << 20) == 0);
    key_of(before, cache, &cfg, base);
    key_of(again, cache, &cfg, base); /* from the manifest */
    CHECK_STR(before, again);
    put(base, "inc/a.h", "#define SCALE 100.0f\n");
    key_of(after, cache, &cfg, base);
    CHECK(strcmp(before, after) != 0);
    /* And beside the source, searched before any include directory. */
    put(base, "src/a.h", "#define SCALE 100.0f\n");
    key_of(again, cache, &cfg, base);
    CHECK(strcmp(after, again) != 0);
    pg_cache_free(cache);
    pg_config_clear(&cfg);
    pg_rm_rf(root);
    free(store);
    free(base);
    free(root);
}

static void what_perfgate_cannot_see_into_has_no_key(void)
{
    static const char *const opaque[] = {
        ", build: make",          /* a project's own build */
        ", ldflags: [-lm]",       /* a linked library */
        ", cflags: [-lm]",        /* cflags that reach the link */
        ", cflags: [extra.o]",    /* a file handed to the compiler */
        ", cflags: [\"@flags\"]", /* flags read from a file */
        ", include: [\"inc*\"]",  /* a glob, which a change can widen */
        NULL};
    char *root = pg_test_scratch(), *base;
    char key[PG_CACHE_ID];
    pg_cache *cache = NULL;
    pg_config cfg;
    size_t i;

    REQUIRE(root);
    base = tree(root, "base");
    REQUIRE(pg_cache_open(&cache, NULL, 1 << 20) == 0);
    for (i = 0; opaque[i]; i++) {
        pg_str text = PG_STR_INIT;
        pg_str_printf(&text,
                      "version: 1\nbenchmarks:\n  - {name: a, problem: "
                      "reduce_sum, sources: [src/a.c], cases: [{n: 1}]%s}\n",
                      opaque[i]);
        pg_error_clear();
        if (pg_config_parse(&cfg, pg_str_cstr(&text), text.size, "perfgate.yml",
                            ".", builtins) != 0) {
            fprintf(stderr, "%s: %s\n", opaque[i], pg_error_last());
            pg_test_failed = 1;
        } else if (pg_affected_key(key, cache, &cfg.benchmarks[0], base,
                                   TIMEOUT) != 1) {
            fprintf(stderr, "has a key: %s\n", opaque[i]);
            pg_test_failed = 1;
        }
        pg_config_clear(&cfg);
        pg_str_clear(&text);
    }
    /* Code the compiler reads without saying so: #embed, .incbin. */
    config(&cfg, "");
    put(base, "lib/a.h",
        "#define SCALE 1.0f\n#if __has_embed(\"x\")\n#endif\n");
    CHECK(pg_affected_key(key, cache, &cfg.benchmarks[0], base, TIMEOUT) == 1);
    put(base, "lib/a.h",
        "#define SCALE 1.0f\n__asm__(\".incbin \\\"blob\\\"\");\n");
    CHECK(pg_affected_key(key, cache, &cfg.benchmarks[0], base, TIMEOUT) == 1);
    /* A field called include is not the assembler's .include. */
    put(base, "lib/a.h",
        "#define SCALE 1.0f\nstruct opts { int include; };\n"
        "static inline int f(struct opts o) { return o.include; }\n");
    CHECK(pg_affected_key(key, cache, &cfg.benchmarks[0], base, TIMEOUT) == 0);
    pg_config_clear(&cfg);
    pg_cache_free(cache);
    pg_rm_rf(root);
    free(base);
    free(root);
}

/* A source that is not on a side, or an include directory that leads out
 * of its tree, is a doubt: no key. */
static void a_side_without_the_source_has_no_key(void)
{
    char *root = pg_test_scratch(), *base, *path;
    char key[PG_CACHE_ID];
    pg_cache *cache = NULL;
    pg_config cfg;

    REQUIRE(root);
    base = tree(root, "base");
    REQUIRE(pg_cache_open(&cache, NULL, 1 << 20) == 0);
    config(&cfg, ", cflags: [-I../outside]");
    CHECK(pg_affected_key(key, cache, &cfg.benchmarks[0], base, TIMEOUT) == 1);
    pg_config_clear(&cfg);
    config(&cfg, "");
    path = pg_path_join(base, "src/a.c");
    REQUIRE(remove(path) == 0);
    CHECK(pg_affected_key(key, cache, &cfg.benchmarks[0], base, TIMEOUT) == 1);
    pg_config_clear(&cfg);
    pg_cache_free(cache);
    pg_rm_rf(root);
    free(path);
    free(base);
    free(root);
}

const pg_test pg_tests_affected[] = {
    {"the_same_tree_has_the_same_key", the_same_tree_has_the_same_key},
    {"what_the_build_reads_changes_the_key",
     what_the_build_reads_changes_the_key},
    {"a_new_header_that_shadows_changes_the_key",
     a_new_header_that_shadows_changes_the_key},
    {"what_perfgate_cannot_see_into_has_no_key",
     what_perfgate_cannot_see_into_has_no_key},
    {"a_side_without_the_source_has_no_key",
     a_side_without_the_source_has_no_key},
    PG_TESTS_END};
