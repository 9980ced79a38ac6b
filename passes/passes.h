// Every pass's entry point. Each is defined in its own file in passes/. `explain` (may be
// null) collects what each candidate became, for the passes written as patterns.
#pragma once

#include "passes/rewriter.h"
#include "runtime/graph.h"

namespace qrt {

// Identity(x) -> x, unless the Identity's output is a graph output.
StatusOr<int> EliminateIdentity(Graph& graph, Explanations* explain);
// Evaluates nodes whose inputs are all constants (DequantizeLinear excepted).
StatusOr<int> FoldConstants(Graph& graph, Explanations* explain);
// Q(f(DQ(x))) -> LookupTable(x, table) for unary f and per-tensor 8-bit quantization.
StatusOr<int> FuseQdqUnary(Graph& graph, Explanations* explain);
// Whether fuse-qdq-unary's regions may hold an op: element-wise, its output at an index depending
// only on its inputs at that index (user lookup-table patterns, user_patterns.h, use the list too).
bool IsElementwiseRegionOp(const OpDef* def);
// Q([Relu|Clip](Conv(DQ(x), DQ(w), DQ(b)))) -> qrt:QLinearConv: within one step.
StatusOr<int> FuseQdqConv(Graph& graph, Explanations* explain);
// Q(MatMul(DQ, DQ)) -> QLinearMatMul, Q(Gemm(DQ, DQ, DQ)) -> qrt:QLinearConv 1x1: within one step.
StatusOr<int> FuseQdqMatMul(Graph& graph, Explanations* explain);
// Q(DQ(a) * DQ(b)) -> QuantizedMul(a, b, requantize=divide): bit-identical.
StatusOr<int> FuseDqMulQ(Graph& graph, Explanations* explain);
// Q(DQ(a) + DQ(b)) -> QuantizedAdd(a, b, requantize=divide): bit-identical.
StatusOr<int> FuseDqAddQ(Graph& graph, Explanations* explain);
// DQ(Q(x)) with one per-tensor scale and zero point -> qrt:QuantizeDequantize(x): bit-identical.
StatusOr<int> FuseQDq(Graph& graph, Explanations* explain);
// [QuantizeDequantize ->] LayerNormalization -> QuantizeDequantize becomes
// qrt:LayerNormQuantizeDequantize (row by row): bit-identical.
StatusOr<int> FuseLayerNormFakeQuant(Graph& graph, Explanations* explain);
// ConvInteger [-> Add(int32 bias)] -> Cast -> Mul(scale) [-> Add(bias)] ->
// qrt:ConvIntegerToFloat, MatMulInteger -> Cast -> Mul(scale) [-> Add(bias)] ->
// qrt:MatMulIntegerScaled: bit-identical.
StatusOr<int> FuseIntegerEpilogue(Graph& graph, Explanations* explain);
// ConvTranspose -> QuantizeDequantize becomes qrt:ConvTransposeQuantizeDequantize (the fake
// quantization on each plane after its bias): bit-identical.
StatusOr<int> FuseConvTransposeFakeQuant(Graph& graph, Explanations* explain);
// QuantizeDequantize -> ReduceMean [-> QuantizeDequantize] becomes
// qrt:ReduceMeanQuantizeDequantize (each run fake-quantized as it is reduced): bit-identical.
StatusOr<int> FuseReduceMeanFakeQuant(Graph& graph, Explanations* explain);
// Conv -> QuantizeDequantize, or Conv -> [QuantizeDequantize ->] PRelu -> QuantizeDequantize,
// becomes qrt:ConvQuantizeDequantize (the steps as the convolution's epilogue): bit-identical.
StatusOr<int> FuseConvFakeQuant(Graph& graph, Explanations* explain);
// qrt:ConvQuantizeDequantize (1x1) -> depthwise qrt:ConvQuantizeDequantize passes 8-bit codes
// instead of their dequantized floats: bit-identical.
StatusOr<int> LinkConvCodes(Graph& graph, Explanations* explain);
// Mul(x, Sigmoid(x)) -> qrt:Silu(x) (float32; the Mul's operand order kept): bit-identical.
StatusOr<int> FuseSilu(Graph& graph, Explanations* explain);
// MatMul(A, DequantizeLinear(4-bit W)) -> qrt:MatMulInt4 (packed codes, same floats and order).
StatusOr<int> FuseDqInt4MatMul(Graph& graph, Explanations* explain);
// Q(Softmax(DQ(x))) -> qrt:SoftmaxQuantized, per tensor 8-bit, row by row: bit-identical.
StatusOr<int> FuseDqSoftmaxQ(Graph& graph, Explanations* explain);
// Q(MaxPool(DQ(q))) with one grid -> MaxPool(q) on the codes: bit-identical.
StatusOr<int> FuseDqMaxPoolQ(Graph& graph, Explanations* explain);
// Q(LayerNormalization(DQ(x))) -> qrt:LayerNormQuantized, per tensor 8-bit, row by row:
// bit-identical.
StatusOr<int> FuseDqLayerNormQ(Graph& graph, Explanations* explain);
// Removes nodes none of whose outputs reach a graph output.
StatusOr<int> EliminateDeadNodes(Graph& graph, Explanations* explain);

}  // namespace qrt
