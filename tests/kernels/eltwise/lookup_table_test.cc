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

void ExpectMatchesReference(LookupTableFn kernel) {
  std::mt19937 rng(17);
  std::vector<uint8_t> table(256);
  for (auto& v : table) v = uint8_t(rng());
  for (int64_t n : {0, 1, 2, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1000, 100003}) {
    std::vector<uint8_t> x(static_cast<size_t>(n)), want(static_cast<size_t>(n) + 1, 0xA5),
        got(static_cast<size_t>(n) + 1, 0xA5);
    for (int64_t i = 0; i < n; ++i) x[size_t(i)] = uint8_t(i < 256 ? i : rng());
    ref::LookupTable(n, x.data(), table.data(), want.data());
    kernel(n, x.data(), table.data(), got.data());
    EXPECT_EQ(got, want) << "n " << n;  // includes the guard byte: nothing written past the end
  }
}

TEST(LookupTableKernel, Avx512MatchesReference) {
  if (!DetectCpuFeatures().avx512_vbmi)
    GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX-512 BW + VBMI: the AVX2 kernel or the reference runs";
  ExpectMatchesReference(avx512::LookupTable);
}

TEST(LookupTableKernel, Avx2MatchesReference) {
  if (!DetectCpuFeatures().avx2) GTEST_SKIP() << "CPU (or QRT_MAX_ISA) lacks AVX2: the reference runs";
  ExpectMatchesReference(avx2::LookupTable);
}

// Each tier's kernel, as the op selects it under that ceiling, on every index of a table whose
// entries all differ.
TEST(LookupTableKernel, SelectedKernelsReadEveryEntry) {
  std::vector<uint8_t> table(256), x(256 * 3 + 5), want(x.size()), got(x.size());
  for (int i = 0; i < 256; ++i) table[size_t(i)] = uint8_t((i * 73 + 11) % 256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = uint8_t(i * 151 % 256);
  ref::LookupTable(int64_t(x.size()), x.data(), table.data(), want.data());
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    SelectLookupTable(isa)(int64_t(x.size()), x.data(), table.data(), got.data());
    EXPECT_EQ(got, want) << IsaName(isa);
  }
}

}  // namespace
}  // namespace qrt
