/*
 * memory.c - the heap per call, judged and said (memory.h).
 */
#include "memory.h"
#include "json.h"
#include "units.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* Figures per call are totals over whole calls: a difference below this
 * is no difference. */
#define EPS 1e-6

int pg_memory_counted(const pg_bench_result *b)
{
    size_t c;

    for (c = 0; c < b->ncases; c++)
        if (!b->cases[c].mem[1].counted ||
            (!b->cases[c].mem[0].counted && b->status != PG_STATUS_NEW))
            return 0;
    return b->ncases > 0;
}

/* `a` is beyond `b` by more than `floor` of it, and by a byte at least. */
static int beyond(double a, double b, double floor)
{
    return a - b >= 1 - EPS && a > b * (1 + floor) + EPS;
}

static int differs(const pg_memory_use *a, const pg_memory_use *b)
{
    return fabs(a->allocs - b->allocs) > EPS ||
           fabs(a->bytes - b->bytes) > EPS || fabs(a->peak - b->peak) > EPS ||
           fabs(a->leaked - b->leaked) > EPS ||
           fabs(a->mapped - b->mapped) > EPS;
}

/* How the head's figures stand to the base's: 1 worse beyond the floor
 * (an allocation more, a higher peak, more mapped, or a new leak), -1
 * better beyond it and worse in nothing, 0 neither. */
static int compare_use(const pg_memory_use *base, const pg_memory_use *head,
                       double floor)
{
    if (head->allocs > base->allocs + EPS ||
        beyond(head->peak, base->peak, floor) ||
        beyond(head->mapped, base->mapped, floor) ||
        head->leaked > fmax(base->leaked, 0) + EPS)
        return 1;
    if (base->allocs > head->allocs + EPS ||
        beyond(base->peak, head->peak, floor) ||
        beyond(base->mapped, head->mapped, floor) ||
        base->leaked > fmax(head->leaked, 0) + EPS)
        return -1;
    return 0;
}

static void add_use(pg_memory_use *sum, const pg_memory_use *u)
{
    sum->counted = 1;
    sum->allocs += u->allocs;
    sum->bytes += u->bytes;
    sum->peak = fmax(sum->peak, u->peak);
    sum->leaked += u->leaked;
    sum->mapped += u->mapped;
    sum->unknown_frees += u->unknown_frees;
}

void pg_memory_judge(pg_bench_result *b)
{
    pg_memory *m = &b->memory;
    size_t c;
    int s, better = 0;

    memset(m->total, 0, sizeof(m->total));
    m->status = PG_STATUS_UNCHANGED;
    m->worst_case = -1;
    m->leak_added = 0;
    if (!pg_memory_counted(b))
        return;
    for (c = 0; c < b->ncases; c++) {
        const pg_result_case *cr = &b->cases[c];
        for (s = 0; s < 2; s++)
            if (cr->mem[s].counted)
                add_use(&m->total[s], &cr->mem[s]);
        if (!cr->mem[0].counted)
            continue;
        if (cr->mem[1].leaked > fmax(cr->mem[0].leaked, 0) + EPS)
            m->leak_added = 1;
        if (m->worst_case < 0 && differs(&cr->mem[0], &cr->mem[1]))
            m->worst_case = (long)c;
        switch (compare_use(&cr->mem[0], &cr->mem[1], m->floor)) {
        case 1:
            if (m->status != PG_STATUS_REGRESSION)
                m->worst_case = (long)c;
            m->status = PG_STATUS_REGRESSION;
            break;
        case -1:
            if (!better++ && m->status != PG_STATUS_REGRESSION)
                m->worst_case = (long)c;
            break;
        default:
            break;
        }
    }
    if (m->status != PG_STATUS_REGRESSION && better)
        m->status = PG_STATUS_IMPROVEMENT;
}

int pg_memory_fails_gate(const pg_bench_result *b)
{
    return b->memory.gate && b->memory.status == PG_STATUS_REGRESSION;
}

/* "+1 allocation", "-2 allocations", "+0.5 allocations". */
static void say_allocs(pg_str *out, double d)
{
    double r = round(d);

    if (fabs(d - r) < EPS)
        pg_str_printf(out, "%+.0f allocation%s", r, fabs(r) == 1 ? "" : "s");
    else
        pg_str_printf(out, "%+.2f allocations", d);
}

/* "+64 B", "-1.0 KiB". */
static void say_bytes(pg_str *out, double d)
{
    pg_str_puts(out, d < 0 ? "-" : "+");
    pg_format_bytes(out, fabs(d));
}

static void sep(pg_str *out, size_t start, const char *s)
{
    if (out->size > start)
        pg_str_puts(out, s);
}

void pg_memory_describe_change(pg_str *out, const pg_memory_use *base,
                               const pg_memory_use *head)
{
    size_t start = out->size;

    if (fabs(head->allocs - base->allocs) > EPS)
        say_allocs(out, head->allocs - base->allocs);
    if (fabs(head->bytes - base->bytes) > EPS) {
        sep(out, start, ", ");
        say_bytes(out, head->bytes - base->bytes);
    }
    if (out->size > start)
        pg_str_puts(out, " per call");
    if (fabs(head->peak - base->peak) > EPS) {
        sep(out, start, "; ");
        pg_str_puts(out, "peak ");
        pg_format_bytes(out, base->peak);
        pg_str_puts(out, " → ");
        pg_format_bytes(out, head->peak);
    }
    if (head->leaked > fmax(base->leaked, 0) + EPS) {
        sep(out, start, "; ");
        pg_str_puts(out, "leaks ");
        pg_format_bytes(out, head->leaked - fmax(base->leaked, 0));
        pg_str_puts(out, " per call more");
    }
    if (fabs(head->mapped - base->mapped) > EPS) {
        sep(out, start, "; ");
        say_bytes(out, head->mapped - base->mapped);
        pg_str_puts(out, " per call mapped outside malloc");
    }
}

void pg_memory_describe(pg_str *out, const pg_memory_use *u)
{
    double r = round(u->allocs);

    if (fabs(u->allocs - r) < EPS)
        pg_str_printf(out, "%.0f alloc%s, ", r, r == 1 ? "" : "s");
    else
        pg_str_printf(out, "%.2f allocs, ", u->allocs);
    pg_format_bytes(out, u->bytes);
    pg_str_puts(out, ", peak ");
    pg_format_bytes(out, u->peak);
    if (u->leaked > EPS) {
        pg_str_puts(out, ", leaks ");
        pg_format_bytes(out, u->leaked);
    }
    if (u->mapped > EPS) {
        pg_str_puts(out, ", maps ");
        pg_format_bytes(out, u->mapped);
    }
}

static cJSON *use_json(const pg_memory_use *u)
{
    cJSON *o;

    if (!u->counted)
        return cJSON_CreateNull();
    o = cJSON_CreateObject();
    pg_json_add_number(o, "allocs", u->allocs);
    pg_json_add_number(o, "bytes", u->bytes);
    pg_json_add_number(o, "peak", u->peak);
    pg_json_add_number(o, "leaked", u->leaked);
    pg_json_add_number(o, "mapped", u->mapped);
    pg_json_add_number(o, "unknown_frees", u->unknown_frees);
    return o;
}

void pg_memory_add_json(cJSON *o, const pg_bench_result *b)
{
    const pg_memory *m = &b->memory;
    cJSON *mo;

    if (!m->skipped && !pg_memory_counted(b)) {
        cJSON_AddNullToObject(o, "memory");
        return;
    }
    mo = cJSON_AddObjectToObject(o, "memory");
    cJSON_AddStringToObject(mo, "mode", m->gate ? "gate" : "report");
    pg_json_add_number(mo, "floor", m->floor);
    pg_json_add_number(mo, "seconds", m->seconds);
    if (m->skipped) {
        cJSON_AddStringToObject(mo, "skipped", m->skipped);
        return;
    }
    cJSON_AddStringToObject(mo, "status", pg_status_name(m->status));
    cJSON_AddBoolToObject(mo, "fails_gate", pg_memory_fails_gate(b));
    cJSON_AddBoolToObject(mo, "leak_added", m->leak_added);
    if (m->worst_case >= 0 && (size_t)m->worst_case < b->ncases)
        cJSON_AddStringToObject(mo, "case", b->cases[m->worst_case].name);
    cJSON_AddItemToObject(mo, "base", use_json(&m->total[0]));
    cJSON_AddItemToObject(mo, "head", use_json(&m->total[1]));
}

void pg_memory_add_case_json(cJSON *o, const pg_result_case *c)
{
    cJSON *mo;

    if (!c->mem[0].counted && !c->mem[1].counted)
        return;
    mo = cJSON_AddObjectToObject(o, "memory");
    cJSON_AddItemToObject(mo, "base", use_json(&c->mem[0]));
    cJSON_AddItemToObject(mo, "head", use_json(&c->mem[1]));
}

/* A figure from a file anyone may have written: finite, within 2^53 of
 * zero, and not below zero unless `signed_ok`; else the whole is not
 * counted. */
static int read_figure(double *out, const cJSON *o, const char *key,
                       int signed_ok)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (!cJSON_IsNumber(v) || !(fabs(v->valuedouble) <= 9007199254740992.0) ||
        (!signed_ok && v->valuedouble < 0))
        return -1;
    *out = v->valuedouble;
    return 0;
}

static void read_use(pg_memory_use *u, const cJSON *o)
{
    memset(u, 0, sizeof(*u));
    if (!cJSON_IsObject(o) || read_figure(&u->allocs, o, "allocs", 0) < 0 ||
        read_figure(&u->bytes, o, "bytes", 0) < 0 ||
        read_figure(&u->peak, o, "peak", 0) < 0 ||
        read_figure(&u->leaked, o, "leaked", 1) < 0 ||
        read_figure(&u->mapped, o, "mapped", 0) < 0 ||
        read_figure(&u->unknown_frees, o, "unknown_frees", 0) < 0) {
        memset(u, 0, sizeof(*u));
        return;
    }
    u->counted = 1;
}

void pg_memory_read_json(pg_bench_result *b, const cJSON *o)
{
    const cJSON *v;
    double floor = 0;

    if (!cJSON_IsObject(o))
        return;
    v = cJSON_GetObjectItemCaseSensitive(o, "mode");
    b->memory.gate = cJSON_IsString(v) && !strcmp(v->valuestring, "gate");
    if (read_figure(&floor, o, "floor", 0) == 0 && floor < 1)
        b->memory.floor = floor;
    if (read_figure(&floor, o, "seconds", 0) == 0)
        b->memory.seconds = floor;
    v = cJSON_GetObjectItemCaseSensitive(o, "skipped");
    if (cJSON_IsString(v))
        b->memory.skipped = pg_strdup(v->valuestring);
}

void pg_memory_read_case_json(pg_result_case *c, const cJSON *o)
{
    const cJSON *mo = cJSON_GetObjectItemCaseSensitive(o, "memory");

    if (!cJSON_IsObject(mo))
        return;
    read_use(&c->mem[0], cJSON_GetObjectItemCaseSensitive(mo, "base"));
    read_use(&c->mem[1], cJSON_GetObjectItemCaseSensitive(mo, "head"));
}
