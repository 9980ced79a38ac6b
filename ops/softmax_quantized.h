// qrt:SoftmaxQuantized's contract: DequantizeLinear -> Softmax (float32) -> QuantizeLinear with
// per-tensor scales and zero points, run one softmax row at a time (a row is independent of
// the others), so the float tensors are never written out. fuse-dq-softmax-q builds it,
// ops/softmax_quantized.cc runs it with the three ops' own kernels: bit-identical. Attributes:
// the Softmax's axis and coerce_2d (1 for a Softmax of opset < 13). One output, Y (8-bit).
#pragma once

namespace qrt::smq {

enum Input : int {
  kX = 0,  // uint8 or int8
  kXScale = 1,
  kXZeroPoint = 2,  // optional
  kYScale = 3,
  kYZeroPoint = 4,  // optional: absent, Y is uint8 with zero point 0
  kInputCount = 5,
};

}  // namespace qrt::smq
