// ConvInteger [-> Add(int32 bias)] -> Cast(float) -> Mul(scale) [-> Add(float bias)]
//     -> qrt:ConvIntegerToFloat                              (fuse-integer-epilogue)
// MatMulInteger -> Cast(float) -> Mul(scale) [-> Add(float bias)]
//     -> qrt:MatMulIntegerScaled
//
// The chain ONNX Runtime's dynamic quantizer writes for every convolution: the int32
// accumulators, their bias, the conversion, and the product of the input's dynamic scale with
// the weights' scale. The fused node runs the same integer convolution and then the chain's
// operations element by element, in the chain's order (ops/conv_integer_to_float.h), so the
// output is bit-identical and none of the three or four intermediate tensors is written out.
// The matrix product's chain likewise (ops/matmul_integer_scaled.h), with B a constant 2-D
// [K, N] matrix and the scale and bias of shape [], [1] or [N].
// Legality: each intermediate read only by the next node and not a graph output; W constant (it
// gives Y's rank); the int32 bias, the scale and the float bias of one element or one per output
// channel, their shapes known here (constants, a DynamicQuantizeLinear's scale, element-wise
// arithmetic, casts and roundings of those, reshapes to constant shapes: the quantizer computes
// the int32 bias at run time from the dynamic scale) and not widening Y.
#include <optional>
#include <string>

#include "ops/conv_integer_to_float.h"
#include "ops/matmul_integer_scaled.h"
#include "passes/match_util.h"
#include "passes/passes.h"
#include "passes/rewriter.h"

namespace qrt {
namespace {

// The dims of `v` where the graph fixes them: a constant's, a DynamicQuantizeLinear scale's
// ([]), or the broadcast of two known operands of an element-wise Mul, Div, Add or Sub.
std::optional<Dims> KnownDims(const Graph& g, ValueId v, int depth = 0) {
  if (!v.valid() || depth > 8) return std::nullopt;
  if (const Tensor* t = g.ConstantOf(v)) return t->dims();
  const NodeId p = g.value(v).producer;
  if (!p.valid() || g.node(p).dead) return std::nullopt;
  const Node& n = g.node(p);
  if (n.def == &kDynamicQuantizeLinearOp) {
    if (n.outputs.size() > 1 && n.outputs[1] == v) return Dims{};
    return std::nullopt;
  }
  if (n.def == &kCastOp || n.def == &kFloorOp || n.def == &kCeilOp || n.def == &kRoundOp || n.def == &kNegOp) {
    return KnownDims(g, InputOr(n, 0), depth + 1);
  }
  if (n.def == &kReshapeOp) {  // to a constant shape, its 0s and one -1 resolved from known input dims
    const Tensor* shape = g.ConstantOf(InputOr(n, 1));
    const std::optional<Dims> in = KnownDims(g, InputOr(n, 0), depth + 1);
    if (shape == nullptr || shape->dtype() != DataType::kInt64 || shape->rank() != 1 || !in) return std::nullopt;
    const auto allowzero = n.attrs.GetInt("allowzero", 0);
    if (!allowzero.ok() || *allowzero != 0) return std::nullopt;
    Dims d;
    int64_t known = 1, unknown_at = -1;
    for (int64_t i = 0; i < shape->numel(); ++i) {
      int64_t v = shape->data<int64_t>()[i];
      if (v == 0) {
        if (size_t(i) >= in->size()) return std::nullopt;
        v = (*in)[size_t(i)];
      }
      if (v == -1) {
        if (unknown_at >= 0) return std::nullopt;
        unknown_at = i;
        v = 1;
      } else if (v < 0) {
        return std::nullopt;
      }
      known *= v;
      d.push_back(v);
    }
    const int64_t count = ElementCount(*in);
    if (unknown_at >= 0) {
      if (known == 0 || count % known != 0) return std::nullopt;
      d[size_t(unknown_at)] = count / known;
    }
    if (ElementCount(d) != count) return std::nullopt;
    return d;
  }
  if ((n.def == &kMulOp || n.def == &kDivOp || n.def == &kAddOp || n.def == &kSubOp) && n.inputs.size() == 2) {
    std::optional<Dims> a = KnownDims(g, n.inputs[0], depth + 1), b = KnownDims(g, n.inputs[1], depth + 1);
    if (!a || !b) return std::nullopt;
    Dims out(std::max(a->size(), b->size()), 1);
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t da = i < out.size() - a->size() ? 1 : (*a)[i - (out.size() - a->size())];
      const int64_t db = i < out.size() - b->size() ? 1 : (*b)[i - (out.size() - b->size())];
      if (da != db && da != 1 && db != 1) return std::nullopt;
      out[i] = da == 1 ? db : da;
    }
    return out;
  }
  return std::nullopt;
}

// One element, or one per channel (citf::PerChannel), on dims known here.
bool PerChannel(const std::optional<Dims>& d, size_t rank, int64_t m) { return d && citf::PerChannel(*d, rank, m); }

// The operand of a two-input node that is not `v`; invalid if both are.
ValueId OtherInput(const Node& n, ValueId v) {
  if (n.inputs.size() != 2) return ValueId{};
  if (n.inputs[0] == v && n.inputs[1] != v) return n.inputs[1];
  if (n.inputs[1] == v && n.inputs[0] != v) return n.inputs[0];
  return ValueId{};
}

// The single live reader of `v` if it is the op `op` and `v` is not a graph output.
NodeId OnlyReaderIs(const Graph& g, ValueId v, const OpDef& op) {
  if (!HasSingleUse(g, v)) return NodeId{};
  const NodeId r = g.Consumers(v)[0];
  return IsOp(g.node(r), op) ? r : NodeId{};
}

// A float32 operand of shape [], [1] or [n].
bool PerColumn(const Graph& g, ValueId v, int64_t n) {
  if (!v.valid() || ImpliedDtype(g, v) != DataType::kFloat32) return false;
  const std::optional<Dims> d = KnownDims(g, v);
  return d && (d->empty() || (d->size() == 1 && ((*d)[0] == 1 || (*d)[0] == n)));
}

// The float half both chains share: Cast -> Mul(scale) [-> Add(bias)], each value read only by
// the next node, the scale (and the bias, else the Add stays) accepted by `fits`.
struct ScaleAndBias {
  NodeId mul, add;      // add: invalid without a bias
  ValueId scale, bias;  // bias: invalid without one
  ValueId y;            // the chain's output: the Add's, else the Mul's
};

// Fills `out`; returns why the chain does not match (`scale_refusal` for a scale `fits`
// refuses), or "".
template <class Fits>
std::string MatchScaleAndBias(const Graph& g, const Node& cast, Fits fits, const char* scale_refusal,
                              ScaleAndBias& out) {
  out.mul = OnlyReaderIs(g, cast.outputs[0], kMulOp);
  if (!out.mul.valid()) return "the Cast's output is not read by one Mul only";
  out.scale = OtherInput(g.node(out.mul), cast.outputs[0]);
  if (!fits(out.scale)) return scale_refusal;
  out.y = g.node(out.mul).outputs[0];
  const NodeId add = OnlyReaderIs(g, out.y, kAddOp);
  if (add.valid()) {
    const ValueId b = OtherInput(g.node(add), out.y);
    if (fits(b)) {
      out.add = add;
      out.bias = b;
      out.y = g.node(add).outputs[0];
    }
  }
  return "";
}

void EraseScaleAndBias(Rewriter& rw, const ScaleAndBias& tail, NodeId cast_id) {
  if (tail.add.valid()) rw.EraseNode(tail.add);
  rw.EraseNode(tail.mul);
  rw.EraseNode(cast_id);
}

StatusOr<Verdict> FuseMatMulEpilogue(Rewriter& rw, NodeId cast_id) {
  const Graph& g = rw.graph();
  const Node& cast = g.node(cast_id);
  const ValueId acc = InputOr(cast, 0);
  if (!HasSingleUse(g, acc)) return Refuse("the MatMulInteger's output has other readers");
  const NodeId mm_id = ProducerIs(g, acc, kMatMulIntegerOp);
  const Node& mm = g.node(mm_id);
  const Tensor* b = g.ConstantOf(InputOr(mm, 1));
  if (b == nullptr || b->rank() != 2) return Refuse("B is not a constant 2-D matrix");
  const int64_t n = b->dims()[1];
  ScaleAndBias tail;
  const std::string why = MatchScaleAndBias(
      g, cast, [&](ValueId v) { return PerColumn(g, v, n); },
      "the Mul's scale is not a float32 of known shape [], [1] or [N]", tail);
  if (!why.empty()) return Refuse(why);
  Node fused = MakeNode(kQrtMatMulIntegerScaledOp, mm.name, std::vector<ValueId>(mis::kInputCount), {tail.y}, mm.attrs);
  fused.inputs[mis::kA] = InputOr(mm, 0);
  fused.inputs[mis::kB] = InputOr(mm, 1);
  fused.inputs[mis::kAZeroPoint] = InputOr(mm, 2);
  fused.inputs[mis::kBZeroPoint] = InputOr(mm, 3);
  fused.inputs[mis::kScale] = tail.scale;
  fused.inputs[mis::kBias] = tail.bias;
  EraseScaleAndBias(rw, tail, cast_id);
  rw.EraseNode(mm_id);
  rw.AddNode(std::move(fused));
  return Rewrote();
}

StatusOr<Verdict> FuseEpilogue(Rewriter& rw, NodeId cast_id) {
  const Graph& g = rw.graph();
  const Node& cast = g.node(cast_id);
  auto to = cast.attrs.GetInt("to");
  if (!to.ok() || *to != 1) return Refuse("it does not cast to float32");
  ValueId acc = InputOr(cast, 0);
  NodeId add_id = ProducerIs(g, acc, kAddOp);
  ValueId int_bias;
  if (add_id.valid()) {
    if (!HasSingleUse(g, acc)) return Refuse("the int32 bias sum has other readers");
    const Node& add = g.node(add_id);
    for (ValueId in : add.inputs) {
      if (ProducerIs(g, in, kConvIntegerOp).valid()) acc = in;
    }
    int_bias = OtherInput(add, acc);
    if (!int_bias.valid() || ImpliedDtype(g, int_bias) != DataType::kInt32) {
      return Refuse("the Add before the Cast does not add an int32 bias to a ConvInteger's output");
    }
  }
  if (!add_id.valid() && ProducerIs(g, acc, kMatMulIntegerOp).valid()) return FuseMatMulEpilogue(rw, cast_id);
  const NodeId conv_id = ProducerIs(g, acc, kConvIntegerOp);
  if (!conv_id.valid())
    return Refuse("its input is not a ConvInteger's (or its int32 bias sum's) or a MatMulInteger's");
  if (!HasSingleUse(g, acc)) return Refuse("the ConvInteger's output has other readers");
  const Node& conv = g.node(conv_id);
  const Tensor* w = g.ConstantOf(InputOr(conv, 1));
  if (w == nullptr || w->rank() < 3) return Refuse("W is not a constant");
  const size_t rank = size_t(w->rank());
  const int64_t m = w->dims()[0];
  if (int_bias.valid() && !PerChannel(KnownDims(g, int_bias), rank, m)) {
    return Refuse("the int32 bias is not per tensor or per channel");
  }
  ScaleAndBias tail;
  const std::string why = MatchScaleAndBias(
      g, cast,
      [&](ValueId v) {
        return v.valid() && ImpliedDtype(g, v) == DataType::kFloat32 && PerChannel(KnownDims(g, v), rank, m);
      },
      "the Mul's scale is not a float32 of known per-tensor or per-channel shape", tail);
  if (!why.empty()) return Refuse(why);
  Node fused =
      MakeNode(kQrtConvIntegerToFloatOp, conv.name, std::vector<ValueId>(citf::kInputCount), {tail.y}, conv.attrs);
  fused.inputs[citf::kX] = InputOr(conv, 0);
  fused.inputs[citf::kW] = InputOr(conv, 1);
  fused.inputs[citf::kXZeroPoint] = InputOr(conv, 2);
  fused.inputs[citf::kWZeroPoint] = InputOr(conv, 3);
  fused.inputs[citf::kIntBias] = int_bias;
  fused.inputs[citf::kScale] = tail.scale;
  fused.inputs[citf::kBias] = tail.bias;
  EraseScaleAndBias(rw, tail, cast_id);
  if (add_id.valid()) rw.EraseNode(add_id);
  rw.EraseNode(conv_id);
  rw.AddNode(std::move(fused));
  return Rewrote();
}

}  // namespace

StatusOr<int> FuseIntegerEpilogue(Graph& g, Explanations* explain) {
  return RunPatterns(g, "fuse-integer-epilogue", {{"integer-cast-mul", &kCastOp, FuseEpilogue}}, explain);
}

}  // namespace qrt
