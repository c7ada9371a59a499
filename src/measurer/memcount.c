/*
 * memcount.c - the memory pass of perfgate-measure: what each side's calls
 * ask of the allocator, counted exactly.
 *
 * perfgate starts this process with libperfgate-memory.so preloaded
 * (memshim.c) and "memory N" in the spec (src/gate/run/mempass.c).  Each
 * side present runs on its own set-up of each case: one call first,
 * uncounted (what a first call does once, a lazy table or a buffer kept
 * for the next calls, is not what each call costs), then N calls, each
 * between two readings of the shim's counts.  A function's results that
 * the caller frees (returns:) are freed between the calls by the problem's
 * between(), as in the timing loop: a result is what a call allocates,
 * and not what it leaves.  The set-ups, the checks and
 * perfgate-measure's own work are outside every reading; the problem's
 * run() around the solution is inside, as it is in the timed calls.
 */
#include "child.h"
#include "clock.h"
#include "memshim.h"
#include "sides.h"

#include <dlfcn.h>
#include <stdio.h>

#include "banned.h"

/* The problem's between() (problem.h), as the timing loop calls it
 * before a batch: what run() kept for the caller to free (a function's
 * results, `returns:`), freed but the newest, outside every reading. */
static void between(const pg_target *t)
{
    if (t->problem->between)
        t->problem->between(t->state);
}

/* Side `side` on case `c`: its figures over `calls` calls, sent. */
static void count_case(child_ctx *ctx, sides *st, pg_memshim_read_fn read,
                       int side, size_t c, int calls)
{
    const pg_target *t = &st->own[c][side];
    pg_memshim_counts start, before, after;
    uint64_t peak = 0;
    int64_t began = pg_now_ns();
    int i;

    pg_child_calling(ctx, PG_CALL_RUN, side, c);
    t->problem->run(t->state, t->fn);
    between(t);
    read(&start, 1);
    for (i = 0; i < calls; i++) {
        read(&before, 1);
        t->problem->run(t->state, t->fn);
        read(&after, 0);
        if (after.peak > before.live && after.peak - before.live > peak)
            peak = after.peak - before.live;
        between(t);
    }
    read(&after, 0);
    pg_child_called_out(ctx);
    pg_child_send(
        ctx, PG_EV_MEMORY_FMT, c, side, calls,
        (unsigned long long)(after.allocs - start.allocs),
        (unsigned long long)(after.frees - start.frees),
        (unsigned long long)(after.bytes - start.bytes),
        (unsigned long long)peak, (long long)(after.live - start.live),
        (unsigned long long)(after.mapped - start.mapped),
        (unsigned long long)(after.unknown_frees - start.unknown_frees),
        (unsigned long long)(after.untracked - start.untracked),
        (long long)(pg_now_ns() - began));
}

int pg_sides_memory(child_ctx *ctx, sides *st)
{
    const pg_run_spec *spec = ctx->spec;
    pg_memshim_read_fn read;
    size_t c;
    int side;

    *(void **)&read = dlsym(RTLD_DEFAULT, PG_MEMSHIM_READ);
    if (!read)
        return pg_child_fail(ctx, "skipped", -1,
                             "libperfgate-memory.so was not preloaded");
    for (side = 1; side >= 0; side--)
        if (spec->lib[side])
            for (c = 0; c < spec->ncases; c++)
                count_case(ctx, st, read, side, c, spec->memory);
    return 0;
}
