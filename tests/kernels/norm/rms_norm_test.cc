// RMS normalization row kernel (ops/kernels/norm/rms_norm.h): the AVX2 row bit-identical to the
// reference on random rows of every length around its eight lanes, wide ranges of magnitude,
// zero rows and rows with infinities.
#include "ops/kernels/norm/rms_norm.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::FirstDiff;

void ExpectSame(const std::vector<float>& x, const std::vector<float>& scale, const std::string& what) {
  const int64_t n = int64_t(x.size());
  std::vector<float> want(x.size()), got(x.size());
  float want_inv = 0.f, got_inv = 0.f;
  ref::RmsNormRow(n, x.data(), scale.data(), 1e-5f, want.data(), &want_inv);
  avx2::RmsNormRow(n, x.data(), scale.data(), 1e-5f, got.data(), &got_inv);
  EXPECT_EQ(FirstDiff(want.data(), got.data(), want.size() * 4, true), -1) << what;
  EXPECT_EQ(FirstDiff(&want_inv, &got_inv, 4, true), -1) << what;
}

TEST(RmsNormRowKernel, Avx2EqualsReference) {
  QRT_REQUIRE_AVX2();
  std::mt19937 rng(::qrt::testing::TestSeed());
  std::normal_distribution<float> gauss(0.f, 1.f);
  for (int64_t n = ref::kRmsNormMinRow; n <= 80; ++n) {
    for (float magnitude : {1e-20f, 1.f, 3e3f, 1e18f}) {
      std::vector<float> x(static_cast<size_t>(n)), scale(static_cast<size_t>(n));
      for (float& v : x) v = gauss(rng) * magnitude;
      for (float& v : scale) v = 1.f + 0.3f * gauss(rng);
      ExpectSame(x, scale, "n " + std::to_string(n) + " magnitude " + std::to_string(magnitude));
    }
  }
  std::vector<float> zeros(40, 0.f), ones(40, 1.f);
  ExpectSame(zeros, ones, "zero row");
  std::vector<float> with_inf(40, 2.f);
  with_inf[17] = std::numeric_limits<float>::infinity();
  ExpectSame(with_inf, ones, "a row with +inf");
}

}  // namespace
}  // namespace qrt
