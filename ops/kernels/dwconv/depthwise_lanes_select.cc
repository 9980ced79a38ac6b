#include "ops/kernels/dwconv/depthwise_lanes.h"
#include "runtime/kernel_isa.h"

namespace qrt {

DepthwiseLanesFn SelectDepthwiseLanes(Isa isa) {
  return CanUseAvx512(isa) ? PickedAt(Isa::kAvx512, avx512::DepthwiseLanes) : nullptr;
}

}  // namespace qrt
