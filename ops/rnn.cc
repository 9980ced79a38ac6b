// The recurrent ops RNN, GRU and LSTM: forward, reverse and bidirectional, sequence_lens,
// initial states, LSTM peepholes and input_forget, GRU linear_before_reset, clip, every
// activation ONNX lists (with activation_alpha/beta), layout 0 and 1 (opset 14).
// Gate pre-activations are sums in double of the input and recurrent products plus both
// biases, rounded to float once; the activations and the state updates are in float, in the
// order the operator text writes them. float64 computes in double throughout. Steps past a
// batch entry's sequence length give zeros in Y and leave its state as it was.
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Cell { kRnn, kGru, kLstm };
enum class Act {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus
};

struct Activation {
  Act act = Act::kSigmoid;
  float alpha = 0, beta = 0;
  template <class T>
  T operator()(T x) const {
    switch (act) {
      case Act::kRelu:
        return x > T(0) ? x : T(0);
      case Act::kTanh:
        return std::tanh(x);
      case Act::kSigmoid:
        return T(1) / (T(1) + std::exp(-x));
      case Act::kAffine:
        return T(alpha) * x + T(beta);
      case Act::kLeakyRelu:
        return x < T(0) ? T(alpha) * x : x;
      case Act::kThresholdedRelu:
        return x > T(alpha) ? x : T(0);
      case Act::kScaledTanh:
        return T(alpha) * std::tanh(T(beta) * x);
      case Act::kHardSigmoid:
        return std::max(T(0), std::min(T(1), T(alpha) * x + T(beta)));
      case Act::kElu:
        return x < T(0) ? T(alpha) * (std::exp(x) - T(1)) : x;
      case Act::kSoftsign:
        return x / (T(1) + std::fabs(x));
      case Act::kSoftplus:
        return std::log(std::exp(x) + T(1));
    }
    return x;
  }
};

struct RnnState {
  Cell cell;
  DataType dtype;
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1, gates = 1;
  bool reverse_only = false, layout1 = false, input_forget = false, linear_before_reset = false;
  float clip = 0;                // 0: none
  std::vector<Activation> acts;  // per direction: f, g[, h]
  int acts_per_dir = 1;
};

// Gate pre-activations for one step: out[g*hidden + j] = sum_k x[k] W[g*H+j, k] + sum_k h[k]
// R[g*H+j, k] + wb + rb (with skip_last_r, the last gate's recurrent part and its rb are left
// out: GRU's hidden gate adds them after the reset gate).
template <class T>
void Gates(const RnnState& s, const T* x, const T* w, const T* h, const T* r, const T* b, int64_t gate_count,
           bool skip_last_r, T* out) {
  const int64_t H = s.hidden, I = s.input, G = gate_count;
  for (int64_t g = 0; g < G; ++g) {
    for (int64_t j = 0; j < H; ++j) {
      const int64_t row = g * H + j;
      double acc = 0;
      for (int64_t k = 0; k < I; ++k) acc += double(x[k]) * double(w[row * I + k]);
      if (!(skip_last_r && g == G - 1)) {
        for (int64_t k = 0; k < H; ++k) acc += double(h[k]) * double(r[row * H + k]);
      }
      if (b) acc += double(b[row]) + (skip_last_r && g == G - 1 ? 0.0 : double(b[G * H + row]));
      out[row] = T(acc);
    }
  }
}

template <class T>
T Clip(const RnnState& s, T v) {
  if (s.clip <= 0) return v;
  return std::min(std::max(v, T(-s.clip)), T(s.clip));
}

template <class T>
void RunTyped(const RnnState& s, const RunArgs& args) {
  const int64_t H = s.hidden, I = s.input, B = s.batch, S = s.seq, G = s.gates;
  const T* X = args.input(0)->data<T>();
  const T* W = args.input(1)->data<T>();
  const T* R = args.input(2)->data<T>();
  const T* Bias = args.input(3) ? args.input(3)->data<T>() : nullptr;
  const Tensor* lens = args.input(4);
  const T* h0 = args.input(5) ? args.input(5)->data<T>() : nullptr;
  const T* c0 = s.cell == Cell::kLstm && args.input(6) ? args.input(6)->data<T>() : nullptr;
  const T* P = s.cell == Cell::kLstm && args.input(7) ? args.input(7)->data<T>() : nullptr;
  T* Y = args.output(0) ? args.output(0)->data<T>() : nullptr;
  T* Yh = args.num_outputs > 1 && args.output(1) ? args.output(1)->data<T>() : nullptr;
  T* Yc = s.cell == Cell::kLstm && args.num_outputs > 2 && args.output(2) ? args.output(2)->data<T>() : nullptr;
  if (Y) std::fill(Y, Y + args.output(0)->numel(), T(0));
  const size_t hs = static_cast<size_t>(H);
  std::vector<T> h(hs), c(hs), pre(hs * size_t(G)), hr(hs), z(hs), rt(hs);
  auto x_at = [&](int64_t t, int64_t b) { return X + (s.layout1 ? (b * S + t) : (t * B + b)) * I; };
  auto y_at = [&](int64_t t, int64_t d, int64_t b) {
    return Y + (s.layout1 ? ((b * S + t) * s.dirs + d) : ((t * s.dirs + d) * B + b)) * H;
  };
  auto state_at = [&](int64_t d, int64_t b) { return (s.layout1 ? (b * s.dirs + d) : (d * B + b)) * H; };
  for (int64_t d = 0; d < s.dirs; ++d) {
    const bool reverse = s.reverse_only || d == 1;
    const T* w = W + d * G * H * I;
    const T* r = R + d * G * H * H;
    const T* bias = Bias ? Bias + d * 2 * G * H : nullptr;
    const T* p = P ? P + d * 3 * H : nullptr;
    const Activation* act = s.acts.data() + d * s.acts_per_dir;
    for (int64_t b = 0; b < B; ++b) {
      const int64_t len = lens ? std::min<int64_t>(lens->GetAsInt64(b), S) : S;
      for (int64_t j = 0; j < H; ++j) {
        h[size_t(j)] = h0 ? h0[state_at(d, b) + j] : T(0);
        c[size_t(j)] = c0 ? c0[state_at(d, b) + j] : T(0);
      }
      for (int64_t step = 0; step < len; ++step) {
        const int64_t t = reverse ? len - 1 - step : step;
        const T* x = x_at(t, b);
        if (s.cell == Cell::kRnn) {
          Gates(s, x, w, h.data(), r, bias, 1, false, pre.data());
          for (int64_t j = 0; j < H; ++j) h[size_t(j)] = act[0](Clip(s, pre[size_t(j)]));
        } else if (s.cell == Cell::kLstm) {
          Gates(s, x, w, h.data(), r, bias, 4, false, pre.data());
          for (int64_t j = 0; j < H; ++j) {
            T gi = pre[size_t(j)], go = pre[size_t(H + j)], gf = pre[size_t(2 * H + j)], gc = pre[size_t(3 * H + j)];
            if (p) gi = gi + p[j] * c[size_t(j)], gf = gf + p[2 * H + j] * c[size_t(j)];
            const T it = act[0](Clip(s, gi));
            const T ft = s.input_forget ? T(1) - it : act[0](Clip(s, gf));
            const T ct = act[1](Clip(s, gc));
            c[size_t(j)] = ft * c[size_t(j)] + it * ct;
            if (p) go = go + p[H + j] * c[size_t(j)];
            const T ot = act[0](Clip(s, go));
            h[size_t(j)] = ot * act[2](c[size_t(j)]);
          }
        } else {  // GRU: gates z, r, h
          Gates(s, x, w, h.data(), r, bias, 3, true, pre.data());
          for (int64_t j = 0; j < H; ++j) {
            z[size_t(j)] = act[0](Clip(s, pre[size_t(j)]));
            rt[size_t(j)] = act[0](Clip(s, pre[size_t(H + j)]));
          }
          const T* rh_w = r + 2 * H * H;
          for (int64_t j = 0; j < H; ++j) {
            double acc = 0;
            if (s.linear_before_reset) {
              for (int64_t k = 0; k < H; ++k) acc += double(h[size_t(k)]) * double(rh_w[j * H + k]);
              if (bias) acc += double(bias[5 * H + j]);
              hr[size_t(j)] = rt[size_t(j)] * T(acc);
            } else {
              for (int64_t k = 0; k < H; ++k) acc += double(rt[size_t(k)] * h[size_t(k)]) * double(rh_w[j * H + k]);
              if (bias) acc += double(bias[5 * H + j]);
              hr[size_t(j)] = T(acc);
            }
          }
          for (int64_t j = 0; j < H; ++j) {
            const T ht = act[1](Clip(s, T(pre[size_t(2 * H + j)] + hr[size_t(j)])));
            h[size_t(j)] = (T(1) - z[size_t(j)]) * ht + z[size_t(j)] * h[size_t(j)];
          }
        }
        if (Y) std::copy(h.begin(), h.end(), y_at(t, d, b));
      }
      if (Yh) std::copy(h.begin(), h.end(), Yh + state_at(d, b));
      if (Yc) std::copy(c.begin(), c.end(), Yc + state_at(d, b));
    }
  }
}

Status RunRnn(const RnnState& s, const RunArgs& args) {
  if (s.dtype == DataType::kFloat64) {
    RunTyped<double>(s, args);
  } else {
    RunTyped<float>(s, args);
  }
  return Status::Ok();
}

StatusOr<Act> ParseActivation(const std::string& name) {
  static const std::pair<const char*, Act> kNames[] = {{"Relu", Act::kRelu},
                                                       {"Tanh", Act::kTanh},
                                                       {"Sigmoid", Act::kSigmoid},
                                                       {"Affine", Act::kAffine},
                                                       {"LeakyRelu", Act::kLeakyRelu},
                                                       {"ThresholdedRelu", Act::kThresholdedRelu},
                                                       {"ScaledTanh", Act::kScaledTanh},
                                                       {"HardSigmoid", Act::kHardSigmoid},
                                                       {"Elu", Act::kElu},
                                                       {"Softsign", Act::kSoftsign},
                                                       {"Softplus", Act::kSoftplus}};
  for (const auto& [n, a] : kNames) {
    if (name == n) return a;
  }
  return InvalidArgument("unknown activation \"", name, "\"");
}

// Default alpha/beta of an activation given without them (the ONNX defaults).
void DefaultParams(Activation& a) {
  switch (a.act) {
    case Act::kLeakyRelu:
      a.alpha = 0.01f;
      break;
    case Act::kThresholdedRelu:
    case Act::kElu:
      a.alpha = 1.f;
      break;
    case Act::kHardSigmoid:
      a.alpha = 0.2f, a.beta = 0.5f;
      break;
    case Act::kAffine:
    case Act::kScaledTanh:
      a.alpha = 1.f, a.beta = 0.f;
      break;
    default:
      break;
  }
}

template <Cell kCell>
Status PrepareRnn(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dtype != DataType::kFloat32 && x.dtype != DataType::kFloat64) {
    return Unsupported("recurrent ops on ", DataTypeName(x.dtype), " (qrt has float32 and float64)");
  }
  RnnState s;
  s.cell = kCell;
  s.dtype = x.dtype;
  s.gates = kCell == Cell::kLstm ? 4 : kCell == Cell::kGru ? 3 : 1;
  if (x.dims.size() != 3) return InvalidArgument("X must be 3-D");
  QRT_ASSIGN_OR_RETURN(int64_t layout, ctx.attrs().GetInt("layout", 0));
  s.layout1 = layout != 0;
  s.seq = s.layout1 ? x.dims[1] : x.dims[0];
  s.batch = s.layout1 ? x.dims[0] : x.dims[1];
  s.input = x.dims[2];
  QRT_ASSIGN_OR_RETURN(std::string direction, ctx.attrs().GetString("direction", "forward"));
  if (direction == "bidirectional") {
    s.dirs = 2;
  } else if (direction == "reverse") {
    s.reverse_only = true;
  } else if (direction != "forward") {
    return InvalidArgument("direction must be forward, reverse or bidirectional, not \"", direction, "\"");
  }
  const TensorInfo& w = ctx.input(1);
  const TensorInfo& r = ctx.input(2);
  QRT_ASSIGN_OR_RETURN(s.hidden, ctx.attrs().GetInt("hidden_size", r.dims.size() == 3 ? r.dims[2] : 0));
  const int64_t H = s.hidden, G = s.gates;
  if (H < 1) return InvalidArgument("hidden_size must be positive");
  if (w.dtype != x.dtype || w.dims != Dims{s.dirs, G * H, s.input}) {
    return InvalidArgument("W must be [", s.dirs, ", ", G * H, ", ", s.input, "], not ", DimsToString(w.dims));
  }
  if (r.dtype != x.dtype || r.dims != Dims{s.dirs, G * H, H}) {
    return InvalidArgument("R must be [", s.dirs, ", ", G * H, ", ", H, "], not ", DimsToString(r.dims));
  }
  if (ctx.has_input(3) && ctx.input(3).dims != Dims{s.dirs, 2 * G * H})
    return InvalidArgument("B must be [num_directions, 2*gates*hidden]");
  if (ctx.has_input(4)) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, 4, {DataType::kInt32}));
    if (ctx.input(4).dims != Dims{s.batch}) return InvalidArgument("sequence_lens must be [batch]");
  }
  const Dims state = s.layout1 ? Dims{s.batch, s.dirs, H} : Dims{s.dirs, s.batch, H};
  for (int i : {5, 6}) {
    if (i == 6 && kCell != Cell::kLstm) continue;
    if (ctx.has_input(i) && ctx.input(i).dims != state) {
      return InvalidArgument("input ", i, " must be ", DimsToString(state), ", not ", DimsToString(ctx.input(i).dims));
    }
  }
  if (kCell == Cell::kLstm && ctx.has_input(7) && ctx.input(7).dims != Dims{s.dirs, 3 * H}) {
    return InvalidArgument("P must be [num_directions, 3*hidden]");
  }
  QRT_ASSIGN_OR_RETURN(s.clip, ctx.attrs().GetFloat("clip", 0.f));
  if (kCell == Cell::kLstm) {
    QRT_ASSIGN_OR_RETURN(int64_t coupled, ctx.attrs().GetInt("input_forget", 0));
    s.input_forget = coupled != 0;
  }
  if (kCell == Cell::kGru) {
    QRT_ASSIGN_OR_RETURN(int64_t lbr, ctx.attrs().GetInt("linear_before_reset", 0));
    s.linear_before_reset = lbr != 0;
  }
  s.acts_per_dir = kCell == Cell::kLstm ? 3 : kCell == Cell::kGru ? 2 : 1;
  std::vector<std::string> names;
  if (ctx.attrs().Has("activations")) {
    const AttrValue* v = ctx.attrs().Find("activations");
    if (TypeOf(*v) != AttrType::kStrings) return InvalidArgument("activations must be strings");
    names = std::get<std::vector<std::string>>(*v);
  } else {
    const std::vector<std::string> dflt = kCell == Cell::kLstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                          : kCell == Cell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                                : std::vector<std::string>{"Tanh"};
    for (int64_t d = 0; d < s.dirs; ++d) names.insert(names.end(), dflt.begin(), dflt.end());
  }
  if (int64_t(names.size()) == s.acts_per_dir && s.dirs == 2) names.insert(names.end(), names.begin(), names.end());
  if (int64_t(names.size()) != s.acts_per_dir * s.dirs) {
    return InvalidArgument("activations lists ", names.size(), " functions, expected ", s.acts_per_dir * s.dirs);
  }
  QRT_ASSIGN_OR_RETURN(std::vector<float> alphas, ctx.attrs().GetFloats("activation_alpha", std::vector<float>{}));
  QRT_ASSIGN_OR_RETURN(std::vector<float> betas, ctx.attrs().GetFloats("activation_beta", std::vector<float>{}));
  // alpha/beta are listed in order for the activations that take them.
  size_t ai = 0, bi = 0;
  for (const std::string& n : names) {
    Activation a;
    QRT_ASSIGN_OR_RETURN(a.act, ParseActivation(n));
    DefaultParams(a);
    const bool takes_alpha = a.act == Act::kAffine || a.act == Act::kLeakyRelu || a.act == Act::kThresholdedRelu ||
                             a.act == Act::kScaledTanh || a.act == Act::kHardSigmoid || a.act == Act::kElu;
    const bool takes_beta = a.act == Act::kAffine || a.act == Act::kScaledTanh || a.act == Act::kHardSigmoid;
    if (takes_alpha && ai < alphas.size()) a.alpha = alphas[ai++];
    if (takes_beta && bi < betas.size()) a.beta = betas[bi++];
    s.acts.push_back(a);
  }
  const Dims y = s.layout1 ? Dims{s.batch, s.seq, s.dirs, H} : Dims{s.seq, s.dirs, s.batch, H};
  ctx.SetOutput(0, x.dtype, y);
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, x.dtype, state);
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, x.dtype, state);
  ctx.SetKernel<RnnState, RunRnn>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kRnnOp{"", "RNN", 3, 6, 0, 2, PrepareRnn<Cell::kRnn>};
const OpDef kGruOp{"", "GRU", 3, 6, 0, 2, PrepareRnn<Cell::kGru>};
const OpDef kLstmOp{"", "LSTM", 3, 8, 0, 3, PrepareRnn<Cell::kLstm>};

}  // namespace qrt
