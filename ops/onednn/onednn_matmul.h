// oneDNN f32 matmul behind a thin wrapper, built once at plan time. Computes
// c = alpha * (a x b) over batch dims (numpy broadcasting of size-1 batch dims).
// Equal to ref::GemmFloat up to the order of the float summation (oneDNN's blocking);
// exact on integer-valued data whose partial sums stay within 2^24.
#pragma once

#include <memory>
#include <string>

#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt::onednn {

class MatMul {
 public:
  // Dims of equal rank (>= 2; batch dims 1 or equal to c's). Strides in elements: an
  // empty vector means dense row-major; give explicit strides for transposed operands.
  // Unsupported if oneDNN rejects it or offers only a reference implementation.
  static StatusOr<std::shared_ptr<const MatMul>> Create(const Dims& a, const Dims& a_strides, const Dims& b,
                                                        const Dims& b_strides, const Dims& c, float alpha);
  ~MatMul();
  Status Run(const float* a, const float* b, float* c) const;
  const std::string& impl() const;

  struct Impl;

 private:
  explicit MatMul(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace qrt::onednn
