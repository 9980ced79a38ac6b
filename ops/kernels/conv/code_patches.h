// The patch matrix (im2col) of a convolution over 8-bit codes, for the exact int8 path over
// patches (conv_pointwise_int8.h, PointwiseInt8Plan::patches). Plain C++, a byte per entry.
#pragma once

#include <cstdint>

#include "ops/kernels/conv/conv_ref.h"

namespace qrt {

// Bytes of the padded planes BuildCodePatches needs, and the slack its patches need past K x N.
int64_t CodePlanesBytes(const ConvGeometry& g);
constexpr int64_t kCodePatchesSlack = 16;

// One image of a group-1 convolution: rows (c, kd, kh, kw) of K = C x kernel size, columns
// (od, oh, ow) of the output positions, entry the code of X (C x spatial) under that tap, or
// `pad` where the tap is over padding (the code whose value is 0, the zero point). K x N bytes,
// the same rows in the same order as the ordered float convolution's patches (conv_float.h).
// X is first copied into padded planes whose rows are split by column phase (stride sw: phase
// p holds columns p, p + sw, ...), so that each output row's taps are contiguous bytes there and
// a patch row is built by 16-byte copies (a row of a small plane is a few dozen bytes: a call
// per row cost more than the bytes).
void BuildCodePatches(const ConvGeometry& g, const uint8_t* x, uint8_t pad, uint8_t* planes, uint8_t* patches);

}  // namespace qrt
