// BatchNormalization in inference and training mode, checked against values worked out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::RunSingleNode;
using testing::Values;

TEST(Normalization, BatchNormInference) {
  // Channel 0: (x - 1) / sqrt(3 + 1) * 2 + 0.5; channel 1: (x - 0) / sqrt(0 + 1) * 1 - 1.
  Attributes a;
  a.Set("epsilon", 1.f);
  auto out =
      RunSingleNode("BatchNormalization", 15,
                    {Data(Tensor::FromVector<float>({1, 3, 5, -2}, {1, 2, 2})),
                     Known(Tensor::FromVector<float>({2, 1}, {2})), Known(Tensor::FromVector<float>({0.5f, -1}, {2})),
                     Known(Tensor::FromVector<float>({1, 0}, {2})), Known(Tensor::FromVector<float>({3, 0}, {2}))},
                    a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]), (std::vector<float>{0.5f, 2.5f, 4, -3}));
}

TEST(Normalization, BatchNormTrainingUsesTheBatchsStatistics) {
  // One channel, x = [1, 3, 5, 7]: mean 4, population variance 5; y = (x - 4) / sqrt(5 + 1);
  // running mean 10 * 0.9 + 4 * 0.1 = 9.4, running var 2 * 0.9 + 5 * 0.1 = 2.3.
  Attributes train;
  train.Set("training_mode", int64_t(1));
  train.Set("epsilon", 1.f);
  auto t = RunSingleNode("BatchNormalization", 15,
                         {Data(Tensor::FromVector<float>({1, 3, 5, 7}, {2, 1, 2})),
                          Known(Tensor::FromVector<float>({1}, {1})), Known(Tensor::FromVector<float>({0}, {1})),
                          Known(Tensor::FromVector<float>({10}, {1})), Known(Tensor::FromVector<float>({2}, {1}))},
                         train, 3);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const float d = std::sqrt(6.f);
  EXPECT_EQ(Values<float>((*t)[0]), (std::vector<float>{-3 / d, -1 / d, 1 / d, 3 / d}));
  EXPECT_FLOAT_EQ((*t)[1].data<float>()[0], 9.4f);
  EXPECT_FLOAT_EQ((*t)[2].data<float>()[0], 2.3f);
}

TEST(Normalization, BatchNormStatisticsOutputsNeedTrainingAndShapesAreChecked) {
  const Tensor x = Tensor::FromVector<float>({1, 2}, {1, 2});
  const Tensor p = Tensor::FromVector<float>({1, 1}, {2});
  auto t = RunSingleNode("BatchNormalization", 15, {Data(x), Known(p), Known(p), Known(p), Known(p)}, {}, 3);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kUnsupported);
  const Tensor bad = Tensor::FromVector<float>({1, 1, 1}, {3});
  auto s = RunSingleNode("BatchNormalization", 15, {Data(x), Known(p), Known(bad), Known(p), Known(p)}, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace qrt
