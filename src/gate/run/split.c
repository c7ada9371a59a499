/*
 * split.c - a benchmark's two sides timed each in a process of its own
 * (split.h).
 */
#include "split.h"
#include "boxcap.h"
#include "env.h"
#include "clock.h"
#include "counter.h"
#include "error.h"
#include "fs.h"
#include "estimate.h"
#include "measure.h"
#include "mempass.h"
#include "proc.h"
#include "protocol.h"
#include "run.h"
#include "str.h"
#include "strvec.h"
#include "token.h"
#include "trace.h"
#include "units.h"
#include "watch.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "banned.h"

#define OUTPUT_CAP 16384
#define LOG_LINES 20
/* How long one wait for an answer lasts before the process is looked at
 * again (its end, perfgate's interruption). */
#define TICK_MS 20
/* How long an answer is waited for without sleeping. */
#define SPIN_NS 100000

static const char *const side_names[2] = {"base", "head"};

struct split;

/* One side's measuring process, and what it said. */
typedef struct worker {
    struct split *sp;
    int side;
    pg_proc_live *live;
    pg_proc_result res;
    pg_proc_opts opts;
    pg_box box;
    pg_watch *watch;
    int wfd;
    char *scratch;
    char *spec_path; /* its own run spec: its library, not the other's */
    char *dump;      /* under callgrind: its dump file */
    char *cpu;       /* the CPU features its code saw ("cpu") */
    size_t nplaced;
    double error_ns; /* a count's error a sample (0: timed) */
    unsigned long long max_inner;
    int ready, ended, gone, timed_out;
    int awaiting; /* an answer is due */
    int answered; /* it came */
    double answer[2];
    int out_of_turn; /* it said what it was not asked */
    int failed;      /* it reported a failure */
    pg_status status;
    pg_side charged;
    char *message;
} worker;

typedef struct split {
    const pg_run_spec *spec;
    worker w[2];
    int err;  /* perfgate's own failure (interrupted) */
    int spin; /* off the sides' CPU: answers are waited for awake */
    int64_t last_progress;
} split;

int pg_split_applies(const pg_run_spec *spec)
{
    const char *env = pg_env("PERFGATE_SPLIT");

    if (env && !strcmp(env, "0"))
        return 0;
    return spec->lib[0] && spec->lib[1] && !spec->gpu && !spec->sample &&
           !spec->verify_only;
}

static double parse_double(const char *s)
{
    return !strcmp(s, "nan") || !strcmp(s, "-nan") ? NAN : strtod(s, NULL);
}

/* An answer of `n` numbers, when one is due. */
static void take_answer(worker *w, const char *rest, int n)
{
    char a[40], b[40];

    if (!w->awaiting || (n == 1 ? sscanf(rest, "%39s", a)
                                : sscanf(rest, "%39s %39s", a, b)) != n) {
        w->out_of_turn = 1;
        return;
    }
    w->answer[0] = parse_double(a);
    w->answer[1] = n == 2 ? parse_double(b) : NAN;
    w->awaiting = 0;
    w->answered = 1;
}

/* A failure it reports: the head's is the head's whatever it names. */
static void take_failure(worker *w, const char *rest)
{
    char a[32], b[32];
    int m = 0, st;

    if (w->failed || sscanf(rest, "%31s %31s %n", a, b, &m) < 2)
        return;
    st = pg_status_parse(a);
    w->status = st < 0 ? PG_STATUS_CRASHED : (pg_status)st;
    w->charged = w->side == PG_HEAD   ? PG_SIDE_HEAD
                 : !strcmp(b, "base") ? PG_SIDE_BASE
                                      : PG_SIDE_NONE;
    w->message = pg_strdup(rest + m);
    w->failed = 1;
}

static void on_line(void *payload, const char *line)
{
    worker *w = payload;
    char word[32];
    const char *rest =
        pg_proc_message(line, w->sp->spec->token, word, sizeof(word));

    if (!rest)
        return;
    if (!strcmp(word, PG_EV_READY)) {
        /* How many placements the rounds take in turn: a side that
         * claimed more than there can be would stretch its rounds until
         * the budget ran out, unlabelled. */
        if (w->ready ||
            sscanf(rest, "%zu %lf %llu", &w->nplaced, &w->error_ns,
                   &w->max_inner) != 3 ||
            w->nplaced < 1 || w->nplaced > PG_PLACEMENTS_MOST ||
            !(w->error_ns >= 0))
            w->out_of_turn = 1;
        w->ready = 1;
    } else if (!strcmp(word, PG_EV_SAMPLE)) {
        take_answer(w, rest, 1);
    } else if (!strcmp(word, PG_EV_FIGURES)) {
        take_answer(w, rest, 2);
    } else if (!strcmp(word, PG_EV_ENDED)) {
        w->ended = 1;
        w->awaiting = 0;
    } else if (!strcmp(word, PG_EV_FAIL)) {
        take_failure(w, rest);
    } else if (!strcmp(word, PG_EV_TRACE)) {
        pg_trace("measure (%s): %s", side_names[w->side], rest);
    } else if (!strcmp(word, PG_EV_CPU)) {
        free(w->cpu);
        w->cpu = pg_strdup(rest);
    }
}

/* The per-call timeout, for what the process does between requests
 * (loading, setting up, checking). */
static int watchdog(void *payload)
{
    worker *w = payload;

    if (!pg_run_watch_expired(w->watch, w->sp->spec->settings->timeout))
        return 0;
    w->timed_out = 1;
    return 1;
}

/* Starts side `side`'s process: its own box, which shows its own library
 * and not the other side's. */
static int start_worker(split *sp, worker *w, int side, const char *spec_path)
{
    const pg_run_spec *spec = sp->spec;
    pg_run_spec own = *spec;
    pg_strvec argv = PG_STRVEC_INIT;
    int err;

    w->sp = sp;
    w->side = side;
    w->charged = PG_SIDE_NONE;
    w->wfd = memfd_create("perfgate-watch", MFD_CLOEXEC);
    if (w->wfd < 0 || ftruncate(w->wfd, sizeof(*w->watch)) < 0 ||
        (w->watch = mmap(NULL, sizeof(*w->watch), PROT_READ | PROT_WRITE,
                         MAP_SHARED, w->wfd, 0)) == MAP_FAILED) {
        w->watch = NULL;
        return pg_error_set(PG_ERR_GENERIC, "cannot map shared memory: %s",
                            strerror(errno));
    }
    memset(w->watch, 0, sizeof(*w->watch));
    w->watch->side = -1;
    w->scratch = pg_strdupf("%s.cwd%d", spec_path, side);
    if (mkdir(w->scratch, 0700) < 0 && errno != EEXIST)
        return pg_error_set(PG_ERR_GENERIC, "cannot create %s: %s", w->scratch,
                            strerror(errno));
    /* Its own spec: its library alone, and under callgrind its dumps in
     * its own directory, the only one its box lets it write. */
    w->spec_path = pg_strdupf("%s.%d", spec_path, side);
    own.lib[!side] = NULL;
    if (spec->counter == PG_COUNTER_CALLGRIND)
        own.count_dump = w->dump = pg_path_join(w->scratch, "callgrind.out");
    if ((err = pg_run_spec_write(&own, w->spec_path)) < 0)
        return err;
    w->box.write[0] = w->scratch;
    w->box.show[0] = w->spec_path;
    w->box.show[1] = spec->problem_lib;
    w->box.show[2] = spec->lib[side];
    w->opts.cwd = w->scratch;
    w->opts.box = &w->box;
    w->opts.output_cap = OUTPUT_CAP;
    w->opts.timeout =
        2 * spec->settings->timeout + spec->settings->max_time + 60;
    w->opts.on_line = on_line;
    w->opts.watchdog = watchdog;
    w->opts.payload = w;
    w->opts.share_fd = w->wfd;
    w->opts.request = 1;
    /* A count is to be the same in every run: nothing in it may depend on
     * where the loader put things. */
    w->opts.no_aslr = spec->metric != 0;
    if (spec->counter == PG_COUNTER_CALLGRIND) {
        pg_counter_valgrind_args(&argv, (pg_metric)spec->metric, w->dump);
        w->opts.timeout += 60; /* valgrind's start, and its slower pace */
    }
    pg_strvec_push(&argv, pg_run_program_path());
    pg_strvec_push(&argv, "--side");
    pg_strvec_pushf(&argv, "%d", side);
    pg_strvec_push(&argv, w->spec_path);
    if ((err = pg_proc_start(&w->live, &w->res, argv.v, &w->opts)) < 0)
        w->live = NULL;
    pg_strvec_clear(&argv);
    return err;
}

/*
 * Waits for `*flag` (an answer, "ready", "ended") from `w`, for at most
 * `seconds` (a sample: the benchmark's timeout; the rest is held to it
 * call by call, by the watchdog).  0, or -1 when the process failed, said
 * what it was not asked, ended, hung, or perfgate was interrupted
 * (sp->err).
 */
static int await(split *sp, worker *w, const int *flag, double seconds)
{
    int64_t deadline = pg_now_ns() + (int64_t)(seconds * 1e9);
    int64_t spin = sp->spin ? pg_now_ns() + SPIN_NS : 0;

    while (!*flag && !w->failed && !w->out_of_turn && !w->gone) {
        int64_t now = pg_now_ns(), left = deadline - now;
        int ms =
            left > TICK_MS * 1000000LL ? TICK_MS : (int)(left / 1000000) + 1;
        if (left <= 0) {
            w->timed_out = 1;
            return -1;
        }
        /* A short sample's answer comes within microseconds: looked for
         * without sleeping, as a wake-up from sleep would take longer
         * than the sample (tens of microseconds in a VM). */
        if (now < spin)
            ms = 0;
        if (pg_proc_live_wait(w->live, ms, &sp->err))
            w->gone = 1;
        if (sp->err)
            return -1;
    }
    return *flag && !w->failed && !w->out_of_turn ? 0 : -1;
}

/* Asks `w` (a request line), for one answer. */
static int ask(split *sp, worker *w, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int ask(split *sp, worker *w, const char *fmt, ...)
{
    va_list ap;
    int err;

    w->answered = 0;
    w->awaiting = 1;
    va_start(ap, fmt);
    err = pg_proc_live_vsend(w->live, fmt, ap);
    va_end(ap);
    if (err < 0) {
        /* It stopped reading: it ended, or is ending. */
        w->awaiting = 0;
        await(sp, w, &w->ended, w->opts.timeout);
        w->gone = 1;
        return -1;
    }
    return await(sp, w, &w->answered, sp->spec->settings->timeout);
}

/* pg_remote's time(): a sample from the side's own process. */
static double remote_time(void *ctx, size_t c, int k, uint64_t n, size_t slot,
                          int warm)
{
    split *sp = ctx;
    worker *w = &sp->w[k < 0 ? PG_BASE : k];
    double ns;

    if (ask(sp, w, PG_RQ_TIME_FMT, c, k < 0 ? -1 : 0, (unsigned long long)n,
            slot, warm) < 0)
        return NAN;
    ns = w->answer[0];
    if (!(ns >= 0) || !isfinite(ns)) {
        w->out_of_turn = 1;
        return NAN;
    }
    return ns;
}

static void on_round(void *payload, int round, double elapsed)
{
    split *sp = payload;
    int64_t now = pg_now_ns();

    if (!sp->spec->on_progress || now - sp->last_progress < 100000000)
        return;
    sp->last_progress = now;
    sp->spec->on_progress(sp->spec->payload, "measuring", round, elapsed);
}

/* The log of a side's process: the last lines of its output. */
static void set_log(pg_bench_result *out, const worker *w)
{
    pg_str tail = PG_STR_INIT;

    if (!w->res.output.size)
        return;
    pg_str_put_tail_lines(&tail, pg_str_cstr(&w->res.output), LOG_LINES);
    free(out->log);
    out->log = pg_str_detach(&tail);
}

/* The benchmark's failure, from side process `w` (after it was reaped):
 * what it reported, else how it ended. */
static void set_failure(pg_bench_result *out, const split *sp, const worker *w)
{
    const pg_run_spec *spec = sp->spec;
    int side = w->side == PG_HEAD ? PG_HEAD : w->watch->side;
    pg_str msg = PG_STR_INIT;

    set_log(out, w);
    if (w->failed) {
        out->status = w->status;
        out->side = w->charged;
        free(out->message);
        out->message = pg_strdup(w->message);
        return;
    }
    out->side = side < 0 ? PG_SIDE_NONE : (pg_side)side;
    if (w->out_of_turn) {
        out->status = PG_STATUS_INCORRECT;
        out->side = (pg_side)w->side;
        pg_str_printf(&msg,
                      "%s side: its measuring process said what perfgate did "
                      "not ask (its own code writing to perfgate's channel?): "
                      "its figures are refused",
                      side_names[w->side]);
        free(out->message);
        out->message = pg_str_detach(&msg);
        return;
    }
    pg_run_describe_who(&msg, spec, w->watch, side);
    if (w->timed_out || w->res.timed_out) {
        out->status = PG_STATUS_TIMEOUT;
        pg_str_printf(&msg, "still running after %.0f s",
                      spec->settings->timeout);
    } else {
        out->status = PG_STATUS_CRASHED;
        if (w->res.disk_low)
            pg_str_puts(&msg, PG_BOX_DISK_SAID);
        else if (w->res.signal)
            pg_str_printf(&msg, "killed by %s",
                          pg_signal_describe(w->res.signal));
        else
            pg_str_printf(&msg, "exited with status %d before finishing",
                          w->res.exit_code);
    }
    pg_run_describe_where(&msg, spec, w->watch, side);
    if (out->status == PG_STATUS_TIMEOUT)
        pg_str_puts(&msg, "; stopped");
    free(out->message);
    out->message = pg_str_detach(&msg);
}

/* Whether `w` ended the benchmark (reported, refused, hung, died). */
static int worker_failed(const worker *w)
{
    return w->failed || w->out_of_turn || w->timed_out ||
           (w->gone && !w->ended);
}

/* Under -v: how a case was measured. */
static void trace_case(const pg_run_spec *spec, size_t c, const pg_timing *t)
{
    pg_str s = PG_STR_INIT;

    pg_str_printf(&s,
                  "case %s: %llu call%s per sample, %llu samples per side, "
                  "each side in its own process; the harness's own ",
                  spec->cases[c].name, (unsigned long long)t->inner,
                  t->inner == 1 ? "" : "s", (unsigned long long)t->samples);
    pg_format_ns(&s, t->overhead_ns);
    pg_str_puts(&s, " a call discounted; best per call: base ");
    pg_format_ns(&s, t->ns[PG_BASE]);
    pg_str_puts(&s, ", head ");
    pg_format_ns(&s, t->ns[PG_HEAD]);
    pg_trace("measure: %s", pg_str_cstr(&s));
    pg_str_clear(&s);
}

/* The measurement's figures into `out`, as the one-process run's events
 * would have put them, and the problem's own figures (from the base's
 * process). */
static void fill(pg_bench_result *out, split *sp, const pg_timing *timing,
                 const pg_measure_summary *sum, double *samples)
{
    size_t c;

    pg_run_fill(out, timing, sum, samples, sp->spec->ncases);
    for (c = 0; c < sp->spec->ncases; c++) {
        if (ask(sp, &sp->w[PG_BASE], PG_RQ_FIGURES_FMT, c) == 0) {
            out->cases[c].flops = sp->w[PG_BASE].answer[0];
            out->cases[c].bytes = sp->w[PG_BASE].answer[1];
        }
        if (pg_tracing())
            trace_case(sp->spec, c, &timing[c]);
    }
}

/* Times both sides' processes interleaved; 0, or -1 when one failed. */
static int measure(pg_bench_result *out, split *sp)
{
    const pg_run_spec *spec = sp->spec;
    pg_target(*targets)[2] = pg_calloc(spec->ncases, sizeof(*targets));
    pg_timing *timing = pg_calloc(spec->ncases, sizeof(*timing));
    pg_measure_summary sum;
    pg_measure_opts opts;
    pg_remote remote;
    double *samples = NULL;
    size_t c;
    int s, err;

    for (c = 0; c < spec->ncases; c++)
        for (s = 0; s < 2; s++)
            targets[c][s].nplaced = sp->w[s].nplaced;
    memset(&remote, 0, sizeof(remote));
    remote.time = remote_time;
    remote.ctx = sp;
    pg_measure_opts_init(&opts, spec->settings->min_rounds,
                         spec->settings->max_time, spec->settings->noise_floor);
    pg_run_spec_rule(spec, &opts.rule);
    if (spec->metric) {
        /* The base's counter says how its samples are taken. */
        remote.error_ns = sp->w[PG_BASE].error_ns;
        remote.max_inner = sp->w[PG_BASE].max_inner;
        opts.jitter = 0; /* a count does not move with where code lies */
    } else {
        opts.evict_bytes = spec->evict_bytes;
    }
    opts.remote = &remote;
    opts.on_round = on_round;
    opts.payload = sp;
    opts.keep_samples = &samples;
    err = pg_measure(timing, &sum, targets, spec->ncases, 2, &opts);
    if (err == 0)
        fill(out, sp, timing, &sum, samples);
    free(samples);
    free(timing);
    free(targets);
    return err;
}

/*
 * Keeps perfgate off the CPU the sides are pinned to while it asks them
 * for samples, so that waiting for an answer awake (SPIN_NS) never takes
 * that CPU from a sample: 1 when it moved, with its CPUs before in
 * `saved`; 0 (and no waiting awake) where it cannot.
 */
static int step_aside(int cpu, cpu_set_t *saved)
{
    cpu_set_t other;

    if (cpu < 0 || cpu >= CPU_SETSIZE ||
        sched_getaffinity(0, sizeof(*saved), saved) < 0)
        return 0;
    other = *saved;
    CPU_CLR(cpu, &other);
    return CPU_COUNT(&other) > 0 &&
           sched_setaffinity(0, sizeof(other), &other) == 0;
}

/* Ends both processes: "end" (each checks its side again), then reaped. */
static void end_workers(split *sp, int ask_end)
{
    int s;

    for (s = 0; s < 2; s++) {
        worker *w = &sp->w[s];
        if (!w->live)
            continue;
        if (ask_end && !worker_failed(w)) {
            w->awaiting = 1;
            /* Then its teardown() and its exit, which are its own. */
            if (pg_proc_live_send(w->live, PG_RQ_END) == 0 &&
                await(sp, w, &w->ended, w->opts.timeout) == 0)
                await(sp, w, &w->gone, sp->spec->settings->timeout);
            w->awaiting = 0;
        }
    }
    for (s = 0; s < 2; s++) {
        worker *w = &sp->w[s];
        int err = pg_proc_finish(w->live, 0);
        w->live = NULL;
        if (err < 0 && !sp->err)
            sp->err = err;
        if (ask_end && !w->ended && !worker_failed(w))
            w->gone = 1;
    }
}

static void clear_workers(split *sp)
{
    int s;

    for (s = 0; s < 2; s++) {
        worker *w = &sp->w[s];
        pg_proc_result_clear(&w->res);
        if (w->watch)
            munmap(w->watch, sizeof(*w->watch));
        if (w->wfd >= 0)
            close(w->wfd);
        free(w->scratch);
        free(w->spec_path);
        free(w->dump);
        free(w->cpu);
        free(w->message);
    }
}

/* Under callgrind: what each side's process executed, side by side in
 * the base's directory, against where the same calls run natively. */
static int check_paths(pg_bench_result *out, const split *sp,
                       const char *spec_path)
{
    pg_run_spec counted = *sp->spec;
    char *from, *to;
    int err;

    if (!sp->w[PG_BASE].dump || !sp->w[PG_HEAD].dump)
        return 0;
    from = pg_strdupf("%s.path%d", sp->w[PG_HEAD].dump, PG_HEAD);
    to = pg_strdupf("%s.path%d", sp->w[PG_BASE].dump, PG_HEAD);
    if (rename(from, to) < 0 && errno != ENOENT)
        pg_trace("%s: cannot move %s: %s", out->name, from, strerror(errno));
    counted.count_dump = sp->w[PG_BASE].dump;
    err = pg_run_check_path(out, &counted, spec_path);
    free(from);
    free(to);
    return err;
}

/* Whether `r` ended the benchmark: a failure, or skipped. */
static int check_ended(const pg_bench_result *r)
{
    return pg_status_failed(r->status) || r->status == PG_STATUS_SKIPPED;
}

/*
 * The check's process, counting the heap too where `check` asks it
 * (mempass.h).  A check that crashes or is skipped while it counts is run
 * again without (not one that hangs: its timeout is not spent twice),
 * and, when it then passes, its count's failure is said in
 * out->memory.skipped, not charged: the library is not the change.
 */
static int check_counting(pg_bench_result *out, pg_bench_result *r,
                          pg_run_spec *check, const char *path)
{
    int err = pg_run_bench(r, check, path);
    char *why;

    if (err < 0 || !check->memory || !check_ended(r) ||
        r->status == PG_STATUS_TIMEOUT)
        return err;
    why = pg_mempass_failure(r, r->side == PG_SIDE_BASE ? 0 : 1);
    pg_trace("%s: the check failed while the heap was counted (%s): checked "
             "again without",
             out->name, why);
    pg_bench_result_clear(r);
    pg_bench_result_init(r, out->name, NULL);
    check->memory = 0;
    if ((err = pg_run_bench(r, check, path)) == 0 && !check_ended(r)) {
        free(out->memory.skipped);
        out->memory.skipped = why;
        why = NULL;
    }
    free(why);
    return err;
}

/* Checks both sides in one process first, on the same inputs, unless an
 * earlier process did, and counts their heap there where `spec` asks:
 * 1 when that ended the benchmark (its failure in `out`), 0 to measure,
 * negative for perfgate's own failure. */
static int check_first(pg_bench_result *out, const pg_run_spec *spec,
                       const char *spec_path)
{
    pg_run_spec check = *spec;
    pg_bench_result r;
    char *path = pg_strdupf("%s.check", spec_path);
    size_t c;
    int err, ended;

    if (spec->skip_checks & PG_CHECK_BEFORE) {
        free(path);
        return 0;
    }
    check.verify_only = 1;
    /* Counted natively only: valgrind has an allocator of its own. */
    if (check.counter == PG_COUNTER_CALLGRIND)
        check.memory = 0;
    pg_bench_result_init(&r, out->name, NULL);
    err = check_counting(out, &r, &check, path);
    ended = err == 0 && check_ended(&r);
    if (ended) {
        out->status = r.status;
        out->side = r.side;
        free(out->message);
        out->message = r.message;
        r.message = NULL;
        free(out->log);
        out->log = r.log;
        r.log = NULL;
    } else if (err == 0 && check.memory) {
        for (c = 0; c < out->ncases && c < r.ncases; c++)
            memcpy(out->cases[c].mem, r.cases[c].mem,
                   sizeof(out->cases[c].mem));
        out->memory.seconds = r.memory.seconds;
    }
    pg_bench_result_clear(&r);
    /* A broken base: the head is checked alone, so that a head as broken
     * fails. */
    if (ended && out->side == PG_SIDE_BASE)
        err = pg_run_head_alone(out, spec, path, 0);
    free(path);
    return err < 0 ? err : ended;
}

int pg_split_run(pg_bench_result *out, const pg_run_spec *given,
                 const char *spec_path)
{
    pg_run_spec run = *given;
    split sp;
    char token[33];
    int s, err;

    memset(&sp, 0, sizeof(sp));
    sp.w[0].wfd = sp.w[1].wfd = -1;
    sp.spec = &run;
    pg_run_add_cases(out, given);
    if ((err = check_first(out, given, spec_path)) != 0)
        return err < 0 ? err : 0;
    run.skip_checks |= PG_CHECK_BEFORE;
    run.memory = 0; /* the timed rounds never count the heap */
    run.verbose = given->verbose || pg_tracing();
    pg_token(token);
    run.token = token;
    if ((err = pg_run_spec_write(&run, spec_path)) < 0)
        return err;
    /* Started together; each loads and sets up while the other does. */
    for (s = 0; s < 2 && err == 0; s++)
        err = start_worker(&sp, &sp.w[s], s, spec_path);
    for (s = 0; s < 2 && err == 0 && !sp.err; s++)
        await(&sp, &sp.w[s], &sp.w[s].ready, sp.w[s].opts.timeout);
    if (err == 0 && !sp.err && sp.w[0].ready && sp.w[1].ready &&
        !worker_failed(&sp.w[0]) && !worker_failed(&sp.w[1])) {
        cpu_set_t saved;
        sp.spin = step_aside(run.cpu, &saved);
        measure(out, &sp);
        if (sp.spin)
            sched_setaffinity(0, sizeof(saved), &saved);
        sp.spin = 0;
    }
    end_workers(&sp, err == 0 && !sp.err);
    if (err == 0 && sp.err)
        err = sp.err;
    if (err == 0 && (sp.w[0].res.not_run || sp.w[1].res.not_run)) {
        if (run.counter == PG_COUNTER_CALLGRIND) {
            out->status = PG_STATUS_SKIPPED;
            free(out->message);
            out->message = pg_strdup("not counted: valgrind could not be run "
                                     "(install valgrind, or count with "
                                     "counter: hardware where the CPU "
                                     "allows)");
            clear_workers(&sp);
            return 0;
        }
        err = pg_run_program_missing();
    }
    if (err == 0) {
        char **cpu = run.metric ? &out->cpu_simulated : &out->cpu_native;
        free(*cpu);
        *cpu = sp.w[PG_BASE].cpu;
        sp.w[PG_BASE].cpu = NULL;
        /* The head's failure first: it is what the gate decides on. */
        if (worker_failed(&sp.w[PG_HEAD]))
            set_failure(out, &sp, &sp.w[PG_HEAD]);
        else if (worker_failed(&sp.w[PG_BASE]))
            set_failure(out, &sp, &sp.w[PG_BASE]);
        /* A benchmark skipped passes: the head's process alone saying so
         * (it could not count, where the base's could) is its failure. */
        if (out->status == PG_STATUS_SKIPPED && out->side == PG_SIDE_HEAD &&
            !worker_failed(&sp.w[PG_BASE])) {
            char *msg = pg_strdupf("head side: its process did not measure "
                                   "where the base's did: %s",
                                   out->message ? out->message : "skipped");
            out->status = PG_STATUS_CRASHED;
            free(out->message);
            out->message = msg;
        }
        /* What broke the base under many calls may break the head: it
         * is timed alone, as long as both would have been. */
        if (out->side == PG_SIDE_BASE)
            err = pg_run_head_alone(out, &run, spec_path, sp.w[0].ready);
        else if (run.code_path && out->rounds > 0 && !out->message)
            err = check_paths(out, &sp, spec_path);
    }
    clear_workers(&sp);
    return err;
}

int pg_split_or_run(pg_bench_result *out, const pg_run_spec *spec,
                    const char *spec_path)
{
    pg_run_spec timed = *spec;

    if (pg_split_applies(spec))
        return pg_split_run(out, spec, spec_path);
    /* Checked and timed in one process: the heap is counted apart
     * (mempass.h), never in a timed process. */
    timed.memory = 0;
    return pg_run_bench(out, &timed, spec_path);
}
