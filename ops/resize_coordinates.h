// Resize's per-axis arithmetic, in the float order ONNX Runtime's CPU kernel uses
// (docs/float-order.md, "Resize"): the source coordinate of an output index, the nearest
// input index, and the cubic coefficients. Public to the tests, which check each mode at
// non-integer scales against values worked out by hand.
//
// Every formula takes the output index o, the axis scale, the output length (an integer,
// also when `scales` gave the size: the ONNX formulas' length_resized is the output
// length) and the input length. F is float for every type but float64, which computes in
// double.
#pragma once

#include <array>
#include <cstdint>

namespace qrt {

enum class ResizeCoord {
  kHalfPixel,
  kHalfPixelSymmetric,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize
};
enum class ResizeRound { kPreferFloor, kPreferCeil, kFloor, kCeil, kOpset10 };

template <class F>
struct ResizeAxis {
  F scale = 1;
  F out = 0;  // output length
  F in = 0;   // input length
  F roi_start = 0, roi_end = 1;
};

// x_original for output index o. The float ORT kernel evaluates half_pixel_symmetric's
// `(o + 0.5) / scale - 0.5` and tf_crop_and_resize's one-element branch in double (its
// literals are doubles) and rounds the result to float; so does this.
template <class F>
F ResizeSourceCoordinate(ResizeCoord c, const ResizeAxis<F>& g, int64_t o);

// The nearest input index of coordinate x (before clamping to the input). kOpset10 is the
// Upsample / Resize-10 rule: ceil when the axis shrinks, truncation otherwise.
int64_t ResizeNearestIndex(ResizeRound r, float x, bool downsample);

// Keys' cubic convolution weights of the taps floor(x)-1 .. floor(x)+2 for the fraction
// s = x - floor(x) and coefficient a, each formula evaluated in F as written in the spec.
template <class F>
std::array<F, 4> ResizeCubicCoefficients(F s, F a);

extern template float ResizeSourceCoordinate<float>(ResizeCoord, const ResizeAxis<float>&, int64_t);
extern template double ResizeSourceCoordinate<double>(ResizeCoord, const ResizeAxis<double>&, int64_t);
extern template std::array<float, 4> ResizeCubicCoefficients<float>(float, float);
extern template std::array<double, 4> ResizeCubicCoefficients<double>(double, double);

}  // namespace qrt
