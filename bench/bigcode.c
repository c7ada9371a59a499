/*
 * bigcode.c - the benchmark's large-code solution: the chain of chain.c
 * (bench/chain_problem.c verifies it), cut into 2,000 distinct functions
 * of 8 steps each, about 150 KB of machine code that one pass runs
 * through once, PASSES times a call (200 passes: about 3 ms).  The shape
 * of a real library's big entry point (a markdown renderer, a
 * compressor): code far larger than the L1 instruction cache, whose
 * placement and the machine's other work move its time more than a tight
 * loop's.  Built with -DPASSES=N and -fno-ipa-icf (identical functions
 * must stay apart); the cost is PASSES times one pass, so 216 passes
 * cost 8% more than 200.
 */
#include <stdint.h>

#ifndef PASSES
#error "build with -DPASSES=N"
#endif

void chain(const uint64_t *in, uint64_t *out);

/* clang-format off */
#define STEP x = x * 6364136223846793005ULL + add; __asm__ __volatile__("" : "+r"(x));
#define STEP8 STEP STEP STEP STEP STEP STEP STEP STEP

#define FN(i) static __attribute__((noinline)) uint64_t f##i(uint64_t x, uint64_t add) { STEP8 return x; }
#define FN10(p) FN(p##0) FN(p##1) FN(p##2) FN(p##3) FN(p##4) FN(p##5) FN(p##6) FN(p##7) FN(p##8) FN(p##9)
#define FN100(p) FN10(p##0) FN10(p##1) FN10(p##2) FN10(p##3) FN10(p##4) FN10(p##5) FN10(p##6) FN10(p##7) FN10(p##8) FN10(p##9)
#define FN1000(p) FN100(p##0) FN100(p##1) FN100(p##2) FN100(p##3) FN100(p##4) FN100(p##5) FN100(p##6) FN100(p##7) FN100(p##8) FN100(p##9)

FN1000(1)
FN1000(2)

#define CALL(i) x = f##i(x, add);
#define CALL10(p) CALL(p##0) CALL(p##1) CALL(p##2) CALL(p##3) CALL(p##4) CALL(p##5) CALL(p##6) CALL(p##7) CALL(p##8) CALL(p##9)
#define CALL100(p) CALL10(p##0) CALL10(p##1) CALL10(p##2) CALL10(p##3) CALL10(p##4) CALL10(p##5) CALL10(p##6) CALL10(p##7) CALL10(p##8) CALL10(p##9)
#define CALL1000(p) CALL100(p##0) CALL100(p##1) CALL100(p##2) CALL100(p##3) CALL100(p##4) CALL100(p##5) CALL100(p##6) CALL100(p##7) CALL100(p##8) CALL100(p##9)

/* clang-format on */

/* The steps of one pass: 2,000 functions of 8. */
#define PASS_STEPS 16000

void chain(const uint64_t *in, uint64_t *out)
{
    uint64_t x = in[0], add = in[1];
    long pass;

    for (pass = 0; pass < PASSES; pass++) {
        /* clang-format off */
        CALL1000(1) CALL1000(2)
        /* clang-format on */
    }
    out[0] = x;
    out[1] = (uint64_t)PASSES * PASS_STEPS;
}
