// Every integer GEMM tile this CPU runs against ref::GemmInteger and ref::ConvInteger, bit for bit.
#include "ops/kernels/igemm/igemm.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ops/kernels/conv/conv_ref.h"
#include "ops/kernels/gemm/matmul_ref.h"
#include "tests/kernels/kernel_test_util.h"

namespace qrt {
namespace {

struct NamedKernel {
  std::string name;
  IgemmKernel kernel;
};

// The kernel SelectIgemmKernel gives at each tier this CPU has under QRT_MAX_ISA, scalar first.
std::vector<NamedKernel> IgemmKernelsThisCpuRuns() {
  std::vector<NamedKernel> k;
  for (Isa isa : TiersThisCpuHas()) k.push_back({std::string(IsaName(isa)), SelectIgemmKernel(isa)});
  return k;
}

TEST(IgemmSelect, EachCeilingGetsItsTile) {
  for (Isa isa : TiersThisCpuHas()) {
    const IgemmTileFn got = SelectIgemmKernel(isa).tile;
    IgemmTileFn want = RefIgemmKernel().tile;
    if (CanUseAvx512Vnni(isa))
      want = Avx512VnniIgemmKernel().tile;
    else if (CanUseAvx512(isa))
      want = Avx512IgemmKernel().tile;
    else if (CanUseAvx2(isa))
      want = Avx2IgemmKernel().tile;
    EXPECT_EQ(got, want) << IsaName(isa);
  }
  // The scalar ceiling never gets a SIMD tile, whatever the CPU.
  EXPECT_EQ(SelectIgemmKernel(Isa::kScalar).tile, RefIgemmKernel().tile);
}

template <class T>
std::vector<T> RandomBytes(std::mt19937& rng, int64_t n, int extreme_every = 0) {
  std::uniform_int_distribution<int> d(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    v[i] = static_cast<T>(d(rng));
    if (extreme_every > 0 && i % extreme_every == 0)
      v[i] = (i / extreme_every) % 2 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
  }
  return v;
}

// A (m x k, uint8, per-row zero points) times B (k x n, int8 or uint8, per-column zero points).
template <class Tb>
void CheckGemm(int64_t m, int64_t n, int64_t k, std::vector<int32_t> a_zp, std::vector<int32_t> b_zp, int threads,
               uint32_t seed) {
  std::mt19937 rng(seed);
  const auto a = RandomBytes<uint8_t>(rng, m * k, 7);
  const auto b = RandomBytes<Tb>(rng, k * n, 5);
  const int64_t a_inc = a_zp.size() > 1 ? 1 : 0, b_inc = b_zp.size() > 1 ? 1 : 0;
  std::vector<int32_t> want(static_cast<size_t>(m * n));
  ref::GemmInteger(m, n, k, a.data(), a_zp.data(), a_inc, b.data(), b_zp.data(), b_inc, GemmStrides{k, 1, n, 1},
                   want.data());
  const int64_t lda = IgemmRowLength(k) + 2;  // a stride wider than the row, as callers may use
  std::vector<int16_t> a16(static_cast<size_t>(std::max<int64_t>(m * lda, 1)));
  IgemmRowsToInt16(m, k, a.data(), k, 1, a_zp.data(), a_inc, a16.data(), lda);
  std::vector<int16_t> bp(static_cast<size_t>(std::max<int64_t>(IgemmPackedBSize(k, n), 1)));
  IgemmPackB(k, n, b.data(), n, 1, b_zp.data(), b_inc, bp.data());
  for (const NamedKernel& nk : IgemmKernelsThisCpuRuns()) {
    const int64_t ldc = n + 3;
    std::vector<int32_t> got(static_cast<size_t>(std::max<int64_t>(m * ldc, 1)), 0x5a5a5a5a);
    Igemm(nk.kernel, m, n, k, a16.data(), lda, bp.data(), got.data(), ldc, threads);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        ASSERT_EQ(got[i * ldc + j], want[i * n + j])
            << nk.name << " m=" << m << " n=" << n << " k=" << k << " at (" << i << "," << j << ") seed " << seed;
      }
      for (int64_t j = n; j < ldc && m > 0; ++j) ASSERT_EQ(got[i * ldc + j], 0x5a5a5a5a) << nk.name << " wrote past n";
    }
  }
}

TEST(Igemm, MatchesReferenceOverShapesAndZeroPoints) {
  const uint32_t seed = testing::TestSeed();
  for (int64_t m : {1, 3, 6, 8, 9, 17}) {
    for (int64_t n : {1, 15, 16, 17, 33, 64}) {
      for (int64_t k : {1, 2, 7, 8, 31}) {
        CheckGemm<int8_t>(m, n, k, {0}, {0}, 1, seed + m * 1000 + n * 10 + k);
        CheckGemm<uint8_t>(m, n, k, {255}, {128}, 1, seed + m * 999 + n * 11 + k);
      }
    }
  }
}

TEST(Igemm, ZeroPointsAtTheEndsAndPerChannel) {
  const uint32_t seed = testing::TestSeed();
  CheckGemm<int8_t>(5, 19, 13, {0}, {-128}, 1, seed);
  CheckGemm<int8_t>(5, 19, 13, {255}, {127}, 1, seed + 1);
  std::vector<int32_t> rows{0, 255, 7, 128, 1}, cols(19);
  for (int j = 0; j < 19; ++j) cols[j] = j % 2 ? 127 : -128;
  CheckGemm<int8_t>(5, 19, 13, rows, cols, 1, seed + 2);
}

TEST(Igemm, EmptyAndLongReductionsAndThreads) {
  const uint32_t seed = testing::TestSeed();
  CheckGemm<int8_t>(0, 5, 3, {0}, {0}, 1, seed);
  CheckGemm<int8_t>(4, 0, 3, {0}, {0}, 1, seed);
  CheckGemm<int8_t>(4, 5, 0, {0}, {0}, 1, seed);  // empty sum: zeros
  // Longer than one 256-pair k block and many column blocks, split over threads.
  CheckGemm<int8_t>(13, 300, 1201, {3}, {-2}, 2, seed + 3);
  CheckGemm<uint8_t>(9, 530, 600, {255}, {0}, 2, seed + 4);
}

TEST(Igemm, WrapsLikeTheReference) {
  // Every product is 255 * 255 (x - 0 with x = 255, w - (-128) with w = 127); 2^32 / 65025 ~ 66052,
  // so k = 70000 wraps the int32 sum, and every kernel must wrap the same way.
  const int64_t m = 2, n = 17, k = 70000;
  std::vector<uint8_t> a(m * k, 255);
  std::vector<int8_t> b(k * n, 127);
  std::vector<int32_t> a_zp{0}, b_zp{-128};
  std::vector<int32_t> want(m * n);
  ref::GemmInteger(m, n, k, a.data(), a_zp.data(), 0, b.data(), b_zp.data(), 0, GemmStrides{k, 1, n, 1}, want.data());
  std::vector<int16_t> a16(m * IgemmRowLength(k)), bp(IgemmPackedBSize(k, n));
  IgemmRowsToInt16(m, k, a.data(), k, 1, a_zp.data(), 0, a16.data(), IgemmRowLength(k));
  IgemmPackB(k, n, b.data(), n, 1, b_zp.data(), 0, bp.data());
  EXPECT_EQ(want[0], static_cast<int32_t>(static_cast<uint32_t>(70000u * 65025u)));
  for (const NamedKernel& nk : IgemmKernelsThisCpuRuns()) {
    std::vector<int32_t> got(m * n);
    Igemm(nk.kernel, m, n, k, a16.data(), IgemmRowLength(k), bp.data(), got.data(), n, 2);
    EXPECT_EQ(got, want) << nk.name;
  }
}

// The patch matrix times the weights gives ref::ConvInteger's accumulators (bias null).
template <class Tx, class Tw>
void CheckConv(ConvGeometry g, int32_t x_zp, int32_t w_zp_base, uint32_t seed) {
  for (int d = 0; d < 3; ++d) {
    const int64_t eff = (g.kernel[d] - 1) * g.dilation[d] + 1;
    g.out[d] = (g.in[d] + g.pad_begin[d] + g.pad_end[d] - eff) / g.stride[d] + 1;
  }
  std::mt19937 rng(seed);
  const auto x = RandomBytes<Tx>(rng, g.batch * g.in_channels * g.in_spatial(), 11);
  const auto w = RandomBytes<Tw>(rng, g.weight_count(), 3);
  std::vector<int32_t> w_zp(g.out_channels);
  for (int64_t c = 0; c < g.out_channels; ++c) w_zp[c] = w_zp_base + static_cast<int32_t>(c % 3);
  std::vector<int32_t> want(g.output_count());
  ref::ConvInteger(g, x.data(), x_zp, w.data(), w_zp.data(), nullptr, want.data());

  const int64_t k = g.reduction_size(), n = g.out_spatial(), mg = g.out_channels / g.group;
  const int64_t cg = g.in_channels / g.group;
  std::vector<int16_t> w16(std::max<int64_t>(g.out_channels * IgemmRowLength(k), 1));
  IgemmRowsToInt16(g.out_channels, k, w.data(), k, 1, w_zp.data(), 1, w16.data(), IgemmRowLength(k));
  std::vector<int16_t> patches(std::max<int64_t>(IgemmPackedBSize(k, n), 1));
  // The patch columns in two ranges split at a panel boundary (the second one ragged).
  const int64_t split = std::min<int64_t>(n, kIgemmPanel * ((n / kIgemmPanel + 1) / 2));
  for (const NamedKernel& nk : IgemmKernelsThisCpuRuns()) {
    std::vector<int32_t> got(g.output_count(), 0x11111111);
    for (int64_t img = 0; img < g.batch; ++img) {
      for (int64_t grp = 0; grp < g.group; ++grp) {
        const auto* xg = x.data() + (img * g.in_channels + grp * cg) * g.in_spatial();
        for (auto [c0, c1] : {std::pair{int64_t(0), split}, std::pair{split, n}}) {
          IgemmPackIm2Col(g, xg, x_zp, c0, c1, patches.data());
          Igemm(nk.kernel, mg, c1 - c0, k, w16.data() + grp * mg * IgemmRowLength(k), IgemmRowLength(k), patches.data(),
                got.data() + (img * g.out_channels + grp * mg) * n + c0, n, 2);
        }
      }
    }
    ASSERT_EQ(got, want) << nk.name << " (ranges) seed " << seed;
    for (int threads : {1, 2}) {
      std::vector<int32_t> conv(g.output_count(), 0x22222222);
      IgemmConv(nk.kernel, g, x.data(), x_zp, w16.data(), conv.data(), threads);
      ASSERT_EQ(conv, want) << nk.name << " IgemmConv, " << threads << " threads, seed " << seed;
    }
  }  // The u8 x s8 quads: AVX2's on split weights (a quad, or two quads, a step), and AVX-512
     // VNNI's where the CPU has them.
  for (int form = 0; form < 3; ++form) {
    const bool split = form < 2;
    if (split ? !CanUseAvx2(kIsaAuto) : !CanUseAvx512Vnni(kIsaAuto)) continue;
    const IgemmQuadWeights quads = IgemmPackQuadWeights(g.out_channels, k, w.data(), w_zp.data(), split,
                                                        form == 0 ? ByteSplit::kPairs : ByteSplit::kQuadPairs);
    ASSERT_EQ(quads.quad_pairs, form == 1);
    for (int threads : {1, 2}) {
      std::vector<int32_t> conv(g.output_count(), 0x33333333);
      IgemmConvQuads(quads, g, x.data(), x_zp, conv.data(), threads);
      ASSERT_EQ(conv, want) << "IgemmConvQuads" << (split ? " (AVX2, split weights), form " : ", ") << form << ", "
                            << threads << " threads, seed " << seed;
    }
  }
}

ConvGeometry Geometry(int64_t n, int64_t c, int64_t m, int64_t group, std::vector<int64_t> in,
                      std::vector<int64_t> kernel, std::vector<int64_t> stride, std::vector<int64_t> dil,
                      std::vector<int64_t> pb, std::vector<int64_t> pe) {
  ConvGeometry g;
  g.batch = n, g.in_channels = c, g.out_channels = m, g.group = group;
  g.spatial_rank = static_cast<int>(in.size());
  const int off = 3 - g.spatial_rank;
  for (int d = 0; d < g.spatial_rank; ++d) {
    g.in[off + d] = in[d], g.kernel[off + d] = kernel[d], g.stride[off + d] = stride[d];
    g.dilation[off + d] = dil[d], g.pad_begin[off + d] = pb[d], g.pad_end[off + d] = pe[d];
  }
  return g;
}

TEST(IgemmIm2Col, MatchesConvIntegerOverGeometries) {
  const uint32_t seed = testing::TestSeed();
  // 3x3 padded, 1x1, strided and dilated, grouped, 1-D, 3-D, asymmetric pads, batch 2.
  CheckConv<uint8_t, int8_t>(Geometry(1, 3, 8, 1, {9, 11}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}), 128, -128, seed);
  CheckConv<uint8_t, uint8_t>(Geometry(2, 5, 7, 1, {6, 6}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}), 255, 0, seed + 1);
  CheckConv<int8_t, int8_t>(Geometry(1, 4, 6, 1, {13, 10}, {3, 2}, {2, 3}, {2, 1}, {2, 0}, {1, 2}), -128, 125,
                            seed + 2);
  CheckConv<uint8_t, int8_t>(Geometry(1, 6, 9, 3, {7, 8}, {3, 3}, {1, 2}, {1, 1}, {1, 1}, {0, 1}), 0, 0, seed + 3);
  CheckConv<uint8_t, int8_t>(Geometry(2, 3, 5, 1, {20}, {4}, {3}, {2}, {3}, {1}), 7, -3, seed + 4);
  CheckConv<int8_t, uint8_t>(Geometry(1, 2, 4, 1, {4, 5, 6}, {2, 3, 2}, {1, 2, 1}, {2, 1, 1}, {1, 1, 0}, {0, 1, 1}),
                             127, 250, seed + 5);
  // More patch columns than one packed block (blocks, their tails), odd k.
  CheckConv<uint8_t, int8_t>(Geometry(1, 3, 12, 1, {45, 47}, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {1, 1}), 3, 1, seed + 6);
  CheckConv<uint8_t, int8_t>(Geometry(1, 2, 8, 2, {33, 70}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}), 90, -9, seed + 7);
}

// AVX2's quads keep VPMADDUBSW's words, of one quad or two added, within int16: X's bytes at 255
// (254 in places) against weights at the most either split keeps (words of 128 of one sign:
// pairs of 64, fours of 32) or just past it, in channels of either sign, 1x1 and 3x3.
TEST(IgemmConvQuads, ByteSumsAtTheEdgeOfInt16) {
  if (!CanUseAvx2(kIsaAuto)) GTEST_SKIP() << "no AVX2";
  const int32_t pattern[8] = {32, 33, -32, -33, 127, -128, 64, -65};
  for (const ConvGeometry& g : {Geometry(1, 45, 8, 1, {5, 8}, {1, 1}, {1, 1}, {1, 1}, {0, 0}, {0, 0}),
                                Geometry(1, 5, 8, 1, {6, 7}, {3, 3}, {1, 1}, {1, 1}, {0, 0}, {0, 0})}) {
    ConvGeometry h = g;
    for (int d = 0; d < 3; ++d) h.out[d] = h.in[d] - h.kernel[d] + 1;
    const int64_t k = h.reduction_size();
    std::vector<uint8_t> x(size_t(h.in_channels * h.in_spatial()));
    for (size_t i = 0; i < x.size(); ++i) x[i] = i % 7 == 3 ? 254 : 255;
    std::vector<int8_t> w(size_t(h.weight_count()));
    for (int64_t c = 0; c < h.out_channels; ++c) {
      for (int64_t i = 0; i < k; ++i) {
        w[size_t(c * k + i)] = int8_t(c == 4 || c == 5 ? (i % 2 == 0 ? pattern[c] : pattern[9 - c]) : pattern[c]);
      }
    }
    const std::vector<int32_t> w_zp(size_t(h.out_channels), 0);
    std::vector<int32_t> want(size_t(h.output_count()));
    ref::ConvInteger(h, x.data(), 0, w.data(), w_zp.data(), nullptr, want.data());
    for (ByteSplit how : {ByteSplit::kPairs, ByteSplit::kQuadPairs}) {
      const IgemmQuadWeights quads = IgemmPackQuadWeights(h.out_channels, k, w.data(), w_zp.data(), true, how);
      std::vector<int32_t> got(want.size(), 0x33333333);
      IgemmConvQuads(quads, h, x.data(), 0, got.data(), 1);
      EXPECT_EQ(got, want) << "kernel " << h.kernel[2] << (quads.quad_pairs ? ", two quads a step" : "");
    }
  }
}

}  // namespace
}  // namespace qrt
