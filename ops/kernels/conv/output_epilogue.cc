#include "ops/kernels/conv/output_epilogue.h"

#include <cstring>

namespace qrt {
namespace {

void Run(const FakeQuantStep& step, float* y, int64_t n) {
  if (step.map != nullptr) step.map(n, y, step.scale, step.zero_point, y);
}

}  // namespace

void OutputEpilogue::Apply(float* y, int64_t n, int64_t row) const {
  if (clamp) {
    const float lo = clamp_lo, hi = clamp_hi;
    for (int64_t i = 0; i < n; ++i) {
      const float t = y[i] < lo ? lo : y[i];
      y[i] = t > hi ? hi : t;
    }
  }
  Run(before, y, n);
  if (slope != nullptr) {
    // As PRelu computes it (binary.cc): y < 0 ? y * s : y. Selected with bit masks, which the
    // compiler vectorizes (a conditional store in place became a mispredicted branch).
    const float s = slope[row * slope_step];
    for (int64_t i = 0; i < n; ++i) {
      const float v = y[i], m = v * s;
      uint32_t vb, mb;
      std::memcpy(&vb, &v, 4);
      std::memcpy(&mb, &m, 4);
      const uint32_t negative = v < 0.f ? ~0u : 0u;
      const uint32_t out = (mb & negative) | (vb & ~negative);
      std::memcpy(y + i, &out, 4);
    }
  }
  Run(after, y, n);
  if (codes.out != nullptr) codes.quantize(n, y, codes.scale, codes.zero_point, codes.out + (y - codes.floats));
}

OutputEpilogue OutputEpilogue::FromRow(int64_t first) const {
  OutputEpilogue e = *this;
  if (e.slope != nullptr) e.slope += first * slope_step;
  return e;
}

OutputEpilogue OutputEpilogue::Head() const {
  OutputEpilogue e;
  e.clamp = clamp, e.clamp_lo = clamp_lo, e.clamp_hi = clamp_hi;
  e.before = before;
  return e;
}

OutputEpilogue OutputEpilogue::Tail() const {
  OutputEpilogue e = *this;
  e.clamp = false;
  e.before = FakeQuantStep();
  return e;
}

}  // namespace qrt
