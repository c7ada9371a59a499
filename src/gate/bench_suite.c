/*
 * bench_suite.c - one suite: benchmark of a comparison (bench_suite.h).
 */
#include "bench_suite.h"
#include "build.h"
#include "clock.h"
#include "counter.h"
#include "elfcode.h"
#include "fs.h"
#include "profile.h"
#include "stats.h"
#include "str.h"
#include "suite.h"
#include "timer.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* What one suite benchmark holds while it runs. */
typedef struct suite_bench {
    pg_bench_ctx *c;
    const pg_bench_config *b;
    pg_bench_result *out;
    char *bin[2];
    char *scratch;
    pg_strvec names[2]; /* what each side lists */
    int fixed[2];
    int metric;   /* what it measures: a pg_metric, or PG_MEASURE_ALL */
    int counting; /* 0 counted; 1 timed (why: counting was asked and the
                     head's program forbids it) */
    char *why;
} suite_bench;

/*
 * Both sides' project builds.  1 when the benchmark ends here, its status
 * in `out`: the head's build failed, or made no binary (charged to it);
 * the base's did (new: no baseline; its build failing is charged to it).
 * 0 to go on; negative when perfgate failed.
 */
static int build_both(suite_bench *sb)
{
    pg_bench_ctx *c = sb->c;
    const pg_build *p[2];
    int s, err;

    for (s = 1; s >= 0; s--) {
        p[s] = pg_benchmark_project(c, sb->b, s, &err);
        if (err < 0)
            return err;
        sb->out->project[s] = p[s]->cached ? 2 : 1;
        sb->bin[s] = pg_path_join(c->rev[s].dir, sb->b->suite);
    }
    if (!p[0]->ok && !p[1]->ok && p[0]->message && p[1]->message &&
        !strcmp(p[0]->message, p[1]->message)) {
        /* Not the change's doing, and said so; still a failure. */
        sb->out->status = PG_STATUS_BUILD_FAILED;
        sb->out->side = PG_SIDE_NONE;
        sb->out->message = pg_strdupf("both sides fail alike, so not "
                                      "because of this change: %s",
                                      p[1]->message);
        sb->out->log = p[1]->log ? pg_strdup(p[1]->log) : NULL;
        return 1;
    }
    for (s = 1; s >= 0; s--) {
        if (!p[s]->ok) {
            pg_benchmark_build_failure(sb->out, p[s], (pg_side)s);
            return 1;
        }
    }
    if (!pg_path_is_file(sb->bin[1])) {
        sb->out->status = PG_STATUS_BUILD_FAILED;
        sb->out->side = PG_SIDE_HEAD;
        sb->out->message = pg_strdupf("head side: the build made no %s "
                                      "(suite: names the program it makes, "
                                      "relative to the repository's root)",
                                      sb->b->suite);
        return 1;
    }
    if (!pg_path_is_file(sb->bin[0])) {
        sb->out->status = PG_STATUS_NEW;
        sb->out->message = pg_strdupf("no baseline: the build makes no %s "
                                      "in %s",
                                      sb->b->suite, c->rev[0].spec);
        return 1;
    }
    return 0;
}

/* Lists side `side`; 1 when it could not be (charged to it). */
static int list_side(suite_bench *sb, const pg_suite *s, int side)
{
    char *why;
    int err;

    pg_progress_sayf(sb->c->progress, "listing the %s's benchmarks",
                     side ? "head" : "base");
    err = pg_suite_list(&sb->names[side], &sb->fixed[side], &why, s, side,
                        sb->b->filter, sb->c->cfg->settings.timeout);
    if (err == 1) {
        sb->out->status = PG_STATUS_CRASHED;
        sb->out->side = (pg_side)side;
        sb->out->message = pg_strdupf("%s side: %s: %s", side ? "head" : "base",
                                      sb->b->suite, why);
        free(why);
    }
    return err;
}

/* Up to a few of `names`, after `what`, into `msg`. */
static void say_names(pg_str *msg, const char *what, const pg_strvec *names)
{
    size_t i;

    if (!names->n)
        return;
    if (msg->size)
        pg_str_puts(msg, "; ");
    pg_str_printf(msg, "%zu %s (", names->n, what);
    for (i = 0; i < names->n && i < 5; i++)
        pg_str_printf(msg, "%s%s", i ? ", " : "", names->v[i]);
    pg_str_puts(msg, names->n > 5 ? ", ...)" : ")");
}

/* 1 when the head lists no benchmark, said as its failure. */
static int pair_head(suite_bench *sb)
{
    if (sb->names[1].n)
        return 0;
    sb->out->status = PG_STATUS_BUILD_FAILED;
    sb->out->side = PG_SIDE_HEAD;
    sb->out->message = pg_strdupf(
        "head side: %s lists no benchmark%s%s%s", sb->b->suite,
        sb->b->filter ? " that filter '" : "",
        sb->b->filter ? sb->b->filter : "", sb->b->filter ? "' matches" : "");
    return 1;
}

/*
 * The benchmarks both sides list, in the head's order, into `both`; those
 * one side lacks said in out->message.  1 when none is left to measure,
 * the benchmark's status set.
 */
static int pair(suite_bench *sb, pg_strvec *both)
{
    pg_strvec added = PG_STRVEC_INIT, gone = PG_STRVEC_INIT;
    pg_str msg = PG_STR_INIT;
    size_t i;

    for (i = 0; i < sb->names[1].n; i++)
        pg_strvec_push(pg_strvec_has(&sb->names[0], sb->names[1].v[i]) ? both
                                                                       : &added,
                       sb->names[1].v[i]);
    for (i = 0; i < sb->names[0].n; i++)
        if (!pg_strvec_has(&sb->names[1], sb->names[0].v[i]))
            pg_strvec_push(&gone, sb->names[0].v[i]);
    say_names(&msg, "new in the head, not measured", &added);
    say_names(&msg, "gone from the head", &gone);
    if (msg.size)
        sb->out->message = pg_str_detach(&msg);
    pg_str_clear(&msg);
    if (!sb->names[1].n) {
        free(sb->out->message);
        sb->out->status = PG_STATUS_BUILD_FAILED;
        sb->out->side = PG_SIDE_HEAD;
        sb->out->message =
            pg_strdupf("head side: %s lists no benchmark%s%s%s", sb->b->suite,
                       sb->b->filter ? " that filter '" : "",
                       sb->b->filter ? sb->b->filter : "",
                       sb->b->filter ? "' matches" : "");
    } else if (!both->n) {
        sb->out->status = PG_STATUS_NEW;
        if (!sb->out->message)
            sb->out->message = pg_strdup("no baseline");
    }
    pg_strvec_clear(&added);
    pg_strvec_clear(&gone);
    return !both->n;
}

/*
 * The benchmarks of `both` that report an error of their own on the head
 * (SkipWithError: a benchmark of an instruction set the CPU lacks, or
 * that callgrind's simulated CPU lacks, when `s` is counted): left out and
 * said when the base's does too (the machine's doing, not the change's),
 * else the head's failure (1, `out` set).  0 to go on; negative when
 * perfgate was interrupted.
 */
static int drop_skipped(suite_bench *sb, const pg_suite *s, pg_strvec *both,
                        pg_bench_result *out)
{
    pg_strvec kept = PG_STRVEC_INIT, skipped = PG_STRVEC_INIT;
    pg_strvec threaded = PG_STRVEC_INIT;
    double timeout = sb->c->cfg->settings.timeout;
    const char *where = s->metric ? " under callgrind" : "";
    char *why = NULL, *base_why = NULL;
    size_t i;
    int err = 0;

    pg_progress_sayf(sb->c->progress, "trying each benchmark once%s", where);
    for (i = 0; err == 0 && i < both->n; i++) {
        if ((err = pg_suite_probe(&why, s, 1, both->v[i], timeout)) == 1 &&
            (err = pg_suite_probe(&base_why, s, 0, both->v[i], timeout)) == 0) {
            out->status = PG_STATUS_INCORRECT;
            out->side = PG_SIDE_HEAD;
            free(out->message);
            out->message =
                pg_strdupf("head side: %s %s%s: "
                           "%s (the base's does not)",
                           both->v[i],
                           s->kind == PG_SUITE_NVBENCH ? "skipped itself"
                                                       : "reported an error",
                           where, why);
            err = 1;
        } else if (err == 1) {
            pg_strvec_push(&skipped, both->v[i]);
            err = 0;
        } else if (err == 2) {
            pg_strvec_push(&threaded, both->v[i]);
            err = 0;
        } else if (err == 0) {
            pg_strvec_push(&kept, both->v[i]);
        }
        free(why);
        free(base_why);
        why = base_why = NULL;
    }
    if (err == 0 && (skipped.n || threaded.n)) {
        pg_str m = PG_STR_INIT;
        char *what = pg_strdupf(
            "skipped by the benchmark itself on both sides%s (%s), not %s",
            where, s->kind == PG_SUITE_NVBENCH ? "state.skip" : "SkipWithError",
            s->metric ? "counted" : "measured");
        if (out->message)
            pg_str_puts(&m, out->message);
        say_names(&m, what, &skipped);
        say_names(&m,
                  "run on several threads, whose loops one count cannot "
                  "tell apart, not counted",
                  &threaded);
        free(what);
        free(out->message);
        out->message = pg_str_detach(&m);
        pg_strvec_clear(both);
        *both = kept;
        memset(&kept, 0, sizeof(kept));
        if (!both->n) {
            out->status = PG_STATUS_SKIPPED;
            err = 1;
        }
    }
    pg_strvec_clear(&kept);
    pg_strvec_clear(&skipped);
    pg_strvec_clear(&threaded);
    return err;
}

/* Identical programs whose code cannot come from elsewhere (no library
 * searched in a path of their own): nothing can have changed. */
static int same_program(const suite_bench *sb)
{
    return !sb->c->aa && pg_elfcode_same(sb->bin[0], sb->bin[1]) == 1 &&
           pg_elf_has_runpath(sb->bin[0]) == 0 &&
           pg_elf_has_runpath(sb->bin[1]) == 0;
}

/*
 * Whether `sb`'s suite can be counted here: 0 yes; 1 when it must be
 * timed instead (said in *why, a new string); -1 when it cannot be
 * measured as asked (*why says why).
 */
static int can_count(const suite_bench *sb, int metric, char **why)
{
    char *valgrind;

    *why = NULL;
    if (sb->b->suite_kind == PG_SUITE_NVBENCH) {
        *why = pg_strdupf("timed, not counted: an nvbench program's "
                          "benchmarks run on the GPU, which callgrind does "
                          "not see (%s)",
                          pg_metric_name((pg_metric)metric));
        return 1;
    }
    valgrind = pg_path_search("valgrind");
    if (!valgrind) {
        *why = pg_strdupf("not counted: valgrind is not installed "
                          "(apt-get install valgrind) (%s)",
                          pg_metric_name((pg_metric)metric));
        return -1;
    }
    free(valgrind);
    /* A program that asks valgrind about itself could do less when
     * counted (RUNNING_ON_VALGRIND): the head's is timed instead. */
    if (pg_elfcode_asks_valgrind(sb->bin[1]) == 1) {
        *why = pg_strdupf(
            "timed, not counted: the head's %s asks valgrind about itself "
            "(a client request, as RUNNING_ON_VALGRIND or "
            "CALLGRIND_TOGGLE_COLLECT make), so it could act otherwise when "
            "callgrind counts it (%s)",
            sb->b->suite, pg_metric_name((pg_metric)metric));
        return 1;
    }
    return 0;
}

/*
 * Counts `metric` of `spec`'s benchmarks into `out`, which is judged at
 * the count floor; negative only when perfgate failed.
 */
static int count(suite_bench *sb, pg_bench_result *out, const pg_suite *s,
                 const pg_run_spec *spec, int metric)
{
    pg_bench_ctx *c = sb->c;
    int err;

    out->counter = pg_strdup(pg_counter_name(PG_COUNTER_CALLGRIND));
    pg_progress_sayf(c->progress, "counting %s",
                     pg_metric_name((pg_metric)metric));
    err = pg_suite_count(out, spec, s, metric);
    if (err == 0 && out->status == PG_STATUS_UNCHANGED && out->rounds > 0)
        pg_stats_decide(out, c->cfg->settings.count_floor);
    return err;
}

/* measure: all: the suite's benchmarks in `both` that callgrind can run
 * counted too (instructions) into out->counted, and a disagreement with
 * the time `timed` found said. */
static int count_too(suite_bench *sb, const pg_suite *s, const pg_strvec *both,
                     const pg_run_spec *timed)
{
    pg_bench_result *out = sb->out, *k;
    pg_suite counted = *s;
    pg_strvec names = PG_STRVEC_INIT;
    pg_run_spec spec = *timed;
    pg_casespec *cases;
    char *why;
    size_t i;
    int err;

    if (out->rounds <= 0 || out->status == PG_STATUS_NEW)
        return 0;
    k = pg_malloc(sizeof(*k));
    pg_bench_result_init(k, out->name, out->problem);
    k->gate_cases = out->gate_cases;
    out->counted = k;
    if (can_count(sb, PG_METRIC_INSTRUCTIONS, &why) != 0) {
        k->status = PG_STATUS_SKIPPED;
        k->message = why;
        return 0;
    }
    counted.metric = PG_METRIC_INSTRUCTIONS;
    pg_strvec_append(&names, both);
    if ((err = drop_skipped(sb, &counted, &names, k)) != 0) {
        pg_strvec_clear(&names);
        return err < 0 ? err : 0;
    }
    cases = pg_calloc(names.n + 1, sizeof(*cases));
    for (i = 0; i < names.n; i++)
        cases[i].name = names.v[i];
    spec.cases = cases;
    spec.ncases = names.n;
    if ((err = count(sb, k, &counted, &spec, PG_METRIC_INSTRUCTIONS)) == 0)
        pg_benchmark_say_disagreement(out, k, &sb->c->cfg->settings);
    free(cases);
    pg_strvec_clear(&names);
    return err;
}

/* The measurement of the benchmarks in `both`, and the verdict. */
static int measure(suite_bench *sb, const pg_suite *s, const pg_strvec *both)
{
    pg_bench_ctx *c = sb->c;
    const pg_bench_config *b = sb->b;
    pg_bench_result *out = sb->out;
    pg_casespec *cases = pg_calloc(both->n + 1, sizeof(*cases));
    pg_settings own_floor, own;
    pg_run_spec spec;
    char *note = out->message;
    size_t i;
    int err;

    for (i = 0; i < both->n; i++)
        cases[i].name = both->v[i];
    pg_run_spec_init(&spec);
    spec.cases = cases;
    spec.ncases = both->n;
    own = *pg_benchmark_settings(c, b, out, &own_floor);
    /* max_time is each of its benchmarks' budget, as it is a function's:
     * a suite of many is measured at the pace of one of few. */
    own.max_time *= (double)both->n;
    spec.settings = &own;
    spec.self_check = c->aa;
    spec.precision = c->precision;
    /* Each of a suite's benchmarks is its own question: a sum over
     * benchmarks of 50 ns and of 20 ms would hear only the longest. */
    spec.gate_cases = out->gate_cases = b->gate >= 0 ? b->gate : 1;
    pg_benchmark_rules(c, b, out);
    spec.clock = &pg_timer_current()->chosen;
    spec.on_progress = pg_benchmark_progress;
    spec.payload = c;
    out->message = NULL;
    if (sb->counting == 0) {
        err = count(sb, out, s, &spec, sb->metric);
    } else {
        pg_progress_sayf(c->progress, "measuring");
        err = pg_suite_measure(out, &spec, s);
        if (err == 0 && out->status == PG_STATUS_UNCHANGED && out->rounds > 0)
            pg_stats_decide(out, pg_benchmark_floor(c, out));
        if (err == 0 && sb->metric == PG_MEASURE_ALL)
            err = count_too(sb, s, both, &spec);
    }
    if (sb->why) { /* timed instead: said after what was seen */
        char *m =
            note ? pg_strdupf("%s; %s", note, sb->why) : pg_strdup(sb->why);
        free(note);
        note = m;
    }
    free(cases);
    /* What was not measured, after what happened; and what a suite
     * cannot do, when it was measured. */
    out->unchecked = out->rounds > 0;
    if (note || out->unchecked) {
        pg_str m = PG_STR_INIT;
        if (out->message)
            pg_str_puts(&m, out->message);
        if (note)
            pg_str_printf(&m, "%s%s", m.size ? "; " : "", note);
        if (out->unchecked)
            pg_str_printf(&m,
                          "%sno correctness check: a suite's benchmarks "
                          "have no reference to check the head against",
                          m.size ? "; " : "");
        free(out->message);
        out->message = pg_str_detach(&m);
    }
    free(note);
    return err;
}

/* Whether the suite is counted (s->metric set) or timed: 1 when it can
 * be neither (valgrind missing: skipped, `out` says why), else 0. */
static int choose_metric(suite_bench *sb, pg_suite *s)
{
    sb->metric = pg_benchmark_measure(sb->c, sb->b);
    sb->counting = 1;
    if (sb->metric != PG_METRIC_INSTRUCTIONS && sb->metric != PG_METRIC_CYCLES)
        return 0;
    sb->counting = can_count(sb, sb->metric, &sb->why);
    if (sb->counting < 0) {
        char *m = sb->out->message
                      ? pg_strdupf("%s; %s", sb->out->message, sb->why)
                      : pg_strdup(sb->why);
        sb->out->status = PG_STATUS_SKIPPED;
        free(sb->out->message);
        sb->out->message = m;
        return 1;
    }
    if (sb->counting == 0)
        s->metric = sb->metric;
    return 0;
}

/*
 * --profile, for a regression: its slowest benchmark run once per side
 * under callgrind, and what its timed loop ran, function by function
 * (profile.h), into out->profile.  Negative only when interrupted.
 */
static int profile_worst(suite_bench *sb, const pg_suite *s)
{
    pg_bench_result *out = sb->out;
    const char *lib[2] = {sb->bin[0], sb->bin[1]};
    const char *dirs[2] = {sb->c->rev[0].dir, sb->c->rev[1].dir};
    char *dumps[2], *why;
    pg_profile *p;
    size_t i, worst = 0;
    int err;

    if (!sb->c->profile || out->status != PG_STATUS_REGRESSION || !out->ncases)
        return 0;
    for (i = 1; i < out->ncases; i++)
        if (out->cases[i].change > out->cases[worst].change)
            worst = i;
    p = out->profile = pg_calloc(1, sizeof(*p));
    p->case_name = pg_strdup(out->cases[worst].name);
    if (s->kind == PG_SUITE_NVBENCH) {
        p->skipped = pg_strdup("an nvbench suite is not profiled: perfgate "
                               "profiles a suite under callgrind, which "
                               "does not see the GPU's kernels");
        return 0;
    }
    if (!pg_profile_callgrind_ready(p))
        return 0;
    pg_progress_sayf(sb->c->progress, "profiling %s", p->case_name);
    err = pg_suite_profile(dumps, &why, s, p->case_name,
                           sb->c->cfg->settings.timeout);
    if (err)
        p->skipped = why;
    else if (pg_profile_read(p, (const char *const *)dumps, lib, dirs) < 0)
        p->skipped = pg_strdup("callgrind's output could not be read");
    else {
        p->tool = pg_strdup("callgrind");
        p->unit = pg_strdup("instructions");
    }
    if (!err) {
        free(dumps[0]);
        free(dumps[1]);
    }
    return err < 0 ? err : 0;
}

int pg_bench_suite_run(pg_bench_ctx *c, size_t index, pg_bench_result *out)
{
    suite_bench sb;
    pg_suite s;
    pg_strvec both = PG_STRVEC_INIT;
    int64_t building = pg_now_ns();
    int err, side;

    memset(&sb, 0, sizeof(sb));
    sb.c = c;
    sb.b = &c->cfg->benchmarks[index];
    sb.out = out;
    /* Both sides' trees the same: nothing the build reads has changed. */
    if (!c->aa && c->rev[0].tree[0] &&
        !strcmp(c->rev[0].tree, c->rev[1].tree)) {
        pg_stats_same_code(out);
        out->not_affected = 1;
        return 0;
    }
    err = build_both(&sb);
    c->result->build_seconds += (double)(pg_now_ns() - building) / 1e9;
    if (err)
        goto done;
    memset(&s, 0, sizeof(s));
    s.kind = (pg_suite_kind)sb.b->suite_kind;
    sb.scratch = pg_strdupf("%s/%s.suite", c->build_dir, sb.b->name);
    if (pg_mkdir_p(sb.scratch) < 0) {
        err = -1;
        goto done;
    }
    for (side = 0; side < 2; side++) {
        s.bin[side] = sb.bin[side];
        s.dir[side] = c->rev[side].dir;
    }
    s.scratch = sb.scratch;
    /* The head is listed even when nothing can have changed, so that a
     * filter that keeps nothing is said on every run. */
    if ((err = list_side(&sb, &s, 1)) != 0 || pair_head(&sb))
        goto done;
    if (same_program(&sb)) {
        out->identical = 1;
        pg_stats_same_code(out);
        goto done;
    }
    if ((err = list_side(&sb, &s, 0)) != 0 || pair(&sb, &both))
        goto done;
    s.fixed = sb.fixed[0] && sb.fixed[1];
    if ((err = choose_metric(&sb, &s)) != 0 ||
        (err = drop_skipped(&sb, &s, &both, out)) != 0)
        goto done;
    if ((err = measure(&sb, &s, &both)) == 0)
        err = profile_worst(&sb, &s);
done:
    for (side = 0; side < 2; side++) {
        free(sb.bin[side]);
        pg_strvec_clear(&sb.names[side]);
    }
    if (sb.scratch)
        pg_rm_rf(sb.scratch);
    free(sb.scratch);
    pg_strvec_clear(&both);
    free(sb.why);
    return err < 0 ? err : 0;
}
