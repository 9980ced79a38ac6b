// Per-thread scratch buffers, kept between calls so that a warm run allocates nothing. A
// compiled plan is shared by sessions on many threads and the executor has no workspace, so
// run-time temporaries cannot live in a kernel's const state: each buffer grows on first use
// and is reused afterwards. Each caller within one run step uses its own slot.
// Defined in a file built for the baseline ISA: a *_avx2.cc or *_avx512.cc file that grew a
// std::vector itself would instantiate the vector's out-of-line members with its flags, and the
// linker may keep that copy for every caller, on any CPU.
#pragma once

#include <cstddef>

namespace qrt {

enum class ScratchSlot {
  kOnednnSrc,
  kOnednnDst,
  kOnednnPad,  // oneDNN's reordered operands, scratchpad
  kOp0,
  kOp1,
  kOp2,  // an op's own temporaries
  kGemmPanel,
  kGemmTransposedB,  // the ordered GEMM (sgemm_avx2.cc)
  kPointwisePacked,
  kPointwiseNorms,
  kPointwiseOpen,  // the int8 pointwise convolution
  kPointwiseCounts,
  kPointwiseFloats,
  kPointwiseOutputs,
  kPointwiseSteps,
  kPointwiseSamples,
  kPatchInputCodes,
  kPatchPlanes,
  kPatchCodes,     // the int8 path over patches: X's codes, padded planes, patches (ops/conv.cc)
  kDepthwiseRing,  // the int8 depthwise convolution
  kConvPlanes,
  kConvTaps,
  kConvWindowTaps,  // the float convolution's paths (conv_float.cc)
  kConvRows,
  kConvFlat,
  kConvTileIn,
  kConvTileOut,
  kConvInputFloats,
  kConvOutputFloats,
  kConvRing,
  kIgemmPatchRows,  // IgemmPackIm2Col's two rows of patches
  kWrappedIn,
  kWrappedOut,  // an op's data in another layout or type around another op's kernel
  kCount
};

// At least `bytes` bytes (never null), 64-byte aligned, owned by the calling thread; valid
// until the next call with the same slot on this thread. Contents are not kept.
void* ThreadScratch(ScratchSlot slot, size_t bytes);

// The same, as `count` floats.
float* ThreadScratchFloats(ScratchSlot slot, size_t count);

// The same, as `count` elements of a trivially copyable T.
template <class T>
T* ThreadScratchArray(ScratchSlot slot, size_t count) {
  return static_cast<T*>(ThreadScratch(slot, count * sizeof(T)));
}

}  // namespace qrt
