// One row of GatherElements on 4-byte elements with int64 indices:
//   out[j] = x[base + k * stride + j * step],  k = idx[j] (+ axis_len when negative)
// (step is 0 when the gathered axis is the row's own axis, else 1). Returns the position of
// the first index outside [-axis_len, axis_len), having written the elements before it, or
// -1. Offsets must fit in int32 (the op checks the data's size).
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using GatherRow32Fn = int64_t (*)(const uint32_t* x, int64_t base, int64_t stride, int64_t step, int64_t axis_len,
                                  const int64_t* idx, int64_t width, uint32_t* out);

namespace ref {
int64_t GatherRow32(const uint32_t* x, int64_t base, int64_t stride, int64_t step, int64_t axis_len, const int64_t* idx,
                    int64_t width, uint32_t* out);
}  // namespace ref
namespace avx2 {  // the same elements as ref:: (VPGATHERQD, four at a time)
int64_t GatherRow32(const uint32_t* x, int64_t base, int64_t stride, int64_t step, int64_t axis_len, const int64_t* idx,
                    int64_t width, uint32_t* out);
}  // namespace avx2

GatherRow32Fn SelectGatherRow32(Isa isa);

}  // namespace qrt
