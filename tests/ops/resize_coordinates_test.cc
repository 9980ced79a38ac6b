// Resize's coordinate formulas, nearest rounding and cubic weights against values worked out
// by hand, at non-integer scales (1.5, 0.5, 3 x 2) and sizes that do not divide.
#include "ops/resize_coordinates.h"

#include <gtest/gtest.h>

namespace qrt {
namespace {

ResizeAxis<float> Axis(float scale, int64_t in, int64_t out, float roi_start = 0, float roi_end = 1) {
  ResizeAxis<float> a;
  a.scale = scale;
  a.in = float(in);
  a.out = float(out);
  a.roi_start = roi_start;
  a.roi_end = roi_end;
  return a;
}

float At(ResizeCoord c, const ResizeAxis<float>& a, int64_t o) { return ResizeSourceCoordinate<float>(c, a, o); }

TEST(ResizeCoordinates, HalfPixel) {
  const auto up = Axis(1.5f, 9, 13);
  EXPECT_FLOAT_EQ(At(ResizeCoord::kHalfPixel, up, 0), -1.f / 6);  // 0.5 / 1.5 - 0.5
  EXPECT_EQ(At(ResizeCoord::kHalfPixel, up, 1), 0.5f);            // 1.5 / 1.5 - 0.5
  EXPECT_FLOAT_EQ(At(ResizeCoord::kHalfPixel, up, 2), 7.f / 6);   // 2.5 / 1.5 - 0.5
  const auto down = Axis(0.5f, 9, 4);
  EXPECT_EQ(At(ResizeCoord::kHalfPixel, down, 0), 0.5f);  // 0.5 / 0.5 - 0.5
  EXPECT_EQ(At(ResizeCoord::kHalfPixel, down, 3), 6.5f);  // 3.5 / 0.5 - 0.5
}

TEST(ResizeCoordinates, PytorchHalfPixelIsZeroForALengthOfOne) {
  EXPECT_EQ(At(ResizeCoord::kPytorchHalfPixel, Axis(0.25f, 4, 1), 0), 0.f);
  EXPECT_EQ(At(ResizeCoord::kPytorchHalfPixel, Axis(2.f, 4, 8), 0), -0.25f);
}

TEST(ResizeCoordinates, AlignCornersUsesTheOutputLength) {
  const auto up = Axis(1.5f, 9, 13);                      // floor(13.5) = 13
  EXPECT_EQ(At(ResizeCoord::kAlignCorners, up, 3), 2.f);  // 3 * 8 / 12
  EXPECT_EQ(At(ResizeCoord::kAlignCorners, up, 12), 8.f);
  EXPECT_FLOAT_EQ(At(ResizeCoord::kAlignCorners, up, 1), 2.f / 3);
  const auto down = Axis(0.5f, 9, 4);  // floor(4.5) = 4: x = o * 8 / 3
  EXPECT_FLOAT_EQ(At(ResizeCoord::kAlignCorners, down, 1), 8.f / 3);
  EXPECT_EQ(At(ResizeCoord::kAlignCorners, down, 3), 8.f);
  const auto sizes = Axis(7.f / 11, 11, 7);  // sizes 11 -> 7: x = o * 10 / 6
  EXPECT_EQ(At(ResizeCoord::kAlignCorners, sizes, 3), 5.f);
  EXPECT_EQ(At(ResizeCoord::kAlignCorners, Axis(0.1f, 9, 1), 0), 0.f);
}

TEST(ResizeCoordinates, AsymmetricAtThreeAndTwo) {
  EXPECT_FLOAT_EQ(At(ResizeCoord::kAsymmetric, Axis(3.f, 9, 27), 4), 4.f / 3);
  EXPECT_EQ(At(ResizeCoord::kAsymmetric, Axis(2.f, 11, 22), 5), 2.5f);
  EXPECT_EQ(At(ResizeCoord::kTfHalfPixelForNn, Axis(0.5f, 9, 4), 1), 3.f);  // 1.5 / 0.5
}

TEST(ResizeCoordinates, HalfPixelSymmetricCentresTheCroppedLength) {
  // 9 at 1.5: 13.5 wanted, 13 made; offset = 4.5 * (1 - 13 / 13.5) = 1/6.
  const auto a = Axis(1.5f, 9, 13);
  EXPECT_NEAR(At(ResizeCoord::kHalfPixelSymmetric, a, 0), 0.0, 1e-6);           // 1/6 + 0.5/1.5 - 0.5
  EXPECT_NEAR(At(ResizeCoord::kHalfPixelSymmetric, a, 6), 4.0, 1e-6);           // 1/6 + 6.5/1.5 - 0.5
  EXPECT_EQ(At(ResizeCoord::kHalfPixelSymmetric, Axis(2.f, 4, 8), 0), -0.25f);  // no offset
}

TEST(ResizeCoordinates, TfCropAndResize) {
  const auto a = Axis(10.f / 9, 9, 10, 0.1f, 0.9f);
  EXPECT_FLOAT_EQ(At(ResizeCoord::kTfCropAndResize, a, 0), 0.8f);                              // 0.1 * 8
  EXPECT_FLOAT_EQ(At(ResizeCoord::kTfCropAndResize, a, 9), 7.2f);                              // 0.8 + 9 * 0.8 * 8 / 9
  EXPECT_FLOAT_EQ(At(ResizeCoord::kTfCropAndResize, Axis(0.1f, 9, 1, 0.25f, 0.75f), 0), 4.f);  // 0.5 * 1 * 8
}

TEST(ResizeCoordinates, NearestRounding) {
  EXPECT_EQ(ResizeNearestIndex(ResizeRound::kPreferFloor, 2.5f, false), 2);
  EXPECT_EQ(ResizeNearestIndex(ResizeRound::kPreferFloor, 2.5001f, false), 3);
  EXPECT_EQ(ResizeNearestIndex(ResizeRound::kPreferFloor, -0.5f, false), -1);
  EXPECT_EQ(ResizeNearestIndex(ResizeRound::kPreferCeil, 2.5f, false), 3);
  EXPECT_EQ(ResizeNearestIndex(ResizeRound::kPreferCeil, 2.4999f, false), 2);
  EXPECT_EQ(ResizeNearestIndex(ResizeRound::kFloor, 1.7f, false), 1);
  EXPECT_EQ(ResizeNearestIndex(ResizeRound::kCeil, 1.2f, false), 2);
  EXPECT_EQ(ResizeNearestIndex(ResizeRound::kCeil, 2.f, false), 2);
  EXPECT_EQ(ResizeNearestIndex(ResizeRound::kOpset10, 4.f / 3, true), 2);
  EXPECT_EQ(ResizeNearestIndex(ResizeRound::kOpset10, 5.f / 3, false), 1);
}

TEST(ResizeCoordinates, CubicCoefficients) {
  // s = 0.5, a = -0.75: -3/32, 19/32, 19/32, -3/32 (all exact in float).
  const auto half = ResizeCubicCoefficients<float>(0.5f, -0.75f);
  EXPECT_EQ(half[0], -0.09375f);
  EXPECT_EQ(half[1], 0.59375f);
  EXPECT_EQ(half[2], 0.59375f);
  EXPECT_EQ(half[3], -0.09375f);
  const auto zero = ResizeCubicCoefficients<float>(0.f, -0.5f);
  EXPECT_EQ(zero[0], 0.f);
  EXPECT_EQ(zero[1], 1.f);
  EXPECT_EQ(zero[2], 0.f);
  EXPECT_EQ(zero[3], 0.f);
  // s = 0.25, a = -0.5: -0.0703125, 0.8671875, 0.2265625, -0.0234375.
  const auto quarter = ResizeCubicCoefficients<float>(0.25f, -0.5f);
  EXPECT_EQ(quarter[0], -0.0703125f);
  EXPECT_EQ(quarter[1], 0.8671875f);
  EXPECT_EQ(quarter[2], 0.2265625f);
  EXPECT_EQ(quarter[3], -0.0234375f);
}

}  // namespace
}  // namespace qrt
