// Float AveragePool and GlobalAveragePool in the three summation orders ONNX Runtime's MLAS
// pooling uses on x86-64 (docs/float-order.md, "AveragePool"). Each output is one float sum
// divided (not multiplied by a reciprocal) by a float count; the orders differ in how the
// window is summed, and a quantizer after the pool turns that last-bit difference into a
// whole step at ties.
//   row-major      (1-D pools, large kernels or strides, dilations) the window's elements
//                  inside the input in row-major order, from 0.
//   columns first  (2-D and 3-D pools with kernels <= 32 and a last stride <= 2) for each
//                  input column, the sum over the window's rows (2-D: from its first row;
//                  3-D: from 0, planes outer), then the window's columns summed left to right
//                  from its first column, the columns in the padding adding +0.
//   global         (a window the size of the plane, no padding, unit strides) four lane sums
//                  (lane l takes elements l, l+4, ...), reduced as (l0 + l2) + (l1 + l3), then
//                  the last size % 4 elements added one by one.
#pragma once

#include <cstdint>

namespace qrt {

// One to three spatial axes, outermost first.
struct AveragePoolGeometry {
  int rank = 2;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad_begin[3] = {0, 0, 0};
  int64_t pad_end[3] = {0, 0, 0};
  // Divide by the window's taps inside the padded input, else by those inside the input.
  bool include_pad = false;
};

// Whether ORT's MLAS takes the columns-first order for this geometry.
bool AveragePoolColumnsFirstApplies(const AveragePoolGeometry& g);

// Every plane of x ([planes, in...]) pooled into y ([planes, out...]) in the columns-first
// order. Allocates only its per-thread row buffer.
void AveragePoolColumnsFirst(const AveragePoolGeometry& g, int64_t planes, const float* x, float* y);

// Each plane of `size` elements averaged in the global order.
void AveragePoolGlobal(int64_t planes, int64_t size, const float* x, float* y);

}  // namespace qrt
