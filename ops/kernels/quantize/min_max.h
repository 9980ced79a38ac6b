// The range DynamicQuantizeLinear quantizes over: lo = min(0, min(x)), hi = max(0, max(x)),
// NaN elements taking no part. The result does not depend on the order of the comparisons:
// both start at +0 and only a strictly smaller (larger) value replaces them, so -0 never enters
// and NaN never compares.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using RangeWithZeroFn = void (*)(int64_t n, const float* x, float* lo, float* hi);

namespace ref {
void RangeWithZero(int64_t n, const float* x, float* lo, float* hi);
}
namespace avx2 {  // bit-identical to ref::RangeWithZero
void RangeWithZero(int64_t n, const float* x, float* lo, float* hi);
}

RangeWithZeroFn SelectRangeWithZero(Isa isa);

}  // namespace qrt
