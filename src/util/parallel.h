/*
 * parallel.h - independent pieces of work spread over the machine's CPUs.
 */
#ifndef PG_PARALLEL_H
#define PG_PARALLEL_H

#include <stddef.h>

/* The most threads pg_parallel_for() starts. */
#define PG_PARALLEL_MAX 8

/*
 * Calls fn(payload, i) once for each i in [0, n), on up to as many threads
 * as the machine has CPUs online (at most PG_PARALLEL_MAX; this one among
 * them), in no order.  fn must touch only what piece i owns, and call
 * nothing that keeps state between calls (pg_error_set() does).  Where no
 * thread can be started, all on this one: the results do not depend on how
 * many ran.
 */
void pg_parallel_for(size_t n, void (*fn)(void *payload, size_t i),
                     void *payload);

#endif
