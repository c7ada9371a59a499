/*
 * chain.c - the benchmark's synthetic solution: a dependent chain of
 * integer multiply-adds, STEPS long.  Each step needs the one before, so
 * the cost is STEPS times one multiply-add's latency and nothing else: a
 * chain 3% longer costs exactly 3% more.  Built with -DSTEPS=N.
 */
#include <stdint.h>

#ifndef STEPS
#error "build with -DSTEPS=N"
#endif

void chain(const uint64_t *in, uint64_t *out);

void chain(const uint64_t *in, uint64_t *out)
{
    uint64_t x = in[0], add = in[1];
    long i;

    for (i = 0; i < STEPS; i++) {
        x = x * 6364136223846793005ULL + add;
        /* No vectorizing, no closed form: one step at a time. */
        __asm__ __volatile__("" : "+r"(x));
    }
    out[0] = x;
    out[1] = STEPS;
}
