// The kernel choice for lookup_table.h: once, when a graph is compiled.
#include "ops/kernels/eltwise/lookup_table.h"
#include "runtime/kernel_isa.h"

namespace qrt {

LookupTableFn SelectLookupTable(Isa isa) {
  if (CanUseAvx512Vbmi(isa)) return PickedAt(Isa::kAvx512, avx512::LookupTable);
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::LookupTable) : ref::LookupTable;
}

}  // namespace qrt
