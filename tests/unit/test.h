/*
 * test.h - a minimal test harness: each suite is a list of functions; a
 * failed check prints where and why and marks the test failed.
 */
#ifndef PG_TEST_H
#define PG_TEST_H

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

extern int pg_test_failed;

/* Where REQUIRE jumps to: the end of the running test. */
extern jmp_buf pg_test_end;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
            pg_test_failed = 1;                                                \
        }                                                                      \
    } while (0)

/* A precondition: when it fails, the test ends here (a CHECK would go on
 * and crash on what it assumed). */
#define REQUIRE(cond)                                                          \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "%s:%d: required: %s\n", __FILE__, __LINE__,       \
                    #cond);                                                    \
            pg_test_failed = 1;                                                \
            longjmp(pg_test_end, 1);                                           \
        }                                                                      \
    } while (0)

#define CHECK_STR(got, want)                                                   \
    do {                                                                       \
        const char *g_ = (got), *w_ = (want);                                  \
        if (!g_ || strcmp(g_, w_)) {                                           \
            fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__,      \
                    __LINE__, g_ ? g_ : "(null)", w_);                         \
            pg_test_failed = 1;                                                \
        }                                                                      \
    } while (0)

#define CHECK_CONTAINS(text, part)                                             \
    do {                                                                       \
        const char *t_ = (text), *p_ = (part);                                 \
        if (!t_ || !strstr(t_, p_)) {                                          \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n",         \
                    __FILE__, __LINE__, t_ ? t_ : "(null)", p_);               \
            pg_test_failed = 1;                                                \
        }                                                                      \
    } while (0)

#define CHECK_NEAR(got, want, tol)                                             \
    do {                                                                       \
        double g_ = (got), w_ = (want), t_ = (tol);                            \
        if (!(fabs(g_ - w_) <= t_)) {                                          \
            fprintf(stderr, "%s:%d: got %g, want %g within %g\n", __FILE__,    \
                    __LINE__, g_, w_, t_);                                     \
            pg_test_failed = 1;                                                \
        }                                                                      \
    } while (0)

typedef struct pg_test {
    const char *name;
    void (*fn)(void);
} pg_test;

#define PG_TESTS_END {NULL, NULL}

/* A fresh directory under $TMPDIR (or /tmp); free() and pg_rm_rf() it.
 * NULL when it cannot be made. */
char *pg_test_scratch(void);

#endif
