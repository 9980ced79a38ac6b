// The kernel choice for sgemm.h: once, when a graph is compiled.
#include "ops/kernels/gemm/sgemm.h"

namespace qrt {

SgemmFn SelectSgemmKernel(Isa isa) {
  if (isa != Isa::kAvx2) return ref::Sgemm;
  return DetectCpuFeatures().avx512f ? avx512::Sgemm : avx2::Sgemm;
}

SgemmOneRowFn SelectSgemmOneRowKernel(Isa isa) {
  if (isa != Isa::kAvx2) return ref::SgemmOneRow;
  return DetectCpuFeatures().avx512f ? avx512::SgemmOneRow : avx2::SgemmOneRow;
}

}  // namespace qrt
