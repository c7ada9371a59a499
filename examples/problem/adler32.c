/*
 * A perfgate problem for a function with its own signature:
 *
 *     uint32_t checksum(const uint8_t *data, size_t len)
 *
 * setup() makes the input, run() makes one call and keeps the result,
 * verify() compares it with a plain reference.  perfgate compiles this file
 * as a plugin; see "Your own problem" in perfgate's README.
 */
#include <perfgate/problem.h>

typedef uint32_t (*checksum_fn)(const uint8_t *data, size_t len);

struct state {
    uint8_t *data; /* what the solution reads: from pg_alloc() */
    size_t len;
    uint32_t result;   /* what the last call returned */
    uint32_t expected; /* the reference */
};

static uint32_t reference(const uint8_t *p, size_t len)
{
    uint32_t a = 1, b = 0;
    size_t i;

    for (i = 0; i < len; i++) {
        a = (a + p[i]) % 65521u;
        b = (b + a) % 65521u;
    }
    return (b << 16) | a;
}

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    uint8_t *host;
    size_t i;

    s->len = (size_t)pg_param(c, "len", 4096);
    host = pg_host_alloc(c, s->len);
    s->data = pg_alloc(c, s->len);
    if (!host || !s->data)
        return NULL;
    for (i = 0; i < s->len; i++)
        host[i] = (uint8_t)pg_random(c);
    pg_upload(c, s->data, host, s->len);
    s->expected = reference(host, s->len);
    return s;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    s->result = ((checksum_fn)fn)(s->data, s->len);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;

    if (s->result != s->expected)
        return pg_fail(c, "checksum = 0x%08x, expected 0x%08x", s->result,
                       s->expected);
    return 0;
}

static double bytes(const pg_case *c)
{
    return (double)pg_param(c, "len", 4096);
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "adler32",
    .signature = "uint32_t checksum(const uint8_t *data, size_t len)",
    .default_cases = "len=4096; len=262144",
    .setup = setup,
    .run = run,
    .verify = verify,
    .bytes = bytes,
};

PG_EXPORT_PROBLEM(problem)
