// [QuantizeDequantize ->] LayerNormalization -> QuantizeDequantize
//     -> qrt:LayerNormQuantizeDequantize                       (fuse-layernorm-fake-quant)
//
//   x --QDQ(s1, z1)--> xf --LayerNorm--> t --QDQ(s2, z2)--> y   =>
//   x --LayerNormQuantizeDequantize(s1, z1, s2, z2)--> y
//
// In a QDQ transformer every LayerNormalization sits between two fake quantizations (after
// fuse-q-dq). The fused op runs the same three kernels on one row at a time (a row of the
// normalized axes is independent of the others), so its output is bit-identical and neither
// xf nor t is written out. Legality: float32 X, Scale and B; the LayerNormalization's Mean
// and InvStdDev outputs unused; t read only by the QDQ and not a graph output. The input QDQ
// is taken only when xf has no other reader (a residual branch usually reads it too); else
// the fused op reads xf as the unfused one does.
#include "ops/layer_norm_quantize_dequantize.h"
#include "ops/quantize_dequantize.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

bool IsFloat32(const Graph& g, ValueId v) { return v.valid() && ImpliedDtype(g, v) == DataType::kFloat32; }

StatusOr<Verdict> FuseLayerNorm(Rewriter& rw, NodeId out_qdq_id) {
  const Graph& g = rw.graph();
  const Node& out_qdq = g.node(out_qdq_id);
  const NodeId ln_id = ProducerIs(g, InputOr(out_qdq, qdq::kX), kLayerNormalizationOp);
  if (!ln_id.valid()) return Refuse("its input is not made by LayerNormalization");
  const Node& ln = g.node(ln_id);
  if (!HasSingleUse(g, ln.outputs[0])) return Refuse("the LayerNormalization's output has other readers");
  for (size_t k = 1; k < ln.outputs.size(); ++k) {
    const ValueId stat = ln.outputs[k];
    if (stat.valid() && (!g.Consumers(stat).empty() || g.IsGraphOutput(stat))) {
      return Refuse("the LayerNormalization's Mean or InvStdDev is used");
    }
  }
  const ValueId x = InputOr(ln, 0), scale = InputOr(ln, 1), bias = InputOr(ln, 2);
  if (!IsFloat32(g, x) || !IsFloat32(g, scale) || (bias.valid() && !IsFloat32(g, bias))) {
    return Refuse("X, Scale or B is not float32");
  }
  Node fused = MakeNode(kLayerNormQuantizeDequantizeOp, ln.name, std::vector<ValueId>(lnqd::kInputCount),
                        {out_qdq.outputs[0]}, ln.attrs);
  fused.inputs[lnqd::kX] = x;
  fused.inputs[lnqd::kScale] = scale;
  fused.inputs[lnqd::kBias] = bias;
  fused.inputs[lnqd::kOutScale] = InputOr(out_qdq, qdq::kScale);
  fused.inputs[lnqd::kOutZeroPoint] = InputOr(out_qdq, qdq::kZeroPoint);
  NodeId in_qdq_id = ProducerIs(g, x, kQuantizeDequantizeOp);
  if (in_qdq_id.valid() && HasSingleUse(g, x)) {
    const Node& in_qdq = g.node(in_qdq_id);
    fused.inputs[lnqd::kX] = InputOr(in_qdq, qdq::kX);
    fused.inputs[lnqd::kInScale] = InputOr(in_qdq, qdq::kScale);
    fused.inputs[lnqd::kInZeroPoint] = InputOr(in_qdq, qdq::kZeroPoint);
    if (!IsFloat32(g, fused.inputs[lnqd::kX])) return Refuse("the input fake quantization does not read float32");
  } else {
    in_qdq_id = NodeId{};
  }
  rw.EraseNode(out_qdq_id);
  rw.EraseNode(ln_id);
  if (in_qdq_id.valid()) rw.EraseNode(in_qdq_id);
  rw.AddNode(std::move(fused));
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseLayerNormFakeQuant(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-layernorm-fake-quant", {{"layernorm-qdq", &kQuantizeDequantizeOp, FuseLayerNorm}},
                     explain);
}

}  // namespace qrt
