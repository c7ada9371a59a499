/*
 * codepath.c - which code a side runs (codepath.h).
 */
#define _GNU_SOURCE
#include "codepath.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#include "banned.h"

/* Room for this many samples between writes: a second at 1 kHz, four
 * times over. */
#define SAMPLES_MAX 4096

void pg_cpu_features(pg_str *out)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
    /* What dispatching libraries ask for, oldest first.  The literal names
     * are needed: __builtin_cpu_supports takes no variable. */
#define FEATURE(name)                                                          \
    do {                                                                       \
        if (__builtin_cpu_supports(name))                                      \
            pg_str_printf(out, "%s%s", out->size ? " " : "", name);           \
    } while (0)
    __builtin_cpu_init();
    FEATURE("sse4.2");
    FEATURE("popcnt");
    FEATURE("avx");
    FEATURE("avx2");
    FEATURE("fma");
    FEATURE("bmi2");
    FEATURE("avx512f");
    FEATURE("avx512bw");
    FEATURE("avx512vl");
    FEATURE("avx512dq");
    FEATURE("avx512vbmi");
    FEATURE("avx512vnni");
    FEATURE("vpclmulqdq");
    FEATURE("vaes");
    FEATURE("sha");
#undef FEATURE
#else
    (void)out;
#endif
}

/* The samples: program counters, written by the signal handler alone
 * while sampling. */
static uintptr_t samples[SAMPLES_MAX];
static volatile sig_atomic_t nsamples, lost;
static timer_t sample_timer;
static int sampling;

static uintptr_t pc_of(void *uc)
{
    ucontext_t *u = uc;
#if defined(__x86_64__)
    return (uintptr_t)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)u->uc_mcontext.pc;
#else
    (void)u;
    return 0;
#endif
}

static void on_sample(int sig, siginfo_t *info, void *uc)
{
    (void)sig;
    (void)info;
    if (nsamples < SAMPLES_MAX)
        samples[nsamples++] = pc_of(uc);
    else
        lost = 1;
}

int pg_sampler_start(long interval_us, pg_str *why)
{
#if defined(__x86_64__) || defined(__aarch64__)
    struct sigaction sa;
    struct sigevent ev;
    struct itimerspec its;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sample;
    /* The user's system calls go on as if nothing happened. */
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    memset(&ev, 0, sizeof(ev));
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGPROF;
    if (sigaction(SIGPROF, &sa, NULL) < 0 ||
        timer_create(CLOCK_MONOTONIC, &ev, &sample_timer) < 0) {
        pg_str_puts(why, "cannot set a sampling timer");
        return -1;
    }
    memset(&its, 0, sizeof(its));
    its.it_interval.tv_nsec = interval_us * 1000;
    its.it_value = its.it_interval;
    timer_settime(sample_timer, 0, &its, NULL);
    sampling = 1;
    return 0;
#else
    (void)interval_us;
    pg_str_puts(why, "perfgate cannot sample where code runs on this "
                     "architecture");
    return -1;
#endif
}

void pg_sampler_stop(void)
{
    if (!sampling)
        return;
    timer_delete(sample_timer);
    signal(SIGPROF, SIG_IGN);
    sampling = 0;
}

static int by_address(const void *x, const void *y)
{
    uintptr_t a = *(const uintptr_t *)x, b = *(const uintptr_t *)y;

    return a < b ? -1 : a > b;
}

long pg_sampler_write(FILE *f, int side)
{
    size_t n = (size_t)nsamples, i, j;
    long total = (long)n;

    qsort(samples, n, sizeof(samples[0]), by_address);
    for (i = 0; i < n; i = j) {
        Dl_info info;
        for (j = i; j < n && samples[j] == samples[i]; j++)
            ;
        if (dladdr((void *)samples[i], &info) && info.dli_fname &&
            info.dli_fname[0] && !strchr(info.dli_fname, '\n'))
            fprintf(f, "%d %zu %llx %s\n", side, j - i,
                    (unsigned long long)(samples[i] -
                                         (uintptr_t)info.dli_fbase),
                    info.dli_fname);
        else
            fprintf(f, "%d %zu ? -\n", side, j - i);
    }
    nsamples = 0;
    if (lost)
        total = -1;
    lost = 0;
    return total;
}
