#include "ops/kernels/dequantize_rows.h"

#include "ops/kernels/quantize_linear.h"

namespace qrt {
namespace ref {
namespace {

template <class T>
void Pairs(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd) {
  const T* q = static_cast<const T*>(codes);
  const float z = float(zp);
  for (int64_t i = 0; i < pairs; ++i) {
    even[i] = (float(q[2 * i]) - z) * scale;
    odd[i] = (float(q[2 * i + 1]) - z) * scale;
  }
}

}  // namespace

void DequantizePairsU8(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd) {
  Pairs<uint8_t>(pairs, codes, scale, zp, even, odd);
}
void DequantizePairsS8(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd) {
  Pairs<int8_t>(pairs, codes, scale, zp, even, odd);
}

}  // namespace ref

DequantizeRowKernels SelectDequantizeRows(DataType q, Isa isa) {
  const bool is_signed = q == DataType::kInt8;
  if (q != DataType::kInt8 && q != DataType::kUInt8) return {};
  if (isa == Isa::kAvx2 && DetectCpuFeatures().avx512bw_vbmi) {
    return is_signed ? DequantizeRowKernels{avx512::DequantizeRowS8, avx512::DequantizePairsS8}
                     : DequantizeRowKernels{avx512::DequantizeRowU8, avx512::DequantizePairsU8};
  }
  return DequantizeRowKernels{SelectDequantizeToF32(q, isa), is_signed ? ref::DequantizePairsS8 : ref::DequantizePairsU8};
}

}  // namespace qrt
