/*
 * plugin.c - cases, their memory and random streams, and plugin loading.
 *
 * The pg_* functions here are the ones problem plugins call; the perfgate
 * executable exports exactly these (see perfgate.sym).
 */
#include "plugin.h"
#include "elfcode.h"
#include "str.h"
#include "error.h"
#include "strvec.h"
#include "words.h"

#include <ctype.h>
#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

void pg_plugin_case_init(pg_case *c, const char *problem,
                         const pg_casespec *spec, const pg_memory_ops *memory)
{
    uint64_t seed;
    int i;

    memset(c, 0, sizeof(*c));
    c->spec = spec;
    c->memory = memory;
    pg_str_init(&c->message, 4096);
    seed = fnv1a(fnv1a(0xcbf29ce484222325ULL, problem), spec->name);
    for (i = 0; i < 4; i++)
        c->rng[i] = splitmix64(&seed);
}

void pg_plugin_case_clear(pg_case *c)
{
    size_t i;

    for (i = 0; i < c->nallocs; i++)
        free(c->allocs[i]);
    free(c->allocs);
    pg_str_clear(&c->message);
    memset(c, 0, sizeof(*c));
}

const char *pg_plugin_case_message(const pg_case *c)
{
    return pg_str_cstr(&c->message);
}

long long pg_param(const pg_case *c, const char *key, long long fallback)
{
    size_t i;

    for (i = 0; i < c->spec->nparams; i++)
        if (!strcmp(c->spec->keys[i], key))
            return c->spec->values[i];
    return fallback;
}

static void *track(pg_case *c, size_t bytes)
{
    void *p;

    /* 64-byte alignment: what vectorized solutions expect of an array.
     * (Not huge pages: tried, and whether the kernel backs one side's
     * buffers with them and not the other's made two copies of the same
     * memory-bound function differ by up to 8%.) */
    if (posix_memalign(&p, 64, bytes ? bytes : 1) != 0) {
        pg_fail(c, "cannot allocate %zu bytes", bytes);
        return NULL;
    }
    memset(p, 0, bytes);
    c->allocs = pg_realloc(c->allocs, (c->nallocs + 1) * sizeof(void *));
    c->allocs[c->nallocs++] = p;
    return p;
}

void *pg_alloc(pg_case *c, size_t bytes)
{
    void *p;

    if (!c->memory) {
        p = track(c, bytes);
    } else if (!(p = c->memory->alloc(c->memory->ctx, bytes))) {
        pg_fail(c, "cannot allocate %zu bytes of device memory", bytes);
        return NULL;
    }
    c->solution_bytes += bytes;
    return p;
}

void *pg_host_alloc(pg_case *c, size_t bytes)
{
    return track(c, bytes);
}

void pg_upload(pg_case *c, void *dst, const void *host_src, size_t bytes)
{
    if (c->memory)
        c->memory->upload(c->memory->ctx, dst, host_src, bytes);
    else
        memcpy(dst, host_src, bytes);
}

void pg_download(pg_case *c, void *host_dst, const void *src, size_t bytes)
{
    if (c->memory)
        c->memory->download(c->memory->ctx, host_dst, src, bytes);
    else
        memcpy(host_dst, src, bytes);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t pg_random(pg_case *c)
{
    uint64_t *s = c->rng;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

float pg_random_float(pg_case *c, float lo, float hi)
{
    double u = (double)(pg_random(c) >> 11) * (1.0 / 9007199254740992.0);
    return (float)(lo + (hi - lo) * u);
}

long long pg_random_int(pg_case *c, long long lo, long long hi)
{
    uint64_t span = (uint64_t)(hi - lo) + 1;

    if (span == 0)
        return (long long)pg_random(c);
    return lo + (long long)(pg_random(c) % span);
}

float pg_random_grid(pg_case *c, long long lo, long long hi, float step)
{
    return (float)pg_random_int(c, lo, hi) * step;
}

pg_fn pg_lookup(pg_case *c, const char *name)
{
    pg_fn fn;

    if (!c->lib) {
        pg_fail(c, "pg_lookup(\"%s\") needs a problem with .side_setup = 1",
                name);
        return NULL;
    }
    *(void **)&fn = pg_elf_symbol(c->lib, name);
    if (!fn)
        pg_fail(c,
                "the %s side has no function '%s' for the problem's "
                "set-up to call",
                c->side ? c->side : "", name);
    return fn;
}

int pg_fail(pg_case *c, const char *fmt, ...)
{
    va_list ap;

    pg_str_reset(&c->message);
    va_start(ap, fmt);
    pg_str_vprintf(&c->message, fmt, ap);
    va_end(ap);
    return -1;
}

void *pg_alloc_copy(pg_case *c, const void *src, size_t bytes)
{
    void *p = pg_alloc(c, bytes);

    if (p)
        pg_upload(c, p, src, bytes);
    return p;
}

float *pg_alloc_output(pg_case *c, size_t n)
{
    float *p, *nans;
    size_t i;

    if (n > SIZE_MAX / sizeof(float) || !(p = pg_alloc(c, n * sizeof(float))))
        return NULL;
    if (!c->memory) {
        for (i = 0; i < n; i++)
            p[i] = NAN;
        return p;
    }
    /* Device memory: NaNs made on the host and copied over. */
    if (!(nans = malloc(n * sizeof(float))))
        return NULL;
    for (i = 0; i < n; i++)
        nans[i] = NAN;
    pg_upload(c, p, nans, n * sizeof(float));
    free(nans);
    return p;
}

/* `name`[i], or `name`[row][col], into `at`. */
static void element_name(char *at, size_t size, const char *name, size_t i,
                         size_t cols)
{
    if (cols)
        snprintf(at, size, "%s[%zu][%zu]", name, i / cols, i % cols);
    else
        snprintf(at, size, "%s[%zu]", name, i);
}

/* What the solution wrote, where the problem can read it: `out` itself in
 * host memory, else a copy (to free()). */
static const void *readable(pg_case *c, const void *out, size_t bytes,
                            void **copy)
{
    *copy = NULL;
    if (!c->memory)
        return out;
    if (!(*copy = malloc(bytes ? bytes : 1)))
        return NULL;
    pg_download(c, *copy, out, bytes);
    return *copy;
}

/* The checks of pg_check_floats and pg_check_ints. */
typedef struct check {
    const double *want_f;
    double abs_tol, rel_tol;
    const int *want_i;
} check;

/* 0 when element i of `got` is right; else why not, into `why`. */
static int wrong_float(const void *got, size_t i, const check *k, pg_str *why)
{
    double g = ((const float *)got)[i], w = k->want_f[i];
    double tol = k->abs_tol + k->rel_tol * fabs(w);

    if (fabs(g - w) <= tol)
        return 0;
    pg_str_printf(why, "= %.9g, expected %.9g", g, w);
    if (tol > 0)
        pg_str_printf(why, " (within %.3g)", tol);
    return 1;
}

static int wrong_int(const void *got, size_t i, const check *k, pg_str *why)
{
    int g = ((const int *)got)[i];

    if (g == k->want_i[i])
        return 0;
    pg_str_printf(why, "= %d, expected %d", g, k->want_i[i]);
    return 1;
}

/* Reads what the solution wrote and fails the case at its first wrong
 * element, named NAME[i] or NAME[row][col]. */
static int check_each(pg_case *c, const char *name, const void *out, size_t n,
                      size_t size, size_t cols,
                      int (*wrong)(const void *, size_t, const check *,
                                   pg_str *),
                      const check *k)
{
    void *copy;
    const void *got = readable(c, out, n * size, &copy);
    pg_str why = PG_STR_INIT;
    char at[96];
    size_t i;
    int err = 0;

    if (!got)
        return pg_fail(c, "out of memory checking %s", name);
    for (i = 0; i < n && !err; i++) {
        if (!wrong(got, i, k, &why))
            continue;
        element_name(at, sizeof(at), name, i, cols);
        err = pg_fail(c, "%s %s", at, pg_str_cstr(&why));
    }
    pg_str_clear(&why);
    free(copy);
    return err;
}

int pg_check_floats(pg_case *c, const char *name, const float *out,
                    const double *want, size_t n, double abs_tol,
                    double rel_tol, size_t cols)
{
    check k = {want, abs_tol, rel_tol, NULL};

    return check_each(c, name, out, n, sizeof(float), cols, wrong_float, &k);
}

int pg_check_ints(pg_case *c, const char *name, const int *out, const int *want,
                  size_t n)
{
    check k = {NULL, 0, 0, want};

    return check_each(c, name, out, n, sizeof(int), 0, wrong_int, &k);
}

int pg_plugin_load(pg_plugin *out, const char *path, const char *display)
{
    const pg_problem *(*entry)(void);
    const pg_problem *p;

    memset(out, 0, sizeof(*out));
    out->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!out->handle)
        return pg_error_set(PG_ERR_USAGE, "problem %s: cannot load: %s",
                            display, dlerror());
    *(void **)&entry = dlsym(out->handle, "perfgate_problem");
    if (!entry) {
        pg_plugin_close(out);
        return pg_error_set(PG_ERR_USAGE,
                            "problem %s: no perfgate_problem(); end the file "
                            "with PG_EXPORT_PROBLEM(your_problem)",
                            display);
    }
    p = entry();
    if (!p || p->abi < PG_PROBLEM_ABI_OLDEST || p->abi > PG_PROBLEM_ABI) {
        pg_plugin_close(out);
        return pg_error_set(PG_ERR_USAGE,
                            "problem %s: built for problem ABI %d, this "
                            "perfgate reads ABI %d to %d",
                            display, p ? p->abi : -1, PG_PROBLEM_ABI_OLDEST,
                            PG_PROBLEM_ABI);
    }
    /* An older plugin's struct is the start of this one: only that much
     * of it may be read, and the rest is as if left out. */
    memcpy(&out->own, p,
           p->abi >= 5   ? sizeof(out->own)
           : p->abi == 4 ? offsetof(pg_problem, between)
           : p->abi == 3 ? offsetof(pg_problem, compare)
                         : offsetof(pg_problem, side_setup));
    p = &out->own;
    if (!p->name || !p->setup || !p->run || !p->verify || !p->default_cases) {
        pg_plugin_close(out);
        return pg_error_set(PG_ERR_USAGE,
                            "problem %s: name, default_cases, setup, run and "
                            "verify are required",
                            display);
    }
    out->problem = p;
    return 0;
}

void pg_plugin_close(pg_plugin *plugin)
{
    if (plugin->handle)
        dlclose(plugin->handle);
    memset(plugin, 0, sizeof(*plugin));
}

int pg_plugin_check_case(const char *problem, const char *default_cases,
                         const pg_casespec *spec, pg_str *why)
{
    pg_casespec *defaults = NULL;
    pg_strvec known = PG_STRVEC_INIT;
    size_t ndefaults = 0, i, j;
    int err = 0;

    if (pg_casespecs_parse(&defaults, &ndefaults, default_cases) < 0)
        return 0; /* reported when the defaults are used */
    for (i = 0; i < ndefaults; i++)
        for (j = 0; j < defaults[i].nparams; j++)
            if (!pg_strvec_has(&known, defaults[i].keys[j]))
                pg_strvec_push(&known, defaults[i].keys[j]);
    for (i = 0; i < spec->nparams && !err && known.n; i++) {
        const char *hint;

        if (pg_strvec_has(&known, spec->keys[i]))
            continue;
        pg_str_printf(why, "unknown parameter '%s' for problem '%s'",
                      spec->keys[i], problem);
        if ((hint = pg_suggest(spec->keys[i], pg_strvec_list(&known))))
            pg_str_printf(why, " (did you mean '%s'?)", hint);
        err = -1;
    }
    pg_strvec_clear(&known);
    for (i = 0; i < ndefaults; i++)
        pg_casespec_clear(&defaults[i]);
    free(defaults);
    return err;
}
