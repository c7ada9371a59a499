/*
 * crc32 - zlib's crc32(crc, buf, len) over n random bytes: the problem
 * file with which perfgate gated real code nobody here wrote, in a scratch
 * folder (docs/accuracy.md, "A real project: zlib's crc32()").
 *
 * The reference is the CRC-32 of the definition (reflected, polynomial
 * 0xedb88320), bit by bit, computed once per case in setup().
 */
#include <perfgate/problem.h>

typedef unsigned long (*crc32_fn)(unsigned long crc, const unsigned char *buf,
                                  unsigned int len);

struct state {
    unsigned char *buf;
    unsigned int n;
    unsigned long got, want;
};

static unsigned long crc32_bitwise(const unsigned char *p, size_t n)
{
    unsigned long crc = 0xffffffffUL;
    size_t i;
    int k;

    for (i = 0; i < n; i++) {
        crc ^= p[i];
        for (k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ 0xedb88320UL : crc >> 1;
    }
    return crc ^ 0xffffffffUL;
}

static void *setup(pg_case *c)
{
    struct state *s = pg_host_alloc(c, sizeof(*s));
    long long n = pg_param(c, "n", 0);
    unsigned char *host;
    size_t i;

    if (!s)
        return NULL;
    if (n < 1 || n > 1 << 30)
        return pg_fail(c, "n must be from 1 to 2^30"), NULL;
    s->n = (unsigned int)n;
    host = pg_host_alloc(c, s->n);
    s->buf = pg_alloc(c, s->n);
    if (!host || !s->buf)
        return NULL;
    for (i = 0; i < s->n; i++)
        host[i] = (unsigned char)pg_random(c);
    s->want = crc32_bitwise(host, s->n);
    pg_upload(c, s->buf, host, s->n);
    return s;
}

static void run(void *state, pg_fn fn)
{
    struct state *s = state;
    s->got = ((crc32_fn)fn)(0, s->buf, s->n);
}

static int verify(void *state, pg_case *c)
{
    struct state *s = state;

    if (s->got != s->want)
        return pg_fail(c, "crc32 = %08lx, expected %08lx (n = %u)", s->got,
                       s->want, s->n);
    return 0;
}

static double bytes(const pg_case *c)
{
    return (double)pg_param(c, "n", 0);
}

static const pg_problem problem = {
    .abi = PG_PROBLEM_ABI,
    .name = "crc32",
    .signature = "unsigned long crc32(unsigned long crc, const unsigned char "
                 "*buf, unsigned int len)",
    .default_cases = "n=64; n=4096; n=1048576",
    .setup = setup,
    .run = run,
    .verify = verify,
    .bytes = bytes,
    .work = "n bytes",
};
PG_EXPORT_PROBLEM(problem)
