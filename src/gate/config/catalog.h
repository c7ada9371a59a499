/*
 * catalog.h - the problems perfgate knows: where they come from.
 *
 * A problem is a built-in one (problems/NAME.c in perfgate's data
 * directory) or a file the config names.  What cases it runs is asked of
 * the problem itself (cases.h).
 */
#ifndef PG_CATALOG_H
#define PG_CATALOG_H

#include <stddef.h>

#include "config.h"

/*
 * Where perfgate's headers (include/) and built-in problems (problems/)
 * are: $PERFGATE_DATA_DIR, else ../share/perfgate beside the executable,
 * else the source tree it was built from.  Static storage.
 */
const char *pg_catalog_data_dir(void);

/* The built-in problem names, sorted (NULL-terminated; static). */
const char *const *pg_catalog_builtin(void);

/* The source file of a benchmark's problem (a new string). */
char *pg_catalog_source(const pg_bench_config *b);

#endif
