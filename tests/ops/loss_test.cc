// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss: reductions, weights, ignore_index,
// the log-probability output, bad targets.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::RunSingleNode;
using testing::Values;

TEST(Loss, NllWeightsAndIgnoreIndex) {
  const Tensor x = Tensor::FromVector<float>({-1, -2, -3, -4, -5, -6}, {2, 3});
  const Tensor t = Tensor::FromVector<int64_t>({2, 0}, {2});
  const Tensor w = Tensor::FromVector<float>({0.5f, 1, 2}, {3});
  Attributes none;
  none.Set("reduction", std::string("none"));
  auto per = RunSingleNode("NegativeLogLikelihoodLoss", 13, {Data(x), Data(t), Known(w)}, none);
  ASSERT_TRUE(per.ok()) << per.status().message();
  EXPECT_EQ(Values<float>((*per)[0]), (std::vector<float>{6, 2}));
  auto mean = RunSingleNode("NegativeLogLikelihoodLoss", 13, {Data(x), Data(t), Known(w)}, {});
  ASSERT_TRUE(mean.ok());
  EXPECT_FLOAT_EQ(Values<float>((*mean)[0])[0], 8.f / 2.5f);  // weighted mean
  Attributes ignore;
  ignore.Set("ignore_index", int64_t(0));
  auto ig = RunSingleNode("NegativeLogLikelihoodLoss", 13, {Data(x), Data(t)}, ignore);
  ASSERT_TRUE(ig.ok());
  EXPECT_FLOAT_EQ(Values<float>((*ig)[0])[0], 3.f);
  EXPECT_FALSE(
      RunSingleNode("NegativeLogLikelihoodLoss", 13, {Data(x), Data(Tensor::FromVector<int64_t>({3, 0}, {2}))}, {})
          .ok());
}

TEST(Loss, SoftmaxCrossEntropyEqualsNllOfLogSoftmax) {
  const std::vector<float> s = {1, 2, 3, 0.5f, 0.5f, 4};
  auto out = RunSingleNode("SoftmaxCrossEntropyLoss", 13,
                           {Data(Tensor::FromVector<float>(s, {2, 3})), Data(Tensor::FromVector<int64_t>({0, 2}, {2}))},
                           {}, 2);
  ASSERT_TRUE(out.ok()) << out.status().message();
  double want = 0;
  for (int r = 0; r < 2; ++r) {
    double sum = 0;
    for (int j = 0; j < 3; ++j) sum += std::exp(double(s[size_t(r * 3 + j)]));
    const int label = r == 0 ? 0 : 2;
    want -= double(s[size_t(r * 3 + label)]) - std::log(sum);
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(Values<float>((*out)[1])[size_t(r * 3 + j)], s[size_t(r * 3 + j)] - std::log(sum), 1e-6);
    }
  }
  EXPECT_NEAR(Values<float>((*out)[0])[0], want / 2, 1e-6);
}

}  // namespace
}  // namespace qrt
