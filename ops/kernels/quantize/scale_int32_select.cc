// The kernel choice for scale_int32.h: once, when a graph is compiled.
#include "ops/kernels/quantize/scale_int32.h"
#include "runtime/kernel_isa.h"

namespace qrt {

ScaleInt32RowFn SelectScaleInt32Row(Isa isa) {
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::ScaleInt32Row) : ref::ScaleInt32Row;
}

}  // namespace qrt
