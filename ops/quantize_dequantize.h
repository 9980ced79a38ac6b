// qrt:QuantizeDequantize's parameters (a per-tensor float32 scale and an optional 8-bit zero
// point), shared by the op itself and by ops that apply it to their output as an epilogue
// (qrt:ConvQuantizeDequantize), so that both check and run them the same way.
#pragma once

#include "ops/kernels/conv/output_epilogue.h"
#include "runtime/op_def.h"

namespace qrt {
namespace qdq {

// qrt:QuantizeDequantize's input slots (fuse-q-dq builds it): y = DequantizeLinear(
// QuantizeLinear(x, scale, zero_point)) with one float32 scale and an optional 8-bit zero point;
// no attributes.
enum Input : int {
  kX = 0,
  kScale = 1,
  kZeroPoint = 2,  // optional; uint8 when absent
  kInputCount = 3,
};

}  // namespace qdq

// Checks the scale at input `scale_input` and the zero point after it (optional) as
// qrt:QuantizeDequantize does; returns the float32 kernel for the quantized type and ISA.
StatusOr<QuantizeDequantizeF32Fn> PrepareFakeQuant(const PrepareContext& ctx, int scale_input);

// The grid (runtime/quant_grid.h) of a float32 value quantized to q_dtype (8-bit) with the scale at
// `scale_input` and the zero point after it, one per tensor (axis -1) or per index of `axis`;
// null unless both are known at plan time.
std::shared_ptr<const QuantGrid> ConstantGrid(const PrepareContext& ctx, int scale_input, DataType q_dtype,
                                              int64_t axis);

// The step of one run: `map` with the scale and zero point read from the inputs.
FakeQuantStep FakeQuantFromInputs(const RunArgs& args, int scale_input, QuantizeDequantizeF32Fn map);

}  // namespace qrt
