// What the element-wise op files share: the element types as (stored, computed) pairs, a
// dispatch over them, and broadcasting loops for two and three operands. The loops take
// the computation as a template argument, so the compiler sees one straight loop per
// (op, dtype): no per-element dispatch.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "ops/kernels/common/broadcast.h"
#include "runtime/dtype.h"
#include "runtime/half.h"
#include "runtime/tensor.h"

namespace qrt {

// Tags for the 16-bit float types, which are stored as uint16_t and computed in float.
struct Float16Tag {};
struct BFloat16Tag {};
// Tag for bool, stored as one byte 0 or 1.
struct BoolTag {};

template <class Tag>
struct Elem {
  using Stored = Tag;
  using Compute = Tag;
  static Compute Load(Stored v) { return v; }
  static Stored Store(Compute v) { return v; }
};
template <>
struct Elem<Float16Tag> {
  using Stored = uint16_t;
  using Compute = float;
  static float Load(uint16_t v) { return HalfToFloat(v); }
  static uint16_t Store(float v) { return FloatToHalf(v); }
};
template <>
struct Elem<BFloat16Tag> {
  using Stored = uint16_t;
  using Compute = float;
  static float Load(uint16_t v) { return BFloat16ToFloat(v); }
  static uint16_t Store(float v) { return FloatToBFloat16(v); }
};
template <>
struct Elem<BoolTag> {
  using Stored = uint8_t;
  using Compute = bool;
  static bool Load(uint8_t v) { return v != 0; }
  static uint8_t Store(bool v) { return v ? 1 : 0; }
};

// Calls f(Tag{}) for `dtype`'s tag (float, double, the integers, Float16Tag, BFloat16Tag,
// BoolTag); returns false for kUndefined.
template <class F>
bool DispatchElem(DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::kFloat32:
      f(float{});
      return true;
    case DataType::kFloat64:
      f(double{});
      return true;
    case DataType::kFloat16:
      f(Float16Tag{});
      return true;
    case DataType::kBFloat16:
      f(BFloat16Tag{});
      return true;
    case DataType::kInt8:
      f(int8_t{});
      return true;
    case DataType::kUInt8:
      f(uint8_t{});
      return true;
    case DataType::kInt16:
      f(int16_t{});
      return true;
    case DataType::kUInt16:
      f(uint16_t{});
      return true;
    case DataType::kInt32:
      f(int32_t{});
      return true;
    case DataType::kInt64:
      f(int64_t{});
      return true;
    case DataType::kUInt32:
      f(uint32_t{});
      return true;
    case DataType::kUInt64:
      f(uint64_t{});
      return true;
    case DataType::kBool:
      f(BoolTag{});
      return true;
    default:
      return false;
  }
}

// A float tensor's values as float32 (the 16-bit types widen exactly; float64 rounds), for ops
// that compute every float type through their float32 kernel.
inline std::vector<float> ToFloat32Vector(const Tensor& t) {
  std::vector<float> out(size_t(t.numel()));
  DispatchElem(t.dtype(), [&](auto tag) {
    using E = Elem<decltype(tag)>;
    const auto* p = t.data<typename E::Stored>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = float(E::Load(p[i]));
  });
  return out;
}

// Stores float32 results into a float tensor of any width, each rounded once.
inline void StoreFromFloat32(const std::vector<float>& v, Tensor& t) {
  DispatchElem(t.dtype(), [&](auto tag) {
    using E = Elem<decltype(tag)>;
    if constexpr (std::is_floating_point_v<typename E::Compute>) {
      auto* p = t.data<typename E::Stored>();
      for (size_t i = 0; i < v.size(); ++i) p[i] = E::Store(typename E::Compute(v[i]));
    }
  });
}

// y = f(a, b) over `loop` (operands a, b, y; MakeStridedLoop({a, b, y}, y)). A, B, Y are
// stored types; f maps them.
template <class A, class B, class Y, class F>
void BroadcastMap2(const StridedLoop& loop, const A* a, const B* b, Y* y, F f) {
  const int64_t n = loop.inner;
  const bool ia = loop.inner_inc[0] != 0, ib = loop.inner_inc[1] != 0;
  ForEachRun(loop, [&](const int64_t* off) {
    const A* pa = a + off[0];
    const B* pb = b + off[1];
    Y* py = y + off[2];
    if (ia && ib) {
      for (int64_t i = 0; i < n; ++i) py[i] = f(pa[i], pb[i]);
    } else if (ia) {
      const B vb = *pb;
      for (int64_t i = 0; i < n; ++i) py[i] = f(pa[i], vb);
    } else if (ib) {
      const A va = *pa;
      for (int64_t i = 0; i < n; ++i) py[i] = f(va, pb[i]);
    } else {
      const Y v = f(*pa, *pb);
      for (int64_t i = 0; i < n; ++i) py[i] = v;
    }
  });
}

// y = f(a, b, c) over `loop` (operands a, b, c, y).
template <class A, class B, class C, class Y, class F>
void BroadcastMap3(const StridedLoop& loop, const A* a, const B* b, const C* c, Y* y, F f) {
  const int64_t n = loop.inner;
  const int64_t ia = loop.inner_inc[0], ib = loop.inner_inc[1], ic = loop.inner_inc[2];
  ForEachRun(loop, [&](const int64_t* off) {
    const A* pa = a + off[0];
    const B* pb = b + off[1];
    const C* pc = c + off[2];
    Y* py = y + off[3];
    // The common cases (each operand contiguous or one value along the run) as loops of their
    // own, which the compiler vectorizes; any other stride through the general loop.
    if (ia == 1 && ib == 1 && ic == 1) {
      for (int64_t i = 0; i < n; ++i) py[i] = f(pa[i], pb[i], pc[i]);
    } else if (ia == 1 && ib == 1 && ic == 0) {
      const C vc = *pc;
      for (int64_t i = 0; i < n; ++i) py[i] = f(pa[i], pb[i], vc);
    } else if (ia == 1 && ib == 0 && ic == 1) {
      const B vb = *pb;
      for (int64_t i = 0; i < n; ++i) py[i] = f(pa[i], vb, pc[i]);
    } else if (ia == 1 && ib == 0 && ic == 0) {
      const B vb = *pb;
      const C vc = *pc;
      for (int64_t i = 0; i < n; ++i) py[i] = f(pa[i], vb, vc);
    } else {
      for (int64_t i = 0; i < n; ++i) py[i] = f(pa[i * ia], pb[i * ib], pc[i * ic]);
    }
  });
}

}  // namespace qrt
