/*
 * affected.c's key of what a build reads: the same tree gives the same key,
 * a change to anything the build reads (a header it includes, a header
 * that would now be found first) gives another, a change to what it does
 * not read gives none, and what perfgate cannot see into has no key.  The
 * compiler ($CC or cc) says what a file includes; nothing is timed.
 */
#include <stdlib.h>

#include "affected.h"
#include "plan.h"
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

/* The same without include:, for a test of its own. */
static const char bare[] =
    "version: 1\n"
    "benchmarks:\n"
    "  - {name: a, problem: reduce_sum, sources: [src/a.c],\n"
    "     cases: [{n: 1000}]%s}\n";

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

/* Parses the one benchmark of `form` (bench or bare) with `extra` keys
 * (", cflags: [...]"). */
static void config_of(pg_config *cfg, const char *form, const char *extra)
{
    pg_str text = PG_STR_INIT;
    int err;

    pg_str_printf(&text, form, extra);
    pg_error_clear();
    err = pg_config_parse(cfg, pg_str_cstr(&text), text.size, "perfgate.yml",
                          ".", builtins);
    if (err)
        fprintf(stderr, "%s: %s\n", extra, pg_error_last());
    REQUIRE(err == 0);
    REQUIRE(cfg->nbenchmarks == 1);
    pg_str_clear(&text);
}

static void config(pg_config *cfg, const char *extra)
{
    config_of(cfg, bench, extra);
}

/* The key of `dir`'s build, which must have one. */
static void key_of(char key[PG_CACHE_ID], pg_cache *cache, const pg_config *cfg,
                   const char *dir)
{
    REQUIRE(pg_affected_key(key, cache, &cfg->benchmarks[0], dir, TIMEOUT) ==
            0);
    CHECK(strlen(key) == PG_CACHE_ID - 1);
}

/* Two sides' trees under a scratch root, the benchmark, and a cache. */
typedef struct world {
    char *root, *base, *head, *store;
    pg_config cfg;
    pg_cache *cache;
} world;

/* `store`: keep manifests in a cache directory (else no directory). */
static void world_init(world *w, int store)
{
    memset(w, 0, sizeof(*w));
    w->root = pg_test_scratch();
    REQUIRE(w->root);
    w->base = tree(w->root, "base");
    w->head = tree(w->root, "head");
    w->store = store ? pg_path_join(w->root, "cache") : NULL;
    config(&w->cfg, "");
    REQUIRE(pg_cache_open(&w->cache, w->store, 1 << 20) == 0);
}

static void world_clear(world *w)
{
    pg_cache_free(w->cache);
    pg_config_clear(&w->cfg);
    pg_rm_rf(w->root);
    free(w->store);
    free(w->base);
    free(w->head);
    free(w->root);
}

static void the_same_tree_has_the_same_key(void)
{
    char kb[PG_CACHE_ID], kh[PG_CACHE_ID];
    world w;

    world_init(&w, 0);
    key_of(kb, w.cache, &w.cfg, w.base);
    key_of(kh, w.cache, &w.cfg, w.head);
    CHECK_STR(kb, kh);
    /* A file the build does not read changes nothing. */
    put(w.head, "lib/unread.h", "/* changed */\n");
    put(w.head, "README", "changed\n");
    key_of(kh, w.cache, &w.cfg, w.head);
    CHECK_STR(kb, kh);
    world_clear(&w);
}

static void what_the_build_reads_changes_the_key(void)
{
    char kb[PG_CACHE_ID], kh[PG_CACHE_ID];
    world w;

    world_init(&w, 0);
    key_of(kb, w.cache, &w.cfg, w.base);
    /* The header it includes. */
    put(w.head, "lib/a.h", "#define SCALE 2.0f\n");
    key_of(kh, w.cache, &w.cfg, w.head);
    CHECK(strcmp(kb, kh) != 0);
    /* A comment in the source: the key is of contents, not of code. */
    put(w.head, "lib/a.h", "#define SCALE 1.0f\n");
    key_of(kh, w.cache, &w.cfg, w.head);
    CHECK_STR(kb, kh);
    put(w.head, "src/a.c", "/* a comment */\n");
    key_of(kh, w.cache, &w.cfg, w.head);
    CHECK(strcmp(kb, kh) != 0);
    world_clear(&w);
}

/* A header a change adds earlier in the include path is read instead of
 * the old one, though no file the last build read has changed: asked
 * afresh, and through a kept manifest alike. */
static void a_new_header_that_shadows_changes_the_key(void)
{
    char before[PG_CACHE_ID], again[PG_CACHE_ID], after[PG_CACHE_ID];
    world w;

    world_init(&w, 1);
    key_of(before, w.cache, &w.cfg, w.base);
    key_of(again, w.cache, &w.cfg, w.base); /* from the manifest */
    CHECK_STR(before, again);
    put(w.base, "inc/a.h", "#define SCALE 100.0f\n");
    key_of(after, w.cache, &w.cfg, w.base);
    CHECK(strcmp(before, after) != 0);
    /* And beside the source, searched before any include directory. */
    put(w.base, "src/a.h", "#define SCALE 100.0f\n");
    key_of(again, w.cache, &w.cfg, w.base);
    CHECK(strcmp(after, again) != 0);
    world_clear(&w);
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
    const pg_bench_config *b;
    char key[PG_CACHE_ID];
    size_t i;
    world w;

    world_init(&w, 0);
    for (i = 0; opaque[i]; i++) {
        pg_config cfg;
        config_of(&cfg, bare, opaque[i]);
        if (pg_affected_key(key, w.cache, &cfg.benchmarks[0], w.base,
                            TIMEOUT) != 1) {
            fprintf(stderr, "has a key: %s\n", opaque[i]);
            pg_test_failed = 1;
        }
        pg_config_clear(&cfg);
    }
    /* Code the compiler reads without saying so: #embed, .incbin. */
    b = &w.cfg.benchmarks[0];
    put(w.base, "lib/a.h",
        "#define SCALE 1.0f\n#if __has_embed(\"x\")\n#endif\n");
    CHECK(pg_affected_key(key, w.cache, b, w.base, TIMEOUT) == 1);
    put(w.base, "lib/a.h",
        "#define SCALE 1.0f\n__asm__(\".incbin \\\"blob\\\"\");\n");
    CHECK(pg_affected_key(key, w.cache, b, w.base, TIMEOUT) == 1);
    /* ... also on a line of its own in the asm's string, after "\n". */
    put(w.base, "lib/a.h",
        "#define SCALE 1.0f\n__asm__(\".section .rodata\\n.incbin "
        "\\\"blob\\\"\\n.previous\");\n");
    CHECK(pg_affected_key(key, w.cache, b, w.base, TIMEOUT) == 1);
    /* A field called include is not the assembler's .include. */
    put(w.base, "lib/a.h",
        "#define SCALE 1.0f\nstruct opts { int include; };\n"
        "static inline int f(struct opts o) { return o.include; }\n");
    CHECK(pg_affected_key(key, w.cache, b, w.base, TIMEOUT) == 0);
    world_clear(&w);
}

/* A source that is not on a side, or an include directory that leads out
 * of its tree, is a doubt: no key. */
static void a_side_without_the_source_has_no_key(void)
{
    char key[PG_CACHE_ID], *path;
    pg_config outside;
    world w;

    world_init(&w, 0);
    config(&outside, ", cflags: [-I../outside]");
    CHECK(pg_affected_key(key, w.cache, &outside.benchmarks[0], w.base,
                          TIMEOUT) == 1);
    pg_config_clear(&outside);
    path = pg_path_join(w.base, "src/a.c");
    REQUIRE(remove(path) == 0);
    CHECK(pg_affected_key(key, w.cache, &w.cfg.benchmarks[0], w.base,
                          TIMEOUT) == 1);
    free(path);
    world_clear(&w);
}

/* Two sources, for the plan's tests. */
static const char two[] =
    "version: 1\n"
    "benchmarks:\n"
    "  - {name: a, problem: reduce_sum, sources: [src/a.c, src/b.c],\n"
    "     include: [inc, lib], cases: [{n: 1000}]%s}\n";

/* The plan of the base tree's build of benchmark `form` with `extra`,
 * which must have one. */
static void plan_of(pg_plan *p, const world *w, const char *form,
                    const char *extra)
{
    pg_config cfg;

    config_of(&cfg, form, extra);
    REQUIRE(pg_plan_make(p, &cfg.benchmarks[0], w->base) == 0);
    pg_config_clear(&cfg);
}

/* 1 when `argv` holds `flag`. */
static int has(const pg_strvec *argv, const char *flag)
{
    return pg_strvec_has(argv, flag);
}

/* One plan: each file with the command that compiles it, the link, and
 * what follows the code; a file with flags of its own compiled apart. */
static void a_plan_says_what_each_file_is_compiled_with(void)
{
    pg_plan p;
    world w;

    world_init(&w, 0);
    put(w.base, "src/b.c", "int b(void) { return 1; }\n");
    plan_of(&p, &w, two,
            ", cflags: [-O2, -lfoo], file_cflags: {src/b.c: [-O0]}");
    REQUIRE(p.nfiles == 2);
    CHECK_STR(p.files[0].path, "src/a.c");
    CHECK(p.files[0].kind == PG_PLAN_SOURCE);
    CHECK(has(&p.files[0].argv, "-O2") && has(&p.files[0].argv, "-Iinc") &&
          has(&p.files[0].argv, "-fno-semantic-interposition"));
    CHECK(!has(&p.files[0].argv, "-O0") && !has(&p.files[0].argv, "-lfoo"));
    CHECK_STR(p.files[1].path, "src/b.c");
    CHECK(p.files[1].kind == PG_PLAN_APART);
    CHECK(has(&p.files[1].argv, "-O2") && has(&p.files[1].argv, "-O0"));
    /* The link: the compiler's flags, and how a library is linked; the
     * library cflags names comes after the code, then -lm. */
    CHECK(has(&p.link, "-shared") && has(&p.link, "-Wl,-Bsymbolic") &&
          has(&p.link, "-Wl,--no-undefined") && has(&p.link, "-O2"));
    REQUIRE(p.after.n == 2);
    CHECK_STR(p.after.v[0], "-lfoo");
    CHECK_STR(p.after.v[1], "-lm");
    CHECK_STR(p.what, "src/a.c (and 1 more)");
    pg_plan_clear(&p);
    /* Interposable: a plain -shared build. */
    plan_of(&p, &w, bench, ", symbols: interposable");
    CHECK(!has(&p.files[0].argv, "-fno-semantic-interposition"));
    CHECK(!has(&p.link, "-Wl,-Bsymbolic"));
    pg_plan_clear(&p);
    world_clear(&w);
}

/* The key is made of the plan: what perfgate adds to a build (here, the
 * flags that keep a library's calls to itself inside it) changes the key
 * as a user's flag does, with no version to bump by hand. */
static void the_key_follows_the_plan(void)
{
    char local[PG_CACHE_ID], plain[PG_CACHE_ID], apart[PG_CACHE_ID];
    pg_config cfg;
    world w;

    world_init(&w, 0);
    key_of(local, w.cache, &w.cfg, w.base);
    config(&cfg, ", symbols: interposable");
    key_of(plain, w.cache, &cfg, w.base);
    pg_config_clear(&cfg);
    CHECK(strcmp(local, plain) != 0);
    config(&cfg, ", file_cflags: {src/a.c: [-O0]}");
    key_of(apart, w.cache, &cfg, w.base);
    pg_config_clear(&cfg);
    CHECK(strcmp(local, apart) != 0 && strcmp(plain, apart) != 0);
    world_clear(&w);
}

/* Without the compiler, a key is told from a manifest that still holds,
 * and from nothing else. */
static void a_kept_key_needs_a_manifest_that_holds(void)
{
    char asked[PG_CACHE_ID], kept[PG_CACHE_ID];
    const pg_bench_config *b;
    pg_config opaque;
    world w;

    world_init(&w, 1);
    b = &w.cfg.benchmarks[0];
    CHECK(pg_affected_key_kept(kept, w.cache, b, w.base) == PG_AFFECTED_ASK);
    key_of(asked, w.cache, &w.cfg, w.base);
    REQUIRE(pg_affected_key_kept(kept, w.cache, b, w.base) == 0);
    CHECK_STR(asked, kept);
    /* A header the last answer read has changed: only the compiler can
     * say what the build reads now. */
    put(w.base, "lib/a.h", "#define SCALE 2.0f\n#include \"more.h\"\n");
    put(w.base, "lib/more.h", "\n");
    CHECK(pg_affected_key_kept(kept, w.cache, b, w.base) == PG_AFFECTED_ASK);
    /* What cannot be keyed says so without asking either. */
    config(&opaque, ", ldflags: [-lm]");
    CHECK(pg_affected_key_kept(kept, w.cache, &opaque.benchmarks[0], w.base) ==
          1);
    pg_config_clear(&opaque);
    world_clear(&w);
}

const pg_test pg_tests_affected[] = {
    {"a_plan_says_what_each_file_is_compiled_with",
     a_plan_says_what_each_file_is_compiled_with},
    {"the_key_follows_the_plan", the_key_follows_the_plan},
    {"a_kept_key_needs_a_manifest_that_holds",
     a_kept_key_needs_a_manifest_that_holds},
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
