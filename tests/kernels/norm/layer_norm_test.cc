// LayerNormalization row kernels (ops/kernels/norm/layer_norm.h): the AVX2 kernel gives the
// reference's bits for every row length around its lane widths, with and without a bias, on
// random rows, rows with a large common offset (where the two-pass order matters), constant
// rows, and NaN / infinity.
#include "ops/kernels/norm/layer_norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::Bits;
using ::qrt::testing::FirstDiff;

std::vector<LayerNormRowFn> Rows() {
  return ::qrt::testing::KernelsThisCpuRuns<LayerNormRowFn>(ref::LayerNormRow, avx2::LayerNormRow);
}

void ExpectSameAsReference(const std::vector<float>& x, const std::vector<float>& scale, const float* bias,
                           const std::string& what) {
  const int64_t n = int64_t(x.size());
  std::vector<float> want(x.size());
  float want_mean, want_inv;
  ref::LayerNormRow(n, x.data(), scale.data(), bias, 1e-5f, want.data(), &want_mean, &want_inv);
  for (LayerNormRowFn f : Rows()) {
    std::vector<float> got(x.size(), -1.f);
    float mean = -1, inv = -1;
    f(n, x.data(), scale.data(), bias, 1e-5f, got.data(), &mean, &inv);
    ASSERT_EQ(Bits(mean), Bits(want_mean)) << what << " n=" << n;
    ASSERT_EQ(Bits(inv), Bits(want_inv)) << what << " n=" << n;
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(Bits(got[size_t(i)]), Bits(want[size_t(i)])) << what << " n=" << n << " i=" << i;
  }
}

TEST(LayerNormRowKernel, RandomRowsEveryLengthAroundTheLanes) {
  std::mt19937 rng(::qrt::testing::TestSeed());
  std::normal_distribution<float> normal(0.f, 3.f);
  for (int64_t n : {8, 9, 11, 12, 13, 15, 16, 17, 20, 23, 24, 31, 33, 64, 100, 384, 768, 1000, 4099}) {
    std::vector<float> x(static_cast<size_t>(n)), scale(x), bias(x);
    for (auto* v : {&x, &scale, &bias}) {
      for (float& e : *v) e = normal(rng);
    }
    ExpectSameAsReference(x, scale, bias.data(), "bias");
    ExpectSameAsReference(x, scale, nullptr, "no bias");
    for (float& e : x) e += 1000.f;  // a large mean: the centered second pass decides the bits
    ExpectSameAsReference(x, scale, bias.data(), "offset");
  }
}

TEST(LayerNormRowKernel, ConstantRowsAndSpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  for (int64_t n : {8, 13, 24}) {
    std::vector<float> scale(static_cast<size_t>(n), 1.5f);
    ExpectSameAsReference(std::vector<float>(static_cast<size_t>(n), 2.5f), scale, nullptr,
                          "constant");  // var 0: y = bias
    std::vector<float> x(static_cast<size_t>(n), 1.f);
    x[3] = inf;
    ExpectSameAsReference(x, scale, nullptr, "inf");
    x[3] = nan;
    ExpectSameAsReference(x, scale, nullptr, "nan");
    x[3] = 3e38f;  // the double mean does not overflow; the float variance does
    ExpectSameAsReference(x, scale, nullptr, "huge");
  }
}

TEST(LayerNormRowKernel, ConstantRowGivesBiasExactly) {
  for (LayerNormRowFn f : Rows()) {
    std::vector<float> x(17, -4.25f), scale(17, 3.f), bias(17, 0.75f), y(17);
    float mean, inv;
    f(17, x.data(), scale.data(), bias.data(), 1e-5f, y.data(), &mean, &inv);
    EXPECT_EQ(mean, -4.25f);
    EXPECT_EQ(inv, 1.0f / std::sqrt(1e-5f));
    for (float v : y) EXPECT_EQ(v, 0.75f);
  }
}

// Welford's rows eight at a time (AVX2 lanes) give the reference's bits: row counts around the
// group of eight, lengths from 1, magnitudes far apart, a constant row, statistics outputs.
TEST(LayerNormShortRowsKernel, Avx2EqualsReference) {
  QRT_REQUIRE_AVX2();
  std::mt19937 rng(::qrt::testing::TestSeed());
  std::normal_distribution<float> gauss(0.f, 1.f);
  for (int64_t rows : {1, 7, 8, 9, 17, 32}) {
    for (int64_t n : {1, 2, 7, 8, 9, 64, 100}) {
      for (float magnitude : {1e-3f, 1.f, 1e4f}) {
        std::vector<float> x(static_cast<size_t>(rows * n)), scale(static_cast<size_t>(n)),
            bias(static_cast<size_t>(n));
        for (float& v : x) v = 3.f + gauss(rng) * magnitude;
        for (int64_t i = 0; i < n; ++i) x[static_cast<size_t>(i)] = 2.5f;  // row 0 constant
        for (float& v : scale) v = 1.f + 0.2f * gauss(rng);
        for (float& v : bias) v = gauss(rng);
        std::vector<float> want(x.size()), got(x.size()), want_mean(static_cast<size_t>(rows)),
            got_mean(static_cast<size_t>(rows)), want_inv(static_cast<size_t>(rows)),
            got_inv(static_cast<size_t>(rows));
        ref::LayerNormShortRows(rows, n, x.data(), scale.data(), bias.data(), 1e-5f, want.data(), want_mean.data(),
                                want_inv.data());
        avx2::LayerNormShortRows(rows, n, x.data(), scale.data(), bias.data(), 1e-5f, got.data(), got_mean.data(),
                                 got_inv.data());
        const std::string what =
            std::to_string(rows) + " x " + std::to_string(n) + " magnitude " + std::to_string(magnitude);
        EXPECT_EQ(FirstDiff(want.data(), got.data(), want.size() * 4, true), -1) << what;
        EXPECT_EQ(FirstDiff(want_mean.data(), got_mean.data(), want_mean.size() * 4, true), -1) << what;
        EXPECT_EQ(FirstDiff(want_inv.data(), got_inv.data(), want_inv.size() * 4, true), -1) << what;
      }
    }
  }
}

}  // namespace
}  // namespace qrt
