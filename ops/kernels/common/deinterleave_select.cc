// The kernel choice for deinterleave.h: once, when a graph is compiled.
#include "ops/kernels/common/deinterleave.h"

namespace qrt {

SplitPairsFn SelectSplitPairs(Isa isa) {
  if (isa != Isa::kAvx2) return ref::SplitPairs;
  return DetectCpuFeatures().avx512f ? avx512::SplitPairs : avx2::SplitPairs;
}

}  // namespace qrt
