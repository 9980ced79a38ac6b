// Slice: negative steps and clamping, 8-bit types, starts given as data, and the validation
// errors.
#include <gtest/gtest.h>

#include <limits>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::I64;
using testing::Known;
using testing::Omitted;
using testing::RunSingleNode;
using testing::Values;

TEST(Slice, SliceUint8NegativeStepFromTheEnd) {
  std::vector<uint8_t> v = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  auto out = RunSingleNode("Slice", 13,
                           {Data(Tensor::FromVector<uint8_t>(v, {10})), Known(I64({-1})),
                            Known(I64({std::numeric_limits<int64_t>::min()})), Omitted(), Known(I64({-3}))},
                           {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{9, 6, 3, 0}));
}

TEST(Slice, SliceClampsAndTakesNegativeAxes) {
  // x: [2, 4] int8; axis -1 from 1 to "infinity" with step 2; axis 0 from -100 (-> 0) to 1.
  auto out =
      RunSingleNode("Slice", 13,
                    {Data(Tensor::FromVector<int8_t>({0, 1, 2, 3, 4, 5, 6, 7}, {2, 4})), Known(I64({1, -100})),
                     Known(I64({std::numeric_limits<int64_t>::max(), 1})), Known(I64({-1, 0})), Known(I64({2, 1}))},
                    {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{1, 2}));
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int8_t>{1, 3}));
}

TEST(Slice, SliceStartsFedAsDataAreSpecialised) {
  auto out = RunSingleNode("Slice", 13,
                           {Data(Tensor::FromVector<float>({1, 2, 3, 4}, {4})), Data(I64({1})), Data(I64({3}))}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{2, 3}));
}

TEST(Slice, SliceRejectsBadAxesAndZeroStep) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2});
  auto range = RunSingleNode("Slice", 13, {Data(x), Known(I64({0})), Known(I64({1})), Known(I64({2}))}, {});
  ASSERT_FALSE(range.ok());
  EXPECT_TRUE(testing::Contains(range.status().message(), "out of range")) << range.status().message();
  auto repeated =
      RunSingleNode("Slice", 13, {Data(x), Known(I64({0, 0})), Known(I64({1, 1})), Known(I64({1, -1}))}, {});
  ASSERT_FALSE(repeated.ok());
  EXPECT_TRUE(testing::Contains(repeated.status().message(), "repeated")) << repeated.status().message();
  auto step =
      RunSingleNode("Slice", 13, {Data(x), Known(I64({0})), Known(I64({1})), Known(I64({0})), Known(I64({0}))}, {});
  EXPECT_FALSE(step.ok());
  auto lengths = RunSingleNode("Slice", 13, {Data(x), Known(I64({0, 0})), Known(I64({1}))}, {});
  EXPECT_FALSE(lengths.ok());
}

}  // namespace
}  // namespace qrt
