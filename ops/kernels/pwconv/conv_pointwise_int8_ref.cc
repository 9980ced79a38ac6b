#include <vector>

#include "ops/kernels/pwconv/conv_pointwise_int8.h"

namespace qrt::ref {

bool ConvPointwiseInt8(const PointwiseInt8Plan& p, const PointwiseInt8Args& a) {
  ConvGeometry g;
  g.batch = 1, g.in_channels = p.k, g.out_channels = p.channels;
  g.in[2] = g.out[2] = p.columns;
  std::vector<float> x(size_t(p.k * p.columns)), y(size_t(p.channels * p.columns));
  for (int64_t n = 0; n < a.batch; ++n) {
    if (a.x_codes != nullptr) {  // byte - x_offset = d, the code's step on X's grid
      const uint8_t* q = static_cast<const uint8_t*>(a.x_codes) + n * p.k * p.columns;
      for (size_t i = 0; i < x.size(); ++i) {
        const int32_t byte = p.x_signed ? int32_t(int8_t(q[i])) + 128 : int32_t(q[i]);
        x[i] = float(byte - p.x_offset) * p.x_scale;
      }
    } else {
      x.assign(a.x + n * p.k * p.columns, a.x + (n + 1) * p.k * p.columns);
    }
    ConvFloat(g, x.data(), a.w, a.bias, y.data());
    if (a.codes != nullptr) {
      const FakeQuantStep& fq = a.epilogue.before;
      a.quantize(int64_t(y.size()), y.data(), fq.scale, fq.zero_point,
                 static_cast<uint8_t*>(a.codes) + n * p.channels * p.columns);
      continue;
    }
    for (int64_t c = 0; c < p.channels; ++c) a.epilogue.Apply(y.data() + c * p.columns, p.columns, c);
    std::copy(y.begin(), y.end(), a.y + n * p.channels * p.columns);
  }
  return true;
}

}  // namespace qrt::ref
