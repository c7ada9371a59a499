/*
 * machine.h - what a measurement ran on, as plain data: the clock, the
 * CPU's state and the GPU.  The probes that fill these in are timer.h,
 * system.h and cuda.h; a result (result.h) carries them without depending
 * on the probes.
 */
#ifndef PG_MACHINE_H
#define PG_MACHINE_H

#include <stddef.h>

typedef enum {
    PG_CLOCK_TSC,
    PG_CLOCK_MONOTONIC_RAW,
    PG_CLOCK_MONOTONIC
} pg_clock_id;

#define PG_CLOCK_COUNT 3

typedef struct pg_clock_info {
    pg_clock_id id;
    double overhead_ns;   /* one read, back to back */
    double resolution_ns; /* the smallest nonzero step seen */
    double ticks_per_ns;  /* 1 for clock_gettime; the TSC's rate */
    int usable;
} pg_clock_info;

typedef struct pg_system {
    int cpu;          /* the CPU measurements are pinned to; -1: none */
    int ncpus;        /* online */
    double load1;     /* the 1-minute load average; NAN when unknown */
    double cpu_busy;  /* that CPU's use by others during the check, 0..1 */
    double steal;     /* time stolen by a hypervisor then, 0..1 */
    char *hypervisor; /* "KVM", "VMware", ...; NULL on bare metal */
    char *governor;   /* NULL when the kernel does not expose one */
    size_t llc_bytes; /* the last-level cache, for cache: cold */
    pg_clock_info timer;
    char **warnings;
    size_t nwarnings;
} pg_system;

/* The first CUDA device, as the driver describes it. */
typedef struct pg_gpu_info {
    int present; /* 0: none; `why` says why */
    char why[160];
    char name[128]; /* "NVIDIA H200" */
    char arch[16];  /* "sm_90" */
    int devices;    /* how many the driver sees */
    int sm_count;
    int sm_clock_khz;  /* the peak SM clock */
    int mem_clock_khz; /* the peak memory clock */
    int bus_width;     /* bits */
    int l2_bytes;
    double memory_bytes; /* global memory */
    int driver_version;  /* 13000 for 13.0 */
    int runtime_version; /* the runtime the solutions linked; 0: unknown */
} pg_gpu_info;

#endif
