// The reference of MatMulNBits' int8 path (accuracy_level 4) in the order of ORT on a CPU
// without AVX-512 (matmul_nbits.h, docs/float-order.md): MLAS's AVX2 CompInt8 kernels, 8 lanes.
#include <cmath>
#include <vector>

#include "ops/kernels/nbits/matmul_nbits.h"
#include "ops/kernels/nbits/nbits_int8.h"
#include "ops/kernels/nbits/nbits_reduce.h"

namespace qrt::ref {

void MatMulNbitsInt8Lanes8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y) {
  // A 64-k chunk's lanes: lane l sums k kChunk[l] .. + 7 (VPMADDUBSW, VPHADDW, VPMADDWD).
  static constexpr int64_t kChunk[8] = {0, 8, 32, 40, 16, 24, 48, 56};
  const int64_t bs = w.block, kb = w.blocks, whole_groups = w.n / 4 * 4;
  // One row (blocks of 32 or more): MLAS's M1 kernels subtract the zero point from the codes and
  // add no block sums.
  const bool one_row = m == 1 && bs >= 32;
  std::vector<int32_t> qa(size_t(kb * bs));
  std::vector<float> sa(static_cast<size_t>(kb)), asum(static_cast<size_t>(kb));
  for (int64_t i = 0; i < m; ++i) {
    nbits::QuantizeRowReference(w, a + i * w.k, qa.data(), sa.data(), asum.data());
    for (int64_t j = 0; j < w.n; ++j) {
      // Block b's exact partial dot product over its k = k0 .. k0 + count - 1.
      auto dot = [&](int64_t b, int64_t k0, int64_t count) {
        const int z = one_row ? w.zero_point(j, b) : 0;
        int32_t p = 0;
        for (int64_t kk = b * bs + k0; kk < b * bs + k0 + count; ++kk) p += qa[size_t(kk)] * (w.code(j, kk) - z);
        return p;
      };
      float acc[8] = {};
      auto step = [&](int lane, int32_t p, int64_t b) {
        acc[lane] = std::fma(float(p), sa[size_t(b)] * w.scales[j * kb + b], acc[lane]);
      };
      int64_t b = 0;
      if (bs == 16) {  // four blocks a chunk, then a block at a time on pairs of k
        for (; kb - b >= 4; b += 4) {
          for (int l = 0; l < 8; ++l) step(l, dot(b + kChunk[l] / 16, kChunk[l] % 16, 8), b + kChunk[l] / 16);
        }
        for (; b < kb; ++b) {
          for (int l = 0; l < 8; ++l) step(l, dot(b, 2 * l, 2), b);
        }
      } else if (bs == 32) {  // two blocks a chunk (one row with zero points: a block at a time)
        for (; kb - b >= 2; b += 2) {
          if (one_row && w.zero_points != nullptr) {
            for (int64_t blk = b; blk < b + 2; ++blk) {
              for (int l = 0; l < 8; ++l) step(l, dot(blk, 4 * l, 4), blk);
            }
          } else {
            for (int l = 0; l < 8; ++l) step(l, dot(b + kChunk[l] / 32, kChunk[l] % 32, 8), b + kChunk[l] / 32);
          }
        }
        if (b < kb) {
          for (int l = 0; l < 8; ++l) step(l, dot(b, 4 * l, 4), b);
        }
      } else {  // a chunk at a time, each its own step
        for (; b < kb; ++b) {
          for (int64_t o = 0; o < bs; o += 64) {
            for (int l = 0; l < 8; ++l) step(l, dot(b, o + kChunk[l], 8), b);
          }
        }
      }
      float r = j < whole_groups ? nbits::FoldGroups8(acc) : nbits::Tree8(acc);
      if (bias) r = r + bias[j];
      if (!one_row) {  // the zero points' share, as ref::MatMulNbitsInt8
        float c = 0.f;
        for (int64_t blk = 0; blk < kb; ++blk) {
          c = std::fma(asum[size_t(blk)], -w.scales[j * kb + blk] * float(w.zero_point(j, blk)), c);
        }
        r = r + c;
      }
      y[i * w.n + j] = r;
    }
  }
}

}  // namespace qrt::ref
