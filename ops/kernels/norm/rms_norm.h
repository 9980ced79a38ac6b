// RMS normalization rows (SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization) in
// ONNX Runtime 1.30's orders, found number by number against it (docs/float-order.md):
//   RmsNormRow, rows of kRmsNormMinRow elements or more (MLAS's kernel): s = LayerNormRow's
//     variance pass over x itself (eight float lanes of fma(x, x, v) over whole groups of
//     eight, reduced lane k + lane k+4, then (0 + 2) + (1 + 3); the tail as LayerNormVarianceTail
//     with mean 0); inv = 1 / sqrtf(s / n + epsilon); y = (x * inv) * scale.
//   RmsNormPlainRow, shorter rows (and every row of SkipSimplifiedLayerNormalization): s = s + x*x
//     from 0 in order (unfused); rms = sqrtf(s / n + epsilon); y = (x / rms) * scale; inv = 1 / rms.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using RmsNormRowFn = void (*)(int64_t n, const float* x, const float* scale, float epsilon, float* y, float* inv);

namespace ref {

inline constexpr int64_t kRmsNormMinRow = 16;

void RmsNormRow(int64_t n, const float* x, const float* scale, float epsilon, float* y, float* inv);
void RmsNormPlainRow(int64_t n, const float* x, const float* scale, float epsilon, float* y, float* inv);

}  // namespace ref

namespace avx2 {
void RmsNormRow(int64_t n, const float* x, const float* scale, float epsilon, float* y, float* inv);  // = ref::
}  // namespace avx2

// SimplifiedLayerNormalization's row for rows of n elements, under the ceiling `isa`.
RmsNormRowFn SelectRmsNormRow(Isa isa, int64_t n);

}  // namespace qrt
