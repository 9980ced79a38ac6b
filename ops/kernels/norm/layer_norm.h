// One float32 LayerNormalization row as MLAS's centered two-pass kernel computes it (ONNX
// Runtime 1.30 runs it for rows of kLayerNormMinRow elements or more; docs/float-order.md):
//   mean: the elements widened to double, summed in four lanes (lane i % 4) over whole
//         groups of four, the lanes reduced (l0 + l2) + (l1 + l3), the tail added one by
//         one in double; mean = float(sum / n)
//   var:  d = x - mean in float; eight float lanes v = fma(d, d, v) (lane i % 8) over whole
//         groups of eight, reduced lane k + lane k+4, then (0 + 2) + (1 + 3); the tail's
//         steps into that sum one by one: v = v + d*d (unfused) for the first four when
//         there are four or more, then v = fma(d, d, v)
//   inv = 1 / sqrtf(var / float(n) + epsilon);  y = fma((x - mean) * inv, scale, bias)
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using LayerNormRowFn = void (*)(int64_t n, const float* x, const float* scale, const float* bias, float epsilon,
                                float* y, float* mean, float* inv_std_dev);

namespace ref {

inline constexpr int64_t kLayerNormMinRow = 8;

// bias may be null (then 0). Writes the row's mean and inverse standard deviation.
void LayerNormRow(int64_t n, const float* x, const float* scale, const float* bias, float epsilon, float* y,
                  float* mean, float* inv_std_dev);

// Rows shorter than kLayerNormMinRow, as ONNX Runtime's own code computes them (Welford):
//   m = 0, M2 = 0; for each x: d = x - m; m = m + d / (i + 1); M2 = M2 + d * (x - m)
//   den = sqrtf(M2 / n + epsilon);  y = ((x - m) / den) * scale + bias;  InvStdDev = 1 / den
// The parts of a row both row kernels compute one element at a time (defined once, in the
// reference's file, so that no SIMD object holds a copy): the mean's tail after the last group
// of four, added to `sum`, and the variance's after the last group of eight, added to `var`.
double LayerNormMeanTail(int64_t n, const float* x, double sum);
float LayerNormVarianceTail(int64_t n, const float* x, float mean, float var);

void LayerNormShortRow(int64_t n, const float* x, const float* scale, const float* bias, float epsilon, float* y,
                       float* mean, float* inv_std_dev);
// LayerNormShortRow over `rows` contiguous rows of n (mean and inv_std_dev: one per row, or null).
void LayerNormShortRows(int64_t rows, int64_t n, const float* x, const float* scale, const float* bias, float epsilon,
                        float* y, float* mean, float* inv_std_dev);

// com.microsoft EmbedLayerNormalization's row: the plain sum, mean = sum / n, the sum of
// squared differences, y = (x - mean) / sqrt(that / n + epsilon) * scale (+ bias). x is
// overwritten with x - mean.
void EmbedLayerNormRow(int64_t n, float* x, const float* scale, const float* bias, float epsilon, float* y);

}  // namespace ref

namespace avx2 {  // bit-identical to ref::LayerNormRow for every n
void LayerNormRow(int64_t n, const float* x, const float* scale, const float* bias, float epsilon, float* y,
                  float* mean, float* inv_std_dev);
// Bit-identical to ref::LayerNormShortRows: Welford's chain of divisions is sequential along a
// row, so eight rows run side by side, one per lane.
void LayerNormShortRows(int64_t rows, int64_t n, const float* x, const float* scale, const float* bias, float epsilon,
                        float* y, float* mean, float* inv_std_dev);
}  // namespace avx2

using LayerNormRowsFn = void (*)(int64_t rows, int64_t n, const float* x, const float* scale, const float* bias,
                                 float epsilon, float* y, float* mean, float* inv_std_dev);
LayerNormRowsFn SelectLayerNormShortRows(Isa isa);

// The row kernel for rows of n elements: LayerNormShortRow below kLayerNormMinRow, else the
// two-pass row for the ISA.
LayerNormRowFn SelectLayerNormRow(Isa isa, int64_t n);

}  // namespace qrt
