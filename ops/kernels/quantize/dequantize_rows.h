// Rows of 8-bit codes to floats as DequantizeLinear computes them, x = (float(q) - float(zp)) *
// scale, written where a convolution's padded planes want them (conv_float.cc): the row as it
// is, or split into its even and odd elements (stride 2, as SplitPairs in deinterleave.h). The
// same floats as DequantizeLinear's kernels, dequantized on the way into the planes instead of
// in a pass of their own.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"
#include "runtime/dtype.h"

namespace qrt {

using DequantizeRowFn = void (*)(int64_t n, const void* codes, float scale, int32_t zp, float* out);
using DequantizePairsFn = void (*)(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd);

struct DequantizeRowKernels {
  DequantizeRowFn row = nullptr;
  DequantizePairsFn pairs = nullptr;
};

namespace ref {
void DequantizePairsU8(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd);
void DequantizePairsS8(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd);
}  // namespace ref

namespace avx512 {  // AVX512BW (byte masks) too
void DequantizeRowU8(int64_t n, const void* codes, float scale, int32_t zp, float* out);
void DequantizeRowS8(int64_t n, const void* codes, float scale, int32_t zp, float* out);
void DequantizePairsU8(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd);
void DequantizePairsS8(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd);
}  // namespace avx512

// For uint8 and int8 codes; Isa::kAvx2 picks the AVX-512 kernels where the CPU has AVX512BW
// (and VBMI, the set qrt's byte kernels check), else DequantizeLinear's AVX2 kernel for rows.
DequantizeRowKernels SelectDequantizeRows(DataType q, Isa isa);

}  // namespace qrt
