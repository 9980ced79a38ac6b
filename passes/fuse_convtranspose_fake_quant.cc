// ConvTranspose -> QuantizeDequantize -> qrt:ConvTransposeQuantizeDequantize
//                                                          (fuse-convtranspose-fake-quant)
//
//   x --ConvTranspose(w, b)--> t --QDQ(s, z)--> y      =>      x --ConvTransposeQDQ(w, b, s, z)--> y
//
// In a QDQ decoder every ConvTranspose's output is fake-quantized (after fuse-q-dq). The fused
// op runs the fake quantization on each output plane right after adding its bias, with the
// same kernel, so it is bit-identical and saves a pass over the output (the largest tensor
// of an upsampling layer). Legality: float32 X and W; t read only by the QDQ and not a graph
// output.
#include "ops/conv_transpose_quantize_dequantize.h"
#include "ops/quantize_dequantize.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

StatusOr<Verdict> FuseConvTranspose(Rewriter& rw, NodeId qdq_id) {
  const Graph& g = rw.graph();
  const Node& qdq = g.node(qdq_id);
  const NodeId ct_id = ProducerIs(g, InputOr(qdq, qdq::kX), kConvTransposeOp);
  if (!ct_id.valid()) return Refuse("its input is not made by ConvTranspose");
  const Node& ct = g.node(ct_id);
  if (!HasSingleUse(g, ct.outputs[0])) return Refuse("the ConvTranspose's output has other readers");
  const ValueId x = InputOr(ct, 0), w = InputOr(ct, 1), b = InputOr(ct, 2);
  if (ImpliedDtype(g, x) != DataType::kFloat32 || ImpliedDtype(g, w) != DataType::kFloat32 ||
      (b.valid() && ImpliedDtype(g, b) != DataType::kFloat32)) {
    return Refuse("X, W or B is not float32");
  }
  Node fused = MakeNode(kConvTransposeQuantizeDequantizeOp, ct.name, std::vector<ValueId>(ctqd::kInputCount),
                        {qdq.outputs[0]}, ct.attrs);
  fused.inputs[ctqd::kX] = x;
  fused.inputs[ctqd::kW] = w;
  fused.inputs[ctqd::kB] = b;
  fused.inputs[ctqd::kScale] = InputOr(qdq, qdq::kScale);
  fused.inputs[ctqd::kZeroPoint] = InputOr(qdq, qdq::kZeroPoint);
  rw.EraseNode(qdq_id);
  rw.EraseNode(ct_id);
  rw.AddNode(std::move(fused));
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseConvTransposeFakeQuant(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-convtranspose-fake-quant",
                     {{"convtranspose-qdq", &kQuantizeDequantizeOp, FuseConvTranspose}}, explain);
}

}  // namespace qrt
