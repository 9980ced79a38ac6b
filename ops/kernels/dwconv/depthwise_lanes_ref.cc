#include "ops/kernels/dwconv/depthwise_3x3.h"
#include "ops/kernels/dwconv/depthwise_lanes.h"

namespace qrt::ref {

void DepthwiseLanes(const DepthwiseLanesArgs& a) {
  for (int c = 0; c < a.channels; ++c) {
    const float* bias = a.bias != nullptr ? a.bias + c : nullptr;
    for (int64_t oh = 0; oh < a.out_h; ++oh) {
      for (int64_t ow = 0; ow < a.out_w; ++ow) {
        a.y[c * a.y_plane + oh * a.out_w + ow] = Depthwise3x3At(a.x + c * a.x_plane, a.in_h, a.in_w, oh, ow, a.stride_h,
                                                                a.stride_w, a.pad_top, a.pad_left, a.w + 9 * c, bias);
      }
    }
  }
}

}  // namespace qrt::ref
