// Run-time CPU feature detection. Kernels are chosen from this once, at compile time
// of a graph; nothing in qrt assumes an ISA at build time.
#pragma once

#include <string_view>

namespace qrt {

enum class Isa { kScalar = 0, kAvx2 = 1 };

struct CpuFeatures {
  bool avx2 = false;  // AVX2 + FMA + OS support for YMM state
};

// Detected once (CPUID + XGETBV) and cached.
const CpuFeatures& DetectCpuFeatures();

// The best ISA that is both requested (`max_isa`) and available on this CPU.
Isa EffectiveIsa(Isa max_isa);

std::string_view IsaName(Isa isa);
}  // namespace qrt
