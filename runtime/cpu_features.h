// Run-time CPU feature detection. Kernels are chosen from this once, at compile time
// of a graph; nothing in qrt assumes an ISA at build time.
#pragma once

#include <string_view>

namespace qrt {

enum class Isa { kScalar = 0, kAvx2 = 1 };

// The environment variable QRT_MAX_ISA (scalar, avx2 or avx512) caps what the CPU is taken
// to have, for the whole process, so that a test suite on an AVX-512 machine runs the paths
// of a smaller CPU; oneDNN is capped alike (ops/onednn/onednn_util.cc). Unset, or another
// value: no cap.
enum class IsaCeiling { kScalar, kAvx2, kAvx512 };
IsaCeiling IsaCeilingFromEnvironment();

struct CpuFeatures {
  bool avx2 = false;           // AVX2 + FMA + OS support for YMM state
  bool avx512f = false;        // AVX-512F + OS support for ZMM and mask state (kernels may use it
                               // inside Isa::kAvx2 where it gives the same results)
  bool avx512bw_vbmi = false;  // avx512f plus AVX512BW and AVX512_VBMI (byte/word ops, VPERMB)
  bool avx512_vnni = false;    // avx512f plus AVX512_VNNI (VPDPBUSD: u8 x s8 sums in int32),
                               // AVX512BW and AVX512DQ (which every CPU with VNNI has; the int8
                               // kernel loads and packs bytes, and takes t - rint(t) with VREDUCEPS)
};

// Detected once (CPUID + XGETBV) and cached.
const CpuFeatures& DetectCpuFeatures();

// The best ISA that is both requested (`max_isa`) and available on this CPU.
Isa EffectiveIsa(Isa max_isa);

std::string_view IsaName(Isa isa);
}  // namespace qrt
