// Benchmarks of the exact integer GEMM (igemm.h) on ConvInteger-shaped products: M output
// channels x N output positions x K = C * kernel taps, for every tile this CPU runs, one thread.
// Reports GOP/s (2 per multiply-add).
//   qrt_kernel_bench --benchmark_filter=Igemm
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "ops/kernels/igemm/igemm.h"

namespace qrt {
namespace {

void BM_Igemm(benchmark::State& state, IgemmKernel kernel, bool (*cpu_has)()) {
  if (!cpu_has()) return state.SkipWithError("CPU lacks this tier");
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> d(-255, 255);
  std::vector<int16_t> a(static_cast<size_t>(m * IgemmRowLength(k))), b(static_cast<size_t>(IgemmPackedBSize(k, n)));
  for (auto& v : a) v = static_cast<int16_t>(d(rng));
  for (auto& v : b) v = static_cast<int16_t>(d(rng));
  std::vector<int32_t> c(static_cast<size_t>(m * n));
  for (auto _ : state) {
    Igemm(kernel, m, n, k, a.data(), IgemmRowLength(k), b.data(), c.data(), n, 1);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GOP/s"] =
      benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate, benchmark::Counter::kIs1000);
}

bool Always() { return true; }
bool HasAvx2() { return DetectCpuFeatures().avx2; }
bool HasAvx512() { return DetectCpuFeatures().avx512; }
bool HasAvx512Vnni() { return DetectCpuFeatures().avx512_vnni; }

// {M, N, K}: a 3x3 conv 16->32 at 52x52, a 1x1 conv 64->64 at 26x26, a 3x3 conv 64->64 at 13x13,
// and a transformer-sized MatMul.
void Shapes(benchmark::internal::Benchmark* b) {
  b->Args({32, 2704, 144})->Args({64, 676, 64})->Args({64, 169, 576})->Args({128, 128, 512});
}

BENCHMARK_CAPTURE(BM_Igemm, ref, RefIgemmKernel(), Always)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Igemm, avx2, Avx2IgemmKernel(), HasAvx2)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Igemm, avx512, Avx512IgemmKernel(), HasAvx512)->Apply(Shapes);
BENCHMARK_CAPTURE(BM_Igemm, avx512vnni, Avx512VnniIgemmKernel(), HasAvx512Vnni)->Apply(Shapes);

// IgemmConv (packing and products) and IgemmPackIm2Col alone, best tier, one thread, on 2-D
// convolutions {C, M, H=W, kernel, stride} with "same" padding: YOLOX-nano's first convolution
// (12 -> 16 at 208), a 1x1 32 -> 32 at 104, a 3x3 64 -> 64 at 26.
ConvGeometry SquareConv(const benchmark::State& state) {
  ConvGeometry g;
  g.batch = 1, g.in_channels = state.range(0), g.out_channels = state.range(1), g.group = 1, g.spatial_rank = 2;
  const int64_t size = state.range(2), kernel = state.range(3), stride = state.range(4);
  for (int d = 1; d < 3; ++d) {
    g.in[d] = size, g.kernel[d] = kernel, g.stride[d] = stride, g.pad_begin[d] = g.pad_end[d] = kernel / 2;
    g.out[d] = (size + 2 * (kernel / 2) - kernel) / stride + 1;
  }
  return g;
}

void BM_IgemmConv(benchmark::State& state, bool pack_only) {
  const ConvGeometry g = SquareConv(state);
  const int64_t k = g.reduction_size();
  std::mt19937 rng(9);
  std::vector<uint8_t> x(static_cast<size_t>(g.in_channels * g.in_spatial()));
  for (auto& v : x) v = static_cast<uint8_t>(rng());
  std::vector<int16_t> w(static_cast<size_t>(g.out_channels * IgemmRowLength(k)), 3);
  std::vector<int16_t> patches(static_cast<size_t>(IgemmPackedBSize(k, g.out_spatial())));
  std::vector<int32_t> y(static_cast<size_t>(g.output_count()));
  const IgemmKernel kernel = SelectIgemmKernel(kIsaAuto);
  for (auto _ : state) {
    if (pack_only)
      IgemmPackIm2Col(g, x.data(), 128, 0, g.out_spatial(), patches.data());
    else
      IgemmConv(kernel, g, x.data(), 128, w.data(), y.data(), 1);
    benchmark::DoNotOptimize(patches.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GOP/s"] =
      benchmark::Counter(2.0 * g.out_channels * g.out_spatial() * k, benchmark::Counter::kIsIterationInvariantRate,
                         benchmark::Counter::kIs1000);
}

void ConvShapes(benchmark::internal::Benchmark* b) {
  b->Args({12, 16, 208, 3, 1})->Args({32, 32, 104, 1, 1})->Args({64, 64, 26, 3, 1});
}

BENCHMARK_CAPTURE(BM_IgemmConv, conv, false)->Apply(ConvShapes);
BENCHMARK_CAPTURE(BM_IgemmConv, pack_only, true)->Apply(ConvShapes);

}  // namespace
}  // namespace qrt
