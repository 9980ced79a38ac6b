// Benchmarks of the LayerNormalization row and float Reduce kernels, reference vs AVX2, on
// transformer-sized rows (LayerNorm over 384 / 768 values) and the common reduction shapes:
// the last axis of [1024, 768] (KR: Eigen's order) and the channels of [1, 64, 56, 56] (KRK:
// adjacent outputs). items/s counts input elements.
//   qrt_kernel_bench --benchmark_filter='LayerNorm|FloatReduce'
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "ops/kernels/norm/layer_norm.h"
#include "ops/kernels/reduce/float_reduce.h"

namespace qrt {
namespace {

std::vector<float> Normal(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.f, 1.f);
  std::vector<float> v(n);
  for (float& f : v) f = d(rng);
  return v;
}

void BM_LayerNorm(benchmark::State& state, LayerNormRowFn fn) {
  const int64_t n = state.range(0), rows = 256;
  const std::vector<float> x = Normal(size_t(n * rows), 1), scale = Normal(size_t(n), 2), bias = Normal(size_t(n), 3);
  std::vector<float> y(x.size());
  for (auto _ : state) {
    float mean, inv;
    for (int64_t r = 0; r < rows; ++r)
      fn(n, x.data() + r * n, scale.data(), bias.data(), 1e-5f, y.data() + r * n, &mean, &inv);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n * rows);
}

// outer x count x inner, reducing the middle axis.
void BM_FloatReduce(benchmark::State& state, FloatReduceFn fn, ReduceFold fold, int64_t outer, int64_t count,
                    int64_t inner) {
  const std::vector<float> x = Normal(size_t(outer * count * inner), 4);
  std::vector<int64_t> kept, reduced;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) kept.push_back(o * count * inner + i);
  }
  for (int64_t j = 0; j < count; ++j) reduced.push_back(j * inner);
  FloatReduceSpec spec;
  spec.fold = fold;
  spec.order = inner == 1 && fold == ReduceFold::kAdd ? ReduceOrder::kEigen
               : fold == ReduceFold::kAdd             ? ReduceOrder::kGroupsOfFour
                                                      : ReduceOrder::kSequential;
  spec.reduced_contiguous = inner == 1;
  std::vector<float> y(kept.size());
  for (auto _ : state) {
    fn(spec, int64_t(kept.size()), kept.data(), count, reduced.data(), x.data(), y.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * int64_t(x.size()));
}

void Register() {
  std::vector<std::pair<std::string, Isa>> isas = {{"ref", Isa::kScalar}};
  if (DetectCpuFeatures().avx2) isas.push_back({"avx2", Isa::kAvx2});
  for (const auto& [tag, isa] : isas) {
    for (int64_t n : {384, 768}) {
      const LayerNormRowFn ln = SelectLayerNormRow(isa, n);
      benchmark::RegisterBenchmark(("LayerNormRow/" + tag).c_str(), [ln](benchmark::State& s) {
        BM_LayerNorm(s, ln);
      })->Arg(n);
    }
    const FloatReduceFn fr = SelectFloatReduce(isa);
    for (auto [name, fold] : {std::pair{"sum", ReduceFold::kAdd}, std::pair{"max", ReduceFold::kMax}}) {
      benchmark::RegisterBenchmark(
          ("FloatReduce_" + std::string(name) + "_last_axis_1024x768/" + tag).c_str(),
          [fr, fold = fold](benchmark::State& s) { BM_FloatReduce(s, fr, fold, 1024, 768, 1); });
      benchmark::RegisterBenchmark(
          ("FloatReduce_" + std::string(name) + "_channels_64x56x56/" + tag).c_str(),
          [fr, fold = fold](benchmark::State& s) { BM_FloatReduce(s, fr, fold, 1, 64, 3136); });
    }
  }
}

const bool kRegistered = (Register(), true);

}  // namespace
}  // namespace qrt
