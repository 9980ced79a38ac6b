// SplitPairs: the reference is the definition, written out here; every SIMD kernel this CPU
// runs moves the same bits (NaN payloads included) and writes nothing past its run.
#include "ops/kernels/common/deinterleave.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

std::vector<SplitPairsFn> Kernels() {
  return ::qrt::testing::KernelsThisCpuRuns<SplitPairsFn>(ref::SplitPairs, avx2::SplitPairs, avx512::SplitPairs);
}

TEST(SplitPairs, EvenAndOddElementsForEveryLength) {
  std::mt19937 rng(::qrt::testing::TestSeed());
  for (int64_t pairs = 0; pairs <= 70; ++pairs) {
    std::vector<uint32_t> bits(size_t(2 * pairs));
    for (uint32_t& b : bits) b = uint32_t(rng());  // any pattern, NaNs among them
    std::vector<float> src(bits.size());
    if (!bits.empty()) std::memcpy(src.data(), bits.data(), bits.size() * 4);
    for (SplitPairsFn f : Kernels()) {
      std::vector<uint32_t> even(size_t(pairs) + 1, 0xDEADBEEF), odd(size_t(pairs) + 1, 0xDEADBEEF);
      f(pairs, src.data(), reinterpret_cast<float*>(even.data()), reinterpret_cast<float*>(odd.data()));
      for (int64_t i = 0; i < pairs; ++i) {
        ASSERT_EQ(even[size_t(i)], bits[size_t(2 * i)]) << "pairs " << pairs << " i " << i;
        ASSERT_EQ(odd[size_t(i)], bits[size_t(2 * i + 1)]) << "pairs " << pairs << " i " << i;
      }
      EXPECT_EQ(even.back(), 0xDEADBEEFu) << "wrote past the end, pairs " << pairs;
      EXPECT_EQ(odd.back(), 0xDEADBEEFu) << "wrote past the end, pairs " << pairs;
    }
  }
}

}  // namespace
}  // namespace qrt
