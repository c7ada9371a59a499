/*
 * counter.c - counting what a call executes (counter.h).
 */
#include "counter.h"
#include "error.h"
#include "fs.h"
#include "sanitize.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#define HAVE_PERF_EVENT 1
#endif

#if defined(PG_HAVE_CALLGRIND_H)
#include <valgrind/callgrind.h>
#endif

#include "banned.h"

/*
 * The simulated caches, the same on every host: callgrind would otherwise
 * take the host's, and the same code would count other cycles elsewhere.
 * 32 KiB 8-way L1s and an 8 MiB 16-way LL, lines of 64 bytes.
 */
#define CACHE_I1 "--I1=32768,8,64"
#define CACHE_D1 "--D1=32768,8,64"
#define CACHE_LL "--LL=8388608,16,64"

/* iai-callgrind's weights, in cycles per access. */
#define WEIGHT_L1 1
#define WEIGHT_LL 5
#define WEIGHT_RAM 35

const char *pg_metric_name(pg_metric m)
{
    switch (m) {
    case PG_METRIC_INSTRUCTIONS:
        return "instructions";
    case PG_METRIC_CYCLES:
        return "cycles";
    default:
        return "time";
    }
}

int pg_metric_parse(const char *name)
{
    if (!strcmp(name, "time"))
        return PG_METRIC_TIME;
    if (!strcmp(name, "instructions"))
        return PG_METRIC_INSTRUCTIONS;
    if (!strcmp(name, "cycles"))
        return PG_METRIC_CYCLES;
    return -1;
}

const char *pg_metric_unit(pg_metric m)
{
    return m == PG_METRIC_TIME ? "ns" : pg_metric_name(m);
}

const char *pg_counter_name(pg_counter_kind k)
{
    switch (k) {
    case PG_COUNTER_HARDWARE:
        return "hardware";
    case PG_COUNTER_CALLGRIND:
        return "callgrind";
    default:
        return "none";
    }
}

int pg_counter_parse(const char *name)
{
    if (!strcmp(name, "none"))
        return PG_COUNTER_NONE;
    if (!strcmp(name, "hardware"))
        return PG_COUNTER_HARDWARE;
    if (!strcmp(name, "callgrind"))
        return PG_COUNTER_CALLGRIND;
    return -1;
}

#ifdef HAVE_PERF_EVENT
/* The instructions this thread retires in user space, counting from now;
 * -1 with `why` set when the kernel will not. */
static int open_instructions(pg_str *why)
{
    struct perf_event_attr a;
    int fd;

    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof(a);
    a.config = PERF_COUNT_HW_INSTRUCTIONS;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.exclude_idle = 1;
    /* The counter to itself: a count that shared the PMU with others
     * would be scaled, an estimate. */
    a.pinned = 1;
    a.read_format =
        PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && why)
        pg_str_printf(why, "perf_event_open: %s%s", strerror(errno),
                      errno == ENOENT || errno == EOPNOTSUPP || errno == ENODEV
                          ? " (no instruction counter: a virtual machine "
                            "without a virtual PMU)"
                      : errno == EACCES || errno == EPERM
                          ? " (not allowed: see "
                            "/proc/sys/kernel/perf_event_paranoid, at most 2 "
                            "for user-space counts)"
                          : "");
    return fd;
}

/* The counter's value; -1 when it cannot be read or was not counting the
 * whole time (it lost the PMU to another user). */
static int read_instructions(int fd, uint64_t *out)
{
    uint64_t v[3];

    if (read(fd, v, sizeof(v)) != (ssize_t)sizeof(v) || v[1] != v[2])
        return -1;
    *out = v[0];
    return 0;
}
#endif

int pg_counter_hardware_works(pg_str *why)
{
#ifdef HAVE_PERF_EVENT
    uint64_t a, b;
    volatile int sink = 0;
    int fd = open_instructions(why), i, ok;

    if (fd < 0)
        return 0;
    ok = read_instructions(fd, &a) == 0;
    for (i = 0; i < 1000; i++)
        sink += i;
    ok = ok && read_instructions(fd, &b) == 0 && b > a;
    close(fd);
    if (!ok && why)
        pg_str_puts(why, "the instruction counter opens but does not count");
    return ok;
#else
    if (why)
        pg_str_puts(why, "hardware counters are read through Linux's "
                         "perf_event_open, which this system has not");
    return 0;
#endif
}

/* Whether perfgate-measure can run under callgrind here. */
static int callgrind_works(pg_str *why)
{
#if defined(PG_UNDER_ASAN)
    pg_str_puts(why, "this perfgate is built with AddressSanitizer, which "
                     "does not run under valgrind");
    return 0;
#elif !defined(PG_HAVE_CALLGRIND_H)
    pg_str_puts(why, "this perfgate was built without valgrind's headers "
                     "(valgrind/callgrind.h): install valgrind and build it "
                     "again");
    return 0;
#else
    char *path = pg_path_search("valgrind");

    if (!path)
        pg_str_puts(why, "valgrind is not installed (apt-get install "
                         "valgrind)");
    free(path);
    return path != NULL;
#endif
}

int pg_counter_choose(pg_metric metric, pg_counter_kind wanted, pg_str *why)
{
    /* Asked once: the answer does not change while perfgate runs. */
    static int hardware = -1;
    static pg_str hardware_why = PG_STR_INIT;

    if (metric == PG_METRIC_CYCLES && wanted == PG_COUNTER_HARDWARE) {
        pg_str_puts(why, "cycles are estimated by callgrind's cache model, "
                         "not read from the CPU (counter: callgrind)");
        return -1;
    }
    if (metric == PG_METRIC_INSTRUCTIONS && wanted != PG_COUNTER_CALLGRIND) {
        if (hardware < 0)
            hardware = pg_counter_hardware_works(&hardware_why);
        if (hardware)
            return PG_COUNTER_HARDWARE;
        if (wanted == PG_COUNTER_HARDWARE) {
            pg_str_printf(why, "no hardware counter: %s",
                          pg_str_cstr(&hardware_why));
            return -1;
        }
    }
    if (callgrind_works(why))
        return PG_COUNTER_CALLGRIND;
    if (metric == PG_METRIC_INSTRUCTIONS && wanted == PG_COUNTER_NONE)
        pg_str_printf(why, "; and no hardware counter: %s",
                      pg_str_cstr(&hardware_why));
    return -1;
}

void pg_counter_valgrind_tool(pg_strvec *argv, pg_metric metric,
                              const char *dump_path)
{
    pg_strvec_push(argv, "valgrind");
    pg_strvec_push(argv, "--tool=callgrind");
    pg_strvec_push(argv, "-q");
    pg_strvec_pushf(argv, "--callgrind-out-file=%s", dump_path);
    pg_strvec_push(argv, "--compress-strings=no");
    /* Functions by their symbols' names, as the native side reads them. */
    pg_strvec_push(argv, "--demangle=no");
    if (metric == PG_METRIC_CYCLES) {
        pg_strvec_push(argv, "--cache-sim=yes");
        pg_strvec_push(argv, CACHE_I1);
        pg_strvec_push(argv, CACHE_D1);
        pg_strvec_push(argv, CACHE_LL);
    }
}

void pg_counter_valgrind_args(pg_strvec *argv, pg_metric metric,
                              const char *dump_path)
{
    pg_counter_valgrind_tool(argv, metric, dump_path);
    /* Nothing is counted but the samples, which turn it on and off. */
    pg_strvec_push(argv, "--collect-atstart=no");
    /* Costs by instruction: the code-path check tells a branch callgrind
     * never saw run from one it did (pathcheck.h). */
    pg_strvec_push(argv, "--dump-instr=yes");
}

/* The value of event `name` in a callgrind cost line, by the "events:"
 * line's names (values left out at the end are 0). */
static double event_value(const char *events, const char *costs,
                          const char *name)
{
    size_t len = strlen(name);
    const char *e = events, *c = costs;
    char *end;

    while (*e) {
        double v;
        while (*e == ' ')
            e++;
        if (!*e || *e == '\n')
            return 0;
        v = strtod(c, &end);
        if (end == c)
            v = 0;
        else
            c = end;
        if (!strncmp(e, name, len) &&
            (e[len] == ' ' || e[len] == '\n' || e[len] == '\r' || !e[len]))
            return v;
        while (*e && *e != ' ' && *e != '\n')
            e++;
    }
    return 0;
}

int pg_counter_read_dump(double *out, const char *path, pg_metric metric)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, *events = NULL;
    size_t cap = 0;
    int found = -1;

    if (!f)
        return -1;
    while (found < 0 && getline(&line, &cap, f) > 0) {
        const char *costs;
        if (!strncmp(line, "events:", 7)) {
            free(events);
            events = pg_strdup(line + 7);
            continue;
        }
        if (strncmp(line, "summary:", 8) || !events)
            continue;
        costs = line + 8;
        if (metric == PG_METRIC_CYCLES) {
            double acc = event_value(events, costs, "Ir") +
                         event_value(events, costs, "Dr") +
                         event_value(events, costs, "Dw");
            double l1 = event_value(events, costs, "I1mr") +
                        event_value(events, costs, "D1mr") +
                        event_value(events, costs, "D1mw");
            double ll = event_value(events, costs, "ILmr") +
                        event_value(events, costs, "DLmr") +
                        event_value(events, costs, "DLmw");
            *out = WEIGHT_L1 * (acc - l1) + WEIGHT_LL * (l1 - ll) +
                   WEIGHT_RAM * ll;
        } else {
            *out = event_value(events, costs, "Ir");
        }
        found = 0;
    }
    free(line);
    free(events);
    fclose(f);
    return found;
}

/* Notes the first failure; later samples are not counted. */
static double fail(pg_counter *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static double fail(pg_counter *c, const char *fmt, ...)
{
    va_list ap;

    if (!c->error.size) {
        va_start(ap, fmt);
        pg_str_vprintf(&c->error, fmt, ap);
        va_end(ap);
    }
    return 0;
}

/*
 * A sample: `n` calls of `t`, after one that is not counted (a count, like
 * a time, is of calls that find the code loaded and the data touched).
 * The count of the loop around them is the empty solution's, which the
 * engine counts through this same path and discounts.
 */
static double count_calls(void *ctx, const pg_target *t, uint64_t n, int cold)
{
    pg_counter *c = ctx;
    void (*run)(void *, pg_fn) = t->problem->run;
    void *state = t->state;
    pg_fn fn = t->fn;
    uint64_t i;

    (void)cold; /* a count has no caches to empty; cycles model its own */
    if (c->error.size)
        return 0;
    run(state, fn);
#ifdef HAVE_PERF_EVENT
    if (c->kind == PG_COUNTER_HARDWARE) {
        uint64_t a, b;
        if (read_instructions(c->fd, &a) < 0)
            return fail(c, "the instruction counter could not be read");
        for (i = 0; i < n; i++)
            run(state, fn);
        if (read_instructions(c->fd, &b) < 0)
            return fail(c, "the instruction counter could not be read, or "
                           "lost the PMU to another user while counting");
        return (double)(b - a);
    }
#endif
#ifdef PG_HAVE_CALLGRIND_H
    if (c->kind == PG_COUNTER_CALLGRIND) {
        char path[4096];
        double v;
        CALLGRIND_ZERO_STATS;
        CALLGRIND_TOGGLE_COLLECT;
        for (i = 0; i < n; i++)
            run(state, fn);
        CALLGRIND_TOGGLE_COLLECT;
        CALLGRIND_DUMP_STATS_AT("perfgate");
        c->dumps++;
        snprintf(path, sizeof(path), "%s.%d", c->dump_path, c->dumps);
        if (pg_counter_read_dump(&v, path, c->metric) < 0)
            return fail(c, "callgrind's count %s could not be read", path);
        unlink(path);
        return v;
    }
#endif
    (void)i;
    return fail(c, "no counter");
}

int pg_counter_trace(pg_counter *c, const pg_target *const *targets, size_t n,
                     const char *path)
{
#ifdef PG_HAVE_CALLGRIND_H
    char from[4096];
    size_t i;

    if (c->kind != PG_COUNTER_CALLGRIND || c->error.size)
        return -1;
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
    for (i = 0; i < n; i++)
        targets[i]->problem->run(targets[i]->state, targets[i]->fn);
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT("perfgate code path");
    c->dumps++;
    snprintf(from, sizeof(from), "%s.%d", c->dump_path, c->dumps);
    return rename(from, path) < 0 ? -1 : 0;
#else
    (void)c;
    (void)targets;
    (void)n;
    (void)path;
    return -1;
#endif
}

int pg_counter_open(pg_counter *c, pg_counter_kind kind, pg_metric metric,
                    const char *dump_path, pg_str *why)
{
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->kind = kind;
    c->metric = metric;
    pg_str_init(&c->error, 0);
    if (kind == PG_COUNTER_HARDWARE) {
        if (metric != PG_METRIC_INSTRUCTIONS) {
            pg_str_puts(why, "the CPU's counters count instructions only: "
                             "cycles are estimated under callgrind");
            return -1;
        }
#ifdef HAVE_PERF_EVENT
        if ((c->fd = open_instructions(why)) < 0)
            return -1;
#else
        pg_counter_hardware_works(why);
        return -1;
#endif
    } else if (kind == PG_COUNTER_CALLGRIND) {
#ifdef PG_HAVE_CALLGRIND_H
        if (!RUNNING_ON_VALGRIND) {
            pg_str_puts(why, "not running under valgrind");
            return -1;
        }
        c->dump_path = pg_strdup(dump_path ? dump_path : "callgrind.out");
#else
        (void)dump_path;
        pg_str_puts(why, "this perfgate was built without valgrind's "
                         "headers (valgrind/callgrind.h): install valgrind "
                         "and build it again");
        return -1;
#endif
    } else {
        pg_str_puts(why, "no counter");
        return -1;
    }
    c->clock.time = count_calls;
    c->clock.ctx = c;
    /* A count is exact to an instruction or two at its edges. */
    c->clock.error_ns = 2;
    c->clock.max_inner = 1ULL << 30;
    return 0;
}

void pg_counter_close(pg_counter *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->dump_path);
    c->dump_path = NULL;
    pg_str_clear(&c->error);
}
