// One output of a 3x3 depthwise convolution (one channel, 2-D, dilation 1) as the specification
// computes it: SgemmOneRow's order over the nine taps in (kh, kw) order (sgemm.h), a tap over the
// padding reading +0, then the bias. The scalar references of the dwconv kernels are built on it.
#pragma once

#include <cstdint>

#include "ops/kernels/gemm/sgemm.h"

namespace qrt::ref {

inline float Depthwise3x3At(const float* plane, int64_t in_h, int64_t in_w, int64_t oh, int64_t ow, int64_t stride_h,
                            int64_t stride_w, int64_t pad_top, int64_t pad_left, const float* w, const float* bias) {
  static const float kZero = 0.f;
  const float* taps[9];
  for (int64_t kh = 0; kh < 3; ++kh) {
    for (int64_t kw = 0; kw < 3; ++kw) {
      const int64_t ih = oh * stride_h - pad_top + kh, iw = ow * stride_w - pad_left + kw;
      taps[kh * 3 + kw] = ih >= 0 && ih < in_h && iw >= 0 && iw < in_w ? plane + ih * in_w + iw : &kZero;
    }
  }
  float y = 0.f;
  SgemmOneRow(9, w, taps, 1, bias, &y);
  return y;
}

}  // namespace qrt::ref
