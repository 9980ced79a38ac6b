#include "ops/kernels/common/byte_pairs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

// The weights a row's split kept plus its corrections: the row as it was.
std::vector<int32_t> Rebuilt(const std::vector<int32_t>& kept, const PairCorrections& fix, size_t row) {
  std::vector<int32_t> w = kept;
  for (int32_t i = fix.start[row]; i < fix.start[row + 1]; ++i) {
    EXPECT_NE(fix.e[size_t(i)], 0) << "an entry that corrects nothing";
    w[size_t(fix.k[size_t(i)])] += fix.e[size_t(i)];
  }
  return w;
}

// The extremes of every word of two quads' VPMADDUBSW sums added in int16 (k = 8j + 2l + {0, 1,
// 4, 5}), over any bytes 0..255: bytes of 255 where a weight's sign wins, 0 elsewhere.
void ExpectWordsInInt16(const std::vector<int32_t>& w) {
  const int64_t k = int64_t(w.size());
  for (int64_t first = 0; first < k; first += 8) {
    for (int64_t word = 0; word < 2; ++word) {
      int64_t high = 0, low = 0;
      for (int64_t at : {0, 1, 4, 5}) {
        if (first + 2 * word + at >= k) continue;
        const int32_t e = w[size_t(first + 2 * word + at)];
        (e > 0 ? high : low) += 255 * int64_t(e);
      }
      EXPECT_LE(high, 32767) << "word " << word << " of quads from k " << first;
      EXPECT_GE(low, -32768) << "word " << word << " of quads from k " << first;
    }
  }
}

TEST(SplitSaturatingQuadPairs, KeepsEveryWordInInt16AndLosesNothing) {
  std::mt19937 rng(testing::TestSeed());
  for (int64_t k : {1, 2, 3, 5, 8, 11, 16, 37, 64, 200}) {
    for (int spread : {256, 96, 40}) {  // full range, and the narrower weights real layers have
      std::vector<int32_t> w(static_cast<size_t>(k));
      for (int32_t& v : w) v = std::clamp(int32_t(rng() % uint32_t(spread)) - spread / 2, -128, 127);
      std::vector<int32_t> kept = w;
      PairCorrections fix;
      SplitSaturatingQuadPairs(kept.data(), k, &fix);
      ASSERT_EQ(fix.start.size(), 2u);
      EXPECT_EQ(Rebuilt(kept, fix, 0), w) << "k " << k;
      ExpectWordsInInt16(kept);
      for (size_t i = 0; i < kept.size(); ++i) {
        EXPECT_TRUE(kept[i] == 0 || (kept[i] > 0) == (w[i] > 0)) << "a kept weight changed sign";
        EXPECT_LE(std::abs(kept[i]), std::abs(w[i]));
      }
    }
  }
}

// Pairs (k = 2i, 2i + 1): only a pair of one sign past 128 is split, its larger weight (the
// first of equal ones) keeping 128 - |the other|, one entry each.
TEST(SplitSaturatingPairs, SplitsOnlySameSignPairsPast128) {
  std::mt19937 rng(testing::TestSeed());
  for (int64_t k : {1, 2, 7, 64, 201}) {
    std::vector<int32_t> w(static_cast<size_t>(k));
    for (int32_t& v : w) v = int32_t(rng() % 256) - 128;
    std::vector<int32_t> kept = w;
    PairCorrections fix;
    SplitSaturatingPairs(kept.data(), k, &fix);
    EXPECT_EQ(Rebuilt(kept, fix, 0), w) << "k " << k;
    size_t entries = 0;
    for (int64_t i = 0; i + 1 < k; i += 2) {
      const int32_t a = w[size_t(i)], b = w[size_t(i + 1)];
      const bool split = ((a > 0 && b > 0) || (a < 0 && b < 0)) && std::abs(a) + std::abs(b) > 128;
      const int64_t big = std::abs(a) >= std::abs(b) ? i : i + 1, small = big == i ? i + 1 : i;
      if (!split) {
        EXPECT_EQ(kept[size_t(i)], a);
        EXPECT_EQ(kept[size_t(i + 1)], b);
        continue;
      }
      ++entries;
      EXPECT_EQ(std::abs(kept[size_t(big)]), 128 - std::abs(w[size_t(small)])) << "pair at " << i;
      EXPECT_EQ(kept[size_t(small)], w[size_t(small)]);
    }
    EXPECT_EQ(fix.k.size(), entries) << "k " << k;
  }
}

TEST(SplitSaturatingQuadPairs, CutsOnlyPastTheEdgeAndFromTheLargest) {
  // Word 0 of quads 0 and 1 (k = 0, 1, 4, 5), word 1 (k = 2, 3, 6, 7).
  std::vector<int32_t> w = {32, 32, -32, -32, 32, 32, -32, -32};  // 128 of either sign: kept
  PairCorrections fix;
  SplitSaturatingQuadPairs(w.data(), int64_t(w.size()), &fix);
  EXPECT_TRUE(fix.k.empty());

  w = {100, 20, -128, 0, 9, 1, -1, 0};  // 130 over word 0: 2 off the 100; word 1 -129: 1 off -128
  SplitSaturatingQuadPairs(w.data(), int64_t(w.size()), &fix);
  EXPECT_EQ(w, (std::vector<int32_t>{98, 20, -127, 0, 9, 1, -1, 0}));
  EXPECT_EQ(fix.k, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(fix.e, (std::vector<int32_t>{2, -1}));

  w = {127, 127, 0, 0, 127, 127, 0, 0};  // 508: the largest ones first, as few entries as it takes
  SplitSaturatingQuadPairs(w.data(), int64_t(w.size()), &fix);
  EXPECT_EQ(w, (std::vector<int32_t>{0, 0, 0, 0, 1, 127, 0, 0}));
  EXPECT_EQ(fix.start, (std::vector<int32_t>{0, 0, 2, 5}));

  // Opposite signs within a word do not add up: 128 of each sign in both words is kept.
  w = {127, -128, 1, -1, 0, 0, 127, -127};
  SplitSaturatingQuadPairs(w.data(), int64_t(w.size()), &fix);
  EXPECT_EQ(fix.start.back(), 5);
}

}  // namespace
}  // namespace qrt
