/*
 * shard.h - dealing a config's benchmarks to the shards of a split run
 * (`perfgate compare --shard K/N`), so that the shards take about as long
 * as each other and every machine deals them alike.
 */
#ifndef PG_SHARD_H
#define PG_SHARD_H

#include <stddef.h>

#include "config.h"
#include "result.h"

/*
 * What each benchmark of `cfg` is expected to cost, into cost[] (one per
 * benchmark): its measuring time (`seconds`) in `timings`, an earlier
 * result; one that result lacks (new, or not measured then) costs its
 * cases at the mean time per case of those it has.  With no `timings`,
 * each costs its cases (a problem's defaults are three).
 */
void pg_shard_costs(double *cost, const pg_config *cfg,
                    const pg_result *timings);

/*
 * Deals the `n` benchmarks whose named[i] is set to `shards` shards: the
 * costliest first (by name on a tie), each to the shard with the least
 * cost so far (the lowest on a tie).  shard_of[i] is its shard, 1 to
 * `shards`, or 0 for a benchmark not named.  Depends on nothing but its
 * arguments: the same names and costs give the same shards everywhere.
 */
void pg_shard_plan(int *shard_of, const char *const *names, const double *cost,
                   const unsigned char *named, size_t n, int shards);

/*
 * The costs of `cfg`'s benchmarks (a new array, one per benchmark) and how
 * they were set (*balance, a new string: "cases", or "timings ID" with the
 * digest of the --timings file at `timings_path`, NULL for none).  A
 * negative error when that file cannot be read or is not a result.
 */
int pg_shard_costs_from(double **cost, char **balance, const pg_config *cfg,
                        const char *timings_path);

#endif
