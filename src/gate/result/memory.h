/*
 * memory.h - the heap per call, judged and said.
 *
 * A memory pass (src/gate/run/mempass.c) counts, exactly, what each side's
 * calls ask of the allocator: blocks, bytes, the peak of live bytes within
 * a call, and what a call leaves allocated.  The same code gives the same
 * figures to the byte, so there is no noise to wait out: a change is a
 * change.  What gates (memory: gate) is a change beyond the floor: any
 * allocation more per call, or a peak more than memory_floor (5%) higher,
 * in any case.  A head that leaves more allocated per call than its base
 * is named whatever the mode.
 */
#ifndef PG_MEMORY_H
#define PG_MEMORY_H

#include <cjson/cJSON.h>

#include "result.h"
#include "str.h"

/* Counted on both sides (or on the head alone, for a new benchmark). */
int pg_memory_counted(const pg_bench_result *b);

/*
 * Decides b->memory from the cases' figures: its totals, its status
 * (regression when any case is beyond the floor, improvement when some
 * case is better beyond it and none worse), the case that decided it (or
 * the first that differs at all, within the floor), and whether the head
 * adds a leak.
 */
void pg_memory_judge(pg_bench_result *b);

/* 1 when b's memory fails the gate: memory: gate and a regression. */
int pg_memory_fails_gate(const pg_bench_result *b);

/*
 * What changed, for people: "+1 allocation, +64 B per call; peak 64 B →
 * 128 B; leaks 16 B per call more" (nothing when nothing changed).
 */
void pg_memory_describe_change(pg_str *out, const pg_memory_use *base,
                               const pg_memory_use *head);

/* One side's figures: "2 allocations, 128 B, peak 128 B per call". */
void pg_memory_describe(pg_str *out, const pg_memory_use *u);

/* The JSON of b->memory ("memory" in the benchmark) and of a case's
 * figures; and both read back (anything out of range is not counted). */
void pg_memory_add_json(cJSON *o, const pg_bench_result *b);
void pg_memory_add_case_json(cJSON *o, const pg_result_case *c);
void pg_memory_read_json(pg_bench_result *b, const cJSON *o);
void pg_memory_read_case_json(pg_result_case *c, const cJSON *o);

#endif
