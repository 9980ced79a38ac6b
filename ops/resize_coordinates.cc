#include "ops/resize_coordinates.h"

#include <cmath>

namespace qrt {

template <class F>
F ResizeSourceCoordinate(ResizeCoord c, const ResizeAxis<F>& g, int64_t o) {
  const F x = F(o), s = g.scale, lr = g.out, lo = g.in;
  switch (c) {
    case ResizeCoord::kHalfPixel:
      return (x + F(0.5)) / s - F(0.5);
    case ResizeCoord::kHalfPixelSymmetric: {
      const F adjustment = lr / (s * lo);
      const F offset = lo / 2 * (1 - adjustment);
      return F(double(offset) + (double(x) + 0.5) / double(s) - 0.5);
    }
    case ResizeCoord::kPytorchHalfPixel:
      return lr > 1 ? (x + F(0.5)) / s - F(0.5) : F(0);
    case ResizeCoord::kAlignCorners:
      return lr == 1 ? F(0) : x * (lo - 1) / (lr - 1);
    case ResizeCoord::kAsymmetric:
      return x / s;
    case ResizeCoord::kTfHalfPixelForNn:
      return (x + F(0.5)) / s;
    case ResizeCoord::kTfCropAndResize:
      if (lr > 1) return g.roi_start * (lo - 1) + (x * (g.roi_end - g.roi_start) * (lo - 1)) / (lr - 1);
      return F(0.5 * double(g.roi_start + g.roi_end) * double(lo - 1));
  }
  return 0;
}

int64_t ResizeNearestIndex(ResizeRound r, float x, bool downsample) {
  switch (r) {
    case ResizeRound::kPreferFloor:
      // A coordinate exactly halfway rounds down; std::round takes every other one.
      if (x == float(int64_t(x)) + 0.5f) return int64_t(std::floor(x));
      return int64_t(std::round(x));
    case ResizeRound::kPreferCeil:
      return int64_t(std::round(x));
    case ResizeRound::kFloor:
      return int64_t(std::floor(x));
    case ResizeRound::kCeil:
      return int64_t(std::ceil(x));
    case ResizeRound::kOpset10:
      return downsample ? int64_t(std::ceil(x)) : int64_t(x);
  }
  return 0;
}

template <class F>
std::array<F, 4> ResizeCubicCoefficients(F s, F a) {
  const F s1 = s + 1, c = 1 - s, c1 = 2 - s;
  return {((a * s1 - 5 * a) * s1 + 8 * a) * s1 - 4 * a, ((a + 2) * s - (a + 3)) * s * s + 1,
          ((a + 2) * c - (a + 3)) * c * c + 1, ((a * c1 - 5 * a) * c1 + 8 * a) * c1 - 4 * a};
}

template float ResizeSourceCoordinate<float>(ResizeCoord, const ResizeAxis<float>&, int64_t);
template double ResizeSourceCoordinate<double>(ResizeCoord, const ResizeAxis<double>&, int64_t);
template std::array<float, 4> ResizeCubicCoefficients<float>(float, float);
template std::array<double, 4> ResizeCubicCoefficients<double>(double, double);

}  // namespace qrt
