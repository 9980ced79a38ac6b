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
void GemmInteger(int64_t m, int64_t n, int64_t k, const Ta* a, const int32_t* a_zp, int64_t a_zp_inc, const Tb* b,
                 const int32_t* b_zp, int64_t b_zp_inc, const GemmStrides& s, int32_t* c);

}  // namespace ref

// Requantization of an int32 accumulator as ONNX Runtime's MLAS kernels do it
// (QLinearMatMul, QLinearConv):
//   multiplier = float32(float32(a_scale * b_scale) / y_scale)
//   v = clamp(float(acc) * multiplier, Tmin - y_zp, Tmax - y_zp)   f32 multiply
//   y = rint(v) + y_zp                                             ties to even
// The product is a float, not a double (as onnx's numpy reference computes it): the two
// disagree by one step where float(acc) * multiplier rounds onto a .5 boundary, and ORT's
// is the result QOperator models are checked against. The clamps are MAXPS then MINPS, so
// a NaN product (a zero or non-finite scale) gives Tmin; +-inf saturates.
inline float QLinearMultiplier(float a_scale, float b_scale, float y_scale) {
  const float ab = a_scale * b_scale;
  return ab / y_scale;
}

template <class T>
inline T RequantizeLikeOrt(int32_t acc, float multiplier, int32_t y_zp) {
  const float lo = float(int32_t(std::numeric_limits<T>::min()) - y_zp);
  const float hi = float(int32_t(std::numeric_limits<T>::max()) - y_zp);
  float v = float(acc) * multiplier;
  v = v >= lo ? v : lo;  // also NaN
  v = v <= hi ? v : hi;
  return T(int32_t(std::nearbyint(v)) + y_zp);
}

}  // namespace qrt
