// Softmax row kernel (ops/kernels/eltwise/softmax.h): ONNX Runtime 1.30's output for two rows of 37
// (32 of the 74 values differ from the correctly rounded softmax), closeness to the exact
// softmax, NaN rows, and the AVX2 kernel bit-identical to the reference. The sixteen-lane
// kernels (MLAS's AVX-512F order): ORT's Softmax and LogSoftmax of a row of 100 on an AVX-512F
// machine, where the eight-lane sum rounds differently; the AVX2 code bit-identical to the
// reference on random rows, rows with masked (-10000, -inf) and subnormal-range entries.
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

// x[i] = ((31 i mod 79) - 39) / 10, i < 100 (exact floats); ORT 1.30 --opt disabled on an AMD
// EPYC (Zen 4, AVX-512F) gave these bits for Softmax and LogSoftmax.
TEST(SoftmaxRow16, OnnxRuntimeValuesOnAvx512F) {
  const uint32_t want_softmax[100] = {
      0x38006496, 0x3a3220f4, 0x3c77217d, 0x39022a2d, 0x3b34963f, 0x3d7a8a8f, 0x3a03f606, 0x3c37143a, 0x38c0db5d,
      0x3b05c836, 0x3d399b04, 0x39c384ab, 0x3c07a0d7, 0x388edf33, 0x3ac63767, 0x3d097ffb, 0x3990d7ec, 0x3bc8f3aa,
      0x3853af24, 0x3a92d7a1, 0x3ccbb993, 0x39569afb, 0x3b94de66, 0x381cd1c6, 0x3a599125, 0x3c96ec53, 0x391efbcf,
      0x3b5c91c1, 0x3d990182, 0x3a212d73, 0x3c5f9cfc, 0x38eb8e4f, 0x3b2366dd, 0x3d62b2f6, 0x39eece75, 0x3c25a822,
      0x38ae810b, 0x3af21a22, 0x3d27f15b, 0x39b0e989, 0x3bf5716c, 0x38814698, 0x3ab35a88, 0x3cf8d487, 0x39830f52,
      0x3bb5d425, 0x383f8a2c, 0x3a84de51, 0x3cb85683, 0x39422ed9, 0x3b86b3b7, 0x380de56b, 0x3a44dcde, 0x3c888f98,
      0x390fdab2, 0x3b479455, 0x3d8a7208, 0x3a11d6e8, 0x3c4a5567, 0x38d523c4, 0x3b13da22, 0x3d4d2035, 0x39d814c6,
      0x3c15e475, 0x389de5d8, 0x3adb1021, 0x3d17f601, 0x39a013ab, 0x3bde1609, 0x3869f27e, 0x3aa24931, 0x3ce126a1,
      0x396d2cf5, 0x3ba48682, 0x382d4ff5, 0x3a7072db, 0x3ca6cbbd, 0x392fb438, 0x3b73c451, 0x38006496, 0x3a3220f4,
      0x3c77217d, 0x39022a2d, 0x3b34963f, 0x3d7a8a8f, 0x3a03f606, 0x3c37143a, 0x38c0db5d, 0x3b05c836, 0x3d399b04,
      0x39c384ab, 0x3c07a0d7, 0x388edf33, 0x3ac63767, 0x3d097ffb, 0x3990d7ec, 0x3bc8f3aa, 0x3853af24, 0x3a92d7a1,
      0x3ccbb993};
  const uint32_t want_log[100] = {
      0xc1264e69, 0xc0e9699e, 0xc086366b, 0xc10fe802, 0xc0bc9cd2, 0xc032d33c, 0xc0f30338, 0xc08fd004, 0xc114b4cf,
      0xc0c6366b, 0xc046066f, 0xc0fc9cd2, 0xc099699e, 0xc119819c, 0xc0cfd004, 0xc05939a3, 0xc1031b36, 0xc0a30338,
      0xc11e4e69, 0xc0d9699e, 0xc06c6cd6, 0xc107e802, 0xc0ac9cd2, 0xc1231b36, 0xc0e30338, 0xc07fa009, 0xc10cb4cf,
      0xc0b6366b, 0xc026066f, 0xc0ec9cd2, 0xc089699e, 0xc111819c, 0xc0bfd004, 0xc03939a3, 0xc0f6366c, 0xc0930338,
      0xc1164e69, 0xc0c9699e, 0xc04c6cd6, 0xc0ffd004, 0xc09c9cd2, 0xc11b1b36, 0xc0d30338, 0xc05fa009, 0xc104b4cf,
      0xc0a6366b, 0xc11fe802, 0xc0dc9cd2, 0xc072d33c, 0xc109819c, 0xc0afd004, 0xc124b4cf, 0xc0e6366a, 0xc0830338,
      0xc10e4e69, 0xc0b9699e, 0xc02c6cd6, 0xc0efd004, 0xc08c9cd2, 0xc1131b36, 0xc0c30338, 0xc03fa009, 0xc0f9699e,
      0xc096366b, 0xc117e802, 0xc0cc9cd2, 0xc052d33c, 0xc101819c, 0xc09fd004, 0xc11cb4cf, 0xc0d6366a, 0xc066066f,
      0xc1064e69, 0xc0a9699e, 0xc121819c, 0xc0dfd004, 0xc07939a3, 0xc10b1b36, 0xc0b30338, 0xc1264e69, 0xc0e9699e,
      0xc086366b, 0xc10fe802, 0xc0bc9cd2, 0xc032d33c, 0xc0f30338, 0xc08fd004, 0xc114b4cf, 0xc0c6366b, 0xc046066f,
      0xc0fc9cd2, 0xc099699e, 0xc119819c, 0xc0cfd004, 0xc05939a3, 0xc1031b36, 0xc0a30338, 0xc11e4e69, 0xc0d9699e,
      0xc06c6cd6};
  std::vector<float> x(100), y(100);
  for (int i = 0; i < 100; ++i) x[size_t(i)] = float((i * 31 % 79) - 39) / 10.f;
  const std::vector<SoftmaxRowFn> kernels =
      ::qrt::testing::KernelsThisCpuRuns<SoftmaxRowFn>(ref::SoftmaxRow16, avx2::SoftmaxRow16, avx512::SoftmaxRow16);
  for (SoftmaxRowFn f : kernels) {
    f(100, x.data(), y.data());
    for (int i = 0; i < 100; ++i) EXPECT_EQ(Bits(y[size_t(i)]), want_softmax[i]) << "element " << i;
  }
  ref::LogSoftmaxRow16(100, x.data(), y.data());
  for (int i = 0; i < 100; ++i) EXPECT_EQ(Bits(y[size_t(i)]), want_log[i]) << "log, element " << i;
  // The row discriminates: the eight-lane sum rounds to another float here.
  ref::SoftmaxRow(100, x.data(), y.data());
  int differ = 0;
  for (int i = 0; i < 100; ++i) differ += Bits(y[size_t(i)]) != want_softmax[i];
  EXPECT_GT(differ, 0);
}

TEST(SoftmaxRow16, SimdKernelsMatchReference) {
  if (!::qrt::testing::HaveAvx2()) GTEST_SKIP() << "no AVX2 on this CPU: the reference alone runs";
  std::mt19937 rng(::qrt::testing::TestSeed());
  std::normal_distribution<float> dist(0.f, 30.f);
  const float inf = std::numeric_limits<float>::infinity();
  for (int64_t n : {1, 2, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 47, 48, 100, 1000}) {
    for (int variant = 0; variant < 5; ++variant) {
      std::vector<float> x(static_cast<size_t>(n));
      for (size_t i = 0; i < x.size(); ++i) {
        x[i] = dist(rng);
        if (variant == 1 && i % 3 == 1) x[i] = -10000.f;
        if (variant == 2 && i % 4 == 2) x[i] = -inf;
        if (variant == 2 && i % 4 == 3) x[i] = -95.f - float(i % 9);  // exps in the subnormal range
      }
      if (variant == 2) x[0] = 0.f;
      if (variant == 3) x[size_t(n / 2)] = std::nanf("");  // the whole row NaN
      if (variant == 4) x[size_t(n - 1)] = std::numeric_limits<float>::infinity();
      std::vector<float> a(x.size()), b(x.size());
      ref::SoftmaxRow16(n, x.data(), a.data());
      for (SoftmaxRowFn f : ::qrt::testing::KernelsThisCpuRuns<SoftmaxRowFn>(ref::SoftmaxRow16, avx2::SoftmaxRow16,
                                                                             avx512::SoftmaxRow16)) {
        std::fill(b.begin(), b.end(), 0.f);
        f(n, x.data(), b.data());
        EXPECT_EQ(FirstDiff(a.data(), b.data(), a.size() * 4, true), -1) << "n " << n << " variant " << variant;
      }
    }
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
