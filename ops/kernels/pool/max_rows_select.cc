// The kernel choice for max_rows.h: once, when a graph is compiled.
#include "ops/kernels/pool/max_rows.h"
#include "runtime/kernel_isa.h"

namespace qrt {

MaxRowsFn SelectMaxRows(Isa isa) {
  if (!CanUseAvx2(isa)) return ref::MaxRows;
  return CanUseAvx512(isa) ? PickedAt(Isa::kAvx512, avx512::MaxRows) : PickedAt(Isa::kAvx2, avx2::MaxRows);
}

MaxRowsBytesFn SelectMaxRowsBytes(Isa isa) {
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::MaxRowsBytes) : ref::MaxRowsBytes;
}

}  // namespace qrt
