// Softmax row kernel (ops/kernels/eltwise/softmax.h): ONNX Runtime 1.30's output for two rows of 37
// (32 of the 74 values differ from the correctly rounded softmax), closeness to the exact
// softmax, NaN rows, and the AVX2 kernel bit-identical to the reference.
#include "ops/kernels/eltwise/softmax.h"

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

std::vector<SoftmaxRowFn> Kernels() {
  return ::qrt::testing::KernelsThisCpuRuns<SoftmaxRowFn>(ref::SoftmaxRow, avx2::SoftmaxRow);
}

// Rows x0[i] = ((37 i mod 101) - 50) / 8 and x1[i] = ((53 i mod 97) - 40) / 3, i < 37 (exact
// floats); ORT --opt disabled on this machine gave these bits.
TEST(SoftmaxRow, OnnxRuntimeValues) {
  const uint32_t want[2][37] = {
      {0x359d477a, 0x38faaba9, 0x3c47c22f, 0x36893d56, 0x39dabb47, 0x3d2e4e73, 0x376f81b3, 0x3abedcae,
       0x3e1818e9, 0x3850fd75, 0x3ba68b22, 0x35e4d703, 0x39365c9c, 0x3c9152cf, 0x36c7aeb4, 0x3a1f2053,
       0x3d7d9d48, 0x37ae3d73, 0x3b0ad9ef, 0x3e5d4ce0, 0x38980a14, 0x3bf251c1, 0x36267ae4, 0x3984aada,
       0x3cd371c4, 0x371144a3, 0x3a678700, 0x3db880dd, 0x37fd848c, 0x3b4a0707, 0x3ea0feb9, 0x38dd374b,
       0x3c30494a, 0x36723a1f, 0x39c107a8, 0x3d19d32d, 0x37535d26},
      {0x2900a9ba, 0x35b466b3, 0x2b218440, 0x37e27746, 0x2d4ac243, 0x3a0e257b, 0x2f7e8851, 0x3c327163,
       0x319fc360, 0x3e600201, 0x33c88eeb, 0x2933903e, 0x35fbc511, 0x2b616a0e, 0x381e0774, 0x2d8d7c89,
       0x3a4661a4, 0x2fb19d4e, 0x3c79098e, 0x31def7b5, 0x3e9c5059, 0x340bf365, 0x297a99c6, 0x362fafc8,
       0x2b9d4b98, 0x385c8c2a, 0x2dc575db, 0x3a8a6e86, 0x2ff7e190, 0x3cadc79c, 0x321b969a, 0x3eda2759,
       0x34435124, 0x29aedf03, 0x367530cb, 0x2bdb8618, 0x3899e63e},
  };
  for (SoftmaxRowFn f : Kernels()) {
    for (int r = 0; r < 2; ++r) {
      std::vector<float> x(37), y(37);
      for (int i = 0; i < 37; ++i) {
        x[size_t(i)] = r == 0 ? float((i * 37 % 101) - 50) / 8.f : float((i * 53 % 97) - 40) / 3.f;
      }
      f(37, x.data(), y.data());
      for (int i = 0; i < 37; ++i) EXPECT_EQ(Bits(y[size_t(i)]), want[r][i]) << "row " << r << " element " << i;
    }
  }
}

TEST(SoftmaxRow, CloseToExactAndAvx2MatchesReference) {
  std::mt19937 rng(::qrt::testing::TestSeed());
  std::normal_distribution<float> dist(0.f, 5.f);
  for (int64_t n : {1, 2, 7, 8, 9, 16, 31, 100, 1000}) {
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = dist(rng);
    std::vector<float> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    ref::SoftmaxRow(n, x.data(), a.data());
    double m = -1e30, z = 0;
    for (float v : x) m = std::max(m, double(v));
    for (float v : x) z += std::exp(double(v) - m);
    for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(a[size_t(i)], std::exp(double(x[size_t(i)]) - m) / z, 1e-6) << n;
    if (!::qrt::testing::HaveAvx2()) continue;
    avx2::SoftmaxRow(n, x.data(), b.data());
    EXPECT_EQ(FirstDiff(a.data(), b.data(), a.size() * 4, true), -1) << "n " << n;
  }
}

TEST(SoftmaxRow, EdgeRows) {
  const float inf = std::numeric_limits<float>::infinity();
  for (SoftmaxRowFn f : Kernels()) {
    std::vector<float> y(3);
    const std::vector<float> with_nan{1.f, std::nanf(""), 2.f};
    f(3, with_nan.data(), y.data());
    for (float v : y) EXPECT_TRUE(std::isnan(v));
    const std::vector<float> with_inf{0.f, -inf, 0.f};
    f(3, with_inf.data(), y.data());
    EXPECT_EQ(y[0], 0.5f);
    EXPECT_EQ(y[2], 0.5f);
    EXPECT_LT(y[1], 1e-30f);  // exp of the clamped argument (-88.37...), not exactly 0
    const std::vector<float> same{3.f, 3.f, 3.f, 3.f};
    std::vector<float> q(4);
    f(4, same.data(), q.data());
    for (float v : q) EXPECT_EQ(v, 0.25f);
  }
}

}  // namespace
}  // namespace qrt
