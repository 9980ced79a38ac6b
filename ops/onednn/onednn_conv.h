// oneDNN convolution behind a thin wrapper: the primitive and its reordered weights are
// built once (Create, at plan time) and only executed in Run. Used by the integer
// convolutions (ConvInteger, QLinearConv) where it is provably exact; tested against
// ref::ConvInteger (tests/ops/conv_test.cc). Float Conv does not use it: oneDNN's summation
// order is not ONNX Runtime's (ops/kernels/conv/conv_float.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ops/kernels/conv/conv_ref.h"
#include "runtime/status.h"

namespace qrt::onednn {

enum class ConvKind : uint8_t {
  // f32 x f32 -> f32, direct algorithm (never Winograd); the order of the float summation
  // is oneDNN's. Used on integer-valued data whose partial sums stay within 2^24, where
  // every order gives the exact result.
  kF32,
  // u8 x s8 -> s32 with a common source zero point, no scales. oneDNN converts the
  // accumulator through f32 and adds pairs of u8*s8 products in saturating s16 on AVX2
  // (docs/onednn-2.6.md, 2b): callers must ensure weights in [-64,63] and
  // 255 * sum_k |w| <= 2^24 per output channel; then it equals ref::ConvInteger exactly.
  kU8S8S32,
};

class Conv {
 public:
  // weights: M x C/group x kernel, f32 (kF32) or s8 (kU8S8S32), copied; bias: f32 or
  // nullptr (kF32 only). Unsupported if oneDNN rejects the descriptor or offers only a
  // reference implementation.
  static StatusOr<std::shared_ptr<const Conv>> Create(const ConvGeometry& g, ConvKind kind, const void* weights,
                                                      const float* bias, int32_t src_zero_point);
  ~Conv();

  // x: N x C x spatial (f32 or u8, plain), y: N x M x out (f32 or s32, plain).
  Status Run(const void* x, void* y) const;
  // oneDNN's implementation name, e.g. "jit:avx2".
  const std::string& impl() const;

  struct Impl;

 private:
  explicit Conv(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace qrt::onednn
