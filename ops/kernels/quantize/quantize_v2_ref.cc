// Reference QuantizeV2 run kernels: the specification (op-semantics.md 2.3-2.5). Never optimize.
// Per element, with the slice constants c (see QuantizeV2Consts), one f32 op per step:
//   MIN_COMBINED signed:   q = round(((clamp(x) - lo) * scale) - bias)    round = half away
//   MIN_COMBINED unsigned: q = trunc(((clamp(x) - lo) * scale) + 0.5f)
//   MIN_FIRST:             q = clamp(round(x * scale) - bias)
//   SCALED:                q = ROUND(clamp(x) * scale)                    round or rint
//   clamp(v) = std::max(std::min(v, hi), lo);   y = SaturateCast<T>(q)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/kernels/quantize/quantize_v2.h"

namespace qrt {
namespace ref {
namespace {

// q is integral, +-inf or NaN. NaN -> 0; at or beyond a limit of T -> that limit.
template <class T>
T SaturateCast(float q) {
  if (q != q) return T(0);
  if (q <= static_cast<float>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
  if (q >= static_cast<float>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return static_cast<T>(static_cast<int32_t>(q));
}

inline float Clamp(float v, float lo, float hi) { return std::max(std::min(v, hi), lo); }

enum class Kind { kMinCombinedSigned, kMinCombinedUnsigned, kMinFirst, kScaledAway, kScaledEven };

template <class T, Kind K>
void Run(int64_t n, const float* x, void* out, const QuantizeV2Consts& c) {
  T* y = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) {
    const float lo = c.lo[i * c.inc], hi = c.hi[i * c.inc];
    const float scale = c.scale[i * c.inc], bias = c.bias[i * c.inc];
    float q;
    switch (K) {
      case Kind::kMinCombinedSigned:
        q = std::round(((Clamp(x[i], lo, hi) - lo) * scale) - bias);
        break;
      case Kind::kMinCombinedUnsigned:
        q = std::trunc(((Clamp(x[i], lo, hi) - lo) * scale) + 0.5f);
        break;
      case Kind::kMinFirst:
        q = Clamp(std::round(x[i] * scale) - bias, lo, hi);
        break;
      case Kind::kScaledAway:
        q = std::round(Clamp(x[i], lo, hi) * scale);
        break;
      case Kind::kScaledEven:
        q = std::rint(Clamp(x[i], lo, hi) * scale);
        break;
    }
    y[i] = SaturateCast<T>(q);
  }
}

template <class T>
QuantizeV2Fn ForType(QuantizeV2Mode mode, QuantizeV2RoundMode round_mode) {
  switch (mode) {
    case QuantizeV2Mode::kMinCombined:
      return std::numeric_limits<T>::is_signed ? Run<T, Kind::kMinCombinedSigned> : Run<T, Kind::kMinCombinedUnsigned>;
    case QuantizeV2Mode::kMinFirst:
      return Run<T, Kind::kMinFirst>;
    case QuantizeV2Mode::kScaled:
      return round_mode == QuantizeV2RoundMode::kHalfToEven ? Run<T, Kind::kScaledEven> : Run<T, Kind::kScaledAway>;
  }
  return nullptr;
}

}  // namespace

QuantizeV2Fn QuantizeV2Kernel(DataType T, QuantizeV2Mode mode, QuantizeV2RoundMode round_mode) {
  switch (T) {
    case DataType::kInt8:
      return ForType<int8_t>(mode, round_mode);
    case DataType::kUInt8:
      return ForType<uint8_t>(mode, round_mode);
    case DataType::kInt16:
      return ForType<int16_t>(mode, round_mode);
    case DataType::kUInt16:
      return ForType<uint16_t>(mode, round_mode);
    case DataType::kInt32:
      return ForType<int32_t>(mode, round_mode);
    default:
      return nullptr;
  }
}

}  // namespace ref
}  // namespace qrt
