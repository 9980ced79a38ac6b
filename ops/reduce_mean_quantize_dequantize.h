// qrt:ReduceMeanQuantizeDequantize's contract: a float32 ReduceMean of a fake-quantized input
// (qrt:QuantizeDequantize), optionally fake-quantizing its result too. Where each output's
// reduced elements are one contiguous run (the reduction of trailing axes: global average
// pooling, squeeze-and-excite) the input is fake-quantized one run at a time into a small
// buffer, so the fake-quantized tensor is never written out. fuse-reduce-mean-fake-quant builds
// it, ops/reduce.cc runs it. Attributes: ReduceMean's, with `axes` always an attribute.
#pragma once

namespace qrt::rmqd {

enum Input : int {
  kX = 0,
  kInScale = 1,
  kInZeroPoint = 2,   // optional
  kOutScale = 3,      // optional: the fake quantization of the result
  kOutZeroPoint = 4,  // optional
  kInputCount = 5,
};

}  // namespace qrt::rmqd
