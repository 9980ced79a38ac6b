#include "ops/kernels/quantize/quantize_linear.h"
#include "runtime/kernel_isa.h"

namespace qrt {

QuantizeF32Fn SelectQuantizeF32(DataType q, Isa isa) {
  const bool avx2 = CanUseAvx2(isa), avx512 = CanUseAvx512(isa);
  switch (q) {
    case DataType::kUInt8:
      return avx512 ? PickedAt(Isa::kAvx512, avx512::QuantizeF32ToU8)
             : avx2 ? PickedAt(Isa::kAvx2, avx2::QuantizeF32ToU8)
                    : ref::QuantizeF32ToU8;
    case DataType::kInt8:
      return avx512 ? PickedAt(Isa::kAvx512, avx512::QuantizeF32ToS8)
             : avx2 ? PickedAt(Isa::kAvx2, avx2::QuantizeF32ToS8)
                    : ref::QuantizeF32ToS8;
    case DataType::kUInt16:
      return ref::QuantizeF32ToU16;
    case DataType::kInt16:
      return ref::QuantizeF32ToS16;
    default:
      return nullptr;
  }
}

QuantizeDequantizeF32Fn SelectQuantizeDequantizeF32(DataType q, Isa isa) {
  const bool avx2 = CanUseAvx2(isa), avx512 = CanUseAvx512(isa);
  switch (q) {
    case DataType::kUInt8:
      return avx512 ? PickedAt(Isa::kAvx512, avx512::QuantizeDequantizeU8)
             : avx2 ? PickedAt(Isa::kAvx2, avx2::QuantizeDequantizeU8)
                    : ref::QuantizeDequantizeU8;
    case DataType::kInt8:
      return avx512 ? PickedAt(Isa::kAvx512, avx512::QuantizeDequantizeS8)
             : avx2 ? PickedAt(Isa::kAvx2, avx2::QuantizeDequantizeS8)
                    : ref::QuantizeDequantizeS8;
    default:
      return nullptr;
  }
}

DequantizeToF32Fn SelectDequantizeToF32(DataType q, Isa isa) {
  const bool avx2 = CanUseAvx2(isa);
  switch (q) {
    case DataType::kUInt8:
      return avx2 ? PickedAt(Isa::kAvx2, avx2::DequantizeU8ToF32) : ref::DequantizeU8ToF32;
    case DataType::kInt8:
      return avx2 ? PickedAt(Isa::kAvx2, avx2::DequantizeS8ToF32) : ref::DequantizeS8ToF32;
    case DataType::kUInt16:
      return ref::DequantizeU16ToF32;
    case DataType::kInt16:
      return ref::DequantizeS16ToF32;
    default:
      return nullptr;
  }
}

}  // namespace qrt
