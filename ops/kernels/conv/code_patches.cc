#include "ops/kernels/conv/code_patches.h"

#include <algorithm>
#include <cstring>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace qrt {
namespace {

// The padded volume: depth, rows, and each row as `phases` phase rows of `phase_width` bytes.
struct PaddedCodes {
  int64_t depth, rows, phases, phase_width;
  int64_t row_bytes() const { return phases * phase_width; }
  int64_t plane_bytes() const { return depth * rows * row_bytes(); }
};

PaddedCodes PaddedOf(const ConvGeometry& g) {
  const int64_t width = g.in[2] + g.pad_begin[2] + g.pad_end[2];
  return {g.in[0] + g.pad_begin[0] + g.pad_end[0], g.in[1] + g.pad_begin[1] + g.pad_end[1], g.stride[2],
          (width + g.stride[2] - 1) / g.stride[2]};
}

// n bytes from `from` to `to` in 16-byte pieces: up to 15 bytes more are read and written.
inline void CopyPieces(uint8_t* to, const uint8_t* from, int64_t n) {
  for (int64_t i = 0; i < n; i += 16) std::memcpy(to + i, from + i, 16);
}

// Bytes 2i of `row` to even[i] and 2i + 1 to odd[i] for the leading multiple of 32 of n; returns
// how many bytes it took. SSE2, which every x86-64 CPU has (GCC left the plain loop scalar).
int64_t SplitEvenOdd(const uint8_t* row, int64_t n, uint8_t* even, uint8_t* odd) {
  int64_t i = 0;
#ifdef __SSE2__
  const __m128i low = _mm_set1_epi16(0x00FF);
  for (; i + 32 <= n; i += 32) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i + 16));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(even + i / 2),
                     _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(odd + i / 2),
                     _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8)));
  }
#endif
  return i;
}

}  // namespace

int64_t CodePlanesBytes(const ConvGeometry& g) { return g.in_channels * PaddedOf(g).plane_bytes() + kCodePatchesSlack; }

void BuildCodePatches(const ConvGeometry& g, const uint8_t* x, uint8_t pad, uint8_t* planes, uint8_t* patches) {
  const PaddedCodes p = PaddedOf(g);
  const int64_t sw = g.stride[2], in_w = g.in[2], left = g.pad_begin[2];
  // The padded planes, split by column phase.
  uint8_t* to = planes;
  for (int64_t c = 0; c < g.in_channels; ++c) {
    for (int64_t d = 0; d < p.depth; ++d) {
      for (int64_t r = 0; r < p.rows; ++r, to += p.row_bytes()) {
        const int64_t id = d - g.pad_begin[0], ih = r - g.pad_begin[1];
        std::memset(to, pad, size_t(p.row_bytes()));
        if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) continue;
        const uint8_t* row = x + ((c * g.in[0] + id) * g.in[1] + ih) * in_w;
        if (sw == 1) {
          std::memcpy(to + left, row, size_t(in_w));
          continue;
        }
        if (sw == 2) {  // the common stride: even and odd bytes
          uint8_t* phase[2] = {to + (left % 2) * p.phase_width + left / 2, to + (1 - left % 2) * p.phase_width};
          phase[1] += (left + 1) / 2;
          int64_t iw = SplitEvenOdd(row, in_w, phase[0], phase[1]);
          for (; iw + 1 < in_w; iw += 2) phase[0][iw / 2] = row[iw], phase[1][iw / 2] = row[iw + 1];
          if (iw < in_w) phase[0][iw / 2] = row[iw];
          continue;
        }
        for (int64_t phase = 0; phase < sw; ++phase) {  // padded column i sw + phase: iw = i sw + phase - left
          uint8_t* phase_row = to + phase * p.phase_width;
          const int64_t first = phase >= left ? 0 : (left - phase + sw - 1) / sw;
          for (int64_t i = first, iw = first * sw + phase - left; i < p.phase_width && iw < in_w; ++i, iw += sw) {
            phase_row[i] = row[iw];
          }
        }
      }
    }
  }
  // Each patch row: output row (od, oh) reads padded row (od sd + kd dd, oh sh + kh dh), phase
  // (kw dw) mod sw from column (kw dw) / sw on.
  const int64_t width = g.out[2];
  uint8_t* out = patches;
  for (int64_t c = 0; c < g.in_channels; ++c) {
    for (int64_t kd = 0; kd < g.kernel[0]; ++kd) {
      for (int64_t kh = 0; kh < g.kernel[1]; ++kh) {
        for (int64_t kw = 0; kw < g.kernel[2]; ++kw) {
          const int64_t tap = kw * g.dilation[2];
          const uint8_t* phase = planes + c * p.plane_bytes() + (tap % sw) * p.phase_width + tap / sw;
          for (int64_t od = 0; od < g.out[0]; ++od) {
            const int64_t d = od * g.stride[0] + kd * g.dilation[0];
            for (int64_t oh = 0; oh < g.out[1]; ++oh, out += width) {
              const int64_t r = oh * g.stride[1] + kh * g.dilation[1];
              CopyPieces(out, phase + (d * p.rows + r) * p.row_bytes(), width);
            }
          }
        }
      }
    }
  }
}

}  // namespace qrt
