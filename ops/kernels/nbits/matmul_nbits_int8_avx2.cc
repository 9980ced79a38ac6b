// MatMulNBits' int8 path (accuracy_level 4) with AVX2, bit-identical to ref::MatMulNbitsInt8 (the
// same design as matmul_nbits_int8_avx512.h, which says why it is exact). The 16 lanes are two
// registers, U holding lanes 0-3 and 8-11 and V lanes 4-7 and 12-15, the order in which in-lane
// unpacks leave a step's dwords; the float steps are lane-wise, so the order only matters when
// the lanes are stored. Each dword's products: VPMADDUBSW (a pair at most 2 * 15 * 127), the
// nibbles' words added (at most 7620), then VPMADDWD.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/common/transpose_avx2.h"
#include "ops/kernels/nbits/matmul_nbits.h"
#include "ops/kernels/nbits/nbits_int8.h"
#include "ops/kernels/nbits/nbits_int8_avx2.h"
#include "ops/kernels/nbits/nbits_reduce.h"

namespace qrt::avx2 {
namespace {

using nbits::Int8Layout;
using nbits::Int8Plan;
using nbits::Int8Step;
using nbits_int8::AddZeroPointShare;
using nbits_int8::QuantizeRow;

struct Pair {
  __m256i u, v;
};

// The step's bytes at p (W's codes, or A's deinterleaved alike) with lane l's four bytes in its
// dword of U or V.
inline Pair Arrange(const Int8Step& s, const uint8_t* p) {
  if (s.layout == Int8Layout::kBytes) {
    int32_t w0, w1;
    std::memcpy(&w0, p, 4);
    std::memcpy(&w1, p + 4, 4);
    return {_mm256_zextsi128_si256(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(w0))),
            _mm256_zextsi128_si256(_mm_cvtepu8_epi32(_mm_cvtsi32_si128(w1)))};
  }
  __m256i x, y = _mm256_setzero_si256();
  if (s.bytes == 16) {
    x = _mm256_zextsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  } else {
    x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    if (s.bytes == 64) y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p + 32));
  }
  if (s.layout == Int8Layout::kSpan) return {_mm256_unpacklo_epi16(x, y), _mm256_unpackhi_epi16(x, y)};
  // Words 0 2 1 3 in each quadword: dword 2g + t holds words 4g + t and 4g + t + 2.
  const __m256i order = _mm256_setr_epi8(0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15, 0, 1, 4, 5, 2, 3, 6, 7,
                                         8, 9, 12, 13, 10, 11, 14, 15);
  x = _mm256_shuffle_epi8(x, order);
  y = _mm256_shuffle_epi8(y, order);
  if (s.layout == Int8Layout::kGroups) return {_mm256_unpacklo_epi64(x, y), _mm256_unpackhi_epi64(x, y)};
  return {_mm256_unpacklo_epi32(x, y), _mm256_unpackhi_epi32(x, y)};  // kPairs
}

// A's codes arranged for each step: the even k's U, V, then the odd k's U, V (128 bytes).
void ArrangeRow(const Int8Plan& plan, const Int8Step* steps, const int8_t* qa, uint8_t* out) {
  alignas(32) uint8_t even[64], odd[64];
  for (int64_t s = 0; s < plan.count; ++s) {
    const Int8Step& st = steps[s];
    for (int t = 0; t < st.bytes; ++t) {
      even[t] = uint8_t(qa[2 * (st.offset + t)]);
      odd[t] = uint8_t(qa[2 * (st.offset + t) + 1]);
    }
    const Pair e = Arrange(st, even), o = Arrange(st, odd);
    __m256i* dst = reinterpret_cast<__m256i*>(out + 128 * s);
    _mm256_storeu_si256(dst, e.u);
    _mm256_storeu_si256(dst + 1, e.v);
    _mm256_storeu_si256(dst + 2, o.u);
    _mm256_storeu_si256(dst + 3, o.v);
  }
}

inline __m256i Dot(__m256i lo, __m256i qlo, __m256i hi, __m256i qhi) {
  const __m256i words = _mm256_add_epi16(_mm256_maddubs_epi16(lo, qlo), _mm256_maddubs_epi16(hi, qhi));
  return _mm256_madd_epi16(words, _mm256_set1_epi16(1));
}

// R rows x C columns (j0..): each (row, column)'s 16 lanes after the last step, in lane order.
template <int R, int C>
void Tile(const NbitsWeights& w, const Int8Plan& plan, const Int8Step* steps, const uint8_t* const* qa,
          const float* const* sa, int64_t j0, float* lanes) {
  const int64_t row_bytes = w.blocks * (w.block / 2);
  const __m256i nibble = _mm256_set1_epi8(15);
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256 acc_u[R][C], acc_v[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc_u[r][c] = acc_v[r][c] = _mm256_setzero_ps();
  auto run = [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      const Int8Step& st = steps[s];
      const __m128i lb = _mm_loadu_si128(reinterpret_cast<const __m128i*>(st.lane_block));
      // U's lanes are 0-3, 8-11; V's 4-7, 12-15.
      const __m256i idx_u = _mm256_cvtepu8_epi32(_mm_unpacklo_epi32(lb, _mm_srli_si128(lb, 8)));
      const __m256i idx_v = _mm256_cvtepu8_epi32(_mm_unpacklo_epi32(_mm_srli_si128(lb, 4), _mm_srli_si128(lb, 12)));
      const __m256i span = _mm256_cmpgt_epi32(_mm256_set1_epi32(st.blocks), lane);
      __m256i lo_u[C], hi_u[C], lo_v[C], hi_v[C];
      __m256 sb_u[C], sb_v[C];
      for (int c = 0; c < C; ++c) {
        const Pair x = Arrange(st, w.codes + (j0 + c) * row_bytes + st.offset);
        lo_u[c] = _mm256_and_si256(x.u, nibble);
        hi_u[c] = _mm256_and_si256(_mm256_srli_epi16(x.u, 4), nibble);
        lo_v[c] = _mm256_and_si256(x.v, nibble);
        hi_v[c] = _mm256_and_si256(_mm256_srli_epi16(x.v, 4), nibble);
        const __m256 sb = _mm256_maskload_ps(w.scales + (j0 + c) * w.blocks + st.block, span);
        sb_u[c] = _mm256_permutevar8x32_ps(sb, idx_u);
        sb_v[c] = _mm256_permutevar8x32_ps(sb, idx_v);
      }
      for (int r = 0; r < R; ++r) {
        const __m256i* q = reinterpret_cast<const __m256i*>(qa[r] + 128 * s);
        const __m256i qlo_u = _mm256_loadu_si256(q), qlo_v = _mm256_loadu_si256(q + 1);
        const __m256i qhi_u = _mm256_loadu_si256(q + 2), qhi_v = _mm256_loadu_si256(q + 3);
        const __m256 sar = _mm256_maskload_ps(sa[r] + st.block, span);
        const __m256 sa_u = _mm256_permutevar8x32_ps(sar, idx_u), sa_v = _mm256_permutevar8x32_ps(sar, idx_v);
        for (int c = 0; c < C; ++c) {
          const __m256 pu = _mm256_cvtepi32_ps(Dot(lo_u[c], qlo_u, hi_u[c], qhi_u));
          const __m256 pv = _mm256_cvtepi32_ps(Dot(lo_v[c], qlo_v, hi_v[c], qhi_v));
          acc_u[r][c] = _mm256_fmadd_ps(pu, _mm256_mul_ps(sa_u, sb_u[c]), acc_u[r][c]);
          acc_v[r][c] = _mm256_fmadd_ps(pv, _mm256_mul_ps(sa_v, sb_v[c]), acc_v[r][c]);
        }
      }
    }
  };
  run(0, plan.eight_lanes ? plan.fold_at : plan.count);
  if (plan.eight_lanes) {  // lanes 0-3 += 8-11 (U), 4-7 += 12-15 (V)
    for (int r = 0; r < R; ++r) {
      for (int c = 0; c < C; ++c) {
        acc_u[r][c] = _mm256_add_ps(acc_u[r][c], _mm256_permute2f128_ps(acc_u[r][c], acc_u[r][c], 0x11));
        acc_v[r][c] = _mm256_add_ps(acc_v[r][c], _mm256_permute2f128_ps(acc_v[r][c], acc_v[r][c], 0x11));
      }
    }
    run(plan.fold_at, plan.count);
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) {
      float* x = lanes + 16 * (r * C + c);
      _mm_storeu_ps(x, _mm256_castps256_ps128(acc_u[r][c]));
      _mm_storeu_ps(x + 4, _mm256_castps256_ps128(acc_v[r][c]));
      _mm_storeu_ps(x + 8, _mm256_extractf128_ps(acc_u[r][c], 1));
      _mm_storeu_ps(x + 12, _mm256_extractf128_ps(acc_v[r][c], 1));
    }
  }
}

template <int R, int C>
void Tiles(const NbitsWeights& w, const Int8Plan& plan, const Int8Step* steps, const uint8_t* qa, int64_t qa_row,
           const float* sa, int64_t i0, int64_t j0, int64_t m, const float* bias, float* y) {
  alignas(32) float lanes[16 * R * C];
  const uint8_t* qa_rows[R];
  const float* sa_rows[R];
  for (int r = 0; r < R; ++r) {
    qa_rows[r] = qa + (i0 + r) * qa_row;
    sa_rows[r] = sa + (i0 + r) * w.blocks;
  }
  Tile<R, C>(w, plan, steps, qa_rows, sa_rows, j0, lanes);
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

}  // namespace

namespace nbits_int8 {
namespace {

inline int32_t HorizontalSum(__m256i v) {
  __m128i s = _mm_add_epi32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0x4E));
  s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0xB1));
  return _mm_cvtsi128_si32(s);
}

}  // namespace

// One row of A quantized as the reference does (matmul_nbits_int8_avx512.h's QuantizeRow).
bool QuantizeRow(const NbitsWeights& w, const float* row, int8_t* qa, float* sa, float* asum) {
  const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  bool regular = true;
  for (int64_t b = 0; b < w.blocks; ++b) {
    const int64_t k0 = b * w.block, k1 = std::min(w.k, k0 + w.block);
    __m256 vmax = _mm256_setzero_ps();
    for (int64_t kk = k0; kk < k1; kk += 8) {
      const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(k1 - kk)), lane);
      vmax = _mm256_max_ps(_mm256_and_ps(_mm256_maskload_ps(row + kk, valid), abs_mask), vmax);
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, vmax);
    float amax = 0.f;
    for (float v : lanes) amax = std::max(amax, v);
    sa[b] = amax / 127.f;
    const __m256 inv = _mm256_set1_ps(amax != 0.f ? 127.f / amax : 0.f);
    __m256i vsum = _mm256_setzero_si256(), bad = _mm256_setzero_si256();
    for (int64_t kk = k0; kk < k0 + w.block; kk += 8) {
      const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(k1 - kk)), lane);
      const __m256i q =
          _mm256_and_si256(valid, _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_maskload_ps(row + kk, valid), inv)));
      const __m256i clamped = _mm256_min_epi32(_mm256_max_epi32(q, _mm256_set1_epi32(-127)), _mm256_set1_epi32(127));
      bad = _mm256_or_si256(bad, _mm256_xor_si256(q, clamped));
      vsum = _mm256_add_epi32(vsum, q);
      const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(clamped), _mm256_extracti128_si256(clamped, 1));
      _mm_storel_epi64(reinterpret_cast<__m128i*>(qa + kk), _mm_packs_epi16(words, words));
    }
    regular = regular && _mm256_testz_si256(bad, bad);
    asum[b] = sa[b] * float(HorizontalSum(vsum));
  }
  return regular;
}

Int8Scratch TakeInt8Scratch(const NbitsWeights& w, int64_t m, int64_t row_bytes) {
  Int8Scratch s;
  s.arranged = ThreadScratchArray<uint8_t>(ScratchSlot::kOp0, size_t(m * row_bytes + w.blocks * w.block + 64));
  s.natural = reinterpret_cast<int8_t*>(s.arranged + m * row_bytes);
  const int64_t chunk_floats = 32 * w.blocks;
  float* floats = ThreadScratchFloats(ScratchSlot::kOp2, size_t(2 * m * w.blocks + chunk_floats + m));
  s.sa = floats, s.asum = floats + m * w.blocks, s.nz = s.asum + m * w.blocks, s.irregular = s.nz + chunk_floats;
  return s;
}

// Two rows of a whole chunk of 32 columns: each block's terms loaded once for both (each row's
// chain over blocks in order, from +0), 8 accumulators in registers.
void ShareTwoRows(const float* terms, int64_t stride, const float* as0, const float* as1, int64_t blocks, float* y0,
                  float* y1) {
  __m256 c0 = _mm256_setzero_ps(), c1 = c0, c2 = c0, c3 = c0, d0 = c0, d1 = c0, d2 = c0, d3 = c0;
  for (int64_t b = 0; b < blocks; ++b) {
    const float* p = terms + b * stride;
    const __m256 t0 = _mm256_loadu_ps(p), t1 = _mm256_loadu_ps(p + 8), t2 = _mm256_loadu_ps(p + 16),
                 t3 = _mm256_loadu_ps(p + 24);
    const __m256 s = _mm256_broadcast_ss(as0 + b), u = _mm256_broadcast_ss(as1 + b);
    c0 = _mm256_fmadd_ps(s, t0, c0);
    c1 = _mm256_fmadd_ps(s, t1, c1);
    c2 = _mm256_fmadd_ps(s, t2, c2);
    c3 = _mm256_fmadd_ps(s, t3, c3);
    d0 = _mm256_fmadd_ps(u, t0, d0);
    d1 = _mm256_fmadd_ps(u, t1, d1);
    d2 = _mm256_fmadd_ps(u, t2, d2);
    d3 = _mm256_fmadd_ps(u, t3, d3);
  }
  const __m256 c[8] = {c0, c1, c2, c3, d0, d1, d2, d3};
  for (int q = 0; q < 8; ++q) {
    float* dst = (q < 4 ? y0 : y1) + 8 * (q % 4);
    _mm256_storeu_ps(dst, _mm256_add_ps(_mm256_loadu_ps(dst), c[q]));
  }
}

// One row of a chunk of at most 32 columns.
void ShareRow(const float* terms, int64_t stride, const float* as, int64_t blocks, int64_t cols,
              const __m256i* valid_of, float* y) {
  const int64_t regs = (cols + 7) / 8;
  __m256 c[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
  for (int64_t b = 0; b < blocks; ++b) {
    const __m256 s = _mm256_set1_ps(as[b]);
    for (int q = 0; q < 4; ++q) {
      if (q >= regs) continue;
      // A plain load for a whole vector (VMASKMOVPS is microcoded on AMD).
      const float* p = terms + b * stride + 8 * q;
      c[q] = _mm256_fmadd_ps(s, 8 * (q + 1) <= cols ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, valid_of[q]), c[q]);
    }
  }
  for (int64_t q = 0; q < regs; ++q) {
    const __m256i valid = valid_of[q];
    float* dst = y + 8 * q;
    _mm256_maskstore_ps(dst, valid, _mm256_add_ps(_mm256_maskload_ps(dst, valid), c[q]));
  }
}

// y += the zero points' share, c = fma(sa * sum qa, -sb * zp, c) over blocks from +0, 32 columns
// at a time, 8 to a register (-sb * zp computed 8 blocks at a time per column and transposed).
void AddZeroPointShare(const NbitsWeights& w, int64_t m, const float* asum, float* nz, float* y) {
  constexpr int64_t kChunk = 32;
  const int64_t zp_row = (w.blocks + 1) / 2;
  const __m256 sign = _mm256_castsi256_ps(_mm256_set1_epi32(int(0x80000000u)));
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (int64_t j0 = 0; j0 < w.n; j0 += kChunk) {
    const int64_t cols = std::min(kChunk, w.n - j0), regs = (cols + 7) / 8;
    // The terms, block after block: made once for constant weights, else here (transposed).
    const float* terms = w.zero_point_terms != nullptr ? w.zero_point_terms + j0 : nz;
    int64_t stride = w.zero_point_terms != nullptr ? w.n : kChunk;
    if (w.zero_point_terms != nullptr && m > 1 && cols == kChunk) {
      // Read once per row pair: copied together, as the blocks' rows n floats apart would share a
      // few cache sets (n a multiple of 1024: 4 KiB apart) and leave L1 at every pass.
      for (int64_t b = 0; b < w.blocks; ++b) {
        for (int q = 0; q < 4; ++q) _mm256_storeu_ps(nz + b * kChunk + 8 * q, _mm256_loadu_ps(terms + b * w.n + 8 * q));
      }
      terms = nz;
      stride = kChunk;
    }
    __m256i valid_of[4];
    for (int q = 0; q < 4; ++q) valid_of[q] = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(cols - 8 * q)), lane);
    for (int64_t g = 0; g < 8 * regs && w.zero_point_terms == nullptr; g += 8) {
      for (int64_t b0 = 0; b0 < w.blocks; b0 += 8) {
        const int64_t nb = std::min<int64_t>(8, w.blocks - b0);
        const __m256i valid = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(nb)), lane);
        __m256 v[8];
        for (int64_t c = 0; c < 8; ++c) {
          const int64_t j = j0 + g + c;
          if (g + c >= cols) {
            v[c] = _mm256_setzero_ps();
            continue;
          }
          const __m256 s = _mm256_maskload_ps(w.scales + j * w.blocks + b0, valid);
          __m256 zp = _mm256_set1_ps(8.f);
          if (w.zero_points != nullptr) {
            uint32_t packed = 0;
            std::memcpy(&packed, w.zero_points + j * zp_row + b0 / 2, size_t((b0 + nb + 1) / 2 - b0 / 2));
            const __m128i bytes = _mm_cvtsi32_si128(int(packed));
            const __m128i low = _mm_and_si128(bytes, _mm_set1_epi8(15));
            const __m128i high = _mm_and_si128(_mm_srli_epi16(bytes, 4), _mm_set1_epi8(15));
            zp = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_unpacklo_epi8(low, high)));
          }
          v[c] = _mm256_mul_ps(_mm256_xor_ps(s, sign), zp);  // (-sb) * zp, as the reference
        }
        Transpose8(v);
        for (int64_t bb = 0; bb < nb; ++bb) _mm256_storeu_ps(nz + (b0 + bb) * kChunk + g, v[bb]);
      }
    }
    int64_t i = 0;
    if (cols == kChunk) {
      for (; i + 2 <= m; i += 2) {
        ShareTwoRows(terms, stride, asum + i * w.blocks, asum + (i + 1) * w.blocks, w.blocks, y + i * w.n + j0,
                     y + (i + 1) * w.n + j0);
      }
    }
    for (; i < m; ++i) ShareRow(terms, stride, asum + i * w.blocks, w.blocks, cols, valid_of, y + i * w.n + j0);
  }
}

}  // namespace nbits_int8

namespace {

// vnni: ORT's order with AVX512_VNNI, else without (nbits::MakeInt8Plan).
void Int8Product(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y, bool vnni) {
  const int64_t capacity = nbits::Int8StepCapacity(w.block, w.blocks);
  Int8Step* steps = ThreadScratchArray<Int8Step>(ScratchSlot::kOp1, size_t(capacity));
  const Int8Plan plan = nbits::MakeInt8Plan(w.block, w.blocks, vnni, steps);
  const int64_t qa_row = 128 * plan.count;
  const nbits_int8::Int8Scratch scratch = nbits_int8::TakeInt8Scratch(w, m, qa_row);
  uint8_t* qa = scratch.arranged;
  int8_t* natural = scratch.natural;
  float *sa = scratch.sa, *asum = scratch.asum, *nz = scratch.nz, *irregular = scratch.irregular;
  for (int64_t i = 0; i < m; ++i) {
    const bool regular = QuantizeRow(w, a + i * w.k, natural, sa + i * w.blocks, asum + i * w.blocks);
    irregular[i] = regular ? 0.f : 1.f;
    ArrangeRow(plan, steps, natural, qa + i * qa_row);
  }
  constexpr int kRows = 2, kCols = 2;
  int64_t j0 = 0;
  for (; j0 + kCols <= w.n; j0 += kCols) {
    int64_t i0 = 0;
    for (; i0 + kRows <= m; i0 += kRows) Tiles<kRows, kCols>(w, plan, steps, qa, qa_row, sa, i0, j0, m, bias, y);
    for (; i0 < m; ++i0) Tiles<1, kCols>(w, plan, steps, qa, qa_row, sa, i0, j0, m, bias, y);
  }
  for (; j0 < w.n; ++j0) {
    for (int64_t i0 = 0; i0 < m; ++i0) Tiles<1, 1>(w, plan, steps, qa, qa_row, sa, i0, j0, m, bias, y);
  }
  AddZeroPointShare(w, m, asum, nz, y);
  for (int64_t i = 0; i < m; ++i) {
    if (irregular[i] != 0.f) {
      nbits::Int8RowByReference(vnni ? ref::MatMulNbitsInt8 : ref::MatMulNbitsInt8NoVnni, w, a + i * w.k, i < m / 2 * 2,
                                bias, y + i * w.n);
    }
  }
}

}  // namespace

void MatMulNbitsInt8(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y) {
  Int8Product(w, m, a, bias, y, true);
}

void MatMulNbitsInt8NoVnni(const NbitsWeights& w, int64_t m, const float* a, const float* bias, float* y) {
  Int8Product(w, m, a, bias, y, false);
}

}  // namespace qrt::avx2
