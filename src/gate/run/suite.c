/*
 * suite.c - a benchmark suite run as its harness runs it, measured
 * perfgate's way (suite.h).
 */
#include "suite.h"
#include "clock.h"
#include "counter.h"
#include "error.h"
#include "estimate.h"
#include "fs.h"
#include "gbench_count.h"
#include "measure.h"
#include "nvbench.h"
#include "proc.h"
#include "run.h"
#include "str.h"
#include "trace.h"
#include "units.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

#define OUTPUT_CAP 16384
#define LOG_LINES 20
/* The longest name a listing may hold, as Google Benchmark names go. */
#define MAX_NAME 4096
/* The most benchmarks one suite may list. */
#define MAX_BENCHMARKS 100000
/* A sample: long enough that the harness's clock reads and its loop's
 * start are lost in it, short beside the process around it. */
#define SAMPLE_NS 1e7
/* One sample's error: the harness's clock, read at either end of its
 * loop, and the loop's first turn. */
#define SAMPLE_ERROR_NS 1000
/* Each timed sample's process runs the benchmark this many times (the
 * harness's repetitions), and its least time is the sample's. */
#define SAMPLE_REPS 3
/* Counted, each process runs the benchmark this many times (the
 * harness's repetitions), and the last is kept: the first finds the
 * program's symbols unbound and its data untouched, as a first call does. */
#define COUNT_REPS 2
/* Counted, each side runs each benchmark in this many processes,
 * interleaved: a count that two processes of one program disagree on is
 * said by its interval. */
#define COUNT_ROUNDS 2
/* The most samples one nvbench process takes (pg_suite_measure). */
#define NVBENCH_MAX_SAMPLES 10000

static const char *const side_names[2] = {"base", "head"};

char *pg_suite_exact_filter(const char *name)
{
    pg_str s = PG_STR_INIT;

    pg_str_putc(&s, '^');
    for (; *name; name++) {
        if (strchr(".^$|()[]{}*+?\\", *name))
            pg_str_putc(&s, '\\');
        pg_str_putc(&s, *name);
    }
    pg_str_putc(&s, '$');
    return pg_str_detach(&s);
}

/* How side `side`'s binary is run: boxed, in its tree, writing only the
 * scratch directory. */
static void run_opts(pg_proc_opts *opts, pg_box *box, const pg_suite *s,
                     int side, double timeout)
{
    memset(opts, 0, sizeof(*opts));
    memset(box, 0, sizeof(*box));
    box->write[0] = s->scratch;
    box->show[0] = s->dir[side];
    box->show[1] = s->bin[side];
    opts->box = box;
    opts->cwd = s->dir[side];
    opts->output_cap = OUTPUT_CAP;
    opts->timeout = timeout;
    opts->memory_limit = pg_proc_memory_limit();
}

/* How a run of a side's binary ended, when not well: a new string. */
static char *describe_end(const pg_proc_result *res, double timeout)
{
    if (res->timed_out)
        return pg_strdupf("still running after %.0f s; stopped", timeout);
    if (res->not_run)
        return pg_strdupf("could not be started: %s", strerror(res->not_run));
    if (res->signal)
        return pg_strdupf("killed by %s", pg_signal_describe(res->signal));
    if (!res->exited || res->exit_code)
        return pg_strdupf("exited with status %d", res->exit_code);
    return NULL;
}

/* Runs side `side`'s binary with `args` (NULL-terminated), under `tool`
 * (NULL, or a program and its arguments that run it: valgrind, its
 * addresses then fixed); 0, or negative when perfgate was interrupted. */
static int run_under(pg_proc_result *res, const pg_suite *s, int side,
                     const pg_strvec *tool, const char *const *args,
                     double timeout)
{
    pg_strvec argv = PG_STRVEC_INIT;
    pg_proc_opts opts;
    pg_box box;
    int err;

    run_opts(&opts, &box, s, side, timeout);
    if (tool) {
        pg_strvec_append(&argv, tool);
        opts.no_aslr = 1;
    }
    pg_strvec_push(&argv, s->bin[side]);
    for (; *args; args++)
        pg_strvec_push(&argv, *args);
    memset(res, 0, sizeof(*res));
    err = pg_proc_run_argv(res, argv.v, &opts);
    pg_strvec_clear(&argv);
    return err;
}

static int run_side(pg_proc_result *res, const pg_suite *s, int side,
                    const char *const *args, double timeout)
{
    return run_under(res, s, side, NULL, args, timeout);
}

/* The lines of a listing as benchmark names: 0, or -1 when one cannot be
 * (blank, spaced, too long: not a Google Benchmark binary's listing). */
static int take_names(pg_strvec *names, const char *text)
{
    const char *line = text;

    while (*line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *name =
            pg_strdupf("%.*s", (int)(len < MAX_NAME ? len : MAX_NAME), line);
        int ok = len > 0 && len < MAX_NAME && !strpbrk(name, " \t\r");
        if (!ok || names->n >= MAX_BENCHMARKS) {
            free(name);
            return -1;
        }
        pg_strvec_push(names, name);
        free(name);
        if (!end)
            break;
        line = end + 1;
    }
    return 0;
}

/* A listing's failure *why (when set) followed by the last lines the
 * program printed. */
static void with_tail(char **why, const pg_proc_result *res)
{
    pg_str tail = PG_STR_INIT;
    char *m;

    if (!*why || !res->output.size)
        return;
    pg_str_put_tail_lines(&tail, pg_str_cstr(&res->output), 3);
    m = pg_strdupf("%s: %s", *why, pg_str_cstr(&tail));
    free(*why);
    *why = m;
    pg_str_clear(&tail);
}

/* One listing: `extra` (NULL or a flag) before the filter.  0 listed, 1
 * refused (*why), negative interrupted. */
static int list_once(pg_strvec *names, char **why, const pg_suite *s, int side,
                     const char *filter, const char *extra, double timeout)
{
    char *filter_arg =
        filter ? pg_strdupf("--benchmark_filter=%s", filter) : NULL;
    const char *args[4] = {"--benchmark_list_tests=true", NULL, NULL, NULL};
    pg_proc_result res;
    const char *text;
    size_t n = 1;
    int err;

    if (extra)
        args[n++] = extra;
    if (filter_arg)
        args[n++] = filter_arg;
    err = run_side(&res, s, side, args, timeout);
    free(filter_arg);
    if (err < 0) {
        pg_proc_result_clear(&res);
        return err;
    }
    text = pg_str_cstr(&res.output);
    if ((*why = describe_end(&res, timeout)) == NULL) {
        /* What Google Benchmark says when the filter keeps nothing. */
        if (!strncmp(text, "Failed to match any benchmarks", 30))
            text = "";
        if (take_names(names, text) < 0)
            *why = pg_strdupf(
                "it does not list its benchmarks as a Google Benchmark "
                "binary does (--benchmark_list_tests printed \"%.60s\")",
                text);
    }
    with_tail(why, &res);
    pg_proc_result_clear(&res);
    return *why ? 1 : 0;
}

/* An nvbench program's listing (--list), its cases `filter` matches. */
static int list_nvbench(pg_strvec *names, char **why, const pg_suite *s,
                        int side, const char *filter, double timeout)
{
    const char *args[] = {"--list", NULL};
    pg_proc_result res;
    int err = run_side(&res, s, side, args, timeout);

    if (err < 0) {
        pg_proc_result_clear(&res);
        return err;
    }
    if ((*why = describe_end(&res, timeout)) == NULL &&
        pg_nvbench_take_list(names, pg_str_cstr(&res.output)) < 0)
        *why = pg_strdupf("it does not list its benchmarks as an nvbench "
                          "program does (--list printed \"%.60s\")",
                          pg_str_cstr(&res.output));
    with_tail(why, &res);
    pg_proc_result_clear(&res);
    if (!*why && filter)
        return pg_nvbench_keep(names, why, filter);
    return *why ? 1 : 0;
}

int pg_suite_list(pg_strvec *names, int *fixed, char **why, const pg_suite *s,
                  int side, const char *filter, double timeout)
{
    int err;

    *why = NULL;
    *fixed = 0;
    if (!pg_path_is_file(s->bin[side]) || access(s->bin[side], X_OK) < 0) {
        *why = pg_strdupf("the build made no program %s",
                          pg_path_basename(s->bin[side]));
        return 1;
    }
    if (s->kind == PG_SUITE_NVBENCH) {
        /* It always takes a count of samples. */
        *fixed = 1;
        return list_nvbench(names, why, s, side, filter, timeout);
    }
    /* A count of iterations is taken since Google Benchmark 1.8; an
     * older one refuses the flag, and is listed without it. */
    err = list_once(names, why, s, side, filter, "--benchmark_min_time=1x",
                    timeout);
    if (err == 1) {
        free(*why);
        *why = NULL;
        pg_strvec_clear(names);
        return list_once(names, why, s, side, filter, NULL, timeout);
    }
    *fixed = err == 0;
    return err;
}

/* The arguments of one run of a benchmark (`filter`, its exact regex),
 * its JSON to `json`: `n` iterations where the harness takes a count
 * (`fixed`), else `seconds` of them; `n` 0: a counted run, COUNT_REPS
 * repetitions of as few iterations as the harness will run. */
static void run_args(pg_strvec *args, const char *filter, const char *json,
                     int fixed, uint64_t n, double seconds)
{
    pg_strvec_pushf(args, "--benchmark_filter=%s", filter);
    pg_strvec_pushf(args, "--benchmark_out=%s", json);
    pg_strvec_push(args, "--benchmark_out_format=json");
    pg_strvec_pushf(args, "--benchmark_repetitions=%d",
                    n ? SAMPLE_REPS : COUNT_REPS);
    if (fixed)
        pg_strvec_pushf(args, "--benchmark_min_time=%llux",
                        (unsigned long long)(n ? n : 1));
    else
        pg_strvec_pushf(args, "--benchmark_min_time=%.9f", seconds);
}

/* The arguments of one run of benchmark `name` (`filter`, its exact
 * regex) as run_args() has them, or, for an nvbench program, `n` samples
 * (at least one). */
static void sample_args(pg_strvec *args, const pg_suite *s, const char *name,
                        const char *filter, const char *json, uint64_t n,
                        double seconds)
{
    if (s->kind == PG_SUITE_NVBENCH)
        pg_nvbench_args(args, name, n ? n : 1, json);
    else
        run_args(args, filter, json, s->fixed, n, seconds);
}

/* Case `c`'s entry of a side's JSON output: its iteration's run (not an
 * aggregate) of that name, or NULL. */
static cJSON *entry_of(cJSON *root, const char *name);

int pg_suite_probe(char **error, const pg_suite *s, int side, const char *name,
                   double timeout)
{
    pg_strvec args = PG_STRVEC_INIT;
    pg_proc_result res;
    char *filter = pg_suite_exact_filter(name), *json, *text = NULL;
    size_t len;
    cJSON *root = NULL, *e = NULL, *m, *threads;
    int err;

    *error = NULL;
    json = pg_strdupf("%s/probe%d.json", s->scratch, side);
    sample_args(&args, s, name, filter, json, 1, 0);
    unlink(json);
    if (s->metric) {
        /* Under callgrind, whose simulated CPU may lack what the
         * machine has (AVX-512): what a counted run will find. */
        char *dump = pg_strdupf("%s/probe%d.callgrind", s->scratch, side);
        pg_strvec tool = PG_STRVEC_INIT;
        double left;
        pg_gbench_count_tool(&tool, (pg_metric)s->metric, dump);
        err = run_under(&res, s, side, &tool, (const char *const *)args.v,
                        timeout + 30);
        pg_gbench_loop_count(&left, dump, (pg_metric)s->metric, NULL);
        pg_strvec_clear(&tool);
        free(dump);
    } else {
        err = run_side(&res, s, side, (const char *const *)args.v, timeout + 5);
    }
    if (err == 0 && res.exited && !res.exit_code &&
        s->kind == PG_SUITE_NVBENCH) {
        *error = pg_nvbench_skipped(json, name);
    } else if (err == 0 && res.exited && !res.exit_code &&
               pg_read_regular_file(&text, &len, json, PG_SUITE_MAX_OUTPUT) ==
                   0 &&
               (root = cJSON_ParseWithLength(text, len)) &&
               (e = entry_of(root, name)) &&
               cJSON_IsTrue(
                   cJSON_GetObjectItemCaseSensitive(e, "error_occurred"))) {
        m = cJSON_GetObjectItemCaseSensitive(e, "error_message");
        *error = pg_strdup(cJSON_IsString(m) ? m->valuestring : "(no message)");
    } else if (e && s->metric &&
               cJSON_IsNumber(
                   threads = cJSON_GetObjectItemCaseSensitive(e, "threads")) &&
               threads->valuedouble > 1) {
        /* Each thread runs the loop, and callgrind's dumps are the
         * process's: one count cannot tell them apart. */
        *error = pg_strdupf("runs on %.0f threads", threads->valuedouble);
        err = 2;
    }
    if (err >= 0)
        pg_error_clear(); /* no output to read is the measurement's to say */
    cJSON_Delete(root);
    free(text);
    unlink(json);
    free(json);
    free(filter);
    pg_proc_result_clear(&res);
    pg_strvec_clear(&args);
    return err < 0 || err == 2 ? err : *error != NULL;
}

/* One measurement's state, for the pg_remote. */
typedef struct suite_run {
    const pg_suite *s;
    const pg_run_spec *spec;
    pg_bench_result *out;
    char **filters;   /* per case: its name as a regex */
    double *per_iter; /* per case: the latest time per iteration, ns */
    double *bytes;    /* per case: bytes per iteration, from the base */
    double *items;    /* per case: items per iteration, from the base */
    char *json[2];    /* where each side writes its output */
    int err;          /* perfgate's own failure */
    int64_t last_progress;
} suite_run;

/* A measurement's state for `spec`'s cases, those cases added to `out`. */
static void run_init(suite_run *r, pg_bench_result *out,
                     const pg_run_spec *spec, const pg_suite *s)
{
    size_t n = spec->ncases, c;
    int side;

    memset(r, 0, sizeof(*r));
    r->s = s;
    r->spec = spec;
    r->out = out;
    r->filters = pg_calloc(n + 1, sizeof(char *));
    r->per_iter = pg_calloc(n + 1, sizeof(double));
    r->bytes = pg_calloc(n + 1, sizeof(double));
    r->items = pg_calloc(n + 1, sizeof(double));
    for (c = 0; c < n; c++) {
        r->filters[c] = pg_suite_exact_filter(spec->cases[c].name);
        r->per_iter[c] = INFINITY;
    }
    for (side = 0; side < 2; side++)
        r->json[side] = pg_strdupf("%s/%s.json", s->scratch, side_names[side]);
    pg_run_add_cases(out, spec);
}

/* The base's bytes and items per iteration, onto each case. */
static void run_rates(const suite_run *r)
{
    size_t c;

    for (c = 0; c < r->spec->ncases; c++) {
        r->out->cases[c].bytes = r->bytes[c];
        r->out->cases[c].items = r->items[c];
    }
}

static void run_clear(suite_run *r)
{
    size_t c;
    int side;

    for (c = 0; c < r->spec->ncases; c++)
        free(r->filters[c]);
    for (side = 0; side < 2; side++)
        free(r->json[side]);
    free(r->filters);
    free(r->per_iter);
    free(r->bytes);
    free(r->items);
}

/* The benchmark's failure, charged to `side`. */
static void fail(suite_run *r, int side, pg_status status,
                 const pg_proc_result *res, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void fail(suite_run *r, int side, pg_status status,
                 const pg_proc_result *res, const char *fmt, ...)
{
    pg_str msg = PG_STR_INIT;
    va_list ap;

    pg_str_printf(&msg, "%s side: ", side_names[side]);
    va_start(ap, fmt);
    pg_str_vprintf(&msg, fmt, ap);
    va_end(ap);
    r->out->status = status;
    r->out->side = (pg_side)side;
    free(r->out->message);
    r->out->message = pg_str_detach(&msg);
    if (res && res->output.size) {
        pg_str tail = PG_STR_INIT;
        pg_str_put_tail_lines(&tail, pg_str_cstr(&res->output), LOG_LINES);
        free(r->out->log);
        r->out->log = pg_str_detach(&tail);
    }
}

/* A time in Google Benchmark's unit, in ns; NAN when the unit is not
 * one it writes. */
static double in_ns(double t, const char *unit)
{
    if (!unit || !strcmp(unit, "ns"))
        return t;
    if (!strcmp(unit, "us"))
        return t * 1e3;
    if (!strcmp(unit, "ms"))
        return t * 1e6;
    if (!strcmp(unit, "s"))
        return t * 1e9;
    return NAN;
}

/* Case `c`'s entry of a side's JSON output: its iteration's run (not an
 * aggregate) of that name, or NULL. */
static cJSON *entry_of(cJSON *root, const char *name)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "benchmarks"), *e;

    cJSON_ArrayForEach(e, list)
    {
        cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "name");
        cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "run_type");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name) &&
            !(cJSON_IsString(type) && strcmp(type->valuestring, "iteration")))
            return e;
    }
    return NULL;
}

/* A rate of entry `e` (bytes or items per second) as an amount per
 * iteration of `ns`; 0 when it has none. */
static double per_iteration(cJSON *e, const char *key, double ns)
{
    cJSON *rate = cJSON_GetObjectItemCaseSensitive(e, key);

    if (!cJSON_IsNumber(rate) || !(rate->valuedouble > 0) || !(ns > 0))
        return 0;
    return rate->valuedouble * ns / 1e9;
}

/* The iterations of the last run of `name` in `root` (its last
 * repetition); 0 when it gives none. */
static double last_iterations(cJSON *root, const char *name)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "benchmarks"), *e;
    double n = 0;

    cJSON_ArrayForEach(e, list)
    {
        cJSON *en = cJSON_GetObjectItemCaseSensitive(e, "name");
        cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "run_type");
        cJSON *it = cJSON_GetObjectItemCaseSensitive(e, "iterations");
        if (cJSON_IsString(en) && !strcmp(en->valuestring, name) &&
            !(cJSON_IsString(type) && strcmp(type->valuestring, "iteration")))
            n = cJSON_IsNumber(it) && it->valuedouble >= 1 ? it->valuedouble
                                                           : 0;
    }
    return n;
}

/* Of `name`'s runs in `root` (one a repetition), the one of least time
 * (*ns, per iteration), as the minimum over a process's rounds is; NULL
 * with the failure set when one reported an error; *ns NAN when a run
 * gives no time. */
static cJSON *least_run(suite_run *r, int side, const pg_proc_result *res,
                        cJSON *root, const char *name, double *ns)
{
    cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
    cJSON *each, *least = NULL;

    *ns = NAN;
    cJSON_ArrayForEach(each, list)
    {
        cJSON *en = cJSON_GetObjectItemCaseSensitive(each, "name");
        cJSON *type = cJSON_GetObjectItemCaseSensitive(each, "run_type");
        cJSON *t = cJSON_GetObjectItemCaseSensitive(each, "real_time");
        cJSON *unit = cJSON_GetObjectItemCaseSensitive(each, "time_unit");
        double one = NAN;
        if (!cJSON_IsString(en) || strcmp(en->valuestring, name) ||
            (cJSON_IsString(type) && strcmp(type->valuestring, "iteration")))
            continue;
        if (cJSON_IsTrue(
                cJSON_GetObjectItemCaseSensitive(each, "error_occurred"))) {
            cJSON *m = cJSON_GetObjectItemCaseSensitive(each, "error_message");
            fail(r, side, PG_STATUS_INCORRECT, res, "%s reported an error: %s",
                 name, cJSON_IsString(m) ? m->valuestring : "(no message)");
            *ns = NAN;
            return NULL;
        }
        if (cJSON_IsNumber(t))
            one = in_ns(t->valuedouble,
                        cJSON_IsString(unit) ? unit->valuestring : NULL);
        if (!(one >= 0) || !isfinite(one)) {
            *ns = NAN;
            return each;
        }
        if (!least || one < *ns) {
            *ns = one;
            least = each;
        }
    }
    return least;
}

/* read_output() of an nvbench program: the mean time of a sample. */
static double read_nvbench(suite_run *r, int side, size_t c,
                           const pg_proc_result *res, const char *text,
                           size_t len)
{
    const char *name = r->spec->cases[c].name;
    char *bench = pg_nvbench_bench_name(name);
    pg_nvbench_state st;
    double ns = NAN;

    if (pg_nvbench_read(&st, text, len, bench) < 0) {
        fail(r, side, PG_STATUS_CRASHED, res, "%s: %s", name, st.error);
    } else if (st.skipped) {
        /* The probe found it run on both sides: skipped now is the
         * side's doing. */
        fail(r, side, PG_STATUS_INCORRECT, res, "%s skipped itself: %s", name,
             st.skipped);
    } else {
        ns = st.ns;
        if (side == 0) {
            r->bytes[c] = st.bytes;
            r->items[c] = st.items;
        }
    }
    pg_nvbench_state_clear(&st);
    free(bench);
    return ns;
}

/* The time per iteration side `side`'s output gives case `c`, and, when
 * `iters` is not NULL, the iterations of its last repetition; NAN, with
 * the failure set, when it gives none. */
static double read_output(suite_run *r, int side, size_t c,
                          const pg_proc_result *res, double *iters)
{
    const char *name = r->spec->cases[c].name;
    char *text = NULL;
    size_t len;
    cJSON *root = NULL, *e, *unit, *cpu;
    const char *unit_name;
    double ns = NAN;

    if (pg_read_regular_file(&text, &len, r->json[side], PG_SUITE_MAX_OUTPUT) <
        0) {
        pg_error_clear();
        fail(r, side, PG_STATUS_CRASHED, res,
             "%s wrote no JSON output (over %zu MiB, or none: is %s %s "
             "program?)",
             name, PG_SUITE_MAX_OUTPUT >> 20, pg_path_basename(r->s->bin[side]),
             r->s->kind == PG_SUITE_NVBENCH ? "an nvbench"
                                            : "a Google Benchmark");
        return NAN;
    }
    if (r->s->kind == PG_SUITE_NVBENCH) {
        ns = read_nvbench(r, side, c, res, text, len);
        free(text);
        return ns;
    }
    if (!(root = cJSON_ParseWithLength(text, len)) ||
        !(e = entry_of(root, name))) {
        fail(r, side, PG_STATUS_CRASHED, res, "%s: its output %s", name,
             root ? "names no such benchmark" : "is not JSON");
        goto done;
    }
    if (!(e = least_run(r, side, res, root, name, &ns)))
        goto done;
    unit = cJSON_GetObjectItemCaseSensitive(e, "time_unit");
    unit_name = cJSON_IsString(unit) ? unit->valuestring : NULL;
    if (!(ns >= 0) || !isfinite(ns)) {
        fail(r, side, PG_STATUS_CRASHED, res,
             "%s: its output gives no time per iteration", name);
        ns = NAN;
        goto done;
    }
    /* A rate is over the iterations' CPU time (unless the benchmark
     * asked for real time, when the two are alike anyway). */
    cpu = cJSON_GetObjectItemCaseSensitive(e, "cpu_time");
    if (side == 0) {
        double per =
            cJSON_IsNumber(cpu) ? in_ns(cpu->valuedouble, unit_name) : ns;
        r->bytes[c] = per_iteration(e, "bytes_per_second", per);
        r->items[c] = per_iteration(e, "items_per_second", per);
    }
    if (iters && !(*iters = last_iterations(root, name))) {
        fail(r, side, PG_STATUS_CRASHED, res,
             "%s: its output gives no count of iterations", name);
        ns = NAN;
    }
done:
    cJSON_Delete(root);
    free(text);
    return ns;
}

/* Under -v: one sample. */
static void trace_sample(const suite_run *r, int side, size_t c, uint64_t n,
                         double ns)
{
    pg_str s = PG_STR_INIT;

    pg_format_ns(&s, ns);
    pg_trace("suite: %s %s, %llu iteration%s: %s an iteration",
             side_names[side], r->spec->cases[c].name, (unsigned long long)n,
             n == 1 ? "" : "s", pg_str_cstr(&s));
    pg_str_clear(&s);
}

/* pg_remote's time(): `n` iterations of case `c` in a process of side
 * `k`'s binary.  The harness has no stand-in to time: nothing is
 * discounted (its loop's cost is in both sides' figures alike). */
static double remote_time(void *ctx, size_t c, int k, uint64_t n, size_t slot,
                          int warm)
{
    suite_run *r = ctx;
    const pg_settings *st = r->spec->settings;
    pg_strvec args = PG_STRVEC_INIT;
    pg_proc_result res;
    double ns, timeout;
    char *why;

    (void)slot;
    (void)warm;
    if (k < 0)
        return 0;
    /* Without a count, its own loop grows the iterations until they take
     * this long: about the same work on both sides. */
    sample_args(&args, r->s, r->spec->cases[c].name, r->filters[c], r->json[k],
                n, n > 1 ? (double)n * r->per_iter[c] / 1e9 : 0.0);
    unlink(r->json[k]);
    /* Each repetition's calls within the timeout, and a few seconds to
     * start. */
    timeout = st->timeout * SAMPLE_REPS + 5;
    if ((r->err = run_side(&res, r->s, k, (const char *const *)args.v,
                           timeout)) < 0) {
        ns = NAN;
    } else if ((why = describe_end(&res, timeout)) != NULL) {
        fail(r, k, res.timed_out ? PG_STATUS_TIMEOUT : PG_STATUS_CRASHED, &res,
             "%s %s", r->spec->cases[c].name, why);
        free(why);
        ns = NAN;
    } else if (isfinite(ns = read_output(r, k, c, &res, NULL))) {
        if (ns < r->per_iter[c] || !isfinite(r->per_iter[c]))
            r->per_iter[c] = ns;
        if (pg_tracing())
            trace_sample(r, k, c, n, ns);
        ns *= (double)n;
    }
    pg_proc_result_clear(&res);
    pg_strvec_clear(&args);
    return ns;
}

static void on_round(void *payload, int round, double elapsed)
{
    suite_run *r = payload;
    int64_t now = pg_now_ns();

    if (!r->spec->on_progress || now - r->last_progress < 100000000)
        return;
    r->last_progress = now;
    r->spec->on_progress(r->spec->payload, "measuring", round, elapsed);
}

int pg_suite_measure(pg_bench_result *out, const pg_run_spec *spec,
                     const pg_suite *s)
{
    size_t n = spec->ncases;
    pg_target(*targets)[2] = pg_calloc(n + 1, sizeof(*targets));
    pg_timing *timing = pg_calloc(n + 1, sizeof(*timing));
    pg_measure_summary sum;
    pg_measure_opts opts;
    pg_remote remote;
    double *samples = NULL;
    suite_run r;

    run_init(&r, out, spec, s);
    memset(&remote, 0, sizeof(remote));
    remote.time = remote_time;
    remote.ctx = &r;
    remote.error_ns = SAMPLE_ERROR_NS;
    /* nvbench's stopping rule recomputes its noise over every sample at
     * each one (quadratic in the samples): a process takes at most this
     * many, the rest of a short kernel's 10 ms left to the rounds. */
    remote.max_inner =
        s->kind == PG_SUITE_NVBENCH ? NVBENCH_MAX_SAMPLES : 1000000000;
    remote.fresh = 1;
    pg_measure_opts_init(&opts, spec->settings->min_rounds,
                         spec->settings->max_time, spec->settings->noise_floor);
    pg_run_spec_rule(spec, &opts.rule);
    opts.sample_ns = SAMPLE_NS;
    opts.jitter = 0; /* nothing is discounted */
    opts.remote = &remote;
    opts.on_round = on_round;
    opts.payload = &r;
    opts.keep_samples = &samples;
    if (pg_measure(timing, &sum, targets, n, 2, &opts) == 0) {
        pg_run_fill(out, timing, &sum, samples, n);
        run_rates(&r);
    }
    run_clear(&r);
    free(samples);
    free(timing);
    free(targets);
    return r.err < 0 ? r.err : 0;
}

/* The count per iteration of case `c` in one process of side `side`
 * under callgrind; NAN, the failure set, when there is none. */
static double count_once(suite_run *r, int side, size_t c, pg_metric metric)
{
    pg_strvec tool = PG_STRVEC_INIT, args = PG_STRVEC_INIT;
    char *dump = pg_strdupf("%s/%s.callgrind", r->s->scratch, side_names[side]);
    /* Its timeout, and valgrind's start, slow beside a native one. */
    double timeout = r->spec->settings->timeout + 30, v = NAN, iters = 0;
    double left;
    pg_proc_result res;
    char *why;
    int err;

    pg_gbench_count_tool(&tool, metric, dump);
    run_args(&args, r->filters[c], r->json[side], r->s->fixed, 0, 0);
    unlink(r->json[side]);
    memset(&res, 0, sizeof(res));
    if ((r->err = run_under(&res, r->s, side, &tool,
                            (const char *const *)args.v, timeout)) < 0)
        goto done;
    if ((why = describe_end(&res, timeout)) != NULL) {
        fail(r, side, res.timed_out ? PG_STATUS_TIMEOUT : PG_STATUS_CRASHED,
             &res, "%s under callgrind %s", r->spec->cases[c].name, why);
        free(why);
        goto done;
    }
    if (!isfinite(read_output(r, side, c, &res, &iters)))
        goto done;
    err = pg_gbench_loop_count(&v, dump, metric, NULL);
    if (err) {
        fail(r, side, PG_STATUS_CRASHED, &res,
             err < 0 ? "%s: callgrind's count could not be read"
                     : "%s: callgrind saw no timed loop of Google Benchmark's "
                       "(State::StartKeepRunning to FinishKeepRunning): is "
                       "its library stripped of its symbols?",
             r->spec->cases[c].name);
        v = NAN;
        goto done;
    }
    v /= iters;
    pg_trace("suite: %s %s counted: %.1f %s an iteration", side_names[side],
             r->spec->cases[c].name, v, pg_metric_unit(metric));
done:
    pg_gbench_loop_count(&left, dump, metric,
                         NULL); /* what a failed run left */
    free(dump);
    pg_proc_result_clear(&res);
    pg_strvec_clear(&tool);
    pg_strvec_clear(&args);
    return v;
}

/* A change, and its widest and narrowest over rounds, into lo and hi. */
static void widen(double *lo, double *hi, double base, double head)
{
    double ch = base > 0 ? head / base - 1 : head > 0 ? INFINITY : 0;

    if (isnan(*lo) || ch < *lo)
        *lo = ch;
    if (isnan(*hi) || ch > *hi)
        *hi = ch;
}

int pg_suite_count(pg_bench_result *out, const pg_run_spec *spec,
                   const pg_suite *s, int metric)
{
    size_t n = spec->ncases, c;
    double(*v)[COUNT_ROUNDS][2] = pg_calloc(n + 1, sizeof(*v));
    double sums[COUNT_ROUNDS][2];
    int64_t start = pg_now_ns();
    suite_run r;
    int round, k;

    run_init(&r, out, spec, s);
    memset(sums, 0, sizeof(sums));
    out->metric = metric;
    for (c = 0; c < n; c++) {
        pg_result_case *cr = &out->cases[c];
        cr->change_lo = cr->change_hi = NAN;
        for (round = 0; round < COUNT_ROUNDS; round++) {
            /* Base then head, then head then base. */
            for (k = 0; k < 2; k++) {
                int side = round % 2 ? 1 - k : k;
                v[c][round][side] = count_once(&r, side, c, (pg_metric)metric);
                if (r.err < 0 || isnan(v[c][round][side]))
                    goto done;
                sums[round][side] += v[c][round][side];
            }
            widen(&cr->change_lo, &cr->change_hi, v[c][round][0],
                  v[c][round][1]);
            cr->base_ns =
                round ? fmin(cr->base_ns, v[c][round][0]) : v[c][round][0];
            cr->head_ns =
                round ? fmin(cr->head_ns, v[c][round][1]) : v[c][round][1];
            if (spec->on_progress)
                spec->on_progress(spec->payload, "counting",
                                  (int)(c * COUNT_ROUNDS) + round + 1,
                                  (double)(pg_now_ns() - start) / 1e9);
        }
        cr->inner = 1;
    }
    out->change_lo = out->change_hi = NAN;
    for (round = 0; round < COUNT_ROUNDS; round++)
        widen(&out->change_lo, &out->change_hi, sums[round][0], sums[round][1]);
    out->rounds = COUNT_ROUNDS;
    out->processes = COUNT_ROUNDS * 2 * (int)n;
    out->calls[0] = out->calls[1] = (uint64_t)(COUNT_ROUNDS * n);
    out->seconds = (double)(pg_now_ns() - start) / 1e9;
    free(out->stop);
    out->stop = pg_strdup(pg_estimate_stop_name(PG_STOP_CLEAR));
    run_rates(&r);
done:
    run_clear(&r);
    free(v);
    return r.err < 0 ? r.err : 0;
}

/* One side's profile run of `filter` into `keep`: 0, 1 with *why, or
 * negative when interrupted. */
static int profile_side(char **why, const pg_suite *s, int side,
                        const char *name, const char *keep, double timeout)
{
    pg_strvec tool = PG_STRVEC_INIT, args = PG_STRVEC_INIT;
    char *filter = pg_suite_exact_filter(name);
    char *dump =
        pg_strdupf("%s/profile-%s.callgrind", s->scratch, side_names[side]);
    char *json = pg_strdupf("%s/profile-%s.json", s->scratch, side_names[side]);
    pg_proc_result res;
    double total;
    char *end;
    int err;

    pg_gbench_profile_tool(&tool, dump);
    run_args(&args, filter, json, s->fixed, 0, 0);
    memset(&res, 0, sizeof(res));
    err = run_under(&res, s, side, &tool, (const char *const *)args.v,
                    timeout + 30);
    if (err == 0 && (end = describe_end(&res, timeout + 30)) != NULL) {
        *why = pg_strdupf("the %s side's %s did not run under callgrind: %s",
                          side_names[side], name, end);
        free(end);
        err = 1;
    }
    if (pg_gbench_loop_count(&total, dump, PG_METRIC_INSTRUCTIONS,
                             err ? NULL : keep) != 0 &&
        err == 0) {
        *why = pg_strdupf("the %s side's %s left callgrind no timed loop to "
                          "read",
                          side_names[side], name);
        err = 1;
    }
    unlink(json);
    free(json);
    free(dump);
    free(filter);
    pg_proc_result_clear(&res);
    pg_strvec_clear(&tool);
    pg_strvec_clear(&args);
    return err;
}

int pg_suite_profile(char *out[2], char **why, const pg_suite *s,
                     const char *name, double timeout)
{
    int side, err = 0;

    *why = NULL;
    out[0] = out[1] = NULL;
    for (side = 1; side >= 0 && err == 0; side--) {
        out[side] =
            pg_strdupf("%s/profile-%s.out", s->scratch, side_names[side]);
        err = profile_side(why, s, side, name, out[side], timeout);
    }
    if (err) {
        free(out[0]);
        free(out[1]);
        out[0] = out[1] = NULL;
    }
    return err;
}
