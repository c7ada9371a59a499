/*
 * The dispatch check (pathcheck.h): functions found by address in an ELF
 * file's symbol table; a native sample profile against callgrind's dump,
 * another path told from the same one; the features a simulator lacks.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfcode.h"
#include "pathcheck.h"
#include "str.h"
#include "test.h"

/* Two functions of this program, to be found by their addresses. */
__attribute__((noinline)) uint64_t pathcheck_wide(uint64_t x);
__attribute__((noinline)) uint64_t pathcheck_wide(uint64_t x)
{
    return x * 3 + 1;
}

/* The same function under another name, as glibc has many. */
uint64_t pathcheck_alias(uint64_t x) __attribute__((alias("pathcheck_wide")));

__attribute__((noinline)) static uint64_t pathcheck_narrow(uint64_t x)
{
    return x * 5 + 2;
}

/* Where `fn` is: this program's path, and its offset in it. */
static void where(const void *fn, const char **object, uint64_t *offset)
{
    Dl_info info;

    REQUIRE(dladdr(fn, &info) && info.dli_fname);
    *object = info.dli_fname;
    *offset = (uint64_t)((uintptr_t)fn - (uintptr_t)info.dli_fbase);
}

/* A file holding `text`; its path. */
static char *write_temp(const char *text)
{
    char *path = pg_strdup("/tmp/pg-pathcheck-XXXXXX");
    int fd = mkstemp(path);

    REQUIRE(fd >= 0);
    REQUIRE(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    return path;
}

static void functions_are_found_by_address(void)
{
    pg_elf_funcs f;
    const char *object;
    uint64_t wide, narrow;

    where((const void *)(uintptr_t)pathcheck_wide, &object, &wide);
    where((const void *)(uintptr_t)pathcheck_narrow, &object, &narrow);
    REQUIRE(pg_elf_funcs_read(&f, object) == 0);
    CHECK_STR(pg_elf_funcs_at(&f, wide)->name, "pathcheck_wide");
    /* A static function is in .symtab too, and inside it as well as at
     * its start. */
    CHECK_STR(pg_elf_funcs_at(&f, narrow + 1)->name, "pathcheck_narrow");
    CHECK(pg_elf_funcs_named(&f, "pathcheck_narrow")->start == narrow);
    CHECK(pg_elf_funcs_named(&f, "no_such_function_here") == NULL);
    CHECK(pg_elf_funcs_at(&f, 0) == NULL);
    pg_elf_funcs_clear(&f);
    /* Not ELF, or a header that points past the end: nothing, and no
     * crash. */
    {
        char *text = write_temp("not an ELF file at all\n");
        char *cut = write_temp("\177ELF\2\1\1");
        CHECK(pg_elf_funcs_read(&f, text) < 0 && f.n == 0);
        CHECK(pg_elf_funcs_read(&f, cut) < 0 && f.n == 0);
        unlink(text);
        unlink(cut);
        free(text);
        free(cut);
    }
    CHECK(pg_elf_funcs_read(&f, "/no/such/file") < 0 && f.n == 0);
}

/* Samples of both sides, all in `fn`, and callgrind's dumps of both
 * sides executing `counted` (at prefix.path0 and .path1); compares them. */
static int compare_with(pg_str *other, const void *fn, const char *counted,
                        int nsamples)
{
    const char *object;
    uint64_t offset;
    pg_str text = PG_STR_INIT;
    char *samples, *prefix, *dumps[2];
    int side, rc;

    where(fn, &object, &offset);
    for (side = 0; side < 2; side++)
        pg_str_printf(&text, "%d %d %llx %s\n%d 3 ? -\n", side, nsamples,
                      (unsigned long long)offset, object, side);
    samples = write_temp(pg_str_cstr(&text));
    pg_str_reset(&text);
    /* Its own cost, and a call's inclusive cost that is not its own. */
    pg_str_printf(&text,
                  "version: 1\nevents: Ir\nob=%s\nfn=%s'2\n16 1000\n"
                  "cfn=pathcheck_wide\ncalls=1 0\n17 50000\n",
                  object, counted);
    prefix = pg_strdup("/tmp/pg-pathcheck-dump");
    for (side = 0; side < 2; side++) {
        char *path = pg_strdupf("%s.path%d", prefix, side);
        dumps[side] = write_temp(pg_str_cstr(&text));
        REQUIRE(rename(dumps[side], path) == 0);
        free(dumps[side]);
        dumps[side] = path;
    }
    rc = pg_pathcheck(other, samples, prefix, 3, "avx2 avx512f avx512bw",
                      "avx2");
    for (side = 0; side < 2; side++) {
        unlink(dumps[side]);
        free(dumps[side]);
    }
    unlink(samples);
    free(samples);
    free(prefix);
    pg_str_clear(&text);
    return rc;
}

static void another_path_is_told_from_the_same(void)
{
    pg_str other = PG_STR_INIT;

    /* Natively all in pathcheck_wide(); callgrind saw pathcheck_narrow()
     * alone (the call into pathcheck_wide is inclusive, not its own). */
    CHECK(compare_with(&other, (const void *)(uintptr_t)pathcheck_wide,
                       "pathcheck_narrow", 500) == 1);
    CHECK(strstr(other.ptr, "both sides: natively 99% of its time is in "
                            "pathcheck_wide(), which callgrind never saw "
                            "run") != NULL);
    CHECK(strstr(other.ptr, "under callgrind 100% of its instructions are "
                            "in pathcheck_narrow(), where not one of 503 "
                            "native samples fell") != NULL);
    CHECK(strstr(other.ptr, "(the simulated CPU lacks avx512f avx512bw)") !=
          NULL);
    pg_str_reset(&other);

    /* The same function both ways ("name'2" is a recursion of it). */
    CHECK(compare_with(&other, (const void *)(uintptr_t)pathcheck_narrow,
                       "pathcheck_narrow", 500) == 0);
    CHECK(other.size == 0);

    /* The same function under another of its names: the same. */
    CHECK(compare_with(&other, (const void *)(uintptr_t)pathcheck_wide,
                       "pathcheck_alias", 500) == 0);
    CHECK(other.size == 0);

    /* Too few samples to say. */
    CHECK(compare_with(&other, (const void *)(uintptr_t)pathcheck_wide,
                       "pathcheck_narrow", 10) < 0);
    CHECK(strstr(other.ptr, "too few samples") != NULL);
    pg_str_clear(&other);
}

static void the_missing_features_are_named(void)
{
    pg_str s = PG_STR_INIT;

    pg_pathcheck_missing(&s, "sse4.2 avx2 avx512f  avx512bw", "avx2 sse4.2");
    CHECK_STR(s.ptr, "avx512f avx512bw");
    pg_str_reset(&s);
    pg_pathcheck_missing(&s, "avx2", "avx2 avx512f");
    CHECK(s.size == 0);
    pg_pathcheck_missing(&s, "", "avx2");
    CHECK(s.size == 0);
    pg_str_clear(&s);
    /* Keeps the test's own functions used. */
    CHECK(pathcheck_wide(1) == 4 && pathcheck_narrow(1) == 7);
}

/* The kernel's share of a side's time is said only where its samples
 * agree that it was in system calls: the base's 58% here is the kernel's
 * accounting alone (CI saw such a figure for a loop that makes no call),
 * the head's 60% is both, said at the smaller. */
static void system_calls_need_both_witnesses(void)
{
    char *path = write_temp("L 0 0.500000 0.490000 0.290000 0.000000\n"
                            "0 400 3f0 /lib/libspin.so\n"
                            "0 2 kernel -\n"
                            "L 1 0.500000 0.490000 0.300000 0.000000\n"
                            "1 180 3f0 /lib/libspin.so\n"
                            "1 220 kernel -\n");
    pg_str out = PG_STR_INIT;

    pg_pathcheck_uncounted(&out, path);
    CHECK_STR(out.ptr, "the head spends 55% of its time natively in system "
                       "calls, which no count sees");
    pg_str_clear(&out);
    unlink(path);
    free(path);
    /* Too few samples to say: nothing. */
    path = write_temp("L 1 0.500000 0.490000 0.300000 0.000000\n"
                      "1 20 kernel -\n");
    pg_pathcheck_uncounted(&out, path);
    CHECK(out.size == 0);
    pg_str_clear(&out);
    unlink(path);
    free(path);
}

const pg_test pg_tests_pathcheck[] = {
    {"functions_are_found_by_address", functions_are_found_by_address},
    {"another_path_is_told_from_the_same", another_path_is_told_from_the_same},
    {"the_missing_features_are_named", the_missing_features_are_named},
    {"system_calls_need_both_witnesses", system_calls_need_both_witnesses},
    PG_TESTS_END};
