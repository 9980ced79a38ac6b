// DynamicQuantizeLinear against values worked out by hand from the ONNX formula: ties to
// even, the range always containing 0, and inputs without a range (all zero, NaN).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::RunSingleNode;
using testing::Values;

TEST(DynamicQuantizeLinear, RoundsHalfToEven) {
  // min 0, max 255: scale 1, zero point 0; 0.5 -> 0, 1.5 -> 2, 2.5 -> 2.
  auto out = RunSingleNode("DynamicQuantizeLinear", 11, {Data(Tensor::FromVector<float>({0.5f, 1.5f, 2.5f, 255}, {4}))},
                           {}, 3);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{0, 2, 2, 255}));
  EXPECT_EQ((*out)[1].data<float>()[0], 1.f);
  EXPECT_EQ((*out)[2].data<uint8_t>()[0], 0);
}

TEST(DynamicQuantizeLinear, NegativeRange) {
  // min -1, max 2.5: scale = 3.5/255, zero point = rint(1/scale) = rint(72.857) = 73;
  // y = rint(x/scale) + 73 saturated: -73+73 = 0, 73, 73+73 = 146, 182+73 -> 255.
  auto out =
      RunSingleNode("DynamicQuantizeLinear", 11, {Data(Tensor::FromVector<float>({-1, 0, 1, 2.5f}, {4}))}, {}, 3);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[1].data<float>()[0], 3.5f / 255.f);
  EXPECT_EQ((*out)[2].data<uint8_t>()[0], 73);
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{0, 73, 146, 255}));
}

TEST(DynamicQuantizeLinear, AllZeroAndNaN) {
  auto zero = RunSingleNode("DynamicQuantizeLinear", 11, {Data(Tensor::FromVector<float>({0, 0}, {2}))}, {}, 3);
  ASSERT_TRUE(zero.ok()) << zero.status().message();
  EXPECT_EQ((*zero)[1].data<float>()[0], 0.f);
  EXPECT_EQ((*zero)[2].data<uint8_t>()[0], 0);
  EXPECT_EQ(Values<uint8_t>((*zero)[0]), (std::vector<uint8_t>{0, 0}));
  // NaN takes no part in the range and quantizes to the lowest code, 0 (ONNX Runtime gives
  // 0, 0, 255 here too).
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto with_nan =
      RunSingleNode("DynamicQuantizeLinear", 11, {Data(Tensor::FromVector<float>({-255, nan, 0}, {3}))}, {}, 3);
  ASSERT_TRUE(with_nan.ok()) << with_nan.status().message();
  EXPECT_EQ((*with_nan)[1].data<float>()[0], 1.f);
  EXPECT_EQ((*with_nan)[2].data<uint8_t>()[0], 255);
  EXPECT_EQ(Values<uint8_t>((*with_nan)[0]), (std::vector<uint8_t>{0, 0, 255}));
}

// Every tier against the definition computed element by element here (in double where the
// definition's sums are exact), on lengths around the kernels' widths and inputs of each sign.
TEST(DynamicQuantizeLinear, EveryTierMatchesTheDefinition) {
  std::mt19937 rng(7);
  for (int64_t n : {1, 5, 31, 32, 33, 257, 4099, 100000}) {
    for (float lo_bound : {-3.f, 0.5f, -1e-3f}) {
      std::uniform_real_distribution<float> u(lo_bound, lo_bound < 0 ? 2.f : 9.f);
      Tensor x = Tensor::Allocate(DataType::kFloat32, {n}).value();
      for (int64_t i = 0; i < n; ++i) x.data<float>()[i] = u(rng);
      if (n > 40) x.data<float>()[17] = std::numeric_limits<float>::quiet_NaN();
      float lo = 0, hi = 0;
      for (int64_t i = 0; i < n; ++i) {
        const float v = x.data<float>()[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
      }
      const float scale = (hi - lo) / 255.f;
      const double zp = std::min(255.0, std::max(0.0, double(std::nearbyint(0.f - lo / scale))));
      std::vector<uint8_t> want(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const double v = double(std::nearbyint(x.data<float>()[i] / scale)) + zp;
        want[size_t(i)] = uint8_t(v >= 0 ? (v > 255 ? 255 : v) : 0);  // NaN: 0
      }
      for (Isa isa : TiersThisCpuHas()) {
        auto out = RunSingleNode("DynamicQuantizeLinear", 11, {Data(x.Clone())}, {}, 3, isa);
        ASSERT_TRUE(out.ok()) << out.status().message();
        EXPECT_EQ(Values<uint8_t>((*out)[0]), want) << "n " << n << " at " << IsaName(isa);
        EXPECT_EQ((*out)[1].data<float>()[0], scale);
        EXPECT_EQ((*out)[2].data<uint8_t>()[0], uint8_t(zp));
      }
    }
  }
}

}  // namespace
}  // namespace qrt
