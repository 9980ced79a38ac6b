// One head's rotary position embedding (com.microsoft RotaryEmbedding) in ONNX Runtime 1.30's
// order, found number by number against it (docs/float-order.md). Pairs (x_r, x_i) are
// (k, k + d/2) of the first d elements, or (2k, 2k+1) interleaved, with c = cos[k], s = sin[k]:
//   fused: y_r = fma(x_r, c, -(x_i * s)),  y_i = fma(x_r, s, x_i * c)
//   plain: y_r = x_r * c - x_i * s,        y_i = x_r * s + x_i * c  (each product rounded)
// Non-interleaved rows are fused throughout. Interleaved rows are fused over whole groups of 16
// elements and the first pair after them, plain for the rest (MLAS's vector loop and tail).
// Elements from d to the head size are copied.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using RotaryRowFn = void (*)(int64_t head_size, int64_t rotary_dim, bool interleaved, const float* x, const float* cos,
                             const float* sin, float* y);

namespace ref {
void RotaryRow(int64_t head_size, int64_t rotary_dim, bool interleaved, const float* x, const float* cos,
               const float* sin, float* y);
}  // namespace ref
namespace avx2 {
void RotaryRow(int64_t head_size, int64_t rotary_dim, bool interleaved, const float* x, const float* cos,
               const float* sin, float* y);  // bit-identical to ref::
}  // namespace avx2

RotaryRowFn SelectRotaryRow(Isa isa);

}  // namespace qrt
