/*
 * run.c - running one benchmark in perfgate-measure, under supervision.
 *
 * perfgate writes the run spec (runspec.h) and starts perfgate-measure
 * (src/measurer) on it, reading its events from a pipe (fd 3 there) and
 * watching which side runs user code through a pg_watch in shared memory
 * (fd 4 there), so that a hang or a crash is charged to the right side.
 */
#include "run.h"
#include "boxcap.h"
#include "env.h"
#include "counter.h"
#include "error.h"
#include "fs.h"
#include "measure.h"
#include "pathcheck.h"
#include "watch.h"
#include "proc.h"
#include "protocol.h"
#include "str.h"
#include "strvec.h"
#include "clock.h"
#include "token.h"
#include "trace.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "banned.h"

#define OUTPUT_CAP 16384
#define LOG_LINES 20
#define RUNNER "perfgate-measure"

static const char *const side_names[2] = {"base", "head"};

typedef struct parent_ctx {
    const pg_run_spec *spec;
    pg_bench_result *out;
    pg_watch *watch;
    int failed;
    int done;
    int head_verified; /* the head was checked and found right */
    int timeout_side;
} parent_ctx;

static double parse_double(const char *s)
{
    return !strcmp(s, "nan") || !strcmp(s, "-nan") ? NAN : strtod(s, NULL);
}

/* "samples CASE SIDE FIRST NS NS ...": a side's samples, in order. */
static void add_samples(pg_bench_result *out, const char *rest)
{
    size_t c, first;
    int side, n = 0;
    pg_result_case *cr;
    const char *p;
    char *end;

    if (sscanf(rest, "%zu %d %zu %n", &c, &side, &first, &n) < 3 || !n ||
        c >= out->ncases || (side != 0 && side != 1))
        return;
    cr = &out->cases[c];
    /* In order, or not at all; a line has at most PG_EV_SAMPLES_PER_LINE. */
    if (first != cr->nsamples[side] || first >= PG_MAX_POOLED_SAMPLES)
        return;
    cr->samples[side] = pg_realloc(
        cr->samples[side], (first + PG_EV_SAMPLES_PER_LINE) * sizeof(double));
    for (p = rest + n;
         *p && cr->nsamples[side] < first + PG_EV_SAMPLES_PER_LINE; p = end) {
        double v = strtod(p, &end);
        if (end == p)
            break;
        cr->samples[side][cr->nsamples[side]++] = v;
    }
}

/* "fail STATUS SIDE why": 1 when it said so. */
static int on_fail(pg_bench_result *out, const char *rest)
{
    char status[32], side[32];
    int st, m = 0;

    if (sscanf(rest, "%31s %31s %n", status, side, &m) < 2)
        return 0;
    st = pg_status_parse(status);
    out->status = st < 0 ? PG_STATUS_CRASHED : (pg_status)st;
    out->side = !strcmp(side, "base")   ? PG_SIDE_BASE
                : !strcmp(side, "head") ? PG_SIDE_HEAD
                                        : PG_SIDE_NONE;
    free(out->message);
    out->message = pg_strdup(rest + m);
    return 1;
}

/* "case I base head overhead inner flops bytes lo hi quantum". */
static void on_case(pg_bench_result *out, const char *rest)
{
    char f[9][40];
    size_t i;

    if (sscanf(rest, "%zu %39s %39s %39s %39s %39s %39s %39s %39s %39s", &i,
               f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8]) != 10 ||
        i >= out->ncases)
        return;
    out->cases[i].base_ns = parse_double(f[0]);
    out->cases[i].head_ns = parse_double(f[1]);
    out->cases[i].overhead_ns = parse_double(f[2]);
    out->cases[i].inner = strtoull(f[3], NULL, 10);
    out->cases[i].flops = parse_double(f[4]);
    out->cases[i].bytes = parse_double(f[5]);
    out->cases[i].change_lo = parse_double(f[6]);
    out->cases[i].change_hi = parse_double(f[7]);
    out->cases[i].quantum_ns = parse_double(f[8]);
}

/* "gpu runtime samples throttled kept clock gated": the device's clocks. */
static void on_gpu(pg_gpu_run *g, const char *rest)
{
    unsigned long long v[3];

    if (sscanf(rest, "%d %llu %llu %llu %lf %d", &g->runtime_version, &v[0],
               &v[1], &v[2], &g->clock_mhz, &g->gated) != 6)
        return;
    g->measured = 1;
    g->samples = v[0];
    g->throttled = v[1];
    g->kept_throttled = v[2];
}

/* "done rounds calls calls seconds change lo hi stop": 1 when whole. */
static int on_done(pg_bench_result *out, const char *rest)
{
    unsigned long long c0, c1;
    char f[3][40], stop[32];

    if (sscanf(rest, "%d %llu %llu %lf %39s %39s %39s %31s", &out->rounds, &c0,
               &c1, &out->seconds, f[0], f[1], f[2], stop) != 8)
        return 0;
    out->calls[0] = c0;
    out->calls[1] = c1;
    /* The change itself is the decision rule's (stats.c), from the
     * per-case minimums; the interval comes from the rounds. */
    out->change_lo = parse_double(f[1]);
    out->change_hi = parse_double(f[2]);
    free(out->stop);
    out->stop = pg_strdup(stop);
    return 1;
}

/* "memory CASE SIDE CALLS ALLOCS FREES BYTES PEAK LEAKED MAPPED UNKNOWN
 * UNTRACKED NS": the heap of a side's calls, per call, into its case, and
 * the time its counting took. */
static void on_memory(pg_bench_result *out, const char *rest)
{
    unsigned long long v[8];
    long long leaked, ns;
    size_t c;
    int side, calls;
    pg_memory_use *u;

    if (sscanf(rest, "%zu %d %d %llu %llu %llu %llu %lld %llu %llu %llu %lld",
               &c, &side, &calls, &v[0], &v[1], &v[2], &v[3], &leaked, &v[4],
               &v[5], &v[6], &ns) != 12 ||
        c >= out->ncases || side < 0 || side > 1 || calls < 1 || ns < 0)
        return;
    out->memory.seconds += (double)ns / 1e9;
    u = &out->cases[c].mem[side];
    u->counted = 1;
    u->allocs = (double)v[0] / calls;
    u->bytes = (double)v[2] / calls;
    u->peak = (double)v[3];
    u->leaked = (double)leaked / calls;
    u->mapped = (double)v[4] / calls;
    u->unknown_frees = (double)v[5] / calls;
}

static void on_line(void *payload, const char *line)
{
    parent_ctx *ctx = payload;
    pg_bench_result *out = ctx->out;
    char word[32], a[32];
    /* Only perfgate-measure's lines carry this run's token. */
    const char *rest =
        pg_proc_message(line, ctx->spec->token, word, sizeof(word));

    if (!rest)
        return;
    if (!strcmp(word, PG_EV_FAIL) && !ctx->failed) {
        ctx->failed = on_fail(out, rest);
    } else if (!strcmp(word, PG_EV_PROGRESS)) {
        int round = 0;
        double elapsed = 0;
        if (sscanf(rest, "%31s %d %lf", a, &round, &elapsed) == 3 &&
            ctx->spec->on_progress)
            ctx->spec->on_progress(ctx->spec->payload, a, round, elapsed);
    } else if (!strcmp(word, PG_EV_CASE)) {
        on_case(out, rest);
    } else if (!strcmp(word, PG_EV_PLACED)) {
        if (sscanf(rest, "%d %d", &out->slots, &out->shift) != 2)
            out->slots = out->shift = 0;
    } else if (!strcmp(word, PG_EV_CPU)) {
        char **f = ctx->spec->metric ? &out->cpu_simulated : &out->cpu_native;
        free(*f);
        *f = pg_strdup(rest);
    } else if (!strcmp(word, PG_EV_TRACE)) {
        pg_trace("measure: %s", rest);
    } else if (!strcmp(word, PG_EV_SAMPLES)) {
        add_samples(out, rest);
    } else if (!strcmp(word, PG_EV_MEMORY)) {
        on_memory(out, rest);
    } else if (!strcmp(word, PG_EV_GPU)) {
        on_gpu(&out->gpu, rest);
    } else if (!strcmp(word, PG_EV_VERIFIED)) {
        if (!strcmp(rest, PG_EV_VERIFIED_HEAD))
            ctx->head_verified = 1;
        else
            ctx->done = 1;
    } else if (!strcmp(word, PG_EV_DONE)) {
        ctx->done |= on_done(out, rest);
    }
}

/* A call into the problem's own code alone, which no side runs but which
 * the per-call timeout holds to as well. */
static int problem_call(int call)
{
    return call == PG_CALL_SETUP || call == PG_CALL_STAND_IN ||
           call == PG_CALL_FLOPS || call == PG_CALL_BYTES ||
           call == PG_CALL_TEARDOWN || call == PG_CALL_LOAD;
}

int pg_run_watch_expired(const pg_watch *w, double timeout)
{
    int side = w->side;
    int64_t used;

    if (side > 1 || (side < 0 && !problem_call(w->call)))
        return 0;
    /* since_ns is written before side and call (watch.c): read after. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    used = pg_now_ns() - w->since_ns;
    return (double)used / 1e9 > timeout;
}

static int watchdog(void *payload)
{
    parent_ctx *ctx = payload;
    int side = ctx->watch->side;

    if (!pg_run_watch_expired(ctx->watch, ctx->spec->settings->timeout))
        return 0;
    ctx->timeout_side = side;
    return 1;
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

/* Where perfgate-measure is, before run programs are boxed: beside
 * perfgate in a build tree, in libexec when installed, else as built. */
static char *find_program(void)
{
    const char *env = pg_env_nonempty("PERFGATE_MEASURE");
    char *dir;

    if (env)
        return pg_strdup(env);
    if ((dir = pg_self_dir())) {
        char *p = pg_path_join(dir, RUNNER);
        if (!pg_path_is_file(p)) {
            free(p);
            p = pg_strdupf("%s/../libexec/perfgate/%s", dir, RUNNER);
        }
        free(dir);
        if (pg_path_is_file(p))
            return p;
        free(p);
    }
#ifdef PG_RUNNER_BUILT
    if (pg_path_is_file(PG_RUNNER_BUILT))
        return pg_strdup(PG_RUNNER_BUILT);
#endif
    return pg_strdup(RUNNER);
}

const char *pg_run_program_path(void)
{
    static char *path;

    if (!path) {
        /* Boxed runs start it wherever it lies (below /tmp too). */
        char *real, *at;
        path = find_program();
        real = realpath(path, NULL);
        at = pg_path_dirname(real ? real : path);
        pg_box_show(at);
        free(at);
        free(real);
    }
    return path;
}

/*
 * The base failed: the head is run alone, so that a head as broken as its
 * base still fails the gate.  When the base failed before the head was
 * checked (it crashed, hung or did not load), the head is checked; when
 * the head was already found right and the base failed while they were
 * timed, the head is timed too, as long as they would have been: what
 * broke the base under many calls may break the head.  Its failure, if
 * any, replaces the base's.
 */
int pg_run_head_alone(pg_bench_result *out, const pg_run_spec *spec,
                      const char *spec_path, int timed)
{
    pg_run_spec alone = *spec;
    pg_bench_result head;
    int err;

    alone.lib[0] = NULL;
    alone.verify_only = !timed;
    alone.on_progress = NULL;
    alone.memory = 0;
    pg_bench_result_init(&head, out->name, NULL);
    err = pg_run_bench(&head, &alone, spec_path);
    if (!err && head.side == PG_SIDE_HEAD) {
        char *msg = pg_strdupf("%s (the base side failed too: %s)",
                               head.message ? head.message : "failed",
                               out->message ? out->message : "failed");
        out->status = head.status;
        out->side = PG_SIDE_HEAD;
        free(out->message);
        out->message = msg;
        free(out->log);
        out->log = head.log;
        head.log = NULL;
    }
    pg_bench_result_clear(&head);
    return err;
}

/*
 * A failure charged to the base by a process that had the head's code
 * loaded too: the head could have written it (or crashed the process
 * while the watch named the base).  The base is run alone, as far as it
 * got (checked, or timed too); if it does not fail alone, the failure is
 * the head's.  1 when it was moved to the head, 0 when the base fails
 * alone, negative for perfgate's own failure.
 */
static int confirm_base_alone(pg_bench_result *out, const pg_run_spec *spec,
                              const char *spec_path, int timed)
{
    pg_run_spec alone = *spec;
    pg_bench_result base;
    char *path = pg_strdupf("%s.base", spec_path);
    int err, moved;

    alone.lib[1] = NULL;
    alone.verify_only = !timed;
    alone.on_progress = NULL;
    alone.memory = 0;
    pg_bench_result_init(&base, out->name, NULL);
    err = pg_run_bench(&base, &alone, path);
    moved = err == 0 && !pg_status_failed(base.status) &&
            base.status != PG_STATUS_SKIPPED;
    pg_trace("%s: the base alone: %s%s%s", out->name,
             pg_status_name(base.status), base.message ? ": " : "",
             base.message ? base.message : "");
    if (moved) {
        char *msg = pg_strdupf(
            "head side: the base failed only beside the head's code, in "
            "one process (%s); alone, the base does not fail",
            out->message ? out->message : "failed");
        out->side = PG_SIDE_HEAD;
        free(out->message);
        out->message = msg;
    }
    pg_bench_result_clear(&base);
    free(path);
    return err < 0 ? err : moved;
}

char *pg_run_memory_library(void)
{
    char *dir = pg_path_dirname(pg_run_program_path());
    char *path = pg_path_join(dir, "libperfgate-memory.so");

    free(dir);
    if (pg_path_is_file(path))
        return path;
    free(path);
    return NULL;
}

int pg_run_program_missing(void)
{
    return pg_error_set(PG_ERR_GENERIC,
                        "cannot run %s: install it beside perfgate (or in "
                        "../libexec/perfgate), or set PERFGATE_MEASURE to its "
                        "path",
                        pg_run_program_path());
}

void pg_run_add_cases(pg_bench_result *out, const pg_run_spec *spec)
{
    size_t c;

    out->cases = pg_calloc(spec->ncases, sizeof(*out->cases));
    out->ncases = spec->ncases;
    for (c = 0; c < spec->ncases; c++) {
        out->cases[c].name = pg_strdup(spec->cases[c].name);
        out->cases[c].base_ns = out->cases[c].head_ns = NAN;
        out->cases[c].change = NAN;
        out->cases[c].change_lo = out->cases[c].change_hi = NAN;
    }
}

void pg_run_fill(pg_bench_result *out, const pg_timing *timing,
                 const pg_measure_summary *sum, const double *samples,
                 size_t ncases)
{
    size_t c, r, n;
    int s;

    n = (size_t)sum->rounds < PG_MAX_POOLED_SAMPLES ? (size_t)sum->rounds
                                                    : PG_MAX_POOLED_SAMPLES;
    for (c = 0; c < ncases; c++) {
        pg_result_case *cr = &out->cases[c];
        cr->base_ns = timing[c].ns[PG_BASE];
        cr->head_ns = timing[c].ns[PG_HEAD];
        cr->overhead_ns = timing[c].overhead_ns;
        cr->inner = timing[c].inner;
        cr->change_lo = timing[c].change.lo;
        cr->change_hi = timing[c].change.hi;
        cr->quantum_ns = timing[c].quantum_ns;
        for (s = 0; s < 2 && samples; s++) {
            cr->samples[s] = pg_realloc(cr->samples[s], n * sizeof(double));
            for (r = 0; r < n; r++)
                cr->samples[s][r] = samples[(r * ncases + c) * 2 + (size_t)s];
            cr->nsamples[s] = n;
        }
    }
    out->slots = sum->slots;
    out->shift = sum->shift;
    out->rounds = sum->rounds;
    out->calls[0] = sum->calls[0];
    out->calls[1] = sum->calls[1];
    out->seconds = sum->seconds;
    out->change_lo = sum->change.lo;
    out->change_hi = sum->change.hi;
    free(out->stop);
    out->stop = pg_strdup(pg_estimate_stop_name(sum->stop));
}

/* The case the watch names, or NULL. */
static const char *watched_case(const pg_run_spec *spec, const pg_watch *w)
{
    if (w->case_index < 0 || (size_t)w->case_index >= spec->ncases)
        return NULL;
    return spec->cases[w->case_index].name;
}

/*
 * Who perfgate-measure was running when it ended, before what happened:
 * "head side: ", "problem P: setup() on case C: ", or "" when it was in
 * no call into user code.
 */
void pg_run_describe_who(pg_str *out, const pg_run_spec *spec,
                         const pg_watch *w, int side)
{
    const char *fn = pg_call_name(w->call), *c = watched_case(spec, w);

    if (side >= 0)
        pg_str_printf(out, "%s side: ", side_names[side]);
    else if (w->call == PG_CALL_LOAD)
        pg_str_printf(out,
                      "problem %s: while loading it: ", spec->problem_name);
    else if (fn)
        pg_str_printf(out, "problem %s: %s%s%s: ", spec->problem_name, fn,
                      c ? " on case " : "", c ? c : "");
}

/* Where a side was, after what happened: " in verify() of problem P on
 * case C"; for the problem alone, why it was called; else "". */
void pg_run_describe_where(pg_str *out, const pg_run_spec *spec,
                           const pg_watch *w, int side)
{
    const char *fn = pg_call_name(w->call), *c = watched_case(spec, w);

    if (side < 0) {
        if (w->call == PG_CALL_STAND_IN)
            pg_str_puts(out, " (run() was called with perfgate's empty "
                             "stand-in for the solution, which returns 0, to "
                             "time the harness's own cost: it must call the "
                             "function it is given and do nothing with the "
                             "result but keep it or free it)");
        else if (w->call == PG_CALL_NONE)
            pg_str_puts(out, " (in perfgate-measure itself, outside any call "
                             "into the problem or a side's code)");
    } else if (w->call == PG_CALL_LOAD) {
        pg_str_puts(out, " while loading its library (its constructors)");
    } else if (w->call == PG_CALL_RUN) {
        pg_str_printf(out,
                      " in run()%s%s (the solution, or problem %s's run() "
                      "around it)",
                      c ? " on case " : "", c ? c : "", spec->problem_name);
    } else if (fn) {
        pg_str_printf(out, " in %s of problem %s%s%s", fn, spec->problem_name,
                      c ? " on case " : "", c ? c : "");
    }
}

/* The run ended without its report: how, and which side was running. */
static void set_end(pg_bench_result *out, const pg_proc_result *res,
                    const parent_ctx *pctx, double timeout)
{
    int side = res->watchdog ? pctx->timeout_side : pctx->watch->side;
    int ended = res->watchdog || res->timed_out || res->signal || res->disk_low;
    pg_str msg = PG_STR_INIT;

    /* A reported failure keeps its own message, with the log. */
    if (!ended && (pctx->failed || pctx->done)) {
        if (pctx->failed)
            set_log(out, &res->output);
        return;
    }
    set_log(out, &res->output);
    out->side = side < 0 ? PG_SIDE_NONE : (pg_side)side;
    pg_run_describe_who(&msg, pctx->spec, pctx->watch, side);
    if (res->watchdog || res->timed_out) {
        out->status = PG_STATUS_TIMEOUT;
        pg_str_printf(&msg, "still running after %.0f s",
                      res->watchdog ? pctx->spec->settings->timeout : timeout);
    } else {
        out->status = PG_STATUS_CRASHED;
        if (res->disk_low)
            pg_str_puts(&msg, PG_BOX_DISK_SAID);
        else if (res->signal)
            pg_str_printf(&msg, "killed by %s",
                          pg_signal_describe(res->signal));
        else
            pg_str_printf(&msg, "exited with status %d before finishing",
                          res->exit_code);
    }
    pg_run_describe_where(&msg, pctx->spec, pctx->watch, side);
    if (out->status == PG_STATUS_TIMEOUT)
        pg_str_puts(&msg, "; stopped");
    free(out->message);
    out->message = pg_str_detach(&msg);
}

/*
 * A count taken under callgrind: the same calls run natively, sampled, to
 * tell whether callgrind saw the code the machine runs (pathcheck.h).
 * Code that fails natively (but not under valgrind) fails the benchmark.
 * Negative only when perfgate failed or was interrupted.
 */
int pg_run_check_path(pg_bench_result *out, const pg_run_spec *counted,
                      const char *spec_path)
{
    pg_run_spec spec = *counted;
    pg_bench_result n;
    pg_str other = PG_STR_INIT;
    char *path = pg_strdupf("%s.native", spec_path);
    /* In the run's own directory: the only one its box lets it write. */
    char *samples = pg_strdupf("%s.native.cwd/samples", spec_path);
    int err, sides = (counted->lib[0] ? 1 : 0) | (counted->lib[1] ? 2 : 0);

    pg_run_spec_native(&spec);
    spec.sample = samples;
    pg_bench_result_init(&n, out->name, NULL);
    if ((err = pg_run_bench(&n, &spec, path)) < 0)
        goto done;
    if (pg_status_failed(n.status)) {
        out->status = n.status;
        out->side = n.side;
        free(out->message);
        out->message = pg_strdupf("natively (outside valgrind, where it "
                                  "was counted): %s",
                                  n.message ? n.message : "failed");
    } else if (n.status == PG_STATUS_SKIPPED) {
        pg_trace("%s: code paths not compared: %s", out->name,
                 n.message ? n.message : "skipped");
    } else {
        int rc = pg_pathcheck(&other, samples, counted->count_dump, sides,
                              n.cpu_native, out->cpu_simulated);
        pg_trace("%s: code paths, natively and under callgrind: %s%s",
                 out->name,
                 rc > 0   ? "another path: "
                 : rc < 0 ? "not compared: "
                          : "the same",
                 pg_str_cstr(&other));
        if (rc > 0)
            out->other_path = pg_str_detach(&other);
        pg_str_reset(&other);
        pg_pathcheck_uncounted(&other, samples);
        if (other.size)
            out->uncounted = pg_str_detach(&other);
    }
    out->cpu_native = n.cpu_native;
    n.cpu_native = NULL;
done:
    pg_bench_result_clear(&n);
    pg_str_clear(&other);
    free(samples);
    free(path);
    return err;
}

/* The watch the child and perfgate share (its fd 4): *wfd and *watch,
 * cleared; negative when it cannot be had. */
static int map_watch(int *wfd, pg_watch **watch)
{
    *wfd = memfd_create("perfgate-watch", MFD_CLOEXEC);
    if (*wfd < 0 || ftruncate(*wfd, sizeof(**watch)) < 0 ||
        (*watch = mmap(NULL, sizeof(**watch), PROT_READ | PROT_WRITE,
                       MAP_SHARED, *wfd, 0)) == MAP_FAILED)
        return pg_error_set(PG_ERR_GENERIC, "cannot map shared memory: %s",
                            strerror(errno));
    memset(*watch, 0, sizeof(**watch));
    (*watch)->side = -1;
    return 0;
}

/* How the child runs: in `scratch`, boxed, watched, its output capped. */
static void child_opts(pg_proc_opts *opts, pg_box *box, const pg_run_spec *spec,
                       const char *spec_path, const char *scratch)
{
    memset(opts, 0, sizeof(*opts));
    opts->cwd = scratch;
    /* Both sides' code runs here, boxed: that directory is all it may
     * write; what it loads and reads is shown wherever it lies. */
    box->write[0] = scratch;
    box->show[0] = spec_path;
    box->show[1] = spec->problem_lib;
    box->show[2] = spec->lib[0];
    box->show[3] = spec->lib[1];
    opts->box = box;
    opts->output_cap = OUTPUT_CAP;
    /* The per-side timeout is the watchdog's; this only catches a child
     * stuck outside either side (in the problem or the loader). */
    opts->timeout = 2 * spec->settings->timeout + spec->settings->max_time + 60;
    opts->watchdog = watchdog;
    opts->on_line = on_line;
    /* A count is to be the same in every run: nothing in it may depend on
     * where the loader put things. */
    opts->no_aslr = spec->metric != 0;
}

/* After the run: a failure charged to the base is confirmed on the base
 * alone, and the head then measured alone; a count's code path checked. */
static int after_run(pg_bench_result *out, const pg_run_spec *spec,
                     const char *spec_path, const parent_ctx *pctx)
{
    int err;

    if (out->side == PG_SIDE_BASE && spec->lib[0] && spec->lib[1] &&
        (err = confirm_base_alone(out, spec, spec_path,
                                  !spec->verify_only && pctx->head_verified)) !=
            0)
        /* The head's, once the base alone is right. */
        return err > 0 ? 0 : err;
    if (out->side == PG_SIDE_BASE && spec->lib[0] && !spec->verify_only)
        return pg_run_head_alone(out, spec, spec_path, pctx->head_verified);
    if (spec->code_path && !pctx->failed && pctx->done)
        return pg_run_check_path(out, spec, spec_path);
    return 0;
}

/* What starts the child: perfgate-measure SPEC, under callgrind for a
 * count, with the counting allocator preloaded for the memory pass. */
static void program_argv(pg_strvec *argv, pg_proc_opts *opts,
                         const pg_run_spec *spec, const char *spec_path,
                         const char *dump)
{
    if (spec->counter == PG_COUNTER_CALLGRIND) {
        pg_counter_valgrind_args(argv, (pg_metric)spec->metric, dump);
        opts->timeout += 60; /* valgrind's start, and its slower pace */
    } else if (spec->memory) {
        char *lib = pg_run_memory_library();
        pg_strvec_push(argv, "env");
        pg_strvec_push_owned(argv, pg_strdupf("LD_PRELOAD=%s", lib ? lib : ""));
        free(lib);
    }
    pg_strvec_push(argv, pg_run_program_path());
    pg_strvec_push(argv, spec_path);
}

int pg_run_bench(pg_bench_result *out, const pg_run_spec *given,
                 const char *spec_path)
{
    pg_run_spec run = *given;
    const pg_run_spec *spec = &run;
    pg_proc_opts opts;
    pg_proc_result res;
    pg_box box = {{NULL}, {NULL}, {NULL}};
    parent_ctx pctx;
    pg_watch *watch = MAP_FAILED;
    pg_strvec argv = PG_STRVEC_INIT;
    char *scratch = NULL, *dump = NULL, token[33];
    int err, wfd;

    memset(&res, 0, sizeof(res));
    if ((err = map_watch(&wfd, &watch)) < 0)
        goto done;
    run.verbose = given->verbose || pg_tracing();
    /* The run's token, which starts every line perfgate-measure sends. */
    pg_token(token);
    run.token = token;
    /* User code runs in a directory of its own inside perfgate's temporary
     * one: a relative path it writes lands there, not in the user's tree.
     * Under callgrind, the counts are dumped there too. */
    scratch = pg_strdupf("%s.cwd", spec_path);
    if (spec->counter == PG_COUNTER_CALLGRIND)
        run.count_dump = dump = pg_path_join(scratch, "callgrind.out");
    if ((err = pg_run_spec_write(spec, spec_path)) < 0)
        goto done;
    pg_run_add_cases(out, spec);
    memset(&pctx, 0, sizeof(pctx));
    pctx.spec = spec;
    pctx.out = out;
    pctx.watch = watch;
    pctx.timeout_side = -1;

    if (mkdir(scratch, 0700) < 0 && errno != EEXIST) {
        err = pg_error_set(PG_ERR_GENERIC, "cannot create %s: %s", scratch,
                           strerror(errno));
        goto done;
    }
    child_opts(&opts, &box, spec, spec_path, scratch);
    opts.payload = &pctx;
    opts.share_fd = wfd;

    program_argv(&argv, &opts, spec, spec_path, dump);
    if ((err = pg_proc_run_argv(&res, argv.v, &opts)) < 0)
        goto done;
    if (res.not_run && spec->counter == PG_COUNTER_CALLGRIND) {
        out->status = PG_STATUS_SKIPPED;
        out->message = pg_strdup("not counted: valgrind could not be run "
                                 "(install valgrind, or count with "
                                 "counter: hardware where the CPU allows)");
        goto done;
    }
    if (res.not_run) {
        err = pg_run_program_missing();
        goto done;
    }
    set_end(out, &res, &pctx, opts.timeout);
    err = after_run(out, spec, spec_path, &pctx);
done:
    pg_proc_result_clear(&res);
    pg_strvec_clear(&argv);
    free(dump);
    free(scratch);
    if (watch != MAP_FAILED)
        munmap(watch, sizeof(*watch));
    if (wfd >= 0)
        close(wfd);
    return err;
}
