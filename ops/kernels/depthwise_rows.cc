#include "ops/kernels/depthwise_rows.h"

namespace qrt {

int64_t DepthwiseRowsRingFloats(int64_t out_w, int64_t stride) {
  const int64_t phase_width = (out_w + 15) / 16 * 16 + 16;
  return 8 * stride * phase_width;
}

DepthwiseRowsFn SelectDepthwiseRows(Isa isa) {
  return isa == Isa::kAvx2 && DetectCpuFeatures().avx512bw_vbmi ? avx512::DepthwiseRows : nullptr;
}

}  // namespace qrt
