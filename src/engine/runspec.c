/*
 * runspec.c - the run spec file between perfgate and perfgate-measure.
 */
#include "runspec.h"
#include "counter.h"
#include "error.h"
#include "fs.h"
#include "str.h"
#include "units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define SPEC_MAX (1024 * 1024)

void pg_run_spec_init(pg_run_spec *spec)
{
    memset(spec, 0, sizeof(*spec));
    spec->cpu = -1;
}

void pg_run_spec_rule(const pg_run_spec *spec, pg_estimate_rule *out)
{
    const pg_settings *st = spec->settings;

    pg_estimate_rule_init(out, st->min_rounds, st->max_time, st->noise_floor);
    if (spec->min_time > 0)
        out->min_time = spec->min_time;
    out->gate_cases = spec->gate_cases;
    out->self_check = spec->self_check;
    out->precision = spec->precision * st->noise_floor;
}

void pg_run_spec_native(pg_run_spec *spec)
{
    spec->metric = 0;
    spec->counter = 0;
    spec->count_dump = NULL;
    spec->code_path = 0;
    spec->sample = NULL;
    spec->memory = 0;
    spec->on_progress = NULL;
}

int pg_run_spec_write(const pg_run_spec *spec, const char *path)
{
    pg_str s = PG_STR_INIT;
    const pg_settings *st = spec->settings;
    size_t i;
    int k, err;

    pg_str_puts(&s, "perfgate-measure 1\n");
    pg_str_printf(&s, "problem_lib %s\nproblem_name %s\n", spec->problem_lib,
                  spec->problem_name);
    for (k = 0; k < 2; k++)
        if (spec->lib[k])
            pg_str_printf(&s, "lib%d %s\n", k, spec->lib[k]);
    pg_str_printf(&s, "symbol %s\n", spec->symbol);
    pg_str_printf(&s, "settings %d %.17g %.17g %.17g\n", st->min_rounds,
                  st->max_time, st->noise_floor, st->timeout);
    pg_str_printf(&s, "cpu %d\nevict_bytes %zu\ngpu %d\ncold %d\n", spec->cpu,
                  spec->evict_bytes, spec->gpu, spec->cold);
    pg_str_printf(
        &s, "verify_only %d\nskip_checks %d\ngate_cases %d\nverbose %d\n",
        spec->verify_only, spec->skip_checks, spec->gate_cases, spec->verbose);
    if (spec->min_time > 0)
        pg_str_printf(&s, "min_time %.17g\n", spec->min_time);
    if (spec->self_check)
        pg_str_puts(&s, "self_check 1\n");
    if (spec->precision > 0)
        pg_str_printf(&s, "precision %.17g\n", spec->precision);
    if (spec->clock)
        pg_str_printf(&s, "clock %d %.17g %.17g %.17g\n", (int)spec->clock->id,
                      spec->clock->ticks_per_ns, spec->clock->overhead_ns,
                      spec->clock->resolution_ns);
    if (spec->metric)
        pg_str_printf(&s, "count %s %s %s\n", pg_metric_name(spec->metric),
                      pg_counter_name(spec->counter),
                      spec->count_dump ? spec->count_dump : "-");
    if (spec->code_path)
        pg_str_puts(&s, "code_path 1\n");
    if (spec->sample)
        pg_str_printf(&s, "sample %s\n", spec->sample);
    if (spec->memory > 0)
        pg_str_printf(&s, "memory %d\n", spec->memory);
    for (i = 0; i < spec->ncases; i++)
        pg_str_printf(&s, "case %s\n", spec->cases[i].name);
    if (spec->token)
        pg_str_printf(&s, "token %s\n", spec->token);
    err = pg_write_file(path, s.ptr, s.size, 0);
    pg_str_clear(&s);
    if (err < 0)
        return pg_error_set(PG_ERR_GENERIC, "cannot write %s", path);
    return 0;
}

/* The strings of the spec, one per line, each the rest of its line (a
 * path may have spaces); count_dump is on the "count" line. */
static const char *const string_keys[8] = {
    "problem_lib", "problem_name", "lib0", "lib1",
    "symbol",      "token",        NULL,   "sample"};

/* "clock ID TICKS_PER_NS OVERHEAD RESOLUTION": the clock perfgate chose. */
static int clock_line(pg_run_file *f, const char *value)
{
    int id;

    if (sscanf(value, "%d %lf %lf %lf", &id, &f->clock.ticks_per_ns,
               &f->clock.overhead_ns, &f->clock.resolution_ns) != 4 ||
        id < 0 || id >= PG_CLOCK_COUNT || !(f->clock.ticks_per_ns > 0))
        return -1;
    f->clock.id = (pg_clock_id)id;
    f->clock.usable = 1;
    f->spec.clock = &f->clock;
    return 0;
}

/* "count METRIC COUNTER DUMP": what is counted instead of timed; the
 * dump's path is the rest of the line (it may have spaces), "-" none. */
static int count_line(pg_run_file *f, const char *value)
{
    char m[32], k[32];
    int metric, counter, at = 0;

    if (sscanf(value, "%31s %31s %n", m, k, &at) != 2 || !at || !value[at] ||
        (metric = pg_metric_parse(m)) <= 0 ||
        (counter = pg_counter_parse(k)) <= 0)
        return -1;
    f->spec.metric = metric;
    f->spec.counter = counter;
    free(f->strings[6]);
    f->strings[6] = strcmp(value + at, "-") ? pg_strdup(value + at) : NULL;
    return 0;
}

/* A line whose value is a number, `n`, into `spec`; -1 when its key is
 * not one we know or `n` is out of its range. */
static int number_line(pg_run_spec *spec, const char *key, long long n)
{
    if (!strcmp(key, "cpu"))
        spec->cpu = (int)n;
    else if (!strcmp(key, "evict_bytes") && n >= 0)
        spec->evict_bytes = (size_t)n;
    else if (!strcmp(key, "gpu"))
        spec->gpu = n != 0;
    else if (!strcmp(key, "cold"))
        spec->cold = n != 0;
    else if (!strcmp(key, "verify_only"))
        spec->verify_only = n != 0;
    else if (!strcmp(key, "self_check"))
        spec->self_check = n != 0;
    else if (!strcmp(key, "skip_checks") && n >= 0 && n <= 3)
        spec->skip_checks = (int)n;
    else if (!strcmp(key, "gate_cases"))
        spec->gate_cases = n != 0;
    else if (!strcmp(key, "verbose"))
        spec->verbose = n != 0;
    else if (!strcmp(key, "code_path"))
        spec->code_path = n != 0;
    else if (!strcmp(key, "memory") && n >= 0 && n <= 1000000)
        spec->memory = (int)n;
    else
        return -1;
    return 0;
}

/* One "key value" line into `f`; -1 when it is not one we know. */
static int read_line(pg_run_file *f, const char *key, const char *value)
{
    pg_run_spec *spec = &f->spec;
    long long n;
    int i;

    for (i = 0; i < 8; i++)
        if (string_keys[i] && !strcmp(key, string_keys[i])) {
            free(f->strings[i]);
            f->strings[i] = pg_strdup(value);
            return 0;
        }
    if (!strcmp(key, "settings"))
        return sscanf(value, "%d %lf %lf %lf", &f->settings.min_rounds,
                      &f->settings.max_time, &f->settings.noise_floor,
                      &f->settings.timeout) == 4
                   ? 0
                   : -1;
    if (!strcmp(key, "min_time"))
        return sscanf(value, "%lf", &spec->min_time) == 1 &&
                       spec->min_time > 0 && spec->min_time < 1e6
                   ? 0
                   : -1;
    if (!strcmp(key, "precision"))
        return sscanf(value, "%lf", &spec->precision) == 1 &&
                       spec->precision > 0 && spec->precision < 1e6
                   ? 0
                   : -1;
    if (!strcmp(key, "clock"))
        return clock_line(f, value);
    if (!strcmp(key, "count"))
        return count_line(f, value);
    if (!strcmp(key, "case")) {
        f->cases = pg_realloc(f->cases, (spec->ncases + 1) * sizeof(*f->cases));
        if (pg_casespec_parse(&f->cases[spec->ncases], value) < 0)
            return -1;
        spec->ncases++;
        return 0;
    }
    if (pg_parse_ll(&n, value) < 0)
        return -1;
    return number_line(spec, key, n);
}

int pg_run_file_read(pg_run_file *out, const char *path)
{
    char *text = NULL, *line, *save = NULL;
    size_t len;
    int lineno = 0, err = 0;

    memset(out, 0, sizeof(*out));
    pg_run_spec_init(&out->spec);
    out->spec.settings = &out->settings;
    if (pg_read_file(&text, &len, path, SPEC_MAX) < 0)
        return pg_error_set(PG_ERR_USAGE, "%s: cannot read", path);
    for (line = strtok_r(text, "\n", &save); line && !err;
         line = strtok_r(NULL, "\n", &save)) {
        char *sp = strchr(line, ' ');
        lineno++;
        if (!sp)
            err = -1;
        else if (lineno == 1)
            err = strcmp(line, "perfgate-measure 1") ? -1 : 0;
        else {
            *sp = '\0';
            err = read_line(out, line, sp + 1);
            *sp = ' ';
        }
        if (err)
            err = pg_error_set(PG_ERR_USAGE, "%s:%d: not a run spec line: %s",
                               path, lineno, line);
    }
    free(text);
    if (err)
        return err;
    out->spec.problem_lib = out->strings[0];
    out->spec.problem_name = out->strings[1];
    out->spec.lib[0] = out->strings[2];
    out->spec.lib[1] = out->strings[3];
    out->spec.symbol = out->strings[4];
    out->spec.token = out->strings[5];
    out->spec.count_dump = out->strings[6];
    out->spec.sample = out->strings[7];
    out->spec.cases = out->cases;
    if (!out->spec.problem_lib || !out->spec.problem_name ||
        (!out->spec.lib[0] && !out->spec.lib[1]) || !out->spec.symbol ||
        !out->spec.ncases || out->settings.min_rounds < 1 ||
        !(out->settings.max_time > 0))
        return pg_error_set(PG_ERR_USAGE,
                            "%s: incomplete run spec (problem, a side's "
                            "library, symbol, settings and a case are "
                            "needed)",
                            path);
    return 0;
}

void pg_run_file_clear(pg_run_file *f)
{
    size_t i;

    for (i = 0; i < sizeof(f->strings) / sizeof(*f->strings); i++)
        free(f->strings[i]);
    for (i = 0; i < f->spec.ncases; i++)
        pg_casespec_clear(&f->cases[i]);
    free(f->cases);
    memset(f, 0, sizeof(*f));
}
