// The kernel choice for max_rows.h: once, when a graph is compiled.
#include "ops/kernels/pool/max_rows.h"

namespace qrt {

MaxRowsFn SelectMaxRows(Isa isa) {
  if (isa != Isa::kAvx2) return ref::MaxRows;
  return DetectCpuFeatures().avx512f ? avx512::MaxRows : avx2::MaxRows;
}

}  // namespace qrt
