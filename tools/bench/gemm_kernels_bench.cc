// Benchmarks of the ordered GEMM's one-row, transposed-B order (a classifier's last layer,
// MobileNetV2's 1 x 1280 times 1280 x 1000): B as floats (avx2::Sgemm) against B as 8-bit codes
// rebuilt as they are read (avx2::SgemmRowLanesCoded), on the same weights. Reports GFLOP/s and
// the bytes of B read per second.
//   qrt_kernel_bench --benchmark_filter=GemmRow
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ops/kernels/gemm/sgemm.h"
#include "runtime/cpu_features.h"

namespace qrt {
namespace {

void BM_GemmRow(benchmark::State& state, bool coded) {
  if (!DetectCpuFeatures().avx2) return state.SkipWithError("no AVX2");
  const int64_t n = 1000, k = 1280;
  std::mt19937 rng(11);
  std::vector<uint8_t> codes(static_cast<size_t>(n * k));
  std::vector<float> scales(static_cast<size_t>(n)), zero_points(static_cast<size_t>(n), 0.f);
  std::vector<float> b(static_cast<size_t>(n * k)), a(static_cast<size_t>(k)), c(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) {
    scales[size_t(j)] = 0.001f * float(1 + j % 17);
    for (int64_t p = 0; p < k; ++p) {
      const int8_t code = int8_t(int(rng() % 255) - 127);
      codes[size_t(j * k + p)] = uint8_t(code);
      b[size_t(j * k + p)] = float(code) * scales[size_t(j)];
    }
  }
  for (float& v : a) v = float(int(rng() % 200) - 100) * 0.01f;
  SgemmArgs g;
  g.m = 1, g.n = n, g.k = k;
  g.a = a.data(), g.lda = k;
  g.b = b.data(), g.ldb = k, g.trans_b = true;
  g.c = c.data(), g.ldc = n;
  const CodedB view{codes.data(), k, true, scales.data(), zero_points.data()};
  for (auto _ : state) {
    if (coded)
      avx2::SgemmRowLanesCoded(g, view);
    else
      avx2::Sgemm(g);
    benchmark::ClobberMemory();
  }
  const double macs = double(n) * double(k);
  state.counters["GFLOPS"] = benchmark::Counter(2 * macs * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetBytesProcessed(state.iterations() * n * k * int64_t(coded ? 1 : sizeof(float)));
}

BENCHMARK_CAPTURE(BM_GemmRow, floats_1x1280x1000, false)->UseRealTime();
BENCHMARK_CAPTURE(BM_GemmRow, codes_1x1280x1000, true)->UseRealTime();

}  // namespace
}  // namespace qrt
