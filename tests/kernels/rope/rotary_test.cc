// Rotary row kernel (ops/kernels/rope/rotary.h): the AVX2 row bit-identical to the reference,
// both pairings, head sizes around its eight pairs, partial rotation, and a case by hand.
#include "ops/kernels/rope/rotary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::FirstDiff;

// A quarter turn maps (x_r, x_i) to (-x_i, x_r) exactly: cos 0, sin 1.
TEST(RotaryRowKernel, QuarterTurnByHand) {
  const std::vector<float> x{1.f, 2.f, 3.f, 4.f}, cos{0.f, 0.f}, sin{1.f, 1.f};
  for (RotaryRowFn f : ::qrt::testing::KernelsThisCpuRuns<RotaryRowFn>(ref::RotaryRow, avx2::RotaryRow)) {
    std::vector<float> y(4);
    f(4, 4, false, x.data(), cos.data(), sin.data(), y.data());  // pairs (x0, x2), (x1, x3)
    EXPECT_EQ(y, (std::vector<float>{-3.f, -4.f, 1.f, 2.f}));
  }
}

TEST(RotaryRowKernel, Avx2EqualsReference) {
  QRT_REQUIRE_AVX2();
  std::mt19937 rng(::qrt::testing::TestSeed());
  std::normal_distribution<float> gauss(0.f, 1.f);
  std::uniform_real_distribution<float> angle(0.f, 6.3f);
  for (bool interleaved : {false, true}) {
    for (int64_t head : {2, 8, 14, 16, 18, 32, 40, 64, 66, 128}) {
      for (int64_t rotary : {head, head / 2 / 2 * 2}) {
        if (rotary < 2) continue;
        std::vector<float> x(static_cast<size_t>(head)), cos(static_cast<size_t>(rotary / 2)),
            sin(static_cast<size_t>(rotary / 2));
        for (float& v : x) v = gauss(rng) * 3.f;
        for (size_t k = 0; k < cos.size(); ++k) {
          const float a = angle(rng);
          cos[k] = std::cos(a), sin[k] = std::sin(a);
        }
        std::vector<float> want(x.size()), got(x.size());
        ref::RotaryRow(head, rotary, interleaved, x.data(), cos.data(), sin.data(), want.data());
        avx2::RotaryRow(head, rotary, interleaved, x.data(), cos.data(), sin.data(), got.data());
        EXPECT_EQ(FirstDiff(want.data(), got.data(), want.size() * 4, true), -1)
            << "head " << head << " rotary " << rotary << " interleaved " << interleaved;
      }
    }
  }
}

}  // namespace
}  // namespace qrt
