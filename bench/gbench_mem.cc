// gbench_mem.cc - the peer for bench/memory.py: a vector_add or reduce_sum
// solution library (bench/mem.c) timed by Google Benchmark, as a CI user
// would, on arrays of N floats.
//
//   gbench_mem LIB vector_add|reduce_sum N [--benchmark_* flags]
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

typedef void (*vadd_fn)(const float *, const float *, float *, size_t);
typedef void (*reduce_fn)(const float *, float *, size_t);

static void *solution;
static size_t n;
static bool reduce;

static void BM_mem(benchmark::State &state)
{
    std::vector<float> a(n), b(n), c(n);

    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i % 64);
        b[i] = (float)(i % 32);
    }
    for (auto _ : state) {
        if (reduce)
            ((reduce_fn)solution)(a.data(), c.data(), n);
        else
            ((vadd_fn)solution)(a.data(), b.data(), c.data(), n);
        benchmark::ClobberMemory();
    }
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: gbench_mem LIB vector_add|reduce_sum N "
                             "[--benchmark_*]\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib || !(solution = dlsym(lib, "solution"))) {
        std::fprintf(stderr, "gbench_mem: %s\n", dlerror());
        return 2;
    }
    reduce = !std::strcmp(argv[2], "reduce_sum");
    n = (size_t)std::strtoull(argv[3], nullptr, 10);
    argv[3] = argv[0];
    argc -= 3;
    argv += 3;
    benchmark::RegisterBenchmark("BM_mem", BM_mem);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
