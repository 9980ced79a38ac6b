#include "ops/kernels/pool/average_pool.h"

#include <algorithm>

#include "ops/kernels/common/thread_scratch.h"

namespace qrt {
namespace {

// MLAS's row range of a window starting at `raw` (which may lie in the padding): a start
// outside the input becomes 0, an end past it the input's end.
void WindowRows(int64_t raw, int64_t k, int64_t n, int64_t& start, int64_t& end) {
  start = (raw < 0 || raw >= n) ? 0 : raw;
  const int64_t e = raw + k;
  end = (e < 0 || e > n) ? n : e;
}

}  // namespace

bool AveragePoolColumnsFirstApplies(const AveragePoolGeometry& g) {
  if (g.rank < 2 || g.rank > 3 || g.stride[g.rank - 1] > 2) return false;
  for (int a = 0; a < g.rank; ++a) {
    if (g.kernel[a] > 32) return false;
  }
  // The input row and its padding must fit MLAS's 2048-float stack buffer (less 3 floats
  // for a vector's over-read).
  int64_t room = 2048 - 3;
  const int64_t last = g.rank - 1;
  room = room >= g.pad_begin[last] ? room - g.pad_begin[last] : 0;
  room = room >= g.pad_end[last] ? room - g.pad_end[last] : 0;
  return room >= g.in[last];
}

void AveragePoolColumnsFirst(const AveragePoolGeometry& g, int64_t planes, const float* x, float* y) {
  const bool three = g.rank == 3;
  const int64_t d_in = three ? g.in[0] : 1, h_in = g.in[g.rank - 2], w_in = g.in[g.rank - 1];
  const int64_t d_out = three ? g.out[0] : 1, h_out = g.out[g.rank - 2], w_out = g.out[g.rank - 1];
  const int64_t kd = three ? g.kernel[0] : 1, kh = g.kernel[g.rank - 2], kw = g.kernel[g.rank - 1];
  const int64_t sd = three ? g.stride[0] : 1, sh = g.stride[g.rank - 2], sw = g.stride[g.rank - 1];
  const int64_t pd = three ? g.pad_begin[0] : 0, ph = g.pad_begin[g.rank - 2], pw = g.pad_begin[g.rank - 1];
  // The column sums of one output row, with zeros for the padding (and past it, where a
  // ceil_mode window overhangs).
  const int64_t width = std::max(pw + w_in + g.pad_end[g.rank - 1], (w_out - 1) * sw + kw);
  float* sums = ThreadScratchFloats(ScratchSlot::kOp0, size_t(width));
  std::fill(sums, sums + width, 0.f);
  // count_include_pad: the window's taps inside the padded input, per axis (a ceil_mode
  // window can overhang the padding).
  auto padded_taps = [](int64_t raw, int64_t k, int64_t n, int64_t before, int64_t after) {
    return std::min(raw + k, n + after) - std::max(raw, -before);
  };
  const int64_t pd_end = three ? g.pad_end[0] : 0, ph_end = g.pad_end[g.rank - 2], pw_end = g.pad_end[g.rank - 1];
  const int64_t plane_in = d_in * h_in * w_in;
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x + p * plane_in;
    for (int64_t od = 0; od < d_out; ++od) {
      int64_t d0 = 0, d1 = 1, d_taps = 1;
      if (three) {
        WindowRows(od * sd - pd, kd, d_in, d0, d1);
        d_taps = padded_taps(od * sd - pd, kd, d_in, pd, pd_end);
      }
      for (int64_t oh = 0; oh < h_out; ++oh) {
        int64_t h0, h1;
        WindowRows(oh * sh - ph, kh, h_in, h0, h1);
        for (int64_t c = 0; c < w_in; ++c) {
          float s = 0;
          if (three) {
            for (int64_t d = d0; d < d1; ++d) {
              for (int64_t h = h0; h < h1; ++h) s += xp[(d * h_in + h) * w_in + c];
            }
          } else if (h1 > h0) {
            s = xp[h0 * w_in + c];
            for (int64_t h = h0 + 1; h < h1; ++h) s += xp[h * w_in + c];
          }
          sums[pw + c] = s;
        }
        const float rows = float((d1 - d0) * (h1 - h0));
        const int64_t row_taps = d_taps * padded_taps(oh * sh - ph, kh, h_in, ph, ph_end);
        for (int64_t o = 0; o < w_out; ++o) {
          const int64_t b = o * sw;
          float s = sums[b];
          for (int64_t j = 1; j < kw; ++j) s += sums[b + j];
          float divisor;
          if (g.include_pad) {
            divisor = float(row_taps * padded_taps(b - pw, kw, w_in, pw, pw_end));
          } else {
            const float cols = float(std::min(b + kw, pw + w_in)) - float(std::max(b, pw));
            divisor = std::max(cols * rows, 1.f);
          }
          *y++ = s / divisor;
        }
      }
    }
  }
}

void AveragePoolGlobal(int64_t planes, int64_t size, const float* x, float* y) {
  const float count = float(size);
  for (int64_t p = 0; p < planes; ++p) {
    const float* xp = x + p * size;
    float lane[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= size; i += 4) {
      for (int l = 0; l < 4; ++l) lane[l] += xp[i + l];
    }
    float s = (lane[0] + lane[2]) + (lane[1] + lane[3]);
    for (; i < size; ++i) s += xp[i];
    y[p] = s / count;
  }
}

}  // namespace qrt
