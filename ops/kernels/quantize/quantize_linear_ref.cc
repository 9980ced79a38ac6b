// Reference QuantizeLinear / DequantizeLinear kernels: the specification, never optimized.
#include <cmath>
#include <limits>

#include "ops/kernels/quantize/quantize_linear.h"

namespace qrt {
namespace ref {
namespace {

template <class T>
void Quantize(int64_t n, const float* x, float scale, int32_t zp, void* out) {
  constexpr float kLo = float(std::numeric_limits<T>::min());
  constexpr float kHi = float(std::numeric_limits<T>::max());
  T* y = static_cast<T*>(out);
  for (int64_t i = 0; i < n; ++i) {
    float r = std::nearbyint(x[i] / scale);
    // Exact while |r| < 2^24; beyond that the sum saturates either way.
    r += float(zp);
    // A NaN takes the lowest code, as ONNX Runtime's clamps (MAXPS, then MINPS) give it.
    r = r >= kLo ? (r > kHi ? kHi : r) : kLo;
    y[i] = T(int32_t(r));
  }
}

template <class T>
void Dequantize(int64_t n, const void* in, float scale, int32_t zp, float* y) {
  const T* x = static_cast<const T*>(in);
  const float z = float(zp);
  for (int64_t i = 0; i < n; ++i) y[i] = (float(x[i]) - z) * scale;
}

// The pair, literally: the reference quantize into a small buffer, then the reference
// dequantize from it.
template <class T>
void QuantizeDequantize(int64_t n, const float* x, float scale, int32_t zp, float* y) {
  constexpr int64_t kChunk = 256;
  T q[kChunk];
  for (int64_t i = 0; i < n; i += kChunk) {
    const int64_t len = n - i < kChunk ? n - i : kChunk;
    Quantize<T>(len, x + i, scale, zp, q);
    Dequantize<T>(len, q, scale, zp, y + i);
  }
}

}  // namespace

void QuantizeDequantizeU8(int64_t n, const float* x, float s, int32_t zp, float* y) {
  QuantizeDequantize<uint8_t>(n, x, s, zp, y);
}
void QuantizeDequantizeS8(int64_t n, const float* x, float s, int32_t zp, float* y) {
  QuantizeDequantize<int8_t>(n, x, s, zp, y);
}
void QuantizeF32ToU8(int64_t n, const float* x, float s, int32_t zp, void* y) { Quantize<uint8_t>(n, x, s, zp, y); }
void QuantizeF32ToS8(int64_t n, const float* x, float s, int32_t zp, void* y) { Quantize<int8_t>(n, x, s, zp, y); }
void QuantizeF32ToU16(int64_t n, const float* x, float s, int32_t zp, void* y) { Quantize<uint16_t>(n, x, s, zp, y); }
void QuantizeF32ToS16(int64_t n, const float* x, float s, int32_t zp, void* y) { Quantize<int16_t>(n, x, s, zp, y); }
void DequantizeU8ToF32(int64_t n, const void* x, float s, int32_t zp, float* y) { Dequantize<uint8_t>(n, x, s, zp, y); }
void DequantizeS8ToF32(int64_t n, const void* x, float s, int32_t zp, float* y) { Dequantize<int8_t>(n, x, s, zp, y); }
void DequantizeU16ToF32(int64_t n, const void* x, float s, int32_t zp, float* y) {
  Dequantize<uint16_t>(n, x, s, zp, y);
}
void DequantizeS16ToF32(int64_t n, const void* x, float s, int32_t zp, float* y) {
  Dequantize<int16_t>(n, x, s, zp, y);
}

}  // namespace ref
}  // namespace qrt
