#include "runtime/cpu_features.h"

#include <cstdlib>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace qrt {
namespace {

CpuFeatures Detect() {
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
  const IsaCeiling ceiling = IsaCeilingFromEnvironment();
  f.avx2 = ((b >> 5) & 1) && ceiling >= IsaCeiling::kAvx2;
  const bool zmm_state = (xcr0_lo & 0xE0) == 0xE0;  // opmask, ZMM0-15 upper halves, ZMM16-31
  f.avx512f = f.avx2 && ((b >> 16) & 1) && zmm_state && ceiling >= IsaCeiling::kAvx512;
  f.avx512bw_vbmi = f.avx512f && ((b >> 30) & 1) && ((c >> 1) & 1);
  f.avx512_vnni = f.avx512f && ((b >> 30) & 1) && ((b >> 17) & 1) && ((c >> 11) & 1);
#endif
  return f;
}

}  // namespace

IsaCeiling IsaCeilingFromEnvironment() {
  const char* v = std::getenv("QRT_MAX_ISA");
  if (v == nullptr) return IsaCeiling::kAvx512;
  const std::string_view s(v);
  if (s == "scalar") return IsaCeiling::kScalar;
  if (s == "avx2") return IsaCeiling::kAvx2;
  return IsaCeiling::kAvx512;
}

const CpuFeatures& DetectCpuFeatures() {
  static const CpuFeatures features = Detect();
  return features;
}

Isa EffectiveIsa(Isa max_isa) {
  if (max_isa >= Isa::kAvx2 && DetectCpuFeatures().avx2) return Isa::kAvx2;
  return Isa::kScalar;
}

std::string_view IsaName(Isa isa) {
  switch (isa) {
    case Isa::kScalar:
      return "scalar";
    case Isa::kAvx2:
      return "avx2";
  }
  return "scalar";
}

}  // namespace qrt
