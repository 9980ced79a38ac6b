// FloatReduce kernels (ops/kernels/reduce/float_reduce.h): every member this CPU runs gives
// the reference's bits for every fold, map and order, on contiguous runs (every Eigen lead,
// lengths around the packet widths), on columns of adjacent outputs, and on gathered offsets,
// with NaN, infinities and ties of -0 and +0 placed in different lanes. Plus the reference's
// own folds checked against hand-computed values.
#include "ops/kernels/reduce/float_reduce.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::Bits;

std::vector<FloatReduceFn> Kernels() {
  return ::qrt::testing::KernelsThisCpuRuns<FloatReduceFn>(ref::FloatReduce, avx2::FloatReduce);
}

std::vector<FloatReduceSpec> AllSpecs(bool contiguous) {
  std::vector<FloatReduceSpec> out;
  for (ReduceMap map : {ReduceMap::kIdentity, ReduceMap::kAbs, ReduceMap::kSquare}) {
    for (ReduceFold fold : {ReduceFold::kAdd, ReduceFold::kMul, ReduceFold::kMax, ReduceFold::kMin}) {
      for (ReduceOrder order : {ReduceOrder::kSequential, ReduceOrder::kEigen, ReduceOrder::kGroupsOfFour}) {
        if (order == ReduceOrder::kGroupsOfFour && fold != ReduceFold::kAdd) continue;
        if (order == ReduceOrder::kEigen && !contiguous) continue;
        out.push_back({map, fold, order, contiguous});
      }
    }
  }
  return out;
}

std::string Describe(const FloatReduceSpec& s) {
  return "map " + std::to_string(int(s.map)) + " fold " + std::to_string(int(s.fold)) + " order " +
         std::to_string(int(s.order)) + " contiguous " + std::to_string(s.reduced_contiguous);
}

void ExpectSame(const FloatReduceSpec& spec, const std::vector<int64_t>& kept, const std::vector<int64_t>& reduced,
                const std::vector<float>& x, const std::string& what) {
  std::vector<float> want(kept.size());
  ref::FloatReduce(spec, int64_t(kept.size()), kept.data(), int64_t(reduced.size()), reduced.data(), x.data(),
                   want.data());
  for (FloatReduceFn f : Kernels()) {
    std::vector<float> got(kept.size(), 12345.f);
    f(spec, int64_t(kept.size()), kept.data(), int64_t(reduced.size()), reduced.data(), x.data(), got.data());
    for (size_t i = 0; i < kept.size(); ++i) {
      const bool both_nan = std::isnan(got[i]) && std::isnan(want[i]);
      ASSERT_TRUE(both_nan || Bits(got[i]) == Bits(want[i]))
          << what << " " << Describe(spec) << " output " << i << ": " << got[i] << " vs " << want[i];
    }
  }
}

std::vector<int64_t> Iota(int64_t n, int64_t start = 0, int64_t step = 1) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = start + i * step;
  return v;
}

std::vector<float> RandomValues(size_t n, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.f, 2.f);
  std::vector<float> x(n);
  for (float& v : x) v = normal(rng);
  return x;
}

// Rows of length n starting at every offset 0..3 (every Eigen lead): the KR shape.
TEST(FloatReduceKernel, ContiguousRunsEveryLeadAndLength) {
  std::mt19937 rng(::qrt::testing::TestSeed());
  for (int64_t n : {0, 1, 3, 4, 5, 7, 8, 9, 11, 12, 15, 16, 17, 24, 31, 33, 64, 100, 1001}) {
    const std::vector<float> x = RandomValues(size_t(n) + 8, rng);
    for (const FloatReduceSpec& spec : AllSpecs(true)) {
      ExpectSame(spec, {0, 1, 2, 3}, Iota(n), x, "n=" + std::to_string(n));
    }
  }
}

// Eight or more adjacent outputs each over a strided reduced axis (RK and KRK shapes), with a
// ragged end that falls back to one output at a time.
TEST(FloatReduceKernel, AdjacentOutputColumns) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 1);
  for (int64_t inner : {8, 13, 16, 29}) {
    for (int64_t count : {1, 2, 3, 4, 5, 6, 7, 9, 64}) {
      const std::vector<float> x = RandomValues(size_t(inner * count * 2), rng);
      std::vector<int64_t> kept = Iota(inner);
      for (int64_t k = 0; k < inner; ++k) kept.push_back(inner * count + k);  // a second outer index
      for (const FloatReduceSpec& spec : AllSpecs(false)) {
        ExpectSame(spec, kept, Iota(count, 0, inner), x,
                   "inner=" + std::to_string(inner) + " count=" + std::to_string(count));
      }
    }
  }
}

TEST(FloatReduceKernel, SpecialValuesInEveryLane) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::mt19937 rng(::qrt::testing::TestSeed() + 2);
  for (float special : {nan, inf, -inf, 0.f, -0.f}) {
    for (int64_t at = 0; at < 19; at += 3) {
      // Contiguous: 19 elements, the special one at `at`; all-zero rows with one -0 decide the tie rule.
      std::vector<float> x = RandomValues(24, rng);
      x[size_t(at)] = special;
      for (const FloatReduceSpec& spec : AllSpecs(true)) ExpectSame(spec, {0, 1}, Iota(19), x, "special run");
      std::vector<float> zeros(24, 0.f);
      zeros[size_t(at)] = -0.f;
      zeros[size_t(at) + 1] = special;
      for (const FloatReduceSpec& spec : AllSpecs(true)) ExpectSame(spec, {0, 3}, Iota(19), zeros, "zeros run");
      // Columns: 8 outputs x 5 reduced rows, the special value in column at % 8.
      std::vector<float> c = RandomValues(40, rng);
      c[size_t(at % 5) * 8 + size_t(at % 8)] = special;
      for (const FloatReduceSpec& spec : AllSpecs(false)) ExpectSame(spec, Iota(8), Iota(5, 0, 8), c, "special column");
    }
  }
}

TEST(FloatReduceKernel, GatheredOffsets) {  // reduced axes that are neither contiguous nor one stride
  std::mt19937 rng(::qrt::testing::TestSeed() + 3);
  const std::vector<float> x = RandomValues(200, rng);
  const std::vector<int64_t> reduced = {0, 1, 10, 11, 20, 21, 30, 31, 40};
  for (const FloatReduceSpec& spec : AllSpecs(false)) ExpectSame(spec, Iota(12), reduced, x, "gathered");
}

TEST(FloatReduceKernel, ReferenceFoldsByHand) {
  // 1e8 + 1 + 1 - 1e8 in each order: sequential loses both ones, groups of four keeps none,
  // max/min ignore order but return the first NaN.
  const std::vector<float> x = {1e8f, 1.f, 1.f, -1e8f, 3.f};
  const std::vector<int64_t> red = Iota(5), kept = {0};
  float y;
  ref::FloatReduce({ReduceMap::kIdentity, ReduceFold::kAdd, ReduceOrder::kSequential, true}, 1, kept.data(), 5,
                   red.data(), x.data(), &y);
  EXPECT_EQ(y, 3.f);  // ((((1e8 + 1) + 1) - 1e8) + 3)
  ref::FloatReduce({ReduceMap::kSquare, ReduceFold::kMax, ReduceOrder::kSequential, true}, 1, kept.data(), 5,
                   red.data(), x.data(), &y);
  EXPECT_EQ(y, 1e16f);
  ref::FloatReduce({ReduceMap::kAbs, ReduceFold::kMin, ReduceOrder::kSequential, true}, 1, kept.data(), 5, red.data(),
                   x.data(), &y);
  EXPECT_EQ(y, 1.f);
  const std::vector<float> z = {0.f, -0.f, 0.f, -0.f, 0.f, 0.f, 0.f, 0.f, -0.f};
  for (FloatReduceFn f : Kernels()) {
    const std::vector<int64_t> nine = Iota(9);
    f({ReduceMap::kIdentity, ReduceFold::kMax, ReduceOrder::kSequential, true}, 1, kept.data(), 9, nine.data(),
      z.data(), &y);
    EXPECT_EQ(Bits(y), Bits(0.f));  // the first of the tied zeros
    const std::vector<float> nz = {-0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    f({ReduceMap::kIdentity, ReduceFold::kMin, ReduceOrder::kSequential, true}, 1, kept.data(), 9, nine.data(),
      nz.data(), &y);
    EXPECT_EQ(Bits(y), Bits(-0.f));
    f({ReduceMap::kIdentity, ReduceFold::kMul, ReduceOrder::kEigen, true}, 1, kept.data(), 0, nine.data(), nz.data(),
      &y);
    EXPECT_EQ(y, 1.f);  // the empty product
  }
}

}  // namespace
}  // namespace qrt
