#include "ops/kernels/dwconv/depthwise_rows.h"
#include "runtime/kernel_isa.h"

namespace qrt {

DepthwiseRowsFn SelectDepthwiseRows(Isa isa) {
  if (CanUseAvx512Vbmi(isa)) return PickedAt(Isa::kAvx512, avx512::DepthwiseRows);
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::DepthwiseRows) : nullptr;
}

}  // namespace qrt
