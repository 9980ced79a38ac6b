// Sigmoid / Tanh kernels (ops/kernels/eltwise/sigmoid_tanh.h): values ONNX Runtime 1.30 computed
// (ORT's literal CPU output for these inputs, where the correctly rounded function differs),
// closeness to libm, and the AVX2 kernel bit-identical to the reference.
#include "ops/kernels/eltwise/sigmoid_tanh.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::Bits;
using ::qrt::testing::FirstDiff;

using ::qrt::testing::FromBits;

std::vector<FloatMapFn> Sigmoids() {
  return ::qrt::testing::KernelsThisCpuRuns<FloatMapFn>(ref::Sigmoid, avx2::Sigmoid);
}
std::vector<FloatMapFn> Tanhs() { return ::qrt::testing::KernelsThisCpuRuns<FloatMapFn>(ref::Tanh, avx2::Tanh); }

// (x, y) bit patterns: ORT 1.30 (--opt disabled, this machine) on a Sigmoid / Tanh model. The
// correctly rounded values differ in the last bit for each of these inputs.
TEST(SigmoidTanh, OnnxRuntimeValues) {
  const uint32_t sigmoid[][2] = {{0xc04d4b61, 0x3d1f3c80}, {0xc0a98498, 0x3ba32b40}, {0xbf7e5282, 0x3e8a5bd6},
                                 {0x3fd74499, 0x3f57d80a}, {0x409169f9, 0x3f7d4ec2}, {0xc00d7a4b, 0x3dca5988}};
  const uint32_t tanh[][2] = {{0xc04d4b61, 0xbf7f29e6}, {0xc0a98498, 0xbf7ffcb5}, {0xc00d7a4b, 0xbf79eb36},
                              {0x403fadce, 0x3f7eb8a7}, {0x3f8ba859, 0x3f4c19e7}, {0xc07550de, 0xbf7fc2a2}};
  for (FloatMapFn f : Sigmoids()) {
    for (const auto& p : sigmoid) {
      std::vector<float> x(9, FromBits(p[0])), y(9);  // 9: the vector body and the scalar tail
      f(9, x.data(), y.data());
      for (float v : y) EXPECT_EQ(Bits(v), p[1]) << std::hex << "sigmoid x bits " << p[0];
    }
  }
  for (FloatMapFn f : Tanhs()) {
    for (const auto& p : tanh) {
      std::vector<float> x(9, FromBits(p[0])), y(9);
      f(9, x.data(), y.data());
      for (float v : y) EXPECT_EQ(Bits(v), p[1]) << std::hex << "tanh x bits " << p[0];
    }
  }
}

TEST(SigmoidTanh, EdgeValues) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x{0.f, -0.f, 18.f, -18.f, 100.f, -100.f, inf, -inf, 1e-30f, -1e-30f, 9.f, -9.f, 20.f};
  for (FloatMapFn f : Sigmoids()) {
    std::vector<float> y(x.size());
    f(int64_t(x.size()), x.data(), y.data());
    EXPECT_EQ(y[0], 0.5f);
    EXPECT_EQ(y[2], y[4]);  // clamped at 18
    EXPECT_EQ(y[4], y[6]);
    EXPECT_EQ(y[5], y[7]);
    EXPECT_NEAR(y[4], 1.f, 1e-7);
    EXPECT_GE(y[5], 0.f);
    EXPECT_LE(y[5], 1e-7f);
    float nan = std::nanf(""), out = 0;
    f(1, &nan, &out);
    EXPECT_TRUE(std::isnan(out));
  }
  for (FloatMapFn f : Tanhs()) {
    std::vector<float> y(x.size());
    f(int64_t(x.size()), x.data(), y.data());
    EXPECT_EQ(Bits(y[0]), Bits(0.f));
    EXPECT_EQ(Bits(y[1]), Bits(-0.f));  // the sign of zero is kept
    EXPECT_EQ(y[10], y[12]);            // clamped at 9: tanh(20) == tanh(9)
    EXPECT_EQ(y[6], y[10]);
    EXPECT_EQ(y[7], -y[10]);
    EXPECT_NEAR(y[10], 1.f, 1e-6);
    float nan = std::nanf(""), out = 0;
    f(1, &nan, &out);
    EXPECT_TRUE(std::isnan(out));
  }
}

// Within 1e-6 of the true functions (MLAS's approximations' accuracy), and the AVX2 kernel
// bit-identical to the reference on random values and every length 0..40.
TEST(SigmoidTanh, AccurateAndAvx2MatchesReference) {
  std::mt19937 rng(::qrt::testing::TestSeed());
  std::normal_distribution<float> dist(0.f, 6.f);
  std::vector<float> x(4096);
  for (float& v : x) v = dist(rng);
  std::vector<float> s(x.size()), t(x.size());
  ref::Sigmoid(int64_t(x.size()), x.data(), s.data());
  ref::Tanh(int64_t(x.size()), x.data(), t.data());
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_NEAR(s[i], 1.0 / (1.0 + std::exp(-double(x[i]))), 1e-6) << x[i];
    ASSERT_NEAR(t[i], std::tanh(double(x[i])), 1e-6) << x[i];
  }
  if (!::qrt::testing::HaveAvx2()) GTEST_SKIP() << "no AVX2";
  for (int64_t n = 0; n <= 40; ++n) {
    std::vector<float> a(size_t(n) + 1, -7.f), b(size_t(n) + 1, -7.f);
    ref::Sigmoid(n, x.data(), a.data());
    avx2::Sigmoid(n, x.data(), b.data());
    EXPECT_EQ(FirstDiff(a.data(), b.data(), a.size() * 4, true), -1) << "sigmoid n " << n;
    ref::Tanh(n, x.data(), a.data());
    avx2::Tanh(n, x.data(), b.data());
    EXPECT_EQ(FirstDiff(a.data(), b.data(), a.size() * 4, true), -1) << "tanh n " << n;
  }
  std::vector<float> a(x.size()), b(x.size());
  ref::Sigmoid(int64_t(x.size()), x.data(), a.data());
  avx2::Sigmoid(int64_t(x.size()), x.data(), b.data());
  EXPECT_EQ(FirstDiff(a.data(), b.data(), a.size() * 4, true), -1);
  ref::Tanh(int64_t(x.size()), x.data(), a.data());
  avx2::Tanh(int64_t(x.size()), x.data(), b.data());
  EXPECT_EQ(FirstDiff(a.data(), b.data(), a.size() * 4, true), -1);
}

}  // namespace
}  // namespace qrt
