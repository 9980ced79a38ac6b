// The lane reductions of MLAS's QNBit kernels (matmul_nbits.h). Out of line in a file built
// for the baseline ISA, so that no copy compiled with AVX flags can serve the scalar callers.
#pragma once

namespace qrt::nbits {

// Four groups of four lanes summed left to right, then (s0 + s2) + (s1 + s3).
float FoldGroups16(const float* x);
// Halving: 16 -> 8 (i, i + 8), 8 -> 4 (i, i + 4), then (z0 + z2) + (z1 + z3).
float Tree16(const float* x);
// Eight lanes: two groups of four left to right, added.
float FoldGroups8(const float* x);
// Eight lanes halved: 8 -> 4 (i, i + 4), then (y0 + y2) + (y1 + y3).
float Tree8(const float* x);
// Eight lanes halved, then two horizontal adds: 8 -> 4 (i, i + 4), then (y0 + y1) + (y2 + y3).
float Hadd8(const float* x);

}  // namespace qrt::nbits
