// The kernel choice for rotary.h: once, when a graph is compiled.
#include "ops/kernels/rope/rotary.h"
#include "runtime/kernel_isa.h"

namespace qrt {

RotaryRowFn SelectRotaryRow(Isa isa) {
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::RotaryRow) : ref::RotaryRow;
}

}  // namespace qrt
