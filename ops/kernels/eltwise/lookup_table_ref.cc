// Reference LookupTable kernel (the specification) and the kernel choice.
#include "ops/kernels/eltwise/lookup_table.h"

namespace qrt {
namespace ref {

void LookupTable(int64_t n, const uint8_t* x, const uint8_t* table, uint8_t* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

}  // namespace ref

}  // namespace qrt
