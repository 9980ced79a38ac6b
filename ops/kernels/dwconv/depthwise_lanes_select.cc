#include "ops/kernels/dwconv/depthwise_lanes.h"
#include "runtime/kernel_isa.h"

namespace qrt {

DepthwiseLanesFn SelectDepthwiseLanes(Isa isa) {
  if (CanUseAvx512(isa)) return PickedAt(Isa::kAvx512, avx512::DepthwiseLanes);
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::DepthwiseLanes) : nullptr;
}

}  // namespace qrt
