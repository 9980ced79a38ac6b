// AVX2 kernel of depthwise_int8.h, for CPUs without AVX-512 VNNI: the AVX-512 kernel's plan
// (depthwise_int8_avx512.cc explains the ring of int16 rows and the pairs of taps) with eight
// lanes, and VPMADDWD then VPADDD where that kernel has VPDPWSSD: |d e| <= 255 * 128, so a
// pair's sum fits and the int32 sums are exact. Stride 2: the dwords from element 2j are
// outputs j..j+7; stride 1: those from j are the even outputs of j..j+15, from j + 1 the odd.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/dwconv/depthwise_int8.h"
#include "ops/kernels/gemm/one_row_sum_avx2.h"
#include "ops/kernels/quantize/quantizer_avx2.h"

namespace qrt::avx2 {
namespace {

constexpr int64_t kSlots = kDepthwiseInt8RingRows;
constexpr int64_t kLead = 2;
constexpr int kNearest = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// Lanes [0, n) of 8 as a movemask.
inline int LaneBits(int64_t n) { return n <= 0 ? 0 : n >= 8 ? 0xFF : (1 << n) - 1; }

template <int S>
struct Plane {
  const DepthwiseInt8Plan& p;
  int64_t row_shorts;
  const uint8_t* x;
  int16_t* ring;
  __m256i pairs[6];
  __m256 multiplier, offset, limit;
  __m256i code_add;                  // the zero point, minus 128 for uint8 (narrowed with signed saturation)
  __m256 weights[9], bias, x_scale;  // the reference's floats, for the outputs recomputed
  Quantizer quantizer;

  Plane(const DepthwiseInt8Plan& plan, int64_t c, const uint8_t* input, int16_t* ring_rows)
      : p(plan),
        row_shorts(plan.row_shorts),
        x(input),
        ring(ring_rows),
        multiplier(_mm256_set1_ps(plan.multipliers[size_t(c)])),
        offset(_mm256_set1_ps(plan.offsets[size_t(c)])),
        limit(_mm256_set1_ps(plan.limits[size_t(c)])),
        code_add(_mm256_set1_epi32(plan.y_zero_point - (plan.y_signed ? 0 : 128))),
        bias(_mm256_set1_ps(plan.bias[size_t(c)])),
        x_scale(_mm256_set1_ps(plan.x_scale)),
        quantizer(plan.y_scale, plan.y_zero_point, plan.y_signed) {
    for (int i = 0; i < 6; ++i) pairs[i] = _mm256_set1_epi32(plan.pairs[size_t(c * 6 + i)]);
    for (int k = 0; k < 9; ++k) weights[k] = _mm256_set1_ps(plan.weights[size_t(c * 9 + k)]);
  }

  int16_t* Slot(int64_t r) const { return ring + (uint64_t(r) % kSlots) * row_shorts; }

  // Padded row r: d of input row r - pad_top at its columns. Only those positions are ever
  // written, so the rest of every slot stays the zeros the ring started with.
  template <bool kSigned>
  void Fill(int64_t r) const {
    int16_t* row = Slot(r);
    const int64_t ih = r - p.pad_top;
    if (ih < 0 || ih >= p.in_h) {
      std::fill_n(row, row_shorts, int16_t(0));
      return;
    }
    const uint8_t* q = x + ih * p.in_w;
    int16_t* to = row + p.pad_left;
    const __m256i zp = _mm256_set1_epi16(int16_t(p.x_zero_point));
    int64_t i = 0;
    for (; i + 16 <= p.in_w; i += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i));
      const __m256i wide = kSigned ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + i), _mm256_sub_epi16(wide, zp));
    }
    for (; i + 8 <= p.in_w; i += 8) {  // 14, 28 and 56 wide rows: most of the rest
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + i));
      const __m128i wide = kSigned ? _mm_cvtepi8_epi16(bytes) : _mm_cvtepu8_epi16(bytes);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(to + i), _mm_sub_epi16(wide, _mm256_castsi256_si128(zp)));
    }
    for (; i < p.in_w; ++i) to[i] = int16_t((kSigned ? int(int8_t(q[i])) : int(q[i])) - p.x_zero_point);
  }

  // Sums of 8 outputs whose taps (kh, 0..1) are the dwords from element `at` of each of the
  // three rows and (kh, 2) those from at + 2.
  __m256i Sums(const int16_t* const (&rows)[3], int64_t at) const {
    __m256i acc = _mm256_setzero_si256();
    for (int kh = 0; kh < 3; ++kh) {
      const __m256i first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[kh] + at));
      const __m256i third = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[kh] + at + 2));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(first, pairs[2 * kh]));
      acc = _mm256_add_epi32(acc, _mm256_madd_epi16(third, pairs[2 * kh + 1]));
    }
    return acc;
  }

  // 8 outputs as the reference computes them (the AVX-512 kernel's Reference): the taps' floats
  // as DequantizeLinear makes them, products summed in SgemmOneRow's order (0-3 left to right,
  // 4-7 the same, then 8 + (second + first)), the bias, QuantizeLinear; codes in code_add's
  // convention.
  __m256i Reference(const int16_t* const (&rows)[3], int64_t at) const {
    auto low = [](__m256i v) { return _mm256_srai_epi32(_mm256_slli_epi32(v, 16), 16); };
    auto high = [](__m256i v) { return _mm256_srai_epi32(v, 16); };
    __m256 product[9];
    for (int kh = 0; kh < 3; ++kh) {
      const __m256i pair = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[kh] + at));
      const __m256i next = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[kh] + at + 2));
      const __m256i d[3] = {low(pair), high(pair), low(next)};
      for (int kw = 0; kw < 3; ++kw) {
        const __m256 xv = _mm256_mul_ps(_mm256_cvtepi32_ps(d[kw]), x_scale);
        product[3 * kh + kw] = _mm256_mul_ps(weights[3 * kh + kw], xv);
      }
    }
    __m256 sum = SumInOneRowOrder(product);
    if (p.has_bias) sum = _mm256_add_ps(sum, bias);
    const __m256i code = quantizer.Codes(sum);
    return p.y_signed ? code : _mm256_sub_epi32(code, _mm256_set1_epi32(128));
  }

  // Codes (code_add's convention) of the 8 outputs whose sums Sums(rows, at) gives: proven lanes
  // from t, and where a lane of `valid` (a movemask) is not, the vector recomputed.
  __m256i Codes(const int16_t* const (&rows)[3], int64_t at, int valid) const {
    const __m256 t = _mm256_fmadd_ps(_mm256_cvtepi32_ps(Sums(rows, at)), multiplier, offset);
    const __m256 off = _mm256_andnot_ps(_mm256_set1_ps(-0.f), _mm256_sub_ps(t, _mm256_round_ps(t, kNearest)));
    const int open = _mm256_movemask_ps(_mm256_cmp_ps(off, limit, _CMP_NLT_UQ)) & valid;
    const __m256i codes = _mm256_add_epi32(_mm256_cvtps_epi32(t), code_add);
    if (open == 0) return codes;
    const __m256i lanes = _mm256_cmpgt_epi32(  // the open lanes as a mask
        _mm256_and_si256(_mm256_set1_epi32(open), _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128)),
        _mm256_setzero_si256());
    return _mm256_blendv_epi8(codes, Reference(rows, at), lanes);
  }

  // 8 codes narrowed with signed saturation to the low 8 bytes (QuantizeLinear's saturation:
  // code_add shifted uint8 codes by -128, the flip restores them).
  __m128i Narrow(__m256i codes) const {
    const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(codes), _mm256_extracti128_si256(codes, 1));
    const __m128i bytes = _mm_packs_epi16(words, words);
    return p.y_signed ? bytes : _mm_xor_si128(bytes, _mm_set1_epi8(char(0x80)));
  }

  template <bool kSigned>
  void Run(uint8_t* y) const {
    std::fill_n(ring, kSlots * row_shorts, int16_t(0));
    const int64_t last_row = (p.out_h - 1) * S + 2;
    int64_t next = 0;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      for (const int64_t end = std::min(last_row, (oh + kLead) * S + 2); next <= end; ++next) Fill<kSigned>(next);
      const int16_t* rows[3] = {Slot(oh * S), Slot(oh * S + 1), Slot(oh * S + 2)};
      uint8_t* out = y + oh * p.out_w;
      if (S == 2) {
        for (int64_t j = 0; j < p.out_w; j += 8) {
          const int64_t left = p.out_w - j;
          const __m128i bytes = Narrow(Codes(rows, 2 * j, LaneBits(left)));
          if (left >= 8) {
            _mm_storel_epi64(reinterpret_cast<__m128i*>(out + j), bytes);
          } else {
            alignas(16) uint8_t tail[16];
            _mm_store_si128(reinterpret_cast<__m128i*>(tail), bytes);
            std::memcpy(out + j, tail, size_t(left));
          }
        }
        continue;
      }
      for (int64_t j = 0; j < p.out_w; j += 16) {
        const int64_t left = p.out_w - j;  // lane i valid where 2i (2i + 1) < left
        const __m128i even = Narrow(Codes(rows, j, LaneBits((left + 1) / 2)));
        const __m128i odd = Narrow(Codes(rows, j + 1, LaneBits(left / 2)));
        const __m128i bytes = _mm_unpacklo_epi8(even, odd);
        if (left >= 16) {
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), bytes);
        } else {
          alignas(16) uint8_t tail[16];
          _mm_store_si128(reinterpret_cast<__m128i*>(tail), bytes);
          std::memcpy(out + j, tail, size_t(left));
        }
      }
    }
  }
};

}  // namespace

void DepthwiseInt8Plane(const DepthwiseInt8Plan& p, int64_t c, const uint8_t* x, uint8_t* y, int16_t* ring) {
  if (p.stride == 1) {
    const Plane<1> plane(p, c, x, ring);
    if (p.x_signed)
      plane.Run<true>(y);
    else
      plane.Run<false>(y);
  } else {
    const Plane<2> plane(p, c, x, ring);
    if (p.x_signed)
      plane.Run<true>(y);
    else
      plane.Run<false>(y);
  }
}

}  // namespace qrt::avx2
