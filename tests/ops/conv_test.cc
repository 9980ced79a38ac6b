// Conv, ConvInteger and QLinearConv: hand-checked goldens for the reference kernels,
// then every fast path against the reference (plans with Isa::kScalar run only the
// reference): the float convolution and the integer paths bit-exactly, and the small
// third-party models exactly.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <vector>

#include "ops/kernels/conv/conv_float.h"
#include "ops/kernels/conv/conv_ref.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tests/ops/linalg_test_util.h"

namespace qrt {
namespace {

using testing::linalg::Const;
using testing::linalg::NodeInput;
using testing::linalg::RandomTensor;
using testing::linalg::Runtime;
using testing::linalg::Scalar;

// ---- golden values (reference kernels) -----------------------------------------------

TEST(ConvGolden, FloatTwoByTwoOnes) {
  std::vector<float> xv(9);
  for (int i = 0; i < 9; ++i) xv[size_t(i)] = float(i);
  Tensor x = Tensor::FromVector<float>(xv, {1, 1, 3, 3});
  Tensor w = Tensor::FromVector<float>({1, 1, 1, 1}, {1, 1, 2, 2});
  Tensor b = Tensor::FromVector<float>({0.5f}, {1});
  for (Isa isa : TiersThisCpuHas()) {
    auto y = testing::linalg::RunNode("Conv", {Runtime(x), Const(w), Const(b)}, {}, isa);
    ASSERT_TRUE(y.ok()) << y.status().message();
    EXPECT_EQ(y->dims(), (Dims{1, 1, 2, 2}));
    const float want[] = {8.5f, 12.5f, 20.5f, 24.5f};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(y->data<float>()[i], want[i]) << IsaName(isa) << " " << i;
  }
}

TEST(ConvGolden, ConvIntegerPadsWithZeroPoint) {
  // x - zp = [[1,2,3],[4,5,6],[7,8,9]]; padding counts as x == zp (contributes 0).
  Tensor x = Tensor::FromVector<uint8_t>({2, 3, 4, 5, 6, 7, 8, 9, 10}, {1, 1, 3, 3});
  Tensor w = Tensor::FromVector<uint8_t>({1, 1, 1, 1}, {1, 1, 2, 2});
  Attributes a;
  a.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  for (Isa isa : TiersThisCpuHas()) {
    auto y = testing::linalg::RunNode("ConvInteger", {Runtime(x), Const(w), Const(Scalar<uint8_t>(1))}, a, isa);
    ASSERT_TRUE(y.ok()) << y.status().message();
    ASSERT_EQ(y->dims(), (Dims{1, 1, 4, 4}));
    const int32_t* p = y->data<int32_t>();
    EXPECT_EQ(p[0], 1);
    EXPECT_EQ(p[1], 3);
    EXPECT_EQ(p[5], 12);
    EXPECT_EQ(p[15], 9);
  }
}

// QLinearConv requantizes like ONNX's reference: the zero point is added *before*
// rounding (ties to even), in double.
TEST(ConvGolden, QLinearConvRoundingAndSaturation) {
  Tensor x = Tensor::FromVector<uint8_t>({5, 7, 255, 0}, {1, 1, 2, 2});
  Tensor w = Tensor::FromVector<int8_t>({1}, {1, 1, 1, 1});
  auto run = [&](uint8_t y_zp) {
    return testing::linalg::RunNode(
        "QLinearConv",
        {Runtime(x), Const(Scalar<float>(0.5f)), Const(Scalar<uint8_t>(0)), Const(w), Const(Scalar<float>(1.f)),
         Const(Scalar<int8_t>(0)), Const(Scalar<float>(0.25f)), Const(Scalar<uint8_t>(y_zp))},
        {}, Isa::kScalar);
  };
  // multiplier 0.5/0.25 = 2: 5 -> 10, 7 -> 14, 255 -> 510 saturates.
  auto y = run(0);
  ASSERT_TRUE(y.ok()) << y.status().message();
  EXPECT_EQ(y->data<uint8_t>()[0], 10);
  EXPECT_EQ(y->data<uint8_t>()[2], 255);
  // multiplier 0.5/1 = 0.5: 5 -> 2.5 -> 2 (even), then the zero point (ORT's order).
  auto half = [&](uint8_t zp) {
    return testing::linalg::RunNode(
        "QLinearConv",
        {Runtime(x), Const(Scalar<float>(0.5f)), Const(Scalar<uint8_t>(0)), Const(w), Const(Scalar<float>(1.f)),
         Const(Scalar<int8_t>(0)), Const(Scalar<float>(1.f)), Const(Scalar<uint8_t>(zp))},
        {}, Isa::kScalar);
  };
  auto h0 = half(0), h1 = half(1);
  ASSERT_TRUE(h0.ok() && h1.ok());
  EXPECT_EQ(h0->data<uint8_t>()[0], 2);
  EXPECT_EQ(h0->data<uint8_t>()[1], 4);  // 3.5 -> 4
  EXPECT_EQ(h1->data<uint8_t>()[0], 3);  // rint(2.5) + 1, not rint(2.5 + 1) = 4
  EXPECT_EQ(h1->data<uint8_t>()[1], 5);  // rint(3.5) + 1
}

// ---- random geometries: fast paths vs reference ---------------------------------------

struct ConvCase {
  const char* name;
  int64_t n, c, m, group;
  Dims in, kernel;
  std::vector<int64_t> strides, dilations, pads;  // empty: attribute absent
  const char* auto_pad;                           // nullptr: absent
};

const ConvCase kCases[] = {
    {"basic3x3", 1, 3, 8, 1, {9, 9}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    {"depthwise_s2_asym", 2, 8, 8, 8, {10, 7}, {3, 3}, {2, 2}, {}, {1, 0, 1, 2}, nullptr},
    {"grouped_dilated", 1, 6, 4, 2, {8, 8}, {3, 3}, {}, {2, 2}, {2, 2, 2, 2}, nullptr},
    {"conv1d", 1, 4, 5, 1, {17}, {5}, {3}, {}, {2, 1}, nullptr},
    {"conv3d", 1, 2, 3, 1, {5, 6, 7}, {3, 3, 3}, {1, 2, 1}, {}, {1, 1, 1, 1, 1, 1}, nullptr},
    {"pointwise", 1, 16, 32, 1, {14, 14}, {1, 1}, {}, {}, {}, nullptr},
    {"same_upper_s2", 1, 5, 6, 1, {7, 8}, {3, 3}, {2, 2}, {}, {}, "SAME_UPPER"},
    {"same_lower_s2", 1, 5, 6, 1, {7, 8}, {4, 3}, {2, 2}, {}, {}, "SAME_LOWER"},
    {"valid_5x5", 2, 3, 4, 1, {11, 9}, {5, 5}, {1, 2}, {}, {}, "VALID"},
    {"long_reduction", 1, 64, 8, 1, {6, 6}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    // A kernel as large as its input: one output per channel (the transposed GEMM), with
    // several output channels and depthwise (one row).
    {"whole_input", 1, 8, 5, 1, {7, 7}, {7, 7}, {}, {}, {}, nullptr},
    {"whole_input_depthwise", 1, 6, 6, 6, {7, 7}, {7, 7}, {}, {}, {}, nullptr},
    {"depthwise_3x3", 1, 12, 12, 12, {9, 11}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    // One output channel per group: padded rows (1-D, two input channels per group, stride 2
    // with dilation), rows under 16 wide computed together through the flat index (MobileNet's
    // 7x7 and 14x14 stages, stride 2 into 7 wide, dilated, two channels per group, several
    // images), and per-output gathers (3-D, and groups of under 256 products: one wide, tiny).
    {"depthwise_1d", 1, 6, 6, 6, {17}, {3}, {2}, {}, {1, 1}, nullptr},
    {"two_channel_groups", 1, 8, 4, 4, {9, 12}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    {"depthwise_s2_dilated", 1, 5, 5, 5, {20, 23}, {3, 3}, {2, 2}, {2, 3}, {2, 1, 0, 3}, nullptr},
    {"depthwise_3d_narrow", 1, 4, 4, 4, {4, 5, 6}, {3, 3, 3}, {}, {}, {1, 1, 1, 1, 1, 1}, nullptr},
    {"depthwise_narrow_batch", 3, 16, 16, 16, {6, 3}, {3, 1}, {}, {}, {}, nullptr},
    {"depthwise_7x7", 1, 24, 24, 24, {7, 7}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    {"depthwise_14x14", 1, 8, 8, 8, {14, 14}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    {"depthwise_28x28_flat", 1, 3, 3, 3, {28, 28}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    {"depthwise_28x28_s2_rows", 1, 3, 3, 3, {29, 28}, {3, 3}, {2, 1}, {}, {1, 1, 1, 1}, nullptr},
    {"depthwise_s2_into_7", 2, 16, 16, 16, {14, 14}, {3, 3}, {2, 2}, {}, {0, 0, 1, 1}, nullptr},
    {"depthwise_narrow_dilated_s3", 1, 5, 5, 5, {13, 11}, {3, 2}, {3, 2}, {2, 3}, {2, 1, 0, 3}, nullptr},
    {"depthwise_narrow_dilated_s3_tall", 1, 5, 5, 5, {40, 11}, {3, 2}, {3, 2}, {2, 3}, {2, 1, 0, 3}, nullptr},
    {"depthwise_one_wide", 1, 3, 3, 3, {9, 1}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    {"two_channel_groups_narrow", 1, 8, 4, 4, {5, 6}, {3, 3}, {1, 2}, {}, {1, 1, 1, 1}, nullptr},
    // Rows of 16 or more, one call per output row over the padded copy: wide pads, dilation,
    // row stride 2, a kernel wider than the row, two channels per group, 1-D.
    {"depthwise_wide_rows", 1, 6, 6, 6, {5, 40}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    {"depthwise_wide_dilated_asym", 2, 4, 4, 4, {6, 33}, {3, 5}, {2, 1}, {1, 3}, {0, 7, 2, 1}, nullptr},
    {"depthwise_wide_kernel_wide_pads", 1, 3, 3, 3, {4, 20}, {3, 15}, {}, {}, {1, 10, 1, 10}, nullptr},
    {"depthwise_kernel_over_row", 1, 3, 3, 3, {4, 20}, {3, 25}, {}, {}, {1, 12, 1, 12}, nullptr},
    {"two_channel_groups_wide", 1, 8, 4, 4, {3, 21}, {2, 3}, {}, {}, {1, 1, 0, 2}, nullptr},
    {"depthwise_1d_wide", 1, 2, 2, 2, {40}, {5}, {}, {}, {2, 2}, nullptr},
    // 2-D (and 1-D): the GEMM reads patch rows as pointers into the padded planes, one segment
    // per output row: padding, dilation, groups, batches, asymmetric pads, none, 1-D, and
    // strides (column phases) with pads and dilation, row stride alone, column stride alone.
    // A depthwise kernel nearly as wide as its input: per-row calls, not the flat index.
    {"planes_3x3", 1, 4, 6, 1, {10, 20}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    {"planes_dilated_groups", 2, 6, 4, 2, {9, 40}, {3, 3}, {}, {2, 2}, {2, 2, 2, 2}, nullptr},
    {"planes_asym_1x5", 1, 3, 7, 1, {5, 33}, {2, 5}, {}, {}, {0, 2, 1, 1}, nullptr},
    {"planes_valid", 1, 5, 9, 1, {6, 24}, {3, 3}, {}, {}, {}, nullptr},
    {"planes_1d", 1, 3, 4, 1, {50}, {3}, {}, {}, {1, 1}, nullptr},
    {"planes_s2", 2, 4, 6, 1, {11, 20}, {3, 3}, {2, 2}, {}, {1, 1, 1, 1}, nullptr},
    {"planes_s3_dilated_asym", 1, 3, 5, 1, {13, 29}, {3, 2}, {3, 3}, {2, 3}, {2, 0, 1, 4}, nullptr},
    {"planes_row_stride", 1, 4, 4, 2, {12, 17}, {3, 3}, {2, 1}, {}, {1, 1, 1, 1}, nullptr},
    {"planes_column_stride", 1, 2, 3, 1, {6, 31}, {2, 5}, {1, 4}, {}, {0, 2, 1, 2}, nullptr},
    {"depthwise_kernel_near_width", 1, 2, 2, 2, {4, 300}, {3, 294}, {}, {}, {1, 0, 1, 0}, nullptr},
    // Padded planes over 32 KB per group: rows copied into a window just ahead of the output
    // row that reads them, sliding when full (stride 1 and 2, pads on one side only, a tall
    // dilated kernel with tall pads, stride 3 with dilation, two channels per group, batches).
    {"window_s1", 1, 3, 3, 3, {100, 96}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    {"window_s2_asym", 2, 2, 2, 2, {99, 100}, {3, 3}, {2, 2}, {}, {1, 0, 2, 1}, nullptr},
    {"window_tall_dilated", 1, 2, 2, 2, {200, 40}, {5, 3}, {}, {4, 1}, {8, 1, 8, 1}, nullptr},
    {"window_s3_dilated", 1, 2, 2, 2, {90, 95}, {3, 2}, {3, 2}, {2, 3}, {2, 1, 0, 3}, nullptr},
    {"window_two_channel_groups", 1, 4, 2, 2, {70, 64}, {3, 3}, {}, {}, {1, 1, 1, 1}, nullptr},
    {"window_stride_over_extent", 1, 2, 2, 2, {100, 100}, {1, 1}, {3, 3}, {}, {}, nullptr},
};

Attributes CaseAttrs(const ConvCase& c) {
  Attributes a;
  if (c.group != 1) a.Set("group", c.group);
  if (!c.strides.empty()) a.Set("strides", c.strides);
  if (!c.dilations.empty()) a.Set("dilations", c.dilations);
  if (!c.pads.empty()) a.Set("pads", c.pads);
  if (c.auto_pad) a.Set("auto_pad", std::string(c.auto_pad));
  return a;
}

Dims XDims(const ConvCase& c) {
  Dims d{c.n, c.c};
  d.insert(d.end(), c.in.begin(), c.in.end());
  return d;
}
Dims WDims(const ConvCase& c) {
  Dims d{c.m, c.c / c.group};
  d.insert(d.end(), c.kernel.begin(), c.kernel.end());
  return d;
}

class ConvPaths : public ::testing::TestWithParam<ConvCase> {};

// Float Conv: the AVX2 plan bit-identical to the reference plan (both sum in ONNX Runtime's
// order, conv_float.h), and both within float rounding of the sum taken in double.
TEST_P(ConvPaths, FloatAvx2BitIdenticalToReference) {
  const ConvCase& c = GetParam();
  std::mt19937 rng(1234);
  Tensor x = RandomTensor(DataType::kFloat32, XDims(c), -1, 1, rng);
  Tensor w = RandomTensor(DataType::kFloat32, WDims(c), -1, 1, rng);
  Tensor b = RandomTensor(DataType::kFloat32, {c.m}, -1, 1, rng);
  const Attributes a = CaseAttrs(c);
  auto want = testing::linalg::RunNode("Conv", {Runtime(x), Const(w), Const(b)}, a, Isa::kScalar);
  ASSERT_TRUE(want.ok()) << want.status().message();
  auto got = testing::linalg::RunNode("Conv", {Runtime(x), Const(w), Const(b)}, a, kIsaAuto);
  ASSERT_TRUE(got.ok()) << c.name << ": " << got.status().message();
  EXPECT_EQ(testing::CompareBits(*got, *want), "") << c.name;
  // The same convolution in f64 (summed in double): data in [-1, 1], K <= 600.
  auto x64 = testing::linalg::ToDouble(x), w64 = testing::linalg::ToDouble(w), b64 = testing::linalg::ToDouble(b);
  auto exact = testing::linalg::RunNode("Conv", {Runtime(x64), Const(w64), Const(b64)}, a, Isa::kScalar);
  ASSERT_TRUE(exact.ok()) << exact.status().message();
  for (int64_t i = 0; i < want->numel(); ++i) {
    ASSERT_NEAR(want->data<float>()[i], exact->data<double>()[i], 1e-4) << c.name << " element " << i;
  }
}

// The integer GEMM path, forced: available at the AVX2 tier and above (refused below, saying
// why), and then the reference's bits.
void ExpectIgemmExact(const char* op, const std::vector<NodeInput>& in, const Attributes& a, const Tensor& want,
                      const std::string& label) {
  auto got = testing::linalg::RunNode(op, in, a, kIsaAuto, "igemm");
  if (!CanUseAvx2(kIsaAuto)) {
    ASSERT_FALSE(got.ok()) << label;
    EXPECT_TRUE(testing::Contains(got.status().message(), "needs the AVX2 tier")) << got.status().message();
    return;
  }
  ASSERT_TRUE(got.ok()) << label << ": " << got.status().message();
  EXPECT_EQ(testing::CompareBits(*got, want), "") << label << " (igemm path)";
}

// QLinearConv: every combination of 8-bit types, per-tensor / per-channel weights, with
// 7-bit weights (int8 oneDNN eligible) and full-range ones; the auto-chosen path must be
// bit-identical to the reference.
TEST_P(ConvPaths, QLinearConvBitExact) {
  const ConvCase& c = GetParam();
  std::mt19937 rng(99);
  for (DataType xt : {DataType::kUInt8, DataType::kInt8}) {
    for (DataType wt : {DataType::kInt8, DataType::kUInt8}) {
      for (bool per_channel : {false, true}) {
        for (bool seven_bit : {true, false}) {
          const bool xu = xt == DataType::kUInt8, wu = wt == DataType::kUInt8;
          Tensor x = RandomTensor(xt, XDims(c), xu ? 0 : -128, xu ? 255 : 127, rng);
          const int w_zp_base = wu ? 128 : 0;
          const int span = seven_bit ? 60 : (wu ? 127 : 127);
          Tensor w = RandomTensor(wt, WDims(c), w_zp_base - span - (seven_bit ? 0 : 1), w_zp_base + span, rng);
          const int64_t np = per_channel ? c.m : 1;
          Dims pd = per_channel ? Dims{c.m} : Dims{};
          Tensor ws = RandomTensor(DataType::kFloat32, pd, 0.001, 0.02, rng);
          Tensor wz = Tensor::Allocate(wt, pd).value();
          for (int64_t i = 0; i < np; ++i) {
            if (wu)
              wz.data<uint8_t>()[i] = uint8_t(w_zp_base + (seven_bit ? 0 : int(i % 3)));
            else
              wz.data<int8_t>()[i] = 0;
          }
          Tensor bias = RandomTensor(DataType::kInt32, {c.m}, -5000, 5000, rng);
          Tensor xz = xu ? Scalar<uint8_t>(117) : Tensor(Scalar<int8_t>(-3));
          Tensor yz = Scalar<uint8_t>(128);
          std::vector<NodeInput> in = {Runtime(x), Const(Scalar<float>(0.05f)), Const(xz), Const(w),   Const(ws),
                                       Const(wz),  Const(Scalar<float>(0.2f)),  Const(yz), Const(bias)};
          const std::string label = std::string(c.name) + " x " + std::string(DataTypeName(xt)) + " w " +
                                    std::string(DataTypeName(wt)) + (per_channel ? " per-channel" : " per-tensor") +
                                    (seven_bit ? " 7-bit" : " full-range");
          Attributes a = CaseAttrs(c);
          auto want = testing::linalg::RunNode("QLinearConv", in, a, Isa::kScalar);
          ASSERT_TRUE(want.ok()) << label << ": " << want.status().message();
          for (Isa isa : TiersThisCpuHas()) {
            auto got = testing::linalg::RunNode("QLinearConv", in, a, isa);
            ASSERT_TRUE(got.ok()) << label << ": " << got.status().message();
            EXPECT_EQ(testing::CompareBits(*got, *want), "") << label << " at " << IsaName(isa);
          }
          // The int8 oneDNN path is taken when it is provably exact, refused otherwise.
          auto forced = testing::linalg::RunNode("QLinearConv", in, a, kIsaAuto, "onednn-int8");
          // Where it is exact, only a missing oneDNN primitive (some grouped and dilated
          // geometries below AVX-512) may refuse it, and says so.
          const bool int8_eligible = xu && seven_bit;
          if (int8_eligible && !forced.ok()) {
            // A scalar ceiling (QRT_MAX_ISA=scalar) runs no oneDNN at all.
            const bool scalar = EffectiveIsa(kIsaAuto) == Isa::kScalar;
            EXPECT_TRUE(testing::Contains(forced.status().message(), scalar ? "ISA ceilings below oneDNN's tier"
                                                                            : "oneDNN has no int8 convolution"))
                << label << ": " << forced.status().message();
          } else {
            EXPECT_EQ(forced.ok(), int8_eligible) << label << ": " << forced.status().message();
          }
          if (forced.ok()) {
            EXPECT_EQ(testing::CompareBits(*forced, *want), "") << label << " (int8 path)";
          }
          // The f32 path is exact only with short enough reductions.
          auto f32 = testing::linalg::RunNode("QLinearConv", in, a, kIsaAuto, "onednn-f32");
          if (f32.ok()) {
            EXPECT_EQ(testing::CompareBits(*f32, *want), "") << label << " (f32 path)";
          }
          // qrt's own float kernels under the same exactness bound, at every tier.
          for (Isa isa : TiersThisCpuHas()) {
            auto own = testing::linalg::RunNode("QLinearConv", in, a, isa, "exact-f32");
            if (f32.ok()) EXPECT_TRUE(own.ok()) << label << ": " << own.status().message();
            if (own.ok()) EXPECT_EQ(testing::CompareBits(*own, *want), "") << label << " (exact-f32 path)";
          }
          ExpectIgemmExact("QLinearConv", in, a, *want, label);
        }
      }
    }
  }
}

TEST_P(ConvPaths, ConvIntegerBitExact) {
  const ConvCase& c = GetParam();
  std::mt19937 rng(7);
  Tensor x = RandomTensor(DataType::kUInt8, XDims(c), 0, 255, rng);
  Tensor w = RandomTensor(DataType::kUInt8, WDims(c), 0, 255, rng);
  Tensor wz = RandomTensor(DataType::kUInt8, {c.m}, 100, 150, rng);
  std::vector<NodeInput> in = {Runtime(x), Const(w), Const(Scalar<uint8_t>(200)), Const(wz)};
  auto want = testing::linalg::RunNode("ConvInteger", in, CaseAttrs(c), Isa::kScalar);
  ASSERT_TRUE(want.ok()) << want.status().message();
  for (Isa isa : TiersThisCpuHas()) {
    auto got = testing::linalg::RunNode("ConvInteger", in, CaseAttrs(c), isa);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(testing::CompareBits(*got, *want), "") << c.name << " at " << IsaName(isa);
  }
  ExpectIgemmExact("ConvInteger", in, CaseAttrs(c), *want, c.name);
  // W and its zero point at run time: igemm packs them per run.
  std::vector<NodeInput> runtime_w = {Runtime(x), Runtime(w), Const(Scalar<uint8_t>(200)), Runtime(wz)};
  ExpectIgemmExact("ConvInteger", runtime_w, CaseAttrs(c), *want, std::string(c.name) + " runtime W");
}

// The float convolution's definition is ref::ConvFloat (conv_ref.h): the patch matrix of each
// image and group, then the ordered GEMM's reference, without conv_float.cc's driver. Every
// geometry, including the ones the driver computes from padded rows (depthwise) or straight
// from X, must give its bits at the scalar and the SIMD tier.
TEST_P(ConvPaths, FloatEqualsPatchesThenOrderedGemm) {
  const ConvCase& c = GetParam();
  if (c.auto_pad != nullptr) GTEST_SKIP() << "auto_pad: pads derived by the op";
  std::mt19937 rng(77);
  Tensor x = RandomTensor(DataType::kFloat32, XDims(c), -1, 1, rng);
  Tensor w = RandomTensor(DataType::kFloat32, WDims(c), -1, 1, rng);
  Tensor b = RandomTensor(DataType::kFloat32, {c.m}, -1, 1, rng);
  ConvGeometry g;
  g.batch = c.n, g.in_channels = c.c, g.out_channels = c.m, g.group = c.group;
  const int r = int(c.in.size());
  g.spatial_rank = r;
  for (int d = 0; d < r; ++d) {
    const int e = 3 - r + d;
    g.in[e] = c.in[size_t(d)], g.kernel[e] = c.kernel[size_t(d)];
    g.stride[e] = c.strides.empty() ? 1 : c.strides[size_t(d)];
    g.dilation[e] = c.dilations.empty() ? 1 : c.dilations[size_t(d)];
    g.pad_begin[e] = c.pads.empty() ? 0 : c.pads[size_t(d)];
    g.pad_end[e] = c.pads.empty() ? 0 : c.pads[size_t(r + d)];
    const int64_t span = (g.kernel[e] - 1) * g.dilation[e] + 1;
    g.out[e] = (g.in[e] + g.pad_begin[e] + g.pad_end[e] - span) / g.stride[e] + 1;
  }
  std::vector<float> want(size_t(g.output_count()));
  ref::ConvFloat(g, x.data<float>(), w.data<float>(), b.data<float>(), want.data());
  for (Isa isa : TiersThisCpuHas()) {
    auto got = testing::linalg::RunNode("Conv", {Runtime(x), Const(w), Const(b)}, CaseAttrs(c), isa);
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(testing::CompareBits(*got, Tensor::FromVector<float>(want, got->dims())), "")
        << c.name << " isa " << IsaName(isa);
  }
}

// Every float algorithm, forced (conv_algorithm), on every geometry of the table at both tiers:
// where it applies it gives the definition's bits, where it does not the compile says so; and
// each one is taken somewhere (the SIMD-only depthwise kernels where this CPU has them).
TEST(ConvPathChoice, EveryFloatAlgorithmForcedGivesTheDefinitionsBits) {
  const char* kFloatAlgorithms[] = {
      "reference",       "direct",         "direct-transposed", "padded-rows", "padded-rows-flat", "padded-rows-window",
      "depthwise-lanes", "depthwise-rows", "gathered-groups",   "planes",      "patches"};
  std::map<std::string, int> taken;
  for (const ConvCase& c : kCases) {
    if (c.auto_pad != nullptr) continue;
    std::mt19937 rng(78);
    Tensor x = RandomTensor(DataType::kFloat32, XDims(c), -1, 1, rng);
    Tensor w = RandomTensor(DataType::kFloat32, WDims(c), -1, 1, rng);
    Tensor b = RandomTensor(DataType::kFloat32, {c.m}, -1, 1, rng);
    const std::vector<NodeInput> in = {Runtime(x), Const(w), Const(b)};
    auto want = testing::linalg::RunNode("Conv", in, CaseAttrs(c), Isa::kScalar, "reference");
    ASSERT_TRUE(want.ok()) << c.name << ": " << want.status().message();
    for (Isa isa : TiersThisCpuHas()) {
      for (const char* algorithm : kFloatAlgorithms) {
        auto got = testing::linalg::RunNode("Conv", in, CaseAttrs(c), isa, algorithm);
        if (!got.ok()) {
          EXPECT_TRUE(testing::Contains(got.status().message(), "does not apply")) << got.status().message();
          EXPECT_STRNE(algorithm, "reference") << c.name;  // applies everywhere
          continue;
        }
        ++taken[algorithm];
        EXPECT_EQ(testing::CompareBits(*got, *want), "") << c.name << " " << algorithm << " isa " << IsaName(isa);
      }
    }
  }
  for (const char* algorithm : kFloatAlgorithms) {
    const std::string a = algorithm;
    const ConvKernelsAvailable here = AvailableIn(SelectConvFloatKernels(kIsaAuto));
    if ((a == "depthwise-lanes" && !here.depthwise_lanes) || (a == "depthwise-rows" && !here.depthwise_rows)) continue;
    EXPECT_GT(taken[a], 0) << a << " was never taken";
  }
  EXPECT_FALSE(testing::linalg::RunNode("Conv",
                                        {Runtime(Tensor::Allocate(DataType::kFloat32, {1, 1, 3, 3}).value()),
                                         Const(Tensor::Allocate(DataType::kFloat32, {1, 1, 1, 1}).value())},
                                        {}, kIsaAuto, "no-such-algorithm")
                   .ok());
}

// A depthwise convolution with 2^24 rows of padding above and below and a stride that skips
// them: 3 x 16 outputs. The padded copy of its input would be 2^25 rows (2 GiB); the kernel
// must not make it, and the outputs are the bias (in the padding) and x * w + b.
TEST(ConvHostile, HugePaddingNeedsNoHugeBuffer) {
  std::vector<float> xv(64);
  for (int i = 0; i < 64; ++i) xv[size_t(i)] = float(i) * 0.25f;
  Tensor x = Tensor::FromVector<float>(xv, {1, 1, 4, 16});
  Tensor w = Tensor::FromVector<float>({2.f}, {1, 1, 1, 1});
  Tensor b = Tensor::FromVector<float>({0.5f}, {1});
  Attributes a;
  const int64_t pad = int64_t(1) << 24;
  a.Set("pads", std::vector<int64_t>{pad, 0, pad, 0});
  a.Set("strides", std::vector<int64_t>{pad, 1});
  for (Isa isa : TiersThisCpuHas()) {
    auto y = testing::linalg::RunNode("Conv", {Runtime(x), Const(w), Const(b)}, a, isa);
    ASSERT_TRUE(y.ok()) << y.status().message();
    ASSERT_EQ(y->dims(), (Dims{1, 1, 3, 16}));
    for (int j = 0; j < 16; ++j) {
      EXPECT_EQ(y->data<float>()[j], 0.5f);                             // row -2^24: padding
      EXPECT_EQ(y->data<float>()[16 + j], xv[size_t(j)] * 2.f + 0.5f);  // row 0
      EXPECT_EQ(y->data<float>()[32 + j], 0.5f);                        // row 2^24: padding
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Geometries, ConvPaths, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ConvCase>& i) { return std::string(i.param.name); });

// Full-range weights over a long reduction: neither oneDNN path is exact, so forcing one is
// refused; auto takes the integer GEMM at AVX2 and above, the reference below, same bits.
TEST(ConvPathChoice, FullRangeLongReductionRefusesOnednn) {
  std::mt19937 rng(5);
  Tensor x = RandomTensor(DataType::kUInt8, {1, 256, 4, 4}, 0, 255, rng);
  Tensor w = RandomTensor(DataType::kInt8, {4, 256, 3, 3}, -128, 127, rng);
  std::vector<NodeInput> in = {Runtime(x), Const(w), Const(Scalar<uint8_t>(0)), Const(Scalar<int8_t>(0))};
  for (const char* path : {"onednn-int8", "onednn-f32"}) {
    auto y = testing::linalg::RunNode("ConvInteger", in, {}, kIsaAuto, path);
    EXPECT_FALSE(y.ok()) << path;
  }
  auto want = testing::linalg::RunNode("ConvInteger", in, {}, Isa::kScalar);
  auto got = testing::linalg::RunNode("ConvInteger", in, {}, kIsaAuto);
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_EQ(testing::CompareBits(*got, *want), "");
}

// Non-constant weights (as in the ONNX backend tests) run the reference.
TEST(ConvPathChoice, RuntimeWeights) {
  std::mt19937 rng(6);
  Tensor x = RandomTensor(DataType::kFloat32, {1, 3, 6, 6}, -1, 1, rng);
  Tensor w = RandomTensor(DataType::kFloat32, {2, 3, 3, 3}, -1, 1, rng);
  auto want = testing::linalg::RunNode("Conv", {Runtime(x), Runtime(w)}, {}, Isa::kScalar);
  auto got = testing::linalg::RunNode("Conv", {Runtime(x), Runtime(w)}, {}, kIsaAuto);
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_EQ(testing::CompareBits(*got, *want), "");
}

TEST(ConvErrors, BadAttributes) {
  Tensor x = Tensor::Allocate(DataType::kFloat32, {1, 4, 5, 5}).value();
  Tensor w = Tensor::Allocate(DataType::kFloat32, {2, 3, 3, 3}).value();  // C/group mismatch
  auto y = testing::linalg::RunNode("Conv", {Runtime(x), Const(w)}, {}, Isa::kScalar);
  EXPECT_FALSE(y.ok());
  Attributes a;
  a.Set("auto_pad", std::string("SOMETIMES"));
  Tensor w2 = Tensor::Allocate(DataType::kFloat32, {2, 4, 3, 3}).value();
  EXPECT_FALSE(testing::linalg::RunNode("Conv", {Runtime(x), Const(w2)}, a, Isa::kScalar).ok());
}

// ---- third-party models ---------------------------------------------------------------

class ConvModels : public ::testing::TestWithParam<const char*> {};

TEST_P(ConvModels, MatchOriginReferenceExactly) {
  const std::string base = testing::SharedModelsDir() + "/" + GetParam();
  if (!testing::FileExists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is not present";
  auto inputs = testing::ReadTestDataSet(base + "/test_data_set_0", "input");
  auto expected = testing::ReadTestDataSet(base + "/test_data_set_0", "output");
  ASSERT_TRUE(inputs.ok() && expected.ok());
  for (Isa isa : TiersThisCpuHas()) {
    auto got = testing::RunModelFile(base + ".onnx", *inputs, "none", isa);
    if (!got.ok() && got.status().code() == StatusCode::kUnsupported) {
      GTEST_SKIP() << GetParam() << ": " << got.status().message();
    }
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->size(), expected->size());
    for (size_t k = 0; k < got->size(); ++k) {
      EXPECT_EQ(testing::CompareTensors((*got)[k], (*expected)[k], 0, 0), "") << GetParam() << " " << IsaName(isa);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Shared, ConvModels,
                         ::testing::Values("onnxnode_qlinearconv", "onnxnode_convinteger_with_padding",
                                           "tract_qtdnn_qlinearconv"));

// ---- timing (manual: --gtest_also_run_disabled_tests; OMP_NUM_THREADS=1) ---------------

double BestMs(const testing::linalg::NodeGraph& ng, Isa isa, const std::string& conv_algorithm = "") {
  CompileOptions opts;
  opts.passes = "none";
  opts.max_isa = isa;
  opts.conv_algorithm = conv_algorithm;
  auto model = Compile(ng.graph, opts);
  if (!model.ok()) return -1;
  Session session(*model);
  std::vector<Tensor> out;
  double best = 1e30;
  const int reps = isa == Isa::kScalar ? 2 : 30;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    if (!session.Run(ng.feeds, &out).ok()) return -1;
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

TEST(ConvTiming, DISABLED_Conv3x3_32to64_56x56) {
  std::mt19937 rng(1);
  Attributes pads;
  pads.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  Tensor xf = RandomTensor(DataType::kFloat32, {1, 32, 56, 56}, -1, 1, rng);
  Tensor wf = RandomTensor(DataType::kFloat32, {64, 32, 3, 3}, -1, 1, rng);
  auto f32 = testing::linalg::BuildNode("Conv", {Runtime(xf), Const(wf)}, pads);
  Tensor xq = RandomTensor(DataType::kUInt8, {1, 32, 56, 56}, 0, 255, rng);
  Tensor w7 = RandomTensor(DataType::kInt8, {64, 32, 3, 3}, -64, 63, rng);
  Tensor w8 = RandomTensor(DataType::kInt8, {64, 32, 3, 3}, -128, 127, rng);
  auto q = [&](const Tensor& w) {
    Attributes a = pads;
    return testing::linalg::BuildNode(
        "QLinearConv",
        {Runtime(xq), Const(Scalar<float>(0.02f)), Const(Scalar<uint8_t>(120)), Const(w), Const(Scalar<float>(0.01f)),
         Const(Scalar<int8_t>(0)), Const(Scalar<float>(0.3f)), Const(Scalar<uint8_t>(128))},
        a);
  };
  std::printf("Conv f32 reference        %8.3f ms\n", BestMs(*f32, Isa::kScalar));
  std::printf("Conv f32 oneDNN           %8.3f ms\n", BestMs(*f32, kIsaAuto));
  std::printf("QLinearConv reference     %8.3f ms\n", BestMs(*q(w7), kIsaAuto, "reference"));
  std::printf("QLinearConv int8 oneDNN   %8.3f ms (7-bit weights)\n", BestMs(*q(w7), kIsaAuto, "onednn-int8"));
  std::printf("QLinearConv f32-exact     %8.3f ms (7-bit weights)\n", BestMs(*q(w7), kIsaAuto, "onednn-f32"));
  std::printf("QLinearConv f32-exact     %8.3f ms (full-range weights)\n", BestMs(*q(w8), kIsaAuto, "onednn-f32"));
}

}  // namespace
}  // namespace qrt

namespace qrt {
namespace {

// Larger third-party models against ONNX Runtime 1.30 outputs (../shared/models
// MANIFEST.md: ort130_noopt_ref_0, no graph optimizations). ORT's MLAS requantizes in f32
// where ONNX's reference (and qrt) uses double, and runs float convolutions in another
// summation order, so allow `atol` (in output units); the maximum difference is printed.
struct OrtModelCase {
  const char* name;
  double atol;
};

class OrtModels : public ::testing::TestWithParam<OrtModelCase> {};

TEST_P(OrtModels, CloseToOrt) {
  const std::string base = testing::SharedModelsDir() + "/" + GetParam().name;
  if (!testing::FileExists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is not present";
  auto inputs = testing::ReadTestDataSet(base + "/ort130_noopt_ref_0", "input");
  auto expected = testing::ReadTestDataSet(base + "/ort130_noopt_ref_0", "output");
  ASSERT_TRUE(inputs.ok() && expected.ok());
  for (Isa isa : TiersThisCpuHas()) {
    auto got = testing::RunModelFile(base + ".onnx", *inputs, "none", isa);
    if (!got.ok() && got.status().code() == StatusCode::kUnsupported) GTEST_SKIP() << got.status().message();
    ASSERT_TRUE(got.ok()) << got.status().message();
    ASSERT_EQ(got->size(), expected->size());
    for (size_t k = 0; k < got->size(); ++k) {
      const Tensor& g = (*got)[k];
      const Tensor& e = (*expected)[k];
      ASSERT_EQ(g.dims(), e.dims());
      double max_diff = 0;
      int64_t n_diff = 0;
      for (int64_t i = 0; i < g.numel(); ++i) {
        const double d = std::fabs(g.GetAsDouble(i) - e.GetAsDouble(i));
        max_diff = std::max(max_diff, d);
        n_diff += d != 0;
      }
      std::printf("%s %s output %zu: max |diff| %g, %lld of %lld differ\n", GetParam().name,
                  std::string(IsaName(isa)).c_str(), k, max_diff, (long long)n_diff, (long long)g.numel());
      EXPECT_LE(max_diff, GetParam().atol) << GetParam().name << " " << IsaName(isa);
    }
  }
}

// qop_mobilefacenet_faces: 49 QLinearConv + QLinearMatMul; every quantized value matches
// ORT, only the final float ops differ in the last bit. qdq_mobilenetv2_224: float Conv
// between DQ and Q; a different f32 summation order flips some requantized values by one
// step and that propagates (ORT's own optimized and unoptimized runs differ by 0.65).
INSTANTIATE_TEST_SUITE_P(Shared, OrtModels,
                         ::testing::Values(OrtModelCase{"qop_mobilefacenet_faces", 1e-6},
                                           OrtModelCase{"qdq_mobilenetv2_224", 0.75},
                                           OrtModelCase{"ort_dynquant_matmulinteger", 0}),
                         [](const ::testing::TestParamInfo<OrtModelCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace qrt
