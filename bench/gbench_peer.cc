// gbench_peer.cc - the peer: the same solution library timed by Google
// Benchmark, as a CI user would, for bench/accuracy.py.
//
//   gbench_peer LIB [--benchmark_* flags]
//
// One benchmark, BM_chain, calls the solution once per case (the same
// three inputs as bench/chain_problem.c) per iteration: it times the same
// sum over the cases that perfgate's verdict is about.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>

typedef void (*chain_fn)(const uint64_t *in, uint64_t *out);

static chain_fn solution;
static uint64_t inputs[3][2];

static void BM_chain(benchmark::State &state)
{
    uint64_t out[2];

    for (auto _ : state) {
        // As bench/chain_problem.c does: each call starts where the one
        // before ended, so that calls cannot overlap.
        for (auto &in : inputs) {
            solution(in, out);
            in[0] = out[0];
        }
        benchmark::ClobberMemory();
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: gbench_peer LIB [--benchmark_*]\n");
        return 2;
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib || !(solution = (chain_fn)dlsym(lib, "chain"))) {
        std::fprintf(stderr, "gbench_peer: %s\n", dlerror());
        return 2;
    }
    for (uint64_t seed = 1; seed <= 3; seed++) {
        inputs[seed - 1][0] = seed * 0x9E3779B97F4A7C15ULL;
        inputs[seed - 1][1] = 2 * seed + 1;
    }
    argv[1] = argv[0];
    argc--;
    argv++;
    benchmark::RegisterBenchmark("BM_chain", BM_chain);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
