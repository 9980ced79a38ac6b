// Erf / GELU kernels (ops/kernels/eltwise/erf.h): values ONNX Runtime 1.30 computed where the
// correctly rounded function differs, the edge values, closeness to libm, and the AVX2 kernels
// bit-identical to the reference on every float in ranges around the path boundaries.
#include "ops/kernels/eltwise/erf.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::Bits;
using ::qrt::testing::FromBits;

std::vector<FloatMapFn> Erfs() { return ::qrt::testing::KernelsThisCpuRuns<FloatMapFn>(ref::Erf, avx2::Erf); }
std::vector<FloatMapFn> Gelus() { return ::qrt::testing::KernelsThisCpuRuns<FloatMapFn>(ref::GeluErf, avx2::GeluErf); }

// (x, y) bit patterns: ORT 1.30 (--opt disabled) on an Erf and a com.microsoft Gelu model;
// each differs from the correctly rounded value.
TEST(ErfKernel, OnnxRuntimeValues) {
  const uint32_t erf[][2] = {{0xc007ee47, 0xbf7f5131}, {0x401cc842, 0x3f7fdd2e}, {0xbf874a46, 0xbf5d7220},
                             {0xbf7ce700, 0xbf566e10}, {0x3fd9ffe8, 0x3f7be675}, {0xbf4887e8, 0xbf3b6761},
                             {0xbfb0cb36, 0xbf72ffec}, {0xbfe29d6f, 0xbf7cdab3}};
  const uint32_t gelu[][2] = {{0x401c2958, 0x401b03c8}, {0xbfdb56e2, 0xbd97f73c}, {0xc0646332, 0xba27e3ab},
                              {0xbf6edc4c, 0xbe2794fe}, {0xbf3b7266, 0xbe2df701}, {0xc068d1b1, 0xba031a54}};
  for (FloatMapFn f : Erfs()) {
    for (const auto& p : erf) {
      std::vector<float> x(11, FromBits(p[0])), y(11);  // 11: the vector body and the scalar tail
      f(11, x.data(), y.data());
      for (float v : y) EXPECT_EQ(Bits(v), p[1]) << std::hex << "erf x bits " << p[0];
    }
  }
  for (FloatMapFn f : Gelus()) {
    for (const auto& p : gelu) {
      std::vector<float> x(11, FromBits(p[0])), y(11);
      f(11, x.data(), y.data());
      for (float v : y) EXPECT_EQ(Bits(v), p[1]) << std::hex << "gelu x bits " << p[0];
    }
  }
}

TEST(ErfKernel, EdgeValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x{0.f, -0.f, inf, -inf, 3.92f, -4.f, 100.f, 1e-30f, -1e-40f, nan, 0.921875f, -0.921875f};
  for (FloatMapFn f : Erfs()) {
    std::vector<float> y(x.size());
    f(int64_t(x.size()), x.data(), y.data());
    EXPECT_EQ(Bits(y[0]), Bits(0.f));
    EXPECT_EQ(Bits(y[1]), Bits(-0.f));
    EXPECT_EQ(y[2], 1.f);
    EXPECT_EQ(y[3], -1.f);
    EXPECT_EQ(y[4], 1.f);  // |x| >= 3.91919017 gives exactly one
    EXPECT_EQ(y[5], -1.f);
    EXPECT_EQ(y[6], 1.f);
    EXPECT_NEAR(y[7] / 1e-30f, 1.1283792f, 1e-6);  // erf(x) = 2x / sqrt(pi) for tiny x
    EXPECT_EQ(Bits(y[8]) >> 31, 1u);
    EXPECT_TRUE(std::isnan(y[9]));
    EXPECT_EQ(y[10], -y[11]);
  }
}

TEST(ErfKernel, CloseToLibm) {
  for (FloatMapFn f : Erfs()) {
    std::vector<float> x, y;
    for (float v = -5.f; v <= 5.f; v += 0.001f) x.push_back(v);
    y.resize(x.size());
    f(int64_t(x.size()), x.data(), y.data());
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(y[i], std::erf(double(x[i])), 4e-7) << x[i];
    }
  }
}

// Every float in ranges around the small/big split, the clamp and tiny values, plus random
// values: the AVX2 kernels give the reference's bits (NaN: a NaN).
TEST(ErfKernel, Avx2EqualsReference) {
  QRT_REQUIRE_AVX2();
  std::vector<float> x;
  for (uint32_t lo : {0x3f600000u, 0x40700000u, 0x00000000u, 0x33000000u}) {
    for (uint32_t b = lo; b < lo + 0x40000u; ++b) {
      x.push_back(FromBits(b));
      x.push_back(FromBits(b | 0x80000000u));
    }
  }
  std::mt19937 rng(::qrt::testing::TestSeed());
  for (int i = 0; i < 200000; ++i) x.push_back(FromBits(rng()));
  for (auto [want_fn, got_fn] : {std::pair{ref::Erf, avx2::Erf}, std::pair{ref::GeluErf, avx2::GeluErf}}) {
    std::vector<float> want(x.size()), got(x.size());
    want_fn(int64_t(x.size()), x.data(), want.data());
    got_fn(int64_t(x.size()), x.data(), got.data());
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(want[i])) {
        ASSERT_TRUE(std::isnan(got[i]));
      } else {
        ASSERT_EQ(Bits(got[i]), Bits(want[i])) << std::hex << "x bits " << Bits(x[i]);
      }
    }
  }
}

}  // namespace
}  // namespace qrt
