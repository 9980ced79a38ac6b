#include "runtime/cpu_features.h"

#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace qrt {
namespace {

CpuFeatures Detect(Isa ceiling) {
  CpuFeatures f;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  const bool osxsave = (c >> 27) & 1;
  const bool fma = (c >> 12) & 1;
  const bool avx = (c >> 28) & 1;
  if (!osxsave || !avx || !fma) return f;
  unsigned xcr0_lo, xcr0_hi;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6) != 0x6) return f;  // XMM and YMM state saved by the OS
  if (__get_cpuid_max(0, nullptr) < 7) return f;
  __cpuid_count(7, 0, a, b, c, d);
  const unsigned leaf7_b = b, leaf7_c = c;
  __cpuid_count(7, 1, a, b, c, d);
  const unsigned leaf7_1_a = a;
  f.avx2 = ((leaf7_b >> 5) & 1) && ceiling >= Isa::kAvx2;
  f.avx_vnni = f.avx2 && ((leaf7_1_a >> 4) & 1) && ceiling >= Isa::kAvx2Vnni;
  const bool zmm_state = (xcr0_lo & 0xE0) == 0xE0;  // opmask, ZMM0-15 upper halves, ZMM16-31
  const bool f_bw_dq_vl =
      ((leaf7_b >> 16) & 1) && ((leaf7_b >> 30) & 1) && ((leaf7_b >> 17) & 1) && ((leaf7_b >> 31) & 1);
  f.avx512 = f.avx2 && f_bw_dq_vl && zmm_state && ceiling >= Isa::kAvx512;
  f.avx512_vbmi = f.avx512 && ((leaf7_c >> 1) & 1);
  f.avx512_vnni = f.avx512 && ((leaf7_c >> 11) & 1) && ceiling >= Isa::kAvx512Vnni;
#endif
  return f;
}

}  // namespace

std::optional<Isa> IsaFromName(std::string_view s) {
  if (s == "auto") return kIsaAuto;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx2Vnni, Isa::kAvx512, Isa::kAvx512Vnni}) {
    if (s == IsaName(isa)) return isa;
  }
  return std::nullopt;
}

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return "scalar";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx2Vnni:
      return "avx2-vnni";
    case Isa::kAvx512:
      return "avx512";
    case Isa::kAvx512Vnni:
      return "avx512-vnni";
  }
  return "scalar";
}

Isa IsaCeilingFromEnvironment() {
  const char* v = std::getenv("QRT_MAX_ISA");
  if (v == nullptr) return kIsaAuto;
  return IsaFromName(v).value_or(kIsaAuto);
}

const CpuFeatures& DetectCpuFeatures() {
  static const CpuFeatures features = Detect(IsaCeilingFromEnvironment());
  return features;
}

const CpuFeatures& DetectCpuFeaturesUncapped() {
  static const CpuFeatures features = Detect(Isa::kAvx512Vnni);
  return features;
}

bool CpuHasTier(Isa tier) {
  const CpuFeatures& f = DetectCpuFeatures();
  switch (tier) {
    case Isa::kScalar:
      return true;
    case Isa::kAvx2:
      return f.avx2;
    case Isa::kAvx2Vnni:
      return f.avx_vnni;
    case Isa::kAvx512:
      return f.avx512;
    case Isa::kAvx512Vnni:
      return f.avx512_vnni;
  }
  return false;
}

std::vector<Isa> TiersThisCpuHas() {
  std::vector<Isa> tiers;
  for (Isa t : {Isa::kScalar, Isa::kAvx2, Isa::kAvx2Vnni, Isa::kAvx512, Isa::kAvx512Vnni}) {
    if (CpuHasTier(t)) tiers.push_back(t);
  }
  return tiers;
}

Isa EffectiveIsa(Isa max_isa) {
  for (int t = int(max_isa); t > 0; --t) {
    if (CpuHasTier(Isa(t))) return Isa(t);
  }
  return Isa::kScalar;
}

bool CanUseAvx2(Isa isa) { return isa >= Isa::kAvx2 && DetectCpuFeatures().avx2; }
bool CanUseAvxVnni(Isa isa) { return isa >= Isa::kAvx2Vnni && DetectCpuFeatures().avx_vnni; }
bool CanUseAvx512(Isa isa) { return isa >= Isa::kAvx512 && DetectCpuFeatures().avx512; }
bool CanUseAvx512Vbmi(Isa isa) { return isa >= Isa::kAvx512 && DetectCpuFeatures().avx512_vbmi; }
bool CanUseAvx512Vnni(Isa isa) { return isa >= Isa::kAvx512Vnni && DetectCpuFeatures().avx512_vnni; }

}  // namespace qrt
