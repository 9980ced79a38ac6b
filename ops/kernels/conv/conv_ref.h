// Reference convolution kernels: the specification of Conv, ConvInteger and
// QLinearConv. Plain scalar loops, never optimized; the oneDNN paths are tested
// against them (ops/onednn/).
//
// Layout: x is N x C x [D] x [H] x W (1 to 3 spatial dims), w is M x C/group x [kernel],
// y is N x M x [out]. Output channel m belongs to group m / (M/group) and reads input
// channels [g*C/group, (g+1)*C/group). Padding positions contribute nothing (zero in
// the float domain; x == x_zero_point in the integer domain, i.e. (x - zp) == 0, as the
// ONNX reference pads X - x_zero_point with zeros).
//
//   float:   y = b[m] + sum_{c,k} x[...] * w[m,c,k], summed in the order of ONNX Runtime's
//            MLAS and the bias added last: the patch matrix of each image and group times the
//            weights through the ordered GEMM's reference (sgemm.h), without conv_float.cc's
//            driver, which is tested against this.
//   double:  the same sum in double, in (c, kd, kh, kw) order, plus b[m].
//   integer: acc = sum_{c,k} (x - x_zp) * (w - w_zp[m]) + bias[m]. ONNX calls the
//            accumulator int32; qrt defines overflow as two's-complement wrap-around
//            (arithmetic mod 2^32, what numpy's int32 does), computed in uint32, so no
//            input is undefined behaviour. Every non-overflowing result is exact.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/tensor.h"

namespace qrt {

// Geometry of one convolution, every spatial vector padded to 3 dims (D, H, W) with
// size-1 / stride-1 / pad-0 leading entries for 1-D and 2-D convolutions.
struct ConvGeometry {
  int64_t batch = 1;
  int64_t in_channels = 0;   // C
  int64_t out_channels = 0;  // M
  int64_t group = 1;
  int spatial_rank = 2;  // 1, 2 or 3 (the original rank, for oneDNN and shapes)
  int64_t in[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t dilation[3] = {1, 1, 1};
  int64_t pad_begin[3] = {0, 0, 0};
  int64_t pad_end[3] = {0, 0, 0};

  int64_t in_spatial() const { return in[0] * in[1] * in[2]; }
  int64_t out_spatial() const { return out[0] * out[1] * out[2]; }
  int64_t kernel_size() const { return kernel[0] * kernel[1] * kernel[2]; }
  // Input channels per group times kernel size: the length of each dot product.
  int64_t reduction_size() const { return in_channels / group * kernel_size(); }
  int64_t weight_count() const { return out_channels * reduction_size(); }
  int64_t output_count() const { return batch * out_channels * out_spatial(); }
};

namespace ref {

// b may be nullptr.
void ConvFloat(const ConvGeometry& g, const float* x, const float* w, const float* b, float* y);
void ConvFloat(const ConvGeometry& g, const double* x, const double* w, const double* b, double* y);

// Tx, Tw = uint8_t or int8_t. w_zp has one entry per output channel (repeat a per-tensor
// zero point); bias may be nullptr. Writes the int32 accumulators to y.
template <class Tx, class Tw>
void ConvInteger(const ConvGeometry& g, const Tx* x, int32_t x_zp, const Tw* w, const int32_t* w_zp,
                 const int32_t* bias, int32_t* y);

}  // namespace ref
}  // namespace qrt
