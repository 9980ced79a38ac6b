#include "ops/kernels/dwconv/depthwise_lanes.h"

namespace qrt {

DepthwiseLanesFn SelectDepthwiseLanes(Isa isa) {
  return isa == Isa::kAvx2 && DetectCpuFeatures().avx512f ? avx512::DepthwiseLanes : nullptr;
}

}  // namespace qrt
