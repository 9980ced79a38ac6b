#include <vector>

#include "ops/kernels/dwconv/depthwise_3x3.h"
#include "ops/kernels/dwconv/depthwise_int8.h"

namespace qrt::ref {

void DepthwiseInt8Plane(const DepthwiseInt8Plan& p, int64_t c, const uint8_t* x, uint8_t* y) {
  std::vector<float> xf(size_t(p.in_h * p.in_w)), yf(size_t(p.out_h * p.out_w));
  (p.x_signed ? DequantizeS8ToF32 : DequantizeU8ToF32)(p.in_h * p.in_w, x, p.x_scale, p.x_zero_point, xf.data());
  const float* bias = p.has_bias ? &p.bias[size_t(c)] : nullptr;
  for (int64_t oh = 0; oh < p.out_h; ++oh) {
    for (int64_t ow = 0; ow < p.out_w; ++ow) {
      yf[size_t(oh * p.out_w + ow)] = Depthwise3x3At(xf.data(), p.in_h, p.in_w, oh, ow, p.stride, p.stride, p.pad_top,
                                                     p.pad_left, p.weights.data() + 9 * c, bias);
    }
  }
  (p.y_signed ? QuantizeF32ToS8 : QuantizeF32ToU8)(p.out_h * p.out_w, yf.data(), p.y_scale, p.y_zero_point, y);
}

}  // namespace qrt::ref
