// Per-thread scratch buffers for the SIMD kernels, kept between calls so that a warm run
// allocates nothing. Defined in a file built for the baseline ISA: a *_avx2.cc or *_avx512.cc
// file that grew a std::vector itself would instantiate the vector's out-of-line members with
// its flags, and the linker may keep that copy for every caller, on any CPU.
#pragma once

#include <cstddef>

namespace qrt {

enum class ScratchSlot { kGemmPanel, kGemmTransposedB, kCount };

// At least `count` floats, 64-byte aligned, owned by the calling thread; valid until the next
// call with the same slot on this thread. Contents are not kept.
float* ThreadScratchFloats(ScratchSlot slot, size_t count);

}  // namespace qrt
