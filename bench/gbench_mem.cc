// gbench_mem.cc - the peer for bench/memory.py: a vector_add or reduce_sum
// solution library (bench/mem.c) timed by Google Benchmark, as a CI user
// would, on arrays of N floats.
//
//   gbench_mem LIB vector_add|reduce_sum N [--benchmark_* flags]
//   gbench_mem BASE,HEAD[,BASE,HEAD]... vector_add|reduce_sum N [flags]
//
// With a list, the libraries run in one process on the same arrays as
// BM_base/K and BM_head/K for the K-th pair (memory.py's independent
// measure of a change's true size, with
// --benchmark_enable_random_interleaving).  Several pairs of copies of the
// same two files put each side's code at several addresses.
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
        std::fprintf(stderr, "usage: gbench_mem LIB|BASE,HEAD[,BASE,HEAD]... "
                             "vector_add|reduce_sum N [--benchmark_*]\n");
        return 2;
    }
    std::vector<void *> solutions;
    for (char *path = std::strtok(argv[1], ","); path;
         path = std::strtok(nullptr, ",")) {
        void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        void *fn = lib ? dlsym(lib, "solution") : nullptr;
        if (!fn) {
            std::fprintf(stderr, "gbench_mem: %s\n", dlerror());
            return 2;
        }
        solutions.push_back(fn);
    }
    if (solutions.size() > 1 && solutions.size() % 2) {
        std::fprintf(stderr, "gbench_mem: libraries come in BASE,HEAD "
                             "pairs\n");
        return 2;
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
    if (solutions.size() == 1) {
        benchmark::RegisterBenchmark("BM_mem", BM_mem, solutions[0]);
    } else {
        for (size_t k = 0; k < solutions.size(); k++) {
            char name[64];
            std::snprintf(name, sizeof(name), "BM_%s/%zu",
                          k % 2 ? "head" : "base", k / 2);
            benchmark::RegisterBenchmark(name, BM_mem, solutions[k]);
        }
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
