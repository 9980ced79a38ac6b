// Integer matrix products from QDQ chains                          (fuse-qdq-matmul)
//
//   Q(MatMul(DQ(a), DQ(b)))          -> QLinearMatMul(a, b)
//   Q(Gemm(DQ(a), DQ(b), DQ(c)))     -> Reshape(qrt:QLinearConv(Reshape(a, [M,K,1,1]), b as [N,K,1,1], c),
//                                               [M,N])
//
// Like fuse-qdq-conv, not bit-exact by nature: the fused node sums exact int32 products
// and requantizes once (ONNX QLinearMatMul / QLinearConv, which round the same way), the
// float graph sums float products; they differ by at most one quantization step where the
// float graph is inexact (tested). A Gemm is a 1x1 convolution of its rows, which gives it
// an int32 bias. Legality:
// - a: 8-bit DQ with a constant per-tensor scale and zero point; b: 8-bit DQ with a
//   per-tensor scale or one per output column (MatMul: 2-D b, axis 1; Gemm: constant b);
// - Gemm: alpha = beta = 1, transA = 0, 2-D A; c (optional) is a DQ of constant int32 [N]
//   data with zero point 0 and scale exactly a_scale * b_scale[n] in f32;
// - y: per-tensor 8-bit QuantizeLinear with a constant usable scale; the product's output
//   is read only by it and is not a graph output.
#include <cstring>

#include "ops/qlinear_conv.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

struct QuantOut {
  ValueId scale, zero_point;
};

// "" if q quantizes per tensor to 8 bits and is its input's only reader, else why not.
std::string MatchOutputQ(const Graph& g, const Node& q, QuantOut* out) {
  if (q.inputs.size() < 3 || !q.inputs[0].valid()) return "no zero point input";
  if (!IsConstScalar(g, q.inputs[1]) || !IsUsableScale(g, q.inputs[1])) return "the scale is not one usable constant";
  if (!IsConstScalar(g, q.inputs[2]) || !Is8Bit(g.ConstantOf(q.inputs[2])->dtype())) {
    return "the zero point is not one constant 8-bit value";
  }
  if (!HasSingleUse(g, q.inputs[0])) return "its input has other readers";
  *out = QuantOut{q.inputs[1], q.inputs[2]};
  return "";
}

// A per-tensor 8-bit DQ with a usable scale (the A operand).
bool MatchPerTensorDq(const Graph& g, ValueId v, DqInfo* d) {
  if (!MatchDq(g, v, d) || !Is8Bit(DqDataType(g, *d))) return false;
  if (!IsConstScalar(g, d->scale) || !IsUsableScale(g, d->scale)) return false;
  return !d->zero_point.valid() || IsConstScalar(g, d->zero_point);
}

// b's scale: per tensor, or per column `n` along `axis` of a 2-D b.
bool BScaleFits(const Graph& g, const DqInfo& b, int64_t rank, int64_t axis, int64_t n) {
  if (!IsUsableScale(g, b.scale)) return false;
  const Tensor& s = *g.ConstantOf(b.scale);
  if (b.zero_point.valid() && g.ConstantOf(b.zero_point)->dims() != s.dims()) return false;
  if (s.numel() == 1 && s.rank() <= 1) return true;
  StatusOr<int64_t> a = g.node(b.node).attrs.GetInt("axis", 1);
  return rank == 2 && a.ok() && (*a == axis || *a == axis - 2) && s.dims() == Dims{n};
}

void EraseDeadDqs(Graph& g, const std::vector<ValueId>& dq_outputs) {
  for (ValueId v : dq_outputs) {
    if (!v.valid()) continue;
    NodeId dq = g.value(v).producer;
    if (dq.valid() && !g.node(dq).dead && g.Consumers(v).empty() && !g.IsGraphOutput(v)) g.EraseNode(dq);
  }
}

ValueId ShapeConstant(Graph& g, const std::string& base, const std::vector<int64_t>& dims) {
  ValueId id = g.AddUniqueValue(base, DataType::kInt64);
  g.value(id).shape = ShapeFromDims({int64_t(dims.size())});
  g.value(id).constant = Tensor::FromVector(dims, {int64_t(dims.size())});
  return id;
}

Node MakeReshape(Graph& g, const std::string& name, ValueId x, ValueId shape, ValueId y) {
  Node r;
  r.name = name;
  r.op_type = "Reshape";
  r.opset = g.opsets.count("") ? g.opsets.at("") : 13;
  r.def = &kReshapeOp;
  r.inputs = {x, shape};
  r.outputs = {y};
  return r;
}

// Q(MatMul(DQ(a), DQ(b))) at Q node `qi`.
StatusOr<Verdict> FuseMatMul(Rewriter& rw, NodeId qi) {
  const Graph& cg = rw.graph();
  const Node& q = cg.node(qi);
  QuantOut y;
  const NodeId mm_id = ProducerIs(cg, q.inputs.empty() ? ValueId{} : q.inputs[0], kMatMulOp);
  if (!mm_id.valid()) return Refuse("its input is not made by MatMul");
  if (std::string why = MatchOutputQ(cg, q, &y); !why.empty()) return Refuse(why);
  const Node& mm = cg.node(mm_id);
  DqInfo a, b;
  if (mm.inputs.size() != 2 || !MatchPerTensorDq(cg, mm.inputs[0], &a)) {
    return Refuse("A is not a per-tensor 8-bit DequantizeLinear with a usable scale");
  }
  if (!MatchDq(cg, mm.inputs[1], &b) || !Is8Bit(DqDataType(cg, b))) return Refuse("B is not an 8-bit DequantizeLinear");
  const Tensor* bt = cg.ConstantOf(b.data);
  const std::optional<Shape>& bshape = cg.value(b.data).shape;
  const int64_t b_rank = bt ? bt->rank() : (bshape ? int64_t(bshape->size()) : -1);
  const int64_t n = bt && b_rank == 2 ? bt->dims()[1] : -1;
  if (!BScaleFits(cg, b, b_rank, 1, n)) return Refuse("B's scale is neither per tensor nor per column");
  // Copied before the graph grows: adding a value may move every tensor the graph holds.
  const Dims b_scale_dims = cg.ConstantOf(b.scale)->dims();
  Graph& g = rw.Mutate();

  Node fused;
  fused.name = mm.name;
  fused.op_type = "QLinearMatMul";
  fused.opset = g.opsets.count("") ? g.opsets.at("") : 13;
  fused.def = &kQLinearMatMulOp;
  const ValueId a_zp = a.zero_point.valid() ? a.zero_point : ZeroConstant(g, mm.name + "_a_zp", DqDataType(g, a), {});
  const ValueId b_zp =
      b.zero_point.valid() ? b.zero_point : ZeroConstant(g, mm.name + "_b_zp", DqDataType(g, b), b_scale_dims);
  fused.inputs = {a.data, a.scale, a_zp, b.data, b.scale, b_zp, y.scale, y.zero_point};
  fused.outputs = g.node(qi).outputs;
  const std::vector<ValueId> dq_outputs = {g.node(mm_id).inputs[0], g.node(mm_id).inputs[1]};
  g.EraseNode(qi);
  g.EraseNode(mm_id);
  g.AddNode(std::move(fused));
  EraseDeadDqs(g, dq_outputs);
  return Rewrote();
}

// Q(Gemm(DQ(a), DQ(b), DQ(c))) at Q node `qi`.
StatusOr<Verdict> FuseGemm(Rewriter& rw, NodeId qi) {
  const Graph& cg = rw.graph();
  const Node& q = cg.node(qi);
  QuantOut y;
  const NodeId gm_id = ProducerIs(cg, q.inputs.empty() ? ValueId{} : q.inputs[0], kGemmOp);
  if (!gm_id.valid()) return Refuse("its input is not made by Gemm");
  if (std::string why = MatchOutputQ(cg, q, &y); !why.empty()) return Refuse(why);
  const Node& gm = cg.node(gm_id);
  auto f = [&](const char* k) { return gm.attrs.GetFloat(k, 1.f); };
  auto i = [&](const char* k) { return gm.attrs.GetInt(k, 0); };
  if (!f("alpha").ok() || *f("alpha") != 1.f || !f("beta").ok() || *f("beta") != 1.f) {
    return Refuse("alpha or beta is not 1");
  }
  if (!i("transA").ok() || *i("transA") != 0 || !i("transB").ok()) return Refuse("transA is set");
  const bool trans_b = *i("transB") != 0;
  DqInfo a, b, c;
  if (gm.inputs.size() < 2 || !MatchPerTensorDq(cg, gm.inputs[0], &a)) {
    return Refuse("A is not a per-tensor 8-bit DequantizeLinear with a usable scale");
  }
  if (!MatchDq(cg, gm.inputs[1], &b)) return Refuse("B is not made by a DequantizeLinear");
  const Tensor* bt = cg.ConstantOf(b.data);
  if (bt == nullptr || bt->rank() != 2 || !Is8Bit(bt->dtype()) || DqDataType(cg, b) != bt->dtype()) {
    return Refuse("B is not a constant 2-D 8-bit tensor");
  }
  const int64_t k = trans_b ? bt->dims()[1] : bt->dims()[0];
  const int64_t n = trans_b ? bt->dims()[0] : bt->dims()[1];
  if (!BScaleFits(cg, b, 2, trans_b ? 0 : 1, n)) return Refuse("B's scale is neither per tensor nor per column");
  const Tensor& bs = *cg.ConstantOf(b.scale);

  // The bias: int32 data whose DQ scale is exactly a_scale * b_scale[n] in f32.
  ValueId bias;
  if (gm.inputs.size() > 2 && gm.inputs[2].valid()) {
    if (!MatchDq(cg, gm.inputs[2], &c) || !cg.IsConstant(c.data)) return Refuse("C is not a dequantized constant");
    const Tensor& ct = *cg.ConstantOf(c.data);
    const Tensor& cs = *cg.ConstantOf(c.scale);
    if (ct.dtype() != DataType::kInt32 || ct.dims() != Dims{n} || cs.dtype() != DataType::kFloat32 ||
        (cs.numel() != 1 && cs.numel() != n)) {
      return Refuse("C is not int32 [N] with a float32 scale per tensor or column");
    }
    if (c.zero_point.valid()) {
      const Tensor& cz = *cg.ConstantOf(c.zero_point);
      for (int64_t j = 0; j < cz.numel(); ++j) {
        if (cz.GetAsInt64(j) != 0) return Refuse("C's zero point is not 0");
      }
    }
    const float sa = cg.ConstantOf(a.scale)->data<float>()[0];
    for (int64_t j = 0; j < n; ++j) {
      const float want = sa * bs.data<float>()[bs.numel() == 1 ? 0 : j];
      const float got = cs.data<float>()[cs.numel() == 1 ? 0 : j];
      if (std::memcmp(&want, &got, sizeof(float)) != 0) return Refuse("C's scale is not A's times B's");
    }
    bias = c.data;
  }
  Graph& g = rw.Mutate();

  // W as N x K x 1 x 1.
  Tensor w = Tensor::Allocate(bt->dtype(), {n, k, 1, 1}).value();
  const char* src = static_cast<const char*>(bt->raw());
  char* dst = static_cast<char*>(w.raw());
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t j = 0; j < k; ++j) dst[r * k + j] = src[trans_b ? r * k + j : j * n + r];
  }
  const std::string name = gm.name;
  // Copied before the graph grows: adding a value may move every tensor the graph holds.
  const DataType b_type = bt->dtype();
  const Dims b_scale_dims = g.ConstantOf(b.scale)->dims();
  const ValueId w_id = g.AddUniqueValue(name + "_w", b_type);
  g.value(w_id).shape = ShapeFromDims({n, k, 1, 1});
  g.value(w_id).constant = std::move(w);
  // QLinearConv takes b's scale and zero point as they are: one element, or [N].
  ValueId w_scale = b.scale, w_zp = b.zero_point;
  if (!w_zp.valid()) w_zp = ZeroConstant(g, name + "_w_zp", b_type, b_scale_dims);
  const ValueId a_zp = a.zero_point.valid() ? a.zero_point : ZeroConstant(g, name + "_a_zp", DqDataType(g, a), {});

  const ValueId a4 = g.AddUniqueValue(name + "_a4", DqDataType(g, a));
  const ValueId y4 = g.AddUniqueValue(name + "_y4", g.ConstantOf(y.zero_point)->dtype());
  Node conv = MakeNode(kQrtQLinearConvOp, name, {}, {y4});
  conv.inputs.resize(bias.valid() ? qlconv::kInputCount : qlconv::kB);
  conv.inputs[qlconv::kX] = a4;
  conv.inputs[qlconv::kXScale] = a.scale;
  conv.inputs[qlconv::kXZeroPoint] = a_zp;
  conv.inputs[qlconv::kW] = w_id;
  conv.inputs[qlconv::kWScale] = w_scale;
  conv.inputs[qlconv::kWZeroPoint] = w_zp;
  conv.inputs[qlconv::kYScale] = y.scale;
  conv.inputs[qlconv::kYZeroPoint] = y.zero_point;
  if (bias.valid()) conv.inputs[qlconv::kB] = bias;
  const ValueId out = g.node(qi).outputs[0];
  const std::vector<ValueId> dq_outputs = {gm.inputs[0], gm.inputs[1], bias.valid() ? gm.inputs[2] : ValueId{}};
  Node to4 = MakeReshape(g, name + "_rows", a.data, ShapeConstant(g, name + "_shape4", {0, k, 1, 1}), a4);
  Node to2 = MakeReshape(g, name + "_out", y4, ShapeConstant(g, name + "_shape2", {0, n}), out);
  g.EraseNode(qi);
  g.EraseNode(gm_id);
  g.AddNode(std::move(to4));
  g.AddNode(std::move(conv));
  g.AddNode(std::move(to2));
  if (!g.opsets.count("qrt")) g.opsets["qrt"] = 1;
  EraseDeadDqs(g, dq_outputs);
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseQdqMatMul(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-qdq-matmul",
                     {{"dq-matmul-q", &kQuantizeLinearOp, FuseMatMul}, {"dq-gemm-q", &kQuantizeLinearOp, FuseGemm}},
                     explain);
}

}  // namespace qrt
