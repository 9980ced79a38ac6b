// The kernel choice for softmax.h: once, when a graph is compiled.
#include "ops/kernels/eltwise/softmax.h"
#include "runtime/kernel_isa.h"

namespace qrt {

SoftmaxRowFn SelectSoftmaxRow(Isa isa) {
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::SoftmaxRow) : ref::SoftmaxRow;
}

}  // namespace qrt
