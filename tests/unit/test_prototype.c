/*
 * test_prototype.c - reading the C prototypes users write in perfgate.yml
 * (prototype.h): the real functions the gate is meant for, and each kind
 * of prototype it refuses, with where and what to do.
 */
#include "error.h"
#include "prototype.h"
#include "test.h"

#include <stdbool.h>
#include <stdint.h>

/* Parses `text`, which must parse. */
static void parse(pg_prototype *p, const char *text)
{
    size_t col = 99;
    int err = pg_prototype_parse(p, text, &col);

    if (err < 0)
        fprintf(stderr, "%s: %s\n", text, pg_error_last());
    REQUIRE(err == 0);
    CHECK(col == 0);
}

/* Parses `text`, which must be refused at `col` with `says` in it. */
static void refused(const char *text, size_t col, const char *says)
{
    pg_prototype p;
    size_t at = 0;

    CHECK(pg_prototype_parse(&p, text, &at) == PG_ERR_USAGE);
    CHECK(p.name == NULL && p.nparams == 0);
    if (at != col)
        fprintf(stderr, "%s: column %zu, want %zu\n", text, at, col);
    CHECK(at == col);
    CHECK_CONTAINS(pg_error_last(), says);
}

static void real_functions(void)
{
    pg_prototype p;
    const pg_cparam *buf;

    parse(&p, "unsigned long crc32_z(unsigned long crc, "
              "const unsigned char *buf, size_t len)");
    CHECK_STR(p.name, "crc32_z");
    CHECK_STR(p.result.spelling, "unsigned long");
    CHECK(p.result.kind == PG_CKIND_INT && !p.result.is_signed);
    CHECK(p.result.size == sizeof(unsigned long));
    REQUIRE(p.nparams == 3);
    buf = pg_prototype_param(&p, "buf");
    REQUIRE(buf);
    CHECK(buf->type.pointer && buf->type.is_const);
    CHECK(buf->type.size == 1 && !buf->type.is_signed);
    CHECK(buf->column == 42);
    CHECK_STR(p.params[2].type.spelling, "size_t");
    CHECK(!p.params[2].type.pointer);
    CHECK(pg_prototype_param(&p, "nope") == NULL);
    pg_prototype_clear(&p);

    parse(&p, "int LZ4_decompress_safe(const char* src, char* dst, "
              "int compressedSize, int dstCapacity);");
    REQUIRE(p.nparams == 4);
    CHECK(p.params[0].type.is_const && p.params[0].type.pointer);
    CHECK(!p.params[1].type.is_const && p.params[1].type.pointer);
    CHECK_STR(p.params[3].name, "dstCapacity");
    CHECK(p.result.is_signed && p.result.size == sizeof(int));
    pg_prototype_clear(&p);

    /* Floats, arrays as pointers, stdint, void * counted in bytes. */
    parse(&p, "float sum(const float x[], size_t n)");
    CHECK(p.result.kind == PG_CKIND_FLOAT && p.result.size == 4);
    CHECK(p.params[0].type.pointer && p.params[0].type.kind == PG_CKIND_FLOAT);
    pg_prototype_clear(&p);
    parse(&p, "uint64_t XXH64(const void *input, size_t length, "
              "uint64_t seed)");
    CHECK(p.result.size == 8 && !p.result.is_signed);
    CHECK(p.params[0].type.kind == PG_CKIND_VOID && p.params[0].type.pointer);
    pg_prototype_clear(&p);
    parse(&p, "static inline void scale(double * restrict x, long long n, "
              "bool clamp, signed char bias, long double k)");
    CHECK(p.result.kind == PG_CKIND_VOID);
    CHECK(p.params[0].type.pointer && !p.params[0].type.is_const);
    CHECK_STR(p.params[1].type.spelling, "long long");
    CHECK(p.params[2].type.kind == PG_CKIND_BOOL);
    CHECK(p.params[3].type.is_signed && p.params[3].type.size == 1);
    CHECK(p.params[4].type.size == sizeof(long double));
    pg_prototype_clear(&p);
    parse(&p, "size_t count_words(const char *text, size_t len)");
    CHECK(p.params[0].type.size == 1);
    CHECK(p.params[0].type.is_signed == ((char)-1 < 0));
    pg_prototype_clear(&p);
    /* A pointer result: what it is, `returns:` says (function.c). */
    parse(&p, "char *cmark_markdown_to_html(const char *text, size_t len, "
              "int options)");
    CHECK(p.result.pointer && !p.result.is_const && p.result.size == 1);
    CHECK_STR(p.name, "cmark_markdown_to_html");
    pg_prototype_clear(&p);
    /* No parameters at all. */
    parse(&p, "int tick(void)");
    CHECK(p.nparams == 0);
    pg_prototype_clear(&p);
    parse(&p, "unsigned tick2()");
    CHECK(p.nparams == 0);
    CHECK_STR(p.result.spelling, "unsigned int");
    pg_prototype_clear(&p);
}

static void what_it_refuses(void)
{
    refused("int f(struct ctx *c, int n)", 7, "parameter 1 is a struct");
    refused("int f(int n, LZ4_stream_t *s)", 14,
            "has type 'LZ4_stream_t', which perfgate does not know");
    refused("int f(int (*cmp)(int, int))", 11, "is a function pointer");
    refused("int f(const char *fmt, ...)", 24, "variable arguments");
    refused("int f(char **argv)", 12, "a pointer to a pointer");
    refused("int f(int, int)", 10, "has no name: name it");
    refused("int f(int a, int a)", 14, "two parameters are named 'a'");
    refused("char **f(int n)", 6, "a pointer to a pointer");
    refused("int f(int n) { return n; }", 14, "after the closing ')'");
    refused("int (int n)", 5, "expected the function's name");
    refused("int f int n", 7, "expected '(' after 'f'");
    refused("int f(int n", 12, "expected ',' or ')'");
    refused("unsigned float f(int n)", 1, "not a C type");
    refused("int f(void x)", 7, "is void");
    refused("", 1, "has no type");
    /* Whatever it is given, it says what and where, or parses. */
    refused("int f(enum mode m)", 7, "is a enum");
    refused("union u f(int n)", 1, "the result is a union");
}

const pg_test pg_tests_prototype[] = {{"real_functions", real_functions},
                                      {"what_it_refuses", what_it_refuses},
                                      PG_TESTS_END};
