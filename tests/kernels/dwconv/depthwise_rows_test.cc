// The 3x3 depthwise rows kernel (depthwise_rows.h) through ConvFloatOrdered, against the
// reference kernels' padded rows: floats or 8-bit codes in (both types, zero points at their
// ends), floats (with and without an epilogue) or codes out, strides 1 and 2, pads of 0 and 1
// before and 0 to 2 after, planes from 5 x 6 to 112 x 112 with every row tail, batches and
// threads; outputs on rounding ties of the quantization; nothing written outside the output.
// Codes in and out through the lanes kernel too (depthwise_lanes.h: the planes up to 16 x 16,
// 32 x 32 at stride 2, when it is on).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "ops/kernels/conv/conv_float.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "tests/kernels/dwconv/depthwise_test_util.h"
#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using testing::Bits;

bool HaveRows() { return SelectDepthwiseRows(kIsaAuto) != nullptr; }

using Geometry = testing::DepthwiseShape;
using testing::CodeType;
using testing::DepthwiseOf;
using testing::Describe;
using testing::kCodeTypes;

// Planes the padded rows take (30 or more outputs; fewer are gathered per output instead).
const Geometry kGeometries[] = {
    {5, 6, 1, 1, 1, 1, 1},     {2, 17, 1, 1, 1, 1, 1},  {5, 17, 1, 1, 1, 1, 1},    {16, 16, 1, 1, 1, 1, 1},
    {17, 33, 1, 0, 0, 0, 0},   {28, 28, 1, 1, 1, 1, 1}, {9, 47, 1, 1, 0, 2, 1},    {56, 57, 1, 1, 1, 1, 1},
    {112, 112, 1, 1, 1, 1, 1}, {13, 9, 2, 1, 1, 1, 1},  {14, 15, 2, 1, 1, 1, 1},   {15, 14, 2, 0, 0, 1, 1},
    {33, 31, 2, 1, 0, 1, 2},   {57, 56, 2, 1, 1, 1, 1}, {112, 112, 2, 1, 1, 1, 1}, {8, 97, 2, 0, 1, 2, 0},
};

// Kernels with the rows kernel taking every geometry here (the lanes kernel off: it would take
// the small planes), and the reference kernels that specify it.
ConvFloatKernels RowsKernels() {
  ConvFloatKernels k = SelectConvFloatKernels(kIsaAuto);
  k.depthwise_lanes = nullptr;
  return k;
}
ConvFloatKernels LanesAndRows() { return SelectConvFloatKernels(kIsaAuto); }
const ConvFloatKernels kReference{ref::Sgemm, ref::SgemmOneRow, ref::SplitPairs};

struct Data {
  std::vector<float> x, w, b;
  std::vector<uint8_t> codes;  // X's codes, x their floats as DequantizeLinear makes them
};

Data Make(const ConvGeometry& g, DataType code_type, float x_scale, int32_t x_zp, std::mt19937& rng) {
  Data d;
  d.codes.resize(size_t(g.batch * g.in_channels * g.in_spatial()));
  for (uint8_t& q : d.codes) q = uint8_t(rng());
  d.x.resize(d.codes.size());
  (code_type == DataType::kInt8 ? ref::DequantizeS8ToF32 : ref::DequantizeU8ToF32)(
      int64_t(d.codes.size()), d.codes.data(), x_scale, x_zp, d.x.data());
  std::uniform_int_distribution<int> e(-127, 127);
  for (int64_t i = 0; i < g.weight_count(); ++i) d.w.push_back(float(e(rng)) * 0.0073f);
  for (int64_t c = 0; c < g.out_channels; ++c) d.b.push_back(float(e(rng)) * 0.011f);
  return d;
}

TEST(DepthwiseRows, FloatsInAndOutAsTheReference) {
  if (!HaveRows())
    GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX-512 BW + VBMI: 3x3 depthwise planes run the general padded-rows "
                    "path instead (tested in conv_test)";
  std::mt19937 rng(testing::TestSeed());
  for (const Geometry& s : kGeometries) {
    for (bool bias : {true, false}) {
      for (bool fake_quant : {false, true}) {
        const ConvGeometry g = DepthwiseOf(s, 3, 2);
        const Data d = Make(g, DataType::kUInt8, 0.037f, 119, rng);
        OutputEpilogue e;
        e.before = {ref::QuantizeDequantizeU8, 0.013f, 128};
        const float* b = bias ? d.b.data() : nullptr;
        const size_t n = size_t(g.output_count());
        std::vector<float> want(n), got(n + 1, -5.f);
        ConvFloatOrdered(g, d.x.data(), d.w.data(), b, want.data(), kReference, nullptr, 1, fake_quant ? &e : nullptr);
        ConvFloatOrdered(g, d.x.data(), d.w.data(), b, got.data(), RowsKernels(), nullptr, 2,
                         fake_quant ? &e : nullptr);
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(Bits(got[i]), Bits(want[i])) << "output " << i << "; " << Describe(s) << " bias " << bias;
        }
        EXPECT_EQ(got[n], -5.f) << "wrote past the output; " << Describe(s);
      }
    }
  }
}

// Codes in, codes or floats out: the reference convolves X's floats and quantizes its floats.
TEST(DepthwiseRows, CodesInAndOutAsDequantizeConvQuantize) {
  if (!HaveRows())
    GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX-512 BW + VBMI: 3x3 depthwise planes run the general padded-rows "
                    "path instead (tested in conv_test)";
  std::mt19937 rng(testing::TestSeed() + 1);
  for (const Geometry& s : kGeometries) {
    for (const CodeType& in : kCodeTypes) {
      for (const CodeType& out : kCodeTypes) {
        const int32_t x_zp = in.zero_points[rng() % 3], y_zp = out.zero_points[rng() % 3];
        const ConvGeometry g = DepthwiseOf(s, 2, 1);
        ASSERT_TRUE(ConvFloatHandlesCodes(g)) << Describe(s);
        const Data d = Make(g, in.type, 0.021f, x_zp, rng);
        const size_t n = size_t(g.output_count());
        std::vector<float> floats(n);
        ConvFloatOrdered(g, d.x.data(), d.w.data(), d.b.data(), floats.data(), kReference, nullptr);
        // An output scale putting most codes inside the range and some past its ends.
        const float y_scale = 0.0047f;
        std::vector<uint8_t> want(n), got(n + 1, 0xA5);
        out.quantize(int64_t(n), floats.data(), y_scale, y_zp, want.data());
        const ConvInputCodes x_codes{d.codes.data(), SelectDequantizeRows(in.type, kIsaAuto), 0.021f, x_zp,
                                     in.type == DataType::kInt8};
        const ConvOutputCodes y_codes{got.data(), SelectQuantizeF32(out.type, kIsaAuto), y_scale, y_zp,
                                      out.type == DataType::kInt8};
        for (const ConvFloatKernels& kernels : {RowsKernels(), LanesAndRows()}) {
          std::fill(got.begin(), got.end(), 0xA5);
          ConvFloatOrdered(g, nullptr, d.w.data(), d.b.data(), nullptr, kernels, nullptr, 1, nullptr, &x_codes,
                           &y_codes);
          for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(int(got[i]), int(want[i])) << "code " << i << "; " << Describe(s) << " x_zp " << x_zp << " y_zp "
                                                 << y_zp << (kernels.depthwise_lanes ? " lanes on" : "");
          }
          EXPECT_EQ(got[n], 0xA5) << "wrote past the output; " << Describe(s);
          // Codes in, floats out.
          std::vector<float> from_codes(n);
          ConvFloatOrdered(g, nullptr, d.w.data(), d.b.data(), from_codes.data(), kernels, nullptr, 1, nullptr,
                           &x_codes);
          for (size_t i = 0; i < n; ++i) ASSERT_EQ(Bits(from_codes[i]), Bits(floats[i])) << i << "; " << Describe(s);
        }
      }
    }
  }
}

// Outputs exactly halfway between two steps (integer inputs and weights, an output scale of 2):
// the quantization's ties, which its fast multiply cannot settle, rounded to even as
// QuantizeLinear rounds them.
TEST(DepthwiseRows, CodesOfTiesRoundToEven) {
  if (!HaveRows())
    GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX-512 BW + VBMI: 3x3 depthwise planes run the general padded-rows "
                    "path instead (tested in conv_test)";
  std::mt19937 rng(testing::TestSeed() + 2);
  const Geometry s{40, 45, 1, 1, 1, 1, 1};
  const ConvGeometry g = DepthwiseOf(s, 4, 1);
  Data d = Make(g, DataType::kUInt8, 1.f, 128, rng);
  for (float& w : d.w) w = float(int(rng() % 5) - 2);
  for (float& b : d.b) b = float(int(rng() % 7) - 3);
  const size_t n = size_t(g.output_count());
  std::vector<float> floats(n);
  ConvFloatOrdered(g, d.x.data(), d.w.data(), d.b.data(), floats.data(), kReference, nullptr);
  std::vector<uint8_t> want(n), got(n);
  ref::QuantizeF32ToU8(int64_t(n), floats.data(), 2.f, 128, want.data());
  const ConvInputCodes x_codes{d.codes.data(), SelectDequantizeRows(DataType::kUInt8, kIsaAuto), 1.f, 128, false};
  const ConvOutputCodes y_codes{got.data(), SelectQuantizeF32(DataType::kUInt8, kIsaAuto), 2.f, 128, false};
  ConvFloatOrdered(g, nullptr, d.w.data(), d.b.data(), nullptr, RowsKernels(), nullptr, 1, nullptr, &x_codes, &y_codes);
  int ties = 0;
  for (size_t i = 0; i < n; ++i) {
    ASSERT_EQ(int(got[i]), int(want[i])) << "code " << i << " of " << floats[i];
    ties += std::fmod(std::fabs(floats[i]), 2.f) == 1.f;
  }
  EXPECT_GT(ties, int(n) / 10);
}

}  // namespace
}  // namespace qrt
