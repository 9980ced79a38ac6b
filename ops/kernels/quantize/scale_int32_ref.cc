#include "ops/kernels/quantize/scale_int32.h"

namespace qrt::ref {

void ScaleInt32Row(int64_t n, const int32_t* acc, const ScaleInt32Params& p, float* y) {
  for (int64_t j = 0; j < n; ++j) {
    const float v = float(int32_t(uint32_t(acc[j]) + uint32_t(p.add))) * p.scale[j * p.scale_step];
    y[j] = p.bias != nullptr ? v + p.bias[j * p.bias_step] : v;
  }
}

}  // namespace qrt::ref
