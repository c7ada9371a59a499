/*
 * A function's prototype read from a preprocessed header: attributes set
 * aside, typedefs replaced down to C's types, the last declaration taken,
 * and what cannot be told said.
 */
#include <stdlib.h>
#include <string.h>

#include "declare.h"
#include "test.h"

/* What `cc -E -P` makes of an xxhash.h-like header: stdint's typedefs,
 * the project's own on top, attribute macros expanded, a struct, an
 * inline function with a body, a function pointer type. */
static const char header[] =
    "typedef unsigned long int uint64_t;\n"
    "typedef unsigned int uint32_t;\n"
    "typedef long unsigned int size_t;\n"
    "# 12 \"xxhash.h\"\n"
    "#pragma GCC diagnostic push\n"
    "typedef uint64_t XXH64_hash_t;\n"
    "typedef XXH64_hash_t hash_alias_t;\n"
    "typedef struct { unsigned char digest[sizeof(XXH64_hash_t)]; } "
    "XXH64_canonical_t;\n"
    "typedef struct XXH3_state_s XXH3_state_t;\n"
    "typedef enum { XXH_OK = 0, XXH_ERROR } XXH_errorcode;\n"
    "typedef int (*xxh_cmp)(const void *, const void *);\n"
    "typedef char *xxh_str;\n"
    " __attribute__((visibility(\"default\"))) __attribute__((__pure__)) "
    "XXH64_hash_t XXH3_64bits( const void* input, size_t length);\n"
    "static inline __attribute__((always_inline)) uint32_t "
    "XXH_rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }\n"
    "extern hash_alias_t XXH3_64bits_withSeed(const void *__restrict data, "
    "size_t len, XXH64_hash_t seed) __asm__(\"xxh_seed\") "
    "__attribute__((__nothrow__ , __leaf__));\n"
    "XXH_errorcode XXH3_64bits_reset(XXH3_state_t *statePtr);\n"
    "int xxh_sort(void *base, size_t n, xxh_cmp cmp);\n"
    "size_t xxh_len(const xxh_str s);\n"
    "size_t xxh_plain(xxh_str s);\n"
    "int unnamed(int, char *);\n"
    "[[nodiscard]] _Nonnull int later(int a);\n"
    "int later(int b);\n";

static char *read_ok(const char *name)
{
    char *proto = NULL, *why = NULL;

    if (pg_declare_read(&proto, &why, header, name, "xxhash.h") != 0) {
        fprintf(stderr, "%s: %s\n", name, why ? why : "(no reason)");
        free(why);
        return NULL;
    }
    CHECK(why == NULL);
    return proto;
}

static char *read_fails(const char *name)
{
    char *proto = NULL, *why = NULL;

    CHECK(pg_declare_read(&proto, &why, header, name, "xxhash.h") == 1);
    CHECK(proto == NULL);
    return why;
}

static void typedefs_resolve_to_c_types(void)
{
    char *p = read_ok("XXH3_64bits");

    CHECK_STR(p, "uint64_t XXH3_64bits(const void * input, size_t length)");
    free(p);
    /* A chain of typedefs, an asm label and attributes after it. */
    p = read_ok("XXH3_64bits_withSeed");
    CHECK_STR(p, "uint64_t XXH3_64bits_withSeed(const void * data, size_t "
                 "len, uint64_t seed)");
    free(p);
    /* A function defined in the header, its body set aside. */
    p = read_ok("XXH_rotl32");
    CHECK_STR(p, "uint32_t XXH_rotl32(uint32_t x, int r)");
    free(p);
    /* The last declaration is taken (function: may write its own). */
    p = read_ok("later");
    CHECK_STR(p, "int later(int b)");
    free(p);
    /* A pointer typedef, unqualified, is the pointer it names. */
    p = read_ok("xxh_plain");
    CHECK_STR(p, "size_t xxh_plain(char * s)");
    free(p);
}

static void what_cannot_be_told_is_said(void)
{
    char *why = read_fails("XXH3_64bitz");

    CHECK_CONTAINS(why, "xxhash.h declares no function 'XXH3_64bitz'");
    CHECK_CONTAINS(why, "did you mean 'XXH3_64bits'");
    free(why);
    why = read_fails("xxh_sort");
    CHECK_CONTAINS(why, "'xxh_cmp' is a function pointer in xxhash.h");
    free(why);
    why = read_fails("xxh_len");
    CHECK_CONTAINS(why, "'xxh_str' is a pointer in xxhash.h, and a const "
                        "one here");
    free(why);
    /* A struct's or an enum's typedef becomes one: the prototype's parser
     * refuses it, naming what it is. */
    {
        char *p = read_ok("XXH3_64bits_reset");
        CHECK(p && strstr(p, "enum"));
        CHECK(p && strstr(p, "struct XXH3_state_s *"));
        free(p);
    }
    /* A name used as a parameter type of a typedef's sizeof is not taken
     * for the typedef's name. */
    {
        char *p = read_ok("unnamed");
        CHECK_STR(p, "int unnamed(int, char *)");
        free(p);
    }
}

const pg_test pg_tests_declare[] = {
    {"typedefs_resolve_to_c_types", typedefs_resolve_to_c_types},
    {"what_cannot_be_told_is_said", what_cannot_be_told_is_said},
    PG_TESTS_END};
