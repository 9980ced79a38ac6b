// The kernel choice for float_reduce.h: once, when a graph is compiled.
#include "ops/kernels/reduce/float_reduce.h"
#include "runtime/kernel_isa.h"

namespace qrt {

FloatReduceFn SelectFloatReduce(Isa isa) {
  return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::FloatReduce) : ref::FloatReduce;
}

}  // namespace qrt
