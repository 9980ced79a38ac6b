// Reference FakeQuantize: the specification (op-semantics.md 1.1). Never optimize.
//   x <= min(il, ih) -> ol;  x > max(il, ih) -> oh;
//   else ((nearbyint((x - il) / (ih - il) * L) / L) * (oh - ol)) + ol, one f32 op per step.
#include <cmath>
#include <cstring>

#include "ops/kernels/quantize/fake_quantize.h"
#include "runtime/half.h"

namespace qrt {
namespace ref {
namespace {

// std::min / std::max argument order of the reference, so NaN ranges behave alike.
float FakeQuantizeOne(float x, float il, float ih, float ol, float oh, float L) {
  const float lo = (ih < il) ? ih : il;  // std::min(il, ih)
  const float hi = (il < ih) ? ih : il;  // std::max(il, ih)
  if (x <= lo) return ol;
  if (x > hi) return oh;
  float t = x - il;
  t = t / (ih - il);
  t = t * L;
  t = std::nearbyint(t);  // ties to even under the default rounding mode
  t = t / L;
  t = t * (oh - ol);
  return t + ol;
}

struct F32 {
  using T = float;
  static float Load(T v) { return v; }
  static T Store(float v) { return v; }
};
struct F16 {
  using T = uint16_t;
  static float Load(T v) { return HalfToFloat(v); }
  static T Store(float v) { return FloatToHalf(v); }
};
struct BF16 {
  using T = uint16_t;
  static float Load(T v) { return BFloat16ToFloat(v); }
  static T Store(float v) { return FloatToBFloat16(v); }
};

template <class S>
void Run(const FakeQuantizeRunArgs& a) {
  using T = typename S::T;
  const T* x = static_cast<const T*>(a.x);
  const T* il = static_cast<const T*>(a.in_low);
  const T* ih = static_cast<const T*>(a.in_high);
  const T* ol = static_cast<const T*>(a.out_low);
  const T* oh = static_cast<const T*>(a.out_high);
  T* y = static_cast<T*>(a.y);
  const int64_t s0 = a.range_inc_mask & 1, s1 = (a.range_inc_mask >> 1) & 1;
  const int64_t s2 = (a.range_inc_mask >> 2) & 1, s3 = (a.range_inc_mask >> 3) & 1;
  for (int64_t i = 0; i < a.n; ++i) {
    y[i] = S::Store(FakeQuantizeOne(S::Load(x[i]), S::Load(il[i * s0]), S::Load(ih[i * s1]), S::Load(ol[i * s2]),
                                    S::Load(oh[i * s3]), a.levels_minus_1));
  }
}

}  // namespace

void FakeQuantizeF32(const FakeQuantizeRunArgs& args) { Run<F32>(args); }
void FakeQuantizeF16(const FakeQuantizeRunArgs& args) { Run<F16>(args); }
void FakeQuantizeBF16(const FakeQuantizeRunArgs& args) { Run<BF16>(args); }

}  // namespace ref
}  // namespace qrt
