// col2im a row at a time (col2im.h): the same terms in the same order as ref::Col2Im.
#include "ops/kernels/conv/col2im.h"

#include <algorithm>

namespace qrt {
namespace {

// The input positions p in [0, in) with 0 <= p * stride + offset < out: [*lo, *hi).
void InsideRange(int64_t in, int64_t out, int64_t stride, int64_t offset, int64_t* lo, int64_t* hi) {
  // p >= ceil(-offset / stride), p <= floor((out - 1 - offset) / stride)
  auto floor_div = [](int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
  *lo = std::max<int64_t>(0, -floor_div(offset, stride));
  *hi = out - 1 - offset < 0 ? 0 : std::min(in, floor_div(out - 1 - offset, stride) + 1);
  if (*hi < *lo) *hi = *lo;
}

}  // namespace

void Col2ImByRows(const Col2ImGeometry& geo, int64_t channels, const float* col, float* image) {
  const int r = geo.rank, last = r - 1;
  int64_t kernel_size = 1, in_size = 1, out_size = 1;
  for (int d = 0; d < r; ++d) kernel_size *= geo.kernel[d], in_size *= geo.in[d], out_size *= geo.out[d];
  const int64_t in_w = geo.in[last], out_w = geo.out[last], stride_w = geo.stride[last];
  const int64_t rows = in_size / std::max<int64_t>(in_w, 1);
  for (int64_t c = 0; c < channels; ++c) {
    float* plane = image + c * out_size;
    for (int64_t k = 0; k < kernel_size; ++k) {
      int64_t k_idx[3] = {0, 0, 0};
      KernelIndex(geo, k, k_idx);
      const int64_t offset_w = k_idx[last] * geo.dilation[last] - geo.pad_begin[last];
      int64_t lo, hi;
      InsideRange(in_w, out_w, stride_w, offset_w, &lo, &hi);
      if (lo >= hi) continue;
      const float* src_rows = col + (c * kernel_size + k) * in_size;
      int64_t p_idx[3] = {0, 0, 0};  // the outer input position (dims 0 .. last-1)
      for (int64_t row = 0; row < rows; ++row) {
        int64_t at = 0;
        bool inside = true;
        for (int d = 0; d < last; ++d) {
          const int64_t o = p_idx[d] * geo.stride[d] - geo.pad_begin[d] + k_idx[d] * geo.dilation[d];
          inside = inside && o >= 0 && o < geo.out[d];
          at = at * geo.out[d] + o;
        }
        if (inside) {
          const float* src = src_rows + row * in_w;
          float* dst = plane + at * out_w;
          if (stride_w == 1) {
            for (int64_t p = lo; p < hi; ++p) dst[p + offset_w] += src[p];
          } else {
            for (int64_t p = lo; p < hi; ++p) dst[p * stride_w + offset_w] += src[p];
          }
        }
        for (int d = last; d-- > 0;) {
          if (++p_idx[d] < geo.in[d]) break;
          p_idx[d] = 0;
        }
      }
    }
  }
}

}  // namespace qrt
