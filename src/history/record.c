/*
 * record.c - a push's measurement as a small JSON file, and back.
 */
#include "record.h"
#include "counter.h"
#include "env.h"
#include "error.h"
#include "fs.h"
#include "json.h"
#include "memory.h"
#include "toolchain.h"
#include "str.h"
#include "system.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "banned.h"

/* The longest text a record keeps (a subject, a machine's name). */
#define TEXT_MAX 200

/* A text as a record keeps it: clean, at most TEXT_MAX bytes. */
static char *short_text(const char *text)
{
    char *clean = pg_text_clean(text ? text : "");

    clean[pg_utf8_cut(clean, TEXT_MAX)] = '\0';
    return clean;
}

void pg_record_machine_probe(pg_record_machine *out, const char *name)
{
    char *cpu = pg_system_cpu_model("");
    struct utsname u;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);

    memset(out, 0, sizeof(*out));
    if (uname(&u) < 0)
        memset(&u, 0, sizeof(u));
    if (!cpu)
        cpu = pg_strdup(*u.machine ? u.machine : "unknown CPU");
    out->cpu = short_text(cpu);
    free(cpu);
    out->cores = cores > 0 && cores < 1000000 ? (int)cores : 0;
    out->kernel = short_text(*u.release ? u.release : "unknown");
    out->compiler = short_text(pg_toolchain_cc_version());
    if (!name || !*name)
        name = pg_env("PERFGATE_MACHINE");
    if (name && *name) {
        out->name = short_text(name);
    } else {
        char *def = pg_strdupf("%s, %d cores", out->cpu, out->cores);
        out->name = short_text(def);
        free(def);
    }
}

/* `v` to six significant digits: what a record needs, in fewer bytes. */
static double trim(double v)
{
    char buf[32];

    if (!isfinite(v))
        return v;
    snprintf(buf, sizeof(buf), "%.6g", v);
    return strtod(buf, NULL);
}

/* The count of `b` (counted itself, or beside its time), into `out`. */
static void count_from(pg_record_count *out, const pg_bench_result *b)
{
    const pg_bench_result *k = b->metric ? b : b->counted;

    memset(out, 0, sizeof(*out));
    out->base = out->head = out->change = NAN;
    out->change_lo = out->change_hi = NAN;
    if (!k || !k->metric)
        return;
    out->metric = k->metric;
    out->counter = short_text(k->counter);
    out->status = k->status;
    out->base = k->base_ns;
    out->head = k->head_ns;
    out->change = k->change;
    out->change_lo = k->change_lo;
    out->change_hi = k->change_hi;
    out->other_path = k->other_path || b->other_path;
}

void pg_record_from_result(pg_record *out, const pg_result *r, const char *tree,
                           const char *parent_tree, pg_record_machine *machine,
                           long long when, int timed, int counted)
{
    size_t i;

    memset(out, 0, sizeof(*out));
    out->format = PG_RECORD_FORMAT_TIMES; /* 2 once a count is kept */
    snprintf(out->commit, sizeof(out->commit), "%s",
             r->head.commit ? r->head.commit : "");
    snprintf(out->parent, sizeof(out->parent), "%s",
             r->base.commit ? r->base.commit : "");
    snprintf(out->tree, sizeof(out->tree), "%s", tree);
    snprintf(out->parent_tree, sizeof(out->parent_tree), "%s", parent_tree);
    out->subject = short_text(r->head.subject);
    out->when = when;
    out->machine = *machine;
    memset(machine, 0, sizeof(*machine));
    out->perfgate = pg_strdup(r->version ? r->version : "unknown");
    out->method = PG_RECORD_METHOD;
    out->config_digest = pg_strdup(r->config_digest ? r->config_digest : "");
    out->noise_floor = r->noise_floor;
    out->count_floor = NAN;
    out->benchmarks = pg_calloc(r->nbenchmarks + 1, sizeof(*out->benchmarks));
    for (i = 0; i < r->nbenchmarks; i++) {
        const pg_bench_result *b = &r->benchmarks[i];
        pg_record_bench *rb = &out->benchmarks[out->nbenchmarks++];
        rb->name = pg_strdup(b->name);
        rb->status = b->status;
        rb->untouched = b->not_affected || b->identical;
        rb->timed = rb->untouched ? timed : !b->metric;
        rb->base_ns = rb->timed ? b->base_ns : NAN;
        rb->head_ns = rb->timed ? b->head_ns : NAN;
        rb->change = rb->timed ? b->change : NAN;
        rb->change_lo = rb->timed ? b->change_lo : NAN;
        rb->change_hi = rb->timed ? b->change_hi : NAN;
        if (counted)
            count_from(&rb->count, b);
        /* Not reached: unchanged as counted too, without a count. */
        if (!rb->count.metric && counted && rb->untouched) {
            rb->count.metric = counted;
            rb->count.counter = pg_strdup("");
            rb->count.status = b->status;
        }
        if (rb->count.metric) {
            out->format = PG_RECORD_FORMAT;
            out->count_floor = r->count_floor;
            if (rb->untouched)
                rb->count.change = rb->count.change_lo = rb->count.change_hi =
                    0;
        }
        if (b->culprit && strlen(b->culprit) == PG_OID_HEX - 1) {
            memcpy(rb->culprit, b->culprit, PG_OID_HEX);
            rb->culprit_subject =
                short_text(b->culprit_subject ? b->culprit_subject : "");
        }
        if (rb->untouched)
            rb->change = rb->change_lo = rb->change_hi = 0;
        if (b->accepted)
            rb->accepted = short_text(b->accept_why);
        if (pg_memory_counted(b) && !b->memory.skipped && !rb->untouched &&
            b->memory.total[0].counted)
            memcpy(rb->memory, b->memory.total, sizeof(rb->memory));
    }
}

/* "memory": {"base": {...}, "head": {...}}: the heap per call. */
static void add_memory(cJSON *o, const pg_memory_use m[2])
{
    cJSON *mo = cJSON_AddObjectToObject(o, "memory");
    int s;

    for (s = 0; s < 2; s++) {
        cJSON *u = cJSON_AddObjectToObject(mo, s ? "head" : "base");
        pg_json_add_number(u, "allocs", trim(m[s].allocs));
        pg_json_add_number(u, "bytes", trim(m[s].bytes));
        pg_json_add_number(u, "peak", trim(m[s].peak));
        pg_json_add_number(u, "leaked", trim(m[s].leaked));
        pg_json_add_number(u, "mapped", trim(m[s].mapped));
    }
}

static void add_count(cJSON *o, const pg_record_count *k)
{
    cJSON *c = cJSON_AddObjectToObject(o, "count");

    cJSON_AddStringToObject(c, "metric", pg_metric_name(k->metric));
    cJSON_AddStringToObject(c, "counter", k->counter ? k->counter : "");
    cJSON_AddStringToObject(c, "status", pg_status_name(k->status));
    pg_json_add_number(c, "base", trim(k->base));
    pg_json_add_number(c, "head", trim(k->head));
    pg_json_add_number(c, "change", trim(k->change));
    pg_json_add_number(c, "change_lo", trim(k->change_lo));
    pg_json_add_number(c, "change_hi", trim(k->change_hi));
    if (k->other_path)
        cJSON_AddTrueToObject(c, "other_path");
}

char *pg_record_to_json(const pg_record *rec)
{
    cJSON *root = cJSON_CreateObject(), *m, *arr;
    size_t i;

    cJSON_AddNumberToObject(root, "perfgate_record", rec->format);
    if (rec->check)
        cJSON_AddStringToObject(root, "kind", "check");
    cJSON_AddStringToObject(root, "commit", rec->commit);
    cJSON_AddStringToObject(root, "parent", rec->parent);
    cJSON_AddStringToObject(root, "tree", rec->tree);
    cJSON_AddStringToObject(root, "parent_tree", rec->parent_tree);
    cJSON_AddStringToObject(root, "subject", rec->subject ? rec->subject : "");
    cJSON_AddNumberToObject(root, "when", (double)rec->when);
    m = cJSON_AddObjectToObject(root, "machine");
    cJSON_AddStringToObject(m, "name", rec->machine.name);
    cJSON_AddStringToObject(m, "cpu", rec->machine.cpu);
    cJSON_AddNumberToObject(m, "cores", rec->machine.cores);
    cJSON_AddStringToObject(m, "kernel", rec->machine.kernel);
    cJSON_AddStringToObject(m, "compiler", rec->machine.compiler);
    cJSON_AddStringToObject(root, "perfgate", rec->perfgate);
    cJSON_AddNumberToObject(root, "method", rec->method);
    cJSON_AddStringToObject(root, "config_digest", rec->config_digest);
    pg_json_add_number(root, "noise_floor", trim(rec->noise_floor));
    if (isfinite(rec->count_floor))
        pg_json_add_number(root, "count_floor", trim(rec->count_floor));
    arr = cJSON_AddArrayToObject(root, "benchmarks");
    for (i = 0; i < rec->nbenchmarks; i++) {
        const pg_record_bench *b = &rec->benchmarks[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, o);
        cJSON_AddStringToObject(o, "name", b->name);
        cJSON_AddStringToObject(o, "status", pg_status_name(b->status));
        if (b->untouched)
            cJSON_AddTrueToObject(o, "untouched");
        pg_json_add_number(o, "base_ns", trim(b->base_ns));
        pg_json_add_number(o, "head_ns", trim(b->head_ns));
        pg_json_add_number(o, "change", trim(b->change));
        pg_json_add_number(o, "change_lo", trim(b->change_lo));
        pg_json_add_number(o, "change_hi", trim(b->change_hi));
        if (b->culprit[0]) {
            cJSON *c = cJSON_AddObjectToObject(o, "culprit");
            cJSON_AddStringToObject(c, "commit", b->culprit);
            cJSON_AddStringToObject(
                c, "subject", b->culprit_subject ? b->culprit_subject : "");
        }
        if (b->accepted)
            cJSON_AddStringToObject(o, "accepted", b->accepted);
        if (!b->timed)
            cJSON_AddFalseToObject(o, "timed");
        if (b->count.metric)
            add_count(o, &b->count);
        if (b->memory[0].counted && b->memory[1].counted)
            add_memory(o, b->memory);
    }
    return pg_json_print(root, 0);
}

/* Parsing: the first thing wrong, said once. */
typedef struct parse_ctx {
    const char *display;
    int err;
} parse_ctx;

static int bad(parse_ctx *ctx, const char *what)
{
    if (!ctx->err)
        ctx->err = pg_error_set(PG_ERR_USAGE, "%s: %s", ctx->display, what);
    return ctx->err;
}

/* A string field, clean and cut to `max` bytes; NULL (and the error set)
 * when missing or not a string. */
static char *text_field(parse_ctx *ctx, const cJSON *o, const char *key,
                        size_t max)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char *clean;

    if (!cJSON_IsString(v) || !v->valuestring) {
        char msg[96];
        snprintf(msg, sizeof(msg), "\"%s\" is missing or not a string", key);
        bad(ctx, msg);
        return NULL;
    }
    clean = pg_text_clean(v->valuestring);
    clean[pg_utf8_cut(clean, max)] = '\0';
    return clean;
}

/* A full commit or tree id into `out` (41 bytes). */
static void oid_field(parse_ctx *ctx, const cJSON *o, const char *key,
                      char out[PG_OID_HEX])
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    const char *s = cJSON_IsString(v) ? v->valuestring : NULL;

    if (!s || strlen(s) != PG_OID_HEX - 1 ||
        strspn(s, "0123456789abcdef") != PG_OID_HEX - 1) {
        char msg[96];
        snprintf(msg, sizeof(msg), "\"%s\" is not a full commit id", key);
        bad(ctx, msg);
        return;
    }
    memcpy(out, s, PG_OID_HEX);
}

/* A number field that may be null (NAN), within [lo, hi]. */
static double number_field(parse_ctx *ctx, const cJSON *o, const char *key,
                           double lo, double hi)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    char msg[96];

    if (cJSON_IsNull(v))
        return NAN;
    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= lo &&
        v->valuedouble <= hi)
        return v->valuedouble;
    snprintf(msg, sizeof(msg), "\"%s\" is missing or out of range", key);
    bad(ctx, msg);
    return NAN;
}

static void parse_machine(parse_ctx *ctx, pg_record_machine *m, const cJSON *o)
{
    double cores;

    if (!cJSON_IsObject(o)) {
        bad(ctx, "\"machine\" is missing");
        return;
    }
    m->name = text_field(ctx, o, "name", TEXT_MAX);
    m->cpu = text_field(ctx, o, "cpu", TEXT_MAX);
    m->kernel = text_field(ctx, o, "kernel", TEXT_MAX);
    m->compiler = text_field(ctx, o, "compiler", TEXT_MAX);
    cores = number_field(ctx, o, "cores", 0, 1e6);
    m->cores = isfinite(cores) ? (int)cores : 0;
    if (m->name && !*m->name)
        bad(ctx, "the machine has no name");
}

/* "change", "change_lo" and "change_hi": a change of more than -100%
 * and its interval, which must not be upside down (else `upside_down`). */
static void change_fields(parse_ctx *ctx, const cJSON *o, double *change,
                          double *lo, double *hi, const char *upside_down)
{
    *change = number_field(ctx, o, "change", -1, 1e9);
    *lo = number_field(ctx, o, "change_lo", -1, 1e9);
    *hi = number_field(ctx, o, "change_hi", -1, 1e9);
    if (!ctx->err && isfinite(*lo) && isfinite(*hi) && *lo > *hi)
        bad(ctx, upside_down);
}

/* A count (format 2): its metric and counter, status, figures. */
static void parse_count(parse_ctx *ctx, pg_record_count *k, const cJSON *o)
{
    const cJSON *metric = cJSON_GetObjectItemCaseSensitive(o, "metric");
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(o, "status");
    int m = cJSON_IsString(metric) ? pg_metric_parse(metric->valuestring) : -1;
    int s = cJSON_IsString(status) ? pg_status_parse(status->valuestring) : -1;

    if (!cJSON_IsObject(o) || m <= 0) {
        bad(ctx, "a benchmark's \"count\" is not an object with a count's "
                 "\"metric\"");
        return;
    }
    if (s < 0)
        bad(ctx, "a count's \"status\" is missing or unknown");
    k->metric = m;
    k->status = s < 0 ? PG_STATUS_UNCHANGED : (pg_status)s;
    k->counter = text_field(ctx, o, "counter", 40);
    /* A count per call is at least 0, and below 1e18. */
    k->base = number_field(ctx, o, "base", 0, 1e18);
    k->head = number_field(ctx, o, "head", 0, 1e18);
    change_fields(ctx, o, &k->change, &k->change_lo, &k->change_hi,
                  "a count's interval is upside down");
    k->other_path =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "other_path"));
}

/* The heap per call (any format): each side's figures, at least 0 and
 * below 1e18 (what is left allocated may be negative). */
static void parse_memory(parse_ctx *ctx, pg_memory_use m[2], const cJSON *o)
{
    int s;

    if (!cJSON_IsObject(o)) {
        bad(ctx, "a benchmark's \"memory\" is not an object");
        return;
    }
    for (s = 0; s < 2 && !ctx->err; s++) {
        const cJSON *u =
            cJSON_GetObjectItemCaseSensitive(o, s ? "head" : "base");
        if (!cJSON_IsObject(u)) {
            bad(ctx, "a benchmark's \"memory\" lacks a side's figures");
            return;
        }
        m[s].allocs = number_field(ctx, u, "allocs", 0, 1e18);
        m[s].bytes = number_field(ctx, u, "bytes", 0, 1e18);
        m[s].peak = number_field(ctx, u, "peak", 0, 1e18);
        m[s].leaked = number_field(ctx, u, "leaked", -1e18, 1e18);
        m[s].mapped = number_field(ctx, u, "mapped", 0, 1e18);
        m[s].counted =
            !ctx->err && !isnan(m[s].allocs + m[s].bytes + m[s].peak +
                                m[s].leaked + m[s].mapped);
        if (!ctx->err && !m[s].counted)
            bad(ctx, "a benchmark's \"memory\" lacks a figure");
    }
}

static void parse_bench(parse_ctx *ctx, pg_record_bench *b, const cJSON *o,
                        int format)
{
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(o, "status");
    const cJSON *culprit;
    int s = cJSON_IsString(status) ? pg_status_parse(status->valuestring) : -1;

    if (!cJSON_IsObject(o)) {
        bad(ctx, "a benchmark is not an object");
        return;
    }
    b->name = text_field(ctx, o, "name", TEXT_MAX);
    if (s < 0)
        bad(ctx, "a benchmark's \"status\" is missing or unknown");
    b->status = s < 0 ? PG_STATUS_UNCHANGED : (pg_status)s;
    b->untouched =
        cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "untouched"));
    /* A time is positive and below a day; a change more than -100%. */
    b->base_ns = number_field(ctx, o, "base_ns", 0, 8.64e13);
    b->head_ns = number_field(ctx, o, "head_ns", 0, 8.64e13);
    change_fields(ctx, o, &b->change, &b->change_lo, &b->change_hi,
                  "a benchmark's interval is upside down");
    if (cJSON_GetObjectItemCaseSensitive(o, "accepted") && !ctx->err)
        b->accepted = text_field(ctx, o, "accepted", TEXT_MAX);
    culprit = cJSON_GetObjectItemCaseSensitive(o, "culprit");
    if (culprit && !ctx->err) {
        if (!cJSON_IsObject(culprit)) {
            bad(ctx, "a benchmark's \"culprit\" is not an object");
            return;
        }
        oid_field(ctx, culprit, "commit", b->culprit);
        b->culprit_subject = text_field(ctx, culprit, "subject", TEXT_MAX);
    }
    b->timed = 1;
    if (cJSON_GetObjectItemCaseSensitive(o, "memory") && !ctx->err)
        parse_memory(ctx, b->memory,
                     cJSON_GetObjectItemCaseSensitive(o, "memory"));
    if (format < 2 || ctx->err)
        return;
    b->timed = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "timed"));
    if (cJSON_GetObjectItemCaseSensitive(o, "count"))
        parse_count(ctx, &b->count,
                    cJSON_GetObjectItemCaseSensitive(o, "count"));
    if (!b->timed && !b->count.metric)
        bad(ctx, "a benchmark neither timed nor counted");
}

/* A record of a format this perfgate does not read: PG_ERR_USAGE, naming
 * the format and the version that wrote it. */
static int another_format(const cJSON *root, double format, const char *display)
{
    const cJSON *by = cJSON_GetObjectItemCaseSensitive(root, "perfgate");
    char *who = cJSON_IsString(by) ? pg_text_clean(by->valuestring) : NULL;
    int err;

    if (who)
        who[pg_utf8_cut(who, 40)] = '\0';
    err =
        pg_error_set(PG_ERR_USAGE,
                     "%s: a record of format %g%s%s%s, and this perfgate "
                     "reads formats %d to %d: upgrade perfgate to read it",
                     display, isfinite(format) ? format : 0.0,
                     who ? " (written by " : "", who ? who : "", who ? ")" : "",
                     PG_RECORD_FORMAT_TIMES, PG_RECORD_FORMAT);
    free(who);
    return err;
}

int pg_record_from_json(pg_record *out, const char *text, size_t len,
                        const char *display)
{
    parse_ctx ctx = {display, 0};
    cJSON *root, *arr, *item;
    const cJSON *kind;
    double format, method, when;
    int n, i;

    memset(out, 0, sizeof(*out));
    root = cJSON_ParseWithLength(text, len);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return bad(&ctx, "not a perfgate record (not a JSON object)");
    }
    if (!cJSON_IsNumber(
            cJSON_GetObjectItemCaseSensitive(root, "perfgate_record"))) {
        cJSON_Delete(root);
        return bad(&ctx, "not a perfgate record (no \"perfgate_record\" "
                         "format number)");
    }
    format = number_field(&ctx, root, "perfgate_record", 0, 1e9);
    if (ctx.err || format != floor(format) || format < PG_RECORD_FORMAT_TIMES ||
        format > PG_RECORD_FORMAT) {
        pg_error_clear();
        ctx.err = another_format(root, format, display);
        cJSON_Delete(root);
        return ctx.err;
    }
    out->format = (int)format;
    kind = cJSON_GetObjectItemCaseSensitive(root, "kind");
    if (kind &&
        !(cJSON_IsString(kind) && (!strcmp(kind->valuestring, "push") ||
                                   !strcmp(kind->valuestring, "check"))))
        bad(&ctx, "\"kind\" is neither \"push\" nor \"check\"");
    out->check =
        kind && cJSON_IsString(kind) && !strcmp(kind->valuestring, "check");
    oid_field(&ctx, root, "commit", out->commit);
    oid_field(&ctx, root, "parent", out->parent);
    oid_field(&ctx, root, "tree", out->tree);
    oid_field(&ctx, root, "parent_tree", out->parent_tree);
    out->subject = text_field(&ctx, root, "subject", TEXT_MAX);
    when = number_field(&ctx, root, "when", 0, 1e12);
    out->when = isfinite(when) ? (long long)when : 0;
    parse_machine(&ctx, &out->machine,
                  cJSON_GetObjectItemCaseSensitive(root, "machine"));
    out->perfgate = text_field(&ctx, root, "perfgate", 40);
    method = number_field(&ctx, root, "method", 0, 1e6);
    out->method = isfinite(method) ? (int)method : 0;
    out->config_digest = text_field(&ctx, root, "config_digest", 80);
    out->noise_floor = number_field(&ctx, root, "noise_floor", 0, 10);
    out->count_floor = NAN;
    if (out->format >= 2 &&
        cJSON_GetObjectItemCaseSensitive(root, "count_floor"))
        out->count_floor = number_field(&ctx, root, "count_floor", 0, 10);
    arr = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
    n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : -1;
    if (n < 0)
        bad(&ctx, "\"benchmarks\" is missing");
    else if (n > PG_RECORD_MAX_BENCHMARKS)
        bad(&ctx, "more than 10000 benchmarks");
    if (!ctx.err && n > 0) {
        out->benchmarks = pg_calloc((size_t)n, sizeof(*out->benchmarks));
        i = 0;
        cJSON_ArrayForEach(item, arr)
        {
            if (i >= n || ctx.err)
                break;
            parse_bench(&ctx, &out->benchmarks[i++], item, out->format);
            out->nbenchmarks = (size_t)i;
        }
    }
    cJSON_Delete(root);
    if (ctx.err) {
        pg_record_clear(out);
        return ctx.err;
    }
    return 0;
}

const pg_record_bench *pg_record_find(const pg_record *rec, const char *name)
{
    size_t i;

    for (i = 0; i < rec->nbenchmarks; i++)
        if (rec->benchmarks[i].name && !strcmp(rec->benchmarks[i].name, name))
            return &rec->benchmarks[i];
    return NULL;
}

void pg_record_machine_clear(pg_record_machine *m)
{
    free(m->name);
    free(m->cpu);
    free(m->kernel);
    free(m->compiler);
    memset(m, 0, sizeof(*m));
}

void pg_record_clear(pg_record *rec)
{
    size_t i;

    for (i = 0; i < rec->nbenchmarks; i++) {
        free(rec->benchmarks[i].name);
        free(rec->benchmarks[i].culprit_subject);
        free(rec->benchmarks[i].accepted);
        free(rec->benchmarks[i].count.counter);
    }
    free(rec->benchmarks);
    free(rec->subject);
    free(rec->perfgate);
    free(rec->config_digest);
    pg_record_machine_clear(&rec->machine);
    memset(rec, 0, sizeof(*rec));
}
