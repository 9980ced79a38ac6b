// qrt:ConvQuantizeDequantize's contract: a float Conv with the clamp (a Relu or Clip), fake
// quantizations and PRelu that follow it as its epilogue. fuse-conv-fake-quant builds it, link-conv-codes rewires it,
// ops/conv.cc runs it; all three name its inputs and attributes through this header.
#pragma once

namespace qrt::cqd {

// Input slots. Omitted optional inputs are invalid values at their slot.
enum Input : int {
  kX = 0,  // float32; with input_codes, X's 8-bit codes
  kW = 1,
  kB = 2,      // optional
  kScale = 3,  // the fake quantization after the convolution (before a PRelu)
  kZeroPoint = 4,
  kSlope = 5,       // a PRelu's slope: one value, or one per output channel
  kScaleAfter = 6,  // the fake quantization after the PRelu
  kZeroPointAfter = 7,
  kCodesScale = 8,  // with input_codes: the scale and zero point X's codes dequantize by
  kCodesZeroPoint = 9,
  kInputCount = 10,
};

// Integer attributes (0 or 1), besides Conv's own.
inline constexpr const char* kInputCodes = "input_codes";    // X is read as codes (kCodes*)
inline constexpr const char* kOutputCodes = "output_codes";  // the output is the codes of kScale
// Float attributes, both present or both absent: a Relu's or Clip's clamp, the first step,
// y < min ? min : y, then > max ? max : y (as ops/unary.cc computes Clip; NaN passes).
inline constexpr const char* kClampMin = "clamp_min";
inline constexpr const char* kClampMax = "clamp_max";

}  // namespace qrt::cqd
