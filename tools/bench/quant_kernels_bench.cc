// Benchmarks of the quantization kernels (reference vs AVX2) through their plan APIs, plus
// memcpy of the same number of bytes (bytes read + written) for comparison.
// Each benchmark reports bytes/s (read + written) and items/s (output elements).
//   qrt_kernel_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ops/kernels/eltwise/lookup_table.h"
#include "ops/kernels/qbinary/quantized_binary.h"
#include "ops/kernels/quantize/dequantize_rows.h"
#include "ops/kernels/quantize/fake_quantize.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "ops/kernels/quantize/quantize_v2.h"
#include "ops/kernels/quantize/uniform_dequantize.h"

namespace qrt {
namespace {

constexpr int64_t kSmall = int64_t{1} << 16;  // 64K elements
constexpr int64_t kLarge = int64_t{1} << 24;  // 16M elements

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-3.0f, 3.0f);
  std::vector<float> v(n);
  for (auto& f : v) f = u(rng);
  return v;
}

// Runs `body` per iteration; `bytes_per_elem` counts bytes read + written per output element.
void Loop(benchmark::State& state, int64_t n, double bytes_per_elem, const std::function<void()>& body) {
  for (auto _ : state) {
    body();
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(static_cast<int64_t>(static_cast<double>(state.iterations()) * n * bytes_per_elem));
}

void Check(const Status& s, benchmark::State& state) {
  if (!s.ok()) state.SkipWithError(s.message().c_str());
}

const char* IsaTag(Isa isa) { return CanUseAvx2(isa) ? "avx2" : "ref"; }

// ---- memcpy ----------------------------------------------------------------------------------

void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));  // copied; read + written = 2x
  std::vector<uint8_t> src = RandomBytes(bytes, 1), dst(bytes);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * 2 * bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

// ---- FakeQuantize f32 --------------------------------------------------------------------------

void BM_FakeQuantize(benchmark::State& state, Isa isa, bool per_channel) {
  const int64_t n = state.range(0);
  const int64_t c = 64;
  const Dims xd = per_channel ? Dims{1, c, n / c} : Dims{n};
  const Dims rd = per_channel ? Dims{1, c, 1} : Dims{};
  const TensorDesc x{DataType::kFloat32, xd}, r{DataType::kFloat32, rd};
  auto plan = PrepareFakeQuantize({256, AutoBroadcast::kNumpy, -1}, x, r, r, r, r, isa);
  if (!plan.ok()) return Check(plan.status(), state);
  const size_t nr = per_channel ? c : 1;
  std::vector<float> xv = RandomFloats(n, 2), y(n);
  std::vector<float> il(nr, -2.0f), ih(nr, 2.5f), ol(nr, -1.0f), oh(nr, 1.0f);
  Loop(state, n, 8,
       [&] { (void)RunFakeQuantize(*plan, xv.data(), il.data(), ih.data(), ol.data(), oh.data(), y.data()); });
}

// ---- QuantizeV2 (8-bit T) ------------------------------------------------------------------------

void BM_QuantizeV2(benchmark::State& state, Isa isa, DataType t, QuantizeV2Mode mode, bool per_axis) {
  const int64_t n = state.range(0);
  const int64_t c = 64;
  QuantizeV2Attrs a;
  a.T = t;
  a.mode = mode;
  a.axis = per_axis ? 1 : -1;
  const Dims xd = per_axis ? Dims{n / c, c} : Dims{n};
  const Dims rd = per_axis ? Dims{c} : Dims{};
  auto plan = PrepareQuantizeV2(a, {DataType::kFloat32, xd}, {DataType::kFloat32, rd}, {DataType::kFloat32, rd}, isa);
  if (!plan.ok()) return Check(plan.status(), state);
  const size_t nr = per_axis ? c : 1;
  std::vector<float> x = RandomFloats(n, 3), mn(nr, -2.0f), mx(nr, 3.0f), omin(nr), omax(nr);
  std::vector<uint8_t> y(n);
  Loop(state, n, 5,
       [&] { (void)RunQuantizeV2(*plan, x.data(), mn.data(), mx.data(), y.data(), omin.data(), omax.data()); });
}

// ---- QuantizeLinear / DequantizeLinear (8-bit, per tensor) -----------------------------------------

// One family's QuantizeLinear kernel: 4 bytes read, 1 written.
void BM_QuantizeLinear(benchmark::State& state, QuantizeF32Fn fn, int32_t zp) {
  const int64_t n = state.range(0);
  std::vector<float> x = RandomFloats(size_t(n), 7);
  std::vector<uint8_t> y(static_cast<size_t>(n));
  Loop(state, n, 5.0, [&] { fn(n, x.data(), 0.0235f, zp, y.data()); });
}

// LookupTable (the fused Q(f(DQ(x))) of fuse-qdq-unary): 1 byte read, 1 written.
void BM_LookupTable(benchmark::State& state, LookupTableFn fn) {
  const int64_t n = state.range(0);
  std::vector<uint8_t> x = RandomBytes(size_t(n), 10), table = RandomBytes(256, 11), y(static_cast<size_t>(n));
  Loop(state, n, 2.0, [&] { fn(n, x.data(), table.data(), y.data()); });
}

// The fused pair: 4 bytes read, 4 written.
void BM_QuantizeDequantize(benchmark::State& state, QuantizeDequantizeF32Fn fn) {
  const int64_t n = state.range(0);
  std::vector<float> x = RandomFloats(size_t(n), 9);
  std::vector<float> y(static_cast<size_t>(n));
  Loop(state, n, 8.0, [&] { fn(n, x.data(), 0.0235f, 0, y.data()); });
}

void BM_DequantizeLinear(benchmark::State& state, Isa isa, DataType t) {
  const int64_t n = state.range(0);
  DequantizeToF32Fn fn = SelectDequantizeToF32(t, isa);
  std::vector<uint8_t> x = RandomBytes(size_t(n), 8);
  std::vector<float> y(static_cast<size_t>(n));
  Loop(state, n, 5.0, [&] { fn(n, x.data(), 0.0235f, t == DataType::kUInt8 ? 128 : 0, y.data()); });
}

// A 112 x 112 plane of codes into a convolution's padded rows (link-conv-codes): row by row, or
// split into column phases (stride 2). 1 byte read and 4 written per element.
void BM_DequantizeRows(benchmark::State& state, Isa isa, bool pairs) {
  constexpr int64_t kWidth = 112, kRows = 112;
  const DequantizeRowKernels k = SelectDequantizeRows(DataType::kUInt8, isa);
  std::vector<uint8_t> x = RandomBytes(size_t(kWidth * kRows), 10);
  std::vector<float> y(static_cast<size_t>(kWidth * kRows));
  Loop(state, kWidth * kRows, 5.0, [&] {
    for (int64_t r = 0; r < kRows; ++r) {
      float* row = y.data() + r * kWidth;
      if (pairs)
        k.pairs(kWidth / 2, x.data() + r * kWidth, 0.0235f, 128, row, row + kWidth / 2);
      else
        k.row(kWidth, x.data() + r * kWidth, 0.0235f, 128, row);
    }
  });
}

// ---- UniformDequantize -----------------------------------------------------------------------------

void BM_UniformDequantize(benchmark::State& state, Isa isa, DataType t, bool per_axis) {
  const int64_t n = state.range(0);
  const int64_t c = 64;
  UniformDequantizeAttrs a;
  a.quantization_axis = per_axis ? 1 : -1;
  const Dims xd = per_axis ? Dims{n / c, c} : Dims{n};
  const Dims sd = per_axis ? Dims{c} : Dims{};
  auto plan = PrepareUniformDequantize(a, {t, xd}, {DataType::kFloat32, sd}, {DataType::kInt32, sd}, isa);
  if (!plan.ok()) return Check(plan.status(), state);
  const size_t es = DataTypeSize(t);
  std::vector<uint8_t> x = RandomBytes(n * es, 4);
  std::vector<float> s(c, 0.05f), y(n);
  std::vector<int32_t> z(c, 3);
  Loop(state, n, static_cast<double>(es + 4),
       [&] { (void)RunUniformDequantize(*plan, x.data(), s.data(), z.data(), y.data()); });
}

// ---- QuantizedMul / QuantizedAdd u8 -------------------------------------------------------------------

enum class Bcast { kSame, kScalarB, kPerChannel };

// A SIMD kernel family run in place of the one `isa` picks (nullptr: the picked one).
using PickQuantizedBinary = QuantizedBinaryFn (*)(QuantizedBinaryOp, Requantize, DataType, DataType, DataType);

void BM_QuantizedBinary(benchmark::State& state, Isa isa, PickQuantizedBinary pick, QuantizedBinaryOp op,
                        Requantize rule, Bcast bc, int threads = 1) {
  const int64_t n = state.range(0);
  const int64_t c = 64;
  QuantizedBinaryDescs d;
  Dims ad = {n}, bd = {n};
  if (bc == Bcast::kScalarB) bd = {};
  if (bc == Bcast::kPerChannel) {
    ad = {1, c, n / c / 32, 32};
    bd = {1, c, 1, 1};
  }
  d.a = {DataType::kUInt8, ad};
  d.b = {DataType::kUInt8, bd};
  d.a_scale = d.b_scale = d.c_scale = {DataType::kFloat32, {}};
  d.a_zero_point = d.b_zero_point = d.c_zero_point = {DataType::kUInt8, {}};
  QuantizedBinaryAttrs attrs;
  attrs.requantize = rule;
  auto plan = op == QuantizedBinaryOp::kMul ? PrepareQuantizedMul(attrs, d, isa) : PrepareQuantizedAdd(attrs, d, isa);
  if (!plan.ok()) return Check(plan.status(), state);
  plan->threads = threads;  // split across threads as --threads does (ParallelFor)
  if (pick != nullptr) plan->kernel = pick(op, rule, DataType::kUInt8, DataType::kUInt8, DataType::kUInt8);
  const int64_t nb = ElementCount(bd);
  std::vector<uint8_t> a = RandomBytes(n, 5), b = RandomBytes(nb, 6), out(n);
  const float sa = 0.02f, sb = 0.03f, sc = op == QuantizedBinaryOp::kMul ? 0.2f : 0.04f;
  const uint8_t za = 128, zb = 120, zc = 7;
  QuantizedBinaryData data;
  data.a = a.data();
  data.a_scale = &sa;
  data.a_zero_point = &za;
  data.b = b.data();
  data.b_scale = &sb;
  data.b_zero_point = &zb;
  data.c_scale = &sc;
  data.c_zero_point = &zc;
  data.c = out.data();
  const double bytes = 2.0 + static_cast<double>(nb) / static_cast<double>(n);
  Loop(state, n, bytes, [&] { (void)RunQuantizedBinary(*plan, data); });
}

void Register() {
  const int64_t sizes[] = {kSmall, kLarge};
  // memcpy of the same bytes (read + written) as each kernel family: copy size = bytes / 2.
  for (int64_t n : sizes) {
    for (double bpe :
         {1.0, 1.5, 2.5,
          4.0}) {  // copy = half the kernel bytes: ~2 (broadcast), 3 (QMul/QAdd), 5 (QV2, UD8), 8 (FQ, UD32)
      benchmark::RegisterBenchmark("memcpy", BM_Memcpy)->Arg(static_cast<int64_t>(n * bpe))->UseRealTime();
    }
  }
  // QuantizeLinear s8 and u8 and the fused QuantizeDequantize s8: every family this CPU runs.
  struct QuantFamily {
    const char* tag;
    QuantizeF32Fn q_s8, q_u8;
    QuantizeDequantizeF32Fn qdq;
  };
  std::vector<QuantFamily> quant = {{"ref", ref::QuantizeF32ToS8, ref::QuantizeF32ToU8, ref::QuantizeDequantizeS8}};
  if (DetectCpuFeatures().avx2) {
    quant.push_back({"avx2", avx2::QuantizeF32ToS8, avx2::QuantizeF32ToU8, avx2::QuantizeDequantizeS8});
  }
  if (DetectCpuFeatures().avx512) {
    quant.push_back({"avx512", avx512::QuantizeF32ToS8, avx512::QuantizeF32ToU8, avx512::QuantizeDequantizeS8});
  }
  for (const QuantFamily& f : quant) {
    for (int64_t n : sizes) {
      benchmark::RegisterBenchmark((std::string("QuantizeLinear_f32_to_s8/") + f.tag).c_str(),
                                   [f](benchmark::State& s) { BM_QuantizeLinear(s, f.q_s8, 0); })
          ->Arg(n)
          ->UseRealTime();
      benchmark::RegisterBenchmark((std::string("QuantizeLinear_f32_to_u8/") + f.tag).c_str(),
                                   [f](benchmark::State& s) { BM_QuantizeLinear(s, f.q_u8, 128); })
          ->Arg(n)
          ->UseRealTime();
      benchmark::RegisterBenchmark((std::string("QuantizeDequantize_s8/") + f.tag).c_str(),
                                   [f](benchmark::State& s) { BM_QuantizeDequantize(s, f.qdq); })
          ->Arg(n)
          ->UseRealTime();
    }
  }
  std::vector<std::pair<const char*, LookupTableFn>> tables = {{"ref", ref::LookupTable}};
  if (DetectCpuFeatures().avx2) tables.push_back({"avx2", avx2::LookupTable});
  if (DetectCpuFeatures().avx512_vbmi) tables.push_back({"avx512", avx512::LookupTable});
  for (const auto& [tag, fn] : tables) {
    for (int64_t n : sizes) {
      benchmark::RegisterBenchmark((std::string("LookupTable_u8/") + tag).c_str(),
                                   [fn = fn](benchmark::State& s) { BM_LookupTable(s, fn); })
          ->Arg(n)
          ->UseRealTime();
    }
  }
  // QuantizedMul / QuantizedAdd: the reference and every SIMD family this CPU runs.
  struct Family {
    const char* tag;
    Isa isa;
    PickQuantizedBinary pick;
  };
  std::vector<Family> families = {{"ref", Isa::kScalar, nullptr}};
  if (DetectCpuFeatures().avx2) families.push_back({"avx2", Isa::kAvx2, avx2::QuantizedBinaryKernel});
  if (DetectCpuFeatures().avx512_vbmi) families.push_back({"avx512", Isa::kAvx512, avx512::QuantizedBinaryKernel});
  for (const Family& f : families) {
    for (int64_t n : sizes) {
      auto reg = [&](const std::string& name, QuantizedBinaryOp op, Requantize rule, Bcast bc, int threads = 1) {
        benchmark::RegisterBenchmark(
            (name + "/" + f.tag).c_str(),
            [=](benchmark::State& s) { BM_QuantizedBinary(s, f.isa, f.pick, op, rule, bc, threads); })
            ->Arg(n)
            ->UseRealTime();
      };
      using QB = QuantizedBinaryOp;
      using RQ = Requantize;
      reg("QuantizedMul_u8_reciprocal_same", QB::kMul, RQ::kReciprocal, Bcast::kSame);
      if (f.isa != Isa::kScalar)
        reg("QuantizedMul_u8_reciprocal_same_2threads", QB::kMul, RQ::kReciprocal, Bcast::kSame, 2);
      reg("QuantizedMul_u8_divide_same", QB::kMul, RQ::kDivide, Bcast::kSame);
      reg("QuantizedMul_u8_combined_same", QB::kMul, RQ::kCombined, Bcast::kSame);
      reg("QuantizedMul_u8_reciprocal_scalarB", QB::kMul, RQ::kReciprocal, Bcast::kScalarB);
      reg("QuantizedMul_u8_reciprocal_perchannel", QB::kMul, RQ::kReciprocal, Bcast::kPerChannel);
      reg("QuantizedAdd_u8_reciprocal_same", QB::kAdd, RQ::kReciprocal, Bcast::kSame);
      reg("QuantizedAdd_u8_divide_same", QB::kAdd, RQ::kDivide, Bcast::kSame);
      reg("QuantizedAdd_u8_combined_same", QB::kAdd, RQ::kCombined, Bcast::kSame);
    }
  }
  for (Isa isa : {Isa::kScalar, Isa::kAvx2}) {
    const std::string t = IsaTag(isa);
    for (int64_t n : sizes) {
      auto reg = [&](const std::string& name, auto fn) {
        benchmark::RegisterBenchmark((name + "/" + t).c_str(), fn)->Arg(n)->UseRealTime();
      };
      reg("QuantizeV2_u8_min_combined",
          [isa](benchmark::State& s) { BM_QuantizeV2(s, isa, DataType::kUInt8, QuantizeV2Mode::kMinCombined, false); });
      reg("QuantizeV2_u8_min_first",
          [isa](benchmark::State& s) { BM_QuantizeV2(s, isa, DataType::kUInt8, QuantizeV2Mode::kMinFirst, false); });
      reg("QuantizeV2_i8_scaled",
          [isa](benchmark::State& s) { BM_QuantizeV2(s, isa, DataType::kInt8, QuantizeV2Mode::kScaled, false); });
      reg("QuantizeV2_i8_scaled_peraxis_last",
          [isa](benchmark::State& s) { BM_QuantizeV2(s, isa, DataType::kInt8, QuantizeV2Mode::kScaled, true); });
      reg("UniformDequantize_i8", [isa](benchmark::State& s) { BM_UniformDequantize(s, isa, DataType::kInt8, false); });
      reg("UniformDequantize_u8_peraxis_last",
          [isa](benchmark::State& s) { BM_UniformDequantize(s, isa, DataType::kUInt8, true); });
      reg("UniformDequantize_i32",
          [isa](benchmark::State& s) { BM_UniformDequantize(s, isa, DataType::kInt32, false); });
      reg("DequantizeLinear_s8_to_f32", [isa](benchmark::State& s) { BM_DequantizeLinear(s, isa, DataType::kInt8); });
      if (n == kSmall) {
        reg("DequantizeRows_u8_112x112_rows", [isa](benchmark::State& s) { BM_DequantizeRows(s, isa, false); });
        reg("DequantizeRows_u8_112x112_pairs", [isa](benchmark::State& s) { BM_DequantizeRows(s, isa, true); });
      }
      reg("FakeQuantize_f32_scalar", [isa](benchmark::State& s) { BM_FakeQuantize(s, isa, false); });
      reg("FakeQuantize_f32_perchannel", [isa](benchmark::State& s) { BM_FakeQuantize(s, isa, true); });
    }
  }
}

const int kRegistered = (Register(), 0);

}  // namespace
}  // namespace qrt
