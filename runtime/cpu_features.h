// Run-time CPU feature detection and the ISA tiers. Kernels are chosen from these once, at
// compile time of a graph; nothing in qrt assumes an ISA at build time.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace qrt {

// Instruction-set tiers, in order. Each is a ceiling: a graph compiled for a tier runs no
// instruction above it (oneDNN included), and only what this CPU has below it.
//   kAvx2        AVX2 + FMA
//   kAvx2Vnni    + AVX-VNNI (VEX VPDPBUSD)
//   kAvx512      + AVX-512 F, BW, DQ, VL (and VBMI where the CPU has it)
//   kAvx512Vnni  + AVX512_VNNI
// A CPU can have a tier without the one below it (Cascade Lake: AVX512_VNNI, no AVX-VNNI), so
// each kernel asks for the features it needs (CanUse*), not for a tier number.
enum class Isa { kScalar = 0, kAvx2, kAvx2Vnni, kAvx512, kAvx512Vnni };
inline constexpr Isa kIsaAuto = Isa::kAvx512Vnni;  // "auto": the best this CPU has

// "scalar", "avx2", "avx2-vnni", "avx512", "avx512-vnni", or "auto".
std::optional<Isa> IsaFromName(std::string_view name);
std::string_view IsaName(Isa isa);

// The environment variable QRT_MAX_ISA (a tier name) caps what the CPU is taken to have, for
// the whole process, so that a test suite on an AVX-512 machine runs the paths of a smaller CPU;
// oneDNN is capped alike (ops/onednn/onednn_util.cc). Unset, or not a tier name: no cap.
Isa IsaCeilingFromEnvironment();

struct CpuFeatures {
  bool avx2 = false;         // AVX2 + FMA + OS support for YMM state
  bool avx_vnni = false;     // avx2 plus AVX-VNNI
  bool avx512 = false;       // avx2 plus AVX-512 F, BW, DQ, VL + OS support for ZMM and masks
  bool avx512_vbmi = false;  // avx512 plus AVX512_VBMI (VPERMB)
  bool avx512_vnni = false;  // avx512 plus AVX512_VNNI (VPDPBUSD on ZMM)
};

// Detected once (CPUID + XGETBV), capped by QRT_MAX_ISA, and cached.
const CpuFeatures& DetectCpuFeatures();
// The same without the cap: what the CPU has, as other libraries on it see it (the reference
// CPU of runtime/ort_cpu.h). Kernels are chosen from DetectCpuFeatures, never from this.
const CpuFeatures& DetectCpuFeaturesUncapped();

// Whether this CPU has every feature of `tier`.
bool CpuHasTier(Isa tier);

// The tiers this CPU has (under QRT_MAX_ISA), scalar first: what tests run each kernel at.
std::vector<Isa> TiersThisCpuHas();

// The highest tier at or below `max_isa` that this CPU has: what a graph compiled with the
// ceiling `max_isa` reports.
Isa EffectiveIsa(Isa max_isa);

// What a kernel chosen under the ceiling `isa` may use: the feature is at or below the ceiling
// and this CPU has it.
bool CanUseAvx2(Isa isa);
bool CanUseAvxVnni(Isa isa);
bool CanUseAvx512(Isa isa);
bool CanUseAvx512Vbmi(Isa isa);
bool CanUseAvx512Vnni(Isa isa);

}  // namespace qrt
