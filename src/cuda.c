/*
 * cuda.c - the CUDA driver, loaded on demand, and where nvcc is.
 */
#define _GNU_SOURCE
#include "cuda.h"
#include "fs.h"
#include "str.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* sm_80 (A100), sm_89 (L4, RTX 40), sm_90 (H100, H200). */
const char *const pg_cuda_default_archs[] = {"sm_80", "sm_89", "sm_90", NULL};

const char *pg_nvcc(void)
{
    const char *env = getenv("CUDACXX");

    if (env && *env)
        return env;
    if (access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
        return "/usr/local/cuda/bin/nvcc";
    return "nvcc";
}

char *pg_cuda_home(void)
{
    const char *nvcc = pg_nvcc();
    char *bin, *home;

    if (!strchr(nvcc, '/'))
        return pg_strdup("/usr/local/cuda");
    bin = pg_path_dirname(nvcc);
    home = pg_path_dirname(bin);
    free(bin);
    return home;
}

typedef int (*cu_init_fn)(unsigned);
typedef int (*cu_count_fn)(int *);
typedef int (*cu_attr_fn)(int *, int, int);

static void *driver(const char **why)
{
    static void *handle;
    static int tried, init_error;
    cu_init_fn init;

    if (!tried) {
        tried = 1;
        handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (handle && (init = (cu_init_fn)dlsym(handle, "cuInit")))
            init_error = init(0);
    }
    if (!handle) {
        *why = "no CUDA device (the driver, libcuda.so.1, is not installed)";
        return NULL;
    }
    if (init_error) {
        *why = init_error == 100 ? "no CUDA device"
                                 : "the CUDA driver failed to initialize";
        return NULL;
    }
    return handle;
}

int pg_cuda_device_count(const char **why)
{
    void *h = driver(why);
    cu_count_fn count;
    int n = 0;

    if (!h)
        return 0;
    count = (cu_count_fn)dlsym(h, "cuDeviceGetCount");
    if (!count || count(&n) != 0 || n < 1) {
        *why = "no CUDA device";
        return 0;
    }
    return n;
}

int pg_cuda_device_arch(char *buf, size_t size)
{
    const char *why;
    void *h = driver(&why);
    cu_attr_fn attr;
    int major = 0, minor = 0;

    if (!h || pg_cuda_device_count(&why) < 1 ||
        !(attr = (cu_attr_fn)dlsym(h, "cuDeviceGetAttribute")))
        return -1;
    /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, _MINOR = 76. */
    if (attr(&major, 75, 0) != 0 || attr(&minor, 76, 0) != 0)
        return -1;
    snprintf(buf, size, "sm_%d%d", major, minor);
    return 0;
}
