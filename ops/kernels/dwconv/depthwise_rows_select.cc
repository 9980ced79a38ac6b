#include "ops/kernels/dwconv/depthwise_rows.h"

namespace qrt {

DepthwiseRowsFn SelectDepthwiseRows(Isa isa) {
  return isa == Isa::kAvx2 && DetectCpuFeatures().avx512bw_vbmi ? avx512::DepthwiseRows : nullptr;
}

}  // namespace qrt
