#include "ops/kernels/dwconv/depthwise_rows.h"
#include "runtime/kernel_isa.h"

namespace qrt {

DepthwiseRowsFn SelectDepthwiseRows(Isa isa) {
  return CanUseAvx512Vbmi(isa) ? PickedAt(Isa::kAvx512, avx512::DepthwiseRows) : nullptr;
}

}  // namespace qrt
