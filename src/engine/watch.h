/*
 * watch.h - what perfgate-measure is doing now: which side's code it is in,
 * since when, and which function of the problem it called, so that the
 * supervising parent charges a hang or a crash to the right side and names
 * the call (run.c reads it; measure.c and the measuring child keep it).
 */
#ifndef PG_WATCH_H
#define PG_WATCH_H

#include <stdint.h>

/*
 * What perfgate-measure is calling, so that a crash or a hang is named by
 * the function of the problem (or the side's code) it happened in.
 */
typedef enum pg_call {
    PG_CALL_NONE = 0,
    PG_CALL_LOAD,     /* loading a side's library: its constructors */
    PG_CALL_SETUP,    /* the problem's setup() */
    PG_CALL_RUN,      /* run() with a side's solution */
    PG_CALL_STAND_IN, /* run() with the empty stand-in (the harness's cost) */
    PG_CALL_VERIFY,   /* the problem's verify() */
    PG_CALL_FLOPS,    /* the problem's flops() */
    PG_CALL_BYTES,    /* the problem's bytes() */
    PG_CALL_TEARDOWN  /* the problem's teardown() */
} pg_call;

/* "setup()", "run()", ... ; NULL for PG_CALL_NONE and PG_CALL_LOAD. */
const char *pg_call_name(int call);

/*
 * Shared with the supervising parent (it lives in shared memory): which
 * side is running user code now and since when, so that a hang or a crash
 * is charged to the right side.  The timeout is for one stretch in user
 * code (a call, or one batch of calls), not the sum of them: a long
 * max_time must not make correct code time out.
 */
typedef struct pg_watch {
    volatile int side;         /* PG_BASE, PG_HEAD, or -1: neither */
    volatile int64_t since_ns; /* pg_now_ns() when `side` was entered */
    volatile int call;         /* pg_call: what is being called */
    volatile int case_index;   /* on which case, or -1 */
} pg_watch;

/* `side` entered now, and left; `w` may be NULL (nobody watches). */
void pg_watch_enter(pg_watch *w, int side);
void pg_watch_leave(pg_watch *w);

/* Says what is called next, on which case (-1: none), and dates it now
 * (since_ns) before it names it; `w` may be NULL. */
void pg_watch_call(pg_watch *w, pg_call call, int case_index);

#endif
