/*
 * mem.c - memory-touching solutions of the built-in problems vector_add
 * and reduce_sum, for bench/memory.py, in variants whose cost is known:
 *
 *   -DVARIANT=0  the base
 *   -DVARIANT=1  A/A: the same loop, in a library whose code differs (one
 *                function more, after the solution, so that the solution's
 *                code lies at the same offsets), so that perfgate cannot
 *                skip it as identical code
 *   -DVARIANT=2  10% more bytes moved: the start of the inputs read again
 *                after the pass (into a sink the compiler must keep), a
 *                tenth of them for reduce_sum (n floats read), 15% of `a`
 *                and `b` for vector_add (2n floats read, n written)
 *   -DVARIANT=3  2x: the whole pass done twice
 *
 * with -DREDUCE for reduce_sum, else vector_add; and with -DONESHOT, the
 * state of a one-shot API allocated and freed around each call, as zlib's
 * and zlib-ng's compress2() allocate theirs (issue 48, item 4).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#ifndef VARIANT
#define VARIANT 0
#endif

/* Keeps a value the compiler would otherwise drop. */
#define SINK(x) __asm__ __volatile__("" ::"r"(x))
#define BARRIER() __asm__ __volatile__("" ::: "memory")

#ifdef ONESHOT
/* zlib-ng's deflateInit2() blocks (state, window, prev, head, pending),
 * 64-byte aligned, with the hash head cleared as deflateInit clears it;
 * freed in the reverse order, as deflateEnd() frees them. */
static const size_t oneshot_size[5] = {6080, 65600, 65536, 131072, 81920};
#define ONESHOT_BLOCKS 5

static void oneshot_begin(char **block)
{
    for (int k = 0; k < ONESHOT_BLOCKS; k++) {
        block[k] = aligned_alloc(64, oneshot_size[k]);
        if (!block[k])
            abort();
        block[k][0] = (char)k;
    }
    memset(block[3], 0, oneshot_size[3]);
}

static void oneshot_end(char **block)
{
    for (int k = ONESHOT_BLOCKS - 1; k >= 0; k--) {
        SINK(block[k][0]);
        free(block[k]);
    }
}
#define ONESHOT_BEGIN()                                                        \
    char *block[ONESHOT_BLOCKS];                                               \
    oneshot_begin(block)
#define ONESHOT_END() oneshot_end(block)
#else
#define ONESHOT_BEGIN() ((void)0)
#define ONESHOT_END() ((void)0)
#endif

#ifdef REDUCE
static float pass(const float *in, size_t n)
{
    float a = 0, b = 0, c = 0, d = 0;
    size_t i = 0;

    for (; i + 4 <= n; i += 4) {
        a += in[i];
        b += in[i + 1];
        c += in[i + 2];
        d += in[i + 3];
    }
    for (; i < n; i++)
        a += in[i];
    return (a + b) + (c + d);
}

void solution(const float *in, float *out, size_t n);
void solution(const float *in, float *out, size_t n)
{
    ONESHOT_BEGIN();
    float s = pass(in, n);
#if VARIANT == 2
    SINK(pass(in, n / 10));
#elif VARIANT == 3
    SINK(s);
    BARRIER();
    s = pass(in, n);
#endif
    out[0] = s;
    ONESHOT_END();
}
#else
static void pass(const float *a, const float *b, float *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        c[i] = a[i] + b[i];
}

/* Reads a[0..n) and b[0..n) in four independent chains, so that reading
 * costs what the bytes cost, not a chain of dependent adds. */
static float read_again(const float *a, const float *b, size_t n)
{
    float s[4] = {0, 0, 0, 0};
    size_t i = 0;

    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++)
            s[k] += a[i + k] + b[i + k];
    return (s[0] + s[1]) + (s[2] + s[3]);
}

void solution(const float *a, const float *b, float *c, size_t n);
void solution(const float *a, const float *b, float *c, size_t n)
{
    ONESHOT_BEGIN();
    pass(a, b, c, n);
#if VARIANT == 2
    SINK(read_again(a, b, n * 3 / 20));
#elif VARIANT == 3
    BARRIER();
    pass(a, b, c, n);
#endif
    ONESHOT_END();
}
#endif

#if VARIANT == 1
/* After the solution, so that its code lies where the base's does: the
 * function more put first moved reduce_sum's inner loop 16 bytes, across
 * a 64-byte line, and on this machine's AMD EPYC that loop then ran some
 * 45% slower for minutes at a time (docs/accuracy.md). */
int mem_variant(void);
int mem_variant(void)
{
    return 1;
}
#endif
