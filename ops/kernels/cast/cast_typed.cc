// One loop per pair of dtypes, the conversion inlined: the compiler vectorizes the common
// pairs (int32 <-> float32, uint8/int8 -> float32, int64 <-> int32, ...), and no element goes
// through a switch on its type.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/kernels/cast/cast.h"
#include "runtime/float8.h"
#include "runtime/half.h"

namespace qrt {
namespace {

// How each dtype is stored and read: `Value` is the C++ type its elements convert from.
template <class T>
struct Plain {  // the integers, float32 and float64
  using Storage = T;
  using Value = T;
  static T Load(T v) { return v; }
};
struct Bool {
  using Storage = uint8_t;
  using Value = uint8_t;
  static uint8_t Load(uint8_t v) { return v != 0; }
};
struct Half {
  using Storage = uint16_t;
  using Value = float;
  static float Load(uint16_t v) { return HalfToFloat(v); }
};
struct BFloat {
  using Storage = uint16_t;
  using Value = float;
  static float Load(uint16_t v) { return BFloat16ToFloat(v); }
};
template <DataType kType>
struct Float8 {
  static constexpr DataType kDataType = kType;
  using Storage = uint8_t;
  using Value = float;
  static float Load(uint8_t v) { return Float8ToFloat(kType, v); }
};

template <class T>
inline constexpr bool kIsPlainInt = false;
template <class T>
inline constexpr bool kIsPlainInt<Plain<T>> = std::is_integral_v<T>;

template <class To, class V>
typename To::Storage Convert(V v, bool saturate) {
  using S = typename To::Storage;
  if constexpr (kIsPlainInt<To>) {
    if constexpr (std::is_floating_point_v<V>) {
      if (std::isnan(v)) return S(0);
      const double t = std::trunc(double(v));
      if (t <= double(std::numeric_limits<S>::lowest())) return std::numeric_limits<S>::lowest();
      if (t >= double(std::numeric_limits<S>::max())) return std::numeric_limits<S>::max();
      return S(t);
    } else {
      return static_cast<S>(v);  // the low bits
    }
  } else if constexpr (std::is_same_v<To, Bool>) {
    return v != V(0);
  } else if constexpr (std::is_same_v<To, Plain<float>> || std::is_same_v<To, Plain<double>>) {
    return static_cast<S>(v);
  } else if constexpr (std::is_same_v<To, Half>) {
    return FloatToHalf(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, BFloat>) {
    return FloatToBFloat16(static_cast<float>(v));
  } else {
    return FloatToFloat8(To::kDataType, static_cast<float>(v), saturate);
  }
}

template <class From, class To>
void CastLoop(const void* x, void* y, int64_t n, bool saturate) {
  const auto* px = static_cast<const typename From::Storage*>(x);
  auto* py = static_cast<typename To::Storage*>(y);
  for (int64_t i = 0; i < n; ++i) py[i] = Convert<To>(From::Load(px[i]), saturate);
}

// Calls f(Kind{}) with the Kind of `t`; false for the 4-bit and undefined types.
template <class F>
bool DispatchKind(DataType t, F&& f) {
  switch (t) {
    case DataType::kFloat32:
      return f(Plain<float>{}), true;
    case DataType::kFloat64:
      return f(Plain<double>{}), true;
    case DataType::kFloat16:
      return f(Half{}), true;
    case DataType::kBFloat16:
      return f(BFloat{}), true;
    case DataType::kFloat8E4M3FN:
      return f(Float8<DataType::kFloat8E4M3FN>{}), true;
    case DataType::kFloat8E4M3FNUZ:
      return f(Float8<DataType::kFloat8E4M3FNUZ>{}), true;
    case DataType::kFloat8E5M2:
      return f(Float8<DataType::kFloat8E5M2>{}), true;
    case DataType::kFloat8E5M2FNUZ:
      return f(Float8<DataType::kFloat8E5M2FNUZ>{}), true;
    case DataType::kBool:
      return f(Bool{}), true;
    case DataType::kInt8:
      return f(Plain<int8_t>{}), true;
    case DataType::kUInt8:
      return f(Plain<uint8_t>{}), true;
    case DataType::kInt16:
      return f(Plain<int16_t>{}), true;
    case DataType::kUInt16:
      return f(Plain<uint16_t>{}), true;
    case DataType::kInt32:
      return f(Plain<int32_t>{}), true;
    case DataType::kInt64:
      return f(Plain<int64_t>{}), true;
    case DataType::kUInt32:
      return f(Plain<uint32_t>{}), true;
    case DataType::kUInt64:
      return f(Plain<uint64_t>{}), true;
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kUndefined:
      break;
  }
  return false;
}

}  // namespace

CastFn SelectCast(DataType from, DataType to) {
  CastFn fn = nullptr;
  DispatchKind(from, [&](auto from_kind) {
    DispatchKind(to, [&](auto to_kind) { fn = CastLoop<decltype(from_kind), decltype(to_kind)>; });
  });
  return fn;
}

}  // namespace qrt
