// GatherElements row kernels (ops/kernels/gather/gather_elements_row.h): the AVX2 kernel
// gathers the reference's elements along the row's axis and across it, with negative
// indices, ragged ends, and reports the first index out of range where the reference does.
#include "ops/kernels/gather/gather_elements_row.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

std::vector<GatherRow32Fn> Kernels() {
  return ::qrt::testing::KernelsThisCpuRuns<GatherRow32Fn>(ref::GatherRow32, avx2::GatherRow32);
}

TEST(GatherRow32Kernel, ByHand) {
  const std::vector<uint32_t> x = {10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32, 33};  // [3, 4]
  for (GatherRow32Fn f : Kernels()) {
    // Along the row (step 0): x[4 + k] for k = idx.
    const std::vector<int64_t> idx = {3, -1, 0, -4, 2, 1};
    std::vector<uint32_t> out(6);
    EXPECT_EQ(f(x.data(), 4, 1, 0, 4, idx.data(), 6, out.data()), -1);
    EXPECT_EQ(out, (std::vector<uint32_t>{23, 23, 20, 20, 22, 21}));
    // Across rows (stride 4, step 1): x[k * 4 + j].
    const std::vector<int64_t> rows = {2, 0, -1, 1, 0};
    std::vector<uint32_t> col(5);
    EXPECT_EQ(f(x.data(), 0, 4, 1, 3, rows.data(), 4, col.data()), -1);
    EXPECT_EQ((std::vector<uint32_t>(col.begin(), col.begin() + 4)), (std::vector<uint32_t>{30, 11, 32, 23}));
    const std::vector<int64_t> bad = {0, 1, 2, 3, 1, 4, 0, 0};
    std::vector<uint32_t> junk(8);
    EXPECT_EQ(f(x.data(), 0, 1, 0, 4, bad.data(), 8, junk.data()), 5);
    const std::vector<int64_t> low = {0, -5, 0};
    EXPECT_EQ(f(x.data(), 0, 1, 0, 4, low.data(), 3, junk.data()), 1);
  }
}

TEST(GatherRow32Kernel, Avx2EqualsReference) {
  std::mt19937 rng(::qrt::testing::TestSeed());
  std::vector<uint32_t> x(4096);
  for (uint32_t& v : x) v = rng();
  for (int trial = 0; trial < 200; ++trial) {
    const int64_t axis_len = 1 + int64_t(rng() % 32), width = int64_t(rng() % 40);
    const bool along = rng() % 2 == 0;
    const int64_t stride = along ? 1 : 1 + int64_t(rng() % 40);
    std::vector<int64_t> idx(static_cast<size_t>(width));
    for (int64_t& k : idx) k = int64_t(rng() % uint32_t(2 * axis_len)) - axis_len;
    if (width > 0 && rng() % 4 == 0) idx[rng() % idx.size()] = rng() % 2 ? axis_len : -axis_len - 1;
    std::vector<uint32_t> want(static_cast<size_t>(width), 0), got(static_cast<size_t>(width), 0);
    const int64_t base = int64_t(rng() % 64);
    const int64_t want_bad =
        ref::GatherRow32(x.data(), base, stride, along ? 0 : 1, axis_len, idx.data(), width, want.data());
    for (GatherRow32Fn f : Kernels()) {
      std::fill(got.begin(), got.end(), 0u);
      EXPECT_EQ(f(x.data(), base, stride, along ? 0 : 1, axis_len, idx.data(), width, got.data()), want_bad);
      const int64_t valid = want_bad < 0 ? width : want_bad;
      for (int64_t j = 0; j < valid; ++j) EXPECT_EQ(got[size_t(j)], want[size_t(j)]) << "trial " << trial << " j " << j;
    }
  }
}

}  // namespace
}  // namespace qrt
