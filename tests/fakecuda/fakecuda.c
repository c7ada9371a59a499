/*
 * fakecuda.c - a stand-in for the CUDA driver and runtime, for the tests
 * only: built as libcuda.so.1 and found through LD_LIBRARY_PATH, it lets
 * CI (which has no GPU) run perfgate's whole CUDA path.  "Device" memory
 * is host memory, a "kernel" is C code that runs when called, events read
 * the host's clock, and perfgate's own kernels (the clock probe and the
 * launch gate) are recognised by name and acted out.
 *
 * Knobs, from the environment:
 *   FAKECUDA_DEVICES=N      how many devices the driver reports (1)
 *   FAKECUDA_THROTTLE=K     the first K samples run at 45% of the peak
 *   FAKECUDA_GATE_GIVES_UP  the launch gate reports that it gave up
 *   FAKECUDA_NO_PTX         loading perfgate's PTX fails
 * Solutions call fakecuda_fault(code) to leave a sticky error (a crashed
 * kernel), fakecuda_refuse(code) for a refused launch, and
 * fakecuda_is_device(p) to check that p came from cudaMalloc.  A solution
 * that calls cudaDeviceSynchronize or cudaMemcpy while perfgate's gate holds
 * the stream waits, as on a GPU, until the gate gives up.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
#include <time.h>

#define PEAK_KHZ 1980000
#define L2_BYTES (1 << 20)

static int sticky, pending;
static volatile uint32_t *held; /* the gate holding the stream, if any */

/* What cudaMalloc gave out, so that a "kernel" can tell device memory. */
static struct block {
    char *p;
    size_t n;
    struct block *next;
} *blocks;
static uint64_t probes;
static double cycles;
static uint64_t last_ns;

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static long knob(const char *name, long fallback)
{
    const char *v = getenv(name);

    return v && *v ? strtol(v, NULL, 10) : fallback;
}

void fakecuda_fault(int code)
{
    sticky = code;
}

void fakecuda_refuse(int code)
{
    pending = code;
}

int fakecuda_is_device(const void *p)
{
    const struct block *b;

    for (b = blocks; b; b = b->next)
        if ((const char *)p >= b->p && (const char *)p < b->p + b->n)
            return 1;
    return 0;
}

/* ---- the driver API ---- */

int cuInit(unsigned flags)
{
    (void)flags;
    return knob("FAKECUDA_DEVICES", 1) > 0 ? 0 : 100;
}

int cuDeviceGetCount(int *n)
{
    *n = (int)knob("FAKECUDA_DEVICES", 1);
    return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
    *dev = ordinal;
    return 0;
}

int cuDeviceGetName(char *name, int len, int dev)
{
    (void)dev;
    snprintf(name, (size_t)len, "perfgate fake GPU");
    return 0;
}

int cuDeviceGetAttribute(int *value, int attr, int dev)
{
    (void)dev;
    switch (attr) {
    case 13: *value = PEAK_KHZ; break;     /* clock rate */
    case 16: *value = 4; break;            /* SMs */
    case 36: *value = 1000000; break;      /* memory clock */
    case 37: *value = 256; break;          /* bus width */
    case 38: *value = L2_BYTES; break;     /* L2 */
    case 75: *value = 9; break;            /* major */
    case 76: *value = 0; break;            /* minor */
    default: *value = 0; break;
    }
    return 0;
}

int cuDeviceTotalMem_v2(size_t *bytes, int dev)
{
    (void)dev;
    *bytes = (size_t)8 << 30;
    return 0;
}

int cuDriverGetVersion(int *v)
{
    *v = 13000;
    return 0;
}

struct function {
    char name[64];
};

int cuModuleLoadData(void **module, const void *image)
{
    if (getenv("FAKECUDA_NO_PTX") || !strstr(image, ".entry pg_clock_probe"))
        return 218; /* CUDA_ERROR_INVALID_PTX */
    *module = (void *)image;
    return 0;
}

int cuModuleGetFunction(void **fn, void *module, const char *name)
{
    struct function *f;
    char entry[96];

    snprintf(entry, sizeof(entry), ".entry %s(", name);
    if (!strstr(module, entry))
        return 500; /* CUDA_ERROR_NOT_FOUND */
    f = calloc(1, sizeof(*f));
    snprintf(f->name, sizeof(f->name), "%s", name);
    *fn = f;
    return 0;
}

int cuLaunchKernel(void *fn, unsigned gx, unsigned gy, unsigned gz,
                   unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                   void *stream, void **params, void **extra)
{
    struct function *f = fn;

    (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz;
    (void)shmem; (void)stream; (void)extra;
    if (!strcmp(f->name, "pg_clock_probe")) {
        volatile uint64_t *out = *(void **)params[0];
        uint64_t t = now_ns();
        /* Odd probes end a sample: its cycles ran at the sample's rate. */
        double ghz = (probes % 2 && probes / 2 < (uint64_t)knob(
                                                      "FAKECUDA_THROTTLE", 0))
                         ? PEAK_KHZ * 0.45e-6
                         : PEAK_KHZ * 1e-6;
        if (last_ns)
            cycles += (double)(t - last_ns) * ghz;
        last_ns = t;
        probes++;
        out[0] = t;
        out[1] = (uint64_t)cycles + 1;
    } else if (!strcmp(f->name, "pg_gate")) {
        volatile uint32_t *gate = *(void **)params[0];
        /* Launches run when called: there is nothing to hold back, but
         * a wait for the device would wait for the gate (wait_for_gate). */
        if (getenv("FAKECUDA_GATE_GIVES_UP"))
            gate[1] = 1;
        else
            held = gate;
    } else {
        return 400; /* CUDA_ERROR_INVALID_HANDLE */
    }
    return 0;
}

/* ---- the runtime API ---- */

/* The host waits for the device: behind a gate not yet opened, that lasts
 * until the gate gives up. */
static void wait_for_gate(void)
{
    if (held && !held[0])
        held[1] = 1;
    held = NULL;
}

#define RETURN_STICKY()                                                        \
    do {                                                                       \
        if (sticky)                                                            \
            return sticky;                                                     \
    } while (0)

int cudaFree(void *p)
{
    struct rlimit rl;

    RETURN_STICKY();
    /* Only cudaFree(NULL), which starts the runtime, is used.  The real
     * driver reserves address space for all device and host memory when it
     * starts, and fails under a limit on it: so does this one. */
    if (!getrlimit(RLIMIT_AS, &rl) && rl.rlim_cur != RLIM_INFINITY)
        return 2; /* cudaErrorMemoryAllocation */
    /* Nor does it start when it cannot open a unix socket (seen on an
     * H200 under a seccomp filter that refused socket(AF_UNIX)):
     * cudaErrorOperatingSystem. */
    if (!p) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return 304;
        close(fd);
    }
    return p ? 1 : 0;
}

int cudaMalloc(void **p, size_t bytes)
{
    struct block *b;

    RETURN_STICKY();
    if (!(*p = malloc(bytes)) || !(b = malloc(sizeof(*b))))
        return 2; /* cudaErrorMemoryAllocation */
    b->p = *p;
    b->n = bytes;
    b->next = blocks;
    blocks = b;
    return 0;
}

int cudaMemset(void *p, int value, size_t bytes)
{
    RETURN_STICKY();
    memset(p, value, bytes);
    return 0;
}

int cudaMemsetAsync(void *p, int value, size_t bytes, void *stream)
{
    (void)stream;
    return cudaMemset(p, value, bytes);
}

int cudaMemcpy(void *dst, const void *src, size_t bytes, int kind)
{
    (void)kind;
    wait_for_gate();
    RETURN_STICKY();
    memcpy(dst, src, bytes);
    return 0;
}

int cudaEventCreate(void **event)
{
    *event = calloc(1, sizeof(uint64_t));
    return 0;
}

int cudaEventRecord(void *event, void *stream)
{
    (void)stream;
    RETURN_STICKY();
    *(uint64_t *)event = now_ns();
    return 0;
}

int cudaEventElapsedTime(float *ms, void *start, void *stop)
{
    RETURN_STICKY();
    *ms = (float)((double)(*(uint64_t *)stop - *(uint64_t *)start) / 1e6);
    return 0;
}

int cudaDeviceSynchronize(void)
{
    wait_for_gate();
    RETURN_STICKY();
    return 0;
}

int cudaGetLastError(void)
{
    int e = sticky ? sticky : pending;

    pending = 0;
    return e;
}

const char *cudaGetErrorString(int e)
{
    switch (e) {
    case 0: return "no error";
    case 2: return "out of memory";
    case 9: return "invalid configuration argument";
    case 304:
        return "OS call failed or operation not supported on this OS";
    case 700: return "an illegal memory access was encountered";
    default: return "unknown error";
    }
}

int cudaHostAlloc(void **p, size_t bytes, unsigned flags)
{
    (void)flags;
    *p = calloc(1, bytes);
    return *p ? 0 : 2;
}

int cudaHostGetDevicePointer(void **dev, void *host, unsigned flags)
{
    (void)flags;
    *dev = host;
    return 0;
}

int cudaMemGetInfo(size_t *free_bytes, size_t *total)
{
    *free_bytes = (size_t)6 << 30;
    *total = (size_t)8 << 30;
    return 0;
}

int cudaRuntimeGetVersion(int *v)
{
    *v = 13000;
    return 0;
}
