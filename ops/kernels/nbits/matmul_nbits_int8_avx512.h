// MatMulNBits' int8 path (accuracy_level 4) with AVX-512, for the two files that include it with
// their own flags: matmul_nbits_int8_avx512.cc (VPMADDUBSW + VPMADDWD, AVX512BW) and
// matmul_nbits_int8_vnni_avx512.cc (VPDPBUSD, AVX512_VNNI). Everything here has internal
// linkage, so neither file's copy can stand in for the other's.
//
// Bit-identical to ref::MatMulNbitsInt8: the integer partial sums are exact however they are
// formed, so only their grouping into lanes matters. Each step (nbits_int8.h) reads 64 bytes of a
// column's codes and moves, with one VPERMW, the four bytes each lane sums into that lane's dword;
// A's int8 codes are arranged alike once per call, so a dword's products are the lane's. The
// float steps are the reference's, lane for lane: acc = fma(float(P), sa * sb, acc), the fold
// 16 -> 8, the reductions (nbits_reduce.h), + bias; then the zero points' chain over blocks, 16
// columns to a register.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/common/transpose_avx512.h"
#include "ops/kernels/nbits/matmul_nbits.h"
#include "ops/kernels/nbits/nbits_int8.h"
#include "ops/kernels/nbits/nbits_reduce.h"

namespace qrt {
namespace {

using avx512::Transpose16;

using nbits::Int8Layout;
using nbits::Int8Plan;
using nbits::Int8Step;

// The step's bytes at p (W's codes, or A's deinterleaved alike) with lane l's in dword l.
inline __m512i Arrange(const Int8Step& s, const __m512i* word_index, const uint8_t* p) {
  if (s.layout == Int8Layout::kBytes) {
    return _mm512_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p)));
  }
  const __m512i x = s.bytes == 64 ? _mm512_loadu_si512(p) : _mm512_maskz_loadu_epi8((__mmask64(1) << s.bytes) - 1, p);
  return _mm512_permutexvar_epi16(word_index[int(s.layout)], x);
}

// One row of A quantized as the reference does: per block amax = max |a| (NaN ignored, as by
// std::max), sa = amax / 127, q = rint(a * (127 / amax)) (the conversion rounds to nearest even,
// as nearbyint does), 0 when amax is 0 and past k. Returns false if some q leaves -127..127.
bool QuantizeRow(const NbitsWeights& w, const float* row, int8_t* qa, float* sa, float* asum) {
  const __m512 abs_mask = _mm512_castsi512_ps(_mm512_set1_epi32(0x7fffffff));
  bool regular = true;
  for (int64_t b = 0; b < w.blocks; ++b) {
    const int64_t k0 = b * w.block, k1 = std::min(w.k, k0 + w.block);
    __m512 vmax = _mm512_setzero_ps();
    for (int64_t kk = k0; kk < k1; kk += 16) {
      const __mmask16 valid = k1 - kk >= 16 ? __mmask16(0xffff) : __mmask16((1u << (k1 - kk)) - 1);
      vmax = _mm512_max_ps(_mm512_and_ps(_mm512_maskz_loadu_ps(valid, row + kk), abs_mask), vmax);
    }
    const float amax = _mm512_reduce_max_ps(vmax);
    sa[b] = amax / 127.f;
    const __m512 inv = _mm512_set1_ps(amax != 0.f ? 127.f / amax : 0.f);
    __m512i vsum = _mm512_setzero_si512();
    __mmask16 bad = 0;
    for (int64_t kk = k0; kk < k0 + w.block; kk += 16) {
      const __mmask16 valid =
          kk >= k1 ? __mmask16(0) : (k1 - kk >= 16 ? __mmask16(0xffff) : __mmask16((1u << (k1 - kk)) - 1));
      const __m512i q = _mm512_maskz_cvtps_epi32(valid, _mm512_mul_ps(_mm512_maskz_loadu_ps(valid, row + kk), inv));
      bad |= _mm512_cmpgt_epu32_mask(_mm512_add_epi32(q, _mm512_set1_epi32(127)), _mm512_set1_epi32(254));
      vsum = _mm512_add_epi32(vsum, q);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(qa + kk), _mm512_cvtepi32_epi8(q));
    }
    regular = regular && bad == 0;
    asum[b] = sa[b] * float(_mm512_reduce_add_epi32(vsum));
  }
  return regular;
}

// Rows of A (natural order, padded to whole blocks) arranged for each step: 64 bytes of the even
// k's codes, then 64 of the odd k's, as the step arranges W's low and high nibbles.
void ArrangeRow(const Int8Plan& plan, const Int8Step* steps, const __m512i* word_index, const int8_t* qa,
                uint8_t* out) {
  alignas(64) uint8_t even[64], odd[64];
  for (int64_t s = 0; s < plan.count; ++s) {
    const Int8Step& st = steps[s];
    for (int t = 0; t < st.bytes; ++t) {
      even[t] = uint8_t(qa[2 * (st.offset + t)]);
      odd[t] = uint8_t(qa[2 * (st.offset + t) + 1]);
    }
    _mm512_storeu_si512(out + 128 * s, Arrange(st, word_index, even));
    _mm512_storeu_si512(out + 128 * s + 64, Arrange(st, word_index, odd));
  }
}

// R rows x C columns (j0..): each (row, column)'s 16 lanes after the last step, to lanes.
template <class Dot, int R, int C>
void Tile(const NbitsWeights& w, const Int8Plan& plan, const Int8Step* steps, const __m512i* word_index,
          const uint8_t* const* qa, const float* const* sa, int64_t j0, float* lanes) {
  const int64_t row_bytes = w.blocks * (w.block / 2);
  const __m512i nibble = _mm512_set1_epi8(15);
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
  auto run = [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      const Int8Step& st = steps[s];
      const __m512i lane_block = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(st.lane_block)));
      const __mmask16 span = __mmask16((1u << st.blocks) - 1);
      __m512i lo[C], hi[C];
      __m512 sb[C];
      for (int c = 0; c < C; ++c) {
        const __m512i x = Arrange(st, word_index, w.codes + (j0 + c) * row_bytes + st.offset);
        lo[c] = _mm512_and_si512(x, nibble);
        hi[c] = _mm512_and_si512(_mm512_srli_epi16(x, 4), nibble);
        sb[c] =
            _mm512_permutexvar_ps(lane_block, _mm512_maskz_loadu_ps(span, w.scales + (j0 + c) * w.blocks + st.block));
      }
      for (int r = 0; r < R; ++r) {
        const __m512i qlo = _mm512_loadu_si512(qa[r] + 128 * s), qhi = _mm512_loadu_si512(qa[r] + 128 * s + 64);
        const __m512 sar = _mm512_permutexvar_ps(lane_block, _mm512_maskz_loadu_ps(span, sa[r] + st.block));
        for (int c = 0; c < C; ++c) {
          const __m512 p = _mm512_cvtepi32_ps(Dot()(lo[c], qlo, hi[c], qhi));
          acc[r][c] = _mm512_fmadd_ps(p, _mm512_mul_ps(sar, sb[c]), acc[r][c]);
        }
      }
    }
  };
  run(0, plan.eight_lanes ? plan.fold_at : plan.count);
  if (plan.eight_lanes) {
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c)
        acc[r][c] = _mm512_add_ps(acc[r][c], _mm512_shuffle_f32x4(acc[r][c], acc[r][c], 0xEE));
    run(plan.fold_at, plan.count);
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) _mm512_storeu_ps(lanes + 16 * (r * C + c), acc[r][c]);
}

// y += the zero points' share, c = fma(sa * sum qa, -sb * zp, c) over blocks from +0, for
// columns [j0, j0 + 64) of every row: -sb * zp per block is computed 16 blocks at a time per
// column and transposed, so that a register holds 16 columns' chains.
constexpr int64_t kZeroPointChunk = 64;

// Columns [j0, j0 + kZeroPointChunk) only.
void AddZeroPointShareChunk(const NbitsWeights& w, int64_t m, const float* asum, float* nz, float* y, int64_t j0) {
  constexpr int64_t kChunk = kZeroPointChunk;
  const int64_t zp_row = (w.blocks + 1) / 2;
  const __m512 sign = _mm512_castsi512_ps(_mm512_set1_epi32(int(0x80000000u)));
  {
    const int64_t cols = std::min(kChunk, w.n - j0), regs = (cols + 15) / 16;
    // The terms, block after block: made once for constant weights, else here (transposed).
    const float* terms = w.zero_point_terms != nullptr ? w.zero_point_terms + j0 : nz;
    int64_t stride = w.zero_point_terms != nullptr ? w.n : kChunk;
    if (w.zero_point_terms != nullptr && m > 1 && cols == kChunk) {
      // Read once per row: copied together, as the blocks' rows n floats apart would share a few
      // cache sets (n a multiple of 1024: 4 KiB apart) and leave L1 at every pass.
      for (int64_t b = 0; b < w.blocks; ++b) {
        for (int q = 0; q < 4; ++q)
          _mm512_storeu_ps(nz + b * kChunk + 16 * q, _mm512_loadu_ps(terms + b * w.n + 16 * q));
      }
      terms = nz;
      stride = kChunk;
    }
    for (int64_t g = 0; g < 16 * regs && w.zero_point_terms == nullptr; g += 16) {
      for (int64_t b0 = 0; b0 < w.blocks; b0 += 16) {
        const int64_t nb = std::min<int64_t>(16, w.blocks - b0);
        const __mmask16 valid = __mmask16((1u << nb) - 1);
        __m512 v[16];
        for (int64_t c = 0; c < 16; ++c) {
          const int64_t j = j0 + g + c;
          if (g + c >= cols) {
            v[c] = _mm512_setzero_ps();
            continue;
          }
          const __m512 s = _mm512_maskz_loadu_ps(valid, w.scales + j * w.blocks + b0);
          __m512 zp = _mm512_set1_ps(8.f);
          if (w.zero_points != nullptr) {
            const int64_t bytes = (b0 + nb + 1) / 2 - b0 / 2;
            const __m128i packed =
                _mm_maskz_loadu_epi8(__mmask16((1u << bytes) - 1), w.zero_points + j * zp_row + b0 / 2);
            const __m128i low = _mm_and_si128(packed, _mm_set1_epi8(15));
            const __m128i high = _mm_and_si128(_mm_srli_epi16(packed, 4), _mm_set1_epi8(15));
            zp = _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_unpacklo_epi8(low, high)));
          }
          v[c] = _mm512_mul_ps(_mm512_xor_ps(s, sign), zp);  // (-sb) * zp, as the reference
        }
        Transpose16(v);
        for (int64_t bb = 0; bb < nb; ++bb) _mm512_storeu_ps(nz + (b0 + bb) * kChunk + g, v[bb]);
      }
    }
    for (int64_t i = 0; i < m; ++i) {
      __m512 c[4] = {_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
      const float* as = asum + i * w.blocks;
      __mmask16 valid_of[4];
      for (int q = 0; q < 4; ++q) {
        const int64_t left = cols - 16 * q;
        valid_of[q] = left >= 16 ? __mmask16(0xffff) : left <= 0 ? __mmask16(0) : __mmask16((1u << left) - 1);
      }
      for (int64_t b = 0; b < w.blocks; ++b) {
        const __m512 s = _mm512_set1_ps(as[b]);
        for (int q = 0; q < 4; ++q) {
          if (q < regs)
            c[q] = _mm512_fmadd_ps(s, _mm512_maskz_loadu_ps(valid_of[q], terms + b * stride + 16 * q), c[q]);
        }
      }
      for (int64_t q = 0; q < regs; ++q) {
        const __mmask16 valid = valid_of[q];
        float* dst = y + i * w.n + j0 + 16 * q;
        _mm512_mask_storeu_ps(dst, valid, _mm512_add_ps(_mm512_maskz_loadu_ps(valid, dst), c[q]));
      }
    }
  }
}

void AddZeroPointShare(const NbitsWeights& w, int64_t m, const float* asum, float* nz, float* y) {
  for (int64_t j0 = 0; j0 < w.n; j0 += kZeroPointChunk) AddZeroPointShareChunk(w, m, asum, nz, y, j0);
}

template <class Dot, int R, int C>
void Tiles(const NbitsWeights& w, const Int8Plan& plan, const Int8Step* steps, const __m512i* word_index,
           const uint8_t* qa, int64_t qa_row, const float* sa, int64_t i0, int64_t j0, int64_t m, const float* bias,
           float* y) {
  alignas(64) float lanes[16 * R * C];
  const uint8_t* qa_rows[R];
  const float* sa_rows[R];
  for (int r = 0; r < R; ++r) {
    qa_rows[r] = qa + (i0 + r) * qa_row;
    sa_rows[r] = sa + (i0 + r) * w.blocks;
  }
  Tile<Dot, R, C>(w, plan, steps, word_index, qa_rows, sa_rows, j0, lanes);
  const int64_t whole_groups = w.n / 4 * 4, paired_rows = m / 2 * 2;
  for (int r = 0; r < R; ++r) {
    const int64_t i = i0 + r;
    for (int c = 0; c < C; ++c) {
      const int64_t j = j0 + c;
      const float* x = lanes + 16 * (r * C + c);
      float v;
      if (plan.eight_lanes)
        v = j < whole_groups ? nbits::FoldGroups8(x) : nbits::Tree8(x);
      else
        v = j < whole_groups && i >= paired_rows ? nbits::FoldGroups16(x) : nbits::Tree16(x);
      y[i * w.n + j] = bias ? v + bias[j] : v;
    }
  }
}

// One row of A (m = 1). The steps from the first that share its layout and read 64 bytes (all
// of them for blocks of 128 or more; the whole groups of 128 k otherwise) keep their lanes in
// another order: dword p holds reference lane order[p], chosen so that lane's block is p % B,
// B the blocks a step spans. A step's sa * sb is then B products repeated (one broadcast load of
// the column's B scales, one multiply: the reference's rounded sa * sb per lane), and W's words
// are moved by the same one VPERMW. After those steps one VPERMPS puts the lanes back in the
// reference's order and the other steps run as in Tile.
struct Row1Plan {
  int64_t fast = 0;  // steps [0, fast) in the permuted order
  int blocks = 0;    // B
  __m512i unpermute;
};

inline Row1Plan MakeRow1Plan(const Int8Plan& plan, const Int8Step* steps, __m512i* word_index) {
  Row1Plan r;
  const int64_t main_end = plan.eight_lanes ? plan.fold_at : plan.count;
  if (main_end == 0 || steps[0].bytes != 64 || steps[0].layout == Int8Layout::kBytes) return r;
  const Int8Step& first = steps[0];
  const int b = first.blocks;
  int order[16], count[8] = {};
  for (int l = 0; l < 16; ++l) {
    const int lb = first.lane_block[l];
    if (lb >= b || count[lb] >= 16 / b) return r;
    order[count[lb]++ * b + lb] = l;
  }
  int64_t fast = 0;
  while (fast < main_end && steps[fast].layout == first.layout && steps[fast].bytes == 64 &&
         steps[fast].blocks == first.blocks && steps[fast].offset == 64 * fast &&
         std::memcmp(steps[fast].lane_block, first.lane_block, 16) == 0)
    ++fast;
  for (int64_t s = fast; s < plan.count; ++s) {
    if (steps[s].layout == first.layout) return r;  // would be arranged in the permuted order
  }
  alignas(64) int16_t base[32], index[32];
  alignas(64) int32_t inverse[16];
  _mm512_store_si512(base, word_index[int(first.layout)]);
  for (int p = 0; p < 16; ++p) {
    index[2 * p] = base[2 * order[p]];
    index[2 * p + 1] = base[2 * order[p] + 1];
    inverse[order[p]] = p;
  }
  word_index[int(first.layout)] = _mm512_load_si512(index);
  r.fast = fast;
  r.blocks = b;
  r.unpermute = _mm512_load_si512(inverse);
  return r;
}

template <int B>
inline __m512 BroadcastScales(const float* p) {
  if constexpr (B == 1) return _mm512_set1_ps(*p);
  if constexpr (B == 2) {  // two floats as one double, read by memcpy: p need not be 8-byte aligned
    double pair;
    std::memcpy(&pair, p, sizeof(pair));
    return _mm512_castpd_ps(_mm512_set1_pd(pair));
  }
  if constexpr (B == 4) return _mm512_broadcast_f32x4(_mm_loadu_ps(p));
  if constexpr (B == 8) return _mm512_broadcast_f32x8(_mm256_loadu_ps(p));
}

// Columns j0 .. j0 + C - 1 of the row; fast_sa holds each permuted step's sa per dword.
template <class Dot, int C, int B>
void Row1Tile(const NbitsWeights& w, const Int8Plan& plan, const Row1Plan& r1, const Int8Step* steps,
              const __m512i* word_index, const uint8_t* qa, const float* sa, const float* fast_sa, int64_t j0,
              float* lanes) {
  const int64_t row_bytes = w.blocks * (w.block / 2);
  const __m512i nibble = _mm512_set1_epi8(15);
  const __m512i index = word_index[int(steps[0].layout)];
  const uint8_t* codes = w.codes + j0 * row_bytes;
  const float* scales = w.scales + j0 * w.blocks;
  __m512 acc[C];
  for (int c = 0; c < C; ++c) acc[c] = _mm512_setzero_ps();
  for (int64_t s = 0; s < r1.fast; ++s) {
    const __m512i qlo = _mm512_loadu_si512(qa + 128 * s), qhi = _mm512_loadu_si512(qa + 128 * s + 64);
    const __m512 sas = _mm512_loadu_ps(fast_sa + 16 * s);
    const int64_t blk = steps[s].block;
    for (int c = 0; c < C; ++c) {
      const __m512i x = _mm512_permutexvar_epi16(index, _mm512_loadu_si512(codes + c * row_bytes + 64 * s));
      const __m512i lo = _mm512_and_si512(x, nibble), hi = _mm512_and_si512(_mm512_srli_epi16(x, 4), nibble);
      const __m512 p = _mm512_cvtepi32_ps(Dot()(lo, qlo, hi, qhi));
      acc[c] = _mm512_fmadd_ps(p, _mm512_mul_ps(sas, BroadcastScales<B>(scales + c * w.blocks + blk)), acc[c]);
    }
  }
  for (int c = 0; c < C; ++c) acc[c] = _mm512_permutexvar_ps(r1.unpermute, acc[c]);
  auto run = [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      const Int8Step& st = steps[s];
      const __m512i lane_block = _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(st.lane_block)));
      const __mmask16 span = __mmask16((1u << st.blocks) - 1);
      const __m512i qlo = _mm512_loadu_si512(qa + 128 * s), qhi = _mm512_loadu_si512(qa + 128 * s + 64);
      const __m512 sar = _mm512_permutexvar_ps(lane_block, _mm512_maskz_loadu_ps(span, sa + st.block));
      for (int c = 0; c < C; ++c) {
        const __m512i x = Arrange(st, word_index, codes + c * row_bytes + st.offset);
        const __m512i lo = _mm512_and_si512(x, nibble), hi = _mm512_and_si512(_mm512_srli_epi16(x, 4), nibble);
        const __m512 sb =
            _mm512_permutexvar_ps(lane_block, _mm512_maskz_loadu_ps(span, scales + c * w.blocks + st.block));
        const __m512 p = _mm512_cvtepi32_ps(Dot()(lo, qlo, hi, qhi));
        acc[c] = _mm512_fmadd_ps(p, _mm512_mul_ps(sar, sb), acc[c]);
      }
    }
  };
  const int64_t main_end = plan.eight_lanes ? plan.fold_at : plan.count;
  run(r1.fast, main_end);
  if (plan.eight_lanes) {
    for (int c = 0; c < C; ++c) acc[c] = _mm512_add_ps(acc[c], _mm512_shuffle_f32x4(acc[c], acc[c], 0xEE));
    run(plan.fold_at, plan.count);
  }
  for (int c = 0; c < C; ++c) _mm512_storeu_ps(lanes + 16 * c, acc[c]);
}

template <class Dot, int C, int B>
void Row1Tiles(const NbitsWeights& w, const Int8Plan& plan, const Row1Plan& r1, const Int8Step* steps,
               const __m512i* word_index, const uint8_t* qa, const float* sa, const float* fast_sa, int64_t j0,
               const float* bias, float* y) {
  alignas(64) float lanes[16 * C];
  Row1Tile<Dot, C, B>(w, plan, r1, steps, word_index, qa, sa, fast_sa, j0, lanes);
  const int64_t whole_groups = w.n / 4 * 4;
  for (int c = 0; c < C; ++c) {
    const int64_t j = j0 + c;
    const float* x = lanes + 16 * c;
    float v;
    if (plan.eight_lanes)
      v = j < whole_groups ? nbits::FoldGroups8(x) : nbits::Tree8(x);
    else
      v = j < whole_groups ? nbits::FoldGroups16(x) : nbits::Tree16(x);
    y[j] = bias ? v + bias[j] : v;
  }
}

template <class Dot, int B>
void Row1(const NbitsWeights& w, const Int8Plan& plan, const Row1Plan& r1, const Int8Step* steps,
          const __m512i* word_index, const uint8_t* qa, const float* sa, const float* fast_sa, const float* asum,
          float* nz, const float* bias, float* y) {
  constexpr int kCols = 4;
  static_assert(kZeroPointChunk % kCols == 0);
  for (int64_t c0 = 0; c0 < w.n; c0 += kZeroPointChunk) {
    const int64_t c1 = std::min(w.n, c0 + kZeroPointChunk);
    int64_t j0 = c0;
    for (; j0 + kCols <= c1; j0 += kCols)
      Row1Tiles<Dot, kCols, B>(w, plan, r1, steps, word_index, qa, sa, fast_sa, j0, bias, y);
    for (; j0 < c1; ++j0) Row1Tiles<Dot, 1, B>(w, plan, r1, steps, word_index, qa, sa, fast_sa, j0, bias, y);
    // While this chunk's scales are in cache.
    AddZeroPointShareChunk(w, 1, asum, nz, y, c0);
  }
}

// The whole product; Dot()(lo, qlo, hi, qhi) gives each dword's four-byte products of lo and
// qlo plus those of hi and qhi (codes unsigned, A's signed), exactly.
// vnni: ORT's order with AVX512_VNNI, else without (nbits::MakeInt8Plan).
template <class Dot>
void MatMulInt8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y, bool vnni) {
  const int64_t capacity = nbits::Int8StepCapacity(w.block, w.blocks), padded = w.blocks * w.block;
  Int8Step* steps = ThreadScratchArray<Int8Step>(ScratchSlot::kOp1, size_t(capacity));
  const Int8Plan plan = nbits::MakeInt8Plan(w.block, w.blocks, vnni, steps);
  const NbitsInt8Fn reference = vnni ? ref::MatMulNbitsInt8 : ref::MatMulNbitsInt8NoVnni;
  __m512i word_index[3];
  for (int layout = 0; layout < 3; ++layout) {
    alignas(64) int16_t index[32];
    nbits::Int8WordIndex(Int8Layout(layout), index);
    word_index[layout] = _mm512_load_si512(index);
  }
  const int64_t qa_row = 128 * plan.count;
  uint8_t* qa = ThreadScratchArray<uint8_t>(ScratchSlot::kOp0, size_t(m * qa_row + padded + 64));
  int8_t* natural = reinterpret_cast<int8_t*>(qa + m * qa_row);
  const int64_t chunk_floats = 64 * w.blocks;
  float* floats = ThreadScratchFloats(ScratchSlot::kOp2, size_t(2 * m * w.blocks + chunk_floats + m + 16 * capacity));
  float *sa = floats, *asum = floats + m * w.blocks, *nz = asum + m * w.blocks, *irregular = nz + chunk_floats;
  const Row1Plan r1 = m == 1 ? MakeRow1Plan(plan, steps, word_index) : Row1Plan();
  for (int64_t i = 0; i < m; ++i) {
    const bool regular = QuantizeRow(w, a + i * w.k, natural, sa + i * w.blocks, asum + i * w.blocks);
    irregular[i] = regular ? 0.f : 1.f;
    ArrangeRow(plan, steps, word_index, natural, qa + i * qa_row);
  }
  if (r1.fast > 0) {
    float* fast_sa = irregular + m;
    for (int64_t s = 0; s < r1.fast; ++s) {
      for (int p = 0; p < 16; ++p) fast_sa[16 * s + p] = sa[steps[s].block + p % r1.blocks];
    }
    if (r1.blocks == 1) Row1<Dot, 1>(w, plan, r1, steps, word_index, qa, sa, fast_sa, asum, nz, bias, y);
    if (r1.blocks == 2) Row1<Dot, 2>(w, plan, r1, steps, word_index, qa, sa, fast_sa, asum, nz, bias, y);
    if (r1.blocks == 4) Row1<Dot, 4>(w, plan, r1, steps, word_index, qa, sa, fast_sa, asum, nz, bias, y);
    if (r1.blocks == 8) Row1<Dot, 8>(w, plan, r1, steps, word_index, qa, sa, fast_sa, asum, nz, bias, y);
    if (irregular[0] != 0.f) nbits::Int8RowByReference(reference, w, a, false, bias, y);
    return;
  }
  constexpr int kRows = 4, kCols = 3;
  int64_t j0 = 0;
  for (; j0 + kCols <= w.n; j0 += kCols) {
    int64_t i0 = 0;
    for (; i0 + kRows <= m; i0 += kRows)
      Tiles<Dot, kRows, kCols>(w, plan, steps, word_index, qa, qa_row, sa, i0, j0, m, bias, y);
    for (; i0 < m; ++i0) Tiles<Dot, 1, kCols>(w, plan, steps, word_index, qa, qa_row, sa, i0, j0, m, bias, y);
  }
  for (; j0 < w.n; ++j0) {
    for (int64_t i0 = 0; i0 < m; ++i0) Tiles<Dot, 1, 1>(w, plan, steps, word_index, qa, qa_row, sa, i0, j0, m, bias, y);
  }
  AddZeroPointShare(w, m, asum, nz, y);
  for (int64_t i = 0; i < m; ++i) {
    if (irregular[i] != 0.f) nbits::Int8RowByReference(reference, w, a + i * w.k, i < m / 2 * 2, bias, y + i * w.n);
  }
}

}  // namespace
}  // namespace qrt
