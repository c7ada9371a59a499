// gbench_mem.cc - the peer for bench/memory.py: a vector_add or reduce_sum
// solution library (bench/mem.c) timed by Google Benchmark, as a CI user
// would, on arrays of N floats.
//
//   gbench_mem LIB vector_add|reduce_sum N [--benchmark_* flags]
//   gbench_mem BASE,HEAD vector_add|reduce_sum N [--benchmark_* flags]
//
// With two libraries, BM_base and BM_head run in one process on the same
// arrays (memory.py's independent measure of a change's true size, with
// --benchmark_enable_random_interleaving).
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

typedef void (*vadd_fn)(const float *, const float *, float *, size_t);
typedef void (*reduce_fn)(const float *, float *, size_t);

static size_t n;
static bool reduce;
static std::vector<float> a, b, c;

static void BM_mem(benchmark::State &state, void *solution)
{
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
    char *comma = std::strchr(argv[1], ',');
    const char *paths[2] = {argv[1], comma ? comma + 1 : nullptr};
    void *solutions[2] = {nullptr, nullptr};
    if (comma)
        *comma = '\0';
    for (int k = 0; k < 2 && paths[k]; k++) {
        void *lib = dlopen(paths[k], RTLD_NOW | RTLD_LOCAL);
        if (!lib || !(solutions[k] = dlsym(lib, "solution"))) {
            std::fprintf(stderr, "gbench_mem: %s\n", dlerror());
            return 2;
        }
    }
    reduce = !std::strcmp(argv[2], "reduce_sum");
    n = (size_t)std::strtoull(argv[3], nullptr, 10);
    a.resize(n);
    b.resize(n);
    c.resize(n);
    for (size_t i = 0; i < n; i++) {
        a[i] = (float)(i % 64);
        b[i] = (float)(i % 32);
    }
    argv[3] = argv[0];
    argc -= 3;
    argv += 3;
    if (solutions[1]) {
        benchmark::RegisterBenchmark("BM_base", BM_mem, solutions[0]);
        benchmark::RegisterBenchmark("BM_head", BM_mem, solutions[1]);
    } else {
        benchmark::RegisterBenchmark("BM_mem", BM_mem, solutions[0]);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
