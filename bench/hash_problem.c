/*
 * hash_problem.c - the perfgate problem for bench/hash.c:
 *
 *     uint64_t hash64(const unsigned char *p, size_t len)
 *
 * on `len` random bytes, checked against the problem's own build of
 * hash.c.  Calls are independent (as a user's hash of many small keys is).
 */
#include <perfgate/problem.h>
typedef uint64_t (*hash_fn)(const unsigned char *p, size_t len);
struct state {
    unsigned char *data;
    size_t len;
    uint64_t result, expected;
};
/* The reference is the hash itself, compiled into the problem under
 * another name (what is measured is the side's own build of it). */
#define hash64 hash64_reference
#include "hash.c"
#undef hash64

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    size_t i;
    s->len = (size_t)pg_param(c, "len", 8);
    s->data = pg_alloc(c, s->len + 1);
    for (i = 0; i < s->len; i++)
        s->data[i] = (unsigned char)pg_random(c);
    s->expected = hash64_reference(s->data, s->len);
    return s;
}
static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    s->result = ((hash_fn)fn)(s->data, s->len);
}
static int verify(void *state, pg_case *c)
{
    struct state *s = state;
    if (s->result != s->expected)
        return pg_fail(c, "hash %llx, expected %llx",
                       (unsigned long long)s->result,
                       (unsigned long long)s->expected);
    return 0;
}
static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "hash64",
    .signature = "uint64_t hash64(const unsigned char *p, size_t len)",
    .default_cases = "len=8; len=64; len=1024",
    .setup = setup,
    .run = run,
    .verify = verify,
};
PG_EXPORT_PROBLEM(problem)
