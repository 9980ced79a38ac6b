// Transpose: int8, the default reversed permutation, a bad permutation.
#include <gtest/gtest.h>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::RunSingleNode;
using testing::Values;

TEST(Transpose, TransposeInt8) {
  Attributes a;
  a.Set("perm", std::vector<int64_t>{1, 0});
  auto out = RunSingleNode("Transpose", 13, {Data(Tensor::FromVector<int8_t>({1, 2, 3, 4, 5, 6}, {2, 3}))}, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{3, 2}));
  EXPECT_EQ(Values<int8_t>((*out)[0]), (std::vector<int8_t>{1, 4, 2, 5, 3, 6}));
}

TEST(Transpose, TransposeDefaultReversesAndBadPermFails) {
  // [1, 2, 2] -> [2, 2, 1]
  auto out = RunSingleNode("Transpose", 13, {Data(Tensor::FromVector<uint8_t>({1, 2, 3, 4}, {1, 2, 2}))}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 2, 1}));
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{1, 3, 2, 4}));
  Attributes a;
  a.Set("perm", std::vector<int64_t>{0, 0, 1});
  auto bad = RunSingleNode("Transpose", 13, {Data(Tensor::FromVector<uint8_t>({1, 2, 3, 4}, {1, 2, 2}))}, a);
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(testing::Contains(bad.status().message(), "not a permutation")) << bad.status().message();
}

}  // namespace
}  // namespace qrt
