// The kernel choice for softmax.h: once, when a graph is compiled.
#include "ops/kernels/eltwise/softmax.h"
#include "runtime/kernel_isa.h"
#include "runtime/ort_cpu.h"

namespace qrt {

bool MlasSoftmaxHas16Lanes() { return ReferenceOrtCpu() == OrtCpu::kAvx512F; }

SoftmaxRowFn SelectSoftmaxRow(Isa isa) {
  if (MlasSoftmaxHas16Lanes()) {
    if (CanUseAvx512(isa)) return PickedAt(Isa::kAvx512, avx512::SoftmaxRow16);
    return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::SoftmaxRow16) : ref::SoftmaxRow16;
  }
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::SoftmaxRow) : ref::SoftmaxRow;
}

SoftmaxSumExpFn SelectSoftmaxSumExp(Isa isa) {
  if (MlasSoftmaxHas16Lanes()) {
    if (CanUseAvx512(isa)) return PickedAt(Isa::kAvx512, avx512::SoftmaxSumExp16);
    return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::SoftmaxSumExp16) : ref::SoftmaxSumExp16;
  }
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::SoftmaxSumExp) : ref::SoftmaxSumExp;
}

SoftmaxRowFn SelectLogSoftmaxRow(Isa) { return MlasSoftmaxHas16Lanes() ? ref::LogSoftmaxRow16 : ref::LogSoftmaxRow; }

}  // namespace qrt
