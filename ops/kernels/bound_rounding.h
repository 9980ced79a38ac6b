// Directed rounding for the constants of the exact integer paths' error bounds
// (conv_pointwise_int8.h, depthwise_int8.h): a bound computed in double is rounded up to a
// float (or a limit down), so that the float the kernel compares against errs on the safe side.
// For the baseline-ISA plan files only (no SIMD file includes it).
#pragma once

#include <cmath>
#include <limits>

namespace qrt {

inline bool NormalPositive(float v) { return std::isnormal(v) && v > 0.f; }

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
