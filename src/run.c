/*
 * run.c - the measuring child and its supervisor.
 *
 * The child reports to the parent over a pipe, one line per event:
 *   fail STATUS SIDE MESSAGE      the benchmark ends with STATUS
 *   progress STAGE ROUND SECONDS  for the progress line
 *   case I BASE HEAD OVERHEAD INNER FLOPS BYTES
 *   done ROUNDS CALLS_BASE CALLS_HEAD SECONDS CHANGE LO HI STOP
 *   gpu RUNTIME SAMPLES THROTTLED KEPT_THROTTLED CLOCK_MHZ GATED
 * Which side is running user code, and for how long, is in a pg_watch in
 * shared memory, so a hang or a crash is charged to the right side even
 * when the child can say nothing.
 */
#define _GNU_SOURCE
#include "run.h"
#include "error.h"
#include "gpu.h"
#include "measure.h"
#include "problem.h"
#include "proc.h"
#include "str.h"
#include "system.h"
#include "util.h"

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define OUTPUT_CAP 16384
#define LOG_LINES 20

#if defined(__SANITIZE_ADDRESS__)
#define PG_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PG_UNDER_ASAN 1
#endif
#endif

static const char *const side_names[2] = {"base", "head"};

typedef struct child_ctx {
    const pg_run_spec *spec;
    pg_watch *watch;
    int fd;
    int64_t last_progress;
    pg_gpu *gpu; /* CUDA solutions; else NULL */
} child_ctx;

static void send_line(child_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void send_line(child_ctx *ctx, const char *fmt, ...)
{
    pg_str s = PG_STR_INIT;
    va_list ap;
    size_t i, off = 0;

    va_start(ap, fmt);
    pg_str_vprintf(&s, fmt, ap);
    va_end(ap);
    for (i = 0; i < s.size; i++)
        if (s.ptr[i] == '\n' || s.ptr[i] == '\r')
            s.ptr[i] = ' ';
    pg_str_putc(&s, '\n');
    while (off < s.size) {
        ssize_t n = write(ctx->fd, s.ptr + off, s.size - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    pg_str_free(&s);
}

static int child_fail(child_ctx *ctx, const char *status, int side,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int child_fail(child_ctx *ctx, const char *status, int side,
                      const char *fmt, ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;

    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    send_line(ctx, "fail %s %s %s", status, side < 0 ? "-" : side_names[side],
              pg_str_cstr(&msg));
    pg_str_free(&msg);
    return 0;
}

static void on_round(void *payload, int round, double elapsed)
{
    child_ctx *ctx = payload;
    int64_t now = pg_now_ns();

    if (now - ctx->last_progress < 100000000)
        return;
    ctx->last_progress = now;
    send_line(ctx, "progress measuring %d %.3f", round, elapsed);
}

static void limit_resources(int gpu)
{
    struct rlimit rl = {0, 0};

    (void)gpu; /* unused under ASan */
    setrlimit(RLIMIT_CORE, &rl);
#ifndef PG_UNDER_ASAN
    /* Half the machine's memory: runaway code fails here, not the box.
     * (Not under ASan, whose shadow memory a limit would starve, nor with
     * CUDA, whose driver reserves address space for all of the device's
     * memory and the host's, and cannot start under such a limit.) */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && !gpu) {
        rl.rlim_cur = rl.rlim_max = (rlim_t)pages * (rlim_t)page / 2;
        setrlimit(RLIMIT_AS, &rl);
    }
#endif
}

/* Verifies every case of every side; 0 or -1 after reporting. */
static int verify_all(child_ctx *ctx, const pg_problem *p, pg_case *cases,
                      pg_target (*targets)[2], const int *sides, int nsides,
                      const char *when)
{
    const pg_run_spec *spec = ctx->spec;
    size_t c;
    int k;

    for (k = 0; k < nsides; k++) {
        int side = sides[k];
        for (c = 0; c < spec->ncases; c++) {
            pg_case *pc = &cases[c * 2 + (size_t)side];
            int bad;
            pg_watch_enter(ctx->watch, side);
            if (!when)
                p->run(targets[c][k].state, targets[c][k].fn);
            if (ctx->gpu)
                pg_gpu_check(ctx->gpu);
            bad = p->verify(targets[c][k].state, pc) != 0;
            pg_watch_leave(ctx->watch);
            if (bad) {
                const char *why = pg_case_message(pc);
                child_fail(ctx, "incorrect", side, "case %s%s: %s",
                           spec->cases[c].name, when ? when : "",
                           *why ? why : "wrong output");
                return -1;
            }
        }
    }
    return 0;
}

/* The device reported an error: the side that was running caused it, and
 * the context is lost, so the child ends here. */
static void on_gpu_error(void *payload, const char *message)
{
    child_ctx *ctx = payload;
    int side = ctx->watch->side;

    child_fail(ctx, "crashed", side, "%s%s%s",
               side < 0 ? "" : side_names[side], side < 0 ? "" : " side: ",
               message);
    _exit(0);
}

/*
 * Cold on the device, a batch of calls rotates through identical set-ups
 * of the case, so that no call finds the one before it in the L2.  0, or
 * -1 after reporting.
 */
static int set_up_copies(child_ctx *ctx, const pg_problem *p, pg_target *t,
                         pg_case *first, size_t index, int side)
{
    const pg_run_spec *spec = ctx->spec;
    size_t n = pg_gpu_copies(ctx->gpu, first->solution_bytes, spec->ncases);
    size_t i;

    if (n < 2)
        return 0;
    t->copies = pg_calloc(n, sizeof(*t->copies));
    t->copies[0] = t->state;
    for (i = 1; i < n; i++) {
        pg_case *pc = pg_calloc(1, sizeof(*pc));
        pg_case_init(pc, p->name, &spec->cases[index],
                     pg_gpu_memory(ctx->gpu));
        pg_watch_enter(ctx->watch, side);
        t->copies[i] = p->setup(pc);
        pg_watch_leave(ctx->watch);
        if (!t->copies[i]) {
            child_fail(ctx, "crashed", side, "case %s: setup failed: %s",
                       spec->cases[index].name, pg_case_message(pc));
            return -1;
        }
    }
    t->ncopies = n;
    return 0;
}

static int child_main(void *arg, int fd)
{
    child_ctx ctx;
    const pg_run_spec *spec;
    pg_plugin plugin;
    const pg_problem *p;
    pg_target(*targets)[2];
    pg_case *cases;
    pg_case_timing *timing;
    pg_measure_summary summary;
    pg_measure_opts opts;
    const pg_memory_ops *memory = NULL;
    void *libs[2] = {NULL, NULL}, *syms[2] = {NULL, NULL};
    int sides[2], nsides = 0, k;
    size_t c;

    memcpy(&ctx, arg, sizeof(ctx));
    ctx.fd = fd;
    spec = ctx.spec;
    limit_resources(spec->gpu);
    /* One CPU: no migrations between samples, and the caches stay ours. */
    if (spec->cpu >= 0)
        pg_system_pin(spec->cpu);

    if (pg_plugin_load(&plugin, spec->problem_lib, spec->problem_name) < 0)
        return child_fail(&ctx, "crashed", -1, "%s", pg_error_last());
    p = plugin.problem;

    targets = pg_calloc(spec->ncases, sizeof(*targets));
    cases = pg_calloc(spec->ncases * 2, sizeof(*cases));
    timing = pg_calloc(spec->ncases, sizeof(*timing));

    /* Head first: when a case cannot even be set up, the head is blamed. */
    for (k = 1; k >= 0; k--)
        if (spec->lib[k])
            sides[nsides++] = k;
    for (k = 0; k < nsides; k++) {
        int side = sides[k];
        if (!(libs[k] = dlopen(spec->lib[side], RTLD_NOW | RTLD_LOCAL)))
            return child_fail(&ctx, "build_failed", side, "cannot load: %s",
                              dlerror());
        if (!(syms[k] = dlsym(libs[k], spec->symbol)))
            return child_fail(&ctx, "build_failed", side,
                              "no function '%s' in the sources; set 'symbol' "
                              "in perfgate.yml to the function's name",
                              spec->symbol);
    }
    if (spec->gpu) {
        pg_str why = PG_STR_INIT;
        /* Both sides link the same runtime: either library finds it. */
        if (!(ctx.gpu = pg_gpu_open(libs[0], on_gpu_error, &ctx, &why)))
            return child_fail(&ctx, "crashed", -1, "cannot use the GPU: %s",
                              pg_str_cstr(&why));
        memory = pg_gpu_memory(ctx.gpu);
    }
    for (k = 0; k < nsides; k++) {
        int side = sides[k];
        for (c = 0; c < spec->ncases; c++) {
            pg_case *pc = &cases[c * 2 + (size_t)side];
            pg_case_init(pc, p->name, &spec->cases[c], memory);
            targets[c][k].problem = p;
            *(void **)&targets[c][k].fn = syms[k];
            pg_watch_enter(ctx.watch, side);
            targets[c][k].state = p->setup(pc);
            pg_watch_leave(ctx.watch);
            if (!targets[c][k].state)
                return child_fail(&ctx, "crashed", side,
                                  "case %s: setup failed: %s",
                                  spec->cases[c].name, pg_case_message(pc));
            if (ctx.gpu && spec->cold &&
                set_up_copies(&ctx, p, &targets[c][k], pc, c, side) < 0)
                return 0;
        }
    }
    /* Measurement puts the base side first: targets[c][0] is base when
     * both sides are here (sides[] is head, base). */
    if (nsides == 2) {
        for (c = 0; c < spec->ncases; c++) {
            pg_target t = targets[c][0];
            targets[c][0] = targets[c][1];
            targets[c][1] = t;
        }
        sides[0] = PG_BASE;
        sides[1] = PG_HEAD;
    }

    send_line(&ctx, "progress verifying 0 0");
    if (verify_all(&ctx, p, cases, targets, sides, nsides, NULL) < 0)
        return 0;

    pg_measure_opts_init(&opts, spec->settings->min_rounds,
                         spec->settings->max_time,
                         spec->settings->noise_floor);
    opts.watch = ctx.watch;
    opts.sides = sides;
    if (ctx.gpu) {
        /* To its working clocks first, then measured as any other. */
        send_line(&ctx, "progress warming 0 0");
        pg_gpu_warm_up(ctx.gpu, targets, spec->ncases, sides, nsides, 0.2,
                       ctx.watch);
        opts.device = pg_gpu_clock(ctx.gpu);
        opts.device_cold = spec->cold;
    } else {
        opts.evict_bytes = spec->evict_bytes;
    }
    opts.on_round = on_round;
    opts.payload = &ctx;
    ctx.last_progress = 0;
    pg_measure(timing, &summary, targets, spec->ncases, nsides, &opts);

    /* Right once is not enough: the last timed call must be right too. */
    if (verify_all(&ctx, p, cases, targets, sides, nsides,
                   " (after timing)") < 0)
        return 0;

    for (c = 0; c < spec->ncases; c++) {
        pg_case *pc = &cases[c * 2 + (size_t)sides[nsides - 1]];
        double ns[2] = {NAN, NAN};
        for (k = 0; k < nsides; k++)
            ns[sides[k]] = timing[c].ns[k];
        send_line(&ctx, "case %zu %.6f %.6f %.6f %llu %.17g %.17g", c, ns[0],
                  ns[1], timing[c].overhead_ns,
                  (unsigned long long)timing[c].inner,
                  p->flops ? p->flops(pc) : 0.0,
                  p->bytes ? p->bytes(pc) : 0.0);
    }
    {
        unsigned long long calls[2] = {0, 0};
        for (k = 0; k < nsides; k++)
            calls[sides[k]] = (unsigned long long)summary.calls[k];
        if (ctx.gpu) {
            pg_gpu_stats st;
            pg_gpu_get_stats(ctx.gpu, &st);
            send_line(&ctx, "gpu %d %llu %llu %llu %.1f %d",
                      st.runtime_version, (unsigned long long)st.samples,
                      (unsigned long long)st.throttled,
                      (unsigned long long)st.kept_throttled, st.clock_mhz,
                      st.gated);
        }
        send_line(&ctx, "done %d %llu %llu %.6f %.9f %.9f %.9f %s",
                  summary.rounds, calls[0], calls[1], summary.seconds,
                  summary.change.change, summary.change.lo,
                  summary.change.hi, pg_stop_name(summary.stop));
    }
    /* No teardown or unloading: the process ends here and the kernel is
     * the fastest and safest way to free what the user's code holds. */
    return 0;
}

/* ---- the parent side ---- */

typedef struct parent_ctx {
    const pg_run_spec *spec;
    pg_bench_result *out;
    pg_watch *watch;
    int failed;
    int done;
    int timeout_side;
} parent_ctx;

static double parse_double(const char *s)
{
    return !strcmp(s, "nan") || !strcmp(s, "-nan") ? NAN : strtod(s, NULL);
}

static void on_line(void *payload, const char *line)
{
    parent_ctx *ctx = payload;
    pg_bench_result *out = ctx->out;
    char word[32], a[32], b[32];
    int n = 0;

    if (sscanf(line, "%31s %n", word, &n) < 1)
        return;
    if (!strcmp(word, "fail") && !ctx->failed) {
        int st;
        int m = 0;
        if (sscanf(line + n, "%31s %31s %n", a, b, &m) < 2)
            return;
        st = pg_status_parse(a);
        out->status = st < 0 ? PG_STATUS_CRASHED : (pg_status)st;
        out->side = !strcmp(b, "base")   ? PG_SIDE_BASE
                    : !strcmp(b, "head") ? PG_SIDE_HEAD
                                         : PG_SIDE_NONE;
        free(out->message);
        out->message = pg_strdup(line + n + m);
        ctx->failed = 1;
    } else if (!strcmp(word, "progress")) {
        int round = 0;
        double elapsed = 0;
        if (sscanf(line + n, "%31s %d %lf", a, &round, &elapsed) == 3 &&
            ctx->spec->on_progress)
            ctx->spec->on_progress(ctx->spec->payload, a, round, elapsed);
    } else if (!strcmp(word, "case")) {
        char f[6][40];
        size_t i;
        if (sscanf(line + n, "%zu %39s %39s %39s %39s %39s %39s", &i, f[0],
                   f[1], f[2], f[3], f[4], f[5]) != 7 ||
            i >= out->ncases)
            return;
        out->cases[i].base_ns = parse_double(f[0]);
        out->cases[i].head_ns = parse_double(f[1]);
        out->cases[i].overhead_ns = parse_double(f[2]);
        out->cases[i].inner = strtoull(f[3], NULL, 10);
        out->cases[i].flops = parse_double(f[4]);
        out->cases[i].bytes = parse_double(f[5]);
    } else if (!strcmp(word, "gpu")) {
        pg_gpu_run *g = &out->gpu;
        unsigned long long v[3];
        if (sscanf(line + n, "%d %llu %llu %llu %lf %d",
                   &g->runtime_version, &v[0], &v[1], &v[2], &g->clock_mhz,
                   &g->gated) == 6) {
            g->measured = 1;
            g->samples = v[0];
            g->throttled = v[1];
            g->kept_throttled = v[2];
        }
    } else if (!strcmp(word, "done")) {
        unsigned long long c0, c1;
        char f[3][40], stop[32];
        if (sscanf(line + n, "%d %llu %llu %lf %39s %39s %39s %31s",
                   &out->rounds, &c0, &c1, &out->seconds, f[0], f[1], f[2],
                   stop) == 8) {
            out->calls[0] = c0;
            out->calls[1] = c1;
            /* The change itself is the decision rule's (stats.c), from the
             * per-case minimums; the interval comes from the rounds. */
            out->change_lo = parse_double(f[1]);
            out->change_hi = parse_double(f[2]);
            free(out->stop);
            out->stop = pg_strdup(stop);
            ctx->done = 1;
        }
    }
}

static int watchdog(void *payload)
{
    parent_ctx *ctx = payload;
    int side = ctx->watch->side;
    int64_t used;

    if (side < 0 || side > 1)
        return 0;
    used = ctx->watch->used_ns[side] + (pg_now_ns() - ctx->watch->since_ns);
    if ((double)used / 1e9 > ctx->spec->settings->timeout) {
        ctx->timeout_side = side;
        return 1;
    }
    return 0;
}

static void set_log(pg_bench_result *out, const pg_str *output)
{
    pg_str tail = PG_STR_INIT;

    if (!output->size)
        return;
    pg_str_put_tail_lines(&tail, pg_str_cstr(output), LOG_LINES);
    free(out->log);
    out->log = pg_str_detach(&tail);
}

void pg_run_spec_init(pg_run_spec *spec)
{
    memset(spec, 0, sizeof(*spec));
    spec->cpu = -1;
}

int pg_run_bench(pg_bench_result *out, const pg_run_spec *spec)
{
    pg_proc_opts opts;
    pg_proc_result res;
    parent_ctx pctx;
    child_ctx cctx;
    pg_watch *watch;
    size_t c;
    int err;

    watch = mmap(NULL, sizeof(*watch), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (watch == MAP_FAILED)
        return pg_error_set(PG_ERR_GENERIC, "cannot map shared memory: %s",
                            strerror(errno));
    memset(watch, 0, sizeof(*watch));
    watch->side = -1;

    out->cases = pg_calloc(spec->ncases, sizeof(*out->cases));
    out->ncases = spec->ncases;
    for (c = 0; c < spec->ncases; c++) {
        out->cases[c].name = pg_strdup(spec->cases[c].name);
        out->cases[c].base_ns = out->cases[c].head_ns = NAN;
        out->cases[c].change = NAN;
    }

    memset(&pctx, 0, sizeof(pctx));
    pctx.spec = spec;
    pctx.out = out;
    pctx.watch = watch;
    pctx.timeout_side = -1;
    memset(&cctx, 0, sizeof(cctx));
    cctx.spec = spec;
    cctx.watch = watch;

    memset(&opts, 0, sizeof(opts));
    opts.output_cap = OUTPUT_CAP;
    /* The per-side timeout is the watchdog's; this only catches a child
     * stuck outside either side (in the problem or the loader). */
    opts.timeout = 2 * spec->settings->timeout + spec->settings->max_time + 60;
    opts.watchdog = watchdog;
    opts.on_line = on_line;
    opts.payload = &pctx;

    err = pg_proc_run_fn(&res, child_main, &cctx, &opts);
    if (err < 0)
        goto done;

    if (res.watchdog || res.timed_out) {
        int side = res.watchdog ? pctx.timeout_side : watch->side;
        out->status = PG_STATUS_TIMEOUT;
        out->side = side < 0 ? PG_SIDE_NONE : (pg_side)side;
        free(out->message);
        out->message = pg_strdupf(
            "%s side still running after %.0f s; stopped", side < 0
                ? "neither"
                : side_names[side],
            res.watchdog ? spec->settings->timeout : opts.timeout);
        set_log(out, &res.output);
    } else if (res.signal) {
        int side = watch->side;
        out->status = PG_STATUS_CRASHED;
        out->side = side < 0 ? PG_SIDE_NONE : (pg_side)side;
        free(out->message);
        out->message =
            side < 0 ? pg_strdupf("killed by %s", pg_signal_describe(res.signal))
                     : pg_strdupf("%s side: killed by %s", side_names[side],
                                  pg_signal_describe(res.signal));
        set_log(out, &res.output);
    } else if (pctx.failed) {
        set_log(out, &res.output);
    } else if (!pctx.done) {
        int side = watch->side;
        out->status = PG_STATUS_CRASHED;
        out->side = side < 0 ? PG_SIDE_NONE : (pg_side)side;
        free(out->message);
        out->message = pg_strdupf("%s%sexited with status %d before "
                                  "finishing",
                                  side < 0 ? "" : side_names[side],
                                  side < 0 ? "" : " side: ", res.exit_code);
        set_log(out, &res.output);
    }
done:
    pg_proc_result_free(&res);
    munmap(watch, sizeof(*watch));
    return err;
}
