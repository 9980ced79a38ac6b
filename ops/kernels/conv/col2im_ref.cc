// Reference col2im (col2im.h): every term's landing position computed and checked.
#include "ops/kernels/conv/col2im.h"

namespace qrt::ref {

void Col2Im(const Col2ImGeometry& geo, int64_t channels, const float* col, float* image) {
  const int r = geo.rank;
  int64_t kernel_size = 1, in_size = 1, out_size = 1;
  for (int d = 0; d < r; ++d) kernel_size *= geo.kernel[d], in_size *= geo.in[d], out_size *= geo.out[d];
  int64_t k_idx[3] = {0, 0, 0}, p_idx[3] = {0, 0, 0};
  for (int64_t c = 0; c < channels; ++c) {
    float* plane = image + c * out_size;
    for (int64_t k = 0; k < kernel_size; ++k) {
      KernelIndex(geo, k, k_idx);
      const float* row = col + (c * kernel_size + k) * in_size;
      for (int d = 0; d < r; ++d) p_idx[d] = 0;
      for (int64_t p = 0; p < in_size; ++p) {
        int64_t at = 0;
        bool inside = true;
        for (int d = 0; d < r; ++d) {
          const int64_t o = p_idx[d] * geo.stride[d] - geo.pad_begin[d] + k_idx[d] * geo.dilation[d];
          inside = inside && o >= 0 && o < geo.out[d];
          at = at * geo.out[d] + o;
        }
        if (inside) plane[at] += row[p];
        for (int d = r; d-- > 0;) {
          if (++p_idx[d] < geo.in[d]) break;
          p_idx[d] = 0;
        }
      }
    }
  }
}

}  // namespace qrt::ref
