/*
 * merge.h - one result from the shards of a run (compare --shard K/N on N
 * machines): every benchmark once, one verdict.
 */
#ifndef PG_MERGE_H
#define PG_MERGE_H

#include <stddef.h>

#include "result.h"

/*
 * Merges the shard results `parts` (n of them, read from the files named
 * `names`, for messages) into `out`, taking their contents (each part is
 * left empty, to be cleared).  The shards must be of one run: the same
 * base and head commits, noise floor, mode and config, each shard K of N
 * once and none missing, no benchmark twice.  PG_ERR_USAGE with a message
 * that names the files otherwise; `out` is then empty.  The merged result
 * is judged (pg_stats_judge) here, where it is made.
 */
int pg_merge(pg_result *out, pg_result *parts, size_t n,
             const char *const *names);

/*
 * Checks the merged `r` against the names of the config's benchmarks
 * (`names`, n of them, from the config the shards ran): each once, and
 * none the config lacks.  0, or PG_ERR_USAGE naming one that is missing
 * or foreign.
 */
int pg_merge_check_names(const pg_result *r, const char *const *names,
                         size_t n);

#endif
