// The kernel choice for sgemm.h: once, when a graph is compiled.
#include "ops/kernels/gemm/sgemm.h"
#include "runtime/kernel_isa.h"

namespace qrt {

SgemmFn SelectSgemmKernel(Isa isa) {
  if (!CanUseAvx2(isa)) return ref::Sgemm;
  return CanUseAvx512(isa) ? PickedAt(Isa::kAvx512, avx512::Sgemm) : PickedAt(Isa::kAvx2, avx2::Sgemm);
}

SgemmOneRowFn SelectSgemmOneRowKernel(Isa isa) {
  if (!CanUseAvx2(isa)) return ref::SgemmOneRow;
  return CanUseAvx512(isa) ? PickedAt(Isa::kAvx512, avx512::SgemmOneRow) : PickedAt(Isa::kAvx2, avx2::SgemmOneRow);
}

}  // namespace qrt
