/*
 * ncu.c - a CUDA kernel's hardware metrics from Nsight Compute (ncu.h).
 */
#include "ncu.h"
#include "cuda.h"
#include "csv.h"
#include "error.h"
#include "fs.h"
#include "str.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#define REPORT_MAX (64u << 20) /* bytes of ncu's report read */
#define LAUNCHES_MAX 200       /* launches profiled, each replayed */
#define KEPT_KERNELS 20        /* rows kept in the result */
#define METRIC_KERNELS 3       /* the costliest, whose metrics are kept */
#define KEPT_STALLS 4          /* stall reasons kept per kernel */

#define DURATION "gpu__time_duration.sum"
#define STALL_PREFIX "smsp__average_warps_issue_stalled_"
#define STALL_SUFFIX "_per_issue_active.ratio"

typedef enum how { SUM, MEAN } how;

/* What perfgate asks ncu for, beyond the duration and the stalls. */
static const struct metric {
    const char *ncu, *label, *unit;
    how how;
} metrics[] = {
    {"sm__throughput.avg.pct_of_peak_sustained_elapsed", "compute throughput",
     "%", MEAN},
    {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput",
     "%", MEAN},
    {"dram__bytes.sum", "DRAM traffic", "bytes", SUM},
    {"lts__t_sector_hit_rate.pct", "L2 hit rate", "%", MEAN},
    {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy",
     "%", MEAN},
    {"sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy", "%",
     MEAN},
    {"launch__registers_per_thread", "registers per thread", "", MEAN},
    {"smsp__inst_executed.sum", "warp instructions", "", SUM},
};
#define NMETRICS (sizeof(metrics) / sizeof(metrics[0]))

/* The stall reasons ncu knows (those of the newest GPUs included): a
 * column of the report is one of them only by this list, so that the
 * labels are static. */
static const char *const stalls[] = {"barrier",
                                     "branch_resolving",
                                     "dispatch_stall",
                                     "drain",
                                     "gmma",
                                     "imc_miss",
                                     "lg_throttle",
                                     "long_scoreboard",
                                     "math_pipe_throttle",
                                     "membar",
                                     "mio_throttle",
                                     "misc",
                                     "no_instruction",
                                     "not_selected",
                                     "selected",
                                     "short_scoreboard",
                                     "sleeping",
                                     "tex_throttle",
                                     "wait",
                                     NULL};
static const char *const stall_labels[] = {
    "stall: barrier",        "stall: branch resolving",
    "stall: dispatch",       "stall: drain",
    "stall: gmma",           "stall: immediate cache",
    "stall: LG throttle",    "stall: long scoreboard",
    "stall: math pipe",      "stall: membar",
    "stall: MIO throttle",   "stall: misc",
    "stall: no instruction", "stall: not selected",
    "stall: selected",       "stall: short scoreboard",
    "stall: sleeping",       "stall: TEX throttle",
    "stall: wait",           NULL};

char *pg_ncu_path(void)
{
    char *found = pg_path_search("ncu"), *home, *p;

    if (found)
        return found;
    home = pg_cuda_home();
    p = pg_path_join(home, "bin/ncu");
    free(home);
    if (pg_path_is_file(p))
        return p;
    free(p);
    return NULL;
}

void pg_ncu_argv(pg_strvec *a, const char *ncu, const char *log)
{
    pg_str list = PG_STR_INIT;
    size_t i;

    pg_strvec_push(a, ncu);
    /* One CSV row per launch, values in base units (ns, bytes). */
    pg_strvec_push(a, "--csv");
    pg_strvec_push(a, "--page");
    pg_strvec_push(a, "raw");
    pg_strvec_push(a, "--print-units");
    pg_strvec_push(a, "base");
    pg_strvec_push(a, "--kernel-name-base");
    pg_strvec_push(a, "function");
    /* Steady clocks and caches flushed before each pass: ncu's defaults,
     * said so that a user's ncu configuration does not change them. */
    pg_strvec_push(a, "--clock-control");
    pg_strvec_push(a, "base");
    pg_strvec_push(a, "--cache-control");
    pg_strvec_push(a, "all");
    pg_strvec_push(a, "--launch-count");
    pg_strvec_pushf(a, "%d", LAUNCHES_MAX);
    pg_str_puts(&list, DURATION);
    for (i = 0; i < NMETRICS; i++)
        pg_str_printf(&list, ",%s", metrics[i].ncu);
    /* Those of the GPU at hand: a name it lacks would end the run. */
    pg_str_puts(&list, ",regex:" STALL_PREFIX ".*_per_issue_active\\.ratio");
    pg_strvec_push(a, "--metrics");
    pg_strvec_push(a, pg_str_cstr(&list));
    pg_strvec_push(a, "--log-file");
    pg_strvec_push(a, log);
    pg_str_clear(&list);
}

/* A cell's number: ncu may group digits with commas; NAN for "n/a". */
static double number(const char *cell)
{
    char buf[64], *end;
    size_t n = 0;
    double v;

    for (; *cell && n + 1 < sizeof(buf); cell++)
        if (*cell != ',')
            buf[n++] = *cell;
    buf[n] = 0;
    if (!n)
        return NAN;
    v = strtod(buf, &end);
    return *end || !isfinite(v) ? NAN : v;
}

/* The column of each value: metrics[] first, then the stalls. */
typedef struct columns {
    long name, id, duration;
    long metric[NMETRICS];
    long stall[sizeof(stalls) / sizeof(stalls[0])];
} columns;

static void find_columns(columns *c, const pg_csv *t)
{
    size_t j, i;

    memset(c, 0xff, sizeof(*c)); /* every one -1 */
    for (j = 0; j < t->cols; j++) {
        const char *h = pg_csv_cell(t, 0, j);
        size_t len = strlen(h);
        if (!strcmp(h, "Kernel Name"))
            c->name = (long)j;
        else if (!strcmp(h, "ID"))
            c->id = (long)j;
        else if (!strcmp(h, DURATION))
            c->duration = (long)j;
        for (i = 0; i < NMETRICS; i++)
            if (!strcmp(h, metrics[i].ncu))
                c->metric[i] = (long)j;
        if (len > strlen(STALL_PREFIX) + strlen(STALL_SUFFIX) &&
            !strncmp(h, STALL_PREFIX, strlen(STALL_PREFIX)) &&
            !strcmp(h + len - strlen(STALL_SUFFIX), STALL_SUFFIX))
            for (i = 0; stalls[i]; i++)
                if (strlen(stalls[i]) ==
                        len - strlen(STALL_PREFIX) - strlen(STALL_SUFFIX) &&
                    !strncmp(h + strlen(STALL_PREFIX), stalls[i],
                             strlen(stalls[i])))
                    c->stall[i] = (long)j;
    }
}

/* Sums of a kernel's launches, before the means are taken. */
typedef struct acc {
    double sum[NMETRICS + sizeof(stalls) / sizeof(stalls[0])];
    double weight[NMETRICS + sizeof(stalls) / sizeof(stalls[0])];
} acc;

static pg_ncu_kernel *kernel_of(pg_ncu_side *s, acc **accs, const char *name)
{
    size_t i;

    for (i = 0; i < s->nkernels; i++)
        if (!strcmp(s->kernels[i].name, name))
            return &s->kernels[i];
    s->kernels =
        pg_realloc(s->kernels, (s->nkernels + 1) * sizeof(*s->kernels));
    *accs = pg_realloc(*accs, (s->nkernels + 1) * sizeof(**accs));
    memset(&s->kernels[s->nkernels], 0, sizeof(*s->kernels));
    memset(&(*accs)[s->nkernels], 0, sizeof(**accs));
    s->kernels[s->nkernels].name = pg_strdup(name);
    return &s->kernels[s->nkernels++];
}

/* Perfgate's own kernels (src/cuda/gpu.c) are not the side's. */
static int own_kernel(const char *name)
{
    return !strcmp(name, "pg_gate") || !strcmp(name, "pg_clock_probe");
}

static void add_launch(pg_ncu_kernel *k, acc *a, const pg_csv *t, size_t row,
                       const columns *c)
{
    double d = c->duration >= 0
                   ? number(pg_csv_cell(t, row, (size_t)c->duration))
                   : NAN;
    double w = isfinite(d) && d > 0 ? d : 1;
    size_t i;

    k->launches++;
    if (isfinite(d))
        k->duration_ns += d;
    for (i = 0; i < NMETRICS + sizeof(stalls) / sizeof(stalls[0]); i++) {
        long col = i < NMETRICS ? c->metric[i] : c->stall[i - NMETRICS];
        double v;
        if (col < 0)
            continue;
        v = number(pg_csv_cell(t, row, (size_t)col));
        if (!isfinite(v))
            continue;
        /* A sum adds up; a mean is weighted by the launch's time. */
        if (i < NMETRICS && metrics[i].how == SUM) {
            a->sum[i] += v;
            a->weight[i] = 1;
        } else {
            a->sum[i] += v * w;
            a->weight[i] += w;
        }
    }
}

static void finish(pg_ncu_kernel *k, const acc *a)
{
    size_t i;

    for (i = 0; i < NMETRICS + sizeof(stalls) / sizeof(stalls[0]); i++) {
        pg_ncu_value *v;
        if (!(a->weight[i] > 0) || k->nvalues >= PG_NCU_VALUES)
            continue;
        v = &k->values[k->nvalues++];
        if (i < NMETRICS) {
            v->label = metrics[i].label;
            v->unit = metrics[i].unit;
            v->value =
                metrics[i].how == SUM ? a->sum[i] : a->sum[i] / a->weight[i];
        } else {
            v->label = stall_labels[i - NMETRICS];
            v->unit = "warps";
            v->value = a->sum[i] / a->weight[i];
        }
    }
}

static int longer_first(const void *x, const void *y)
{
    double a = ((const pg_ncu_kernel *)x)->duration_ns;
    double b = ((const pg_ncu_kernel *)y)->duration_ns;

    return a > b ? -1 : a < b ? 1 : 0;
}

/* The report's CSV lines, without ncu's own ("==PROF== ...", "==ERROR==
 * ..."); the first error into *error. */
static char *csv_lines(const char *text, size_t len, char **error)
{
    pg_str out = PG_STR_INIT;
    const char *p = text, *end = text + len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (n >= 9 && !strncmp(p, "==ERROR==", 9)) {
            if (!*error) {
                char *line = pg_strdupf("%.*s", (int)(n > 300 ? 300 : n), p);
                *error = pg_text_clean(line + 9 + strspn(line + 9, " "));
                free(line);
            }
        } else if (n && *p == '"') {
            pg_str_put(&out, p, n);
            pg_str_putc(&out, '\n');
        }
        p += n + 1;
    }
    return pg_str_detach(&out);
}

int pg_ncu_read(pg_ncu_side *out, const char *path, char **why)
{
    char *text = NULL, *lines, *error = NULL;
    size_t len = 0, row;
    pg_csv t;
    columns c;
    acc *accs = NULL;
    int err;

    memset(out, 0, sizeof(*out));
    if (pg_read_file(&text, &len, path, REPORT_MAX) < 0) {
        *why = pg_strdupf("ncu wrote no report: %s", pg_error_last());
        return 1;
    }
    lines = csv_lines(text, len, &error);
    free(text);
    err = *lines ? pg_csv_parse(&t, lines, strlen(lines), path) : 1;
    free(lines);
    if (err < 0) {
        *why =
            pg_strdupf("ncu's report could not be read: %s", pg_error_last());
        free(error);
        return PG_ERR_USAGE;
    }
    if (err == 0) {
        find_columns(&c, &t);
        for (row = 1; c.name >= 0 && row < t.rows; row++) {
            const char *name = pg_csv_cell(&t, row, (size_t)c.name);
            char *base;
            pg_ncu_kernel *k;
            /* The row of units has no ID. */
            if (c.id >= 0 && !*pg_csv_cell(&t, row, (size_t)c.id))
                continue;
            base = pg_strdupf("%.*s", (int)strcspn(name, "("), name);
            if (*base && !own_kernel(base)) {
                k = kernel_of(out, &accs, base);
                add_launch(k, &accs[k - out->kernels], &t, row, &c);
            }
            free(base);
        }
        pg_csv_clear(&t);
    }
    for (row = 0; row < out->nkernels; row++)
        finish(&out->kernels[row], &accs[row]);
    free(accs);
    if (!out->nkernels) {
        *why = error ? pg_strdupf("ncu: %s", error)
                     : pg_strdup("ncu saw no kernel of the side's code run");
        free(error);
        return 1;
    }
    free(error);
    qsort(out->kernels, out->nkernels, sizeof(*out->kernels), longer_first);
    return 0;
}

void pg_ncu_side_clear(pg_ncu_side *s)
{
    size_t i;

    for (i = 0; i < s->nkernels; i++)
        free(s->kernels[i].name);
    free(s->kernels);
    memset(s, 0, sizeof(*s));
}

static const pg_ncu_kernel *find_kernel(const pg_ncu_side *s, const char *name)
{
    size_t i;

    for (i = 0; i < s->nkernels; i++)
        if (!strcmp(s->kernels[i].name, name))
            return &s->kernels[i];
    return NULL;
}

static double bigger(const double v[2])
{
    double a = isnan(v[0]) ? 0 : v[0], b = isnan(v[1]) ? 0 : v[1];

    return a > b ? a : b;
}

static double value_of(const pg_ncu_kernel *k, const char *label)
{
    size_t i;

    for (i = 0; k && i < k->nvalues; i++)
        if (!strcmp(k->values[i].label, label))
            return k->values[i].value;
    return NAN;
}

static void add_metric(pg_profile *p, const char *kernel, const char *label,
                       const char *unit, const pg_ncu_kernel *k[2])
{
    pg_profile_metric *m;
    int s;

    p->metrics =
        pg_realloc(p->metrics, (p->nmetrics + 1) * sizeof(*p->metrics));
    m = &p->metrics[p->nmetrics++];
    m->kernel = pg_strdup(kernel);
    m->name = pg_strdup(label);
    m->unit = pg_strdup(unit);
    for (s = 0; s < 2; s++)
        m->value[s] = value_of(k[s], label);
}

/* Kernel `name`'s metrics: the fixed ones in their order, then the stall
 * reasons that weigh most on either side. */
static void kernel_metrics(pg_profile *p, const char *name,
                           const pg_ncu_kernel *k[2])
{
    struct {
        double w;
        size_t i;
    } heavy[sizeof(stalls) / sizeof(stalls[0])];
    size_t i, j, n = 0;

    for (i = 0; i < NMETRICS; i++) {
        double v[2] = {value_of(k[0], metrics[i].label),
                       value_of(k[1], metrics[i].label)};
        if (!isnan(v[0]) || !isnan(v[1]))
            add_metric(p, name, metrics[i].label, metrics[i].unit, k);
    }
    /* The heaviest stalls, heaviest first (an insertion: a short list). */
    for (i = 0; stall_labels[i]; i++) {
        double v[2] = {value_of(k[0], stall_labels[i]),
                       value_of(k[1], stall_labels[i])};
        double w = bigger(v);
        if (!(w > 0))
            continue;
        for (j = n++; j > 0 && heavy[j - 1].w < w; j--)
            heavy[j] = heavy[j - 1];
        heavy[j].w = w;
        heavy[j].i = i;
    }
    for (i = 0; i < n && i < KEPT_STALLS; i++)
        add_metric(p, name, stall_labels[heavy[i].i], "warps", k);
}

/* A kernel of either side or both: what one row of the profile shows. */
typedef struct pair {
    const pg_ncu_kernel *k[2];
    char *name;
} pair;

static double pair_cost(const pair *x)
{
    double v[2] = {x->k[0] ? x->k[0]->duration_ns : NAN,
                   x->k[1] ? x->k[1]->duration_ns : NAN};

    return bigger(v);
}

static int costlier_pair_first(const void *x, const void *y)
{
    double a = pair_cost(x), b = pair_cost(y);

    return a > b ? -1 : a < b ? 1 : 0;
}

void pg_ncu_pair(pg_profile *p, const pg_ncu_side sides[2])
{
    pair *pairs =
        pg_calloc(sides[0].nkernels + sides[1].nkernels + 1, sizeof(*pairs));
    size_t i, n = 0, only[2] = {0, 0}, at[2] = {0, 0};
    int s;

    for (s = 0; s < 2; s++)
        for (i = 0; i < sides[s].nkernels; i++) {
            const pg_ncu_kernel *k = &sides[s].kernels[i];
            const pg_ncu_kernel *other = find_kernel(&sides[!s], k->name);
            if (s == 1 && other)
                continue;
            pairs[n].k[s] = k;
            pairs[n].k[!s] = other;
            pairs[n].name = pg_strdup(k->name);
            if (!other) {
                at[s] = n;
                only[s]++;
            }
            n++;
        }
    /* A kernel the change renamed (matmul_tiled on one side, matmul on the
     * other, and no other kernel on either side alone): one row, so that
     * its metrics stand side by side. */
    if (only[0] == 1 && only[1] == 1) {
        pair *b = &pairs[at[0]], *h = &pairs[at[1]];
        char *both = pg_strdupf("%s → %s", b->name, h->name);
        free(b->name);
        b->name = both;
        b->k[1] = h->k[1];
        free(h->name);
        pairs[at[1]] = pairs[--n];
    }
    qsort(pairs, n, sizeof(*pairs), costlier_pair_first);
    p->functions = pg_calloc(n + 1, sizeof(*p->functions));
    for (i = 0; i < n; i++) {
        if (i < KEPT_KERNELS) {
            pg_profile_row *r = &p->functions[p->nfunctions++];
            r->function = pg_strdup(pairs[i].name);
            for (s = 0; s < 2; s++)
                r->cost[s] = pairs[i].k[s] ? pairs[i].k[s]->duration_ns : NAN;
            r->self[0] = r->self[1] = NAN;
            if (i < METRIC_KERNELS)
                kernel_metrics(p, pairs[i].name, pairs[i].k);
        }
        free(pairs[i].name);
    }
    free(pairs);
}
