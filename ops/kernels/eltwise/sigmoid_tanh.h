// Sigmoid and Tanh on float32 as ONNX Runtime computes them on x86-64 (MLAS's rational
// approximations, evaluated with fused multiply-adds): the same bits as ORT's literal output,
// so a quantizer after them rounds exactly as in the reference system (docs/float-order.md).
//
//   sigmoid(x): v = clamp(x, -18, 18), s = v * v,
//               p = v * (((( s*a9 + a7) s + a5) s + a3) s + a1)
//               q = ((((( s*b10 + b8) s + b6) s + b4) s + b2) s + b0)
//               y = max(p / q + 0.5, 0)
//   tanh(x):    v = clamp(x, -9, 9), s = v * v,
//               p = (((((( s*a13 + a11) s + a9) s + a7) s + a5) s + a3) s + a1)
//               q = ((( s*b6 + b4) s + b2) s + b0)
//               y = v * p / q        ((v * p) / q)
// every "s*c + d" one fused multiply-add. NaN gives NaN. The constants are MLAS's (facts,
// listed in sigmoid_tanh_ref.cc); the approximations are within 1e-6 of the true functions.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using FloatMapFn = void (*)(int64_t n, const float* x, float* y);

namespace ref {
void Sigmoid(int64_t n, const float* x, float* y);
void Tanh(int64_t n, const float* x, float* y);
}  // namespace ref
namespace avx2 {  // bit-identical to ref::
void Sigmoid(int64_t n, const float* x, float* y);
void Tanh(int64_t n, const float* x, float* y);
}  // namespace avx2

FloatMapFn SelectSigmoid(Isa isa);
FloatMapFn SelectTanh(Isa isa);

namespace sigmoid_tanh {
// The coefficients, shared by both kernels.
inline constexpr float kSigmoidA[5] = {4.37031012579801e-11f, 1.15627324459942e-07f, 6.08574864600143e-05f,
                                       8.51377133304701e-03f, 2.48287947061529e-01f};  // a9 .. a1
inline constexpr float kSigmoidB[6] = {6.10247389755681e-13f, 5.76102136993427e-09f,
                                       6.29106785017040e-06f, 1.70198817374094e-03f,
                                       1.16817656904453e-01f, 9.93151921023180e-01f};  // b10 .. b0
inline constexpr float kTanhA[7] = {-2.76076847742355e-16f, 2.00018790482477e-13f, -8.60467152213735e-11f,
                                    5.12229709037114e-08f,  1.48572235717979e-05f, 6.37261928875436e-04f,
                                    4.89352455891786e-03f};  // a13 .. a1
inline constexpr float kTanhB[4] = {1.19825839466702e-06f, 1.18534705686654e-04f, 2.26843463243900e-03f,
                                    4.89352518554385e-03f};  // b6 .. b0
}  // namespace sigmoid_tanh

}  // namespace qrt
