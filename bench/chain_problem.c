/*
 * chain_problem.c - the perfgate problem for bench/chain.c:
 *
 *     void chain(const uint64_t *in, uint64_t *out)
 *
 * in = {start, addend}; out = {the chain's end, its length}.  Each call
 * starts where the one before ended (run() feeds out[0] back into in[0]),
 * so that calls cannot overlap in the CPU: the whole inner loop is one
 * dependent chain, and a call's cost is its length even when it is a few
 * nanoseconds long.  verify() checks the last call's result against the
 * chain's closed form for the length the solution reports, so a wrong
 * answer fails like any other.
 */
#include <perfgate/problem.h>

typedef void (*chain_fn)(const uint64_t *in, uint64_t *out);

struct state {
    uint64_t *in, *out;
    uint64_t start; /* in[0] of the last call */
};

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    uint64_t seed = (uint64_t)pg_param(c, "seed", 1);

    if (!s || !(s->in = pg_host_alloc(c, 2 * sizeof(uint64_t))) ||
        !(s->out = pg_host_alloc(c, 2 * sizeof(uint64_t))))
        return NULL;
    s->in[0] = seed * 0x9E3779B97F4A7C15ULL;
    s->in[1] = 2 * seed + 1;
    return s;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;

    s->start = s->in[0];
    ((chain_fn)fn)(s->in, s->out);
    s->in[0] = s->out[0];
}

/*
 * The chain's end after `steps` steps from `x`, in O(log steps): a step is
 * the affine map x -> A x + b (mod 2^64), and maps compose as
 * (a1, b1) after (a2, b2) = (a1 a2, a1 b2 + b1), so the map for `steps`
 * comes by squaring, as a power does.
 */
static uint64_t chain_end(uint64_t x, uint64_t b, uint64_t steps)
{
    uint64_t ma = 1, mb = 0;                     /* the map so far: identity */
    uint64_t pa = 6364136223846793005ULL, pb = b; /* one step, squared on */

    for (; steps; steps >>= 1) {
        if (steps & 1) {
            mb = pa * mb + pb;
            ma = pa * ma;
        }
        pb = pa * pb + pb;
        pa = pa * pa;
    }
    return ma * x + mb;
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    uint64_t x;

    if (s->out[1] == 0 || s->out[1] > (1ULL << 40))
        return pg_fail(c, "reported a chain of %llu steps",
                       (unsigned long long)s->out[1]);
    x = chain_end(s->start, s->in[1], s->out[1]);
    if (s->out[0] != x)
        return pg_fail(c, "chain end 0x%016llx, expected 0x%016llx",
                       (unsigned long long)s->out[0], (unsigned long long)x);
    return 0;
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "chain",
    .signature = "void chain(const uint64_t *in, uint64_t *out)",
    .default_cases = "seed=1; seed=2; seed=3",
    .setup = setup,
    .run = run,
    .verify = verify,
};

PG_EXPORT_PROBLEM(problem)
