/*
 * child.h - what the measuring child's parts share: its context, how it
 * speaks to perfgate (events on its channel, protocol.h), how it marks a
 * call into user code for the watch, and the sides it loads and sets up
 * (sides.c).  Private to src/measurer.
 */
#ifndef PG_CHILD_H
#define PG_CHILD_H

#include <stddef.h>
#include <stdint.h>

#include "gpu.h"
#include "measure.h"
#include "plugin.h"
#include "protocol.h"
#include "runspec.h"
#include "watch.h"

/* How many places each side's code is timed at, and the most memory its
 * copies may take (sides.c's place_copies). */
enum { PLACEMENTS = PG_PLACEMENTS_MOST, PLACEMENT_BYTES = 64 << 20 };

/* "base", "head": a side's name in events. */
extern const char *const pg_child_side_names[2];

typedef struct child_ctx {
    const pg_run_spec *spec;
    pg_watch *watch;
    int fd;
    int64_t last_progress;
    pg_gpu *gpu;     /* CUDA solutions; else NULL */
    double *samples; /* pg_measure_opts.keep_samples */
} child_ctx;

/* What one measuring run loads and sets up, side by side. */
typedef struct sides {
    const pg_problem *p;
    void *lib;                   /* the last library loaded */
    void *handle[2];             /* each side's */
    pg_fn syms[2];               /* each side's solution */
    pg_fn placed[2][PLACEMENTS]; /* and its copies at other addresses */
    size_t nplaced[2];
    const pg_memory_ops *memory; /* the device's, or NULL: the host's */
    pg_case *cases;              /* [case][base, head, shared] */
    pg_target (*own)[2];         /* each side on its own set-up */
    pg_target (*targets)[2];     /* both timed on the shared set-up */
    int order[2];                /* the side of each target index */
    int n;                       /* sides measured */
} sides;

/*
 * What a step returns when it has reported a failure to perfgate (the
 * child's one convention): the run stops there, and each caller passes
 * REPORTED up as it is.  0: the step went on.
 */
#define REPORTED 1

/* An event line to perfgate (printf-style), with the run's token. */
void pg_child_send(child_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Reports a failure (STATUS, the side it belongs to or -1, why) to
 * perfgate; returns REPORTED, for the caller to pass up. */
int pg_child_fail(child_ctx *ctx, const char *status, int side, const char *fmt,
                  ...) __attribute__((format(printf, 4, 5)));

/* Under compare -v: a step, said as a "trace" event. */
void pg_child_trace(child_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Marks a call into the problem or a side's code (pg_watch): `side` is
 * the side whose code it may run (-1: the problem's alone), `index` the
 * case (-1: none).  A crash or hang until pg_child_called_out() is named
 * by it.
 */
void pg_child_calling(child_ctx *ctx, pg_call call, int side, size_t index);
void pg_child_called_out(child_ctx *ctx);

/* pg_measure_opts.on_round: progress, at most ten times a second. */
void pg_child_on_round(void *payload, int round, double elapsed);

#endif
