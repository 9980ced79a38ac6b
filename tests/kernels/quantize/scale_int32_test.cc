#include "ops/kernels/quantize/scale_int32.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::Bits;
using ::qrt::testing::TestSeed;

std::vector<float> RunRow(ScaleInt32RowFn f, const std::vector<int32_t>& acc, const ScaleInt32Params& p) {
  std::vector<float> y(acc.size() + 1, -7.f);
  f(int64_t(acc.size()), acc.data(), p, y.data());
  EXPECT_EQ(y.back(), -7.f) << "wrote past the end";
  y.pop_back();
  return y;
}

// Hand-checked: the conversion rounds to nearest even (2^24 + 1 is not a float), the multiply and
// the add round one at a time (no FMA), and the int32 add wraps.
TEST(ScaleInt32Row, ReferenceValues) {
  const float scale = 0.1f, bias = 1e8f;
  ScaleInt32Params p;
  p.scale = &scale;
  const std::vector<float> y = RunRow(ref::ScaleInt32Row, {3, (1 << 24) + 1, (1 << 24) + 3, -5}, p);
  EXPECT_EQ(y, (std::vector<float>{3.f * 0.1f, float(1 << 24) * 0.1f, float((1 << 24) + 4) * 0.1f, -5.f * 0.1f}));
  p.bias = &bias;
  // 3 * 0.1f = 0.3000000119 then + 1e8 rounds to 1e8; an FMA gives the same here, so also one
  // where it does not: 7 * 0.1f = 0.70000005 and the sum with -0.7f.
  const float minus = -0.7f;
  p.bias = &minus;
  EXPECT_EQ(Bits(RunRow(ref::ScaleInt32Row, {7}, p)[0]), Bits(float(7 * 0.1f) + -0.7f));
  EXPECT_NE(Bits(float(7 * 0.1f) + -0.7f), Bits(std::fma(7.f, 0.1f, -0.7f)));
  p.bias = nullptr;
  p.add = 1;
  const float one = 1.f;
  p.scale = &one;
  EXPECT_EQ(RunRow(ref::ScaleInt32Row, {std::numeric_limits<int32_t>::max()}, p)[0], -2147483648.f);  // wraps
}

// Every kernel against the reference, bit for bit: lengths around the vector width, per-element
// and one-value operands, with and without the int32 add and the bias, and values where the
// conversion rounds, the products overflow or are NaN.
TEST(ScaleInt32Row, EveryTierMatchesReference) {
  std::mt19937 rng(TestSeed());
  std::uniform_int_distribution<int32_t> any(std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int32_t> small(-70000, 70000);
  std::uniform_real_distribution<float> unit(-2.f, 2.f);
  const float specials[] = {
      0.f, -0.f, 1e-45f, 3e38f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
  std::vector<std::pair<std::string, ScaleInt32RowFn>> kernels;
  for (Isa isa : TiersThisCpuHas()) kernels.push_back({std::string(IsaName(isa)), SelectScaleInt32Row(isa)});
  for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 33, 1000}) {
    for (int variant = 0; variant < 24; ++variant) {
      std::vector<int32_t> acc(static_cast<size_t>(n));
      for (auto& a : acc) a = variant % 2 ? any(rng) : small(rng);
      std::vector<float> scale(size_t(n) + 1), bias(size_t(n) + 1);
      for (auto& s : scale) s = unit(rng);
      for (auto& b : bias) b = unit(rng) * 1000.f;
      if (variant % 5 == 4) {
        for (size_t i = 0; i < scale.size(); ++i) scale[i] = specials[i % 6], bias[i] = specials[(i + 1) % 6];
      }
      ScaleInt32Params p;
      p.add = variant % 3 == 0 ? 0 : any(rng);
      p.scale = scale.data();
      p.scale_step = (variant / 3) % 2;
      const int bias_kind = (variant / 6) % 3;  // none, one value, per element
      if (bias_kind != 0) p.bias = bias.data(), p.bias_step = bias_kind - 1;
      const std::vector<float> want = RunRow(ref::ScaleInt32Row, acc, p);
      for (const auto& [tier, f] : kernels) {
        const std::vector<float> got = RunRow(f, acc, p);
        for (size_t i = 0; i < want.size(); ++i) {
          if (std::isnan(want[i]) && std::isnan(got[i])) continue;  // NaN payloads: the operand order's
          ASSERT_EQ(Bits(got[i]), Bits(want[i])) << tier << " n " << n << " variant " << variant << " at " << i;
        }
      }
    }
  }
}

TEST(ScaleInt32Row, EachCeilingGetsItsKernel) {
  EXPECT_EQ(SelectScaleInt32Row(Isa::kScalar), &ref::ScaleInt32Row);
  for (Isa isa : TiersThisCpuHas()) {
    if (CanUseAvx2(isa)) {
      EXPECT_EQ(SelectScaleInt32Row(isa), &avx2::ScaleInt32Row) << IsaName(isa);
    }
  }
}

}  // namespace
}  // namespace qrt
