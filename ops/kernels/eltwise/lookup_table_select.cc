// The kernel choice for lookup_table.h: once, when a graph is compiled.
#include "ops/kernels/eltwise/lookup_table.h"

namespace qrt {

LookupTableFn SelectLookupTable(Isa isa) {
  return isa == Isa::kAvx2 && DetectCpuFeatures().avx512bw_vbmi ? avx512::LookupTable : ref::LookupTable;
}

}  // namespace qrt
