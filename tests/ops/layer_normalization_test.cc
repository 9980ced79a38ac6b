// LayerNormalization: the statistics outputs, axes, no bias, short rows, errors. The float32
// bits of ONNX Runtime are checked in tests/data/float_orders; here, the definition.
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

TEST(LayerNormalization, NormalizesTrailingAxesAndReportsStatistics) {
  for (int64_t n : {5, 8, 13, 64}) {  // the short-row path and the MLAS kernel with and without a tail
    std::vector<float> x(static_cast<size_t>(2 * n)), scale(static_cast<size_t>(n)), bias(static_cast<size_t>(n));
    for (int64_t i = 0; i < 2 * n; ++i) x[size_t(i)] = std::sin(float(i)) * 3 + float(i % 3);
    for (int64_t i = 0; i < n; ++i) scale[size_t(i)] = 0.5f + float(i) / float(n), bias[size_t(i)] = float(i % 4) - 1;
    Attributes a;
    a.Set("epsilon", 1e-3f);
    auto out = RunSingleNode("LayerNormalization", 17,
                             {Data(Tensor::FromVector<float>(x, {2, n})), Known(Tensor::FromVector<float>(scale, {n})),
                              Known(Tensor::FromVector<float>(bias, {n}))},
                             a, 3);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ((*out)[1].dims(), (Dims{2, 1}));
    for (int64_t r = 0; r < 2; ++r) {
      double mean = 0, var = 0;
      for (int64_t i = 0; i < n; ++i) mean += x[size_t(r * n + i)];
      mean /= double(n);
      for (int64_t i = 0; i < n; ++i) var += (x[size_t(r * n + i)] - mean) * (x[size_t(r * n + i)] - mean);
      const double inv = 1 / std::sqrt(var / double(n) + 1e-3);
      EXPECT_NEAR(Values<float>((*out)[1])[size_t(r)], mean, 1e-5) << n;
      EXPECT_NEAR(Values<float>((*out)[2])[size_t(r)], inv, 1e-5) << n;
      for (int64_t i = 0; i < n; ++i) {
        const double want = (x[size_t(r * n + i)] - mean) * inv * scale[size_t(i)] + bias[size_t(i)];
        EXPECT_NEAR(Values<float>((*out)[0])[size_t(r * n + i)], want, 1e-5) << n << " " << i;
      }
    }
  }
}

TEST(LayerNormalization, AxisAndErrors) {
  const Tensor x = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2});
  Attributes a;
  a.Set("axis", int64_t(1));
  auto out =
      RunSingleNode("LayerNormalization", 17, {Data(x), Known(Tensor::FromVector<float>({1, 1, 1, 1}, {2, 2}))}, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::vector<float> y = Values<float>((*out)[0]);
  EXPECT_NEAR(y[0], -1.3416, 1e-3);  // (1 - 2.5) / sqrt(1.25)
  EXPECT_NEAR(y[7], 1.3416, 1e-3);
  EXPECT_FALSE(
      RunSingleNode("LayerNormalization", 17, {Data(x), Known(Tensor::FromVector<float>({1, 1, 1}, {3}))}, {}).ok());
  EXPECT_FALSE(
      RunSingleNode("LayerNormalization", 17,
                    {Data(Tensor::FromVector<int32_t>({1}, {1})), Known(Tensor::FromVector<int32_t>({1}, {1}))}, {})
          .ok());
  a.Set("axis", int64_t(3));
  EXPECT_FALSE(RunSingleNode("LayerNormalization", 17, {Data(x), Known(Tensor::FromVector<float>({1}, {1}))}, a).ok());
}

}  // namespace
}  // namespace qrt
