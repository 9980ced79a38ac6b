#include "ops/kernels/conv/code_patches.h"

#include <algorithm>
#include <cstring>

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
