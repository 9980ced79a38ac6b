// Reference matrix-product kernels (MatMul, Gemm, MatMulInteger, QLinearMatMul) and the
// ONNX QLinearConv/QLinearMatMul requantization. The specification; never optimized.
//
// One 2-D product per call, with element strides so transposed and broadcast operands
// need no copies: a(i,k) = a[i*a_rs + k*a_cs], b(k,j) = b[k*b_rs + j*b_cs], c row-major.
//   float:   c(i,j) = sum_k a(i,k) * b(k,j), summed in double in k order, rounded once.
//   integer: c(i,j) = sum_k (a(i,k) - a_zp[i]) * (b(k,j) - b_zp[j]), the int32 accumulator
//            of ONNX with overflow defined as two's-complement wrap (mod 2^32, as numpy's
//            int32 matmul), computed in uint32.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace qrt {

struct GemmStrides {
  int64_t a_rs, a_cs, b_rs, b_cs;
};

namespace ref {

// T = float or double.
template <class T>
void GemmFloat(int64_t m, int64_t n, int64_t k, const T* a, const T* b, const GemmStrides& s, T* c);

// Ta, Tb = uint8_t or int8_t. a_zp[i * a_zp_inc], b_zp[j * b_zp_inc] (inc 0: per tensor).
template <class Ta, class Tb>
void GemmInteger(int64_t m, int64_t n, int64_t k, const Ta* a, const int32_t* a_zp, int64_t a_zp_inc,
                 const Tb* b, const int32_t* b_zp, int64_t b_zp_inc, const GemmStrides& s, int32_t* c);

}  // namespace ref

// ONNX requantization of an int32 accumulator (onnx/reference/ops/op_qlinear_conv.py and
// op_qlinear_matmul.py):
//   multiplier = float32(float32(a_scale * b_scale) / y_scale)      two f32 numpy ops
//   y = clip(rint(double(acc) * double(multiplier) + y_zp), Tmin, Tmax)
// numpy promotes int32 array * float32 to float64, so the product and the zero-point add
// are double ops (exact add: both are integers or the product is already rounded);
// rint rounds ties to even. This differs from ONNX Runtime's MLAS kernels, which multiply
// in f32: the two can disagree by one step when float(acc)*multiplier rounds across a
// .5 boundary. NaN (a zero or non-finite scale) gives Tmin, +-inf saturates.
inline float QLinearMultiplier(float a_scale, float b_scale, float y_scale) {
  const float ab = a_scale * b_scale;
  return ab / y_scale;
}

template <class T>
inline T RequantizeOnnx(int32_t acc, float multiplier, int32_t y_zp) {
  constexpr double lo = std::numeric_limits<T>::min();
  constexpr double hi = std::numeric_limits<T>::max();
  const double prod = double(acc) * double(multiplier);
  const double v = std::nearbyint(prod + double(y_zp));
  if (!(v >= lo)) return T(lo);  // also NaN
  if (v > hi) return T(hi);
  return T(v);
}

}  // namespace qrt
