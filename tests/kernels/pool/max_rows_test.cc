// MaxRows: the reference is MaxPool's rule, checked here on hand-made cases (ties between
// signed zeros, the first NaN, -inf); the SIMD kernels this CPU runs equal it bit for bit on
// random rows full of those traps, for every row length and tap count.
#include "ops/kernels/pool/max_rows.h"

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
using ::qrt::testing::FromBits;

std::vector<MaxRowsFn> Kernels() {
  return ::qrt::testing::KernelsThisCpuRuns<MaxRowsFn>(ref::MaxRows, avx2::MaxRows, avx512::MaxRows);
}

TEST(MaxRows, ReferenceKeepsTheFirstOfTiesAndTheFirstNaN) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan1 = FromBits(0x7fc00001), nan2 = FromBits(0xffc00002);
  // Column j of each case: the taps in order, and the bits the rule keeps.
  const std::vector<std::pair<std::vector<float>, float>> cases = {
      {{-0.f, 0.f}, -0.f},  {{0.f, -0.f}, 0.f},      {{1.f, nan1, nan2, 5.f}, nan1}, {{nan2, 7.f}, nan2},
      {{-inf, -inf}, -inf}, {{-inf, 3.f, 2.f}, 3.f}, {{2.f, 2.f, -1.f}, 2.f},        {{-5.f}, -5.f},
  };
  for (const auto& [taps, want] : cases) {
    std::vector<const float*> rows;
    for (const float& t : taps) rows.push_back(&t);
    for (MaxRowsFn f : Kernels()) {
      float y = 123.f;
      f(int64_t(rows.size()), rows.data(), 1, &y);
      EXPECT_EQ(Bits(y), Bits(want)) << "taps " << taps.size() << " first " << taps[0];
    }
  }
}

TEST(MaxRows, SimdMatchesReferenceBitForBit) {
  std::mt19937 rng(::qrt::testing::TestSeed());
  const float traps[] = {0.f,
                         -0.f,
                         FromBits(0x7fc00001),
                         FromBits(0xffc00007),
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(),
                         1.f,
                         1.f,
                         -1.f};
  std::uniform_real_distribution<float> u(-4.f, 4.f);
  for (int64_t k : {1, 2, 9, 25}) {
    for (int64_t n = 0; n <= 70; ++n) {
      std::vector<std::vector<float>> data(static_cast<size_t>(k), std::vector<float>(static_cast<size_t>(n)));
      for (auto& row : data) {
        for (float& v : row) v = rng() % 4 == 0 ? traps[rng() % 9] : float(int(u(rng)));  // integers: many ties
      }
      std::vector<const float*> rows;
      for (auto& row : data) rows.push_back(row.data());
      std::vector<float> want(size_t(n) + 1, 9.f);
      ref::MaxRows(k, rows.data(), n, want.data());
      for (MaxRowsFn f : Kernels()) {
        std::vector<float> got(size_t(n) + 1, 9.f);
        f(k, rows.data(), n, got.data());
        ASSERT_EQ(std::memcmp(want.data(), got.data(), (size_t(n) + 1) * 4), 0) << "k " << k << " n " << n;
      }
    }
  }
}

// The byte kernels against the reference: every length to 100 (vectors, overlapped last vectors,
// rows shorter than one vector), both types, the ends of their ranges; rows readable 31 bytes
// past n, as the contract says.
TEST(MaxRows, BytesMatchTheReference) {
  std::mt19937 rng(::qrt::testing::TestSeed());
  for (bool is_signed : {false, true}) {
    for (int64_t k : {1, 3, 25}) {
      for (int64_t n = 1; n <= 100; ++n) {
        std::vector<std::vector<uint8_t>> data(static_cast<size_t>(k), std::vector<uint8_t>(size_t(n) + 31));
        for (auto& row : data) {
          for (uint8_t& v : row) v = rng() % 4 == 0 ? uint8_t(rng() % 2 ? 0x80 : 0x7f) : uint8_t(rng());
        }
        std::vector<const uint8_t*> rows;
        for (auto& row : data) rows.push_back(row.data());
        std::vector<uint8_t> want(size_t(n) + 1, 0xA5), got(size_t(n) + 1, 0xA5);
        ref::MaxRowsBytes(k, rows.data(), n, is_signed, want.data());
        SelectMaxRowsBytes(kIsaAuto)(k, rows.data(), n, is_signed, got.data());
        ASSERT_EQ(got, want) << "k " << k << " n " << n << (is_signed ? " int8" : " uint8");
        int32_t top = is_signed ? -128 : 0;  // the reference itself: the largest of the column
        for (int64_t t = 0; t < k; ++t)
          top = std::max(top, is_signed ? int32_t(int8_t(data[size_t(t)][0])) : int32_t(data[size_t(t)][0]));
        ASSERT_EQ(is_signed ? int32_t(int8_t(want[0])) : int32_t(want[0]), top);
      }
    }
  }
}

}  // namespace
}  // namespace qrt
