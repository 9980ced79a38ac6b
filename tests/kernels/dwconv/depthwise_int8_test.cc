// The exact int8 depthwise convolution (depthwise_int8.h) against its specification: X's codes
// dequantized, the reference kernels' ordered convolution, QuantizeLinear. Strides 1 and 2, pads
// of 0 and 1 before and 0 to 2 after, planes with every tail of the 32- and 16-output steps, both
// code types in and out with zero points at their ends, per-channel and per-tensor weights, with
// and without bias, batches and threads; outputs on rounding ties (recomputed as the reference
// computes them) and past the ends of the range; what the plan must refuse.
#include "ops/kernels/dwconv/depthwise_int8.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "ops/kernels/conv/conv_float.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "tests/kernels/dwconv/depthwise_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

#define QRT_REQUIRE_DEPTHWISE_INT8()                                                                         \
  if (!DepthwiseInt8Available())                                                                             \
  GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX2: depthwise layers between codes run the reference float " \
                  "depthwise kernels instead (tested in depthwise_rows_test, conv_test)"

// Every kernel this CPU (under QRT_MAX_ISA) runs: AVX2, and AVX-512 VNNI where it has it.
std::vector<DepthwiseInt8PlaneFn> Kernels() {
  std::vector<DepthwiseInt8PlaneFn> kernels;
  if (CanUseAvx2(kIsaAuto)) kernels.push_back(avx2::DepthwiseInt8Plane);
  if (CanUseAvx512Vnni(kIsaAuto)) kernels.push_back(avx512::DepthwiseInt8Plane);
  return kernels;
}

using Geometry = testing::DepthwiseShape;
using testing::CodeType;
using testing::DepthwiseOf;
using testing::Describe;
using testing::kCodeTypes;

const Geometry kGeometries[] = {
    {1, 1, 1, 1, 1, 1, 1},     {3, 2, 1, 1, 1, 1, 1},   {5, 31, 1, 1, 1, 1, 1},    {6, 32, 1, 1, 1, 1, 1},
    {7, 33, 1, 0, 0, 0, 0},    {28, 28, 1, 1, 1, 1, 1}, {9, 47, 1, 1, 0, 2, 1},    {56, 57, 1, 1, 1, 1, 1},
    {112, 112, 1, 1, 1, 1, 1}, {3, 3, 2, 1, 1, 1, 1},   {14, 15, 2, 1, 1, 1, 1},   {15, 14, 2, 0, 0, 1, 1},
    {33, 31, 2, 1, 0, 1, 2},   {57, 56, 2, 1, 1, 1, 1}, {112, 112, 2, 1, 1, 1, 1}, {8, 97, 2, 0, 1, 2, 0},
};

struct Case {
  ConvGeometry g;
  const CodeType* in;
  const CodeType* out;
  int32_t x_zp = 0, y_zp = 0;
  float x_scale = 0.021f, y_scale = 0.0047f;
  bool bias = true, per_channel = true;
};

struct Data {
  std::vector<uint8_t> x;   // codes
  std::vector<float> w, b;  // on W's grid; the bias
  QuantGrid w_grid, x_grid;
};

Data Make(const Case& c, std::mt19937& rng, int weight_range = 127) {
  Data d;
  d.x.resize(size_t(c.g.batch * c.g.in_channels * c.g.in_spatial()));
  for (uint8_t& q : d.x) q = uint8_t(rng());
  d.w_grid.type = DataType::kInt8;
  d.w_grid.axis = c.per_channel ? 0 : -1;
  std::uniform_int_distribution<int> e(-weight_range, weight_range);
  for (int64_t ch = 0; ch < (c.per_channel ? c.g.out_channels : 1); ++ch) {
    d.w_grid.scales.push_back(0.0073f * (1 + 0.1f * float(ch % 5))), d.w_grid.zero_points.push_back(0);
  }
  for (int64_t ch = 0; ch < c.g.out_channels; ++ch) {
    const float s = d.w_grid.scales[c.per_channel ? size_t(ch) : 0];
    for (int k = 0; k < 9; ++k) d.w.push_back(float(e(rng)) * s);
    d.b.push_back(float(e(rng)) * 0.011f);
  }
  d.x_grid.type = c.in->type, d.x_grid.scales = {c.x_scale}, d.x_grid.zero_points = {c.x_zp};
  return d;
}

// The specification's codes.
std::vector<uint8_t> Expected(const Case& c, const Data& d) {
  std::vector<float> x(d.x.size()), y(size_t(c.g.output_count()));
  c.in->dequantize(int64_t(x.size()), d.x.data(), c.x_scale, c.x_zp, x.data());
  const ConvFloatKernels ref_kernels{ref::Sgemm, ref::SgemmOneRow, ref::SplitPairs};
  ConvFloatOrdered(c.g, x.data(), d.w.data(), c.bias ? d.b.data() : nullptr, y.data(), ref_kernels, nullptr);
  std::vector<uint8_t> q(y.size());
  c.out->quantize(int64_t(y.size()), y.data(), c.y_scale, c.y_zp, q.data());
  return q;
}

void ExpectExact(const Case& c, const Data& d, int threads, const std::string& what) {
  const auto plan = PlanDepthwiseInt8(c.g, d.w.data(), d.w_grid, c.bias ? d.b.data() : nullptr, d.x_grid, c.y_scale,
                                      c.y_zp, c.out->type);
  ASSERT_NE(plan, nullptr) << what;
  const std::vector<uint8_t> want = Expected(c, d);
  for (DepthwiseInt8PlaneFn kernel : Kernels()) {
    const std::string tier = kernel == avx2::DepthwiseInt8Plane ? " (avx2)" : " (avx512-vnni)";
    std::vector<uint8_t> got(want.size() + 1, 0xA5);
    ConvDepthwiseInt8(*plan, kernel, d.x.data(), got.data(), c.g.batch, threads);
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(int(got[i]), int(want[i])) << "code " << i << "; " << what << tier;
    }
    EXPECT_EQ(got[want.size()], 0xA5) << "wrote past the output; " << what << tier;
  }
}

// The scalar reference, plane by plane, is the specification on every CPU (the plan does not
// need the kernel's ISA).
TEST(DepthwiseInt8Ref, PlanesAsDequantizeConvQuantize) {
  std::mt19937 rng(testing::TestSeed() + 7);
  for (const Geometry& s : kGeometries) {
    for (const CodeType& in : kCodeTypes) {
      for (const CodeType& out : kCodeTypes) {
        Case c;
        c.g = DepthwiseOf(s, 3, 1), c.in = &in, c.out = &out;
        c.x_zp = in.zero_points[rng() % 3], c.y_zp = out.zero_points[rng() % 3];
        c.bias = rng() % 2, c.per_channel = rng() % 4 != 0;
        const Data d = Make(c, rng);
        const auto plan = PlanDepthwiseInt8(c.g, d.w.data(), d.w_grid, c.bias ? d.b.data() : nullptr, d.x_grid,
                                            c.y_scale, c.y_zp, c.out->type);
        ASSERT_NE(plan, nullptr) << Describe(s);
        const std::vector<uint8_t> want = Expected(c, d);
        const int64_t in_plane = c.g.in_spatial(), out_plane = c.g.out_spatial();
        for (int64_t ch = 0; ch < c.g.out_channels; ++ch) {
          std::vector<uint8_t> got(static_cast<size_t>(out_plane));
          ref::DepthwiseInt8Plane(*plan, ch, d.x.data() + ch * in_plane, got.data());
          ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin() + ch * out_plane)) << Describe(s) << " ch " << ch;
        }
      }
    }
  }
}

TEST(DepthwiseInt8, CodesAsDequantizeConvQuantize) {
  QRT_REQUIRE_DEPTHWISE_INT8();
  std::mt19937 rng(testing::TestSeed());
  for (const Geometry& s : kGeometries) {
    for (const CodeType& in : kCodeTypes) {
      for (const CodeType& out : kCodeTypes) {
        Case c;
        c.g = DepthwiseOf(s, 3, 1), c.in = &in, c.out = &out;
        c.x_zp = in.zero_points[rng() % 3], c.y_zp = out.zero_points[rng() % 3];
        c.bias = rng() % 2, c.per_channel = rng() % 4 != 0;
        ExpectExact(c, Make(c, rng), 1,
                    Describe(s) + " x_zp " + std::to_string(c.x_zp) + " y_zp " + std::to_string(c.y_zp));
      }
    }
  }
}

TEST(DepthwiseInt8, BatchesAndThreads) {
  QRT_REQUIRE_DEPTHWISE_INT8();
  std::mt19937 rng(testing::TestSeed() + 1);
  Case c;
  c.g = DepthwiseOf({30, 29, 1, 1, 1, 1, 1}, 37, 3), c.in = &kCodeTypes[0], c.out = &kCodeTypes[1], c.x_zp = 128;
  ExpectExact(c, Make(c, rng), 2, "batch 3, 37 channels, 2 threads");
}

// Integer inputs and weights with output scale 2: most outputs are integers, half of them odd:
// ties, recomputed as the reference computes them; and a scale so small that most codes
// saturate.
TEST(DepthwiseInt8, TiesAndSaturation) {
  QRT_REQUIRE_DEPTHWISE_INT8();
  std::mt19937 rng(testing::TestSeed() + 2);
  for (const Geometry& s : {Geometry{40, 45, 1, 1, 1, 1, 1}, Geometry{41, 44, 2, 1, 1, 1, 1}}) {
    for (const CodeType& out : kCodeTypes) {
      Case c;
      c.g = DepthwiseOf(s, 4, 1), c.in = &kCodeTypes[0], c.out = &out, c.x_zp = 128, c.x_scale = 1.f, c.y_scale = 2.f;
      Data d = Make(c, rng, 2);
      for (float& w : d.w) w = std::nearbyint(w / 0.0073f);  // integers (scale 1: still on a grid)
      for (float& v : d.w_grid.scales) v = 1.f;
      for (float& b : d.b) b = float(int(rng() % 7) - 3);
      const std::vector<uint8_t> want = Expected(c, d);
      ExpectExact(c, d, 1, "ties; " + Describe(s));
      c.y_scale = 0.01f;
      ExpectExact(c, d, 1, "saturating; " + Describe(s));
    }
  }
}

// Outputs whose exact value is a tie but whose float sum is not: X's scale 0.1 is inexact, so the
// reference's products and sums land a few ulps off the tie, on a side its order decides; the
// kernel cannot prove them and must recompute them in exactly that order. The data must hold
// such outputs (codes that differ from rounding the exact value), or the test proves nothing.
TEST(DepthwiseInt8, OutputsNearTiesFollowTheReferencesOrder) {
  QRT_REQUIRE_DEPTHWISE_INT8();
  std::mt19937 rng(testing::TestSeed() + 4);
  for (const Geometry& s : {Geometry{40, 45, 1, 1, 1, 1, 1}, Geometry{41, 44, 2, 1, 1, 1, 1}}) {
    Case c;
    c.g = DepthwiseOf(s, 6, 1), c.in = &kCodeTypes[0], c.out = &kCodeTypes[0], c.x_zp = 128, c.x_scale = 0.1f;
    c.y_zp = 128, c.y_scale = 0.2f;
    Data d = Make(c, rng);
    for (float& v : d.w_grid.scales) v = 1.f;
    for (float& w : d.w) w = float(int(rng() % 7) - 3);
    for (float& b : d.b) b = 0.f;
    const std::vector<uint8_t> want = Expected(c, d);
    int off_exact = 0;
    const int64_t oh = c.g.out[1], ow = c.g.out[2];
    for (int64_t ch = 0; ch < c.g.out_channels; ++ch) {
      for (int64_t i = 0; i < oh * ow; ++i) {
        int64_t sum = 0;  // the exact value is 0.1 * sum
        for (int kh = 0; kh < 3; ++kh) {
          for (int kw = 0; kw < 3; ++kw) {
            const int64_t ih = (i / ow) * s.stride + kh - s.top, iw = (i % ow) * s.stride + kw - s.left;
            if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
            const int64_t x = int64_t(d.x[size_t((ch * s.h + ih) * s.w + iw)]) - 128;
            sum += int64_t(d.w[size_t(ch * 9 + kh * 3 + kw)]) * x;
          }
        }
        // exact / 0.2 = sum / 2, exact in double: ties when sum is odd, rounded to even
        const int64_t q = int64_t(std::nearbyint(double(sum) / 2));
        off_exact += int64_t(want[size_t(ch * oh * ow + i)]) != std::clamp<int64_t>(q + 128, 0, 255);
      }
    }
    EXPECT_GT(off_exact, 10) << "no output whose float sum falls on the other side of its tie; " << Describe(s);
    ExpectExact(c, d, 1, "near ties; " + Describe(s));
  }
}

TEST(DepthwiseInt8, RefusesWhatTheArgumentDoesNotCover) {
  QRT_REQUIRE_DEPTHWISE_INT8();
  std::mt19937 rng(testing::TestSeed() + 3);
  Case c;
  c.g = DepthwiseOf({20, 20, 1, 1, 1, 1, 1}, 2, 1), c.in = &kCodeTypes[0], c.out = &kCodeTypes[0], c.x_zp = 128;
  const Data d = Make(c, rng);
  auto plan = [&](const ConvGeometry& g, const std::vector<float>& w, float y_scale) {
    return PlanDepthwiseInt8(g, w.data(), d.w_grid, d.b.data(), d.x_grid, y_scale, 0, DataType::kUInt8);
  };
  EXPECT_NE(plan(c.g, d.w, 0.01f), nullptr);
  std::vector<float> off_grid = d.w;
  off_grid[4] = std::nextafter(off_grid[4], 1.f);
  EXPECT_EQ(plan(c.g, off_grid, 0.01f), nullptr);  // a weight off its grid
  EXPECT_EQ(plan(c.g, d.w, 0.f), nullptr);         // no output scale
  EXPECT_EQ(plan(c.g, d.w, 1e-30f), nullptr);      // nothing provable
  ConvGeometry g = c.g;
  g.stride[2] = 1, g.stride[1] = 2, g.out[1] = 10;
  EXPECT_EQ(plan(g, d.w, 0.01f), nullptr);  // unequal strides
  g = c.g, g.pad_begin[1] = 2, g.out[1] = 21;
  EXPECT_EQ(plan(g, d.w, 0.01f), nullptr);  // pad 2 before
  g = c.g, g.dilation[2] = 2, g.out[2] = 18;
  EXPECT_EQ(plan(g, d.w, 0.01f), nullptr);  // dilated
}

}  // namespace
}  // namespace qrt
