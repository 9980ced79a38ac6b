// MelWeightMatrix on a case worked by hand (the points land on spectrum bins 0, 1, 2, 3), the
// output dtype, and bad inputs refused. The ONNX node test test_melweightmatrix runs in the
// conformance suite.
#include <gtest/gtest.h>

#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Known;
using testing::RunSingleNode;

std::vector<testing::NodeArg> Args(int32_t mel_bins, int32_t dft, int32_t rate, float lower, float upper) {
  return {Known(Tensor::FromVector<int32_t>({mel_bins}, {})), Known(Tensor::FromVector<int32_t>({dft}, {})),
          Known(Tensor::FromVector<int32_t>({rate}, {})), Known(Tensor::FromVector<float>({lower}, {})),
          Known(Tensor::FromVector<float>({upper}, {}))};
}

TEST(MelWeightMatrix, TwoFiltersWorkedByHand) {
  // mel(4 Hz) = 6.4232; four points 1.6058 mel apart -> 0, 0.998, 1.9996, 2.9993 Hz -> bins
  // floor(9 f / 8) = 0, 1, 2, 3. Filter 0 rises over bins 0..1 and falls to bin 2; filter 1 over
  // 1..2 and 3.
  auto y = RunSingleNode("MelWeightMatrix", 17, Args(2, 8, 8, 0.f, 4.f), {});
  ASSERT_TRUE(y.ok()) << y.status().message();
  ASSERT_EQ((*y)[0].dims(), (Dims{5, 2}));
  const std::vector<float> got((*y)[0].data<float>(), (*y)[0].data<float>() + 10);
  EXPECT_EQ(got, (std::vector<float>{0, 0, 1, 0, 0, 1, 0, 0, 0, 0}));
  Attributes f64;
  f64.Set("output_datatype", int64_t(11));
  auto d = RunSingleNode("MelWeightMatrix", 17, Args(2, 8, 8, 0.f, 4.f), f64);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ((*d)[0].dtype(), DataType::kFloat64);
}

TEST(MelWeightMatrix, BadInputsAreRefused) {
  EXPECT_FALSE(RunSingleNode("MelWeightMatrix", 17, Args(0, 8, 8, 0.f, 4.f), {}).ok());
  EXPECT_FALSE(RunSingleNode("MelWeightMatrix", 17, Args(2, 8, 0, 0.f, 4.f), {}).ok());
  EXPECT_FALSE(RunSingleNode("MelWeightMatrix", 17, Args(2, 8, 8, 5.f, 4.f), {}).ok());
  Attributes ints;
  ints.Set("output_datatype", int64_t(6));
  EXPECT_FALSE(RunSingleNode("MelWeightMatrix", 17, Args(2, 8, 8, 0.f, 4.f), ints).ok());
}

}  // namespace
}  // namespace qrt
