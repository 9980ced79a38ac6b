// The kernel choice for softmax.h: once, when a graph is compiled.
#include "ops/kernels/eltwise/softmax.h"

namespace qrt {

SoftmaxRowFn SelectSoftmaxRow(Isa isa) { return isa == Isa::kAvx2 ? avx2::SoftmaxRow : ref::SoftmaxRow; }

}  // namespace qrt
