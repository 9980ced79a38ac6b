// Concat and Split on the 8-bit types quantized models move, plus the validation errors.
#include <gtest/gtest.h>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::AxisAttr;
using testing::Data;
using testing::Known;
using testing::Omitted;
using testing::RunSingleNode;
using testing::Values;

TEST(ConcatSplit, ConcatUint8AlongAxis1) {
  auto out = RunSingleNode(
      "Concat", 13,
      {Data(Tensor::FromVector<uint8_t>({1, 2}, {2, 1})), Data(Tensor::FromVector<uint8_t>({3, 4, 5, 6}, {2, 2}))},
      AxisAttr(1));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 3}));
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{1, 3, 4, 2, 5, 6}));
}

TEST(ConcatSplit, ConcatInt8WithAnEmptyInput) {
  auto out = RunSingleNode(
      "Concat", 11,
      {Data(Tensor::FromVector<int8_t>({-1, -2}, {1, 2})), Data(Tensor::Allocate(DataType::kInt8, {0, 2}).value()),
       Data(Tensor::FromVector<int8_t>({127, -128}, {1, 2}))},
      AxisAttr(-2));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int8_t>{-1, -2, 127, -128}));
}

TEST(ConcatSplit, ConcatRejectsRankAndShapeMismatch) {
  auto rank = RunSingleNode(
      "Concat", 13, {Data(Tensor::FromVector<float>({1, 2}, {2})), Data(Tensor::FromVector<float>({3, 4}, {1, 2}))},
      AxisAttr(0));
  ASSERT_FALSE(rank.ok());
  EXPECT_EQ(rank.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(testing::Contains(rank.status().message(), "rank")) << rank.status().message();
  auto shape = RunSingleNode(
      "Concat", 13,
      {Data(Tensor::FromVector<float>({1, 2}, {1, 2})), Data(Tensor::FromVector<float>({3, 4, 5}, {1, 3}))},
      AxisAttr(0));
  ASSERT_FALSE(shape.ok());
  EXPECT_TRUE(testing::Contains(shape.status().message(), "does not match")) << shape.status().message();
  auto dtype = RunSingleNode("Concat", 13,
                             {Data(Tensor::FromVector<uint8_t>({1}, {1})), Data(Tensor::FromVector<int8_t>({1}, {1}))},
                             AxisAttr(0));
  EXPECT_FALSE(dtype.ok());
}

TEST(ConcatSplit, SplitInt8WithSplitInputAndAttribute) {
  const Tensor x = Tensor::FromVector<int8_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  auto from_input =
      RunSingleNode("Split", 13, {Data(x), Known(Tensor::FromVector<int64_t>({1, 2}, {2}))}, AxisAttr(1), 2);
  ASSERT_TRUE(from_input.ok()) << from_input.status().message();
  EXPECT_EQ(Values<int8_t>((*from_input)[0]), (std::vector<int8_t>{1, 4}));
  EXPECT_EQ(Values<int8_t>((*from_input)[1]), (std::vector<int8_t>{2, 3, 5, 6}));

  Attributes a = AxisAttr(1);
  a.Set("split", std::vector<int64_t>{2, 1});
  auto from_attr = RunSingleNode("Split", 11, {Data(x)}, a, 2);
  ASSERT_TRUE(from_attr.ok()) << from_attr.status().message();
  EXPECT_EQ((*from_attr)[0].dims(), (Dims{2, 2}));
  EXPECT_EQ(Values<int8_t>((*from_attr)[1]), (std::vector<int8_t>{3, 6}));
}

TEST(ConcatSplit, SplitNumOutputsGivesASmallerLastPart) {
  std::vector<uint8_t> v = {0, 1, 2, 3, 4, 5, 6};
  Attributes a;
  a.Set("num_outputs", int64_t(3));
  auto out = RunSingleNode("Split", 18, {Data(Tensor::FromVector<uint8_t>(v, {7}))}, a, 3);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{0, 1, 2}));
  EXPECT_EQ(Values<uint8_t>((*out)[1]), (std::vector<uint8_t>{3, 4, 5}));
  EXPECT_EQ(Values<uint8_t>((*out)[2]), (std::vector<uint8_t>{6}));
}

TEST(ConcatSplit, SplitRejectsBadLengths) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3}, {3});
  auto sum = RunSingleNode("Split", 13, {Data(x), Known(Tensor::FromVector<int64_t>({1, 1}, {2}))}, AxisAttr(0), 2);
  ASSERT_FALSE(sum.ok());
  EXPECT_TRUE(testing::Contains(sum.status().message(), "sum to 2")) << sum.status().message();
  auto uneven = RunSingleNode("Split", 13, {Data(x), Omitted()}, AxisAttr(0), 2);
  EXPECT_FALSE(uneven.ok());
  auto axis = RunSingleNode("Split", 13, {Data(x)}, AxisAttr(1), 1);
  EXPECT_FALSE(axis.ok());
}

}  // namespace
}  // namespace qrt
