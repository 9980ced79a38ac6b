// The running maximum of MaxPool over rows of taps: y[j] = the largest of rows[0][j], ...,
// rows[k-1][j], taken in tap order with MaxPool's rule (pool.cc): the first tap starts it; a
// later value replaces it when greater, or when it is NaN and the current one is not. So on
// ties the first stays (which keeps -0 before +0 as found), and the first NaN wins.
// MaxPool over a -inf padded plane runs one call per output row (stride 1 along the row).
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using MaxRowsFn = void (*)(int64_t k, const float* const* rows, int64_t n, float* y);

namespace ref {
void MaxRows(int64_t k, const float* const* rows, int64_t n, float* y);
}
namespace avx2 {
void MaxRows(int64_t k, const float* const* rows, int64_t n, float* y);  // bit-identical to ref::
}
namespace avx512 {
void MaxRows(int64_t k, const float* const* rows, int64_t n, float* y);  // bit-identical to ref::
}

// Isa::kAvx2 picks the AVX-512F kernel where the CPU has it.
MaxRowsFn SelectMaxRows(Isa isa);

// The same over 8-bit codes (uint8, or int8 with is_signed): the largest of the rows' bytes
// (integers: no NaN, and a tie keeps the same value). Each row may be read up to 31 bytes past n
// (the caller's buffer holds them; the values there are not used).
using MaxRowsBytesFn = void (*)(int64_t k, const uint8_t* const* rows, int64_t n, bool is_signed, uint8_t* y);
namespace ref {
void MaxRowsBytes(int64_t k, const uint8_t* const* rows, int64_t n, bool is_signed, uint8_t* y);
}
namespace avx2 {
void MaxRowsBytes(int64_t k, const uint8_t* const* rows, int64_t n, bool is_signed, uint8_t* y);  // 32 bytes a step
}
MaxRowsBytesFn SelectMaxRowsBytes(Isa isa);

}  // namespace qrt
