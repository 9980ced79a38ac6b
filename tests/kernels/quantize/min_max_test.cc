// RangeWithZero: every kernel this CPU runs against the reference, on lengths around the
// vector and unroll widths, with NaN, infinities, signed zeros and values all of one sign.
#include "ops/kernels/quantize/min_max.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

TEST(RangeWithZero, EveryKernelMatchesTheReference) {
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  std::mt19937 rng(testing::TestSeed());
  std::uniform_real_distribution<float> u(-100.f, 100.f);
  for (RangeWithZeroFn fn : testing::KernelsThisCpuRuns(ref::RangeWithZero, avx2::RangeWithZero)) {
    for (int64_t n : {0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 100, 1000, 100003}) {
      for (int kind = 0; kind < 6; ++kind) {
        std::vector<float> x(static_cast<size_t>(n));
        for (float& v : x) v = u(rng);
        if (kind == 1)
          for (float& v : x) v = std::fabs(v) + 1.f;  // all positive: lo stays +0
        if (kind == 2)
          for (float& v : x) v = -std::fabs(v) - 1.f;  // all negative: hi stays +0
        if (kind == 3)
          for (size_t i = 0; i < x.size(); i += 3) x[i] = nan;
        if (kind == 4 && n > 1) x[size_t(n - 1)] = -inf, x[0] = inf;
        if (kind == 5)
          for (size_t i = 0; i < x.size(); ++i) x[i] = i % 2 ? -0.f : nan;
        float lo = 1, hi = 1, want_lo = 2, want_hi = 2;
        ref::RangeWithZero(n, x.data(), &want_lo, &want_hi);
        fn(n, x.data(), &lo, &hi);
        EXPECT_EQ(Bits(lo), Bits(want_lo)) << "n " << n << " kind " << kind;
        EXPECT_EQ(Bits(hi), Bits(want_hi)) << "n " << n << " kind " << kind;
        if (kind == 1) EXPECT_EQ(Bits(lo), 0u);  // +0, never -0
        if (kind == 5) EXPECT_EQ(Bits(lo), 0u) << "-0 does not replace +0";
        if (kind == 4 && n > 1) EXPECT_EQ(lo, -inf);
      }
    }
  }
}

}  // namespace
}  // namespace qrt
