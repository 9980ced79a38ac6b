// The kernel choice for lookup_table.h: once, when a graph is compiled.
#include "ops/kernels/eltwise/lookup_table.h"
#include "runtime/kernel_isa.h"

namespace qrt {

LookupTableFn SelectLookupTable(Isa isa) {
  return CanUseAvx512Vbmi(isa) ? PickedAt(Isa::kAvx512, avx512::LookupTable) : ref::LookupTable;
}

}  // namespace qrt
