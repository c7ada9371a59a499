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
        const char *name = pg_side_name(side ? PG_SIDE_HEAD : PG_SIDE_BASE);
        const char *why = m.message ? m.message : pg_status_name(m.status);
        size_t n = strlen(name);
        /* "head side: killed by ...": the side said once. */
        if (!strncmp(why, name, n) && !strncmp(why + n, " side: ", 7))
            why += n + 7;
        free(out->memory.skipped);
        out->memory.skipped = pg_strdupf("the %s side's pass: %s", name, why);
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

int pg_mempass_run(pg_bench_result *out, const pg_run_spec *timed,
                   const char *spec_path, int batch)
{
    char *lib = pg_run_memory_library();
    int64_t start = pg_now_ns();
    size_t c;
    int side, s, err = 0;

    if (!lib) {
        out->memory.skipped = pg_strdup(
            "libperfgate-memory.so is not installed beside perfgate-measure "
            "(a sanitizer's build has none)");
        return 0;
    }
    free(lib);
    for (side = 1; side >= 0 && !err && !out->memory.skipped; side--)
        if (timed->lib[side])
            err = run_side(out, timed, spec_path, side);
    out->memory.seconds = (double)(pg_now_ns() - start) / 1e9;
    if (err < 0 || out->memory.skipped) {
        for (c = 0; c < out->ncases; c++)
            memset(out->cases[c].mem, 0, sizeof(out->cases[c].mem));
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
    pg_trace("%s: the heap counted over %d calls of each case and side",
             out->name, PG_MEMPASS_CALLS);
    return 0;
}
