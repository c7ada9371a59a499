/*
 * memshim.h - what libperfgate-memory.so (memshim.c) counts, as
 * perfgate-measure reads it: perfgate_memory_read(), found with dlsym when
 * the library is preloaded.  Every figure counts from the process's start
 * but peak, which counts from the last reset.
 */
#ifndef PG_MEMSHIM_H
#define PG_MEMSHIM_H

#include <stdint.h>

typedef struct pg_memshim_counts {
    uint64_t allocs;        /* blocks allocated (a realloc is one) */
    uint64_t frees;         /* blocks freed (a realloc's old block too) */
    uint64_t bytes;         /* bytes asked for */
    uint64_t live;          /* bytes asked for and not yet freed */
    uint64_t peak;          /* the most live bytes since the last reset */
    uint64_t maps;          /* anonymous mappings made outside malloc */
    uint64_t mapped;        /* and their bytes */
    uint64_t unknown_frees; /* frees of blocks never seen allocated */
    uint64_t untracked;     /* blocks the table had no room for */
} pg_memshim_counts;

/* The name perfgate-measure looks the reader up by. */
#define PG_MEMSHIM_READ "perfgate_memory_read"

/* Copies the counts into *out; with reset_peak, the peak is first set to
 * the live bytes, so that what follows is measured from here. */
typedef void (*pg_memshim_read_fn)(pg_memshim_counts *out, int reset_peak);
void perfgate_memory_read(pg_memshim_counts *out, int reset_peak);

#endif
