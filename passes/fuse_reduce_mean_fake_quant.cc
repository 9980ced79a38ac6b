// QuantizeDequantize -> ReduceMean [-> QuantizeDequantize]
//     -> qrt:ReduceMeanQuantizeDequantize                      (fuse-reduce-mean-fake-quant)
//
//   x --QDQ(s1, z1)--> xf --ReduceMean--> m [--QDQ(s2, z2)--> y]   =>
//   x --ReduceMeanQuantizeDequantize(s1, z1[, s2, z2])--> y
//
// The QDQ form of global average pooling and squeeze-and-excite. The fused op fake-quantizes
// each output's run of reduced elements into a small buffer and reduces it there, in the
// same order and with the same kernels, so it is bit-identical and never writes xf. Legality:
// float32 x; xf read only by the ReduceMean and not a graph output; axes an attribute or a
// constant input, and noop_with_empty_axes unset; the output QDQ is taken when it is the only
// reader of m.
#include "ops/quantize_dequantize.h"
#include "ops/reduce_mean_quantize_dequantize.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

StatusOr<Verdict> FuseReduceMean(Rewriter& rw, NodeId rm_id) {
  const Graph& g = rw.graph();
  const Node& rm = g.node(rm_id);
  const ValueId xf = InputOr(rm, 0);
  const NodeId in_id = ProducerIs(g, xf, kQuantizeDequantizeOp);
  if (!in_id.valid()) return Refuse("its input is not made by QuantizeDequantize");
  if (!HasSingleUse(g, xf)) return Refuse("the fake-quantized input has other readers");
  const Node& in = g.node(in_id);
  if (ImpliedDtype(g, InputOr(in, qdq::kX)) != DataType::kFloat32) return Refuse("the input is not float32");
  auto noop = rm.attrs.GetInt("noop_with_empty_axes", 0);
  if (!noop.ok() || *noop != 0) return Refuse("noop_with_empty_axes is set");
  Attributes attrs = rm.attrs;
  if (rm.opset >= 18 && InputOr(rm, 1).valid()) {
    const Tensor* axes = g.ConstantOf(rm.inputs[1]);
    if (axes == nullptr || axes->dtype() != DataType::kInt64) return Refuse("axes is not a constant int64 input");
    attrs.Set("axes", std::vector<int64_t>(axes->data<int64_t>(), axes->data<int64_t>() + axes->numel()));
  }
  Node fused = MakeNode(kReduceMeanQuantizeDequantizeOp, rm.name, std::vector<ValueId>(rmqd::kInputCount),
                        {rm.outputs[0]}, std::move(attrs));
  fused.attrs.Erase("noop_with_empty_axes");
  fused.inputs[rmqd::kX] = InputOr(in, qdq::kX);
  fused.inputs[rmqd::kInScale] = InputOr(in, qdq::kScale);
  fused.inputs[rmqd::kInZeroPoint] = InputOr(in, qdq::kZeroPoint);
  NodeId out_id;
  const std::vector<NodeId> readers = g.Consumers(rm.outputs[0]);
  if (readers.size() == 1 && HasSingleUse(g, rm.outputs[0]) && IsOp(g.node(readers[0]), kQuantizeDequantizeOp)) {
    out_id = readers[0];
    const Node& out = g.node(out_id);
    fused.outputs = {out.outputs[0]};
    fused.inputs[rmqd::kOutScale] = InputOr(out, qdq::kScale);
    fused.inputs[rmqd::kOutZeroPoint] = InputOr(out, qdq::kZeroPoint);
  }
  if (out_id.valid()) rw.EraseNode(out_id);
  rw.EraseNode(rm_id);
  rw.EraseNode(in_id);
  rw.AddNode(std::move(fused));
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseReduceMeanFakeQuant(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-reduce-mean-fake-quant", {{"qdq-reduce-mean", &kReduceMeanOp, FuseReduceMean}}, explain);
}

}  // namespace qrt
