// The kernel choice for float_reduce.h: once, when a graph is compiled.
#include "ops/kernels/reduce/float_reduce.h"

namespace qrt {

FloatReduceFn SelectFloatReduce(Isa isa) { return isa == Isa::kAvx2 ? avx2::FloatReduce : ref::FloatReduce; }

}  // namespace qrt
