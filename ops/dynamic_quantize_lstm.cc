// com.microsoft DynamicQuantizeLSTM as ONNX Runtime 1.30's CPU kernel computes it (found
// black-box against it, docs/float-order.md). An ONNX LSTM whose W [D, I, 4H] and R [D, H, 4H]
// (transposed against ONNX's, gate columns i, o, f, c) are 8-bit codes with scales and zero
// points per direction or per column; X and the hidden state are quantized to uint8 on the fly
// (QuantizeDynamicU8), and the products are exact integer sums:
//   per direction: G = float(acc(X[0:L])) * (x_scale * w_scale[n])  for the whole sequence at once
//   per step:      G[t] = float(acc(h)) * (h_scale * r_scale[n]) + G[t]   (h: the whole batch)
//   per gate:      x = G (+ c_prev * P), then + (Wb + Rb) as one float, then clipped
//   c = c_prev * f + i * g;  o's peephole reads the new c;  h = act(c) * o
// with L the longest sequence; MLAS's sigmoid and tanh (eltwise/sigmoid_tanh.h). Every operation
// rounds (no fused multiply-add). ORT quantizes the hidden state in chunks of the batch when it
// runs on several threads; qrt gives its one-thread results. Sigmoid and Tanh are MLAS's, the other
// activations ORT's float forms.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "ops/kernels/eltwise/sigmoid_tanh.h"
#include "ops/kernels/gemm/matmul_ref.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum Input : int {
  kX = 0,
  kW = 1,
  kR = 2,
  kB = 3,
  kSequenceLens = 4,
  kInitialH = 5,
  kInitialC = 6,
  kP = 7,
  kWScale = 8,
  kWZeroPoint = 9,
  kRScale = 10,
  kRZeroPoint = 11,
};

enum class Act {
  kSigmoid,
  kTanh,
  kRelu,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kHardSigmoid,
  kSoftsign,
  kElu,
  kSoftplus,
  kScaledTanh
};

struct Activation {
  Act act = Act::kSigmoid;
  float alpha = 0.f, beta = 0.f;
};

// ORT's float forms of the activations MLAS does not provide (glibc's expf and logf).
float Composed(const Activation& a, float x) {
  switch (a.act) {
    case Act::kAffine:
      return a.alpha * x + a.beta;
    case Act::kLeakyRelu:
      return x >= 0.f ? x : a.alpha * x;
    case Act::kThresholdedRelu:
      return x > a.alpha ? x : 0.f;
    case Act::kHardSigmoid:
      return std::min(1.f, std::max(0.f, a.alpha * x + a.beta));
    case Act::kSoftsign:
      return x / (1.f + std::fabs(x));
    case Act::kElu:
      return x >= 0.f ? x : a.alpha * (std::exp(x) - 1.f);
    case Act::kSoftplus:
      return std::log(1.f + std::exp(x));
    case Act::kScaledTanh: {
      const float y = 2.f * (a.beta * x);
      float sig;
      if (y >= 0.f) {
        sig = 1.f / (1.f + std::exp(-y));
      } else {
        const float e = std::exp(y);
        sig = e / (1.f + e);
      }
      return a.alpha * (2.f * sig - 1.f);
    }
    default:
      return std::max(x, 0.f);  // kRelu
  }
}

struct DqLstmState {
  int64_t dirs = 1, seq = 0, batch = 0, input = 0, hidden = 0;
  bool reverse_only = false;  // direction "reverse"
  float clip = std::numeric_limits<float>::max();
  bool input_forget = false;
  DataType w_type = DataType::kInt8, r_type = DataType::kInt8;
  bool w_per_column = false, r_per_column = false;
  Activation acts[2][3] = {};  // per direction: f, g, h
  FloatMapFn sigmoid = nullptr, tanh = nullptr;
  RangeWithZeroFn range = nullptr;
};

// y[i] = act(x[i]) for n values.
void Apply(const DqLstmState& s, const Activation& act, int64_t n, const float* x, float* y) {
  if (act.act == Act::kSigmoid) {
    s.sigmoid(n, x, y);
  } else if (act.act == Act::kTanh) {
    s.tanh(n, x, y);
  } else {
    for (int64_t i = 0; i < n; ++i) y[i] = Composed(act, x[i]);
  }
}

// acc[m x n] = sum_k (a - a_zp)(b - b_zp), b [k, n] row-major 8-bit of `b_type`, one zero point.
void IntegerProduct(int64_t m, int64_t n, int64_t k, const uint8_t* a, int32_t a_zp, const void* b, DataType b_type,
                    int32_t b_zp, int32_t* acc) {
  const GemmStrides st{k, 1, n, 1};
  if (b_type == DataType::kInt8) {
    ref::GemmInteger(m, n, k, a, &a_zp, 0, static_cast<const int8_t*>(b), &b_zp, 0, st, acc);
  } else {
    ref::GemmInteger(m, n, k, a, &a_zp, 0, static_cast<const uint8_t*>(b), &b_zp, 0, st, acc);
  }
}

int32_t ZeroPointOf(const Tensor* zp, int64_t index) {
  if (zp == nullptr) return 0;
  return zp->dtype() == DataType::kInt8 ? zp->data<int8_t>()[index] : zp->data<uint8_t>()[index];
}

// The gate pre-activation's last steps: + the fused bias, then the clip (ORT's two forms).
inline float BiasAndClip(float x, const float* bias, int64_t j, float clip) {
  if (bias == nullptr) return x > clip ? clip : (x < -clip ? -clip : x);
  x = x + bias[j];
  x = x < clip ? x : clip;
  return -clip < x ? x : -clip;
}

Status RunDirection(const DqLstmState& s, const RunArgs& args, int64_t d, bool reverse,
                    const std::vector<int64_t>& lens, int64_t longest) {
  const int64_t B = s.batch, I = s.input, H = s.hidden, G4 = 4 * H;
  const float* x = args.input(kX)->data<float>();
  // The direction's input order: each sequence reversed within its own length.
  std::vector<float> xd(static_cast<size_t>(longest * B * I));
  for (int64_t t = 0; t < longest; ++t) {
    for (int64_t b = 0; b < B; ++b) {
      const int64_t src_t = reverse && t < lens[size_t(b)] ? lens[size_t(b)] - 1 - t : t;
      std::memcpy(&xd[size_t((t * B + b) * I)], x + (src_t * B + b) * I, size_t(I) * sizeof(float));
    }
  }
  const int64_t w_ss = s.w_per_column ? G4 : 1, r_ss = s.r_per_column ? G4 : 1;
  const float* w_scale = args.input(kWScale)->data<float>() + d * w_ss;
  const float* r_scale = args.input(kRScale)->data<float>() + d * r_ss;
  const int32_t w_zp = ZeroPointOf(args.input(kWZeroPoint), d * w_ss);
  const int32_t r_zp = ZeroPointOf(args.input(kRZeroPoint), d * r_ss);
  const uint8_t* w = static_cast<const uint8_t*>(args.input(kW)->raw()) + d * I * G4;
  const uint8_t* r = static_cast<const uint8_t*>(args.input(kR)->raw()) + d * H * G4;

  // Input projection for every step at once.
  std::vector<float> gates(static_cast<size_t>(longest * B * G4));
  std::vector<uint8_t> codes(static_cast<size_t>(std::max(longest * B * I, B * H)));
  std::vector<int32_t> acc(static_cast<size_t>(std::max(longest * B, B) * G4));
  int32_t a_zp = 0;
  float a_scale = QuantizeDynamicU8(s.range, xd.data(), longest * B * I, codes.data(), &a_zp);
  IntegerProduct(longest * B, G4, I, codes.data(), a_zp, w, s.w_type, w_zp, acc.data());
  for (int64_t row = 0; row < longest * B; ++row) {
    for (int64_t n = 0; n < G4; ++n) {
      const float multiplier = a_scale * w_scale[s.w_per_column ? n : 0];
      gates[size_t(row * G4 + n)] = float(acc[size_t(row * G4 + n)]) * multiplier;
    }
  }

  std::vector<float> bias;
  if (args.input(kB) != nullptr) {
    const float* b8 = args.input(kB)->data<float>() + d * 8 * H;
    bias.resize(size_t(G4));
    for (int64_t n = 0; n < G4; ++n) bias[size_t(n)] = b8[n] + b8[G4 + n];
  }
  const float* p = args.input(kP) != nullptr ? args.input(kP)->data<float>() + d * 3 * H : nullptr;
  const float* bias_ptr = bias.empty() ? nullptr : bias.data();

  // State: h (the block quantized each step) and c; the direction's outputs in processing order.
  const bool want_y = args.num_outputs > 0 && args.output(0) != nullptr;
  std::vector<float> h_state(static_cast<size_t>(B * H), 0.f), c_state(static_cast<size_t>(B * H), 0.f);
  if (args.input(kInitialH) != nullptr) {
    std::memcpy(h_state.data(), args.input(kInitialH)->data<float>() + d * B * H, size_t(B * H) * sizeof(float));
  }
  if (args.input(kInitialC) != nullptr) {
    std::memcpy(c_state.data(), args.input(kInitialC)->data<float>() + d * B * H, size_t(B * H) * sizeof(float));
  }
  std::vector<float> y_dir(want_y ? static_cast<size_t>(longest * B * H) : 0, 0.f);
  std::vector<float> last_h(static_cast<size_t>(B * H), 0.f), last_c(static_cast<size_t>(B * H), 0.f);
  const size_t h_count = static_cast<size_t>(H);
  std::vector<float> gi(h_count), gf(h_count), gc(h_count), go(h_count), hc(h_count);
  for (int64_t t = 0; t < longest; ++t) {
    float* g = gates.data() + t * B * G4;
    int32_t h_zp = 0;
    const float h_scale = QuantizeDynamicU8(s.range, h_state.data(), B * H, codes.data(), &h_zp);
    IntegerProduct(B, G4, H, codes.data(), h_zp, r, s.r_type, r_zp, acc.data());
    for (int64_t row = 0; row < B; ++row) {
      for (int64_t n = 0; n < G4; ++n) {
        const float multiplier = h_scale * r_scale[s.r_per_column ? n : 0];
        g[row * G4 + n] = float(acc[size_t(row * G4 + n)]) * multiplier + g[row * G4 + n];
      }
    }
    for (int64_t b = 0; b < B; ++b) {
      if (t >= lens[size_t(b)]) continue;
      const float* gb = g + b * G4;  // i, o, f, c
      float* cb = c_state.data() + b * H;
      for (int64_t j = 0; j < H; ++j) {
        float vi = gb[j], vf = gb[2 * H + j];
        if (p != nullptr) vi = vi + cb[j] * p[j];
        gi[size_t(j)] = BiasAndClip(vi, bias_ptr, j, s.clip);
        if (p != nullptr) vf = vf + cb[j] * p[2 * H + j];
        gf[size_t(j)] = BiasAndClip(vf, bias_ptr, 2 * H + j, s.clip);
        gc[size_t(j)] = BiasAndClip(gb[3 * H + j], bias_ptr, 3 * H + j, s.clip);
      }
      Apply(s, s.acts[d][0], H, gi.data(), gi.data());
      if (s.input_forget) {
        for (int64_t j = 0; j < H; ++j) gf[size_t(j)] = 1.0f - gi[size_t(j)];
      } else {
        Apply(s, s.acts[d][0], H, gf.data(), gf.data());
      }
      Apply(s, s.acts[d][1], H, gc.data(), gc.data());
      for (int64_t j = 0; j < H; ++j) {
        cb[j] = cb[j] * gf[size_t(j)] + gi[size_t(j)] * gc[size_t(j)];
        float vo = gb[H + j];
        if (p != nullptr) vo = vo + cb[j] * p[H + j];
        go[size_t(j)] = BiasAndClip(vo, bias_ptr, H + j, s.clip);
      }
      Apply(s, s.acts[d][0], H, go.data(), go.data());
      Apply(s, s.acts[d][2], H, cb, hc.data());
      float* hb = h_state.data() + b * H;
      for (int64_t j = 0; j < H; ++j) hb[j] = hc[size_t(j)] * go[size_t(j)];
      std::memcpy(last_h.data() + b * H, hb, size_t(H) * sizeof(float));
      std::memcpy(last_c.data() + b * H, cb, size_t(H) * sizeof(float));
    }
    if (!want_y && t == 0) {
      // The next step quantizes ORT's Y_h buffer, where rows of empty sequences hold no state.
      for (int64_t b = 0; b < B; ++b) {
        if (lens[size_t(b)] == 0) std::fill_n(h_state.data() + b * H, H, 0.f);
      }
    }
    if (want_y) {
      // Y's step: finished rows are 0, and the next step quantizes this block as it is.
      float* yt = y_dir.data() + t * B * H;
      for (int64_t b = 0; b < B; ++b) {
        if (t < lens[size_t(b)]) std::memcpy(yt + b * H, h_state.data() + b * H, size_t(H) * sizeof(float));
      }
      std::memcpy(h_state.data(), yt, size_t(B * H) * sizeof(float));
    }
  }
  if (want_y) {
    float* y = args.output(0)->data<float>();
    for (int64_t t = 0; t < longest; ++t) {
      for (int64_t b = 0; b < B; ++b) {
        if (t >= lens[size_t(b)]) continue;
        const int64_t out_t = reverse ? lens[size_t(b)] - 1 - t : t;
        std::memcpy(y + ((out_t * s.dirs + d) * B + b) * H, y_dir.data() + (t * B + b) * H, size_t(H) * sizeof(float));
      }
    }
  }
  for (int i = 1; i <= 2; ++i) {
    if (args.num_outputs <= i || args.output(i) == nullptr) continue;
    const std::vector<float>& src = i == 1 ? last_h : last_c;
    std::memcpy(args.output(i)->data<float>() + d * B * H, src.data(), size_t(B * H) * sizeof(float));
  }
  return Status::Ok();
}

Status RunDqLstm(const DqLstmState& s, const RunArgs& args) {
  for (int i = 0; i < 3 && i < args.num_outputs; ++i) {
    if (args.output(i) != nullptr) std::fill_n(args.output(i)->data<float>(), args.output(i)->numel(), 0.f);
  }
  std::vector<int64_t> lens(static_cast<size_t>(s.batch), s.seq);
  if (const Tensor* sl = args.input(kSequenceLens); sl != nullptr) {
    for (int64_t b = 0; b < s.batch; ++b) {
      lens[size_t(b)] = sl->GetAsInt64(b);
      if (lens[size_t(b)] < 0 || lens[size_t(b)] > s.seq) {
        return InvalidArgument("sequence_lens[", b, "] = ", lens[size_t(b)], " is not in [0, ", s.seq, "]");
      }
    }
  }
  const int64_t longest = lens.empty() ? 0 : *std::max_element(lens.begin(), lens.end());
  if (longest == 0) return Status::Ok();
  for (int64_t d = 0; d < s.dirs; ++d) {
    QRT_RETURN_IF_ERROR(RunDirection(s, args, d, d == 1 || s.reverse_only, lens, longest));
  }
  return Status::Ok();
}

// Scales and zero points: [D] (per direction) or [D, 4H] (per column); ORT takes one zero
// point per direction, so per-column ones must all be 0 (int8) or all equal (uint8).
Status CheckQuantParams(const PrepareContext& ctx, int scale, int zp, DataType codes, int64_t dirs, int64_t g4,
                        bool* per_column) {
  const Dims& sd = ctx.input(scale).dims;
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, scale, {DataType::kFloat32}));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, zp, {codes}));
  if (sd != Dims{dirs} && sd != Dims{dirs, g4}) {
    return InvalidArgument("input ", scale, " has shape ", DimsToString(sd), ", not [", dirs, "] or [", dirs, ", ", g4,
                           "]");
  }
  *per_column = sd.size() == 2;
  if (ctx.input(zp).dims != sd) return InvalidArgument("input ", zp, " must have its scale's shape ", DimsToString(sd));
  if (*per_column) {
    const Tensor* z = ctx.input(zp).value;
    if (z == nullptr) return Unsupported("per-column zero points that are not constants");
    for (int64_t i = 0; i < z->numel(); ++i) {
      const int64_t v = z->GetAsInt64(i);
      if (codes == DataType::kInt8 ? v != 0 : v != z->GetAsInt64(0)) {
        return InvalidArgument("per-column zero points must be ", codes == DataType::kInt8 ? "0" : "all equal",
                               " (ONNX Runtime's kernel takes one)");
      }
    }
  }
  return Status::Ok();
}

// An activation by name (any case) with ORT's defaults: LeakyRelu 0.01, HardSigmoid 0.2 and
// 0.5, Elu 1; every other missing alpha or beta 0. Alphas and betas are taken in list order by
// the activations that use them.
StatusOr<Activation> ParseActivation(std::string name, const std::vector<float>& alphas, size_t* next_alpha,
                                     const std::vector<float>& betas, size_t* next_beta) {
  static const std::pair<const char*, Act> kNames[] = {{"sigmoid", Act::kSigmoid},
                                                       {"tanh", Act::kTanh},
                                                       {"relu", Act::kRelu},
                                                       {"affine", Act::kAffine},
                                                       {"leakyrelu", Act::kLeakyRelu},
                                                       {"thresholdedrelu", Act::kThresholdedRelu},
                                                       {"hardsigmoid", Act::kHardSigmoid},
                                                       {"softsign", Act::kSoftsign},
                                                       {"elu", Act::kElu},
                                                       {"softplus", Act::kSoftplus},
                                                       {"scaledtanh", Act::kScaledTanh}};
  for (char& ch : name) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  Activation a;
  bool found = false;
  for (const auto& [n, act] : kNames) {
    if (name == n) a.act = act, found = true;
  }
  if (!found) return InvalidArgument("unknown activation \"", name, "\"");
  if (a.act == Act::kLeakyRelu) a.alpha = 0.01f;
  if (a.act == Act::kHardSigmoid) a.alpha = 0.2f, a.beta = 0.5f;
  if (a.act == Act::kElu) a.alpha = 1.f;
  const bool takes_alpha = a.act == Act::kAffine || a.act == Act::kLeakyRelu || a.act == Act::kThresholdedRelu ||
                           a.act == Act::kScaledTanh || a.act == Act::kHardSigmoid || a.act == Act::kElu;
  const bool takes_beta = a.act == Act::kAffine || a.act == Act::kScaledTanh || a.act == Act::kHardSigmoid;
  if (takes_alpha && *next_alpha < alphas.size()) a.alpha = alphas[(*next_alpha)++];
  if (takes_beta && *next_beta < betas.size()) a.beta = betas[(*next_beta)++];
  return a;
}

Status PrepareDqLstm(PrepareContext& ctx) {
  DqLstmState s;
  QRT_ASSIGN_OR_RETURN(s.hidden, ctx.attrs().GetInt("hidden_size"));
  if (s.hidden <= 0) return InvalidArgument("hidden_size must be positive");
  QRT_ASSIGN_OR_RETURN(std::string direction, ctx.attrs().GetString("direction", "forward"));
  if (direction == "bidirectional") {
    s.dirs = 2;
  } else if (direction == "reverse") {
    s.reverse_only = true;
  } else if (direction != "forward") {
    return InvalidArgument("direction \"", direction, "\"");
  }
  QRT_ASSIGN_OR_RETURN(int64_t layout, ctx.attrs().GetInt("layout", 0));
  if (layout != 0) return Unsupported("layout ", layout, " (ORT's kernel refuses it too)");
  QRT_ASSIGN_OR_RETURN(s.clip, ctx.attrs().GetFloat("clip", std::numeric_limits<float>::max()));
  if (!(s.clip > 0.f)) return InvalidArgument("clip must be positive");
  QRT_ASSIGN_OR_RETURN(int64_t input_forget, ctx.attrs().GetInt("input_forget", 0));
  s.input_forget = input_forget != 0;
  std::vector<std::string> names = {"Sigmoid", "Tanh", "Tanh"};
  if (ctx.attrs().Has("activations")) {
    const AttrValue* v = ctx.attrs().Find("activations");
    if (TypeOf(*v) != AttrType::kStrings) return InvalidArgument("activations must be strings");
    names = std::get<std::vector<std::string>>(*v);
  }
  if (names.size() == 3 && s.dirs == 2) {
    const std::vector<std::string> one = names;
    names.insert(names.end(), one.begin(), one.end());
  }
  if (int64_t(names.size()) != 3 * s.dirs) return InvalidArgument("activations lists ", names.size(), " functions");
  QRT_ASSIGN_OR_RETURN(std::vector<float> alphas, ctx.attrs().GetFloats("activation_alpha", std::vector<float>{}));
  QRT_ASSIGN_OR_RETURN(std::vector<float> betas, ctx.attrs().GetFloats("activation_beta", std::vector<float>{}));
  size_t next_alpha = 0, next_beta = 0;
  for (int64_t d = 0; d < s.dirs; ++d) {
    for (int i = 0; i < 3; ++i) {
      QRT_ASSIGN_OR_RETURN(s.acts[d][i],
                           ParseActivation(names[size_t(d * 3 + i)], alphas, &next_alpha, betas, &next_beta));
    }
  }

  QRT_RETURN_IF_ERROR(ExpectDType(ctx, kX, {DataType::kFloat32}));
  const Dims& x = ctx.input(kX).dims;
  if (x.size() != 3) return InvalidArgument("X must be [seq, batch, input], not ", DimsToString(x));
  s.seq = x[0], s.batch = x[1], s.input = x[2];
  const int64_t H = s.hidden, G4 = 4 * H;
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, kW, {DataType::kUInt8, DataType::kInt8}));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, kR, {DataType::kUInt8, DataType::kInt8}));
  s.w_type = ctx.input(kW).dtype, s.r_type = ctx.input(kR).dtype;
  if (ctx.input(kW).dims != Dims{s.dirs, s.input, G4}) {
    return InvalidArgument("W ", DimsToString(ctx.input(kW).dims), " must be [", s.dirs, ", ", s.input, ", ", G4, "]");
  }
  if (ctx.input(kR).dims != Dims{s.dirs, H, G4}) {
    return InvalidArgument("R ", DimsToString(ctx.input(kR).dims), " must be [", s.dirs, ", ", H, ", ", G4, "]");
  }
  const std::pair<int, Dims> optional[] = {{kB, {s.dirs, 8 * H}},
                                           {kSequenceLens, {s.batch}},
                                           {kInitialH, {s.dirs, s.batch, H}},
                                           {kInitialC, {s.dirs, s.batch, H}},
                                           {kP, {s.dirs, 3 * H}}};
  for (const auto& [slot, dims] : optional) {
    if (!ctx.has_input(slot)) continue;
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, slot, {slot == kSequenceLens ? DataType::kInt32 : DataType::kFloat32}));
    if (ctx.input(slot).dims != dims) {
      return InvalidArgument("input ", slot, " ", DimsToString(ctx.input(slot).dims), " must be ", DimsToString(dims));
    }
  }
  for (int slot : {kWScale, kWZeroPoint, kRScale, kRZeroPoint}) {
    if (!ctx.has_input(slot)) return InvalidArgument("input ", slot, " (scales and zero points) is required");
  }
  QRT_RETURN_IF_ERROR(CheckQuantParams(ctx, kWScale, kWZeroPoint, s.w_type, s.dirs, G4, &s.w_per_column));
  QRT_RETURN_IF_ERROR(CheckQuantParams(ctx, kRScale, kRZeroPoint, s.r_type, s.dirs, G4, &s.r_per_column));
  s.sigmoid = SelectSigmoid(ctx.isa());
  s.tanh = SelectTanh(ctx.isa());
  s.range = SelectRangeWithZero(ctx.isa());
  if (ctx.num_outputs() > 0) ctx.SetOutput(0, DataType::kFloat32, {s.seq, s.dirs, s.batch, H});
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DataType::kFloat32, {s.dirs, s.batch, H});
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, DataType::kFloat32, {s.dirs, s.batch, H});
  ctx.SetKernel<DqLstmState, RunDqLstm>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kDynamicQuantizeLstmOp{"com.microsoft", "DynamicQuantizeLSTM", 12, 12, 0, 3, PrepareDqLstm};

}  // namespace qrt
