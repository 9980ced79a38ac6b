// qrt:LayerNormQuantizeDequantize's contract: a float32 LayerNormalization whose input and
// output fake quantizations (qrt:QuantizeDequantize) run row by row inside it, so that neither
// the fake-quantized input nor the unquantized output is written out. fuse-layernorm-fake-quant
// builds it, ops/layer_normalization.cc runs it. Attributes: LayerNormalization's (axis,
// epsilon); one output, Y.
#pragma once

namespace qrt::lnqd {

enum Input : int {
  kX = 0,
  kScale = 1,
  kBias = 2,          // optional
  kInScale = 3,       // optional: the fake quantization of X (absent: X as it is)
  kInZeroPoint = 4,   // optional
  kOutScale = 5,      // the fake quantization of Y
  kOutZeroPoint = 6,  // optional
  kInputCount = 7,
};

}  // namespace qrt::lnqd
