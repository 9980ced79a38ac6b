// The kernel choice for sigmoid_tanh.h: once, when a graph is compiled.
#include "ops/kernels/eltwise/sigmoid_tanh.h"
#include "runtime/kernel_isa.h"

namespace qrt {

FloatMapFn SelectSigmoid(Isa isa) { return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::Sigmoid) : ref::Sigmoid; }

FloatMapFn SelectTanh(Isa isa) { return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::Tanh) : ref::Tanh; }

}  // namespace qrt
