// The exact int8 pointwise convolution (conv_pointwise_int8.h) against its specification, the
// reference ordered float convolution followed by the same epilogue: bit for bit, on data where
// the proof decides almost every output, on data built to sit on rounding boundaries (where the
// float recomputation decides), on saturating outputs, tails of every size, several k blocks,
// zero points at the ends of their types, PRelu chains, columns off their grid, batches and
// threads. And the cases the plan must refuse.
#include "ops/kernels/pwconv/conv_pointwise_int8.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ops/kernels/conv/conv_float.h"
#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using testing::Bits;
using testing::TestSeed;

// The ceilings under which PlanPointwiseInt8 picks each kernel this CPU runs (AVX2's, and
// AVX-512 VNNI's where the CPU has it, under QRT_MAX_ISA), lowest first.
std::vector<Isa> KernelTiers() {
  std::vector<Isa> tiers;
  for (Isa isa : TiersThisCpuHas()) {
    if (!PointwiseInt8Available(isa)) continue;
    if (tiers.empty() || PointwiseInt8Tier(tiers.back()) != PointwiseInt8Tier(isa)) tiers.push_back(isa);
  }
  return tiers;
}

// The ceiling the tests plan under (PlanAt): set by INT8_TEST for each kernel in turn.
Isa g_tier = kIsaAuto;

std::shared_ptr<const PointwiseInt8Plan> PlanAt(const ConvGeometry& g, const float* w, const QuantGrid& w_grid,
                                                const QuantGrid& x_grid, const float* bias, float output_scale = 0) {
  return PlanPointwiseInt8(g, w, w_grid, x_grid, bias, output_scale, g_tier);
}

// A test of the int8 kernels: its body runs once per kernel this CPU runs (KernelTiers), planned
// under that kernel's ceiling; skipped where there is none (the ordered float convolution runs
// there, tested in conv_test).
// AVX2 has three kernels (int16 pairs, bytes a quad or two quads a step on split weights), each
// with and without the sampled running sums' second bound: each runs, forced in turn.
#define INT8_TEST(name)                                                                             \
  void name##Body();                                                                                \
  TEST(ConvPointwiseInt8, name) {                                                                   \
    const std::vector<Isa> tiers = KernelTiers();                                                   \
    if (tiers.empty()) GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX2: no int8 kernel";           \
    for (Isa tier : tiers) {                                                                        \
      const bool avx2 = PointwiseInt8Tier(tier) == Isa::kAvx2;                                      \
      for (const char* kernel : {"pairs", "bytes", "quads"}) {                                      \
        for (const char* sampled : {"0", "1"}) {                                                    \
          if (!avx2 && (std::string(kernel) != "pairs" || std::string(sampled) != "0")) continue;   \
          SCOPED_TRACE("kernel at " + std::string(IsaName(PointwiseInt8Tier(tier))) +               \
                       (avx2 ? std::string(" ") + kernel + " sampled " + sampled : std::string())); \
          std::optional<testing::ScopedEnv> form, sampling;                                         \
          if (avx2) form.emplace("QRT_PW_AVX2_KERNEL", kernel);                                     \
          if (avx2) sampling.emplace("QRT_PW_AVX2_SAMPLED", sampled);                               \
          g_tier = tier;                                                                            \
          name##Body();                                                                             \
          g_tier = kIsaAuto;                                                                        \
          if (HasFatalFailure()) return;                                                            \
        }                                                                                           \
      }                                                                                             \
    }                                                                                               \
  }                                                                                                 \
  void name##Body()

enum class Data {
  kSpread,      // calibrated: outputs span the 8-bit range
  kBoundaries,  // small integers, scale 1, output scale 2: many sums exactly on a tie
  kSaturating,  // an output scale that clips most outputs
};

struct Case {
  int64_t channels = 8, k = 20, columns = 70, batch = 1;
  bool x_signed = false;
  int32_t x_zp = 128;
  bool y_signed = true;
  int32_t y_zp = 0;
  bool per_channel = true, bias = true, prelu_chain = false;
  Data data = Data::kSpread;
  int threads = 1;
};

std::string Describe(const Case& c) {
  return "channels " + std::to_string(c.channels) + " k " + std::to_string(c.k) + " columns " +
         std::to_string(c.columns) + " batch " + std::to_string(c.batch) + " x_zp " + std::to_string(c.x_zp) +
         " y_zp " + std::to_string(c.y_zp) + " data " + std::to_string(int(c.data)) + " seed " +
         std::to_string(TestSeed());
}

ConvGeometry Pointwise(const Case& c) {
  ConvGeometry g;
  g.batch = c.batch, g.in_channels = c.k, g.out_channels = c.channels;
  g.in[2] = g.out[2] = c.columns;
  return g;
}

struct Inputs {
  QuantGrid x_grid, w_grid;
  std::vector<float> x, w, b, slopes;
  OutputEpilogue epilogue;
};

QuantizeDequantizeF32Fn RefFakeQuant(bool is_signed) {
  return is_signed ? ref::QuantizeDequantizeS8 : ref::QuantizeDequantizeU8;
}

// X and W as DequantizeLinear makes them, (float(q) - float(zp)) * scale.
Inputs Make(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  Inputs in;
  in.x_grid.type = c.x_signed ? DataType::kInt8 : DataType::kUInt8;
  in.x_grid.zero_points = {c.x_zp};
  const int32_t q_low = c.x_signed ? -128 : 0;
  const bool small = c.data == Data::kBoundaries;
  in.x_grid.scales = {small ? 1.f : 0.0213f};
  in.x.resize(size_t(c.batch * c.k * c.columns));
  for (float& v : in.x) {
    const int32_t q = small ? c.x_zp + int32_t(rng() % 7) - 3 : q_low + int32_t(rng() % 256);
    v = (float(std::clamp(q, q_low, q_low + 255)) - float(c.x_zp)) * in.x_grid.scales[0];
  }
  in.w_grid.type = DataType::kInt8;
  in.w_grid.axis = c.per_channel ? 0 : -1;
  for (int64_t ch = 0; ch < (c.per_channel ? c.channels : 1); ++ch) {
    in.w_grid.scales.push_back(small ? 1.f : 0.004f + 0.0007f * float(ch % 5));
    in.w_grid.zero_points.push_back(0);
  }
  in.w.resize(size_t(c.channels * c.k));
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    const float s = in.w_grid.scales[c.per_channel ? size_t(ch) : 0];
    for (int64_t i = 0; i < c.k; ++i) {
      const int32_t e = small ? int32_t(rng() % 5) - 2 : int32_t(rng() % 256) - 128;  // -128 included
      in.w[size_t(ch * c.k + i)] = (float(e) - 0.f) * s;
    }
  }
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int64_t ch = 0; ch < c.channels && c.bias; ++ch) in.b.push_back(small ? float(int(rng() % 5) - 2) : u(rng));
  // Output scale: calibrated to the sums' spread, 2 for the boundary data (odd sums are
  // ties), or a tenth of the spread (most outputs clip).
  double spread = 0;
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    for (int64_t j = 0; j < c.columns; ++j) {
      double y = c.bias ? in.b[size_t(ch)] : 0;
      for (int64_t i = 0; i < c.k; ++i) y += double(in.w[size_t(ch * c.k + i)]) * in.x[size_t(i * c.columns + j)];
      spread = std::max(spread, std::fabs(y));
    }
  }
  float s_y = float(std::max(spread, 1e-3) / 127);
  if (c.data == Data::kBoundaries) s_y = 2.f;
  if (c.data == Data::kSaturating) s_y /= 10;
  in.epilogue.before = {RefFakeQuant(c.y_signed), s_y, c.y_zp};
  if (c.prelu_chain) {
    for (int64_t ch = 0; ch < c.channels; ++ch) in.slopes.push_back(ch % 3 == 0 ? -0.25f : 0.1f * float(ch));
    in.epilogue.slope = in.slopes.data();
    in.epilogue.after = {ref::QuantizeDequantizeU8, s_y * 0.7f, 100};
  }
  return in;
}

// The specification: the reference ordered convolution with the epilogue.
std::vector<float> Expected(const Case& c, const Inputs& in) {
  const ConvGeometry g = Pointwise(c);
  std::vector<float> y(size_t(g.output_count()));
  std::vector<float> scratch(size_t(std::max<int64_t>(1, ConvFloatScratchFloats(g))));
  const ConvFloatKernels ref_kernels{ref::Sgemm, ref::SgemmOneRow, ref::SplitPairs};
  ConvFloatOrdered(g, in.x.data(), in.w.data(), c.bias ? in.b.data() : nullptr, y.data(), ref_kernels, scratch.data(),
                   1, &in.epilogue);
  return y;
}

// X's codes, where every element is on its grid (empty otherwise).
std::vector<uint8_t> CodesOf(const Inputs& in) {
  std::vector<uint8_t> q(in.x.size());
  const float s = in.x_grid.scales[0];
  const int32_t zp = in.x_grid.zero_points[0], low = in.x_grid.type == DataType::kInt8 ? -128 : 0;
  for (size_t i = 0; i < q.size(); ++i) {
    const float d = std::nearbyint(in.x[i] / s);
    if (!(d + float(zp) >= float(low) && d + float(zp) <= float(low + 255)) || (d - 0.f) * s != in.x[i]) return {};
    q[i] = uint8_t(int32_t(d) + zp);
  }
  return q;
}

// The int8 kernel's run on X's floats (or codes) into `a`'s outputs (set by the caller); the
// output scale known at plan time (the step constants kept in the plan) or only at run time.
void RunInt8Into(const Case& c, const Inputs& in, SgemmFn gemm, const std::vector<uint8_t>* x_codes,
                 PointwiseInt8Args a, bool scale_at_plan) {
  const auto plan = PlanAt(Pointwise(c), in.w.data(), in.w_grid, in.x_grid, c.bias ? in.b.data() : nullptr,
                           scale_at_plan ? in.epilogue.before.scale : 0.f);
  ASSERT_NE(plan, nullptr) << Describe(c);
  ASSERT_EQ(plan->steps.size(), scale_at_plan ? size_t(c.channels) : 0) << Describe(c);
  a.x = in.x.data(), a.w = in.w.data(), a.bias = c.bias ? in.b.data() : nullptr;
  if (x_codes != nullptr) a.x = nullptr, a.x_codes = x_codes->data();
  a.batch = c.batch;
  a.epilogue = in.epilogue;
  a.before_signed = c.y_signed;
  a.gemm = gemm;
  a.threads = c.threads;
  EXPECT_TRUE(ConvPointwiseInt8(*plan, a)) << Describe(c);
}

std::vector<float> RunInt8(const Case& c, const Inputs& in, SgemmFn gemm = ref::Sgemm,
                           const std::vector<uint8_t>* x_codes = nullptr, bool scale_at_plan = false) {
  std::vector<float> y(size_t(Pointwise(c).output_count()), std::numeric_limits<float>::quiet_NaN());
  PointwiseInt8Args a;
  a.y = y.data();
  RunInt8Into(c, in, gemm, x_codes, a, scale_at_plan);
  return y;
}

// With codes written instead of floats (an epilogue of the fake quantization alone): the
// specification is QuantizeLinear of the reference convolution's floats.
std::vector<uint8_t> ExpectedCodes(const Case& c, const Inputs& in) {
  Inputs raw = in;
  raw.epilogue = OutputEpilogue();
  const std::vector<float> y = Expected(c, raw);
  std::vector<uint8_t> q(y.size());
  const FakeQuantStep& fq = in.epilogue.before;
  (c.y_signed ? ref::QuantizeF32ToS8 : ref::QuantizeF32ToU8)(int64_t(y.size()), y.data(), fq.scale, fq.zero_point,
                                                             q.data());
  return q;
}

std::vector<uint8_t> RunInt8Codes(const Case& c, const Inputs& in, SgemmFn gemm, QuantizeF32Fn quantize) {
  std::vector<uint8_t> q(size_t(Pointwise(c).output_count()), 0xA5);
  PointwiseInt8Args a;
  a.codes = q.data(), a.quantize = quantize;
  RunInt8Into(c, in, gemm, nullptr, a, /*scale_at_plan=*/true);
  return q;
}

// Floats, from X's floats and (where it is all on its grid) from its codes, and (without the
// PRelu chain, whose later steps need floats) codes; the first with the output scale known only
// at run time, the others with it known at plan time.
void ExpectExact(const Case& c, const Inputs& in) {
  const std::vector<float> want = Expected(c, in), got = RunInt8(c, in);
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(Bits(got[i]), Bits(want[i]))
        << "output " << i << ": " << got[i] << " vs " << want[i] << "; " << Describe(c);
  }
  const std::vector<uint8_t> x_codes = CodesOf(in);
  if (!x_codes.empty()) {
    const std::vector<float> from_codes = RunInt8(c, in, ref::Sgemm, &x_codes, /*scale_at_plan=*/true);
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(Bits(from_codes[i]), Bits(want[i])) << "output " << i << " from X's codes; " << Describe(c);
    }
  }
  if (c.prelu_chain) return;
  const std::vector<uint8_t> want_codes = ExpectedCodes(c, in);
  const std::vector<uint8_t> got_codes =
      RunInt8Codes(c, in, ref::Sgemm, c.y_signed ? ref::QuantizeF32ToS8 : ref::QuantizeF32ToU8);
  for (size_t i = 0; i < want_codes.size(); ++i) {
    ASSERT_EQ(int(got_codes[i]), int(want_codes[i])) << "code " << i << "; " << Describe(c);
  }
}

void ExpectExact(const Case& c) { ExpectExact(c, Make(c, TestSeed() + uint32_t(c.k * 31 + c.columns))); }

// The scalar reference is the specification on every CPU: floats, floats from X's codes, and
// codes out.
TEST(ConvPointwiseInt8Ref, IsTheSpecification) {
  for (const bool prelu : {false, true}) {
    for (int64_t columns : {1, 17, 70}) {
      Case c;
      c.columns = columns, c.k = 33, c.prelu_chain = prelu, c.batch = 2;
      const Inputs in = Make(c, TestSeed() + uint32_t(columns));
      const auto plan = PlanAt(Pointwise(c), in.w.data(), in.w_grid, in.x_grid, in.b.data(), 0.f);
      ASSERT_NE(plan, nullptr) << Describe(c);
      PointwiseInt8Args a;
      a.x = in.x.data(), a.w = in.w.data(), a.bias = in.b.data(), a.batch = c.batch, a.epilogue = in.epilogue;
      a.before_signed = c.y_signed;
      std::vector<float> y(size_t(Pointwise(c).output_count()));
      a.y = y.data();
      ASSERT_TRUE(ref::ConvPointwiseInt8(*plan, a));
      const std::vector<float> want = Expected(c, in);
      for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(Bits(y[i]), Bits(want[i])) << i << "; " << Describe(c);
      const std::vector<uint8_t> codes = CodesOf(in);
      ASSERT_FALSE(codes.empty());
      std::vector<float> y2(y.size());
      a.x = nullptr, a.x_codes = codes.data(), a.y = y2.data();
      ASSERT_TRUE(ref::ConvPointwiseInt8(*plan, a));
      for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(Bits(y2[i]), Bits(want[i])) << i << " from codes";
      if (prelu) continue;
      std::vector<uint8_t> q(y.size());
      a.x = in.x.data(), a.x_codes = nullptr, a.y = nullptr, a.codes = q.data();
      a.quantize = c.y_signed ? ref::QuantizeF32ToS8 : ref::QuantizeF32ToU8;
      ASSERT_TRUE(ref::ConvPointwiseInt8(*plan, a));
      EXPECT_EQ(q, ExpectedCodes(c, in)) << Describe(c);
    }
  }
}

INT8_TEST(MatchesTheFloatConvolutionOnEveryTileShape) {
  // Channel tails 1-5 of a 6-row tile, column tails of a 64-column block and of its
  // 16-column vectors (a last block of 1, 2, 3 or 4 vectors), k not a multiple of 4.
  for (int64_t channels : {2, 5, 6, 7, 13}) {
    for (int64_t columns : {1, 15, 16, 17, 40, 63, 64, 65, 100, 130}) {
      for (int64_t k : {1, 3, 4, 5, 33}) {
        Case c;
        c.channels = channels, c.columns = columns, c.k = k;
        ExpectExact(c);
      }
    }
  }
}

INT8_TEST(SeveralKBlocksAndLongSums) {
  // 50 columns, k 300: the reference cuts k into blocks of 256; k 1000 into 128s at 300 columns;
  // k 2048 into 1024s at 16 columns (the sampled sums' longest blocks, 64 groups).
  for (auto [k, columns] : {std::pair<int64_t, int64_t>{300, 50}, {1000, 300}, {129, 200}, {4096, 20}, {2048, 16}}) {
    Case c;
    c.k = k, c.columns = columns, c.channels = 7;
    ExpectExact(c);
  }
}

INT8_TEST(OutputsOnRoundingBoundariesAreRecomputedAsTheReferenceDoes) {
  // Integer data, output scale 2: every odd sum is a tie, so the proof leaves it to the float
  // recomputation, which must round it as the reference does (to even).
  for (bool bias : {false, true}) {
    for (int64_t k : {3, 40, 300}) {
      Case c;
      c.data = Data::kBoundaries, c.k = k, c.bias = bias, c.x_zp = 100, c.columns = 90, c.channels = 11;
      ExpectExact(c);
    }
  }
}

// MobileNetV2's few input channels (k = 16, 24, 32) and k around them, odd k (a last pair
// with one row), column tails, sums on ties (recomputed from the floats the AVX2 kernel makes
// from X's codes only for blocks that need them), saturation and zero points at both ends; X
// from its floats and from its codes (ExpectExact).
INT8_TEST(FewInputChannelsFromCodes) {
  struct Z {
    bool x_signed;
    int32_t x_zp;
    bool y_signed;
    int32_t y_zp;
  };
  for (const Z& z :
       {Z{false, 128, true, 0}, Z{false, 0, false, 255}, Z{true, 127, true, -128}, Z{true, -128, false, 0}}) {
    for (Data d : {Data::kSpread, Data::kBoundaries, Data::kSaturating}) {
      for (int64_t k : {15, 16, 17, 24, 31, 32}) {
        for (int64_t columns : {9, 64, 150}) {
          Case c;
          c.x_signed = z.x_signed, c.x_zp = z.x_zp, c.y_signed = z.y_signed, c.y_zp = z.y_zp, c.data = d;
          c.k = k, c.columns = columns, c.channels = 14;
          ExpectExact(c);
        }
      }
    }
  }
}

// An output scale near |estimate + reference| / 2n for each n of `steps` in turn, a few ulps at a
// time either way (`tries` each), at which the estimate and the reference's float sum take
// different steps (QuantizeLinear's rounding) with the estimate's quotient farther than
// `clearance` from a tie; 0 if there is none.
float PlantedScale(float estimate, float reference, std::initializer_list<float> steps, float clearance, int tries) {
  const float middle = std::fabs((estimate + reference) / 2);
  for (float n : steps) {
    for (float direction : {std::numeric_limits<float>::infinity(), 0.f}) {  // up, then down
      float s = middle / n;
      for (int t = 0; t < tries; ++t, s = std::nextafter(s, direction)) {
        const float te = estimate / s;
        const bool clear = std::fabs(te - std::nearbyint(te)) < 0.5f - clearance;
        if (clear && std::nearbyint(te) != std::nearbyint(reference / s)) return s;
      }
    }
  }
  return 0;
}

// Plants the output scale (PlantedScale) at the first output where there is one, comparing the
// reference's float sum with the estimate the kernel forms from the exact integer sum S,
// fl(fl(S) * fl(s_x s_w) + b), and checks the kernel at that scale; false if none was planted.
bool PlantedOutputIsExact(const Case& c, Inputs in, std::initializer_list<float> steps, float clearance, int tries) {
  const ConvGeometry g = Pointwise(c);
  std::vector<float> sums(size_t(g.output_count())), scratch(size_t(std::max<int64_t>(1, ConvFloatScratchFloats(g))));
  ConvFloatOrdered(g, in.x.data(), in.w.data(), in.b.data(), sums.data(),
                   {ref::Sgemm, ref::SgemmOneRow, ref::SplitPairs}, scratch.data());
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    const float m = in.x_grid.scales[0] * in.w_grid.scales[size_t(ch)];
    for (int64_t j = 0; j < c.columns; ++j) {
      int64_t sum = 0;
      for (int64_t i = 0; i < c.k; ++i) {
        const int64_t d = std::lround(in.x[size_t(i * c.columns + j)] / in.x_grid.scales[0]);
        const int64_t e = std::lround(in.w[size_t(ch * c.k + i)] / in.w_grid.scales[size_t(ch)]);
        sum += d * e;
      }
      const float estimate = std::fma(float(sum), m, in.b[size_t(ch)]);
      const float reference = sums[size_t(ch * c.columns + j)];
      if (estimate == reference) continue;
      const float scale = PlantedScale(estimate, reference, steps, clearance, tries);
      if (scale == 0) continue;
      in.epilogue.before.scale = scale;
      ExpectExact(c, in);
      return true;
    }
  }
  return false;
}

// The argument's own case: an output whose float sum (the reference's) and exact integer sum
// fall on two sides of a rounding boundary. The output scale is planted, a few ulps at a time,
// until the reference's step of the float sum differs from the step of the estimate the
// kernel forms from the integer sum. Without the error bound (or with the float recomputation
// in another k-block order) the kernel gets that output wrong; with it, the output is
// recomputed as the reference computes it. The step rule is itself cautious within 2^-13 of a
// half step, so the planted boundary leaves the estimate clear of 2^-10: outputs with heavy
// cancellation, whose two sums differ by more than that.
INT8_TEST(OutputsWhoseFloatAndIntegerSumsStraddleABoundary) {
  int planted = 0;
  for (uint32_t seed = 0; seed < 12; ++seed) {
    Case c;
    c.k = 600, c.columns = 64, c.channels = 12;  // three k blocks (256, 256, 88) in the reference
    planted += PlantedOutputIsExact(c, Make(c, TestSeed() + seed), {0.5f, 1.5f, 2.5f, 20.5f}, 1.f / 1024, 40);
  }
  EXPECT_GE(planted, 4);  // the search must have found such outputs, or the test tests nothing
}

// The sampled running sums' own case (the header's second bound): every term of an output the
// same (X constant along k in each column, W along k in each channel), so that the partial sums
// only grow and each of the reference's roundings errs the same way: the float sum strays from
// the exact one by up to ~50u relative, several times the Cauchy-Schwarz part of the bound
// (11 ||d|| ||e||, here ~11u), and only the samples' weight W covers it. Output scales are
// planted near step 250 (uint8 codes), where the two sums differ by up to ~7e-4 of a step, the
// estimate clear of the boundary by 3 * 2^-13 (the margin and the Cauchy-Schwarz part, ~1.7e-4):
// with W left out the kernel takes such an output as proven, and this test fails.
INT8_TEST(EqualTermsWhoseRoundingsPileUp) {
  int planted = 0;
  for (uint32_t seed = 0; seed < 8; ++seed) {
    Case c;
    c.k = 600, c.columns = 64, c.channels = 12;  // k blocks of 256, 256 and 88 in the reference
    // X's zero point 0 or 128: the byte forms' samples carry no offset, or one to take back.
    c.x_zp = seed % 2 == 0 ? 0 : 128, c.y_signed = false, c.y_zp = 0;
    Inputs in = Make(c, TestSeed() + seed);
    std::mt19937 rng(TestSeed() + 100 + seed);
    for (int64_t j = 0; j < c.columns; ++j) {
      const float x = float(100 + int32_t(rng() % 28)) * in.x_grid.scales[0];
      for (int64_t i = 0; i < c.k; ++i) in.x[size_t(i * c.columns + j)] = x;
    }
    for (int64_t ch = 0; ch < c.channels; ++ch) {
      const float w = float(100 + int32_t(rng() % 28)) * in.w_grid.scales[size_t(ch)];
      for (int64_t i = 0; i < c.k; ++i) in.w[size_t(ch * c.k + i)] = w;
    }
    planted += PlantedOutputIsExact(c, in, {250.5f, 240.5f, 230.5f}, 3.f / 8192, 400);
  }
  EXPECT_GE(planted, 4);  // the search must have found such outputs, or the test tests nothing
}

INT8_TEST(ZeroPointsAtTheEndsAndSaturation) {
  struct Z {
    bool x_signed;
    int32_t x_zp;
    bool y_signed;
    int32_t y_zp;
  };
  for (const Z& z : {Z{false, 0, false, 0}, Z{false, 255, false, 255}, Z{true, -128, true, 127},
                     Z{true, 127, true, -128}, Z{true, 0, false, 128}}) {
    for (Data d : {Data::kSpread, Data::kSaturating}) {
      Case c;
      c.x_signed = z.x_signed, c.x_zp = z.x_zp, c.y_signed = z.y_signed, c.y_zp = z.y_zp, c.data = d;
      c.k = 45, c.columns = 77, c.channels = 9;
      ExpectExact(c);
    }
  }
}

INT8_TEST(PReluChainPerTensorWeightsBatchesAndThreads) {
  Case c;
  c.prelu_chain = true, c.k = 64, c.columns = 200, c.channels = 10;
  ExpectExact(c);
  c.per_channel = false;
  ExpectExact(c);
  c.batch = 3, c.threads = 2, c.columns = 700;
  ExpectExact(c);
  c.bias = false;
  ExpectExact(c);
}

// What production runs: the SIMD float GEMM for blocks off the grid and the SIMD fake
// quantization for the recomputed outputs, of the kernel's tier (bit-identical to the reference ones, so the same
// bits).
INT8_TEST(WithTheSimdFloatKernelsToo) {
  Case c;
  c.k = 600, c.columns = 130, c.channels = 9, c.prelu_chain = true;
  Inputs in = Make(c, TestSeed() + 3);
  in.x[11 * c.columns + 100] = std::numeric_limits<float>::quiet_NaN();  // one block runs the GEMM
  const std::vector<float> want = Expected(c, in);
  const bool vnni = PointwiseInt8Tier(g_tier) == Isa::kAvx512Vnni;  // else the AVX2 ones
  in.epilogue.before.map = vnni ? avx512::QuantizeDequantizeS8 : avx2::QuantizeDequantizeS8;
  in.epilogue.after.map = vnni ? avx512::QuantizeDequantizeU8 : avx2::QuantizeDequantizeU8;
  const std::vector<float> got = RunInt8(c, in, vnni ? avx512::Sgemm : avx2::Sgemm);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(Bits(got[i]), Bits(want[i])) << "output " << i;
  // Codes, with the AVX-512 GEMM and quantizer.
  c.prelu_chain = false;
  in = Make(c, TestSeed() + 4);
  in.x[11 * c.columns + 100] = std::numeric_limits<float>::quiet_NaN();
  const std::vector<uint8_t> want_codes = ExpectedCodes(c, in);
  const std::vector<uint8_t> got_codes =
      RunInt8Codes(c, in, vnni ? avx512::Sgemm : avx2::Sgemm, vnni ? avx512::QuantizeF32ToS8 : avx2::QuantizeF32ToS8);
  for (size_t i = 0; i < want_codes.size(); ++i) ASSERT_EQ(int(got_codes[i]), int(want_codes[i])) << "code " << i;
}

// Over 32 channels the kernel packs several blocks, then runs each tile of channels over all
// of them: passes of 6 or 5 blocks here ((rows + k) x 256 bytes a block within 32 KB), the last one
// short, threads splitting them, blocks off the grid in the middle of a pass, the epilogue's
// later steps.
INT8_TEST(PassesOfSeveralBlocks) {
  Case c;
  c.channels = 40, c.k = 16, c.columns = 700;
  const ConvGeometry g = Pointwise(c);
  Inputs in = Make(c, TestSeed() + 5);
  const auto plan = PlanAt(g, in.w.data(), in.w_grid, in.x_grid, in.b.data());
  ASSERT_EQ(plan->blocks_per_pass, plan->pairs ? 5 : 6);  // (8 pairs or 4 quads + 16) x 256 bytes
  ExpectExact(c, in);
  in.x[3 * c.columns + 130] = std::numeric_limits<float>::quiet_NaN();  // block 2 of the first pass
  in.x[9 * c.columns + 450] = std::numeric_limits<float>::infinity();   // block 7, in the second
  ExpectExact(c, in);
  c.prelu_chain = true, c.threads = 2, c.batch = 2, c.channels = 45;
  ExpectExact(c);
}

INT8_TEST(ColumnsOffTheirGridRunTheFloatPath) {
  Case c;
  c.k = 24, c.columns = 200, c.channels = 6;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  // One odd element per 64-column block (and none in the last): NaN, infinities, a value one ulp
  // off the grid, a value beyond the type's range.
  Inputs in = Make(c, TestSeed());
  in.x[5 * c.columns + 3] = nan;
  in.x[7 * c.columns + 70] = std::nextafter(in.x[7 * c.columns + 70], inf);
  in.x[23 * c.columns + 130] = 300 * in.x_grid.scales[0];
  ExpectExact(c, in);
  in.x[0] = -inf;
  in.x[2 * c.columns + 199] = inf;
  ExpectExact(c, in);
}

TEST(ConvPointwiseInt8, RefusesWhatTheArgumentDoesNotCover) {
  Case c;
  const Inputs in = Make(c, TestSeed());
  const ConvGeometry g = Pointwise(c);
  const float* b = in.b.data();
  EXPECT_NE(PlanAt(g, in.w.data(), in.w_grid, in.x_grid, b), nullptr);
  // Weights off their grid, a weight zero point, unsigned weights, a per-channel grid on the
  // wrong axis, a per-channel input grid, a non-finite bias.
  std::vector<float> w = in.w;
  w[3] = std::nextafter(w[3], 1.f);
  EXPECT_EQ(PlanAt(g, w.data(), in.w_grid, in.x_grid, b), nullptr);
  QuantGrid wg = in.w_grid;
  wg.zero_points[1] = 1;
  EXPECT_EQ(PlanAt(g, in.w.data(), wg, in.x_grid, b), nullptr);
  wg = in.w_grid, wg.type = DataType::kUInt8;
  EXPECT_EQ(PlanAt(g, in.w.data(), wg, in.x_grid, b), nullptr);
  wg = in.w_grid, wg.axis = 1;
  EXPECT_EQ(PlanAt(g, in.w.data(), wg, in.x_grid, b), nullptr);
  QuantGrid xg = in.x_grid;
  xg.axis = 1, xg.scales.assign(size_t(c.k), 0.02f), xg.zero_points.assign(size_t(c.k), 0);
  EXPECT_EQ(PlanAt(g, in.w.data(), in.w_grid, xg, b), nullptr);
  xg = in.x_grid, xg.scales = {0.f};
  EXPECT_EQ(PlanAt(g, in.w.data(), in.w_grid, xg, b), nullptr);
  // Scales near overflow: X's grid values would reach infinity (2^121 * 255), which Pack
  // would take for d = 255. Near underflow: products below 2^-100.
  xg = in.x_grid, xg.scales = {std::ldexp(1.f, 121)};
  {
    QuantGrid tiny = in.w_grid;
    std::vector<float> wt(in.w.size());
    for (size_t ch = 0; ch < tiny.scales.size(); ++ch) tiny.scales[ch] = std::ldexp(1.f, -126);
    for (size_t i = 0; i < wt.size(); ++i) {
      wt[i] = std::nearbyint(in.w[i] / in.w_grid.scales[i / size_t(c.k)]) * std::ldexp(1.f, -126);
    }
    EXPECT_EQ(PlanAt(g, wt.data(), tiny, xg, b), nullptr);         // X's values overflow
    EXPECT_EQ(PlanAt(g, wt.data(), tiny, in.x_grid, b), nullptr);  // products underflow
  }
  {
    // W's scale 2^127 (and X's 2^-60, so that their product is ordinary): DequantizeLinear gave
    // +-inf for the largest weights, which must not pass as e = 127 or -128.
    QuantGrid huge = in.w_grid;
    QuantGrid small_x = in.x_grid;
    small_x.scales = {std::ldexp(1.f, -60)};
    std::vector<float> wh(in.w.size());
    for (size_t ch = 0; ch < huge.scales.size(); ++ch) huge.scales[ch] = std::ldexp(1.f, 127);
    for (size_t i = 0; i < wh.size(); ++i) {
      const float e = std::nearbyint(in.w[i] / in.w_grid.scales[i / size_t(c.k)]);
      wh[i] = (e - 0.f) * std::ldexp(1.f, 127);  // infinite for |e| >= 2
    }
    EXPECT_EQ(PlanAt(g, wh.data(), huge, small_x, b), nullptr);
    // NaN weights are off every grid.
    std::vector<float> wn = in.w;
    wn[7] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(PlanAt(g, wn.data(), in.w_grid, in.x_grid, b), nullptr);
  }
  xg = in.x_grid, xg.scales = {std::ldexp(1.f, 90)};
  EXPECT_EQ(PlanAt(g, in.w.data(), in.w_grid, xg, b), nullptr);  // sums near overflow
  std::vector<float> bias = in.b;
  bias[0] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(PlanAt(g, in.w.data(), in.w_grid, in.x_grid, bias.data()), nullptr);
  // Geometry: one output channel (the one-row order), groups, k over 4096, and over patches
  // (a stride or padding) a single output position. A stride or padding plans the patches.
  ConvGeometry h = g;
  h.out_channels = 1;
  EXPECT_EQ(PlanAt(h, in.w.data(), in.w_grid, in.x_grid, b), nullptr);
  h = g, h.group = 2;
  EXPECT_EQ(PlanAt(h, in.w.data(), in.w_grid, in.x_grid, b), nullptr);
  h = g, h.stride[2] = 2, h.out[2] = (g.in[2] + 1) / 2;
  ASSERT_NE(PlanAt(h, in.w.data(), in.w_grid, in.x_grid, b), nullptr);
  EXPECT_TRUE(PlanAt(h, in.w.data(), in.w_grid, in.x_grid, b)->patches);
  EXPECT_FALSE(PlanAt(g, in.w.data(), in.w_grid, in.x_grid, b)->patches);
  h = g, h.stride[2] = g.in[2], h.out[2] = 1;
  EXPECT_EQ(PlanAt(h, in.w.data(), in.w_grid, in.x_grid, b), nullptr);
  Case big = c;
  big.k = 4097, big.columns = 3;
  const Inputs bin = Make(big, TestSeed());
  EXPECT_EQ(PlanAt(Pointwise(big), bin.w.data(), bin.w_grid, bin.x_grid, bin.b.data()), nullptr);
}

INT8_TEST(ARunAtAnotherScaleThanThePlansComputesItsOwnSteps) {
  Case c;
  c.channels = 13, c.columns = 100, c.k = 33;
  const Inputs in = Make(c, TestSeed());
  const auto plan = PlanAt(Pointwise(c), in.w.data(), in.w_grid, in.x_grid, in.b.data(), in.epilogue.before.scale * 3);
  ASSERT_NE(plan, nullptr);
  ASSERT_EQ(plan->steps.size(), size_t(c.channels));
  std::vector<float> y(size_t(c.channels * c.columns));
  PointwiseInt8Args a;
  a.x = in.x.data(), a.w = in.w.data(), a.bias = in.b.data(), a.y = y.data(), a.gemm = ref::Sgemm;
  a.epilogue = in.epilogue, a.before_signed = c.y_signed;
  ASSERT_TRUE(ConvPointwiseInt8(*plan, a));
  const std::vector<float> want = Expected(c, in);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(Bits(y[i]), Bits(want[i])) << "output " << i;
}

// Codes are saturated by the kernel's packs (its estimates are not clamped), for both types, with
// most outputs past the ends; and with an output scale so small that no estimate is proven.
INT8_TEST(CodesSaturateAsQuantizeLinearDoes) {
  for (bool signed_y : {false, true}) {
    for (float shrink : {1.f, 1e-9f}) {
      Case c;
      c.channels = 13, c.columns = 100, c.k = 40, c.y_signed = signed_y, c.data = Data::kSaturating;
      Inputs in = Make(c, TestSeed());
      in.epilogue.before.scale *= shrink;
      const std::vector<uint8_t> want = ExpectedCodes(c, in);
      const std::vector<uint8_t> got =
          RunInt8Codes(c, in, ref::Sgemm, signed_y ? ref::QuantizeF32ToS8 : ref::QuantizeF32ToU8);
      int ends = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(int(got[i]), int(want[i])) << "code " << i << "; " << Describe(c) << " shrink " << shrink;
        ends += want[i] == (signed_y ? 0x7F : 0xFF) || want[i] == (signed_y ? 0x80 : 0);
      }
      EXPECT_GT(ends, int(want.size()) / 2) << "most codes saturate";
    }
  }
}

// X's values and the weights of one sign, so that the bound is tight and estimates tens of
// thousands of steps past the type's end are proven: their codes still saturate (packing
// unclamped sums of 2^15 or more to bytes would turn them into 0).
INT8_TEST(ProvenCodesFarPastTheEndsSaturate) {
  for (bool signed_y : {false, true}) {
    for (float steps : {4e4f, 7e4f, 3e5f}) {
      Case c;
      c.channels = 7, c.columns = 70, c.k = 4, c.y_signed = signed_y, c.bias = false;
      Inputs in = Make(c, TestSeed());
      for (size_t i = 0; i < in.x.size(); ++i) in.x[i] = float(100 + int(i % 27)) * in.x_grid.scales[0];
      for (int64_t ch = 0; ch < c.channels; ++ch) {
        for (int64_t i = 0; i < c.k; ++i) {
          const float e = float(ch % 2 == 0 ? 120 - int(i) : -120 + int(i));  // rows of either sign
          in.w[size_t(ch * c.k + i)] = e * in.w_grid.scales[size_t(ch)];
        }
      }
      // The largest output at `steps` steps.
      in.epilogue.before.scale = 127 * 4 * 120 * in.x_grid.scales[0] * in.w_grid.scales[0] / steps;
      const std::vector<uint8_t> want = ExpectedCodes(c, in);
      const std::vector<uint8_t> got =
          RunInt8Codes(c, in, ref::Sgemm, signed_y ? ref::QuantizeF32ToS8 : ref::QuantizeF32ToU8);
      for (size_t i = 0; i < want.size(); ++i) {
        ASSERT_EQ(int(got[i]), int(want[i])) << "code " << i << "; " << Describe(c) << " steps " << steps;
      }
    }
  }
}

INT8_TEST(LeavesRunsWhoseOutputScaleTheRuleCannotUse) {
  Case c;
  Inputs in = Make(c, TestSeed());
  const auto plan = PlanAt(Pointwise(c), in.w.data(), in.w_grid, in.x_grid, in.b.data());
  ASSERT_NE(plan, nullptr);
  std::vector<float> y(size_t(c.channels * c.columns), 7.f);
  PointwiseInt8Args a;
  a.x = in.x.data(), a.w = in.w.data(), a.bias = in.b.data(), a.y = y.data(), a.gemm = ref::Sgemm;
  for (float s : {0.f, -0.5f, 1e-40f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                  3e38f /* 1/s subnormal */}) {
    a.epilogue = in.epilogue;
    a.epilogue.before.scale = s;
    EXPECT_FALSE(ConvPointwiseInt8(*plan, a)) << s;
  }
  a.epilogue = in.epilogue;
  a.epilogue.before.map = nullptr;
  EXPECT_FALSE(ConvPointwiseInt8(*plan, a));
  for (float v : y) ASSERT_EQ(v, 7.f);  // nothing written
}

}  // namespace
}  // namespace qrt

namespace qrt {
namespace {

// Power-of-two scales (the boundary data: scale 1, output scale 2, half the sums odd, so ties)
// take the exact rule where max|d| sum_k |e_k| <= 2^24, and only there: a channel of weights 127
// over 2100 inputs of d = -128 is past it (its sums may round in float) and keeps the bound.
INT8_TEST(PowerOfTwoScalesTakeTheExactRuleWithinItsBound) {
  Case c;
  c.channels = 3, c.k = 2100, c.columns = 80, c.data = Data::kBoundaries;
  Inputs in = Make(c, TestSeed());
  for (int64_t i = 0; i < c.k; ++i) in.w[size_t(i)] = 127.f;  // channel 0: 127 * 2100 * 128 > 2^24
  const auto plan = PlanAt(Pointwise(c), in.w.data(), in.w_grid, in.x_grid, in.b.data(), 2.f);
  ASSERT_NE(plan, nullptr);
  EXPECT_FALSE(plan->exact_sums[0]);
  EXPECT_TRUE(plan->exact_sums[1]);
  EXPECT_TRUE(plan->exact_sums[2]);
  ASSERT_EQ(plan->steps.size(), size_t(c.channels));
  EXPECT_LT(plan->steps[0].limit, 0.5f);  // the bound's rule
  EXPECT_EQ(plan->steps[1].limit, 1.f);   // every lane proven
  EXPECT_EQ(plan->steps[1].reach_per_norm, 0.f);
  // Not a power of two at run time: the bound's rule for every channel.
  std::vector<PointwiseInt8Step> steps(size_t(c.channels));
  ASSERT_TRUE(PointwiseInt8Steps(*plan, 3.f, steps.data()));
  for (const PointwiseInt8Step& s : steps) EXPECT_LT(s.limit, 0.5f);
  ExpectExact(c, in);
}

}  // namespace
}  // namespace qrt

namespace qrt {
namespace {

// AVX2's byte kernels keep VPMADDUBSW's words, of one quad or two added, within int16: X at its
// largest byte (codes of 255, zero point 0) against weights at the most either split keeps
// (words of 128 of one sign, 255 * 128 = 32640: pairs of 64, fours of 32) or just past it, in
// channels of either sign.
INT8_TEST(ByteSumsAtTheEdgeOfInt16) {
  Case c;
  c.channels = 8, c.k = 45, c.columns = 40, c.x_zp = 0;
  Inputs in = Make(c, TestSeed());
  for (size_t i = 0; i < in.x.size(); ++i) in.x[i] = float(i % 7 == 3 ? 254 : 255) * in.x_grid.scales[0];
  const int32_t weights[8] = {32, 33, -32, -33, 127, -128, 64, -65};
  for (int64_t ch = 0; ch < c.channels; ++ch) {
    for (int64_t i = 0; i < c.k; ++i) {
      const int32_t e = ch == 4 || ch == 5 ? (i % 2 == 0 ? weights[ch] : weights[9 - ch]) : weights[ch];
      in.w[size_t(ch * c.k + i)] = float(e) * in.w_grid.scales[size_t(ch)];
    }
  }
  // The largest output at 120 steps: a word that left int16 would move it by more than one.
  Inputs raw = in;
  raw.epilogue = OutputEpilogue();
  float top = 0;
  for (float v : Expected(c, raw)) top = std::max(top, std::fabs(v));
  in.epilogue.before.scale = top / 120;
  ExpectExact(c, in);
}

}  // namespace
}  // namespace qrt
