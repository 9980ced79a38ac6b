#include "ops/kernels/quantize/dequantize_rows.h"
#include "ops/kernels/quantize/quantize_linear.h"

namespace qrt {
namespace ref {
namespace {

template <class T>
void Pairs(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd) {
  const T* q = static_cast<const T*>(codes);
  const float z = float(zp);
  for (int64_t i = 0; i < pairs; ++i) {
    even[i] = (float(q[2 * i]) - z) * scale;
    odd[i] = (float(q[2 * i + 1]) - z) * scale;
  }
}

}  // namespace

void DequantizePairsU8(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd) {
  Pairs<uint8_t>(pairs, codes, scale, zp, even, odd);
}
void DequantizePairsS8(int64_t pairs, const void* codes, float scale, int32_t zp, float* even, float* odd) {
  Pairs<int8_t>(pairs, codes, scale, zp, even, odd);
}

}  // namespace ref

}  // namespace qrt
