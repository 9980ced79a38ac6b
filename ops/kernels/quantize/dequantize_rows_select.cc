// The kernel choice for dequantize_rows.h: once, when a graph is compiled.
#include "ops/kernels/quantize/dequantize_rows.h"
#include "ops/kernels/quantize/quantize_linear.h"
#include "runtime/kernel_isa.h"

namespace qrt {

DequantizeRowKernels SelectDequantizeRows(DataType q, Isa isa) {
  const bool is_signed = q == DataType::kInt8;
  if (q != DataType::kInt8 && q != DataType::kUInt8) return {};
  if (CanUseAvx512Vbmi(isa)) {
    return is_signed ? DequantizeRowKernels{PickedAt(Isa::kAvx512, avx512::DequantizeRowS8),
                                            PickedAt(Isa::kAvx512, avx512::DequantizePairsS8)}
                     : DequantizeRowKernels{PickedAt(Isa::kAvx512, avx512::DequantizeRowU8),
                                            PickedAt(Isa::kAvx512, avx512::DequantizePairsU8)};
  }
  return DequantizeRowKernels{SelectDequantizeToF32(q, isa),
                              is_signed ? ref::DequantizePairsS8 : ref::DequantizePairsU8};
}

}  // namespace qrt
