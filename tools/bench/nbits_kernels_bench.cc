// Benchmarks of MatMulNBits' kernels (ops/kernels/nbits/matmul_nbits.h): a token's
// matrix-vector product (one row of A) over 4-bit weights of a small language model's layer
// (4096 x 4096, blocks of 32), reported as bytes of packed weights (codes and scales) read per
// second beside memcpy of the same bytes; and a 64-token prompt (m = 64) in GFLOP/s. The int8
// path (accuracy_level 4, NbitsInt8*) on the same layer, one row and 64 rows, at each tier.
//   qrt_kernel_bench --benchmark_filter='Nbits|NbitsMemcpy'
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "ops/kernels/nbits/matmul_nbits.h"
#include "runtime/cpu_features.h"

namespace qrt {
namespace {

struct Layer {
  int64_t n, k, block;
  std::vector<uint8_t> codes, zps;
  std::vector<float> scales;
  Layer(int64_t n_, int64_t k_, int64_t block_) : n(n_), k(k_), block(block_) {
    std::mt19937 rng(5);
    const int64_t blocks = (k + block - 1) / block;
    codes.resize(size_t(n * blocks * block / 2));
    for (uint8_t& c : codes) c = uint8_t(rng());
    zps.resize(size_t(n * ((blocks + 1) / 2)));
    for (uint8_t& z : zps) z = uint8_t(rng());
    for (int64_t i = 0; i < n * blocks; ++i) scales.push_back(0.001f * float(1 + rng() % 17));
  }
  NbitsWeights weights() const {
    NbitsWeights w;
    w.n = n;
    w.k = k;
    w.block = block;
    w.blocks = (k + block - 1) / block;
    w.codes = codes.data();
    w.scales = scales.data();
    w.zero_points = zps.data();
    return w;
  }
  size_t bytes() const { return codes.size() + scales.size() * sizeof(float) + zps.size(); }
};

const Layer& BigLayer() {
  static const Layer layer(4096, 4096, 32);
  return layer;
}

void BM_NbitsRow(benchmark::State& state, Isa isa) {
  if (!CanUseAvx2(isa) && isa != Isa::kScalar) return state.SkipWithError("tier not on this CPU");
  const Layer& layer = BigLayer();
  const NbitsRowFn row = SelectNbitsRow(isa);
  std::vector<float> a(size_t(layer.k), 0.5f), y(size_t(layer.n));
  const NbitsWeights w = layer.weights();
  for (auto _ : state) {
    row(w, a.data(), nullptr, 0, layer.n, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(layer.bytes()));
}

void BM_NbitsMemcpy(benchmark::State& state) {
  const size_t bytes = BigLayer().bytes();
  std::vector<uint8_t> src(bytes, 1), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));  // bytes read, as above
}

void BM_NbitsPrompt(benchmark::State& state, Isa isa) {
  if (!CanUseAvx2(isa)) return state.SkipWithError("no AVX2");
  static const Layer layer(1024, 1024, 32);
  const int64_t m = 64;
  const NbitsRowsFn rows = SelectNbitsRows(isa);
  std::vector<float> a(size_t(m * layer.k), 0.25f), y(size_t(m * layer.n));
  const NbitsWeights w = layer.weights();
  for (auto _ : state) {
    rows(w, m, a.data(), nullptr, 0, layer.n, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(double(state.iterations()) * 2.0 * double(m * layer.k * layer.n),
                                                 benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

// accuracy_level 4: A quantized per call, then the integer partial sums (the zero points'
// terms made once, as the op does for its constant weights).
void BM_NbitsInt8(benchmark::State& state, Isa isa, int64_t m) {
  if (isa != Isa::kScalar && EffectiveIsa(isa) != isa) return state.SkipWithError("tier not on this CPU");
  const Layer& layer = BigLayer();
  const NbitsInt8Fn f = SelectNbitsInt8(isa);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.f, 1.f);
  std::vector<float> a(size_t(m * layer.k)), y(size_t(m * layer.n));
  for (float& v : a) v = value(rng);
  NbitsWeights w = layer.weights();
  const std::vector<float> terms = NbitsZeroPointTerms(w);  // made once, as the op makes them
  w.zero_point_terms = terms.data();
  for (auto _ : state) {
    f(w, m, a.data(), nullptr, y.data());
    benchmark::DoNotOptimize(y.data());
  }
  if (m == 1) state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(layer.bytes()));
  state.counters["GFLOP/s"] = benchmark::Counter(double(state.iterations()) * 2.0 * double(m * layer.k * layer.n),
                                                 benchmark::Counter::kIsRate, benchmark::Counter::kIs1000);
}

BENCHMARK_CAPTURE(BM_NbitsRow, scalar, Isa::kScalar)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsRow, avx2, Isa::kAvx2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsRow, avx512, Isa::kAvx512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NbitsMemcpy)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsPrompt, avx2, Isa::kAvx2)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsPrompt, avx512, Isa::kAvx512)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsInt8, row_scalar, Isa::kScalar, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsInt8, row_avx2, Isa::kAvx2, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsInt8, row_avx512, Isa::kAvx512, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsInt8, row_avx512_vnni, Isa::kAvx512Vnni, 1)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsInt8, prompt64_scalar, Isa::kScalar, 64)->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_NbitsInt8, prompt64_avx2, Isa::kAvx2, 64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsInt8, prompt64_avx512, Isa::kAvx512, 64)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_NbitsInt8, prompt64_avx512_vnni, Isa::kAvx512Vnni, 64)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace qrt
