// What the plans of the exact integer convolutions (conv_pointwise_int8.h, depthwise_int8.h)
// share: the grids their argument covers, and directed rounding for their bounds' constants (a
// bound computed in double is rounded up to a float, a limit down, so that the float the kernel
// compares against errs on the safe side). For the baseline-ISA plan files only (no SIMD file
// includes it).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "runtime/quant_grid.h"

namespace qrt {

inline bool NormalPositive(float v) { return std::isnormal(v) && v > 0.f; }

// The step rule's margin: an output is proven where |t - rint(t)| < 0.5 - kStepMargin - E / s_y.
// It covers the estimate's last rounding and the reference's fl(v / s_y), each under
// 2^-24 * 2^9 = 2^-15 while |t| < 2^9, and the limit's own rounding (2^-25), with room to spare.
// Beyond 2^9 nothing needs it: the codes are 8-bit, so every step lies within 255 of 0 and a t
// (or a v / s_y within 0.5 of it) past 2^9 - 1 saturates to the same end whatever its rounding.
inline constexpr double kStepMargin = 1.0 / 8192;  // 2^-13

// An output scale the step rule can use: positive, it and its inverse normal.
inline bool UsableStepScale(float s) { return NormalPositive(s) && std::isnormal(1.f / s); }

// X's grid: one scale (normal, positive) and a zero point within its type's range.
inline bool OneScaleGrid(const QuantGrid& g) {
  if (g.axis != -1 || g.scales.size() != 1 || !NormalPositive(g.scales[0])) return false;
  const int32_t low = g.type == DataType::kInt8 ? -128 : 0;
  return g.zero_points[0] >= low && g.zero_points[0] <= low + 255;
}

// W's grid: int8, zero points 0, normal positive scales, one per tensor or one per output
// channel (`per_channel`).
inline bool SymmetricWeightGrid(const QuantGrid& g, int64_t channels, bool* per_channel) {
  if (g.type != DataType::kInt8) return false;
  *per_channel = g.axis == 0 && int64_t(g.scales.size()) == channels;
  if (!*per_channel && !(g.axis == -1 && g.scales.size() == 1)) return false;
  for (size_t i = 0; i < g.scales.size(); ++i) {
    if (!NormalPositive(g.scales[i]) || g.zero_points[i] != 0) return false;
  }
  return true;
}

// The smallest float >= v (v finite; infinity past the float range).
inline float RoundUp(double v) {
  float f = float(v);
  if (double(f) < v) f = std::nextafter(f, std::numeric_limits<float>::infinity());
  return f;
}

// The largest float <= v (v finite).
inline float RoundDown(double v) {
  float f = float(v);
  if (double(f) > v) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f;
}

}  // namespace qrt
