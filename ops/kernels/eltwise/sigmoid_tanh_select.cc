// The kernel choice for sigmoid_tanh.h: once, when a graph is compiled.
#include "ops/kernels/eltwise/sigmoid_tanh.h"

namespace qrt {

FloatMapFn SelectSigmoid(Isa isa) { return isa == Isa::kAvx2 ? avx2::Sigmoid : ref::Sigmoid; }

FloatMapFn SelectTanh(Isa isa) { return isa == Isa::kAvx2 ? avx2::Tanh : ref::Tanh; }

}  // namespace qrt
