// MatMulNBits kernels (ops/kernels/nbits/matmul_nbits.h): the AVX2 and AVX-512 kernels give the
// reference's bits on inputs spread over many binades (any other order of the sums changes
// bits), on -0 and zero rows, K not a multiple of 16 or of the block, every block size and
// N % 4 tail; and every path, the int8 one included, gives the exact product when all of it is
// representable.
#include "ops/kernels/nbits/matmul_nbits.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

using ::qrt::testing::Bits;

struct Problem {
  int64_t m, k, n, block;
  bool zero_points, bias;
  std::vector<uint8_t> codes, zps;
  std::vector<float> scales, a, b;
  NbitsWeights weights() const {
    NbitsWeights w;
    w.n = n;
    w.k = k;
    w.block = block;
    w.blocks = (k + block - 1) / block;
    w.codes = codes.data();
    w.scales = scales.data();
    w.zero_points = zero_points ? zps.data() : nullptr;
    return w;
  }
};

float Spread(std::mt19937& rng, int lo, int hi) {
  std::uniform_real_distribution<float> mantissa(1.f, 2.f);
  std::uniform_int_distribution<int> exponent(lo, hi), sign(0, 1);
  return (sign(rng) ? -1.f : 1.f) * std::ldexp(mantissa(rng), exponent(rng));
}

Problem Random(std::mt19937& rng, int64_t m, int64_t k, int64_t n, int64_t block, bool zp, bool bias) {
  Problem p{m, k, n, block, zp, bias, {}, {}, {}, {}, {}};
  const int64_t blocks = (k + block - 1) / block;
  std::uniform_int_distribution<int> byte(0, 255);
  p.codes.resize(size_t(n * blocks * block / 2));
  for (uint8_t& c : p.codes) c = uint8_t(byte(rng));
  p.zps.resize(size_t(n * ((blocks + 1) / 2)));
  for (uint8_t& z : p.zps) z = uint8_t(byte(rng));
  for (int64_t i = 0; i < n * blocks; ++i) p.scales.push_back(Spread(rng, -8, 4));
  for (int64_t i = 0; i < m * k; ++i) p.a.push_back(Spread(rng, -20, 10));
  for (int64_t i = 0; i < n; ++i) p.b.push_back(Spread(rng, -10, 10));
  return p;
}

void ExpectSameAsReference(const Problem& p, const std::string& what) {
  const NbitsWeights w = p.weights();
  const float* bias = p.bias ? p.b.data() : nullptr;
  std::vector<float> want(size_t(p.m * p.n));
  if (p.m == 1)
    ref::MatMulNbitsRow(w, p.a.data(), bias, 0, p.n, want.data());
  else
    ref::MatMulNbitsRows(w, p.m, p.a.data(), bias, 0, p.n, want.data());
  std::vector<float> got(want.size(), -1.f);
  if (p.m == 1) {
    for (NbitsRowFn f : ::qrt::testing::KernelsThisCpuRuns<NbitsRowFn>(ref::MatMulNbitsRow, avx2::MatMulNbitsRow,
                                                                       avx512::MatMulNbitsRow)) {
      f(w, p.a.data(), bias, 0, p.n, got.data());
      for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(Bits(got[i]), Bits(want[i])) << what << " column " << i;
    }
  } else {
    for (NbitsRowsFn f : ::qrt::testing::KernelsThisCpuRuns<NbitsRowsFn>(ref::MatMulNbitsRows, avx2::MatMulNbitsRows,
                                                                         avx512::MatMulNbitsRows)) {
      f(w, p.m, p.a.data(), bias, 0, p.n, got.data());
      for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(Bits(got[i]), Bits(want[i])) << what << " element " << i;
    }
  }
}

TEST(MatMulNbitsKernel, SimdKernelsGiveTheReferenceBits) {
  std::mt19937 rng(::qrt::testing::TestSeed());
  for (int64_t block : {16, 32, 64, 128, 256}) {
    for (int64_t k : {16, 17, 31, 48, 100, 256, 1000}) {
      for (int64_t n : {1, 3, 4, 5, 17}) {
        for (int64_t m : {1, 2, 3, 5, 9}) {
          const bool zp = (k + n + m) % 2, bias = (k + m) % 3 != 0;
          ExpectSameAsReference(Random(rng, m, k, n, block, zp, bias),
                                "block " + std::to_string(block) + " k " + std::to_string(k) + " n " +
                                    std::to_string(n) + " m " + std::to_string(m));
        }
      }
    }
  }
}

TEST(MatMulNbitsKernel, NegativeZerosAndZeroRows) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 1);
  for (int64_t k : {5, 16, 40}) {
    for (int64_t m : {1, 4}) {
      Problem p = Random(rng, m, k, 6, 16, true, false);
      for (size_t i = 0; i < p.a.size(); ++i) p.a[i] = i % 3 == 0 ? -0.f : (i % 3 == 1 ? 0.f : p.a[i]);
      ExpectSameAsReference(p, "mixed zeros");
      for (float& v : p.a) v = -0.f;
      ExpectSameAsReference(p, "all -0");
    }
  }
}

// Codes, zero points and inputs small integers, scales 1 and 0.5: every product and sum is
// exact, so each path must give the integer dot product itself. For accuracy_level 4 each block
// of A holds 127 (or -127), so A's int8 codes are A itself.
TEST(MatMulNbitsKernel, EveryPathIsExactWhenEverythingIsRepresentable) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 2);
  std::uniform_int_distribution<int> small(-20, 20);
  for (int64_t block : {16, 32, 64, 128, 256}) {
    for (int64_t m : {1, 2, 3}) {
      const int64_t k = 2 * block + 16, n = 6;
      Problem p = Random(rng, m, k, n, block, true, true);
      const int64_t blocks = (k + block - 1) / block;
      for (int64_t i = 0; i < n * blocks; ++i) p.scales[size_t(i)] = i % 2 ? 1.f : 0.5f;
      for (int64_t i = 0; i < m * k; ++i) p.a[size_t(i)] = float(small(rng));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t b = 0; b < blocks; ++b) p.a[size_t(i * k + b * block)] = (b % 2 ? -127.f : 127.f);
      }
      for (int64_t j = 0; j < n; ++j) p.b[size_t(j)] = float(j) - 2.5f;
      const NbitsWeights w = p.weights();
      std::vector<float> want(size_t(m * n));
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double sum = p.b[size_t(j)];
          for (int64_t kk = 0; kk < k; ++kk) {
            const int64_t b = kk / block;
            sum += double(p.a[size_t(i * k + kk)]) * (w.code(j, kk) - w.zero_point(j, b)) *
                   p.scales[size_t(j * blocks + b)];
          }
          want[size_t(i * n + j)] = float(sum);
        }
      }
      std::vector<float> fp32(want.size()), int8(want.size());
      if (m == 1)
        ref::MatMulNbitsRow(w, p.a.data(), p.b.data(), 0, n, fp32.data());
      else
        ref::MatMulNbitsRows(w, m, p.a.data(), p.b.data(), 0, n, fp32.data());
      ref::MatMulNbitsInt8(w, m, p.a.data(), p.b.data(), int8.data());
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(fp32[i], want[i]) << "fp32 block " << block << " m " << m << " element " << i;
        EXPECT_EQ(int8[i], want[i]) << "int8 block " << block << " m " << m << " element " << i;
      }
    }
  }
}

}  // namespace
}  // namespace qrt
