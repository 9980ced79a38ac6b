// The reference MatMulNBits kernels: the specification of the orders in matmul_nbits.h.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ops/kernels/nbits/matmul_nbits.h"
#include "ops/kernels/nbits/nbits_int8.h"
#include "ops/kernels/nbits/nbits_reduce.h"

namespace qrt::ref {
namespace {

using nbits::FoldGroups16;
using nbits::FoldGroups8;
using nbits::Hadd8;
using nbits::Tree16;
using nbits::Tree8;

float Weight(const NbitsWeights& w, int64_t col, int64_t kk) {
  const int64_t b = kk / w.block;
  return float(w.code(col, kk) - w.zero_point(col, b)) * w.scales[col * w.blocks + b];
}

}  // namespace

void MatMulNbitsRow(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end,
                    float* y) {
  const int64_t whole_groups = w.n / 4 * 4, padded = (w.k + 15) / 16 * 16;
  for (int64_t j = n_begin; j < n_end; ++j) {
    float acc[16] = {};
    for (int64_t kk = 0; kk < padded; ++kk) {
      // The padding multiplies zeros: 0 * 0 added, which turns a -0 lane into +0.
      acc[kk % 16] = kk < w.k ? std::fma(Weight(w, j, kk), a[kk], acc[kk % 16]) : acc[kk % 16] + 0.f;
    }
    const float r = j < whole_groups ? FoldGroups16(acc) : Tree16(acc);
    y[j] = bias ? r + bias[j] : r;
  }
}

void MatMulNbitsRow8(const NbitsWeights& w, const float* a, const float* bias, int64_t n_begin, int64_t n_end,
                     float* y) {
  const int64_t whole_groups = w.n / 4 * 4, sub = w.block == 16 ? 16 : 32;
  for (int64_t j = n_begin; j < n_end; ++j) {
    float acc[8] = {};
    for (int64_t b = 0; b < w.blocks; ++b) {
      const int64_t k0 = b * w.block, valid = std::min(w.block, w.k - k0);
      const int64_t end = k0 + (valid + sub - 1) / sub * sub;  // whole sub-blocks, inside the block
      for (int64_t kk = k0; kk < end; ++kk)
        acc[kk % 8] = std::fma(Weight(w, j, kk), kk < w.k ? a[kk] : 0.f, acc[kk % 8]);
    }
    if (j < whole_groups) {
      const float r = FoldGroups8(acc);
      y[j] = bias ? r + bias[j] : r;
    } else {
      y[j] = Hadd8(acc) + (bias ? bias[j] : 0.f);
    }
  }
}

void MatMulNbitsRows(const NbitsWeights& w, int64_t m, const float* a, const float* bias, int64_t n_begin,
                     int64_t n_end, float* y) {
  for (int64_t j = n_begin; j < n_end; ++j) {
    for (int64_t i = 0; i < m; ++i) {
      float acc = 0.f;
      for (int64_t kk = 0; kk < w.k; ++kk) acc = std::fma(a[i * w.k + kk], Weight(w, j, kk), acc);
      y[i * w.n + j] = bias ? acc + bias[j] : acc;
    }
  }
}

// accuracy_level 4. Per row of A and block: amax = max |a|, sa = amax / 127, codes
// qa = rint(a * (127 / amax)) (0 when amax is 0; a partial last block is padded with zeros),
// and the block's code sum scaled, sa * float(sum qa). Each output's lanes accumulate
// acc = fma(float(P), sa * sb, acc), P an exact partial dot product of qa with the raw weight
// codes (0..15) over the lane's k, in MLAS's lane layout for the block size; the lanes reduce
// (16 lanes: Tree16, but FoldGroups16 for a lone last row's whole column groups; 8 lanes:
// FoldGroups8 for whole column groups, Tree8 for the rest); then + bias; then the zero points'
// share, a chain over blocks c = fma(sa * sum qa, -sb * zp, c) from +0, is added.
namespace {

// vnni: ORT on a CPU with AVX512_VNNI (blocks of 128 and more: lane l over words l and 16 + l
// of each 128 k), else without (words 16r + 4g + h and that + 2, l = 4g + 2h + r).
void Int8Order(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y, bool vnni) {
  const int64_t bs = w.block, kb = w.blocks, padded = kb * bs;
  std::vector<int32_t> qa(static_cast<size_t>(padded));
  std::vector<float> sa(static_cast<size_t>(kb)), asum(static_cast<size_t>(kb));
  const int64_t whole_groups = w.n / 4 * 4, paired_rows = m / 2 * 2;
  for (int64_t i = 0; i < m; ++i) {
    nbits::QuantizeRowReference(w, a + i * w.k, qa.data(), sa.data(), asum.data());
    for (int64_t j = 0; j < w.n; ++j) {
      auto code = [&](int64_t kk) { return kk < w.k ? w.code(j, kk) : int(0); };
      auto dot = [&](int64_t k0, int64_t count) {
        int32_t p = 0;
        for (int64_t kk = k0; kk < k0 + count; ++kk) p += qa[size_t(kk)] * code(kk);
        return p;
      };
      float acc[16] = {};
      auto step = [&](int lane, int32_t p, int64_t b) {
        acc[lane] = std::fma(float(p), sa[size_t(b)] * w.scales[j * kb + b], acc[lane]);
      };
      // Eight codes at o..o+3 and o+8..o+11.
      auto split8 = [&](int64_t o) { return dot(o, 4) + dot(o + 8, 4); };
      int lanes = 16;
      int64_t b = 0;
      if (bs >= 128) {
        for (; b < kb; ++b) {
          for (int64_t sub = 0; sub < bs / 128; ++sub) {
            const int64_t base = b * bs + sub * 128;
            for (int d = 0; d < 16; ++d) {
              const int64_t word = vnni ? d : 16 * (d % 2) + 4 * (d / 4) + (d % 4) / 2;
              step(d, dot(base + 4 * word, 4) + dot(base + 4 * (vnni ? word + 16 : word + 2), 4), b);
            }
          }
        }
      } else if (bs == 64) {
        for (; kb - b >= 2; b += 2) {
          for (int l = 0; l < 16; ++l) {
            const int64_t blk = b + l % 2;
            step(l, split8(blk * 64 + 16 * (l / 4) + (l % 4 >= 2 ? 4 : 0)), blk);
          }
        }
        for (; b < kb; ++b) {
          for (int l = 0; l < 16; ++l) step(l, dot(b * 64 + 4 * l, 4), b);
        }
      } else {  // 32 and 16: groups of 128 k on 16 lanes, the other blocks on 8
        const int64_t group = 128 / bs;
        for (; kb - b >= group; b += group) {
          for (int l = 0; l < 16; ++l) {
            const int g = l / 4, r = l % 4;
            if (bs == 32) {
              const int64_t o = 64 * (r / 2) + 4 * (4 * g + r % 2);
              step(l, split8(b * 32 + o), b + o / 32);
            } else {
              const int64_t blk = b + g + (r >= 2 ? 4 : 0);
              step(l, split8(blk * 16 + (r % 2 ? 4 : 0)), blk);
            }
          }
        }
        for (int l = 0; l < 8; ++l) acc[l] = acc[l] + acc[l + 8];
        lanes = 8;
        for (; b < kb; ++b) {
          for (int l = 0; l < 8; ++l) {
            if (bs == 32)
              step(l, dot(b * 32 + 4 * l, 4), b);
            else
              step(l, dot(b * 16 + 2 * l, 2), b);
          }
        }
      }
      float r;
      if (lanes == 16) {
        r = j < whole_groups && i >= paired_rows ? FoldGroups16(acc) : Tree16(acc);
      } else {
        r = j < whole_groups ? FoldGroups8(acc) : Tree8(acc);
      }
      if (bias) r = r + bias[j];
      float c = 0.f;
      for (int64_t blk = 0; blk < kb; ++blk) {
        c = std::fma(asum[size_t(blk)], -w.scales[j * kb + blk] * float(w.zero_point(j, blk)), c);
      }
      y[i * w.n + j] = r + c;
    }
  }
}

}  // namespace

void MatMulNbitsInt8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y) {
  Int8Order(w, m, a, bias, y, true);
}

void MatMulNbitsInt8NoVnni(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y) {
  Int8Order(w, m, a, bias, y, false);
}

}  // namespace qrt::ref
