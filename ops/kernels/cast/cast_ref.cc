#include <cmath>
#include <limits>

#include "ops/kernels/cast/cast.h"
#include "runtime/float8.h"
#include "runtime/half.h"

namespace qrt::ref {
namespace {

// Element i as the widest exact value: double for floats, int64 for signed integers and
// bool, uint64 for the unsigned ones.
struct Scalar {
  enum Kind { kFloat, kSigned, kUnsigned } kind;
  double f = 0;
  int64_t i = 0;
  uint64_t u = 0;
};

Scalar Load(DataType t, const void* p, int64_t i) {
  switch (t) {
    case DataType::kFloat32:
      return {Scalar::kFloat, static_cast<const float*>(p)[i]};
    case DataType::kFloat64:
      return {Scalar::kFloat, static_cast<const double*>(p)[i]};
    case DataType::kFloat16:
      return {Scalar::kFloat, HalfToFloat(static_cast<const uint16_t*>(p)[i])};
    case DataType::kBFloat16:
      return {Scalar::kFloat, BFloat16ToFloat(static_cast<const uint16_t*>(p)[i])};
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return {Scalar::kFloat, Float8ToFloat(t, static_cast<const uint8_t*>(p)[i])};
    case DataType::kBool:
      return {Scalar::kSigned, 0, static_cast<const uint8_t*>(p)[i] ? 1 : 0};
    case DataType::kInt8:
      return {Scalar::kSigned, 0, static_cast<const int8_t*>(p)[i]};
    case DataType::kInt16:
      return {Scalar::kSigned, 0, static_cast<const int16_t*>(p)[i]};
    case DataType::kInt32:
      return {Scalar::kSigned, 0, static_cast<const int32_t*>(p)[i]};
    case DataType::kInt64:
      return {Scalar::kSigned, 0, static_cast<const int64_t*>(p)[i]};
    case DataType::kUInt8:
      return {Scalar::kUnsigned, 0, 0, static_cast<const uint8_t*>(p)[i]};
    case DataType::kUInt16:
      return {Scalar::kUnsigned, 0, 0, static_cast<const uint16_t*>(p)[i]};
    case DataType::kUInt32:
      return {Scalar::kUnsigned, 0, 0, static_cast<const uint32_t*>(p)[i]};
    case DataType::kUInt64:
      return {Scalar::kUnsigned, 0, 0, static_cast<const uint64_t*>(p)[i]};
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kUndefined:
      break;
  }
  return {Scalar::kSigned};
}

template <class T>
T ToInt(const Scalar& s) {
  if (s.kind == Scalar::kSigned) return T(s.i);  // the low bits
  if (s.kind == Scalar::kUnsigned) return T(s.u);
  if (std::isnan(s.f)) return T(0);
  const double t = std::trunc(s.f);
  if (t <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (t >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return T(t);
}

// Integers to float32 directly: through double would round twice.
float ToFloat(const Scalar& s) {
  if (s.kind == Scalar::kFloat) return float(s.f);
  return s.kind == Scalar::kSigned ? float(s.i) : float(s.u);
}

void Store(DataType t, void* p, int64_t i, const Scalar& s, bool saturate) {
  switch (t) {
    case DataType::kFloat32:
      static_cast<float*>(p)[i] = ToFloat(s);
      break;
    case DataType::kFloat64:
      static_cast<double*>(p)[i] = s.kind == Scalar::kFloat    ? s.f
                                   : s.kind == Scalar::kSigned ? double(s.i)
                                                               : double(s.u);
      break;
    case DataType::kFloat16:
      static_cast<uint16_t*>(p)[i] = FloatToHalf(ToFloat(s));
      break;
    case DataType::kBFloat16:
      static_cast<uint16_t*>(p)[i] = FloatToBFloat16(ToFloat(s));
      break;
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      static_cast<uint8_t*>(p)[i] = FloatToFloat8(t, ToFloat(s), saturate);
      break;
    case DataType::kBool:
      static_cast<uint8_t*>(p)[i] = s.kind == Scalar::kFloat ? (s.f != 0) : (s.i != 0 || s.u != 0);
      break;
    case DataType::kInt8:
      static_cast<int8_t*>(p)[i] = ToInt<int8_t>(s);
      break;
    case DataType::kUInt8:
      static_cast<uint8_t*>(p)[i] = ToInt<uint8_t>(s);
      break;
    case DataType::kInt16:
      static_cast<int16_t*>(p)[i] = ToInt<int16_t>(s);
      break;
    case DataType::kUInt16:
      static_cast<uint16_t*>(p)[i] = ToInt<uint16_t>(s);
      break;
    case DataType::kInt32:
      static_cast<int32_t*>(p)[i] = ToInt<int32_t>(s);
      break;
    case DataType::kInt64:
      static_cast<int64_t*>(p)[i] = ToInt<int64_t>(s);
      break;
    case DataType::kUInt32:
      static_cast<uint32_t*>(p)[i] = ToInt<uint32_t>(s);
      break;
    case DataType::kUInt64:
      static_cast<uint64_t*>(p)[i] = ToInt<uint64_t>(s);
      break;
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kUndefined:
      break;
  }
}

}  // namespace

void CastElements(DataType from, DataType to, const void* x, void* y, int64_t n, bool saturate) {
  for (int64_t i = 0; i < n; ++i) Store(to, y, i, Load(from, x, i), saturate);
}

}  // namespace qrt::ref
