// qrt:LayerNormQuantized's contract: DequantizeLinear -> LayerNormalization (float32) ->
// QuantizeLinear with per-tensor scales and zero points, run one normalized row at a time (a
// row is independent of the others), so neither float tensor is written out. fuse-dq-layernorm-q
// builds it, ops/layer_normalization.cc runs it with the three ops' own kernels: bit-identical.
// Attributes: LayerNormalization's (axis, epsilon). One output, Y (8-bit).
#pragma once

namespace qrt::lnq {

enum Input : int {
  kX = 0,  // uint8 or int8 codes
  kScale = 1,
  kBias = 2,  // optional
  kXScale = 3,
  kXZeroPoint = 4,  // optional
  kYScale = 5,
  kYZeroPoint = 6,  // optional: absent, Y is uint8 with zero point 0
  kInputCount = 7,
};

}  // namespace qrt::lnq
