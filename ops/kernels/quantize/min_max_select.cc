// The kernel choice for min_max.h: once, when a graph is compiled.
#include "ops/kernels/quantize/min_max.h"
#include "runtime/kernel_isa.h"

namespace qrt {

RangeWithZeroFn SelectRangeWithZero(Isa isa) {
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::RangeWithZero) : ref::RangeWithZero;
}

}  // namespace qrt
