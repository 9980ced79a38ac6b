// AVX-512 (F and BW) kernel of depthwise_rows.h.
#include <algorithm>

#include "ops/kernels/common/intrinsics_avx512.h"
#include "ops/kernels/dwconv/depthwise_rows.h"
#include "ops/kernels/gemm/one_row_sum_avx512.h"
#include "ops/kernels/quantize/quantizer_avx512.h"

namespace qrt::avx512 {
namespace {

constexpr int64_t kSlots = kDepthwiseRowsSlots;  // 3 + 2 * kLead rows at stride 2 fit
constexpr int64_t kLead = 2;                     // rows are brought in for the output rows kLead ahead too

// 16 input elements from x (floats) or q (codes; the `valid` ones, the rest 0) as floats: as
// they are, or dequantized as DequantizeLinear computes them, (float(q) - float(zp)) * scale.
struct Source {
  const float* x;
  const uint8_t* q;
  bool is_signed;
  __m512 zero_point, scale;

  __m512 Load(int64_t i, __mmask16 valid, bool masked) const {
    if (q == nullptr) return masked ? _mm512_maskz_loadu_ps(valid, x + i) : _mm512_loadu_ps(x + i);
    const __m128i bytes = masked ? _mm512_castsi512_si128(_mm512_maskz_loadu_epi8(__mmask64(valid), q + i))
                                 : _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + i));
    const __m512i codes = is_signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
    return _mm512_mul_ps(_mm512_sub_ps(_mm512_cvtepi32_ps(codes), zero_point), scale);
  }
};

// A ring row holds padded row `r` (input row r - pad_top, zeros outside the input) as S column
// phases of phase_width floats: padded column p at phase p % S, index p / S. Only the input's
// own positions are ever written after the ring is zeroed, so the padding around them stays
// zero.
template <int S>
struct Ring {
  const DepthwiseRowsArgs& a;
  int64_t phase_width, slot_floats;
  Source source;

  explicit Ring(const DepthwiseRowsArgs& args)
      : a(args),
        phase_width(DepthwiseRowsPhaseWidth(args.out_w)),
        slot_floats(S * phase_width),
        source{nullptr, nullptr, args.x_signed, _mm512_set1_ps(float(args.x_zero_point)),
               _mm512_set1_ps(args.x_scale)} {}

  float* Slot(int64_t r) const { return a.ring + (uint64_t(r) % kSlots) * slot_floats; }

  // In line (no call: every vector register is the caller's to save across one, and the
  // kernel keeps a dozen in use).
  void Fill(int64_t r) {
    float* slot = Slot(r);
    const int64_t ih = r - a.pad_top, width = a.in_w, left = a.pad_left;
    if (ih < 0 || ih >= a.in_h) {
      std::fill_n(slot, slot_floats, 0.f);
      return;
    }
    if (a.x_codes != nullptr)
      source.q = static_cast<const uint8_t*>(a.x_codes) + ih * width;
    else
      source.x = a.x + ih * width;
    if (S == 1) {
      int64_t i = 0;
      for (; i + 16 <= width; i += 16) _mm512_storeu_ps(slot + left + i, source.Load(i, 0, false));
      if (i < width) {
        const __mmask16 valid = FirstLanes(width - i);
        _mm512_mask_storeu_ps(slot + left + i, valid, source.Load(i, valid, true));
      }
      return;
    }
    // Input column iw is padded column iw + left: even input columns go to phase left % 2.
    float* even = slot + (left % 2) * phase_width + left / 2;
    float* odd = slot + ((left + 1) % 2) * phase_width + (left + 1) / 2;
    const __m512i even_index = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd_index = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    int64_t i = 0;
    for (; i + 32 <= width; i += 32) {
      const __m512 lo = source.Load(i, 0, false), hi = source.Load(i + 16, 0, false);
      _mm512_storeu_ps(even + i / 2, _mm512_permutex2var_ps(lo, even_index, hi));
      _mm512_storeu_ps(odd + i / 2, _mm512_permutex2var_ps(lo, odd_index, hi));
    }
    if (i < width) {  // n elements: the even ones ceil(n / 2), the odd floor(n / 2)
      const int64_t n = width - i;
      const __m512 lo = source.Load(i, FirstLanes(n), true), hi = source.Load(i + 16, FirstLanes(n - 16), true);
      _mm512_mask_storeu_ps(even + i / 2, FirstLanes((n + 1) / 2), _mm512_permutex2var_ps(lo, even_index, hi));
      _mm512_mask_storeu_ps(odd + i / 2, FirstLanes(n / 2), _mm512_permutex2var_ps(lo, odd_index, hi));
    }
  }
};

// 16 outputs of one row: tap (kh, kw) at tap[kh][kw] + j, its product summed in the one-row order,
// then the bias. Loads past the row read the ring's zeros (its rows are a vector wider than the
// output's vectors reach).
inline __m512 Outputs(const float* const (&tap)[3][3], int64_t j, const __m512 (&w)[9], __m512 bias, bool has_bias) {
  __m512 product[9];
  for (int k = 0; k < 9; ++k) product[k] = _mm512_mul_ps(w[k], _mm512_loadu_ps(tap[k / 3][k % 3] + j));
  const __m512 sum = SumInOneRowOrder(product);
  return has_bias ? _mm512_add_ps(sum, bias) : sum;
}

// The plane at stride S (a constant: the taps' phases and offsets are then too).
template <int S>
void Plane(const DepthwiseRowsArgs& a) {
  Ring<S> ring(a);
  std::fill_n(a.ring, kSlots * ring.slot_floats, 0.f);
  __m512 w[9];
  for (int k = 0; k < 9; ++k) w[k] = _mm512_set1_ps(a.w[k]);
  const bool has_bias = a.bias != nullptr;
  const __m512 bias = _mm512_set1_ps(has_bias ? *a.bias : 0.f);
  const Quantizer quantizer(a.y_scale, a.y_zero_point, a.y_signed);
  auto* codes = static_cast<uint8_t*>(a.y_codes);
  const int64_t full = a.out_w / 16 * 16;
  const __mmask16 tail = FirstLanes(a.out_w - full);
  const int64_t last_row = (a.out_h - 1) * S + 2;  // the last padded row read
  int64_t next = 0;                                // the next padded row to bring in
  for (int64_t oh = 0; oh < a.out_h; ++oh) {
    for (const int64_t end = std::min(last_row, (oh + kLead) * S + 2); next <= end; ++next) ring.Fill(next);
    // Tap (kh, kw) of output column ow: padded row oh * S + kh, column ow * S + kw, i.e. phase
    // kw % S at index ow + kw / S.
    const float* tap[3][3];
    for (int kh = 0; kh < 3; ++kh) {
      const float* row = ring.Slot(oh * S + kh);
      for (int kw = 0; kw < 3; ++kw) tap[kh][kw] = row + (kw % S) * ring.phase_width + kw / S;
    }
    if (codes == nullptr) {
      float* y = a.y + oh * a.out_w;
      for (int64_t j = 0; j < full; j += 16) _mm512_storeu_ps(y + j, Outputs(tap, j, w, bias, has_bias));
      if (full < a.out_w) _mm512_mask_storeu_ps(y + full, tail, Outputs(tap, full, w, bias, has_bias));
      continue;
    }
    // As QuantizeLinear's kernel: the code is the step plus the zero point, narrowed.
    uint8_t* q = codes + oh * a.out_w;
    auto code = [&](int64_t j) {
      return _mm512_cvtps_epi32(_mm512_add_ps(quantizer.Steps(Outputs(tap, j, w, bias, has_bias)), quantizer.zp));
    };
    for (int64_t j = 0; j < full; j += 16)
      _mm_storeu_si128(reinterpret_cast<__m128i*>(q + j), _mm512_cvtepi32_epi8(code(j)));
    if (full < a.out_w) _mm512_mask_cvtepi32_storeu_epi8(q + full, tail, code(full));
  }
}

}  // namespace

void DepthwiseRows(const DepthwiseRowsArgs& a) {
  if (a.stride == 1)
    Plane<1>(a);
  else
    Plane<2>(a);
}

}  // namespace qrt::avx512
