// Gather: negative indices, a scalar index, out-of-range indices at plan and at run time.
#include <gtest/gtest.h>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::RunSingleNode;
using testing::Values;

TEST(Gather, GatherUint8NegativeIndicesAlongAxis1) {
  Attributes a;
  a.Set("axis", int64_t(1));
  auto out = RunSingleNode("Gather", 13,
                           {Data(Tensor::FromVector<uint8_t>({10, 11, 12, 20, 21, 22}, {2, 3})),
                            Known(Tensor::FromVector<int32_t>({-1, 0, -3, 1}, {2, 2}))},
                           a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 2, 2}));
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{12, 10, 10, 11, 22, 20, 20, 21}));
}

TEST(Gather, GatherScalarIndexDropsTheAxis) {
  auto out = RunSingleNode(
      "Gather", 13,
      {Data(Tensor::FromVector<int8_t>({1, 2, 3, 4}, {2, 2})), Known(Tensor::FromVector<int64_t>({1}, {}))}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2}));
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int8_t>{3, 4}));
}

TEST(Gather, GatherIndexOutOfRangeFailsAtPlanTimeWhenKnown) {
  auto out = RunSingleNode(
      "Gather", 13, {Data(Tensor::FromVector<float>({1, 2, 3}, {3})), Known(Tensor::FromVector<int64_t>({0, 3}, {2}))},
      {});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(testing::Contains(out.status().message(), "out of range")) << out.status().message();
}

TEST(Gather, GatherIndexOutOfRangeFailsAtRunTimeWhenData) {
  // More indices than the planner specialises on, so they stay run-time data.
  std::vector<int64_t> idx(100, 0);
  idx[57] = -4;
  auto out = RunSingleNode(
      "Gather", 13, {Data(Tensor::FromVector<float>({1, 2, 3}, {3})), Data(Tensor::FromVector<int64_t>(idx, {100}))},
      {});
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(testing::Contains(out.status().message(), "index -4 is out of range")) << out.status().message();
  idx[57] = -3;
  auto ok = RunSingleNode(
      "Gather", 13, {Data(Tensor::FromVector<float>({1, 2, 3}, {3})), Data(Tensor::FromVector<int64_t>(idx, {100}))},
      {});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)[0].data<float>()[57], 1.f);
  EXPECT_EQ((*ok)[0].data<float>()[0], 1.f);
}

}  // namespace
}  // namespace qrt
