// Splits pairs of floats into their even and odd elements: even[i] = src[2i], odd[i] = src[2i+1].
// A stride-2 convolution copies each input row this way into its two column-phase planes
// (conv_float.cc), so that every kernel tap reads consecutive floats. Pure data movement: every
// kernel gives the same bits.
#pragma once

#include <cstdint>

#include "runtime/cpu_features.h"

namespace qrt {

using SplitPairsFn = void (*)(int64_t pairs, const float* src, float* even, float* odd);

namespace ref {
void SplitPairs(int64_t pairs, const float* src, float* even, float* odd);
}
namespace avx2 {
void SplitPairs(int64_t pairs, const float* src, float* even, float* odd);
}
namespace avx512 {
void SplitPairs(int64_t pairs, const float* src, float* even, float* odd);
}

// Isa::kAvx2 picks the AVX-512F kernel where the CPU has it.
SplitPairsFn SelectSplitPairs(Isa isa);

}  // namespace qrt
