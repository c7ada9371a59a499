/*
 * cases.c - a benchmark's cases, asked of its problem (cases.h).
 */
#include "cases.h"
#include "box.h"
#include "error.h"
#include "fs.h"
#include "plugin.h"
#include "proc.h"
#include "protocol.h"
#include "run.h"
#include "str.h"
#include "strvec.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

typedef struct describe_ctx {
    const char *lib, *name;
    char *default_cases;
    char *device_cases; /* NULL: the problem has none */
    double *bytes;      /* per configured case: what bytes() says, or NAN */
    size_t nbytes;
} describe_ctx;

static void describe_line(void *payload, const char *line)
{
    describe_ctx *d = payload;
    char word[8];
    const char *rest = pg_proc_message(line, NULL, word, sizeof(word));

    if (!rest)
        return;
    if (!strcmp(word, PG_EV_CASES)) {
        free(d->default_cases);
        d->default_cases = pg_strdup(rest);
    } else if (!strcmp(word, PG_EV_DEVICE)) {
        free(d->device_cases);
        d->device_cases = pg_strdup(rest);
    } else if (!strcmp(word, PG_EV_ERROR)) {
        pg_error_set(PG_ERR_USAGE, "%s", rest);
    } else if (!strcmp(word, PG_EV_BYTES)) {
        size_t i;
        double v;
        if (sscanf(rest, "%zu %lg", &i, &v) == 2 && i < d->nbytes)
            d->bytes[i] = v;
    }
}

/*
 * A case too large for this machine is a config error, found before any
 * side runs: each case is set up three times (base, head, and the copy
 * both are timed on), and a run may map half the machine's memory.  Left
 * to run, it was blamed on the head as a crash, or overflowed a problem's
 * size arithmetic.
 */
static int check_case_sizes(const pg_bench_config *b, const char *config_path,
                            const describe_ctx *d)
{
    double limit = (double)pg_proc_memory_limit();
    size_t i;

    for (i = 0; i < d->nbytes && limit > 0; i++) {
        double need = 3 * d->bytes[i];
        pg_str want = PG_STR_INIT, have = PG_STR_INIT;
        int err;
        if (isnan(d->bytes[i]) || (need >= 0 && need <= limit))
            continue;
        if (isfinite(need) && need >= 0)
            pg_format_bytes(&want, need);
        else
            pg_str_puts(&want, "more than can exist");
        pg_format_bytes(&have, limit);
        err = pg_error_set(PG_ERR_USAGE,
                           "%s:%d:%d: case '%s' needs about %s (three "
                           "set-ups of what one call moves); a run may use "
                           "%s here, half the machine's memory",
                           config_path, b->cases[i].mark.line,
                           b->cases[i].mark.col, b->cases[i].name,
                           pg_str_cstr(&want), pg_str_cstr(&have));
        pg_str_clear(&want);
        pg_str_clear(&have);
        return err;
    }
    return 0;
}

/*
 * Loads the problem in perfgate-measure (its code is not trusted to leave
 * perfgate standing, nor loaded beside perfgate's libraries) to learn its
 * default cases, then checks the
 * benchmark's cases against them.  Fills *cases with what to run.
 */
/* Asks perfgate-measure what the problem of `b` says about itself. */
static int describe(describe_ctx *d, const pg_bench_config *b,
                    const char *problem_lib)
{
    pg_proc_opts opts;
    pg_proc_result res;
    pg_box box = {{NULL}, {NULL}, {NULL}};
    pg_str wanted = PG_STR_INIT;
    char *argv[6];
    size_t i;
    int err;

    memset(&opts, 0, sizeof(opts));
    opts.timeout = 30;
    /* The problem's code, loaded: boxed, writing nothing. */
    box.show[0] = problem_lib;
    opts.box = &box;
    opts.on_line = describe_line;
    opts.payload = d;
    argv[0] = (char *)pg_run_program_path();
    argv[1] = "--describe";
    argv[2] = (char *)problem_lib;
    argv[3] = (char *)b->problem;
    argv[4] = NULL;
    if (b->ncases) {
        /* And what each configured case would move. */
        d->bytes = pg_calloc(b->ncases, sizeof(*d->bytes));
        d->nbytes = b->ncases;
        for (i = 0; i < b->ncases; i++) {
            d->bytes[i] = NAN;
            pg_str_printf(&wanted, "%s%s", i ? ";" : "", b->cases[i].name);
        }
        argv[4] = (char *)pg_str_cstr(&wanted);
        argv[5] = NULL;
    }
    pg_error_clear();
    err = pg_proc_run_argv(&res, argv, &opts);
    if (!err && res.not_run)
        err = pg_run_program_missing();
    pg_proc_result_clear(&res);
    pg_str_clear(&wanted);
    if (err < 0)
        return err;
    if (!d->default_cases)
        return pg_error_last()
                   ? PG_ERR_USAGE
                   : pg_error_set(PG_ERR_USAGE,
                                  "problem '%s' crashed while loading",
                                  b->problem);
    return 0;
}

int pg_cases_of(pg_casespec **cases, size_t *ncases, int *owned,
                const pg_bench_config *b, const char *config_path,
                const char *problem_lib)
{
    describe_ctx d = {problem_lib, b->problem, NULL, NULL, NULL, 0};
    const char *defaults_text;
    pg_casespec *defaults = NULL;
    size_t ndefaults = 0, i;
    int err;

    if ((err = describe(&d, b, problem_lib)) < 0)
        goto done;
    /* A kernel's default cases are the device's, when the problem has
     * them. */
    defaults_text = d.device_cases && !strcmp(b->language, "cuda")
                        ? d.device_cases
                        : d.default_cases;
    if (pg_casespecs_parse(&defaults, &ndefaults, defaults_text) < 0) {
        err = pg_error_set(PG_ERR_USAGE,
                           "problem '%s': malformed %s \"%s\" "
                           "(want \"key=value,key=value; ...\")",
                           b->problem,
                           defaults_text == d.default_cases ? "default_cases"
                                                            : "device_cases",
                           defaults_text);
        goto done;
    }
    for (i = 0; defaults_text != d.default_cases && i < ndefaults; i++) {
        pg_str why = PG_STR_INIT;
        if (pg_plugin_check_case(b->problem, d.default_cases, &defaults[i],
                                 &why) < 0) {
            err = pg_error_set(PG_ERR_USAGE, "problem '%s': device_cases: %s",
                               b->problem, pg_str_cstr(&why));
            pg_str_clear(&why);
            goto done;
        }
    }
    if (b->ncases) {
        for (i = 0; i < b->ncases; i++) {
            pg_str why = PG_STR_INIT;
            if (pg_plugin_check_case(b->problem, d.default_cases, &b->cases[i],
                                     &why) < 0) {
                err = pg_error_set(PG_ERR_USAGE, "%s:%d:%d: %s", config_path,
                                   b->cases[i].mark.line, b->cases[i].mark.col,
                                   pg_str_cstr(&why));
                pg_str_clear(&why);
                goto done;
            }
        }
        if ((err = check_case_sizes(b, config_path, &d)) < 0)
            goto done;
        *cases = b->cases;
        *ncases = b->ncases;
        *owned = 0;
    } else {
        *cases = defaults;
        *ncases = ndefaults;
        *owned = 1;
        defaults = NULL;
        ndefaults = 0;
    }
done:
    for (i = 0; i < ndefaults; i++)
        pg_casespec_clear(&defaults[i]);
    free(defaults);
    free(d.default_cases);
    free(d.device_cases);
    free(d.bytes);
    return err;
}
