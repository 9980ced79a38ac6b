// qrt:MatMulIntegerScaled's contract: MatMulInteger with the float epilogue of a dynamically
// quantized matrix product, as one node:
//   y = float(acc) * Scale [+ Bias]
// the order of the ONNX chain MatMulInteger -> Cast(float) -> Mul(scale) [-> Add(bias)] it
// replaces (fuse-integer-epilogue builds it; ops/matmul.cc runs it), so the output is
// bit-identical and neither the int32 nor the unscaled float tensor is written out. B is a 2-D
// [K, N] matrix; Scale and Bias have one element or N (shape [] or [1] or [N]), which broadcast
// against Y without changing its shape. (com.microsoft MatMulIntegerToFloat takes the two scales
// apart and multiplies them itself.)
#pragma once

namespace qrt::mis {

enum Input : int {
  kA = 0,
  kB = 1,
  kAZeroPoint = 2,  // optional
  kBZeroPoint = 3,  // optional
  kScale = 4,       // float32
  kBias = 5,        // optional, float32
  kInputCount = 6,
};

}  // namespace qrt::mis
