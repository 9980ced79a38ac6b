// AVX-512F kernel of depthwise_lanes.h.
#include <algorithm>

#include "ops/kernels/common/intrinsics_avx512.h"
#include "ops/kernels/dwconv/depthwise_lanes.h"
#include "ops/kernels/gemm/one_row_sum_avx512.h"

namespace qrt::avx512 {
namespace {

// r[i] becomes column i of the 16 x 16 matrix whose rows were r[0..15].
inline void Transpose16(__m512 (&r)[16]) {
  __m512 t[16], u[16], v[16];
  for (int i = 0; i < 8; ++i) {
    t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  auto lo = [](__m512 a, __m512 b) {
    return _mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
  };
  auto hi = [](__m512 a, __m512 b) {
    return _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(a), _mm512_castps_pd(b)));
  };
  // u[4i + j], 128-bit lane L: column 4L + j of rows 4i..4i+3.
  for (int i = 0; i < 4; ++i) {
    u[4 * i] = lo(t[4 * i], t[4 * i + 2]);
    u[4 * i + 1] = hi(t[4 * i], t[4 * i + 2]);
    u[4 * i + 2] = lo(t[4 * i + 1], t[4 * i + 3]);
    u[4 * i + 3] = hi(t[4 * i + 1], t[4 * i + 3]);
  }
  for (int j = 0; j < 4; ++j) {
    v[j] = _mm512_shuffle_f32x4(u[j], u[4 + j], 0x88);
    v[4 + j] = _mm512_shuffle_f32x4(u[j], u[4 + j], 0xDD);
    v[8 + j] = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0x88);
    v[12 + j] = _mm512_shuffle_f32x4(u[8 + j], u[12 + j], 0xDD);
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm512_shuffle_f32x4(v[j], v[8 + j], 0x88);
    r[8 + j] = _mm512_shuffle_f32x4(v[j], v[8 + j], 0xDD);
    r[4 + j] = _mm512_shuffle_f32x4(v[4 + j], v[12 + j], 0x88);
    r[12 + j] = _mm512_shuffle_f32x4(v[4 + j], v[12 + j], 0xDD);
  }
}

// Planes (rows of `planes` floats, `plane` apart, `channels` of them) to a tile of 16-float
// positions: tile[p * 16 + c] = plane c at p; lanes past `channels` hold 0.
void ToTile(const float* x, int64_t plane, int channels, int64_t positions, float* tile) {
  for (int64_t p0 = 0; p0 < positions; p0 += 16) {
    const __mmask16 m = FirstLanes(positions - p0);
    __m512 r[16];
    for (int c = 0; c < 16; ++c)
      r[c] = c < channels ? _mm512_maskz_loadu_ps(m, x + c * plane + p0) : _mm512_setzero_ps();
    Transpose16(r);
    for (int i = 0; i < 16 && p0 + i < positions; ++i) _mm512_storeu_ps(tile + (p0 + i) * 16, r[i]);
  }
}

// Planes of in_h x in_w to a tile of (in_h + 2) x (in_w + 2) positions: plane c at (ih, iw) in
// position (ih + 1) * (in_w + 2) + iw + 1, the border all zeros.
void ToBorderedTile(const float* x, int64_t plane, int channels, int64_t in_h, int64_t in_w, float* tile) {
  const int64_t width = in_w + 2;
  const __m512 zero = _mm512_setzero_ps();
  for (int64_t p = 0; p < width; ++p) {  // top and bottom rows
    _mm512_storeu_ps(tile + p * 16, zero);
    _mm512_storeu_ps(tile + ((in_h + 1) * width + p) * 16, zero);
  }
  for (int64_t ih = 0; ih < in_h; ++ih) {
    float* row = tile + (ih + 1) * width * 16;
    _mm512_storeu_ps(row, zero);  // left and right columns
    _mm512_storeu_ps(row + (in_w + 1) * 16, zero);
    for (int64_t iw0 = 0; iw0 < in_w; iw0 += 16) {
      const __mmask16 m = FirstLanes(in_w - iw0);
      __m512 r[16];
      for (int c = 0; c < 16; ++c)
        r[c] = c < channels ? _mm512_maskz_loadu_ps(m, x + c * plane + ih * in_w + iw0) : zero;
      Transpose16(r);
      for (int i = 0; i < 16 && iw0 + i < in_w; ++i) _mm512_storeu_ps(row + (iw0 + i + 1) * 16, r[i]);
    }
  }
}

// The inverse: tile positions back to `channels` planes.
void FromTile(const float* tile, int64_t positions, int channels, float* y, int64_t plane) {
  for (int64_t p0 = 0; p0 < positions; p0 += 16) {
    const __mmask16 m = FirstLanes(positions - p0);
    __m512 r[16];
    for (int i = 0; i < 16; ++i)
      r[i] = p0 + i < positions ? _mm512_loadu_ps(tile + (p0 + i) * 16) : _mm512_setzero_ps();
    Transpose16(r);
    for (int c = 0; c < channels; ++c) _mm512_mask_storeu_ps(y + c * plane + p0, m, r[c]);
  }
}

}  // namespace

void DepthwiseLanes(const DepthwiseLanesArgs& a) {
  const bool bordered = DepthwiseLanesBordered(a);
  if (bordered)
    ToBorderedTile(a.x, a.x_plane, a.channels, a.in_h, a.in_w, a.tile_in);
  else
    ToTile(a.x, a.x_plane, a.channels, a.in_h * a.in_w, a.tile_in);
  __m512 w[9];
  alignas(64) float lanes[16];
  for (int k = 0; k < 9; ++k) {
    for (int c = 0; c < 16; ++c) lanes[c] = c < a.channels ? a.w[c * 9 + k] : 0.f;
    w[k] = _mm512_load_ps(lanes);
  }
  __m512 bias = _mm512_setzero_ps();
  if (a.bias != nullptr) {
    for (int c = 0; c < 16; ++c) lanes[c] = c < a.channels ? a.bias[c] : 0.f;
    bias = _mm512_load_ps(lanes);
  }
  const __m512 zero = _mm512_setzero_ps();
  // Products mul(w, x) summed in SgemmOneRow's order, then add(sum, bias). tap(k) is input tap
  // k's 16 channels.
  auto output = [&](int64_t at, auto tap) {
    __m512 product[9];
#pragma GCC unroll 9
    for (int k = 0; k < 9; ++k) product[k] = _mm512_mul_ps(w[k], tap(k));
    __m512 sum = SumInOneRowOrder(product);
    if (a.bias != nullptr) sum = _mm512_add_ps(sum, bias);
    _mm512_storeu_ps(a.tile_out + at * 16, sum);
  };
  if (bordered) {  // every output's nine taps from the tile, the border's zeros as padding
    const int64_t width = a.in_w + 2;
    int64_t tap_offset[9];
    for (int k = 0; k < 9; ++k) tap_offset[k] = ((k / 3) * width + k % 3) * 16;
    for (int64_t oh = 0; oh < a.out_h; ++oh) {
      const float* row = a.tile_in + (oh * a.stride_h - a.pad_top + 1) * width * 16;
      for (int64_t ow = 0; ow < a.out_w; ++ow) {
        const float* at = row + (ow * a.stride_w - a.pad_left + 1) * 16;
        output(oh * a.out_w + ow, [&](int k) { return _mm512_loadu_ps(at + tap_offset[k]); });
      }
    }
    FromTile(a.tile_out, a.out_h * a.out_w, a.channels, a.y, a.y_plane);
    return;
  }
  int64_t oh_lo, oh_hi, ow_lo, ow_hi;  // outputs whose taps are all inside X
  DepthwiseInsideRange(a.in_h, a.stride_h, a.pad_top, a.out_h, &oh_lo, &oh_hi);
  DepthwiseInsideRange(a.in_w, a.stride_w, a.pad_left, a.out_w, &ow_lo, &ow_hi);
  for (int64_t oh = 0; oh < a.out_h; ++oh) {
    const int64_t ih0 = oh * a.stride_h - a.pad_top;
    auto edge = [&](int64_t ow) {  // taps over padding multiply +0
      const int64_t iw0 = ow * a.stride_w - a.pad_left;
      output(oh * a.out_w + ow, [&](int k) {
        const int64_t ih = ih0 + k / 3, iw = iw0 + k % 3;
        const bool in = ih >= 0 && ih < a.in_h && iw >= 0 && iw < a.in_w;
        return in ? _mm512_loadu_ps(a.tile_in + (ih * a.in_w + iw) * 16) : zero;
      });
    };
    if (oh < oh_lo || oh >= oh_hi) {
      for (int64_t ow = 0; ow < a.out_w; ++ow) edge(ow);
      continue;
    }
    for (int64_t ow = 0; ow < ow_lo; ++ow) edge(ow);
    const float* row = a.tile_in + ih0 * a.in_w * 16;
    for (int64_t ow = ow_lo; ow < ow_hi; ++ow) {
      const float* at = row + (ow * a.stride_w - a.pad_left) * 16;
      output(oh * a.out_w + ow, [&](int k) { return _mm512_loadu_ps(at + ((k / 3) * a.in_w + k % 3) * 16); });
    }
    for (int64_t ow = ow_hi; ow < a.out_w; ++ow) edge(ow);
  }
  FromTile(a.tile_out, a.out_h * a.out_w, a.channels, a.y, a.y_plane);
}

}  // namespace qrt::avx512
