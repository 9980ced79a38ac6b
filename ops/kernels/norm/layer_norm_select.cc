// The kernel choice for layer_norm.h: once, when a graph is compiled.
#include "ops/kernels/norm/layer_norm.h"
#include "runtime/kernel_isa.h"

namespace qrt {

LayerNormRowFn SelectLayerNormRow(Isa isa, int64_t n) {
  if (n < ref::kLayerNormMinRow) return ref::LayerNormShortRow;
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::LayerNormRow) : ref::LayerNormRow;
}

LayerNormRowsFn SelectLayerNormShortRows(Isa isa) {
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::LayerNormShortRows) : ref::LayerNormShortRows;
}

}  // namespace qrt
