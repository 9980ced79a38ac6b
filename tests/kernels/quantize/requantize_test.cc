#include "ops/kernels/quantize/requantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "ops/kernels/gemm/matmul_ref.h"
#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::FirstDiff;
using ::qrt::testing::TestSeed;

std::vector<uint8_t> RunRow(RequantizeRowFn f, const std::vector<int32_t>& acc, const RequantizeParams& p) {
  std::vector<uint8_t> y(acc.size() + 1, 0xA5);
  f(int64_t(acc.size()), acc.data(), p, y.data());
  EXPECT_EQ(y.back(), 0xA5) << "wrote past the end";
  y.pop_back();
  return y;
}

// Hand-checked values: ties go to even, the zero point is added before rounding,
// saturation, the bias wraps, and the clamp applies last.
TEST(RequantizeRow, ReferenceValues) {
  RequantizeRowFn f = ref::RequantizeRowKernel(DataType::kUInt8);
  RequantizeParams p;
  p.multiplier = 0.5f;
  p.y_zero_point = 10;
  // Rounded before the zero point is added, as ORT does: 1*0.5 = 0.5 -> 0 -> 10; 3*0.5 = 1.5
  // -> 2 -> 12; -21*0.5 = -10.5, clamped to 0 - 10 first -> 0; 600 -> 255.
  EXPECT_EQ(RunRow(f, {1, 3, -21, 600, -600}, p), (std::vector<uint8_t>{10, 12, 0, 255, 0}));
  p.bias = 1;
  p.multiplier = 1.f;
  p.y_zero_point = 0;
  EXPECT_EQ(RunRow(f, {std::numeric_limits<int32_t>::max()}, p), (std::vector<uint8_t>{0}));  // wraps to INT32_MIN
  p.bias = 0;
  p.out_min = 20;
  p.out_max = 30;
  EXPECT_EQ(RunRow(f, {5, 25, 200}, p), (std::vector<uint8_t>{20, 25, 30}));
  p = RequantizeParams();
  p.multiplier = std::numeric_limits<float>::infinity();
  EXPECT_EQ(RunRow(f, {0, 1, -1}, p), (std::vector<uint8_t>{0, 255, 0}));  // 0 * inf = NaN -> Tmin
  RequantizeRowFn s8 = ref::RequantizeRowKernel(DataType::kInt8);
  p = RequantizeParams();
  p.multiplier = 0.25f;
  p.y_zero_point = -3;
  // 2*0.25 = 0.5 -> 0 -> -3; 6*0.25 = 1.5 -> 2 -> -1 (adding -3 before rounding would give
  // -2 twice); 1000 -> 127; -1000 -> -128.
  const std::vector<uint8_t> got = RunRow(s8, {2, 6, 1000, -1000}, p);
  EXPECT_EQ(std::vector<int>(got.begin(), got.end()), (std::vector<int>{253, 255, 127, 128}));
  // The product is a float: -5550 * 0.0033333334f is -18.5000004 in double but -18.5 in
  // float, which rounds to -18 (ORT's QLinearMatMul gives 110 for this accumulator).
  p = RequantizeParams();
  p.multiplier = float(float(0.1f * 0.02f) / 0.6f);
  p.y_zero_point = 128;
  EXPECT_EQ(RunRow(f, {-5550}, p), (std::vector<uint8_t>{110}));
}

TEST(RequantizeRow, Avx2MatchesReferenceBitExact) {
  QRT_REQUIRE_AVX2();
  std::mt19937 rng(TestSeed());
  const float mults[] = {0.5f,
                         0.25f,
                         1e-3f,
                         0.0173f,
                         3.7e-5f,
                         1.f,
                         255.f,
                         1e30f,
                         std::numeric_limits<float>::infinity(),
                         std::numeric_limits<float>::quiet_NaN(),
                         0.f};
  for (DataType t : {DataType::kUInt8, DataType::kInt8}) {
    for (int64_t n : {0, 1, 7, 8, 9, 31, 64, 1001}) {
      for (float mult : mults) {
        std::vector<int32_t> acc(static_cast<size_t>(n));
        for (size_t i = 0; i < acc.size(); ++i) {
          switch (i % 4) {
            case 0:
              acc[i] = int32_t(rng());
              break;  // full range
            case 1:
              acc[i] = int32_t(rng() % 2001) - 1000;
              break;  // small
            case 2:
              acc[i] = 2 * int32_t(rng() % 200) + 1;
              break;  // odd: ties at 0.5
            default:
              acc[i] = std::numeric_limits<int32_t>::max() - int32_t(rng() % 3);  // bias wraps
          }
        }
        RequantizeParams p;
        p.multiplier = mult;
        p.bias = int32_t(rng() % 7) - 3;
        p.y_zero_point = t == DataType::kUInt8 ? int32_t(rng() % 256) : int32_t(rng() % 256) - 128;
        if (rng() % 2) {
          p.out_min = t == DataType::kUInt8 ? 3 : -100;
          p.out_max = t == DataType::kUInt8 ? 250 : 90;
        }
        const auto r = RunRow(ref::RequantizeRowKernel(t), acc, p);
        const auto v = RunRow(avx2::RequantizeRowKernel(t), acc, p);
        ASSERT_EQ(FirstDiff(r.data(), v.data(), r.size(), false), -1)
            << DataTypeName(t) << " n " << n << " mult " << mult << " zp " << p.y_zero_point << " bias " << p.bias;
      }
    }
  }
}

}  // namespace
}  // namespace qrt
