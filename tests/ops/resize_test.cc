// Resize: nearest on 8-bit types (every dtype takes the byte-copy path), linear values
// worked out by hand, tf_crop_and_resize extrapolation, opset 10, and rejected inputs.
#include <gtest/gtest.h>

#include "tests/ops/single_node.h"

namespace qrt {
namespace {

using testing::Data;
using testing::Known;
using testing::Omitted;
using testing::RunSingleNode;
using testing::Values;

Attributes ResizeAttrs(const char* mode, const char* coord, const char* nearest = "round_prefer_floor") {
  Attributes a;
  a.Set("mode", std::string(mode));
  a.Set("coordinate_transformation_mode", std::string(coord));
  a.Set("nearest_mode", std::string(nearest));
  return a;
}

TEST(Resize, NearestUint8Upsample2xAsymmetricFloor) {
  // The yolov8 upsample: scales [1, 1, 2, 2], asymmetric, floor.
  auto out = RunSingleNode("Resize", 13,
                           {Data(Tensor::FromVector<uint8_t>({1, 2, 3, 4}, {1, 1, 2, 2})), Omitted(),
                            Known(Tensor::FromVector<float>({1, 1, 2, 2}, {4}))},
                           ResizeAttrs("nearest", "asymmetric", "floor"));
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ((*out)[0].dims(), (Dims{1, 1, 4, 4}));
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

TEST(Resize, NearestInt8SizesHalfPixelRoundingModes) {
  // 4 -> 3 with half_pixel: x = (o + 0.5) * 4/3 - 0.5 = 1/6, 1.5, 17/6.
  const Tensor x = Tensor::FromVector<int8_t>({-4, -3, -2, -1}, {4});
  const Tensor sizes = Tensor::FromVector<int64_t>({3}, {1});
  auto floor_pref = RunSingleNode("Resize", 13, {Data(x), Omitted(), Omitted(), Known(sizes)},
                                  ResizeAttrs("nearest", "half_pixel", "round_prefer_floor"));
  ASSERT_TRUE(floor_pref.ok()) << floor_pref.status().message();
  EXPECT_EQ(Values<int8_t>((*floor_pref)[0]), (std::vector<int8_t>{-4, -3, -1}));
  auto ceil_pref = RunSingleNode("Resize", 13, {Data(x), Omitted(), Omitted(), Known(sizes)},
                                 ResizeAttrs("nearest", "half_pixel", "round_prefer_ceil"));
  ASSERT_TRUE(ceil_pref.ok()) << ceil_pref.status().message();
  EXPECT_EQ(Values<int8_t>((*ceil_pref)[0]), (std::vector<int8_t>{-4, -2, -1}));
  auto ceil = RunSingleNode("Resize", 13, {Data(x), Omitted(), Omitted(), Known(sizes)},
                            ResizeAttrs("nearest", "half_pixel", "ceil"));
  ASSERT_TRUE(ceil.ok()) << ceil.status().message();
  EXPECT_EQ(Values<int8_t>((*ceil)[0]), (std::vector<int8_t>{-3, -2, -1}));
}

TEST(Resize, LinearAlignCornersAndHalfPixel) {
  const Tensor x = Tensor::FromVector<float>({0, 10}, {1, 2});
  auto corners =
      RunSingleNode("Resize", 13, {Data(x), Omitted(), Omitted(), Known(Tensor::FromVector<int64_t>({1, 3}, {2}))},
                    ResizeAttrs("linear", "align_corners"));
  ASSERT_TRUE(corners.ok()) << corners.status().message();
  EXPECT_EQ(Values<float>((*corners)[0]), (std::vector<float>{0, 5, 10}));
  // half_pixel 2 -> 4: x = -0.25 (edge), 0.25, 0.75, 1.25 (edge).
  auto half = RunSingleNode("Resize", 13, {Data(x), Omitted(), Known(Tensor::FromVector<float>({1, 2}, {2}))},
                            ResizeAttrs("linear", "half_pixel"));
  ASSERT_TRUE(half.ok()) << half.status().message();
  EXPECT_EQ(Values<float>((*half)[0]), (std::vector<float>{0, 2.5f, 7.5f, 10}));
}

TEST(Resize, CubicKeepsConstantsAndLinesOnEveryAxis) {
  // Cubic weights sum to 1, and Keys' kernel reproduces a linear ramp away from the edges;
  // exclude_outside renormalizes at the edges, so a constant stays constant there too.
  Attributes a = ResizeAttrs("cubic", "asymmetric");
  a.Set("exclude_outside", int64_t(1));
  auto flat = RunSingleNode("Resize", 13,
                            {Data(Tensor::FromVector<float>({3, 3, 3, 3, 3, 3}, {1, 1, 2, 3})), Omitted(),
                             Known(Tensor::FromVector<float>({1, 1, 2, 2}, {4}))},
                            a);
  ASSERT_TRUE(flat.ok()) << flat.status().message();
  EXPECT_EQ((*flat)[0].dims(), (Dims{1, 1, 4, 6}));
  for (float v : Values<float>((*flat)[0])) EXPECT_NEAR(v, 3.f, 1e-6f);
  auto ramp = RunSingleNode(
      "Resize", 13,
      {Data(Tensor::FromVector<float>({0, 1, 2, 3, 4, 5}, {6})), Omitted(), Known(Tensor::FromVector<float>({2}, {1}))},
      ResizeAttrs("cubic", "asymmetric"));
  ASSERT_TRUE(ramp.ok()) << ramp.status().message();
  const std::vector<float> r = Values<float>((*ramp)[0]);
  for (int o = 2; o <= 7; ++o) EXPECT_NEAR(r[size_t(o)], o / 2.f, 1e-6f) << o;
}

TEST(Resize, TfCropAndResizeExtrapolatesOutsideTheInput) {
  Attributes a = ResizeAttrs("nearest", "tf_crop_and_resize");
  a.Set("extrapolation_value", 200.f);
  // roi [0.5, 1.5] of a 3-element axis, 3 outputs: x = 1, 2, 3 (outside).
  auto out = RunSingleNode(
      "Resize", 13,
      {Data(Tensor::FromVector<uint8_t>({7, 8, 9}, {3})), Known(Tensor::FromVector<float>({0.5f, 1.5f}, {2})),
       Omitted(), Known(Tensor::FromVector<int64_t>({3}, {1}))},
      a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{8, 9, 200}));
}

TEST(Resize, Opset10NearestCeilsWhenShrinking) {
  Attributes a;
  a.Set("mode", std::string("nearest"));
  // scale 0.75 on 4: x = 0, 4/3, 8/3, and a shrinking axis rounds up (ONNX Runtime's
  // Resize-10 rule) -> 0, 2, 3.
  auto out = RunSingleNode(
      "Resize", 10,
      {Data(Tensor::FromVector<uint8_t>({5, 6, 7, 8}, {4})), Known(Tensor::FromVector<float>({0.75f}, {1}))}, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<uint8_t>((*out)[0]), (std::vector<uint8_t>{5, 7, 8}));
  // Growing, it truncates: scale 1.5 on 2 -> x = 0, 2/3, 4/3 -> 0, 0, 1.
  auto up = RunSingleNode(
      "Resize", 10, {Data(Tensor::FromVector<uint8_t>({5, 6}, {2})), Known(Tensor::FromVector<float>({1.5f}, {1}))}, a);
  ASSERT_TRUE(up.ok()) << up.status().message();
  EXPECT_EQ(Values<uint8_t>((*up)[0]), (std::vector<uint8_t>{5, 5, 6}));
}

TEST(Resize, LinearAlignCornersUsesTheOutputLength) {
  // 9 -> floor(9 * 1.5) = 13: x = o * 8 / 12, so every third output lands on an input
  // (o = 3 -> 2, o = 6 -> 4). With length_resized = 13.5 (in * scale) x(3) would be 1.92.
  std::vector<float> ramp(9);
  for (int i = 0; i < 9; ++i) ramp[size_t(i)] = float(10 * i);
  auto out = RunSingleNode(
      "Resize", 13,
      {Data(Tensor::FromVector<float>(ramp, {1, 9})), Omitted(), Known(Tensor::FromVector<float>({1, 1.5f}, {2}))},
      ResizeAttrs("linear", "align_corners"));
  ASSERT_TRUE(out.ok()) << out.status().message();
  const std::vector<float> y = Values<float>((*out)[0]);
  ASSERT_EQ(y.size(), 13u);
  EXPECT_EQ(y[3], 20.f);
  EXPECT_EQ(y[6], 40.f);
  EXPECT_EQ(y[12], 80.f);
  EXPECT_FLOAT_EQ(y[1], 20.f / 3);
}

TEST(Resize, LinearAntialiasWeightsWorkedByHand) {
  // 4 -> 2 (scale 0.5, half_pixel): the triangle stretched 2x, support 2, centres 1 and 3.
  // Output 0 covers taps -1..2 with (1 - |i - 0.5| / 2): 0.25, 0.75, 0.75, 0.25, sum 2; the
  // tap before the input folds onto tap 0: (1, 0.75, 0.25) / 2. Output 1 folds tap 4 onto 3.
  const Tensor x = Tensor::FromVector<float>({0, 8, 16, 24}, {4});
  Attributes a = ResizeAttrs("linear", "half_pixel");
  a.Set("antialias", int64_t(1));
  auto out = RunSingleNode("Resize", 18, {Data(x), Omitted(), Known(Tensor::FromVector<float>({0.5f}, {1}))}, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(Values<float>((*out)[0]),
            (std::vector<float>{0.5f * 0 + 0.375f * 8 + 0.125f * 16, 0.125f * 8 + 0.375f * 16 + 0.5f * 24}));
  // exclude_outside drops the outside tap instead: (0.75, 0.75, 0.25) / 1.75 at output 0.
  a.Set("exclude_outside", int64_t(1));
  auto ex = RunSingleNode("Resize", 18, {Data(x), Omitted(), Known(Tensor::FromVector<float>({0.5f}, {1}))}, a);
  ASSERT_TRUE(ex.ok()) << ex.status().message();
  EXPECT_NEAR(Values<float>((*ex)[0])[0], (0.75 * 8 + 0.25 * 16) / 1.75, 1e-5);
  // Without antialias the same downscale takes two taps: x = 0.5 -> (0 + 8) / 2.
  auto plain = RunSingleNode("Resize", 18, {Data(x), Omitted(), Known(Tensor::FromVector<float>({0.5f}, {1}))},
                             ResizeAttrs("linear", "half_pixel"));
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(Values<float>((*plain)[0]), (std::vector<float>{4, 20}));
}

TEST(Resize, RejectsBadInputs) {
  const Tensor x = Tensor::FromVector<uint8_t>({1, 2}, {2});
  auto linear_u8 = RunSingleNode("Resize", 13, {Data(x), Omitted(), Known(Tensor::FromVector<float>({2}, {1}))},
                                 ResizeAttrs("linear", "half_pixel"));
  ASSERT_FALSE(linear_u8.ok());
  EXPECT_EQ(linear_u8.status().code(), StatusCode::kUnsupported);
  auto both = RunSingleNode(
      "Resize", 13,
      {Data(x), Omitted(), Known(Tensor::FromVector<float>({2}, {1})), Known(Tensor::FromVector<int64_t>({4}, {1}))},
      ResizeAttrs("nearest", "half_pixel"));
  EXPECT_FALSE(both.ok());
  auto count = RunSingleNode("Resize", 13, {Data(x), Omitted(), Known(Tensor::FromVector<float>({2, 2}, {2}))},
                             ResizeAttrs("nearest", "half_pixel"));
  EXPECT_FALSE(count.ok());
  auto zero = RunSingleNode("Resize", 13, {Data(x), Omitted(), Known(Tensor::FromVector<float>({0}, {1}))},
                            ResizeAttrs("nearest", "half_pixel"));
  EXPECT_FALSE(zero.ok());
  auto mode = RunSingleNode("Resize", 13, {Data(x), Omitted(), Known(Tensor::FromVector<float>({2}, {1}))},
                            ResizeAttrs("nearest", "center"));
  EXPECT_FALSE(mode.ok());
}

}  // namespace
}  // namespace qrt
