/*
 * gpu.c - the CUDA backend of the measuring child (gpu.h).
 */
#include "gpu.h"
#include "str.h"
#include "cuda_abi.h"
#include "clock.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "banned.h"

/* The runtime's types, as the ABI has them: errors are ints, streams and
 * events pointers; NULL is the default (legacy) stream. */
typedef int cuda_error;
typedef void *cuda_event;

struct runtime {
    cuda_error (*malloc_)(void **, size_t);
    cuda_error (*free_)(void *);
    cuda_error (*memset_)(void *, int, size_t);
    cuda_error (*memset_async)(void *, int, size_t, void *);
    cuda_error (*memcpy_)(void *, const void *, size_t, int);
    cuda_error (*event_create)(cuda_event *);
    cuda_error (*event_record)(cuda_event, void *);
    cuda_error (*event_elapsed)(float *, cuda_event, cuda_event);
    cuda_error (*synchronize)(void);
    cuda_error (*last_error)(void);
    const char *(*error_string)(cuda_error);
    cuda_error (*host_alloc)(void **, size_t, unsigned);
    cuda_error (*host_device_pointer)(void **, void *, unsigned);
    cuda_error (*mem_info)(size_t *, size_t *);
    cuda_error (*version)(int *);
};

struct driver {
    int (*module_load_data)(void **, const void *);
    int (*module_function)(void **, void *, const char *);
    int (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned,
                  unsigned, unsigned, void *, void **, void **);
};

/* Pinned host memory the device writes and reads directly. */
struct mapped {
    volatile uint32_t gate[2];  /* [0]: the host opens it; [1]: gave up */
    volatile uint64_t probe[4]; /* globaltimer, clock64: before, after */
};

struct pg_gpu {
    struct runtime rt;
    struct driver dv;
    pg_gpu_info info;
    pg_memory_ops memory;
    pg_device_clock clock;
    void (*fail)(void *, const char *);
    void *payload;
    cuda_event start, stop;
    void *flush; /* cold: written before each sample */
    size_t flush_bytes;
    int flush_value;
    struct mapped *host; /* and its device addresses: */
    void *gate_dev, *probe_dev;
    void *gate_fn, *probe_fn; /* NULL: the PTX did not load */
    int gated;                /* the gate holds samples */
    pg_gpu_stats stats;
    float *clocks; /* MHz per sample with a known clock */
    size_t nclocks, cap_clocks;
};

/* The gate gives up after this long, so that a launch queue that fills
 * (the host blocks in a launch while the gate holds the device) cannot
 * hang the measurement: the sample is then taken ungated, and the gate is
 * not used again. */
#define GATE_LIMIT_NS 100000000ULL
#define GATE_PROBE_NS 20000000ULL

/* nvbench's default: under 75% of the peak SM clock is throttled. */
#define THROTTLE_FRACTION 0.75
#define THROTTLE_PAUSE_NS 50000000L
#define THROTTLE_TRIES 3

/* A clock measured over less than this is too coarse to judge by. */
#define PROBE_MIN_NS 10000

/* The documented resolution of an event pair. */
#define EVENT_ERROR_NS 500.0

/* Calls per sample, gated: well under any launch queue's depth. */
#define GATED_MAX_INNER 256

/*
 * perfgate's own kernels.  pg_clock_probe: the block on SM 0 writes the
 * global timer (ns) and its SM's clock counter.  pg_gate: spins until
 * gate[0] is set, or gives up after limit_ns and sets gate[1].  .target
 * sm_50: the driver compiles it for whatever device is there.
 */
const char pg_gpu_ptx[] =
    ".version 7.0\n"
    ".target sm_50\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry pg_clock_probe(.param .u64 out)\n"
    "{\n"
    "\t.reg .pred %p;\n"
    "\t.reg .b32 %r;\n"
    "\t.reg .b64 %rd<4>;\n"
    "\tmov.u32 %r, %smid;\n"
    "\tsetp.ne.u32 %p, %r, 0;\n"
    "\t@%p bra DONE;\n"
    "\tld.param.u64 %rd1, [out];\n"
    "\tcvta.to.global.u64 %rd1, %rd1;\n"
    "\tmov.u64 %rd2, %globaltimer;\n"
    "\tmov.u64 %rd3, %clock64;\n"
    "\tst.volatile.global.u64 [%rd1], %rd2;\n"
    "\tst.volatile.global.u64 [%rd1+8], %rd3;\n"
    "DONE:\n"
    "\tret;\n"
    "}\n"
    "\n"
    ".visible .entry pg_gate(.param .u64 gate, .param .u64 limit_ns)\n"
    "{\n"
    "\t.reg .pred %p;\n"
    "\t.reg .b32 %r;\n"
    "\t.reg .b64 %rd<6>;\n"
    "\tld.param.u64 %rd1, [gate];\n"
    "\tcvta.to.global.u64 %rd1, %rd1;\n"
    "\tld.param.u64 %rd2, [limit_ns];\n"
    "\tmov.u64 %rd3, %globaltimer;\n"
    "WAIT:\n"
    "\tld.volatile.global.u32 %r, [%rd1];\n"
    "\tsetp.ne.u32 %p, %r, 0;\n"
    "\t@%p bra DONE;\n"
    "\tmov.u64 %rd4, %globaltimer;\n"
    "\tsub.u64 %rd5, %rd4, %rd3;\n"
    "\tsetp.lt.u64 %p, %rd5, %rd2;\n"
    "\t@%p bra WAIT;\n"
    "\tmov.u32 %r, 1;\n"
    "\tst.volatile.global.u32 [%rd1+4], %r;\n"
    "DONE:\n"
    "\tret;\n"
    "}\n";

static void fail(pg_gpu *g, cuda_error err, const char *what)
{
    char msg[512];

    snprintf(msg, sizeof(msg), "CUDA error %d %s: %s", err, what,
             g->rt.error_string ? g->rt.error_string(err) : "?");
    g->fail(g->payload, msg);
    abort(); /* fail() does not return */
}

#define CHECK(g, call, what)                                                   \
    do {                                                                       \
        cuda_error err_ = (call);                                              \
        if (err_ != 0)                                                         \
            fail((g), err_, (what));                                           \
    } while (0)

/* ---- memory for pg_alloc ---- */

static void *gpu_alloc(void *ctx, size_t bytes)
{
    pg_gpu *g = ctx;
    void *p = NULL;

    if (g->rt.malloc_(&p, bytes ? bytes : 1) != 0) {
        g->rt.last_error(); /* out of memory is not sticky: clear it */
        return NULL;
    }
    CHECK(g, g->rt.memset_(p, 0, bytes), "clearing device memory");
    return p;
}

static void gpu_upload(void *ctx, void *dst, const void *src, size_t bytes)
{
    pg_gpu *g = ctx;

    CHECK(g, g->rt.memcpy_(dst, src, bytes, PG_CUDA_MEMCPY_HOST_TO_DEVICE),
          "copying inputs to the device");
}

static void gpu_download(void *ctx, void *dst, const void *src, size_t bytes)
{
    pg_gpu *g = ctx;

    /* A kernel's crash surfaces here first, as a sticky error. */
    CHECK(g, g->rt.memcpy_(dst, src, bytes, PG_CUDA_MEMCPY_DEVICE_TO_HOST),
          "after the solution ran (copying its output back)");
}

/* ---- timing ---- */

int pg_gpu_throttled(double clock_hz, double peak_hz)
{
    return clock_hz > 0 && peak_hz > 0 &&
           clock_hz < THROTTLE_FRACTION * peak_hz;
}

size_t pg_gpu_copies_for(size_t bytes, size_t l2_bytes, size_t budget,
                         size_t max)
{
    size_t want;

    if (!bytes)
        bytes = 1;
    want = (2 * l2_bytes + bytes - 1) / bytes;
    if (want > max)
        want = max;
    if (want > budget / bytes)
        want = budget / bytes;
    return want ? want : 1;
}

static void launch(pg_gpu *g, void *fn, unsigned blocks, void **params)
{
    int err = g->dv.launch(fn, blocks, 1, 1, 1, 1, 1, 0, NULL, params, NULL);

    if (err != 0) {
        char msg[160];
        snprintf(msg, sizeof(msg),
                 "CUDA driver error %d launching perfgate's own kernel", err);
        g->fail(g->payload, msg);
        abort();
    }
}

static void probe(pg_gpu *g, int which)
{
    void *out = (char *)g->probe_dev + (size_t)which * 2 * sizeof(uint64_t);
    void *params[1] = {&out};
    unsigned sms = g->info.sm_count > 0 ? (unsigned)g->info.sm_count : 1;

    g->host->probe[which * 2] = g->host->probe[which * 2 + 1] = 0;
    /* A block per SM, so that one lands on SM 0, whose counter both
     * probes read. */
    launch(g, g->probe_fn, sms, params);
}

/* The SM clock over the sample, in Hz; 0 when unknown. */
static double probed_clock(const pg_gpu *g)
{
    const volatile uint64_t *p = g->host->probe;

    if (!p[0] || !p[2] || p[2] <= p[0] + PROBE_MIN_NS || p[3] <= p[1])
        return 0;
    return (double)(p[3] - p[1]) / (double)(p[2] - p[0]) * 1e9;
}

static double sample(pg_gpu *g, const pg_target *t, uint64_t n, int cold,
                     double *hz)
{
    void (*run)(void *, pg_fn) = t->problem->run;
    float ms = 0;
    uint64_t i;
    int gated = g->gated;

    if (cold)
        CHECK(g,
              g->rt.memset_async(g->flush, g->flush_value++ & 0xff,
                                 g->flush_bytes, NULL),
              "flushing the L2 cache");
    else
        run(t->state, t->fn); /* warm: the sample starts warm */
    if (gated) {
        uint64_t limit = GATE_LIMIT_NS;
        void *params[2] = {&g->gate_dev, &limit};
        g->host->gate[0] = g->host->gate[1] = 0;
        __sync_synchronize();
        launch(g, g->gate_fn, 1, params);
    }
    if (g->probe_fn)
        probe(g, 0);
    CHECK(g, g->rt.event_record(g->start, NULL), "recording an event");
    for (i = 0; i < n; i++)
        run(t->ncopies ? t->copies[i % t->ncopies] : t->state, t->fn);
    CHECK(g, g->rt.event_record(g->stop, NULL), "recording an event");
    if (g->probe_fn)
        probe(g, 1);
    if (gated) {
        __sync_synchronize();
        g->host->gate[0] = 1;
        __sync_synchronize();
    }
    CHECK(g, g->rt.synchronize(), "while the solution ran");
    /* A launch the runtime refused (a bad grid, too much shared memory)
     * leaves no sticky error, only this. */
    CHECK(g, g->rt.last_error(), "from the solution's launch");
    CHECK(g, g->rt.event_elapsed(&ms, g->start, g->stop), "reading the events");
    if (gated && g->host->gate[1]) {
        /* The gate gave up: the launches could not all be queued behind
         * it.  This sample includes waiting; the next are ungated. */
        g->gated = 0;
        g->stats.gated = 0;
    }
    *hz = g->probe_fn ? probed_clock(g) : 0;
    return (double)ms * 1e6;
}

static void keep_clock(pg_gpu *g, double hz)
{
    if (hz <= 0)
        return;
    if (g->nclocks == g->cap_clocks) {
        g->cap_clocks = g->cap_clocks ? g->cap_clocks * 2 : 256;
        g->clocks = pg_realloc(g->clocks, g->cap_clocks * sizeof(float));
    }
    g->clocks[g->nclocks++] = (float)(hz / 1e6);
}

static double gpu_time(void *ctx, const pg_target *t, uint64_t n, int cold)
{
    pg_gpu *g = ctx;
    double ns = 0, hz = 0, peak = g->info.sm_clock_khz * 1e3;
    int tries;

    for (tries = 0; tries < THROTTLE_TRIES; tries++) {
        struct timespec pause = {0, THROTTLE_PAUSE_NS};
        ns = sample(g, t, n, cold, &hz);
        g->stats.samples++;
        keep_clock(g, hz);
        if (!pg_gpu_throttled(hz, peak))
            return ns;
        /* Throttled: drop it, let the device recover, take it again. */
        g->stats.throttled++;
        nanosleep(&pause, NULL);
    }
    g->stats.kept_throttled++;
    return ns;
}

/* ---- setting up ---- */

#define RESOLVE(h, field, name) (*(void **)&(field) = dlsym((h), (name)))

static int load_runtime(struct runtime *rt, void *h)
{
    return RESOLVE(h, rt->malloc_, "cudaMalloc") &&
           RESOLVE(h, rt->free_, "cudaFree") &&
           RESOLVE(h, rt->memset_, "cudaMemset") &&
           RESOLVE(h, rt->memset_async, "cudaMemsetAsync") &&
           RESOLVE(h, rt->memcpy_, "cudaMemcpy") &&
           RESOLVE(h, rt->event_create, "cudaEventCreate") &&
           RESOLVE(h, rt->event_record, "cudaEventRecord") &&
           RESOLVE(h, rt->event_elapsed, "cudaEventElapsedTime") &&
           RESOLVE(h, rt->synchronize, "cudaDeviceSynchronize") &&
           RESOLVE(h, rt->last_error, "cudaGetLastError") &&
           RESOLVE(h, rt->error_string, "cudaGetErrorString") &&
           RESOLVE(h, rt->host_alloc, "cudaHostAlloc") &&
           RESOLVE(h, rt->host_device_pointer, "cudaHostGetDevicePointer") &&
           RESOLVE(h, rt->mem_info, "cudaMemGetInfo") &&
           RESOLVE(h, rt->version, "cudaRuntimeGetVersion");
}

/* perfgate's kernels; without them (a driver too old for the PTX), no
 * gate and no clock, and the measurement goes on. */
static void load_kernels(pg_gpu *g)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL), *module = NULL;
    void *dev = NULL;

    if (!h || !RESOLVE(h, g->dv.module_load_data, "cuModuleLoadData") ||
        !RESOLVE(h, g->dv.module_function, "cuModuleGetFunction") ||
        !RESOLVE(h, g->dv.launch, "cuLaunchKernel"))
        return;
    if (g->dv.module_load_data(&module, pg_gpu_ptx) != 0 ||
        g->dv.module_function(&g->probe_fn, module, "pg_clock_probe") != 0 ||
        g->dv.module_function(&g->gate_fn, module, "pg_gate") != 0) {
        g->probe_fn = g->gate_fn = NULL;
        return;
    }
    CHECK(g,
          g->rt.host_alloc((void **)&g->host, sizeof(*g->host),
                           PG_CUDA_HOST_ALLOC_MAPPED),
          "allocating pinned memory");
    memset((void *)g->host, 0, sizeof(*g->host));
    CHECK(g, g->rt.host_device_pointer(&dev, (void *)g->host, 0),
          "mapping pinned memory");
    g->gate_dev = (char *)dev + offsetof(struct mapped, gate);
    g->probe_dev = (char *)dev + offsetof(struct mapped, probe);
    g->gated = g->stats.gated = 1;
}

pg_gpu *pg_gpu_open(void *solution, void (*fail_fn)(void *, const char *),
                    void *payload, pg_str *why)
{
    pg_gpu *g = pg_calloc(1, sizeof(*g));
    cuda_error err;

    g->fail = fail_fn;
    g->payload = payload;
    /* The runtime the solutions linked; else (a solution that calls no
     * runtime function) the toolkit's. */
    if (!load_runtime(&g->rt, solution)) {
        char *home = pg_cuda_home();
        char *path = pg_strdupf("%s/lib64/libcudart.so", home);
        void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        free(home);
        free(path);
        if (!h || !load_runtime(&g->rt, h)) {
            pg_str_puts(why, "cannot load the CUDA runtime: build with "
                             "'--cudart shared' (perfgate's default) and "
                             "keep the toolkit's lib64 installed");
            free(g);
            return NULL;
        }
    }
    /* The runtime's context is made here, before any solution code runs:
     * cudaFree(NULL) does nothing else. */
    if ((err = g->rt.free_(NULL)) != 0) {
        pg_str_printf(why, "the CUDA runtime cannot start: %s",
                      g->rt.error_string(err));
        free(g);
        return NULL;
    }
    if (pg_cuda_query(&g->info) < 0) {
        pg_str_puts(why, g->info.why);
        free(g);
        return NULL;
    }
    g->rt.version(&g->info.runtime_version);
    g->stats.runtime_version = g->info.runtime_version;

    g->memory.alloc = gpu_alloc;
    g->memory.upload = gpu_upload;
    g->memory.download = gpu_download;
    g->memory.ctx = g;
    g->clock.time = gpu_time;
    g->clock.ctx = g;
    g->clock.error_ns = EVENT_ERROR_NS;
    CHECK(g, g->rt.event_create(&g->start), "creating an event");
    CHECK(g, g->rt.event_create(&g->stop), "creating an event");
    /* Twice the L2: whatever the replacement policy, nothing is left. */
    g->flush_bytes =
        2 * (size_t)(g->info.l2_bytes > 0 ? g->info.l2_bytes : 64 << 20);
    if (!(g->flush = gpu_alloc(g, g->flush_bytes))) {
        pg_str_printf(why,
                      "cannot allocate %zu bytes of device memory to "
                      "flush the L2 cache with",
                      g->flush_bytes);
        free(g);
        return NULL;
    }
    load_kernels(g);
    g->clock.max_inner = g->gated ? GATED_MAX_INNER : GATED_MAX_INNER / 4;
    return g;
}

const pg_memory_ops *pg_gpu_memory(pg_gpu *g)
{
    return &g->memory;
}

const pg_device_clock *pg_gpu_clock(pg_gpu *g)
{
    return &g->clock;
}

const pg_gpu_info *pg_gpu_device(pg_gpu *g)
{
    return &g->info;
}

void pg_gpu_check(pg_gpu *g)
{
    CHECK(g, g->rt.synchronize(), "while the solution ran");
    CHECK(g, g->rt.last_error(), "from the solution's launch");
}

size_t pg_gpu_copies(pg_gpu *g, size_t bytes, size_t cases)
{
    size_t free_bytes = 0, total = 0;

    if (g->rt.mem_info(&free_bytes, &total) != 0)
        return 1;
    /* A quarter of what is free, shared by every case and both sides. */
    return pg_gpu_copies_for(bytes, (size_t)g->info.l2_bytes,
                             free_bytes / 4 / (2 * (cases ? cases : 1)),
                             GATED_MAX_INNER / 2);
}

/*
 * Whether `t` can be queued behind the gate: a solution that waits for the
 * device itself (cudaMemcpy, cudaDeviceSynchronize) waits for the gate,
 * which waits for the host, until the gate gives up.  Found out here, once
 * and with a short limit, rather than in the middle of the measurement.
 */
static int gate_holds(pg_gpu *g, const pg_target *t)
{
    uint64_t limit = GATE_PROBE_NS;
    void *params[2] = {&g->gate_dev, &limit};

    g->host->gate[0] = g->host->gate[1] = 0;
    __sync_synchronize();
    launch(g, g->gate_fn, 1, params);
    t->problem->run(t->state, t->fn);
    __sync_synchronize();
    g->host->gate[0] = 1;
    __sync_synchronize();
    pg_gpu_check(g);
    return !g->host->gate[1];
}

void pg_gpu_warm_up(pg_gpu *g, pg_target (*targets)[2], size_t ncases,
                    const int *sides, int nsides, double seconds,
                    pg_watch *watch)
{
    int64_t start = pg_now_ns();
    size_t c;
    int s, i;

    /* Gated, or not at all: both sides are measured the same way. */
    for (c = 0; g->gated && c < ncases; c++)
        for (s = 0; g->gated && s < nsides; s++) {
            pg_watch_enter(watch, sides[s]);
            if (!gate_holds(g, &targets[c][s]))
                g->gated = g->stats.gated = 0;
            pg_watch_leave(watch);
        }
    g->clock.max_inner = g->gated ? GATED_MAX_INNER : GATED_MAX_INNER / 4;
    do {
        for (c = 0; c < ncases; c++)
            for (s = 0; s < nsides; s++) {
                const pg_target *t = &targets[c][s];
                pg_watch_enter(watch, sides[s]);
                /* A few calls between waits keep the device busy. */
                for (i = 0; i < 8; i++)
                    t->problem->run(t->state, t->fn);
                pg_gpu_check(g);
                pg_watch_leave(watch);
            }
    } while ((double)(pg_now_ns() - start) / 1e9 < seconds);
}

static int compare_floats(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;

    return (x > y) - (x < y);
}

void pg_gpu_get_stats(pg_gpu_stats *out, pg_gpu *g)
{
    *out = g->stats;
    out->clock_mhz = 0;
    if (g->nclocks) {
        qsort(g->clocks, g->nclocks, sizeof(float), compare_floats);
        out->clock_mhz = g->clocks[g->nclocks / 2];
    }
}
