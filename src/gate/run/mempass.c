/*
 * mempass.c - the memory pass (mempass.h).
 */
#include "mempass.h"
#include "clock.h"
#include "protocol.h"
#include "run.h"
#include "str.h"
#include "trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

void pg_mempass_forget(pg_bench_result *out)
{
    size_t c;

    for (c = 0; c < out->ncases; c++)
        memset(out->cases[c].mem, 0, sizeof(out->cases[c].mem));
    out->memory.seconds = 0;
}

char *pg_mempass_failure(const pg_bench_result *m, int side)
{
    const char *name = pg_side_name(side ? PG_SIDE_HEAD : PG_SIDE_BASE);
    const char *why = m->message ? m->message : pg_status_name(m->status);
    size_t n = strlen(name);

    /* "head side: killed by ...": the side said once. */
    if (!strncmp(why, name, n) && !strncmp(why + n, " side: ", 7))
        why += n + 7;
    return pg_strdupf("the %s side's pass: %s", name, why);
}

/* Whether every case of side `side` is counted. */
static int side_counted(const pg_bench_result *out, int side)
{
    size_t c;

    for (c = 0; c < out->ncases; c++)
        if (!out->cases[c].mem[side].counted)
            return 0;
    return out->ncases > 0;
}

/* One side's pass into `out` (its side's figures); 0 or negative. */
static int run_side(pg_bench_result *out, const pg_run_spec *timed,
                    const char *spec_path, int side)
{
    pg_run_spec spec = *timed;
    pg_bench_result m;
    char *path = pg_strdupf("%s.mem%d", spec_path, side);
    size_t c;
    int err;

    pg_run_spec_native(&spec);
    spec.lib[!side] = NULL;
    spec.memory = PG_MEMPASS_CALLS;
    /* Checked, and timed, by the runs before: this one counts, and its
     * failure is said, not charged (verify_only: no run of the other side
     * alone after it). */
    spec.skip_checks = PG_CHECK_BEFORE | PG_CHECK_AFTER;
    spec.verify_only = 1;
    pg_bench_result_init(&m, out->name, NULL);
    if ((err = pg_run_bench(&m, &spec, path)) < 0)
        goto done;
    if (pg_status_failed(m.status) || m.status == PG_STATUS_SKIPPED) {
        free(out->memory.skipped);
        out->memory.skipped = pg_mempass_failure(&m, side);
        goto done;
    }
    for (c = 0; c < out->ncases && c < m.ncases; c++)
        if (m.cases[c].mem[side].counted)
            out->cases[c].mem[side] = m.cases[c].mem[side];
done:
    pg_bench_result_clear(&m);
    free(path);
    return err;
}

/* Each side present that a check did not count, counted apart. */
static int count_apart(pg_bench_result *out, const pg_run_spec *timed,
                       const char *spec_path)
{
    char *lib;
    int64_t start;
    int side, err = 0;

    if ((!timed->lib[0] || side_counted(out, 0)) &&
        (!timed->lib[1] || side_counted(out, 1)))
        return 0;
    if (!(lib = pg_run_memory_library())) {
        out->memory.skipped = pg_strdup(
            "libperfgate-memory.so is not installed beside perfgate-measure "
            "(a sanitizer's build has none)");
        return 0;
    }
    free(lib);
    pg_mempass_forget(out);
    start = pg_now_ns();
    for (side = 1; side >= 0 && !err && !out->memory.skipped; side--)
        if (timed->lib[side])
            err = run_side(out, timed, spec_path, side);
    out->memory.seconds = (double)(pg_now_ns() - start) / 1e9;
    pg_trace("%s: the heap counted apart, over %d calls of each case and "
             "side",
             out->name, PG_MEMPASS_CALLS);
    return err;
}

int pg_mempass_run(pg_bench_result *out, const pg_run_spec *timed,
                   const char *spec_path, int batch)
{
    size_t c;
    int s, err = 0;

    if (!out->memory.skipped)
        err = count_apart(out, timed, spec_path);
    if (err < 0 || out->memory.skipped) {
        pg_mempass_forget(out);
        return err;
    }
    /* Per call of the function; a peak is a timed call's, whose calls
     * may each free what they took. */
    for (c = 0; c < out->ncases && batch > 1; c++)
        for (s = 0; s < 2; s++) {
            pg_memory_use *u = &out->cases[c].mem[s];
            u->allocs /= batch;
            u->bytes /= batch;
            u->leaked /= batch;
            u->mapped /= batch;
            u->unknown_frees /= batch;
        }
    return 0;
}
