// Benchmarks of the ordered float convolution (conv_float.h) on MobileNetV2's layer shapes at
// 224x224, for every SIMD family this CPU runs, with and without the fake-quantization
// epilogue of fuse-conv-fake-quant. Reports GFLOP/s (2 per multiply-add) and output
// elements/s; the f32 peak of a core is what to compare against (2 FMA ports x lanes x 2 x GHz).
//   qrt_kernel_bench --benchmark_filter=Conv
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ops/kernels/conv/code_patches.h"
#include "ops/kernels/conv/conv_float.h"
#include "ops/kernels/dwconv/depthwise_int8.h"
#include "ops/kernels/pwconv/conv_pointwise_int8.h"
#include "runtime/quant_grid.h"

namespace qrt {
namespace {

struct Layer {
  const char* name;
  int64_t in_channels, out_channels, size, kernel, stride, group;
};

// pw: pointwise (1x1), dw: depthwise 3x3 pad 1; size is the input's height and width.
const Layer kLayers[] = {
    {"first_3x3s2_3to32_224", 3, 32, 224, 3, 2, 1}, {"dw_3x3_32_112", 32, 32, 112, 3, 1, 32},
    {"pw_16to96_112", 16, 96, 112, 1, 1, 1},        {"dw_3x3s2_96_112", 96, 96, 112, 3, 2, 96},
    {"pw_96to24_56", 96, 24, 56, 1, 1, 1},          {"pw_24to144_56", 24, 144, 56, 1, 1, 1},
    {"dw_3x3_144_56", 144, 144, 56, 3, 1, 144},     {"pw_64to384_14", 64, 384, 14, 1, 1, 1},
    {"pw_384to64_14", 384, 64, 14, 1, 1, 1},        {"dw_3x3_384_14", 384, 384, 14, 3, 1, 384},
    {"dw_3x3s2_576_14", 576, 576, 14, 3, 2, 576},   {"dw_3x3_960_7", 960, 960, 7, 3, 1, 960},
    {"pw_160to960_7", 160, 960, 7, 1, 1, 1},        {"pw_960to160_7", 960, 160, 7, 1, 1, 1},
};

ConvGeometry GeometryOf(const Layer& l) {
  ConvGeometry g;
  g.in_channels = l.in_channels, g.out_channels = l.out_channels, g.group = l.group;
  g.in[1] = g.in[2] = l.size;
  g.kernel[1] = g.kernel[2] = l.kernel;
  g.stride[1] = g.stride[2] = l.stride;
  const int64_t pad = l.kernel / 2;
  g.pad_begin[1] = g.pad_begin[2] = g.pad_end[1] = g.pad_end[2] = pad;
  for (int d = 1; d < 3; ++d) g.out[d] = (g.in[d] + 2 * pad - l.kernel) / l.stride + 1;
  return g;
}

std::vector<float> Random(int64_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& f : v) f = u(rng);
  return v;
}

// codes: X read and Y written as uint8 codes (link-conv-codes; depthwise layers), fake_quant null.
void BM_Conv(benchmark::State& state, const Layer& l, ConvFloatKernels kernels, QuantizeDequantizeF32Fn fake_quant,
             bool codes = false) {
  const ConvGeometry g = GeometryOf(l);
  const std::vector<float> x = Random(g.in_channels * g.in_spatial(), 1), w = Random(g.weight_count(), 2),
                           b = Random(g.out_channels, 3);
  std::vector<float> y(static_cast<size_t>(g.output_count()));
  std::vector<float> scratch(static_cast<size_t>(std::max<int64_t>(1, ConvFloatScratchFloats(g))));
  OutputEpilogue epilogue;
  epilogue.before.map = fake_quant, epilogue.before.scale = 0.05f, epilogue.before.zero_point = 3;
  std::vector<uint8_t> x_codes(x.size()), y_codes(y.size());
  for (size_t i = 0; i < x.size(); ++i) x_codes[i] = uint8_t(std::lround(x[i] * 100) + 128);
  const ConvInputCodes in{x_codes.data(), SelectDequantizeRows(DataType::kUInt8, Isa::kAvx2), 0.01f, 128, false};
  const ConvOutputCodes out{y_codes.data(), SelectQuantizeF32(DataType::kUInt8, Isa::kAvx2), 0.05f, 3, false};
  for (auto _ : state) {
    if (codes)
      ConvFloatOrdered(g, nullptr, w.data(), b.data(), nullptr, kernels, scratch.data(), 1, nullptr, &in, &out);
    else
      ConvFloatOrdered(g, x.data(), w.data(), b.data(), y.data(), kernels, scratch.data(), 1,
                       fake_quant != nullptr ? &epilogue : nullptr);
    benchmark::ClobberMemory();
  }
  const double macs = static_cast<double>(g.output_count()) * static_cast<double>(g.reduction_size());
  state.counters["GFLOPS"] = benchmark::Counter(2 * macs * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetItemsProcessed(state.iterations() * g.output_count());
}

// Weights on a per-channel int8 grid (scales 0.01 to 0.0106, wg set to it), as DequantizeLinear
// of int8 weights makes them.
std::vector<float> GridWeights(const ConvGeometry& g, std::mt19937& rng, QuantGrid* wg) {
  wg->type = DataType::kInt8, wg->axis = 0;
  const int64_t k = g.reduction_size();
  std::vector<float> w(static_cast<size_t>(g.weight_count()));
  for (int64_t c = 0; c < g.out_channels; ++c) {
    wg->scales.push_back(0.01f + 0.0001f * float(c % 7)), wg->zero_points.push_back(0);
    for (int64_t i = 0; i < k; ++i) w[size_t(c * k + i)] = float(int(rng() % 255) - 127) * wg->scales.back();
  }
  return w;
}

// Values on 8-bit grids, as in a QDQ graph: x = fl(d * s_x) (u8, zero point 128), w = fl(e * s_w[c])
// (s8 per channel); the output scale makes the outputs span the 8-bit range, as calibration does.
// codes: X read and Y written as uint8 codes (link-conv-codes), the int8 path only.
// isa: the ceiling the plan picks its kernel under (the AVX2 kernel at kAvx2).
void BM_ConvInt8(benchmark::State& state, const Layer& l, bool int8, bool codes = false, Isa isa = kIsaAuto) {
  const ConvGeometry g = GeometryOf(l);
  std::mt19937 rng(7);
  QuantGrid xg, wg;
  xg.type = DataType::kUInt8, xg.scales = {0.02f}, xg.zero_points = {128};
  std::vector<float> x(static_cast<size_t>(g.in_channels * g.in_spatial()));
  for (float& v : x) v = float(int(rng() % 256) - 128) * xg.scales[0];
  const std::vector<float> w = GridWeights(g, rng, &wg);
  const std::vector<float> b = Random(g.out_channels, 3);
  std::vector<float> y(static_cast<size_t>(g.output_count()));
  std::vector<float> scratch(static_cast<size_t>(std::max<int64_t>(1, ConvFloatScratchFloats(g))));
  const ConvFloatKernels kernels{avx512::Sgemm, avx512::SgemmOneRow, avx512::SplitPairs};
  ConvFloatOrdered(g, x.data(), w.data(), b.data(), y.data(), kernels, scratch.data());
  float top = 0;
  for (float v : y) top = std::max(top, std::fabs(v));
  OutputEpilogue epilogue;
  epilogue.before.map = avx512::QuantizeDequantizeS8, epilogue.before.scale = top / 127, epilogue.before.zero_point = 0;
  const auto plan = PlanPointwiseInt8(g, w.data(), wg, xg, b.data(), 0, isa);
  if (plan == nullptr) return state.SkipWithError("no int8 plan");
  PointwiseInt8Args a;
  a.x = x.data(), a.w = w.data(), a.bias = b.data(), a.y = y.data(), a.epilogue = epilogue, a.before_signed = true;
  a.gemm = avx512::Sgemm;
  std::vector<uint8_t> x_codes(x.size()), y_codes(y.size());
  if (codes) {
    for (size_t i = 0; i < x.size(); ++i) x_codes[i] = uint8_t(std::lround(x[i] / xg.scales[0]) + 128);
    a.x = nullptr, a.x_codes = x_codes.data();
    a.y = nullptr, a.codes = y_codes.data(), a.quantize = avx512::QuantizeF32ToS8;
  }
  // A kernel other than 1x1 runs over the patch matrix of X's codes, built at every run as the op
  // builds it (from floats: their codes first, checked against the grid).
  std::vector<uint8_t> planes(size_t(CodePlanesBytes(g))), patches(size_t(plan->k * plan->columns + kCodePatchesSlack));
  std::vector<uint8_t> made_codes(x.size());
  for (auto _ : state) {
    if (!int8) {
      ConvFloatOrdered(g, x.data(), w.data(), b.data(), y.data(), kernels, scratch.data(), 1, &epilogue);
    } else {
      PointwiseInt8Args run = a;
      if (plan->patches) {
        if (!codes && !CodesOnGrid(x.data(), int64_t(x.size()), xg.scales[0], 1.f / xg.scales[0], 128, DataType::kUInt8,
                                   made_codes.data()))
          return state.SkipWithError("X off its grid");
        BuildCodePatches(g, codes ? x_codes.data() : made_codes.data(), 128, planes.data(), patches.data());
        run.x = nullptr, run.x_codes = patches.data();
      }
      if (!ConvPointwiseInt8(*plan, run)) return state.SkipWithError("int8 path refused");
    }
    benchmark::ClobberMemory();
  }
  const double macs = static_cast<double>(g.output_count()) * static_cast<double>(g.reduction_size());
  state.counters["GFLOPS"] = benchmark::Counter(2 * macs * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetItemsProcessed(state.iterations() * g.output_count());
}

void Register() {
  struct Family {
    const char* tag;
    ConvFloatKernels kernels;
    QuantizeDequantizeF32Fn fake_quant;
  };
  std::vector<Family> families;
  if (DetectCpuFeatures().avx2) {
    families.push_back({"avx2", {avx2::Sgemm, avx2::SgemmOneRow, avx2::SplitPairs}, avx2::QuantizeDequantizeS8});
  }
  if (DetectCpuFeatures().avx512) {
    families.push_back(
        {"avx512",
         {avx512::Sgemm, avx512::SgemmOneRow, avx512::SplitPairs, avx512::DepthwiseLanes, avx512::DepthwiseRows},
         avx512::QuantizeDequantizeS8});
    // Depthwise planes through the padded rows' general path, which the lanes and rows kernels
    // replace.
    families.push_back(
        {"avx512_padded", {avx512::Sgemm, avx512::SgemmOneRow, avx512::SplitPairs}, avx512::QuantizeDequantizeS8});
  }
  for (const Layer& l : kLayers) {
    const bool depthwise = std::string(l.name).rfind("dw", 0) == 0;
    for (const Family& f : families) {
      if (std::string(f.tag) == "avx512_padded" && !depthwise) continue;
      for (bool fused : {false, true}) {
        const std::string name = std::string("Conv_") + l.name + (fused ? "_fakequant/" : "/") + f.tag;
        benchmark::RegisterBenchmark(name.c_str(), [l, f, fused](benchmark::State& s) {
          BM_Conv(s, l, f.kernels, fused ? f.fake_quant : nullptr);
        })->UseRealTime();
      }
      if (!depthwise || std::string(f.tag) == "avx2") continue;
      const std::string name = std::string("Conv_") + l.name + "_codes/" + f.tag;
      benchmark::RegisterBenchmark(name.c_str(), [l, f](benchmark::State& s) {
        BM_Conv(s, l, f.kernels, nullptr, true);
      })->UseRealTime();
    }
  }
}

const int kRegistered = (Register(), 0);

// The exact int8 pointwise path against the float path it replaces, on the same grid data.
void RegisterInt8() {
  if (!PointwiseInt8Available()) return;
  const Layer layers[] = {{"pw_32to192_28", 32, 192, 28, 1, 1, 1},
                          {"pw_64to384_14", 64, 384, 14, 1, 1, 1},
                          {"pw_96to576_14", 96, 576, 14, 1, 1, 1},
                          {"pw_576to96_14", 576, 96, 14, 1, 1, 1},
                          {"pw_160to960_7", 160, 960, 7, 1, 1, 1},
                          {"pw_960to160_7", 960, 160, 7, 1, 1, 1},
                          {"pw_960to320_7", 960, 320, 7, 1, 1, 1},
                          {"pw_512to256_7", 512, 256, 7, 1, 1, 1},
                          {"pw_2048to256_7", 2048, 256, 7, 1, 1, 1},
                          {"pw_4096to64_7", 4096, 64, 7, 1, 1, 1},
                          {"pw_320to1280_7", 320, 1280, 7, 1, 1, 1},
                          {"pw_24to144_56", 24, 144, 56, 1, 1, 1},
                          {"pw_16to96_112", 16, 96, 112, 1, 1, 1},
                          {"pw_32to16_112", 32, 16, 112, 1, 1, 1},
                          {"pw_144to24_56", 144, 24, 56, 1, 1, 1},
                          {"pw_96to24_56", 96, 24, 56, 1, 1, 1},
                          {"pw_192to32_28", 192, 32, 28, 1, 1, 1},
                          // Over patches: MobileNetV2's and YOLOv8n's 3x3 convolutions.
                          {"c3x3s2_3to32_224", 3, 32, 224, 3, 2, 1},
                          {"c3x3s2_16to32_112", 16, 32, 112, 3, 2, 1},
                          {"c3x3_32to32_56", 32, 32, 56, 3, 1, 1},
                          {"c3x3_64to64_28", 64, 64, 28, 3, 1, 1},
                          {"c3x3_128to128_14", 128, 128, 14, 3, 1, 1}};
  for (const Layer& l : layers) {
    // The AVX2 kernel (VPMADDWD on int16 pairs), floats and codes, on any CPU with AVX2.
    for (bool codes : {false, true}) {
      const std::string name = std::string("ConvGrid_") + l.name + (codes ? "/int8_avx2_codes" : "/int8_avx2");
      benchmark::RegisterBenchmark(name.c_str(), [l, codes](benchmark::State& s) {
        BM_ConvInt8(s, l, true, codes, Isa::kAvx2);
      })->UseRealTime();
    }
    if (!CanUseAvx512Vnni(kIsaAuto)) continue;
    for (bool int8 : {false, true}) {
      const std::string name = std::string("ConvGrid_") + l.name + (int8 ? "/int8_vnni" : "/f32_avx512");
      benchmark::RegisterBenchmark(name.c_str(), [l, int8](benchmark::State& s) {
        BM_ConvInt8(s, l, int8);
      })->UseRealTime();
    }
    benchmark::RegisterBenchmark((std::string("ConvGrid_") + l.name + "/int8_vnni_codes").c_str(),
                                 [l](benchmark::State& s) { BM_ConvInt8(s, l, true, true); })
        ->UseRealTime();
  }
}

const int kRegisteredInt8 = (RegisterInt8(), 0);

// The int8 depthwise path (codes in and out) beside the float kernels' Conv_dw_*_codes: weights
// on a per-channel int8 grid, uint8 codes in and out.
void BM_DepthwiseInt8(benchmark::State& state, const Layer& l, DepthwiseInt8PlaneFn kernel) {
  const ConvGeometry g = GeometryOf(l);
  std::mt19937 rng(11);
  QuantGrid xg, wg;
  xg.type = DataType::kUInt8, xg.scales = {0.01f}, xg.zero_points = {128};
  const std::vector<float> w = GridWeights(g, rng, &wg);
  const std::vector<float> b = Random(g.out_channels, 3);
  const auto plan = PlanDepthwiseInt8(g, w.data(), wg, b.data(), xg, 0.05f, 3, DataType::kUInt8);
  if (plan == nullptr) return state.SkipWithError("no int8 depthwise plan");
  std::vector<uint8_t> x(static_cast<size_t>(g.in_channels * g.in_spatial())), y(static_cast<size_t>(g.output_count()));
  for (uint8_t& q : x) q = uint8_t(rng());
  for (auto _ : state) {
    ConvDepthwiseInt8(*plan, kernel, x.data(), y.data(), 1, 1);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * g.output_count());
}

void RegisterDepthwiseInt8() {
  for (const Layer& l : kLayers) {
    if (std::string(l.name).rfind("dw", 0) != 0) continue;
    if (CanUseAvx2(kIsaAuto)) {
      benchmark::RegisterBenchmark((std::string("Conv_") + l.name + "_codes/int8_avx2").c_str(),
                                   [l](benchmark::State& s) { BM_DepthwiseInt8(s, l, avx2::DepthwiseInt8Plane); })
          ->UseRealTime();
    }
    if (CanUseAvx512Vnni(kIsaAuto)) {
      benchmark::RegisterBenchmark((std::string("Conv_") + l.name + "_codes/int8_vnni").c_str(),
                                   [l](benchmark::State& s) { BM_DepthwiseInt8(s, l, avx512::DepthwiseInt8Plane); })
          ->UseRealTime();
    }
  }
}

const int kRegisteredDepthwiseInt8 = (RegisterDepthwiseInt8(), 0);

}  // namespace
}  // namespace qrt
