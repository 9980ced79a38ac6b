// Cast between two qrt dtypes (not the 4-bit ones), element by element. The semantics, shared
// by both kernels: float -> integer truncates toward zero and saturates at the target's limits
// (NaN gives 0); integer -> integer keeps the low bits (two's complement); integer -> float
// rounds once to nearest even (uint64 by its unsigned value); float -> float16, bfloat16 and
// the 8-bit floats round to nearest even through float32 (`saturate` for the 8-bit floats,
// opset 19); anything -> bool is `!= 0`.
#pragma once

#include <cstdint>

#include "runtime/dtype.h"

namespace qrt {

using CastFn = void (*)(const void* x, void* y, int64_t n, bool saturate);

namespace ref {
// The reference: each element read as the widest exact value, then written, through a
// switch on both dtypes per element.
void CastElements(DataType from, DataType to, const void* x, void* y, int64_t n, bool saturate);
}  // namespace ref

// A loop compiled for this pair of dtypes (vectorized by the compiler where the pair allows),
// bit-identical to ref::CastElements; null for a pair with a 4-bit or undefined type.
CastFn SelectCast(DataType from, DataType to);

}  // namespace qrt
