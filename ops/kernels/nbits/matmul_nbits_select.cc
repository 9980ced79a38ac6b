// The kernel choice for matmul_nbits.h: once, when a graph is compiled.
#include "ops/kernels/nbits/matmul_nbits.h"
#include "runtime/kernel_isa.h"
#include "runtime/ort_cpu.h"

namespace qrt {

NbitsRowFn SelectNbitsRow(Isa isa) {
  if (ReferenceOrtCpu() == OrtCpu::kAvx2) {  // ORT's 8-lane order, whatever qrt runs on
    return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::MatMulNbitsRow8) : ref::MatMulNbitsRow8;
  }
  if (CanUseAvx512(isa)) return PickedAt(Isa::kAvx512, avx512::MatMulNbitsRow);
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::MatMulNbitsRow) : ref::MatMulNbitsRow;
}

NbitsRowsFn SelectNbitsRows(Isa isa) {
  if (CanUseAvx512(isa)) return PickedAt(Isa::kAvx512, avx512::MatMulNbitsRows);
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::MatMulNbitsRows) : ref::MatMulNbitsRows;
}

NbitsInt8Fn SelectNbitsInt8(Isa isa) {
  if (ReferenceOrtCpu() == OrtCpu::kAvx2) {  // ORT's AVX2 order, whatever qrt runs on
    return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::MatMulNbitsInt8Lanes8) : ref::MatMulNbitsInt8Lanes8;
  }
  if (!ReferenceOrtAvx512Vnni()) {  // blocks of 128 and more in ORT's order without AVX512_VNNI
    if (CanUseAvx512Vnni(isa)) return PickedAt(Isa::kAvx512Vnni, avx512vnni::MatMulNbitsInt8NoVnni);
    if (CanUseAvx512(isa)) return PickedAt(Isa::kAvx512, avx512::MatMulNbitsInt8NoVnni);
    return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::MatMulNbitsInt8NoVnni) : ref::MatMulNbitsInt8NoVnni;
  }
  if (CanUseAvx512Vnni(isa)) return PickedAt(Isa::kAvx512Vnni, avx512vnni::MatMulNbitsInt8);
  if (CanUseAvx512(isa)) return PickedAt(Isa::kAvx512, avx512::MatMulNbitsInt8);
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::MatMulNbitsInt8) : ref::MatMulNbitsInt8;
}

}  // namespace qrt
