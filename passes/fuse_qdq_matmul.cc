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

#include "ops/registry.h"
#include "passes/match_util.h"
#include "passes/passes.h"

namespace qrt {
namespace {

struct QuantOut {
  ValueId scale, zero_point;
};

// The Q reading `v` as its only reader, per tensor and 8-bit.
bool MatchOutputQ(const Graph& g, const Node& q, QuantOut* out) {
  if (q.dead || !q.domain.empty() || q.op_type != "QuantizeLinear" || q.inputs.size() < 3) return false;
  if (!q.inputs[0].valid() || !IsConstScalar(g, q.inputs[1]) || !IsUsableScale(g, q.inputs[1])) return false;
  if (!IsConstScalar(g, q.inputs[2]) || !Is8Bit(g.ConstantOf(q.inputs[2])->dtype())) return false;
  if (!HasSingleUse(g, q.inputs[0])) return false;
  *out = QuantOut{q.inputs[1], q.inputs[2]};
  return true;
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
  r.def = FindOp("", "Reshape");
  r.inputs = {x, shape};
  r.outputs = {y};
  return r;
}

// Q(MatMul(DQ(a), DQ(b))) at Q node `qi`; true if rewritten.
bool FuseMatMul(Graph& g, NodeId qi, const OpDef* def) {
  const Node& q = g.node(qi);
  QuantOut y;
  if (!MatchOutputQ(g, q, &y)) return false;
  const NodeId mm_id = ProducerIs(g, q.inputs[0], "MatMul");
  if (!mm_id.valid()) return false;
  const Node& mm = g.node(mm_id);
  DqInfo a, b;
  if (mm.inputs.size() != 2 || !MatchPerTensorDq(g, mm.inputs[0], &a) || !MatchDq(g, mm.inputs[1], &b)) return false;
  if (!Is8Bit(DqDataType(g, b))) return false;
  const Tensor* bt = g.ConstantOf(b.data);
  const std::optional<Shape>& bshape = g.value(b.data).shape;
  const int64_t b_rank = bt ? bt->rank() : (bshape ? int64_t(bshape->size()) : -1);
  const int64_t n = bt && b_rank == 2 ? bt->dims()[1] : -1;
  if (!BScaleFits(g, b, b_rank, 1, n)) return false;

  Node fused;
  fused.name = mm.name;
  fused.op_type = "QLinearMatMul";
  fused.opset = g.opsets.count("") ? g.opsets.at("") : 13;
  fused.def = def;
  const ValueId a_zp = a.zero_point.valid() ? a.zero_point : ZeroConstant(g, mm.name + "_a_zp", DqDataType(g, a), {});
  const ValueId b_zp = b.zero_point.valid() ? b.zero_point
                                            : ZeroConstant(g, mm.name + "_b_zp", DqDataType(g, b),
                                                           g.ConstantOf(b.scale)->dims());
  fused.inputs = {a.data, a.scale, a_zp, b.data, b.scale, b_zp, y.scale, y.zero_point};
  fused.outputs = g.node(qi).outputs;
  const std::vector<ValueId> dq_outputs = {g.node(mm_id).inputs[0], g.node(mm_id).inputs[1]};
  g.EraseNode(qi);
  g.EraseNode(mm_id);
  g.AddNode(std::move(fused));
  EraseDeadDqs(g, dq_outputs);
  return true;
}

// Q(Gemm(DQ(a), DQ(b), DQ(c))) at Q node `qi`; true if rewritten.
bool FuseGemm(Graph& g, NodeId qi, const OpDef* conv_def) {
  const Node& q = g.node(qi);
  QuantOut y;
  if (!MatchOutputQ(g, q, &y)) return false;
  const NodeId gm_id = ProducerIs(g, q.inputs[0], "Gemm");
  if (!gm_id.valid()) return false;
  const Node& gm = g.node(gm_id);
  auto f = [&](const char* k) { return gm.attrs.GetFloat(k, 1.f); };
  auto i = [&](const char* k) { return gm.attrs.GetInt(k, 0); };
  if (!f("alpha").ok() || *f("alpha") != 1.f || !f("beta").ok() || *f("beta") != 1.f) return false;
  if (!i("transA").ok() || *i("transA") != 0 || !i("transB").ok()) return false;
  const bool trans_b = *i("transB") != 0;
  DqInfo a, b, c;
  if (gm.inputs.size() < 2 || !MatchPerTensorDq(g, gm.inputs[0], &a) || !MatchDq(g, gm.inputs[1], &b)) return false;
  const Tensor* bt = g.ConstantOf(b.data);
  if (bt == nullptr || bt->rank() != 2 || !Is8Bit(bt->dtype()) || DqDataType(g, b) != bt->dtype()) return false;
  const int64_t k = trans_b ? bt->dims()[1] : bt->dims()[0];
  const int64_t n = trans_b ? bt->dims()[0] : bt->dims()[1];
  if (!BScaleFits(g, b, 2, trans_b ? 0 : 1, n)) return false;
  const Tensor& bs = *g.ConstantOf(b.scale);

  // The bias: int32 data whose DQ scale is exactly a_scale * b_scale[n] in f32.
  ValueId bias;
  if (gm.inputs.size() > 2 && gm.inputs[2].valid()) {
    if (!MatchDq(g, gm.inputs[2], &c) || !g.IsConstant(c.data)) return false;
    const Tensor& ct = *g.ConstantOf(c.data);
    const Tensor& cs = *g.ConstantOf(c.scale);
    if (ct.dtype() != DataType::kInt32 || ct.dims() != Dims{n} || cs.dtype() != DataType::kFloat32) return false;
    if (cs.numel() != 1 && cs.numel() != n) return false;
    if (c.zero_point.valid()) {
      const Tensor& cz = *g.ConstantOf(c.zero_point);
      for (int64_t j = 0; j < cz.numel(); ++j) {
        if (cz.GetAsInt64(j) != 0) return false;
      }
    }
    const float sa = g.ConstantOf(a.scale)->data<float>()[0];
    for (int64_t j = 0; j < n; ++j) {
      const float want = sa * bs.data<float>()[bs.numel() == 1 ? 0 : j];
      const float got = cs.data<float>()[cs.numel() == 1 ? 0 : j];
      if (std::memcmp(&want, &got, sizeof(float)) != 0) return false;
    }
    bias = c.data;
  }

  // W as N x K x 1 x 1.
  Tensor w = Tensor::Allocate(bt->dtype(), {n, k, 1, 1}).value();
  const char* src = static_cast<const char*>(bt->raw());
  char* dst = static_cast<char*>(w.raw());
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t j = 0; j < k; ++j) dst[r * k + j] = src[trans_b ? r * k + j : j * n + r];
  }
  const std::string name = gm.name;
  const ValueId w_id = g.AddUniqueValue(name + "_w", bt->dtype());
  g.value(w_id).shape = ShapeFromDims({n, k, 1, 1});
  g.value(w_id).constant = std::move(w);
  // QLinearConv takes b's scale and zero point as they are: one element, or [N].
  ValueId w_scale = b.scale, w_zp = b.zero_point;
  if (!w_zp.valid()) w_zp = ZeroConstant(g, name + "_w_zp", bt->dtype(), g.ConstantOf(w_scale)->dims());
  const ValueId a_zp = a.zero_point.valid() ? a.zero_point : ZeroConstant(g, name + "_a_zp", DqDataType(g, a), {});

  const ValueId a4 = g.AddUniqueValue(name + "_a4", DqDataType(g, a));
  const ValueId y4 = g.AddUniqueValue(name + "_y4", g.ConstantOf(y.zero_point)->dtype());
  Node conv = MakeNode(conv_def, name, {a4, a.scale, a_zp, w_id, w_scale, w_zp, y.scale, y.zero_point}, {y4});
  if (bias.valid()) conv.inputs.push_back(bias);
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
  return true;
}

}  // namespace

StatusOr<int> FuseQdqMatMul(Graph& g, Explanations* /*explain: not yet written as patterns*/) {
  const OpDef* matmul = FindOp("", "QLinearMatMul");
  const OpDef* conv = FindOp("qrt", "QLinearConv");
  if (matmul == nullptr || conv == nullptr) return Internal("QLinearMatMul or qrt:QLinearConv is not registered");
  int rewrites = 0;
  const size_t n_nodes = g.num_nodes();
  for (uint32_t i = 0; i < n_nodes; ++i) {
    if (g.node(NodeId{i}).dead) continue;
    if (FuseMatMul(g, NodeId{i}, matmul) || FuseGemm(g, NodeId{i}, conv)) ++rewrites;
  }
  return rewrites;
}

}  // namespace qrt
