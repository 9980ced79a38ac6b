// Softmax: the 2-D coercion before opset 13, large inputs, a bad axis.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::AxisAttr;
using testing::Data;
using testing::Known;
using testing::Omitted;
using testing::RunSingleNode;
using testing::Values;

TEST(Softmax, SoftmaxBeforeOpset13CoercesTo2D) {
  // x [1, 2, 2] = log([1, 2, 3, 4]). Opset 11, axis 1: one softmax over all 4 elements.
  const Tensor x = Tensor::FromVector<float>({std::log(1.f), std::log(2.f), std::log(3.f), std::log(4.f)}, {1, 2, 2});
  auto old = RunSingleNode("Softmax", 11, {Data(x)}, AxisAttr(1));
  ASSERT_TRUE(old.ok()) << old.status().message();
  const std::vector<float> got_old = Values<float>((*old)[0]);
  const float want_old[] = {0.1f, 0.2f, 0.3f, 0.4f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got_old[size_t(i)], want_old[i], 1e-6f) << i;
  // Opset 13, axis 1: softmax over axis 1 only, i.e. over {1, 3} and over {2, 4}.
  auto now = RunSingleNode("Softmax", 13, {Data(x)}, AxisAttr(1));
  ASSERT_TRUE(now.ok()) << now.status().message();
  const std::vector<float> got = Values<float>((*now)[0]);
  const float want[] = {0.25f, 1.f / 3, 0.75f, 2.f / 3};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(got[size_t(i)], want[i], 1e-6f) << i;
}

TEST(Softmax, SoftmaxLargeInputsAndBadAxis) {
  auto out = RunSingleNode("Softmax", 13, {Data(Tensor::FromVector<float>({1000.f, 1000.f}, {2}))}, {});
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0.5f, 0.5f}));
  auto bad = RunSingleNode("Softmax", 13, {Data(Tensor::FromVector<float>({1, 2}, {2}))}, AxisAttr(1));
  EXPECT_FALSE(bad.ok());
  auto dtype = RunSingleNode("Softmax", 13, {Data(Tensor::FromVector<uint8_t>({1, 2}, {2}))}, {});
  EXPECT_FALSE(dtype.ok());
}

}  // namespace
}  // namespace qrt
