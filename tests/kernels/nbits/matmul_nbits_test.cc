// MatMulNBits kernels (ops/kernels/nbits/matmul_nbits.h): the AVX2 and AVX-512 kernels give the
// reference's bits on inputs spread over many binades (any other order of the sums changes
// bits), on -0 and zero rows, K not a multiple of 16 or of the block, every block size and
// N % 4 tail; and every path, the int8 one included, gives the exact product when all of it is
// representable. The int8 path's kernel at every tier (SelectNbitsInt8) gives its order's
// reference bytes (ORT's AVX-512 orders with and without AVX512_VNNI, ref::MatMulNbitsInt8 and
// ref::MatMulNbitsInt8NoVnni, and its AVX2 order, ref::MatMulNbitsInt8Lanes8, each under
// QRT_ORT_CPU) over every lane layout and its tails
// (partial last block, k below a block, groups of 128 k with 8-lane tail blocks, block pairs and
// quads with a lone last block, one row with and without zero points), N % 4 and odd M (the
// reduction rules), zero rows, ties at .5 after scaling, large magnitudes and rows the reference
// must take itself.
#include "ops/kernels/nbits/matmul_nbits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
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

// ORT's one-row order without AVX-512 (8 lanes, whole sub-blocks of 16 or 32 k): the AVX2 kernel
// against its reference, over K tails inside and past a sub-block, N % 4 tails and -0 inputs;
// and a row where the 8-lane and 16-lane orders differ, so that neither stands for the other.
TEST(MatMulNbitsKernel, EightLaneRowOrderGivesTheReferenceBits) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 5);
  for (int64_t block : {16, 32, 64, 128, 256}) {
    for (int64_t k : {8, 16, 20, 33, 48, 100, 300}) {
      for (int64_t n : {1, 3, 4, 5, 9}) {
        Problem p = Random(rng, 1, k, n, block, (k + n) % 2 == 0, k % 3 != 0);
        if (k == 20) {
          for (size_t i = 0; i < p.a.size(); ++i) p.a[i] = i % 2 ? -0.f : p.a[i];
        }
        const NbitsWeights w = p.weights();
        const float* bias = p.bias ? p.b.data() : nullptr;
        std::vector<float> want(static_cast<size_t>(n)), got(static_cast<size_t>(n), -1.f);
        ref::MatMulNbitsRow8(w, p.a.data(), bias, 0, n, want.data());
        for (NbitsRowFn f :
             ::qrt::testing::KernelsThisCpuRuns<NbitsRowFn>(ref::MatMulNbitsRow8, avx2::MatMulNbitsRow8, nullptr)) {
          f(w, p.a.data(), bias, 0, n, got.data());
          for (int64_t j = 0; j < n; ++j) {
            ASSERT_EQ(Bits(got[size_t(j)]), Bits(want[size_t(j)]))
                << "block " << block << " k " << k << " n " << n << " column " << j;
          }
        }
      }
    }
  }
  // Unit weights, a[0] = 2^24 and a[8] = a[24] = 1: one 8-lane chain takes k = 0, 8, 16, 24 and
  // rounds 2^24 + 1 back to 2^24 twice; 16 lanes sum 1 + 1 first (lane 8: k = 8, 24), 2^24 + 2.
  Problem p = Random(rng, 1, 32, 1, 32, false, false);
  for (uint8_t& c : p.codes) c = 0x99;  // every code 9: weight (9 - 8) * scale = 1
  p.scales[0] = 1.f;
  std::fill(p.a.begin(), p.a.end(), 0.f);
  p.a[0] = 16777216.f, p.a[8] = 1.f, p.a[24] = 1.f;
  float eight = 0.f, sixteen = 0.f;
  ref::MatMulNbitsRow8(p.weights(), p.a.data(), nullptr, 0, 1, &eight);
  ref::MatMulNbitsRow(p.weights(), p.a.data(), nullptr, 0, 1, &sixteen);
  EXPECT_EQ(eight, 16777216.f);
  EXPECT_EQ(sixteen, 16777218.f);
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
      std::vector<float> lanes8(want.size()), no_vnni(want.size());
      ref::MatMulNbitsInt8Lanes8(w, m, p.a.data(), p.b.data(), lanes8.data());
      ref::MatMulNbitsInt8NoVnni(w, m, p.a.data(), p.b.data(), no_vnni.data());
      for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(fp32[i], want[i]) << "fp32 block " << block << " m " << m << " element " << i;
        EXPECT_EQ(int8[i], want[i]) << "int8 block " << block << " m " << m << " element " << i;
        EXPECT_EQ(lanes8[i], want[i]) << "int8, 8 lanes, block " << block << " m " << m << " element " << i;
        EXPECT_EQ(no_vnni[i], want[i]) << "int8 without VNNI, block " << block << " m " << m << " element " << i;
      }
    }
  }
}

struct NamedInt8 {
  std::string tier;
  NbitsInt8Fn fn;
};

// The int8 path's orders: ORT's on a CPU with AVX-512 (with and without AVX512_VNNI) and on one
// without AVX-512 (QRT_ORT_CPU).
struct Int8Order {
  const char* ort_cpu;
  NbitsInt8Fn reference;
};
constexpr Int8Order kInt8Orders[] = {{"avx512", ref::MatMulNbitsInt8},
                                     {"avx512-novnni", ref::MatMulNbitsInt8NoVnni},
                                     {"avx2", ref::MatMulNbitsInt8Lanes8}};

// The int8 kernel SelectNbitsInt8 gives for `order` at each tier this CPU has (under
// QRT_MAX_ISA), scalar first.
std::vector<NamedInt8> Int8KernelsThisCpuRuns(const Int8Order& order) {
  const testing::ScopedEnv cpu("QRT_ORT_CPU", order.ort_cpu);
  std::vector<NamedInt8> k;
  for (Isa isa : TiersThisCpuHas()) k.push_back({std::string(IsaName(isa)), SelectNbitsInt8(isa)});
  return k;
}

std::string Describe(const Problem& p) {
  return "block " + std::to_string(p.block) + " k " + std::to_string(p.k) + " n " + std::to_string(p.n) + " m " +
         std::to_string(p.m) + (p.zero_points ? " zp" : "") + (p.bias ? " bias" : "");
}

// Every int8 kernel's output, byte for byte, against its order's reference: with the zero
// points' terms made per call and made once (NbitsZeroPointTerms, as the op keeps them).
void ExpectInt8SameAsReference(const Problem& p, const std::string& what) {
  const NbitsWeights w = p.weights();
  const float* bias = p.bias ? p.b.data() : nullptr;
  const std::vector<float> terms = NbitsZeroPointTerms(w);
  NbitsWeights with_terms = w;
  with_terms.zero_point_terms = terms.data();
  for (const Int8Order& order : kInt8Orders) {
    std::vector<float> want(size_t(p.m * p.n));
    order.reference(w, p.m, p.a.data(), bias, want.data());
    for (const NamedInt8& k : Int8KernelsThisCpuRuns(order)) {
      for (const NbitsWeights* weights : {&w, static_cast<const NbitsWeights*>(&with_terms)}) {
        std::vector<float> got(want.size(), -1.f);
        k.fn(*weights, p.m, p.a.data(), bias, got.data());
        const char* terms_made = weights == &w ? " (terms per call)" : " (terms made once)";
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_EQ(Bits(got[i]), Bits(want[i]))
              << "ORT " << order.ort_cpu << " order, " << k.tier << terms_made << " " << what << " " << Describe(p)
              << " row " << i / p.n << " column " << i % p.n << ": got " << got[i] << ", want " << want[i];
        }
      }
    }
  }
}

TEST(MatMulNbitsInt8Kernel, EachCeilingGetsItsKernel) {
  {
    const testing::ScopedEnv cpu("QRT_ORT_CPU", "avx2");  // ORT's AVX2 order at every tier
    EXPECT_EQ(SelectNbitsInt8(Isa::kScalar), &ref::MatMulNbitsInt8Lanes8);
    for (Isa isa : TiersThisCpuHas()) {
      if (CanUseAvx2(isa)) EXPECT_EQ(SelectNbitsInt8(isa), &avx2::MatMulNbitsInt8Lanes8) << IsaName(isa);
    }
  }
  {
    const testing::ScopedEnv cpu("QRT_ORT_CPU", "avx512-novnni");  // the same kernels, another plan for blocks of 128+
    EXPECT_EQ(SelectNbitsInt8(Isa::kScalar), &ref::MatMulNbitsInt8NoVnni);
    for (Isa isa : TiersThisCpuHas()) {
      const NbitsInt8Fn f = SelectNbitsInt8(isa);
      if (CanUseAvx512Vnni(isa))
        EXPECT_EQ(f, &avx512vnni::MatMulNbitsInt8NoVnni) << IsaName(isa);
      else if (CanUseAvx512(isa))
        EXPECT_EQ(f, &avx512::MatMulNbitsInt8NoVnni) << IsaName(isa);
      else if (CanUseAvx2(isa))
        EXPECT_EQ(f, &avx2::MatMulNbitsInt8NoVnni) << IsaName(isa);
    }
  }
  const testing::ScopedEnv cpu("QRT_ORT_CPU", "avx512");
  EXPECT_EQ(SelectNbitsInt8(Isa::kScalar), &ref::MatMulNbitsInt8);
  for (Isa isa : TiersThisCpuHas()) {
    const NbitsInt8Fn f = SelectNbitsInt8(isa);
    if (CanUseAvx512Vnni(isa))
      EXPECT_EQ(f, &avx512vnni::MatMulNbitsInt8) << IsaName(isa);
    else if (CanUseAvx512(isa))
      EXPECT_EQ(f, &avx512::MatMulNbitsInt8) << IsaName(isa);
    else if (CanUseAvx2(isa))
      EXPECT_EQ(f, &avx2::MatMulNbitsInt8) << IsaName(isa);
  }
}

// k below a block, a partial last block, and block counts around each layout's group (2 blocks of
// 64, 4 of 32, 8 of 16: the tail blocks take 16 or 8 lanes); n = 1..9; m = 1, 2, 3, 5.
TEST(MatMulNbitsInt8Kernel, EveryLayoutAndTailGivesTheReferenceBits) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 10);
  for (int64_t block : {16, 32, 64, 128, 256}) {
    const int64_t group = std::max<int64_t>(1, 128 / block);
    for (int64_t k : {block / 2 + 3, block + 5, (group - 1) * block + 7, group * block, group * block + 9,
                      (2 * group + 3) * block - 5, (3 * group - 1) * block}) {
      if (k < 1) continue;
      for (int64_t n = 1; n <= 9; ++n) {
        for (int64_t m : {1, 2, 3, 5}) {
          const int variant = int(n + m + k) % 4;
          ExpectInt8SameAsReference(Random(rng, m, k, n, block, variant & 1, variant & 2), "sweep");
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(MatMulNbitsInt8Kernel, ZeroPointsAndBiasEitherWay) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 11);
  for (int64_t block : {16, 32, 64, 128, 256}) {
    for (int zp = 0; zp < 2; ++zp) {
      for (int bias = 0; bias < 2; ++bias) {
        ExpectInt8SameAsReference(Random(rng, 3, 3 * block + 40, 7, block, zp, bias), "zp/bias");
        if (HasFatalFailure()) return;
      }
    }
  }
}

// Rows and blocks of zeros (amax 0: codes 0, sa 0), -0, and a lone nonzero element.
TEST(MatMulNbitsInt8Kernel, ZeroRowsAndBlocks) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 12);
  for (int64_t block : {16, 32, 64, 128, 256}) {
    for (int64_t m : {1, 2, 3, 5}) {
      Problem p = Random(rng, m, 5 * block + 3, 6, block, true, true);
      for (int64_t kk = 0; kk < p.k; ++kk) p.a[size_t(kk)] = 0.f;                             // row 0
      for (int64_t kk = block; kk < 2 * block; ++kk) p.a[size_t((m - 1) * p.k + kk)] = -0.f;  // a block
      if (m > 2) {
        for (int64_t kk = 0; kk < p.k; ++kk) p.a[size_t(p.k + kk)] = kk == 7 ? -3.f : 0.f;
      }
      ExpectInt8SameAsReference(p, "zeros");
      if (HasFatalFailure()) return;
    }
  }
}

// a * (127 / amax) exactly halfway between integers: amax 127 (inv 1) and 254 (inv 0.5), so
// rint's ties to even decide the codes.
TEST(MatMulNbitsInt8Kernel, TiesAtHalfRoundToEven) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 13);
  std::uniform_int_distribution<int> half(-126, 125);
  for (int64_t block : {16, 32, 64, 128, 256}) {
    for (int64_t m : {1, 2, 3}) {
      Problem p = Random(rng, m, 4 * block, 5, block, true, false);
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t kk = 0; kk < p.k; ++kk) {
          const bool wide = (kk / block) % 2;
          float v = float(half(rng)) + 0.5f;
          if (kk % block == 0) v = 127.f;
          p.a[size_t(i * p.k + kk)] = wide ? 2.f * v : v;
        }
      }
      ExpectInt8SameAsReference(p, "ties");
      if (HasFatalFailure()) return;
    }
  }
}

// A near 1e30 and scales near 1e8 (products near the float range's end, some infinite), and
// A spread over 60 binades.
TEST(MatMulNbitsInt8Kernel, LargeMagnitudes) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 14);
  for (int64_t block : {16, 32, 64, 128, 256}) {
    for (int64_t m : {1, 2, 5}) {
      Problem p = Random(rng, m, 3 * block + 17, 9, block, true, true);
      for (float& v : p.a) v = Spread(rng, 95, 100);
      for (float& v : p.scales) v = Spread(rng, 20, 27);
      ExpectInt8SameAsReference(p, "large");
      for (float& v : p.a) v = Spread(rng, -30, 30);
      ExpectInt8SameAsReference(p, "spread");
      if (HasFatalFailure()) return;
    }
  }
}

// Rows whose codes leave -127..127 (NaN, infinity, a subnormal amax whose 127 / amax overflows)
// are computed by the reference inside every kernel; paired rows and a lone last row. K is 1 and
// the code 0 or 1, so the reference's integer sums stay in range.
TEST(MatMulNbitsInt8Kernel, RowsTheReferenceTakes) {
  std::mt19937 rng(::qrt::testing::TestSeed() + 15);
  const float odd[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 1e-40f};
  for (int64_t block : {16, 64, 256}) {
    for (int64_t m : {1, 2, 3}) {
      for (float v : odd) {
        Problem p = Random(rng, m, 1, 6, block, true, true);
        for (uint8_t& c : p.codes) c = uint8_t(c & 0xF1);  // k = 0 takes code 0 or 1
        p.a[size_t(m - 1)] = v;
        ExpectInt8SameAsReference(p, "odd row");
        if (HasFatalFailure()) return;
      }
    }
  }
}

// A random sweep: sizes, block, zero points and bias drawn from the seed.
TEST(MatMulNbitsInt8Kernel, RandomSweep) {
  const uint32_t seed = ::qrt::testing::TestSeed() + 16;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick_block(0, 4), pick_k(1, 700), pick_n(1, 21), pick_m(1, 7), coin(0, 1);
  for (int t = 0; t < 200; ++t) {
    const int64_t block = int64_t(16) << pick_block(rng), k = pick_k(rng), n = pick_n(rng), m = pick_m(rng);
    ExpectInt8SameAsReference(Random(rng, m, k, n, block, coin(rng), coin(rng)),
                              "seed " + std::to_string(seed) + " case " + std::to_string(t));
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace qrt
