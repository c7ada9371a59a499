/*
 * hash_problem.c - the perfgate problem for bench/hash.c:
 *
 *     uint64_t hash64(const unsigned char *p, size_t len)
 *
 * on `len` random bytes, checked against the problem's own copy of the
 * hash.  Calls are independent (as a user's hash of many small keys is).
 */
#include <perfgate/problem.h>
#include <string.h>
typedef uint64_t (*hash_fn)(const unsigned char *p, size_t len);
struct state {
    unsigned char *data;
    size_t len;
    uint64_t result, expected;
};
static uint64_t reference(const unsigned char *p, size_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ULL ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t k;
        memcpy(&k, p + i, 8);
        k *= 0xff51afd7ed558ccdULL;
        k ^= k >> 33;
        h = (h ^ k) * 0xc4ceb9fe1a85ec53ULL;
    }
    for (; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    h ^= h >> 29;
    return h;
}
static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    size_t i;
    s->len = (size_t)pg_param(c, "len", 8);
    s->data = pg_alloc(c, s->len + 1);
    for (i = 0; i < s->len; i++)
        s->data[i] = (unsigned char)pg_random(c);
    s->expected = reference(s->data, s->len);
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
