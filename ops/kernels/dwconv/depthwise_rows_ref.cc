#include <vector>

#include "ops/kernels/dwconv/depthwise_3x3.h"
#include "ops/kernels/dwconv/depthwise_rows.h"
#include "ops/kernels/quantize/quantize_linear.h"

namespace qrt::ref {

void DepthwiseRows(const DepthwiseRowsArgs& a) {
  std::vector<float> x(size_t(a.in_h * a.in_w));
  if (a.x_codes != nullptr) {  // as DequantizeLinear computes the floats
    (a.x_signed ? DequantizeS8ToF32 : DequantizeU8ToF32)(a.in_h * a.in_w, a.x_codes, a.x_scale, a.x_zero_point,
                                                         x.data());
  } else {
    x.assign(a.x, a.x + a.in_h * a.in_w);
  }
  std::vector<float> y(size_t(a.out_h * a.out_w));
  for (int64_t oh = 0; oh < a.out_h; ++oh) {
    for (int64_t ow = 0; ow < a.out_w; ++ow) {
      y[size_t(oh * a.out_w + ow)] =
          Depthwise3x3At(x.data(), a.in_h, a.in_w, oh, ow, a.stride, a.stride, a.pad_top, a.pad_left, a.w, a.bias);
    }
  }
  if (a.y_codes != nullptr) {  // as QuantizeLinear computes the codes
    (a.y_signed ? QuantizeF32ToS8 : QuantizeF32ToU8)(a.out_h * a.out_w, y.data(), a.y_scale, a.y_zero_point, a.y_codes);
  } else {
    std::copy(y.begin(), y.end(), a.y);
  }
}

}  // namespace qrt::ref
