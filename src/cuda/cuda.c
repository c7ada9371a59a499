/*
 * cuda.c - the CUDA driver, loaded on demand, and where nvcc is.
 */
#include "cuda.h"
#include "env.h"
#include "cuda_abi.h"
#include "fs.h"
#include "proc.h"
#include "str.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "banned.h"

/* sm_80 (A100), sm_89 (L4, RTX 40), sm_90 (H100, H200). */
const char *const pg_cuda_default_archs[] = {"sm_80", "sm_89", "sm_90", NULL};

const char *pg_cuda_nvcc(void)
{
    const char *env = pg_env_nonempty("CUDACXX");

    if (env)
        return env;
    if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
        return "/usr/local/cuda/bin/nvcc";
    return "nvcc";
}

char *pg_cuda_home(void)
{
    const char *nvcc = pg_cuda_nvcc();
    char *bin, *home;

    if (!strchr(nvcc, '/'))
        return pg_strdup("/usr/local/cuda");
    bin = pg_path_dirname(nvcc);
    home = pg_path_dirname(bin);
    free(bin);
    return home;
}

/* The driver API's entry points perfgate asks about a device with. */
typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_get_fn)(int *, int);
typedef int (*cu_attr_fn)(int *, int, int);
typedef int (*cu_name_fn)(char *, int, int);
typedef int (*cu_mem_fn)(size_t *, int);
typedef int (*cu_version_fn)(int *);

int pg_cuda_query(pg_gpu_info *out)
{
    void *h;
    cu_init_fn init;
    cu_count_fn count;
    cu_get_fn get;
    cu_attr_fn attr;
    cu_name_fn name;
    cu_mem_fn mem;
    cu_version_fn version;
    int err, dev = 0, major = 0, minor = 0;
    size_t bytes = 0;

    memset(out, 0, sizeof(*out));
    if (!(h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL))) {
        snprintf(out->why, sizeof(out->why),
                 "no CUDA device (the driver, libcuda.so.1, is not "
                 "installed)");
        return -1;
    }
    init = (cu_init_fn)dlsym(h, "cuInit");
    count = (cu_count_fn)dlsym(h, "cuDeviceGetCount");
    get = (cu_get_fn)dlsym(h, "cuDeviceGet");
    attr = (cu_attr_fn)dlsym(h, "cuDeviceGetAttribute");
    name = (cu_name_fn)dlsym(h, "cuDeviceGetName");
    mem = (cu_mem_fn)dlsym(h, "cuDeviceTotalMem_v2");
    version = (cu_version_fn)dlsym(h, "cuDriverGetVersion");
    if (!init || !count || !get || !attr || !name) {
        snprintf(out->why, sizeof(out->why),
                 "no CUDA device (libcuda.so.1 lacks the driver API)");
        return -1;
    }
    if ((err = init(0)) != 0) {
        snprintf(out->why, sizeof(out->why), "%s",
                 err == PG_CU_ERROR_NO_DEVICE
                     ? "no CUDA device"
                     : "no CUDA device (the driver failed to initialize)");
        return -1;
    }
    if (count(&out->devices) != 0 || out->devices < 1 || get(&dev, 0) != 0) {
        snprintf(out->why, sizeof(out->why), "no CUDA device");
        return -1;
    }
    if (name(out->name, (int)sizeof(out->name), dev) != 0)
        snprintf(out->name, sizeof(out->name), "CUDA device 0");
    attr(&major, PG_CU_ATTR_MAJOR, dev);
    attr(&minor, PG_CU_ATTR_MINOR, dev);
    snprintf(out->arch, sizeof(out->arch), "sm_%d%d", major, minor);
    attr(&out->sm_count, PG_CU_ATTR_SM_COUNT, dev);
    attr(&out->sm_clock_khz, PG_CU_ATTR_CLOCK_RATE, dev);
    attr(&out->mem_clock_khz, PG_CU_ATTR_MEMORY_CLOCK_RATE, dev);
    attr(&out->bus_width, PG_CU_ATTR_BUS_WIDTH, dev);
    attr(&out->l2_bytes, PG_CU_ATTR_L2_SIZE, dev);
    if (mem && mem(&bytes, dev) == 0)
        out->memory_bytes = (double)bytes;
    if (version)
        version(&out->driver_version);
    out->present = 1;
    return 0;
}

/*
 * The probe's report, one line:
 *   gpu DEVICES SMS SMCLOCK MEMCLOCK BUS L2 MEMORY DRIVER ARCH NAME...
 *   nogpu WHY...
 */
static int probe_child(void *arg, int fd)
{
    pg_gpu_info g;

    (void)arg;
    if (pg_cuda_query(&g) == 0)
        return pg_proc_send(fd, NULL, "gpu %d %d %d %d %d %d %.0f %d %s %s",
                            g.devices, g.sm_count, g.sm_clock_khz,
                            g.mem_clock_khz, g.bus_width, g.l2_bytes,
                            g.memory_bytes, g.driver_version, g.arch,
                            g.name) < 0;
    return pg_proc_send(fd, NULL, "nogpu %s", g.why) < 0;
}

static void on_probe_line(void *payload, const char *line)
{
    pg_gpu_info *g = payload;
    char word[8];
    const char *rest = pg_proc_message(line, NULL, word, sizeof(word));
    int n = 0;

    if (!rest)
        return;
    if (!strcmp(word, "nogpu")) {
        snprintf(g->why, sizeof(g->why), "%s", rest);
    } else if (!strcmp(word, "gpu") &&
               sscanf(rest, "%d %d %d %d %d %d %lf %d %15s %n", &g->devices,
                      &g->sm_count, &g->sm_clock_khz, &g->mem_clock_khz,
                      &g->bus_width, &g->l2_bytes, &g->memory_bytes,
                      &g->driver_version, g->arch, &n) == 9 &&
               n > 0) {
        snprintf(g->name, sizeof(g->name), "%s", rest + n);
        g->present = 1;
    }
}

const pg_gpu_info *pg_cuda_probe(void)
{
    static pg_gpu_info info;
    static int probed;
    pg_proc_opts opts;
    pg_proc_result res;

    if (probed)
        return &info;
    probed = 1;
    memset(&info, 0, sizeof(info));
    snprintf(info.why, sizeof(info.why),
             "no CUDA device (the driver did not answer)");
    memset(&opts, 0, sizeof(opts));
    /* A driver that hangs on init must not hang perfgate. */
    opts.timeout = 60;
    opts.on_line = on_probe_line;
    opts.payload = &info;
    if (pg_proc_run_fn(&res, probe_child, NULL, &opts) == 0 && res.signal)
        snprintf(info.why, sizeof(info.why),
                 "no CUDA device (asking the driver ended with %s)",
                 pg_signal_describe(res.signal));
    pg_proc_result_clear(&res);
    if (!info.present && !info.why[0])
        snprintf(info.why, sizeof(info.why), "no CUDA device");
    return &info;
}

int pg_cuda_fp32_lanes(int major, int minor)
{
    switch (major) {
    case 6:
        return minor == 0 ? 64 : 128;
    case 7:
    case 8:
        /* Volta, Turing and A100 have 64; the other Amperes and Ada 128. */
        return major == 8 && minor != 0 ? 128 : 64;
    case 9:
    case 10:
    case 11:
    case 12:
        return 128;
    default:
        return 0;
    }
}

double pg_cuda_peak_bandwidth(const pg_gpu_info *g)
{
    /* Double data rate: two transfers per clock over the whole bus. */
    return 2.0 * g->mem_clock_khz * 1e3 * (g->bus_width / 8.0);
}

double pg_cuda_peak_flops(const pg_gpu_info *g)
{
    int v = 0;

    /* "sm_90": major 9, minor 0; "sm_100": major 10. */
    if (sscanf(g->arch, "sm_%d", &v) != 1)
        return 0;
    /* A fused multiply-add per lane per clock: two operations. */
    return 2.0 * g->sm_count * pg_cuda_fp32_lanes(v / 10, v % 10) *
           (g->sm_clock_khz * 1e3);
}

const char *const *pg_cuda_archs(void)
{
    static const char *one[2];
    const pg_gpu_info *gpu = pg_cuda_probe();

    if (!gpu->present)
        return pg_cuda_default_archs;
    one[0] = gpu->arch;
    return one;
}
