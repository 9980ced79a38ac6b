// The kernel choice for deinterleave.h: once, when a graph is compiled.
#include "ops/kernels/common/deinterleave.h"
#include "runtime/kernel_isa.h"

namespace qrt {

SplitPairsFn SelectSplitPairs(Isa isa) {
  if (!CanUseAvx2(isa)) return ref::SplitPairs;
  return CanUseAvx512(isa) ? PickedAt(Isa::kAvx512, avx512::SplitPairs) : PickedAt(Isa::kAvx2, avx2::SplitPairs);
}

}  // namespace qrt
