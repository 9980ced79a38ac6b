// DFT/STFT (round trip, onesided bins, a pure tone) and RoiAlign (a constant image, bad
// batch indices, a roi too large to sample).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::Omitted;
using testing::RunSingleNode;
using testing::Values;

TEST(Dft, ToneRoundTripAndOnesided) {
  const int n = 8;
  std::vector<float> x(n);
  for (int j = 0; j < n; ++j) x[size_t(j)] = std::cos(2 * 3.14159265358979f * 2 * float(j) / n);  // bin 2
  const Tensor signal = Tensor::FromVector<float>(x, {1, n, 1});
  auto f = RunSingleNode("DFT", 17, {Data(signal)}, {});
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ((*f)[0].dims(), (Dims{1, n, 2}));
  const std::vector<float> spec = Values<float>((*f)[0]);
  for (int k = 0; k < n; ++k) {
    const float want = (k == 2 || k == n - 2) ? n / 2.f : 0.f;
    EXPECT_NEAR(spec[size_t(2 * k)], want, 1e-5) << k;
    EXPECT_NEAR(spec[size_t(2 * k + 1)], 0.f, 1e-5) << k;
  }
  Attributes inv;
  inv.Set("inverse", int64_t(1));
  auto back = RunSingleNode("DFT", 17, {Data((*f)[0])}, inv);
  ASSERT_TRUE(back.ok()) << back.status().message();
  for (int j = 0; j < n; ++j) EXPECT_NEAR(Values<float>((*back)[0])[size_t(2 * j)], x[size_t(j)], 1e-6);
  Attributes one;
  one.Set("onesided", int64_t(1));
  auto half = RunSingleNode("DFT", 17, {Data(signal)}, one);
  ASSERT_TRUE(half.ok());
  EXPECT_EQ((*half)[0].dims(), (Dims{1, n / 2 + 1, 2}));
  auto stft = RunSingleNode(
      "STFT", 17,
      {Data(Tensor::FromVector<float>(std::vector<float>(20, 1.f), {1, 20, 1})),
       Known(Tensor::FromVector<int64_t>({4}, {})), Omitted(), Known(Tensor::FromVector<int64_t>({8}, {}))},
      {});
  ASSERT_TRUE(stft.ok()) << stft.status().message();
  EXPECT_EQ((*stft)[0].dims(), (Dims{1, 4, 5, 2}));      // (20 - 8) / 4 + 1 frames, 8 / 2 + 1 bins
  EXPECT_NEAR(Values<float>((*stft)[0])[0], 8.f, 1e-5);  // the DC bin of a frame of ones
}

TEST(RoiAlign, ConstantImageAndErrors) {
  const Tensor x = Tensor::FromVector<float>(std::vector<float>(2 * 3 * 4 * 5, 2.5f), {2, 3, 4, 5});
  const Tensor rois = Tensor::FromVector<float>({0, 0, 3, 2, 1, 1, 4, 3}, {2, 4});
  Attributes a;
  a.Set("output_height", int64_t(2));
  a.Set("output_width", int64_t(3));
  auto out = RunSingleNode("RoiAlign", 16, {Data(x), Data(rois), Data(Tensor::FromVector<int64_t>({1, 0}, {2}))}, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{2, 3, 2, 3}));
  for (float v : Values<float>((*out)[0])) EXPECT_NEAR(v, 2.5f, 1e-6);  // inside the image: the constant
  EXPECT_FALSE(
      RunSingleNode("RoiAlign", 16, {Data(x), Data(rois), Data(Tensor::FromVector<int64_t>({2, 0}, {2}))}, a).ok());
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_FALSE(RunSingleNode("RoiAlign", 16,
                             {Data(x), Data(Tensor::FromVector<float>({0, 0, inf, inf}, {1, 4})),
                              Data(Tensor::FromVector<int64_t>({0}, {1}))},
                             a)
                   .ok());
}

}  // namespace
}  // namespace qrt
