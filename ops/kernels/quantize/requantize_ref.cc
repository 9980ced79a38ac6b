#include "ops/kernels/gemm/matmul_ref.h"
#include "ops/kernels/quantize/requantize.h"

namespace qrt {
namespace ref {
namespace {

template <class T>
void RequantizeRow(int64_t n, const int32_t* acc, const RequantizeParams& p, void* y) {
  T* out = static_cast<T*>(y);
  for (int64_t i = 0; i < n; ++i) {
    const int32_t a = int32_t(uint32_t(acc[i]) + uint32_t(p.bias));
    const int32_t q = RequantizeLikeOrt<T>(a, p.multiplier, p.y_zero_point);
    out[i] = T(q < p.out_min ? p.out_min : (q > p.out_max ? p.out_max : q));
  }
}

}  // namespace

RequantizeRowFn RequantizeRowKernel(DataType y) {
  if (y == DataType::kUInt8) return RequantizeRow<uint8_t>;
  if (y == DataType::kInt8) return RequantizeRow<int8_t>;
  return nullptr;
}

}  // namespace ref

}  // namespace qrt
