// AVX2 kernel of depthwise_rows.h: the AVX-512 kernel's ring of padded rows and fixed tap
// offsets (depthwise_rows_avx512.cc), with 8-lane vectors; tails through VMASKMOVPS, and codes
// read and written through small copies (AVX2 has no masked byte load or store).
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/dwconv/depthwise_rows.h"
#include "ops/kernels/quantize/quantizer_avx2.h"

namespace qrt::avx2 {
namespace {

constexpr int64_t kSlots = kDepthwiseRowsSlots;  // 3 + 2 * kLead rows at stride 2 fit
constexpr int64_t kLead = 2;                     // rows are brought in for the output rows kLead ahead too

// 8 input elements from x (floats) or q (codes) as floats: as they are, or dequantized as
// DequantizeLinear computes them, (float(q) - float(zp)) * scale; only the first n (< 8: a tail)
// are read, the rest are 0.
struct Source {
  const float* x;
  const uint8_t* q;
  bool is_signed;
  __m256 zero_point, scale;

  __m256 Load(int64_t i, int64_t n) const {
    if (q == nullptr) return n >= 8 ? _mm256_loadu_ps(x + i) : _mm256_maskload_ps(x + i, FirstLanes(n));
    __m128i bytes;
    if (n >= 8) {
      bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(q + i));
    } else {
      uint8_t tail[8] = {};
      std::memcpy(tail, q + i, size_t(std::max<int64_t>(n, 0)));
      bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(tail));
    }
    const __m256i codes = is_signed ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
    const __m256 v = _mm256_mul_ps(_mm256_sub_ps(_mm256_cvtepi32_ps(codes), zero_point), scale);
    return n >= 8 ? v : _mm256_and_ps(v, _mm256_castsi256_ps(FirstLanes(n)));
  }
};

// A ring row holds padded row `r` (input row r - pad_top, zeros outside the input) as S column
// phases of phase_width floats: padded column p at phase p % S, index p / S (the AVX-512
// kernel's layout).
template <int S>
struct Ring {
  const DepthwiseRowsArgs& a;
  int64_t phase_width, slot_floats;
  Source source;

  explicit Ring(const DepthwiseRowsArgs& args)
      : a(args),
        phase_width(DepthwiseRowsPhaseWidth(args.out_w)),
        slot_floats(S * phase_width),
        source{nullptr, nullptr, args.x_signed, _mm256_set1_ps(float(args.x_zero_point)),
               _mm256_set1_ps(args.x_scale)} {}

  float* Slot(int64_t r) const { return a.ring + (uint64_t(r) % kSlots) * slot_floats; }

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
      for (; i + 8 <= width; i += 8) _mm256_storeu_ps(slot + left + i, source.Load(i, 8));
      if (i < width) _mm256_maskstore_ps(slot + left + i, FirstLanes(width - i), source.Load(i, width - i));
      return;
    }
    // Input column iw is padded column iw + left: even input columns go to phase left % 2.
    float* even = slot + (left % 2) * phase_width + left / 2;
    float* odd = slot + ((left + 1) % 2) * phase_width + (left + 1) / 2;
    // 16 elements as their 8 even and 8 odd ones, in order.
    auto split = [](__m256 lo, __m256 hi, __m256* e, __m256* o) {
      *e = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0x88)), 0xD8));
      *o = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(lo, hi, 0xDD)), 0xD8));
    };
    int64_t i = 0;
    for (; i + 16 <= width; i += 16) {
      __m256 e, o;
      split(source.Load(i, 8), source.Load(i + 8, 8), &e, &o);
      _mm256_storeu_ps(even + i / 2, e);
      _mm256_storeu_ps(odd + i / 2, o);
    }
    if (i < width) {  // n elements: the even ones ceil(n / 2), the odd floor(n / 2)
      const int64_t n = width - i;
      __m256 e, o;
      split(source.Load(i, n), source.Load(i + 8, n - 8), &e, &o);
      _mm256_maskstore_ps(even + i / 2, FirstLanes((n + 1) / 2), e);
      _mm256_maskstore_ps(odd + i / 2, FirstLanes(n / 2), o);
    }
  }
};

// 8 outputs of one row: tap (kh, kw) at tap[kh][kw] + j, the products summed in SgemmOneRow's
// order (taps 0-3 left to right, 4-7 the same, then 8 + (second + first)), then the bias. Loads
// past the row read the ring's zeros.
inline __m256 Outputs(const float* const (&tap)[3][3], int64_t j, const __m256 (&w)[9], __m256 bias, bool has_bias) {
  auto product = [&](int k) { return _mm256_mul_ps(w[k], _mm256_loadu_ps(tap[k / 3][k % 3] + j)); };
  __m256 first = _mm256_add_ps(product(0), product(1));
  first = _mm256_add_ps(first, product(2));
  first = _mm256_add_ps(first, product(3));
  __m256 second = _mm256_add_ps(product(4), product(5));
  second = _mm256_add_ps(second, product(6));
  second = _mm256_add_ps(second, product(7));
  const __m256 sum = _mm256_add_ps(product(8), _mm256_add_ps(second, first));
  return has_bias ? _mm256_add_ps(sum, bias) : sum;
}

// Eight codes (int32 within the type's range) as bytes.
inline void StoreCodes(__m256i code, bool is_signed, uint8_t* to, int64_t n) {
  const __m256i words = _mm256_packs_epi32(code, code);  // exact: within the type's range
  const __m256i bytes = is_signed ? _mm256_packs_epi16(words, words) : _mm256_packus_epi16(words, words);
  // Lane 0's first four bytes are codes 0-3, lane 1's codes 4-7.
  const __m128i eight = _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes), _mm256_extracti128_si256(bytes, 1));
  if (n >= 8) {
    _mm_storel_epi64(reinterpret_cast<__m128i*>(to), eight);
    return;
  }
  alignas(16) uint8_t all[16];
  _mm_store_si128(reinterpret_cast<__m128i*>(all), eight);
  std::memcpy(to, all, size_t(n));
}

// The plane at stride S (a constant: the taps' phases and offsets are then too).
template <int S>
void Plane(const DepthwiseRowsArgs& a) {
  Ring<S> ring(a);
  std::fill_n(a.ring, kSlots * ring.slot_floats, 0.f);
  __m256 w[9];
  for (int k = 0; k < 9; ++k) w[k] = _mm256_set1_ps(a.w[k]);
  const bool has_bias = a.bias != nullptr;
  const __m256 bias = _mm256_set1_ps(has_bias ? *a.bias : 0.f);
  const Quantizer quantizer(a.y_scale, a.y_zero_point, a.y_signed);
  auto* codes = static_cast<uint8_t*>(a.y_codes);
  const int64_t full = a.out_w / 8 * 8;
  const __m256i tail = FirstLanes(a.out_w - full);
  const int64_t last_row = (a.out_h - 1) * S + 2;  // the last padded row read
  int64_t next = 0;                                // the next padded row to bring in
  for (int64_t oh = 0; oh < a.out_h; ++oh) {
    for (const int64_t end = std::min(last_row, (oh + kLead) * S + 2); next <= end; ++next) ring.Fill(next);
    const float* tap[3][3];
    for (int kh = 0; kh < 3; ++kh) {
      const float* row = ring.Slot(oh * S + kh);
      for (int kw = 0; kw < 3; ++kw) tap[kh][kw] = row + (kw % S) * ring.phase_width + kw / S;
    }
    if (codes == nullptr) {
      float* y = a.y + oh * a.out_w;
      for (int64_t j = 0; j < full; j += 8) _mm256_storeu_ps(y + j, Outputs(tap, j, w, bias, has_bias));
      if (full < a.out_w) _mm256_maskstore_ps(y + full, tail, Outputs(tap, full, w, bias, has_bias));
      continue;
    }
    // As QuantizeLinear's kernel: the code is the step plus the zero point.
    uint8_t* q = codes + oh * a.out_w;
    auto code = [&](int64_t j) { return quantizer.Codes(Outputs(tap, j, w, bias, has_bias)); };
    for (int64_t j = 0; j < full; j += 8) StoreCodes(code(j), a.y_signed, q + j, 8);
    if (full < a.out_w) StoreCodes(code(full), a.y_signed, q + full, a.out_w - full);
  }
}

}  // namespace

void DepthwiseRows(const DepthwiseRowsArgs& a) {
  if (a.stride == 1)
    Plane<1>(a);
  else
    Plane<2>(a);
}

}  // namespace qrt::avx2
