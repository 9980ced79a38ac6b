// The kernel choice for better_than.h: once, when a graph is compiled.
#include "ops/kernels/select/better_than.h"
#include "runtime/kernel_isa.h"

namespace qrt {

BetterThanFn SelectBetterThan(Isa isa) {
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::BetterThan) : ref::BetterThan;
}

}  // namespace qrt
