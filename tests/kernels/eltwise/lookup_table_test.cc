// LookupTable kernels: the reference is the table read; the AVX-512 kernel equals it on every
// byte value, every tail length and a long run.
#include "ops/kernels/eltwise/lookup_table.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace qrt {
namespace {

TEST(LookupTableKernel, ReferenceReadsTheTable) {
  std::vector<uint8_t> table(256), x(256), y(256);
  for (int i = 0; i < 256; ++i) table[size_t(i)] = uint8_t(255 - i), x[size_t(i)] = uint8_t((i * 7) % 256);
  ref::LookupTable(256, x.data(), table.data(), y.data());
  for (int i = 0; i < 256; ++i) EXPECT_EQ(y[size_t(i)], 255 - (i * 7) % 256);
}

TEST(LookupTableKernel, Avx512MatchesReference) {
  if (!DetectCpuFeatures().avx512_vbmi)
    GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX-512 BW + VBMI: qrt:LookupTable runs the reference table walk, "
                    "which is the specification";
  std::mt19937 rng(17);
  std::vector<uint8_t> table(256);
  for (auto& v : table) v = uint8_t(rng());
  for (int64_t n : {0, 1, 2, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 100003}) {
    std::vector<uint8_t> x(static_cast<size_t>(n)), want(static_cast<size_t>(n) + 1, 0xA5),
        got(static_cast<size_t>(n) + 1, 0xA5);
    for (int64_t i = 0; i < n; ++i) x[size_t(i)] = uint8_t(i < 256 ? i : rng());
    ref::LookupTable(n, x.data(), table.data(), want.data());
    avx512::LookupTable(n, x.data(), table.data(), got.data());
    EXPECT_EQ(got, want) << "n " << n;  // includes the guard byte: nothing written past the end
  }
}

}  // namespace
}  // namespace qrt
