// suite_bench.cc - a Google Benchmark suite of our own, for bench/suite.py:
// compute-bound benchmarks from about 50 ns to 20 ms and memory-bound ones
// in the L2 and in DRAM, whose work scales by FACTOR (a -D of the build),
// so that a head built with -DFACTOR=1.08 does 8% more of it.  SALT makes
// another program of the same work.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#ifndef FACTOR
#define FACTOR 1.0
#endif
#ifndef SALT
#define SALT 0
#endif

// A value no benchmark reads: a head built with another SALT is another
// program that does the same work (an A/A pair that perfgate measures).
volatile int salt = SALT;

// The work a benchmark of size n does on this side.
static int64_t scaled(int64_t n)
{
    return std::llround((double)n * FACTOR);
}

// A chain of multiply-adds, each waiting on the one before: its cost is
// its length.
static void BM_chain(benchmark::State &state)
{
    int64_t steps = scaled(state.range(0));
    uint64_t x = 1;

    for (auto _ : state) {
        for (int64_t i = 0; i < steps; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            benchmark::DoNotOptimize(x);
        }
    }
}
BENCHMARK(BM_chain)->Arg(40)->Arg(4000)->Arg(400000)->Arg(15000000);

// A sum over a buffer read in order: bound by the cache or memory it
// lies in.
static void BM_stream(benchmark::State &state)
{
    int64_t n = scaled(state.range(0)) / 8;
    std::vector<uint64_t> buf((size_t)(state.range(0) / 8 * 3 / 2), 1);

    for (auto _ : state) {
        uint64_t sum = 0;
        for (int64_t i = 0; i < n; i++)
            sum += buf[(size_t)i];
        benchmark::DoNotOptimize(sum);
    }
    state.SetBytesProcessed(state.iterations() * n * 8);
}
BENCHMARK(BM_stream)->Arg(64 << 10)->Arg(32 << 20);

BENCHMARK_MAIN();
