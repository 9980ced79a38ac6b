// The kernel choice for requantize.h: once, when a graph is compiled.
#include "ops/kernels/quantize/requantize.h"

namespace qrt {

RequantizeRowFn SelectRequantizeRowKernel(DataType y, Isa isa) {
  if (isa >= Isa::kAvx2 && DetectCpuFeatures().avx2) {
    if (RequantizeRowFn f = avx2::RequantizeRowKernel(y)) return f;
  }
  return ref::RequantizeRowKernel(y);
}

}  // namespace qrt
