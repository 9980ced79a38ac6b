// qrt:ConvTransposeQuantizeDequantize's contract: a float32 ConvTranspose whose output fake
// quantization (qrt:QuantizeDequantize) runs on each output plane right after its bias, while
// the plane is in cache. fuse-convtranspose-fake-quant builds it, ops/conv_transpose.cc runs
// it. Attributes: ConvTranspose's.
#pragma once

namespace qrt::ctqd {

enum Input : int {
  kX = 0,
  kW = 1,
  kB = 2,  // optional
  kScale = 3,
  kZeroPoint = 4,  // optional
  kInputCount = 5,
};

}  // namespace qrt::ctqd
