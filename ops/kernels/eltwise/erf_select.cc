// The kernel choice for erf.h: once, when a graph is compiled.
#include "ops/kernels/eltwise/erf.h"
#include "runtime/kernel_isa.h"

namespace qrt {

FloatMapFn SelectErf(Isa isa) { return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::Erf) : ref::Erf; }

FloatMapFn SelectGeluErf(Isa isa) { return CanUseAvx2(isa) ? PickedAt(Isa::kAvx2, avx2::GeluErf) : ref::GeluErf; }

}  // namespace qrt
