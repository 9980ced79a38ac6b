// AVX2 kernel of depthwise_lanes.h: the AVX-512 kernel's tiles of 16-float positions, each
// position two 8-lane halves (channels 0-7 and 8-15), transposed 8 x 8 at a time; every output
// the same nine products summed in SgemmOneRow's order, then the bias.
#include <immintrin.h>

#include <algorithm>

#include "ops/kernels/common/lanes_avx2.h"
#include "ops/kernels/dwconv/depthwise_lanes.h"
#include "ops/kernels/gemm/one_row_sum_avx2.h"

namespace qrt::avx2 {
namespace {

// r[i] becomes column i of the 8 x 8 matrix whose rows were r[0..7].
inline void Transpose8(__m256 (&r)[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (int i = 0; i < 2; ++i) {
    u[4 * i] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0x44);
    u[4 * i + 1] = _mm256_shuffle_ps(t[4 * i], t[4 * i + 2], 0xEE);
    u[4 * i + 2] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0x44);
    u[4 * i + 3] = _mm256_shuffle_ps(t[4 * i + 1], t[4 * i + 3], 0xEE);
  }
  for (int j = 0; j < 4; ++j) {
    r[j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x20);
    r[4 + j] = _mm256_permute2f128_ps(u[j], u[4 + j], 0x31);
  }
}

// Planes (`channels` of them, `plane` apart) to a tile of 16-float positions: tile[p * 16 + c] =
// plane c at p; lanes past `channels` hold 0.
void ToTile(const float* x, int64_t plane, int channels, int64_t positions, float* tile) {
  for (int64_t p0 = 0; p0 < positions; p0 += 8) {
    const __m256i m = FirstLanes(positions - p0);
    const bool whole = p0 + 8 <= positions;
    for (int h = 0; h < 2; ++h) {
      __m256 r[8];
      for (int c = 0; c < 8; ++c) {
        const int ch = 8 * h + c;
        const float* from = x + ch * plane + p0;
        r[c] = ch >= channels ? _mm256_setzero_ps() : whole ? _mm256_loadu_ps(from) : _mm256_maskload_ps(from, m);
      }
      Transpose8(r);
      for (int i = 0; i < 8 && p0 + i < positions; ++i) _mm256_storeu_ps(tile + (p0 + i) * 16 + 8 * h, r[i]);
    }
  }
}

// Planes of in_h x in_w to a tile of (in_h + 2) x (in_w + 2) positions: plane c at (ih, iw) in
// position (ih + 1) * (in_w + 2) + iw + 1, the border all zeros.
void ToBorderedTile(const float* x, int64_t plane, int channels, int64_t in_h, int64_t in_w, float* tile) {
  const int64_t width = in_w + 2;
  const __m256 zero = _mm256_setzero_ps();
  for (int64_t p = 0; p < width; ++p) {  // top and bottom rows
    for (int h = 0; h < 2; ++h) {
      _mm256_storeu_ps(tile + p * 16 + 8 * h, zero);
      _mm256_storeu_ps(tile + ((in_h + 1) * width + p) * 16 + 8 * h, zero);
    }
  }
  for (int64_t ih = 0; ih < in_h; ++ih) {
    float* row = tile + (ih + 1) * width * 16;
    for (int h = 0; h < 2; ++h) {  // left and right columns
      _mm256_storeu_ps(row + 8 * h, zero);
      _mm256_storeu_ps(row + (in_w + 1) * 16 + 8 * h, zero);
    }
    for (int64_t iw0 = 0; iw0 < in_w; iw0 += 8) {
      const __m256i m = FirstLanes(in_w - iw0);
      const bool whole = iw0 + 8 <= in_w;
      for (int h = 0; h < 2; ++h) {
        __m256 r[8];
        for (int c = 0; c < 8; ++c) {
          const int ch = 8 * h + c;
          const float* from = x + ch * plane + ih * in_w + iw0;
          r[c] = ch >= channels ? zero : whole ? _mm256_loadu_ps(from) : _mm256_maskload_ps(from, m);
        }
        Transpose8(r);
        for (int i = 0; i < 8 && iw0 + i < in_w; ++i) _mm256_storeu_ps(row + (iw0 + i + 1) * 16 + 8 * h, r[i]);
      }
    }
  }
}

// The inverse: tile positions back to `channels` planes.
void FromTile(const float* tile, int64_t positions, int channels, float* y, int64_t plane) {
  for (int64_t p0 = 0; p0 < positions; p0 += 8) {
    const __m256i m = FirstLanes(positions - p0);
    const bool whole = p0 + 8 <= positions;
    for (int h = 0; h < 2 && 8 * h < channels; ++h) {
      __m256 r[8];
      for (int i = 0; i < 8; ++i)
        r[i] = p0 + i < positions ? _mm256_loadu_ps(tile + (p0 + i) * 16 + 8 * h) : _mm256_setzero_ps();
      Transpose8(r);
      // VMASKMOVPS stores are microcoded on AMD: whole rows of 8 take plain stores.
      for (int c = 0; c < 8 && 8 * h + c < channels; ++c) {
        float* to = y + (8 * h + c) * plane + p0;
        if (whole)
          _mm256_storeu_ps(to, r[c]);
        else
          _mm256_maskstore_ps(to, m, r[c]);
      }
    }
  }
}

}  // namespace

void DepthwiseLanes(const DepthwiseLanesArgs& a) {
  const bool bordered = DepthwiseLanesBordered(a);
  if (bordered)
    ToBorderedTile(a.x, a.x_plane, a.channels, a.in_h, a.in_w, a.tile_in);
  else
    ToTile(a.x, a.x_plane, a.channels, a.in_h * a.in_w, a.tile_in);
  __m256 w[2][9];
  alignas(32) float lanes[16];
  for (int k = 0; k < 9; ++k) {
    for (int c = 0; c < 16; ++c) lanes[c] = c < a.channels ? a.w[c * 9 + k] : 0.f;
    w[0][k] = _mm256_load_ps(lanes), w[1][k] = _mm256_load_ps(lanes + 8);
  }
  __m256 bias[2] = {_mm256_setzero_ps(), _mm256_setzero_ps()};
  if (a.bias != nullptr) {
    for (int c = 0; c < 16; ++c) lanes[c] = c < a.channels ? a.bias[c] : 0.f;
    bias[0] = _mm256_load_ps(lanes), bias[1] = _mm256_load_ps(lanes + 8);
  }
  const __m256 zero = _mm256_setzero_ps();
  // Products mul(w, x) summed in SgemmOneRow's order (one_row_sum_avx2.h); then add(sum, bias).
  // tap(k, h) is input tap k's half h.
  auto output = [&](int64_t at, auto tap) {
    for (int h = 0; h < 2; ++h) {
      __m256 product[9];
      for (int k = 0; k < 9; ++k) product[k] = _mm256_mul_ps(w[h][k], tap(k, h));
      __m256 sum = SumInOneRowOrder(product);
      if (a.bias != nullptr) sum = _mm256_add_ps(sum, bias[h]);
      _mm256_storeu_ps(a.tile_out + at * 16 + 8 * h, sum);
    }
  };
  if (bordered) {  // every output's nine taps from the tile, the border's zeros as padding
    const int64_t width = a.in_w + 2;
    int64_t tap_offset[9];
    for (int k = 0; k < 9; ++k) tap_offset[k] = ((k / 3) * width + k % 3) * 16;
    for (int64_t oh = 0; oh < a.out_h; ++oh) {
      const float* row = a.tile_in + (oh * a.stride_h - a.pad_top + 1) * width * 16;
      for (int64_t ow = 0; ow < a.out_w; ++ow) {
        const float* at = row + (ow * a.stride_w - a.pad_left + 1) * 16;
        output(oh * a.out_w + ow, [&](int k, int h) { return _mm256_loadu_ps(at + tap_offset[k] + 8 * h); });
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
      output(oh * a.out_w + ow, [&](int k, int h) {
        const int64_t ih = ih0 + k / 3, iw = iw0 + k % 3;
        const bool in = ih >= 0 && ih < a.in_h && iw >= 0 && iw < a.in_w;
        return in ? _mm256_loadu_ps(a.tile_in + (ih * a.in_w + iw) * 16 + 8 * h) : zero;
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
      output(oh * a.out_w + ow,
             [&](int k, int h) { return _mm256_loadu_ps(at + ((k / 3) * a.in_w + k % 3) * 16 + 8 * h); });
    }
    for (int64_t ow = ow_hi; ow < a.out_w; ++ow) edge(ow);
  }
  FromTile(a.tile_out, a.out_h * a.out_w, a.channels, a.y, a.y_plane);
}

}  // namespace qrt::avx2
