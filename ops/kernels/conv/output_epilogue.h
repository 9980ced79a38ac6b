// Element-wise steps applied in place to a GEMM's or convolution's output once it is final
// (after the bias), a block at a time while the block is still in cache: a clamp (a Relu or
// Clip), a fake quantization, a PRelu with one slope per row of C (a convolution's output
// channel), and another fake quantization, each optional (pass fuse-conv-fake-quant; a QDQ
// graph quantizes before and after a PRelu, and ReLU6 sits between a Conv and its quantizer). Each element sees the
// same operations on the same float as in separate passes over the output, so fusing them changes no bit.
//
// Defined out of line in a file built for the baseline ISA: the SIMD drivers call it, and an
// inline copy built with their flags could be the one the linker keeps for the reference path.
#pragma once

#include <cstdint>

#include "ops/kernels/quantize/quantize_linear.h"

namespace qrt {

// y = QuantizeDequantize(y) with this scale and zero point; `map` null: no step.
struct FakeQuantStep {
  QuantizeDequantizeF32Fn map = nullptr;
  float scale = 1.f;
  int32_t zero_point = 0;
};

struct OutputEpilogue {
  // Optional, first: y < lo ? lo : y, then y > hi ? hi : y (Clip in ops/unary.cc; NaN passes).
  bool clamp = false;
  float clamp_lo = 0.f, clamp_hi = 0.f;
  FakeQuantStep before;
  // Optional PRelu, y = y < 0 ? y * slope : y, with slope[row * slope_step] for row `row`
  // (slope_step 0: one slope for every row).
  const float* slope = nullptr;
  int64_t slope_step = 1;
  FakeQuantStep after;
  // Optional, last: QuantizeLinear's codes of the result, written at out + (y - floats) for the
  // outputs at y (a convolution computing into a float buffer whose output is codes).
  struct Codes {
    uint8_t* out = nullptr;
    const float* floats = nullptr;
    QuantizeF32Fn quantize = nullptr;
    float scale = 1.f;
    int32_t zero_point = 0;
  } codes;

  // n outputs of row `row`.
  void Apply(float* y, int64_t n, int64_t row) const;
  // The same epilogue for rows numbered from `first`.
  OutputEpilogue FromRow(int64_t first) const;
  // Its first steps, the clamp and the first fake quantization (the step an exact integer
  // path proves), and the steps after them.
  OutputEpilogue Head() const;
  OutputEpilogue Tail() const;
};

}  // namespace qrt
