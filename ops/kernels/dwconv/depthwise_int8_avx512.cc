// AVX-512 (F, BW, DQ and VNNI) kernel of depthwise_int8.h. A plane at a time: input rows become
// rows of d = q - zp as int16 in a ring of eight zero-padded rows, two output rows ahead of the
// rows that read them. A dword of such a row at element p is the pair (d[p], d[p + 1]), so
// VPDPWSSD with the pair (e0, e1) takes two taps of a row at once and (e2, 0) the third: at
// stride 2 the dwords from element 2j are output j's; at stride 1 they are every other
// output's, so the even and the odd outputs are summed apart and their codes interleaved.
#include <algorithm>
#include <cstring>

#include "ops/kernels/common/intrinsics_avx512.h"
#include "ops/kernels/dwconv/depthwise_int8.h"
#include "ops/kernels/gemm/one_row_sum_avx512.h"
#include "ops/kernels/quantize/quantizer_avx512.h"

namespace qrt::avx512 {
namespace {

constexpr int64_t kSlots = kDepthwiseInt8RingRows;  // 3 + 2 * kLead rows at stride 2
constexpr int64_t kLead = 2;

template <int S>
struct Plane {
  const DepthwiseInt8Plan& p;
  int64_t c, row_shorts;
  const uint8_t* x;
  int16_t* ring;
  __m512i pairs[6];
  __m512 multiplier, offset, limit;
  __m512i code_add;                  // the zero point, minus 128 for uint8 (narrowed with signed saturation)
  __m512 weights[9], bias, x_scale;  // the reference's floats, for the outputs recomputed
  Quantizer quantizer;

  Plane(const DepthwiseInt8Plan& plan, int64_t channel, const uint8_t* input, int16_t* ring_rows)
      : p(plan),
        c(channel),
        row_shorts(plan.row_shorts),
        x(input),
        ring(ring_rows),
        multiplier(_mm512_set1_ps(plan.multipliers[size_t(channel)])),
        offset(_mm512_set1_ps(plan.offsets[size_t(channel)])),
        limit(_mm512_set1_ps(plan.limits[size_t(channel)])),
        code_add(_mm512_set1_epi32(plan.y_zero_point - (plan.y_signed ? 0 : 128))),
        bias(_mm512_set1_ps(plan.bias[size_t(channel)])),
        x_scale(_mm512_set1_ps(plan.x_scale)),
        quantizer(plan.y_scale, plan.y_zero_point, plan.y_signed) {
    for (int i = 0; i < 6; ++i) pairs[i] = _mm512_set1_epi32(plan.pairs[size_t(channel * 6 + i)]);
    for (int k = 0; k < 9; ++k) weights[k] = _mm512_set1_ps(plan.weights[size_t(channel * 9 + k)]);
  }

  int16_t* Slot(int64_t r) const { return ring + (uint64_t(r) % kSlots) * row_shorts; }

  // Padded row r: d of input row r - pad_top at its columns, 0 elsewhere (the ring was zeroed and
  // only those positions are written).
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
    const __m512i zp = _mm512_set1_epi16(int16_t(p.x_zero_point));
    auto widen = [](__m256i b) { return kSigned ? _mm512_cvtepi8_epi16(b) : _mm512_cvtepu8_epi16(b); };
    int64_t i = 0;
    for (; i + 32 <= p.in_w; i += 32) {
      const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + i));
      _mm512_storeu_si512(to + i, _mm512_sub_epi16(widen(bytes), zp));
    }
    if (i < p.in_w) {  // the tail, and zeros after it: padding (the plan's rows leave room for them)
      const __mmask32 m = __mmask32((uint64_t(1) << (p.in_w - i)) - 1);
      const __m256i bytes = _mm512_castsi512_si256(_mm512_maskz_loadu_epi8(__mmask64(m), q + i));
      _mm512_storeu_si512(to + i, _mm512_maskz_sub_epi16(m, widen(bytes), zp));
    }
  }

  // Sums of 16 outputs whose taps (kh, 0..1) are the dwords from element `at` of each of the
  // three rows and (kh, 2) those from at + 2.
  __m512i Sums(const int16_t* const (&rows)[3], int64_t at) const {
    __m512i acc = _mm512_setzero_si512();
    for (int kh = 0; kh < 3; ++kh) {
      acc = _mm512_dpwssd_epi32(acc, _mm512_loadu_si512(rows[kh] + at), pairs[2 * kh]);
      acc = _mm512_dpwssd_epi32(acc, _mm512_loadu_si512(rows[kh] + at + 2), pairs[2 * kh + 1]);
    }
    return acc;
  }

  // 16 outputs as the reference computes them, their taps (kh, 0..1) the pairs from element `at`
  // of each row and (kh, 2) the first of the pairs from at + 2 (as Sums reads them): the taps'
  // floats as DequantizeLinear makes them (float(d) * s_x), products and sums in SgemmOneRow's
  // order, the bias, QuantizeLinear. The codes in code_add's convention.
  __m512i Reference(const int16_t* const (&rows)[3], int64_t at) const {
    auto low = [](__m512i v) { return _mm512_srai_epi32(_mm512_slli_epi32(v, 16), 16); };
    auto high = [](__m512i v) { return _mm512_srai_epi32(v, 16); };
    __m512 product[9];
    for (int kh = 0; kh < 3; ++kh) {
      const __m512i pair = _mm512_loadu_si512(rows[kh] + at), next = _mm512_loadu_si512(rows[kh] + at + 2);
      const __m512i d[3] = {low(pair), high(pair), low(next)};
      for (int kw = 0; kw < 3; ++kw) {
        const __m512 x = _mm512_mul_ps(_mm512_cvtepi32_ps(d[kw]), x_scale);
        product[3 * kh + kw] = _mm512_mul_ps(weights[3 * kh + kw], x);
      }
    }
    __m512 sum = SumInOneRowOrder(product);
    if (p.has_bias) sum = _mm512_add_ps(sum, bias);
    const __m512i code = _mm512_cvtps_epi32(_mm512_add_ps(quantizer.Steps(sum), quantizer.zp));
    return p.y_signed ? code : _mm512_sub_epi32(code, _mm512_set1_epi32(128));
  }

  // Codes (code_add's convention) of the 16 outputs whose sums Sums(rows, at) gives: proven
  // lanes from t, and where a lane of `valid` is not, the vector recomputed (Reference).
  __m512i Codes(const int16_t* const (&rows)[3], int64_t at, __mmask16 valid) const {
    const __m512 t = _mm512_fmadd_ps(_mm512_cvtepi32_ps(Sums(rows, at)), multiplier, offset);
    const __mmask16 open =
        _mm512_mask_cmp_ps_mask(valid, _mm512_abs_ps(_mm512_reduce_ps(t, kNearest)), limit, _CMP_NLT_UQ);
    const __m512i codes = _mm512_add_epi32(_mm512_cvtps_epi32(t), code_add);
    return open == 0 ? codes : _mm512_mask_mov_epi32(codes, open, Reference(rows, at));
  }

  // 16 codes narrowed with signed saturation (QuantizeLinear's saturation: code_add shifted uint8
  // codes by -128, the flip restores them).
  __m128i Narrow(__m512i codes) const {
    const __m128i bytes = _mm512_cvtsepi32_epi8(codes);
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
        for (int64_t j = 0; j < p.out_w; j += 16) {
          const __mmask16 valid = FirstLanes(p.out_w - j);
          const __m128i bytes = Narrow(Codes(rows, 2 * j, valid));
          if (valid == 0xFFFF)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), bytes);
          else
            _mm512_mask_storeu_epi8(out + j, __mmask64(valid), _mm512_castsi128_si512(bytes));
        }
        continue;
      }
      // Stride 1: 32 outputs a step, the even ones from the dwords at j, the odd ones at j + 1.
      for (int64_t j = 0; j < p.out_w; j += 32) {
        const int64_t left = p.out_w - j;  // lanes i valid where 2i (2i + 1) < left
        const __mmask16 even_valid = FirstLanes((left + 1) / 2), odd_valid = FirstLanes(left / 2);
        const __m128i even = Narrow(Codes(rows, j, even_valid)), odd = Narrow(Codes(rows, j + 1, odd_valid));
        const __m128i low = _mm_unpacklo_epi8(even, odd), high = _mm_unpackhi_epi8(even, odd);
        if (left >= 32) {
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), low);
          _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j + 16), high);
        } else {
          alignas(32) uint8_t bytes[32];
          _mm_store_si128(reinterpret_cast<__m128i*>(bytes), low);
          _mm_store_si128(reinterpret_cast<__m128i*>(bytes + 16), high);
          std::memcpy(out + j, bytes, size_t(left));
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

}  // namespace qrt::avx512
