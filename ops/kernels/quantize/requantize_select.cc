// The kernel choice for requantize.h: once, when a graph is compiled.
#include "ops/kernels/quantize/requantize.h"
#include "runtime/kernel_isa.h"

namespace qrt {

RequantizeRowFn SelectRequantizeRowKernel(DataType y, Isa isa) {
  if (CanUseAvx2(isa)) {
    if (RequantizeRowFn f = PickedAt(Isa::kAvx2, avx2::RequantizeRowKernel(y))) return f;
  }
  return ref::RequantizeRowKernel(y);
}

}  // namespace qrt
