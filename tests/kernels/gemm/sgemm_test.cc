// The ordered GEMM (ops/kernels/gemm/sgemm.h): hand-checked values that pin each summation order,
// the k-block rule, and the AVX2 kernel bit-identical to the reference on random shapes.
#include "ops/kernels/gemm/sgemm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::FirstDiff;
using ::qrt::testing::TestSeed;

constexpr float kBig = 16777216.f;  // 2^24: kBig + 1 rounds back to kBig (tie to even)

std::vector<float> Gemm(SgemmFn f, int64_t m, int64_t n, int64_t k, const std::vector<float>& a,
                        const std::vector<float>& b, bool trans_b, bool accumulate, std::vector<float> c) {
  SgemmArgs g;
  g.m = m, g.n = n, g.k = k;
  g.a = a.data(), g.lda = k;
  g.b = b.data(), g.ldb = trans_b ? k : n, g.trans_b = trans_b;
  c.push_back(-7.f);  // guard
  g.c = c.data(), g.ldc = n;
  g.accumulate = accumulate;
  f(g);
  EXPECT_EQ(c.back(), -7.f) << "wrote past the end";
  c.pop_back();
  return c;
}

std::vector<SgemmFn> Kernels() {
  return ::qrt::testing::KernelsThisCpuRuns<SgemmFn>(ref::Sgemm, avx2::Sgemm, avx512::Sgemm);
}

std::vector<SgemmOneRowFn> OneRowKernels() {
  return ::qrt::testing::KernelsThisCpuRuns<SgemmOneRowFn>(ref::SgemmOneRow, avx2::SgemmOneRow, avx512::SgemmOneRow);
}

TEST(SgemmStrideK, Rule) {
  EXPECT_EQ(SgemmStrideK(3136, 144), 128);  // n >= k, k > 64: stays 128
  EXPECT_EQ(SgemmStrideK(12544, 27), 32);   // halved while half of it is >= k
  EXPECT_EQ(SgemmStrideK(49, 1152), 256);   // n < k: n stride 128 -> 64 (>= 49), k block doubles once
  EXPECT_EQ(SgemmStrideK(1, 49), 1024);     // n stride down to 16: three doublings
  EXPECT_EQ(SgemmStrideK(100, 1152), 128);  // half the n stride (64) < 100: no change
}

// m == 1, B not transposed: groups of four products summed left to right, each group added
// to C. Products 2^24, 1, 1, -2^24 | 1: ((2^24 + 1) + 1) - 2^24 = 0 (each +1 is lost to the
// tie-to-even), then c = 1 + 0 = 1.
TEST(Sgemm, OneRowGroupsOfFour) {
  const std::vector<float> a{kBig, 1, 1, -kBig, 1};
  const std::vector<float> b{1, 1, 1, 1, 1};          // k x n with n = 1
  const std::vector<float> a2{1, kBig, 1, 1, -kBig};  // group 1 = 2^24, then -2^24 + 2^24 = 0
  // k = 7 is 4 + 2 + 1: 0 | 2^24, 1 | 1 gives 2^24 (a pairwise (1 + 1) + 2^24 would not).
  const std::vector<float> a3{0, 0, 0, 0, kBig, 1, 1};
  const std::vector<float> b7(7, 1.f);
  for (SgemmFn f : Kernels()) {
    EXPECT_EQ(Gemm(f, 1, 1, 5, a, b, false, false, {0.f}), std::vector<float>{1.f});
    EXPECT_EQ(Gemm(f, 1, 1, 5, a, b, false, true, {3.f}), std::vector<float>{4.f});  // 0 + 3, then 1 + 3
    EXPECT_EQ(Gemm(f, 1, 1, 5, a2, b, false, false, {0.f}), std::vector<float>{0.f});
    EXPECT_EQ(Gemm(f, 1, 1, 7, a3, b7, false, false, {0.f}), std::vector<float>{kBig});
  }
}

// m == 1, B transposed: lane l sums products l, l + 8, ...; then ((s0+s1)+(s2+s3)) +
// ((s4+s5)+(s6+s7)). Products 2^24, 1, 1, -2^24, 1 in lanes 0..4: (2^24 + 1) -> 2^24,
// (1 - 2^24) exactly, their sum 1; then + (1 + 0) + 0: total 2 (left to right gives 1).
TEST(Sgemm, OneRowTransposedLanes) {
  const std::vector<float> a{kBig, 1, 1, -kBig, 1};
  const std::vector<float> b{1, 1, 1, 1, 1};  // n x k with n = 1
  // k = 9: lane 0 = 1 + 1 (products 0 and 8), lane 1 = 2^24, lane 2 = -2^24:
  // (2 + 2^24) + (-2^24 + 0) = 2; left to right would give 1.
  std::vector<float> a9(9, 0.f);
  a9[0] = 1, a9[1] = kBig, a9[2] = -kBig, a9[8] = 1;
  const std::vector<float> b9(9, 1.f);
  for (SgemmFn f : Kernels()) {
    EXPECT_EQ(Gemm(f, 1, 1, 5, a, b, true, false, {0.f}), std::vector<float>{2.f});
    EXPECT_EQ(Gemm(f, 1, 1, 5, a, b, true, true, {0.5f}), std::vector<float>{2.5f});
    EXPECT_EQ(Gemm(f, 1, 1, 9, a9, b9, true, false, {0.f}), std::vector<float>{2.f});
  }
}

// m > 1: fused multiply-adds. x = 1 + 2^-12: x * x = 1 + 2^-11 + 2^-24 is not a float (the
// 2^-24 is half an ulp: a separate multiply rounds it away), fma(x, x, -1) keeps it.
TEST(Sgemm, RowsUseFusedMultiplyAdd) {
  const float x = 1.f + std::ldexp(1.f, -12);
  const std::vector<float> a{-1, x, 0, 0};  // 2 x 2, row 0 = [-1, x]
  const std::vector<float> b{1, x};         // 2 x 1
  const float expected = std::ldexp(1.f, -11) + std::ldexp(1.f, -24);
  for (SgemmFn f : Kernels()) {
    const auto c = Gemm(f, 2, 1, 2, a, b, false, false, {9.f, 9.f});
    EXPECT_EQ(c[0], expected);
    EXPECT_EQ(c[1], 0.f);
  }
}

// m > 1, k blocks: n = 200 >= k = 130 gives blocks of 128, so products 128 and 129 form a
// second block whose sum (2) is added to the first (2^24): 2^24 + 2. One running sum would
// lose both ones: 2^24.
TEST(Sgemm, KBlocksAddedToC) {
  const int64_t m = 2, n = 200, k = 130;
  std::vector<float> a(size_t(m * k), 0.f), b(size_t(k * n), 1.f);
  a[0] = kBig, a[128] = 1, a[129] = 1;
  for (SgemmFn f : Kernels()) {
    auto c = Gemm(f, m, n, k, a, b, false, false, std::vector<float>(size_t(m * n), 9.f));
    EXPECT_EQ(c[0], kBig + 2);
    EXPECT_EQ(c[n - 1], kBig + 2);
    EXPECT_EQ(c[n], 0.f);
    // Accumulating, block 1 is added to C first: (1 + 2^24) -> 2^24, then + 2.
    c = Gemm(f, m, n, k, a, b, false, true, std::vector<float>(size_t(m * n), 1.f));
    EXPECT_EQ(c[0], kBig + 2);
    EXPECT_EQ(c[n], 1.f);
  }
}

TEST(Sgemm, EmptyReduction) {
  for (SgemmFn f : Kernels()) {
    for (bool trans : {false, true}) {
      EXPECT_EQ(Gemm(f, 1, 3, 0, {}, {}, trans, false, {4, 4, 4}), (std::vector<float>{0, 0, 0}));
      EXPECT_EQ(Gemm(f, 1, 3, 0, {}, {}, trans, true, {4, 4, 4}), (std::vector<float>{4, 4, 4}));
    }
    EXPECT_EQ(Gemm(f, 2, 2, 0, {}, {}, false, false, {4, 4, 4, 4}), (std::vector<float>{0, 0, 0, 0}));
  }
}

// The AVX2 (and AVX-512) kernels against the reference: every shape class (row and column tails, several
// k blocks, one row, transposed B), accumulate on and off, random values with cancellation.
TEST(Sgemm, Avx2MatchesReference) {
  QRT_REQUIRE_AVX2();
  std::mt19937 rng(TestSeed());
  std::normal_distribution<float> dist(0.f, 1.f);
  const int64_t shapes[][3] = {{1, 1, 1},   {1, 37, 9},    {1, 300, 49},  {1, 5, 1280},  {2, 7, 3},
                               {3, 24, 27}, {4, 25, 130},  {5, 49, 1152}, {7, 241, 64},  {16, 3136, 16},
                               {9, 1, 600}, {6, 17, 1025}, {13, 97, 40},  {12, 64, 300}, {8, 500, 33}};
  for (const auto& s : shapes) {
    const int64_t m = s[0], n = s[1], k = s[2];
    for (bool trans : {false, true}) {
      for (bool acc : {false, true}) {
        std::vector<float> a(size_t(m * k)), b(size_t(k * n)), c(size_t(m * n));
        for (float& v : a) v = dist(rng);
        for (float& v : b) v = dist(rng) * 1000.f;
        for (float& v : c) v = dist(rng);
        const auto want = Gemm(ref::Sgemm, m, n, k, a, b, trans, acc, c);
        for (SgemmFn f : Kernels()) {
          const auto got = Gemm(f, m, n, k, a, b, trans, acc, c);
          EXPECT_EQ(FirstDiff(want.data(), got.data(), want.size() * 4, true), -1)
              << "m " << m << " n " << n << " k " << k << " trans " << trans << " acc " << acc << " seed "
              << TestSeed();
        }
      }
    }
  }
}

// Infinities and NaN pass through both kernels the same way.
TEST(Sgemm, SpecialValuesMatch) {
  QRT_REQUIRE_AVX2();
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const std::vector<float> a{1, inf, -inf, 0, nan, 2, -0.f, 3, 1, 1, 1, 1};
  const std::vector<float> b{1, 2, 3, 4, 5, 6, 0, -1, 2, inf, 1, 1};
  for (int64_t m : {1, 2, 3}) {
    const int64_t k = 4, n = 1;
    std::vector<float> av(a.begin(), a.begin() + m * k), bv(b.begin(), b.begin() + k * n);
    for (bool trans : {false, true}) {
      const auto want = Gemm(ref::Sgemm, m, n, k, av, bv, trans, false, std::vector<float>(size_t(m * n)));
      const auto got = Gemm(avx2::Sgemm, m, n, k, av, bv, trans, false, std::vector<float>(size_t(m * n)));
      EXPECT_EQ(FirstDiff(want.data(), got.data(), want.size() * 4, true), -1) << "m " << m << " trans " << trans;
    }
  }
}

// one_row_kernels off (Gemm with transA or alpha != 1): a single row takes the m > 1 order,
// fused multiply-adds; x = 1 + 2^-12 as in RowsUseFusedMultiplyAdd. alpha scales each block.
TEST(Sgemm, GeneralOrderForOneRowAndAlpha) {
  const float x = 1.f + std::ldexp(1.f, -12);
  const std::vector<float> a{-1, x}, b{1, x};
  for (SgemmFn f : Kernels()) {
    float c = 0.f;
    SgemmArgs g;
    g.m = 1, g.n = 1, g.k = 2, g.a = a.data(), g.lda = 2, g.b = b.data(), g.ldb = 1, g.c = &c, g.ldc = 1;
    f(g);
    EXPECT_EQ(c, std::ldexp(1.f, -11));  // one-row groups: x * x rounded first
    g.one_row_kernels = false;
    f(g);
    EXPECT_EQ(c, std::ldexp(1.f, -11) + std::ldexp(1.f, -24));  // fused
    g.alpha = 2.f;
    f(g);
    EXPECT_EQ(c, std::ldexp(1.f, -10) + std::ldexp(1.f, -23));
  }
  // Random shapes: every kernel bit-identical to the reference with alpha and accumulate.
  std::mt19937 rng(TestSeed());
  std::normal_distribution<float> dist(0.f, 1.f);
  for (int64_t m : {1, 3, 7}) {
    const int64_t n = 45, k = 300;
    std::vector<float> av(size_t(m * k)), bv(size_t(k * n)), c0(size_t(m * n));
    for (float& v : av) v = dist(rng);
    for (float& v : bv) v = dist(rng);
    for (float& v : c0) v = dist(rng);
    for (bool acc : {false, true}) {
      auto run = [&](SgemmFn f) {
        std::vector<float> c = c0;
        SgemmArgs g;
        g.m = m, g.n = n, g.k = k, g.a = av.data(), g.lda = k, g.b = bv.data(), g.ldb = n, g.c = c.data(), g.ldc = n;
        g.accumulate = acc, g.one_row_kernels = false, g.alpha = 0.37f;
        f(g);
        return c;
      };
      const auto want = run(ref::Sgemm);
      for (SgemmFn f : Kernels()) {
        const auto got = run(f);
        EXPECT_EQ(FirstDiff(want.data(), got.data(), want.size() * 4, true), -1) << "m " << m << " acc " << acc;
      }
    }
  }
}

// A packed B (an initializer ORT packs when it loads the model): k blocks of 256 whatever n,
// and no one-row order. n = 9 < k = 300 would give one block of 1024 unpacked; packed, product
// 256 starts a second block, so 2^24 + 1 + 1 keeps both ones (2^24 + 2), where one running sum
// loses them (2^24). One row takes the fused general order too.
TEST(Sgemm, PackedBCutsKAt256) {
  EXPECT_EQ(SgemmStrideK(9, 300), 1024);
  const int64_t n = 9, k = 300;
  for (int64_t m : {1, 3}) {
    std::vector<float> a(size_t(m * k), 0.f), b(size_t(k * n), 1.f);
    a[0] = kBig, a[256] = 1, a[257] = 1;
    for (SgemmFn f : Kernels()) {
      for (bool packed : {false, true}) {
        std::vector<float> c(size_t(m * n), 5.f);
        SgemmArgs g;
        g.m = m, g.n = n, g.k = k, g.a = a.data(), g.lda = k, g.b = b.data(), g.ldb = n, g.c = c.data(), g.ldc = n;
        g.packed_b = packed;
        f(g);
        // Unpacked, one row sums in groups of four (products 256..259 make 2 first).
        EXPECT_EQ(c[0], packed || m == 1 ? kBig + 2 : kBig) << "m " << m << " packed " << packed;
      }
    }
  }
  // One row, packed: the fused order (x * x + -1 not rounded first), as GeneralOrderForOneRowAndAlpha.
  const float x = 1.f + std::ldexp(1.f, -12);
  const std::vector<float> a{-1, x}, b{1, x};
  for (SgemmFn f : Kernels()) {
    float c = 0.f;
    SgemmArgs g;
    g.m = 1, g.n = 1, g.k = 2, g.a = a.data(), g.lda = 2, g.b = b.data(), g.ldb = 1, g.c = &c, g.ldc = 1;
    g.packed_b = true;
    f(g);
    EXPECT_EQ(c, std::ldexp(1.f, -11) + std::ldexp(1.f, -24));
  }
}

// With alpha != 1, a block added to C is one fused step c = fma(acc, alpha, c) (MLAS scales its
// accumulators in the store). acc = 1 + 2^-23 (block 2: two products), alpha = 1 + 2^-23 and
// C = -1 - 2^-22 after block 1: the exact result 2^-46 survives only when fused.
TEST(Sgemm, AlphaFusedIntoTheAddedBlocks) {
  const float e = std::ldexp(1.f, -23);
  const int64_t n = 200, k = 130;  // blocks of 128
  const float alpha = 1.f + e;
  for (SgemmFn f : Kernels()) {
    std::vector<float> a(size_t(2 * k), 0.f), b(size_t(k * n), 1.f);
    a[128] = 1.f, a[129] = e;  // block 2's sum: 1 + 2^-23
    std::vector<float> c(size_t(2 * n), -(1.f + 2 * e));
    SgemmArgs g;
    g.m = 2, g.n = n, g.k = k, g.a = a.data(), g.lda = k, g.b = b.data(), g.ldb = n, g.c = c.data(), g.ldc = n;
    g.accumulate = true, g.alpha = alpha;
    f(g);
    // Block 1 adds fma(0, alpha, C) = C; block 2: (1 + e)(1 + e) - (1 + 2e) = e^2 exactly.
    EXPECT_EQ(c[0], e * e);
    EXPECT_EQ(c[n - 1], e * e);
  }
}

// SgemmOneRow (rows given by pointer) is the m == 1 group order: equal to Sgemm on the same
// matrix, for the reference and every SIMD kernel this CPU runs.
TEST(SgemmOneRow, SameAsOneRowGemm) {
  std::mt19937 rng(TestSeed());
  std::normal_distribution<float> dist(0.f, 1.f);
  for (int64_t k : {1, 2, 3, 9, 27, 49}) {
    for (int64_t n : {1, 7, 8, 15, 16, 17, 28, 31, 33, 48, 56, 64, 100, 112, 130}) {
      std::vector<float> a(static_cast<size_t>(k)), b(static_cast<size_t>(k * n));
      for (float& v : a) v = dist(rng);
      for (float& v : b) v = dist(rng) * 100.f;
      const auto want = Gemm(ref::Sgemm, 1, n, k, a, b, false, false, std::vector<float>(size_t(n)));
      std::vector<const float*> rows(static_cast<size_t>(k));
      for (int64_t p = 0; p < k; ++p) rows[size_t(p)] = b.data() + p * n;
      for (SgemmOneRowFn f : OneRowKernels()) {
        std::vector<float> got(size_t(n) + 1, -7.f);
        f(k, a.data(), rows.data(), n, nullptr, got.data());
        EXPECT_EQ(got.back(), -7.f) << "wrote past the end";
        got.pop_back();
        EXPECT_EQ(FirstDiff(want.data(), got.data(), want.size() * 4, true), -1) << "k " << k << " n " << n;
      }
    }
  }
}

// B's rows given by pointer (b_rows, rows scattered in memory, optionally in segments with
// gaps) give exactly the m > 1 order on the same matrix, for every kernel: k blocks from
// rule_n, accumulate, alpha, bias, threads, and m == 1 (which then also takes the m > 1 order).
TEST(Sgemm, RowsByPointerSameAsMatrix) {
  std::mt19937 rng(TestSeed());
  std::normal_distribution<float> dist(0.f, 1.f);
  for (int64_t segment : {0, 5, 16, 70}) {
    for (int64_t m : {1, 2, 5, 7, 13}) {
      for (int64_t k : {1, 3, 17, 130, 300}) {
        for (int64_t n : {1, 15, 64, 100, 300}) {
          std::vector<float> a(static_cast<size_t>(m * k)), b(static_cast<size_t>(k * n)),
              c0(static_cast<size_t>(m * n)), bias(static_cast<size_t>(m));
          for (float& v : a) v = dist(rng);
          for (float& v : b) v = dist(rng) * 50.f;
          for (float& v : c0) v = dist(rng);
          for (float& v : bias) v = dist(rng);
          // Row p of B at slot (p * 7) % k of a separate buffer (7 is coprime to every k here);
          // with segments, every `segment` elements are followed by a gap of 3.
          const int64_t step = segment + 3, segments = segment > 0 ? (n + segment - 1) / segment : 1;
          const int64_t slot = segment > 0 ? segments * step : n + 1;
          std::vector<float> scattered(static_cast<size_t>(k * slot), -1e30f);
          std::vector<const float*> rows(static_cast<size_t>(k));
          for (int64_t p = 0; p < k; ++p) {
            float* dst = scattered.data() + ((p * 7) % k) * slot;
            for (int64_t j = 0; j < n; ++j) {
              dst[segment > 0 ? (j / segment) * step + j % segment : j] = b[size_t(p * n + j)];
            }
            rows[size_t(p)] = dst;
          }
          const bool accumulate = (m + k + n) % 2 == 0;
          const float alpha = k % 3 == 0 ? 0.5f : 1.f;
          auto run = [&](SgemmFn f, bool by_pointer) {
            std::vector<float> c = c0;
            SgemmArgs g;
            g.m = m, g.n = n, g.k = k, g.a = a.data(), g.lda = k;
            if (by_pointer)
              g.b_rows = rows.data(), g.b_segment = segment, g.b_segment_step = step;
            else
              g.b = b.data(), g.ldb = n;
            g.c = c.data(), g.ldc = n, g.accumulate = accumulate, g.alpha = alpha, g.bias = bias.data();
            g.rule_n = 3 * n;
            g.one_row_kernels = false;
            g.threads = 2;
            f(g);
            return c;
          };
          const std::vector<float> want = run(ref::Sgemm, false);
          for (SgemmFn f : Kernels()) {
            const std::vector<float> got = run(f, true);
            ASSERT_EQ(FirstDiff(want.data(), got.data(), want.size() * 4, true), -1)
                << "segment " << segment << " m " << m << " k " << k << " n " << n;
          }
        }
      }
    }
  }
}

// The bias is added once the sum is complete: products 1, 1 and bias 2^24 give 2^24 + 2
// (a bias added first would absorb each 1), in all three orders and in SgemmOneRow.
TEST(Sgemm, BiasAddedLast) {
  const std::vector<float> ones{1, 1, 1, 1};  // A: 2 x 2 (or 1 x 2), B: 2 x 2
  const float bias[2] = {kBig, kBig};
  const float want = kBig + 2;
  for (SgemmFn f : Kernels()) {
    for (int64_t m : {1, 2}) {
      for (bool trans : {false, true}) {
        std::vector<float> c(4, 9.f);
        SgemmArgs g;
        g.m = m, g.n = 2, g.k = 2, g.a = ones.data(), g.lda = 2, g.b = ones.data(), g.ldb = 2, g.trans_b = trans;
        g.c = c.data(), g.ldc = 2, g.bias = bias;
        f(g);
        for (int64_t i = 0; i < m * 2; ++i) EXPECT_EQ(c[size_t(i)], want) << "m " << m << " trans " << trans;
      }
    }
  }
  const float* rows[2] = {ones.data(), ones.data()};
  for (SgemmOneRowFn f : OneRowKernels()) {
    float c[2] = {0, 0};
    f(2, ones.data(), rows, 2, bias, c);
    EXPECT_EQ(c[0], want);
    EXPECT_EQ(c[1], want);
  }
}

// The output epilogue (fake quantization, per-row PRelu, fake quantization) is applied once to
// every element after its last k block and its bias, on every path: k == 0, one row (both B
// layouts), several k blocks with more rows than a tile, transposed B with several rows, and
// columns split across threads. Its result equals the reference GEMM followed by the three
// steps applied by hand.
TEST(Sgemm, EpilogueOnceAfterTheSumOnEveryPath) {
  std::mt19937 rng(TestSeed());
  std::normal_distribution<float> dist(0.f, 1.f);
  struct Shape {
    int64_t m, n, k;
    bool trans_b;
  };
  const Shape shapes[] = {{3, 10, 0, false},     {1, 40, 9, false}, {1, 40, 9, true},
                          {13, 300, 300, false}, {7, 33, 20, true}, {20, 700, 70, false}};
  for (const Shape& sh : shapes) {
    std::vector<float> a(static_cast<size_t>(sh.m * sh.k)), b(static_cast<size_t>(sh.k * sh.n)),
        bias(static_cast<size_t>(sh.m)), slope(static_cast<size_t>(sh.m));
    for (float& v : a) v = dist(rng);
    for (float& v : b) v = dist(rng) * 4.f;
    for (float& v : bias) v = dist(rng);
    for (float& v : slope) v = dist(rng);
    OutputEpilogue e;
    e.before = {ref::QuantizeDequantizeU8, 0.07f, 128};
    e.slope = slope.data();
    e.after = {ref::QuantizeDequantizeS8, 0.05f, -3};
    auto run = [&](SgemmFn f, const OutputEpilogue* epilogue) {
      std::vector<float> c(static_cast<size_t>(sh.m * sh.n) + 1, -7.f);
      SgemmArgs g;
      g.m = sh.m, g.n = sh.n, g.k = sh.k, g.a = a.data(), g.lda = sh.k;
      g.b = b.data(), g.ldb = sh.trans_b ? sh.k : sh.n, g.trans_b = sh.trans_b;
      g.c = c.data(), g.ldc = sh.n, g.bias = bias.data(), g.epilogue = epilogue, g.threads = 2;
      f(g);
      EXPECT_EQ(c.back(), -7.f) << "wrote past the end";
      c.pop_back();
      return c;
    };
    std::vector<float> want = run(ref::Sgemm, nullptr);
    for (int64_t i = 0; i < sh.m; ++i) {
      float* row = want.data() + i * sh.n;
      ref::QuantizeDequantizeU8(sh.n, row, 0.07f, 128, row);
      for (int64_t j = 0; j < sh.n; ++j) row[j] = row[j] < 0.f ? row[j] * slope[size_t(i)] : row[j];
      ref::QuantizeDequantizeS8(sh.n, row, 0.05f, -3, row);
    }
    for (SgemmFn f : Kernels()) {
      const std::vector<float> got = run(f, &e);
      EXPECT_EQ(FirstDiff(want.data(), got.data(), want.size() * 4, false), -1)
          << "m " << sh.m << " n " << sh.n << " k " << sh.k << " trans_b " << sh.trans_b;
    }
  }
}

// B' as 8-bit codes (avx2::SgemmRowLanesCoded): bit-identical to the reference on the floats the
// codes stand for, (float(code) - zp) * scale per row, for both code types, zero points at the
// ends of their range or all 0 (symmetric weights, zero_points_zero), k and n with every tail,
// accumulating or not, with and without a bias.
TEST(Sgemm, CodedRowsMatchTheFloatWeights) {
  QRT_REQUIRE_AVX2();
  std::mt19937 rng(::qrt::testing::TestSeed());
  for (int kind = 0; kind < 3; ++kind) {
    const bool is_signed = kind > 0, symmetric = kind == 2;
    for (int64_t k : {1, 7, 8, 9, 16, 23, 1280}) {
      for (int64_t n : {1, 3, 4, 5, 13}) {
        const int lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
        const int64_t stride = (k + 7) / 8 * 8;
        std::vector<uint8_t> codes(static_cast<size_t>(n * stride));
        std::vector<float> scales(static_cast<size_t>(n)), zero_points(static_cast<size_t>(n));
        std::vector<float> b(static_cast<size_t>(n * k)), a(static_cast<size_t>(k));
        for (int64_t j = 0; j < n; ++j) {
          const int zp = symmetric ? 0 : j % 3 == 0 ? lo : j % 3 == 1 ? hi : lo + int(rng() % uint32_t(hi - lo + 1));
          zero_points[size_t(j)] = float(zp);
          scales[size_t(j)] = (j % 2 ? -1.f : 1.f) * std::ldexp(1.f + float(rng() % 1000) / 997.f, -int(rng() % 12));
          for (int64_t p = 0; p < stride; ++p) {
            const int code = p < k ? lo + int(rng() % uint32_t(hi - lo + 1)) : zp;
            codes[size_t(j * stride + p)] = uint8_t(code);
            if (p < k) b[size_t(j * k + p)] = (float(code) - float(zp)) * scales[size_t(j)];
          }
        }
        std::uniform_real_distribution<float> u(-4.f, 4.f);
        for (float& v : a) v = rng() % 8 == 0 ? 0.f : u(rng);
        std::vector<float> c0(static_cast<size_t>(n));
        for (float& v : c0) v = u(rng);
        std::vector<uint8_t> interleaved(codes.size());
        InterleaveCodedRows(codes.data(), n, stride, interleaved.data());
        const CodedB coded{interleaved.data(), stride, is_signed, scales.data(), zero_points.data(), symmetric};
        for (bool accumulate : {false, true}) {
          for (bool with_bias : {false, true}) {
            const float bias = 0.375f;
            SgemmArgs g;
            g.m = 1, g.n = n, g.k = k;
            g.a = a.data(), g.lda = k;
            g.b = b.data(), g.ldb = k, g.trans_b = true;
            g.accumulate = accumulate;
            g.bias = with_bias ? &bias : nullptr;
            std::vector<float> want = c0, got = c0;
            got.push_back(-7.f);  // guard
            g.c = want.data(), g.ldc = n;
            ref::Sgemm(g);
            g.b = nullptr;  // the coded kernel must not read it
            g.c = got.data();
            avx2::SgemmRowLanesCoded(g, coded);
            EXPECT_EQ(got.back(), -7.f) << "wrote past the end";
            got.pop_back();
            EXPECT_EQ(::qrt::testing::FirstDiff(want.data(), got.data(), want.size() * sizeof(float), true), -1)
                << "signed " << is_signed << " symmetric " << symmetric << " k " << k << " n " << n << " accumulate "
                << accumulate;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace qrt
