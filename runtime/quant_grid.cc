#include "runtime/quant_grid.h"

#include <cstring>

namespace qrt {

bool CodesOnGrid(const float* __restrict values, int64_t n, float scale, float inverse, int32_t zero_point,
                 DataType type, uint8_t* __restrict codes) {
  const float zp = float(zero_point);
  const float lo = type == DataType::kInt8 ? -128.f : 0.f, hi = type == DataType::kInt8 ? 127.f : 255.f;
  uint32_t off_grid = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float value = values[i];
    const float rounded = ((value * inverse + 12582912.f) - 12582912.f) + zp;
    const uint32_t out_of_range = uint32_t(!(rounded >= lo)) | uint32_t(!(rounded <= hi));
    const float q = out_of_range ? lo : rounded;  // converted below, so kept in range
    const float rebuilt = (q - zp) * scale;
    uint32_t rebuilt_bits, value_bits;
    std::memcpy(&rebuilt_bits, &rebuilt, sizeof(float));
    std::memcpy(&value_bits, &value, sizeof(float));
    off_grid |= out_of_range | uint32_t(rebuilt_bits != value_bits);
    codes[i] = static_cast<uint8_t>(static_cast<int32_t>(q));
  }
  return off_grid == 0;
}

}  // namespace qrt
