/*
 * watch.c - keeping the record of what perfgate-measure is doing (watch.h).
 * The fences order the writes for the parent that reads them from shared
 * memory at any moment.
 */
#include "watch.h"
#include "clock.h"

#include <stddef.h>

#include "banned.h"

void pg_watch_enter(pg_watch *w, int side)
{
    if (!w)
        return;
    w->since_ns = pg_now_ns();
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    w->side = side;
}

void pg_watch_leave(pg_watch *w)
{
    if (!w)
        return;
    w->side = -1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void pg_watch_call(pg_watch *w, pg_call call, int case_index)
{
    if (!w)
        return;
    /* Dated before it is named: the parent times a call of the problem's
     * own (no side's) from since_ns, and a call named beside the date of
     * an earlier one, or beside none (0, at the first call), read as a
     * call that had run for minutes or since boot, and was stopped as
     * hung (about 1 count in 100 beside a busy neighbour, where valgrind
     * translating pg_now_ns() widened the gap). */
    w->since_ns = pg_now_ns();
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    w->case_index = case_index;
    w->call = (int)call;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

const char *pg_call_name(int call)
{
    static const char *const names[] = {NULL,      NULL,      "setup()",
                                        "run()",   "run()",   "verify()",
                                        "flops()", "bytes()", "teardown()"};

    if (call < 0 || call >= (int)(sizeof(names) / sizeof(names[0])))
        return NULL;
    return names[call];
}
