#include "ops/onednn/onednn_util.h"

#include <oneapi/dnnl/dnnl.hpp>

#include "runtime/cpu_features.h"

namespace qrt::onednn {
namespace {

dnnl_cpu_isa_t OnednnCeiling(Isa tier) {
  switch (tier) {
    case Isa::kScalar:  // oneDNN has no scalar code; no model at this tier uses it (UsableUnder)
      return dnnl_cpu_isa_sse41;
    case Isa::kAvx2:
      return dnnl_cpu_isa_avx2;
    case Isa::kAvx2Vnni:
      return dnnl_cpu_isa_avx2_vnni;
    case Isa::kAvx512:
      return dnnl_cpu_isa_avx512_core;
    case Isa::kAvx512Vnni:
      return dnnl_cpu_isa_avx512_core_vnni;
  }
  return dnnl_cpu_isa_sse41;
}

// The cap must be set before oneDNN's first primitive (the C call: a refusal is a status, not
// an exception). It is the tier this CPU has under QRT_MAX_ISA, not the ceiling alone: oneDNN
// 2.6 reports its cap as its effective ISA whatever the CPU has, so an AVX2-only CPU left at
// the default cap would read as AVX-512 VNNI and no primitive would be used below it.
dnnl::engine MakeEngine() {
  dnnl_set_max_cpu_isa(OnednnCeiling(EffectiveIsa(kIsaAuto)));
  return dnnl::engine(dnnl::engine::kind::cpu, 0);
}

Isa TierOf(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_avx2:
      return Isa::kAvx2;
    case dnnl_cpu_isa_avx2_vnni:
      return Isa::kAvx2Vnni;
    case dnnl_cpu_isa_avx512_core:
      return Isa::kAvx512;
    case dnnl_cpu_isa_avx512_core_vnni:
      return Isa::kAvx512Vnni;
    default:  // SSE4.1 or AVX without AVX2: above the scalar tier, below avx2; no tier fits
      return Isa::kAvx512Vnni;
  }
}

}  // namespace

const dnnl::engine& Engine() {
  static const dnnl::engine kEngine = MakeEngine();
  return kEngine;
}

Isa Tier() {
  static const Isa tier = [] {
    Engine();  // the cap first
    return TierOf(dnnl_get_effective_cpu_isa());
  }();
  return tier;
}

bool UsableUnder(Isa isa) { return isa != Isa::kScalar && EffectiveIsa(isa) != Isa::kScalar && Tier() <= isa; }

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(Engine());
  return stream;
}

}  // namespace qrt::onednn
