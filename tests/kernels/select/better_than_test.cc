// TopK's candidate filter (ops/kernels/select/better_than.h): the AVX2 kernel finds the
// reference's positions, in order, for both directions, with NaN, ties with the threshold,
// signed zeros and ragged ends.
#include "ops/kernels/select/better_than.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

std::vector<BetterThanFn> Kernels() {
  return ::qrt::testing::KernelsThisCpuRuns<BetterThanFn>(ref::BetterThan, avx2::BetterThan);
}

TEST(BetterThanKernel, ByHand) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {1, 2, 3, 2, nan, -0.f, 0.f, 5, 2, 1, 9, 2};
  for (BetterThanFn f : Kernels()) {
    std::vector<int64_t> out(x.size());
    out.resize(size_t(f(x.data(), 0, int64_t(x.size()), 2.f, true, out.data())));
    EXPECT_EQ(out, (std::vector<int64_t>{2, 4, 7, 10}));  // equal to 2 is not better; NaN is kept
    out.assign(x.size(), 0);
    out.resize(size_t(f(x.data(), 1, int64_t(x.size()), 0.f, false, out.data())));
    EXPECT_EQ(out, (std::vector<int64_t>{4}));  // -0 does not beat +0
    out.assign(x.size(), 0);
    out.resize(size_t(f(x.data(), 3, 11, 2.f, false, out.data())));
    EXPECT_EQ(out, (std::vector<int64_t>{4, 5, 6, 9}));
  }
}

TEST(BetterThanKernel, Avx2FindsTheReferencePositions) {
  std::mt19937 rng(::qrt::testing::TestSeed());
  std::uniform_int_distribution<int> small(-8, 8);
  for (int trial = 0; trial < 100; ++trial) {
    std::vector<float> x(size_t(1 + rng() % 300));
    for (float& v : x) v = rng() % 50 == 0 ? std::numeric_limits<float>::quiet_NaN() : float(small(rng));
    const int64_t begin = int64_t(rng() % x.size()), end = int64_t(x.size());
    const float t = float(small(rng));
    for (bool largest : {true, false}) {
      std::vector<int64_t> want(x.size()), got(x.size());
      want.resize(size_t(ref::BetterThan(x.data(), begin, end, t, largest, want.data())));
      for (BetterThanFn f : Kernels()) {
        got.assign(x.size(), -1);
        got.resize(size_t(f(x.data(), begin, end, t, largest, got.data())));
        EXPECT_EQ(got, want) << "trial " << trial << " largest " << largest;
      }
    }
  }
}

}  // namespace
}  // namespace qrt
