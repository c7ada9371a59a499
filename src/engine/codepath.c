/*
 * codepath.c - which code a side runs (codepath.h).
 */
#include "codepath.h"

#include <dlfcn.h>
#include <sys/resource.h>
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
/* A sample taken in a system call, in place of its address. */
#define SAMPLE_IN_KERNEL ((uintptr_t)1)

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

/* Whether `pc` follows a system call instruction: the thread was in the
 * kernel, or blocked there, not running the code at `pc`.  (Bytes that
 * only look like one are rare, and make a sample the kernel's.)  The
 * bytes before a page's start are not read: that page may not be
 * mapped. */
static int after_syscall(uintptr_t pc)
{
#if defined(__x86_64__)
    const unsigned char *p = (const unsigned char *)pc;
    return (pc & 0xfff) >= 2 && p[-2] == 0x0f && p[-1] == 0x05;
#elif defined(__aarch64__)
    uint32_t insn;
    if ((pc & 0xfff) < 4 || pc % 4)
        return 0;
    memcpy(&insn, (const void *)(pc - 4), sizeof(insn));
    return insn == 0xd4000001; /* svc #0 */
#else
    (void)pc;
    return 0;
#endif
}

static void on_sample(int sig, siginfo_t *info, void *uc)
{
    uintptr_t pc = pc_of(uc);

    (void)sig;
    (void)info;
    if (nsamples < SAMPLES_MAX)
        samples[nsamples++] = after_syscall(pc) ? SAMPLE_IN_KERNEL : pc;
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
        if (samples[i] == SAMPLE_IN_KERNEL)
            fprintf(f, "%d %zu kernel -\n", side, j - i);
        else if (dladdr((void *)samples[i], &info) && info.dli_fname &&
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

/* The scheduler's own figures for this thread: on the CPU and waiting to
 * run, in ns (0 where /proc has none). */
static void schedstat(double *on_cpu, double *runnable)
{
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    unsigned long long run = 0, delay = 0;

    if (f) {
        if (fscanf(f, "%llu %llu", &run, &delay) != 2)
            run = delay = 0;
        fclose(f);
    }
    *on_cpu = (double)run / 1e9;
    *runnable = (double)delay / 1e9;
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double system_s(void)
{
    struct rusage ru;

    if (getrusage(RUSAGE_THREAD, &ru) < 0)
        return 0;
    return (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

void pg_thread_time_start(pg_thread_time *t)
{
    t->wall = now_s();
    t->system = system_s();
    schedstat(&t->on_cpu, &t->runnable);
}

void pg_thread_time_since(pg_thread_time *t)
{
    double on_cpu, runnable;

    t->wall = now_s() - t->wall;
    t->system = system_s() - t->system;
    schedstat(&on_cpu, &runnable);
    t->on_cpu = on_cpu - t->on_cpu;
    t->runnable = runnable - t->runnable;
}

void pg_thread_time_write(FILE *f, int side, const pg_thread_time *t)
{
    fprintf(f, "L %d %.6f %.6f %.6f %.6f\n", side, t->wall, t->on_cpu,
            t->system, t->runnable);
}
