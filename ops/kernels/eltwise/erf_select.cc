// The kernel choice for erf.h: once, when a graph is compiled.
#include "ops/kernels/eltwise/erf.h"

namespace qrt {

FloatMapFn SelectErf(Isa isa) { return isa == Isa::kAvx2 ? avx2::Erf : ref::Erf; }

FloatMapFn SelectGeluErf(Isa isa) { return isa == Isa::kAvx2 ? avx2::GeluErf : ref::GeluErf; }

}  // namespace qrt
