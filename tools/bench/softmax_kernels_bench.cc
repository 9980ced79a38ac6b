// Benchmarks of the float softmax rows (ops/kernels/eltwise/softmax.h), eight-lane and
// sixteen-lane orders, on attention-sized rows of 64: plain scores, and causally masked ones
// (half the row -inf, whose exponentials underflow). items/s counts elements.
//   qrt_kernel_bench --benchmark_filter='SoftmaxRow'
#include <benchmark/benchmark.h>

#include <limits>
#include <random>
#include <vector>

#include "ops/kernels/eltwise/softmax.h"
#include "runtime/cpu_features.h"

namespace qrt {
namespace {

void BM_SoftmaxRow(benchmark::State& state, SoftmaxRowFn fn, bool causal) {
  if (!DetectCpuFeatures().avx2 || (fn == avx512::SoftmaxRow16 && !DetectCpuFeatures().avx512)) {
    return state.SkipWithError("the CPU lacks this kernel's instructions");
  }
  const int64_t n = 64, rows = 128;
  std::mt19937 rng(7);
  std::normal_distribution<float> d(0.f, 2.f);
  std::vector<float> x(size_t(n * rows)), y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < n; ++i) {
      x[size_t(r * n + i)] = causal && i > r % n ? -std::numeric_limits<float>::infinity() : d(rng);
    }
  }
  for (auto _ : state) {
    for (int64_t r = 0; r < rows; ++r) fn(n, x.data() + r * n, y.data() + r * n);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n * rows);
}

BENCHMARK_CAPTURE(BM_SoftmaxRow, lanes8_plain, avx2::SoftmaxRow, false);
BENCHMARK_CAPTURE(BM_SoftmaxRow, lanes8_causal, avx2::SoftmaxRow, true);
BENCHMARK_CAPTURE(BM_SoftmaxRow, lanes16_plain, avx2::SoftmaxRow16, false);
BENCHMARK_CAPTURE(BM_SoftmaxRow, lanes16_causal, avx2::SoftmaxRow16, true);
BENCHMARK_CAPTURE(BM_SoftmaxRow, lanes16_avx512_plain, avx512::SoftmaxRow16, false);
BENCHMARK_CAPTURE(BM_SoftmaxRow, lanes16_avx512_causal, avx512::SoftmaxRow16, true);

}  // namespace
}  // namespace qrt
