// DynamicQuantizeLinear against values worked out by hand from the ONNX formula: ties to
// even, the range always containing 0, and inputs without a range (all zero, NaN).
#include <gtest/gtest.h>

#include <limits>

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

}  // namespace
}  // namespace qrt
