/*
 * nvbench.c - an nvbench program's command line and output (nvbench.h).
 */
#include "nvbench.h"
#include "fs.h"
#include "str.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* The most cases one listing may make, as suite.c's listings go. */
#define MAX_CASES 100000
/* The most values one axis may list. */
#define MAX_VALUES 4096

/* One axis of the benchmark being listed: "Name=" or "Name[pow2]=" and
 * the values its listing gives. */
typedef struct list_axis {
    char *head;
    pg_strvec values;
} list_axis;

typedef struct list_state {
    char *bench;
    list_axis *axes;
    size_t naxes;
    int failed;
} list_state;

/* The text between the first pair of backticks of `line`, or NULL. */
static char *quoted(const char *line)
{
    const char *a = strchr(line, '`'), *b;

    if (!a || !(b = strchr(a + 1, '`')) || b == a + 1)
        return NULL;
    return pg_strdupf("%.*s", (int)(b - a - 1), a + 1);
}

/* Every combination of the listed benchmark's axis values, as names. */
static void emit(pg_strvec *names, list_state *ls)
{
    size_t *at, k, total = 1;
    pg_str name = PG_STR_INIT;

    if (!ls->bench)
        return;
    for (k = 0; k < ls->naxes; k++) {
        total *= ls->axes[k].values.n;
        if (total == 0 || total > MAX_CASES) {
            ls->failed = total != 0;
            return;
        }
    }
    if (names->n + total > MAX_CASES) {
        ls->failed = 1;
        return;
    }
    at = pg_calloc(ls->naxes + 1, sizeof(*at));
    for (;;) {
        pg_str_reset(&name);
        pg_str_puts(&name, ls->bench);
        for (k = 0; k < ls->naxes; k++)
            pg_str_printf(&name, "/%s%s", ls->axes[k].head,
                          ls->axes[k].values.v[at[k]]);
        pg_strvec_push(names, pg_str_cstr(&name));
        /* The last axis turns fastest. */
        for (k = ls->naxes; k > 0; k--) {
            if (++at[k - 1] < ls->axes[k - 1].values.n)
                break;
            at[k - 1] = 0;
        }
        if (k == 0)
            break;
    }
    free(at);
    pg_str_clear(&name);
}

static void drop(list_state *ls)
{
    size_t k;

    for (k = 0; k < ls->naxes; k++) {
        free(ls->axes[k].head);
        pg_strvec_clear(&ls->axes[k].values);
    }
    free(ls->axes);
    free(ls->bench);
    ls->axes = NULL;
    ls->naxes = 0;
    ls->bench = NULL;
}

/* "* `Elements` : int64 [pow2]": a new axis of the benchmark. */
static int take_axis(list_state *ls, const char *line)
{
    char *name = quoted(line);
    const char *flags = strrchr(line, '[');
    list_axis *a;

    if (!ls->bench || !name || strchr(name, '/') || strchr(name, '='))
        goto bad;
    ls->axes = pg_realloc(ls->axes, (ls->naxes + 1) * sizeof(*ls->axes));
    a = &ls->axes[ls->naxes++];
    memset(a, 0, sizeof(*a));
    /* Its flags as --axis takes them: "Elements[pow2]=24". */
    if (flags && strchr(line, '`') < flags && strchr(flags, ']'))
        a->head = pg_strdupf("%s%.*s=", name,
                             (int)(strchr(flags, ']') - flags + 1), flags);
    else
        a->head = pg_strdupf("%s=", name);
    free(name);
    return 0;
bad:
    free(name);
    return -1;
}

/* "  * `24` (2^24 = 16777216)": a value of the latest axis. */
static int take_value(list_state *ls, const char *line)
{
    char *v = quoted(line);
    pg_strvec *values;

    if (!ls->naxes || !v)
        goto bad;
    values = &ls->axes[ls->naxes - 1].values;
    if (values->n >= MAX_VALUES)
        goto bad;
    pg_strvec_push(values, v);
    free(v);
    return 0;
bad:
    free(v);
    return -1;
}

/* One line of the "# Benchmarks" section. */
static int take_line(pg_strvec *names, list_state *ls, const char *line)
{
    if (!strncmp(line, "## [", 4)) {
        emit(names, ls);
        drop(ls);
        if (ls->failed || !(ls->bench = quoted(line)))
            return -1;
        return 0;
    }
    if (!strncmp(line, "* `", 3))
        return take_axis(ls, line);
    if (!strncmp(line, "  * `", 5))
        return take_value(ls, line);
    /* "### Axes", blank lines, and what a later printer may add. */
    return 0;
}

int pg_nvbench_take_list(pg_strvec *names, const char *text)
{
    list_state ls;
    const char *line = text;
    int in = 0, seen = 0, err = 0;

    memset(&ls, 0, sizeof(ls));
    while (*line && err == 0) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        char *l = pg_strdupf("%.*s", (int)len, line);
        if (len && l[len - 1] == '\r')
            l[len - 1] = '\0';
        if (!strncmp(l, "# ", 2)) {
            in = !strcmp(l, "# Benchmarks");
            seen |= in;
        } else if (in) {
            err = take_line(names, &ls, l);
        }
        free(l);
        if (!end)
            break;
        line = end + 1;
    }
    if (err == 0) {
        emit(names, &ls);
        err = ls.failed ? -1 : 0;
    }
    drop(&ls);
    return err == 0 && seen ? 0 : -1;
}

/* Whether `p` starts an axis of a case's name: "Name=" or
 * "Name[flags]=". */
static int axis_head(const char *p)
{
    size_t n = strcspn(p, "/=[]");

    if (n == 0)
        return 0;
    p += n;
    if (*p == '[') {
        const char *close = strchr(p, ']');
        if (!close || memchr(p, '/', (size_t)(close - p)))
            return 0;
        p = close + 1;
    }
    return *p == '=';
}

/* Where the axes of case `name` start: its first '/' before an axis,
 * or its end. */
static const char *axes_of(const char *name)
{
    const char *p;

    for (p = strchr(name, '/'); p; p = strchr(p + 1, '/'))
        if (axis_head(p + 1))
            return p;
    return name + strlen(name);
}

char *pg_nvbench_bench_name(const char *name)
{
    return pg_strdupf("%.*s", (int)(axes_of(name) - name), name);
}

int pg_nvbench_args(pg_strvec *args, const char *name, uint64_t samples,
                    const char *json)
{
    const char *p = axes_of(name);

    if (p == name)
        return -1;
    pg_strvec_push(args, "--benchmark");
    pg_strvec_pushf(args, "%.*s", (int)(p - name), name);
    while (*p == '/') {
        const char *next = p + 1;
        /* The value runs to the next axis (a value may hold a '/'). */
        while ((next = strchr(next, '/')) && !axis_head(next + 1))
            next++;
        if (!next)
            next = p + strlen(p);
        pg_strvec_push(args, "--axis");
        pg_strvec_pushf(args, "%.*s", (int)(next - p - 1), p + 1);
        p = next;
    }
    /* Exactly `samples`: its own rule (a total time, a noise) met as soon
     * as the count is. */
    pg_strvec_push(args, "--min-samples");
    pg_strvec_pushf(args, "%llu", (unsigned long long)(samples ? samples : 1));
    pg_strvec_push(args, "--min-time");
    pg_strvec_push(args, "0");
    pg_strvec_push(args, "--max-noise");
    pg_strvec_push(args, "1e9");
    pg_strvec_push(args, "--json");
    pg_strvec_push(args, json);
    return 0;
}

/* A summary's "value" datum, as a number (nvbench writes them as
 * strings; older ones as numbers); NAN when it has none. */
static double datum(const cJSON *summary)
{
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(summary, "data"), *d;

    if (!data) /* an older printer's "values" */
        data = cJSON_GetObjectItemCaseSensitive(summary, "values");
    cJSON_ArrayForEach(d, data)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(d, "name");
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(d, "value");
        char *end;
        double x;
        if (!cJSON_IsString(n) || strcmp(n->valuestring, "value"))
            continue;
        if (cJSON_IsNumber(v))
            return v->valuedouble;
        if (!cJSON_IsString(v))
            return NAN;
        x = strtod(v->valuestring, &end);
        return end != v->valuestring && !*end ? x : NAN;
    }
    return NAN;
}

/* The value of the summary tagged `prefix``tag` of a state; NAN when it
 * has none. */
static double summary(const cJSON *state, const char *prefix, const char *tag)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(state, "summaries");
    const cJSON *s;
    size_t np = strlen(prefix);

    cJSON_ArrayForEach(s, list)
    {
        /* Listed with their tags, or (older) keyed by them. */
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, "tag");
        const char *name = cJSON_IsString(t) ? t->valuestring : s->string;
        if (name && !strncmp(name, prefix, np) && !strcmp(name + np, tag))
            return datum(s);
    }
    return NAN;
}

/* The benchmark `name` of a run's output, or NULL. */
static const cJSON *bench_of(const cJSON *root, const char *name)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "benchmarks");
    const cJSON *b;

    cJSON_ArrayForEach(b, list)
    {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(b, "name");
        if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
            return b;
    }
    return NULL;
}

/* The state measured: the first run (several GPUs each run it), or the
 * first skipped when none ran. */
static const cJSON *state_of(const cJSON *bench)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(bench, "states");
    const cJSON *s, *skipped = NULL;

    cJSON_ArrayForEach(s, list)
    {
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "is_skipped")))
            return s;
        if (!skipped)
            skipped = s;
    }
    return skipped;
}

/* Its time and rates, from the summaries of `prefix` ("nv/cold/"). */
static int take_times(pg_nvbench_state *st, const cJSON *state,
                      const char *prefix, const char *time_tag)
{
    double mean = summary(state, prefix, time_tag), rate;

    if (!(mean >= 0) || !isfinite(mean))
        return -1;
    st->ns = mean * 1e9;
    st->samples = summary(state, prefix, "sample_size");
    if (!(st->samples >= 1))
        st->samples = 0;
    rate = summary(state, prefix, "bw/global/bytes_per_second");
    st->bytes = rate > 0 && isfinite(rate) ? rate * mean : 0;
    rate = summary(state, prefix, "bw/item_rate");
    st->items = rate > 0 && isfinite(rate) ? rate * mean : 0;
    return 0;
}

int pg_nvbench_read(pg_nvbench_state *st, const char *text, size_t len,
                    const char *name)
{
    cJSON *root;
    const cJSON *bench, *state;

    memset(st, 0, sizeof(*st));
    st->ns = NAN;
    if (!(root = cJSON_ParseWithLength(text, len))) {
        st->error = pg_strdup("its output is not JSON");
        return -1;
    }
    if (!(bench = bench_of(root, name)) || !(state = state_of(bench))) {
        st->error = pg_strdupf("its output has no state of %s", name);
    } else if (cJSON_IsTrue(
                   cJSON_GetObjectItemCaseSensitive(state, "is_skipped"))) {
        const cJSON *why =
            cJSON_GetObjectItemCaseSensitive(state, "skip_reason");
        st->skipped =
            pg_strdup(cJSON_IsString(why) ? why->valuestring : "(no reason)");
    } else if (take_times(st, state, "nv/cold/", "time/gpu/mean") < 0 &&
               take_times(st, state, "nv/cpu_only/", "time/cpu/mean") < 0) {
        st->error = pg_strdup("its output gives no cold GPU time "
                              "(nv/cold/time/gpu/mean) nor CPU-only time "
                              "(nv/cpu_only/time/cpu/mean)");
    }
    cJSON_Delete(root);
    return st->error ? -1 : 0;
}

void pg_nvbench_state_clear(pg_nvbench_state *st)
{
    free(st->skipped);
    free(st->error);
    st->skipped = st->error = NULL;
}

int pg_nvbench_keep(pg_strvec *names, char **why, const char *filter)
{
    pg_strvec kept = PG_STRVEC_INIT;
    regex_t re;
    size_t i;

    if (regcomp(&re, filter, REG_EXTENDED | REG_NOSUB) != 0) {
        *why = pg_strdupf("filter '%s' is not an extended regular expression",
                          filter);
        return 1;
    }
    for (i = 0; i < names->n; i++)
        if (regexec(&re, names->v[i], 0, NULL, 0) == 0)
            pg_strvec_push(&kept, names->v[i]);
    regfree(&re);
    pg_strvec_clear(names);
    *names = kept;
    return 0;
}

char *pg_nvbench_skipped(const char *json, const char *name)
{
    pg_nvbench_state st;
    char *text = NULL, *bench = pg_nvbench_bench_name(name), *why = NULL;
    size_t len;

    memset(&st, 0, sizeof(st));
    if (pg_read_regular_file(&text, &len, json, PG_NVBENCH_MAX_OUTPUT) == 0 &&
        pg_nvbench_read(&st, text, len, bench) == 0 && st.skipped) {
        why = st.skipped;
        st.skipped = NULL;
    }
    pg_nvbench_state_clear(&st);
    free(bench);
    free(text);
    return why;
}
