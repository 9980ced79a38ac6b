// The kernel choice for gather_elements_row.h: once, when a graph is compiled.
#include "ops/kernels/gather/gather_elements_row.h"
#include "runtime/kernel_isa.h"

namespace qrt {

GatherRow32Fn SelectGatherRow32(Isa isa) {
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::GatherRow32) : ref::GatherRow32;
}

}  // namespace qrt
