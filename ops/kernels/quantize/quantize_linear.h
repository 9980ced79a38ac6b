// ONNX QuantizeLinear / DequantizeLinear run kernels for float32 data and one scale and
// zero point per contiguous run (per-tensor, or one channel of a per-axis layout).
//   quantize:   y = saturate(rint(x / scale) + zp)   one f32 division, ties to even,
//               rounding before the zero point; NaN gives the type's lowest code, as in
//               ONNX Runtime (its clamp's MAXPS takes the bound when x / scale is NaN).
//   dequantize: y = (float(x) - float(zp)) * scale   f32 ops.
//   quantize-dequantize (8-bit, the fused pair): y = dequantize(quantize(x)) with the same
//               scale and zero point, float to float, without the 8-bit tensor in between.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"
#include "runtime/dtype.h"

namespace qrt {

using QuantizeF32Fn = void (*)(int64_t n, const float* x, float scale, int32_t zp, void* y);
using DequantizeToF32Fn = void (*)(int64_t n, const void* x, float scale, int32_t zp, float* y);
using QuantizeDequantizeF32Fn = void (*)(int64_t n, const float* x, float scale, int32_t zp, float* y);

namespace ref {
void QuantizeF32ToU8(int64_t n, const float* x, float scale, int32_t zp, void* y);
void QuantizeF32ToS8(int64_t n, const float* x, float scale, int32_t zp, void* y);
void QuantizeF32ToU16(int64_t n, const float* x, float scale, int32_t zp, void* y);
void QuantizeF32ToS16(int64_t n, const float* x, float scale, int32_t zp, void* y);
void DequantizeU8ToF32(int64_t n, const void* x, float scale, int32_t zp, float* y);
void DequantizeS8ToF32(int64_t n, const void* x, float scale, int32_t zp, float* y);
void DequantizeU16ToF32(int64_t n, const void* x, float scale, int32_t zp, float* y);
void DequantizeS16ToF32(int64_t n, const void* x, float scale, int32_t zp, float* y);
void QuantizeDequantizeU8(int64_t n, const float* x, float scale, int32_t zp, float* y);
void QuantizeDequantizeS8(int64_t n, const float* x, float scale, int32_t zp, float* y);
}  // namespace ref

namespace avx2 {  // bit-identical to the ref:: kernels of the same name
void QuantizeF32ToU8(int64_t n, const float* x, float scale, int32_t zp, void* y);
void QuantizeF32ToS8(int64_t n, const float* x, float scale, int32_t zp, void* y);
void DequantizeU8ToF32(int64_t n, const void* x, float scale, int32_t zp, float* y);
void DequantizeS8ToF32(int64_t n, const void* x, float scale, int32_t zp, float* y);
void QuantizeDequantizeU8(int64_t n, const float* x, float scale, int32_t zp, float* y);
void QuantizeDequantizeS8(int64_t n, const float* x, float scale, int32_t zp, float* y);
}  // namespace avx2

namespace avx512 {  // bit-identical to the ref:: kernels of the same name
void QuantizeF32ToU8(int64_t n, const float* x, float scale, int32_t zp, void* y);
void QuantizeF32ToS8(int64_t n, const float* x, float scale, int32_t zp, void* y);
void QuantizeDequantizeU8(int64_t n, const float* x, float scale, int32_t zp, float* y);
void QuantizeDequantizeS8(int64_t n, const float* x, float scale, int32_t zp, float* y);
}  // namespace avx512

// The kernel for the quantized type (int8, uint8, int16, uint16) on `isa`; nullptr for
// other types. Isa::kScalar gives the reference kernels; Isa::kAvx2 the AVX-512 quantizers
// where the CPU has AVX-512F (same results, faster).
QuantizeF32Fn SelectQuantizeF32(DataType q, Isa isa);
DequantizeToF32Fn SelectDequantizeToF32(DataType q, Isa isa);
// For int8 and uint8; nullptr for other types.
QuantizeDequantizeF32Fn SelectQuantizeDequantizeF32(DataType q, Isa isa);

}  // namespace qrt
