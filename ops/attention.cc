// com.microsoft Attention and QAttention: input [B, S, Di] projected by one weight matrix
// [Di, Dq + Dk + Dv] plus bias into the heads' Q, K and V, then the attention core
// (ops/attention_core.h) over the past rows (input `past` [2, B, N, P, H]) and the new ones;
// output [B, S, Dv] and, optionally, `present` [2, B, N, P + S, H] (K then V).
// The projection in ONNX Runtime 1.30's order (docs/float-order.md), per batch, head and Q/K/V:
//   Attention:  C = the bias row, then C += x W (the ordered GEMM accumulating; W an initializer
//               is packed by ORT: k blocks of 256, no one-row order)
//   QAttention: acc = sum (x - x_zp)(w - w_zp[c]) exactly, then C = float(acc) * (w_scale[c] *
//               x_scale) + bias[c], a multiply then an add
// Attention alone takes attention_bias and qkv_hidden_sizes; QAttention's Q, K and V are D wide
// each (D = weight columns / 3). Refused as ORT refuses them: do_rotary, past with an
// attention bias, past_present_share_buffer with past; and a missing bias (ORT crashes).
#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

#include "ops/attention_core.h"
#include "ops/igemm_operand.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/gemm/matmul_ref.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct Slots {
  int input = 0, weights = 1, bias = 2, mask = -1, past = -1, attn_bias = -1;
  int x_scale = -1, w_scale = -1, x_zp = -1, w_zp = -1;  // QAttention
};

constexpr Slots kAttentionSlots{0, 1, 2, 3, 4, 5};
constexpr Slots kQAttentionSlots{0, 1, 2, 5, 8, -1, 3, 4, 6, 7};

struct AttentionState {
  AttentionCore core;
  Slots slots;
  bool quantized = false;
  int64_t input_hidden = 0, dq = 0, dk = 0, dv = 0;
  bool packed_w = false;  // Attention: W an initializer, which ORT packs
  DataType x_type = DataType::kUInt8, w_type = DataType::kInt8;
  std::optional<IgemmProduct> igemm;  // QAttention at AVX2 and above
  bool has_present = false;

  int64_t width() const { return dq + dk + dv; }
  // The first column of head n's block of Q (t = 0), K (1) or V (2) in W, the bias and the scales.
  int64_t column(int t, int64_t n) const {
    return (t == 0 ? 0 : t == 1 ? dq : dq + dk) + n * (t < 2 ? core.head_size : core.v_head_size);
  }
};

const Tensor* Input(const RunArgs& args, int slot) { return slot >= 0 ? args.input(slot) : nullptr; }

// Q, K, V ([B, N, S, H|Hv] each, one after the other in `qkv`) = bias, then += x W.
void ProjectFloat(const AttentionState& s, const RunArgs& args, float* const qkv[3]) {
  const AttentionCore& c = s.core;
  const float* x = args.input(s.slots.input)->data<float>();
  const float* w = args.input(s.slots.weights)->data<float>();
  const float* bias = args.input(s.slots.bias)->data<float>();
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t n = 0; n < c.heads; ++n) {
      for (int t = 0; t < 3; ++t) {
        const int64_t hs = t < 2 ? c.head_size : c.v_head_size, col = s.column(t, n);
        float* dst = qkv[t] + (b * c.heads + n) * c.q_len * hs;
        for (int64_t r = 0; r < c.q_len; ++r) std::memcpy(dst + r * hs, bias + col, size_t(hs) * sizeof(float));
        SgemmArgs g;
        g.m = c.q_len, g.n = hs, g.k = s.input_hidden;
        g.a = x + b * c.q_len * s.input_hidden, g.lda = s.input_hidden;
        g.b = w + col, g.ldb = s.width();
        g.c = dst, g.ldc = hs;
        g.accumulate = true;
        g.packed_b = s.packed_w;
        c.gemm(g);
      }
    }
  }
}

// The same for QAttention: the exact integer product of all rows and columns at once, then each
// accumulator scaled and biased into its head's block.
void ProjectQuantized(const AttentionState& s, const RunArgs& args, float* const qkv[3]) {
  const AttentionCore& c = s.core;
  const int64_t m = c.batch * c.q_len, width = s.width(), k = s.input_hidden;
  std::vector<int32_t> acc(static_cast<size_t>(m * width));
  const Tensor* x_zp = Input(args, s.slots.x_zp);
  const int32_t a_zp = x_zp != nullptr ? int32_t(x_zp->GetAsInt64(0)) : 0;
  const Tensor* w_zp = Input(args, s.slots.w_zp);
  std::vector<int32_t> b_zp(static_cast<size_t>(width), 0);
  if (w_zp != nullptr) {
    for (int64_t j = 0; j < width; ++j) b_zp[size_t(j)] = int32_t(w_zp->GetAsInt64(w_zp->numel() == 1 ? 0 : j));
  }
  const void* x = args.input(s.slots.input)->raw();
  const void* w = args.input(s.slots.weights)->raw();
  Dispatch8BitPair(s.x_type, s.w_type, [&](auto ta, auto tb) {
    using Ta = decltype(ta);
    using Tb = decltype(tb);
    const Ta* a8 = static_cast<const Ta*>(x);
    if (s.igemm) {
      IgemmFrom8Bit(s.igemm->kernel, m, width, k, a8, k, 1, a_zp, s.igemm->ForRun(args, s.slots.weights, s.slots.w_zp),
                    acc.data(), width, s.igemm->threads);
    } else {
      ref::GemmInteger(m, width, k, a8, &a_zp, 0, static_cast<const Tb*>(w), b_zp.data(), 1,
                       GemmStrides{k, 1, width, 1}, acc.data());
    }
  });
  const float x_scale = args.input(s.slots.x_scale)->data<float>()[0];
  const Tensor& w_scale = *args.input(s.slots.w_scale);
  const float* bias = args.input(s.slots.bias)->data<float>();
  std::vector<float> multiplier(static_cast<size_t>(width));
  for (int64_t j = 0; j < width; ++j) {
    multiplier[size_t(j)] = w_scale.data<float>()[w_scale.numel() == 1 ? 0 : j] * x_scale;
  }
  for (int64_t b = 0; b < c.batch; ++b) {
    for (int64_t n = 0; n < c.heads; ++n) {
      for (int t = 0; t < 3; ++t) {
        const int64_t hs = t < 2 ? c.head_size : c.v_head_size, col = s.column(t, n);
        float* dst = qkv[t] + (b * c.heads + n) * c.q_len * hs;
        for (int64_t r = 0; r < c.q_len; ++r) {
          const int32_t* row = acc.data() + (b * c.q_len + r) * width + col;
          for (int64_t j = 0; j < hs; ++j) {
            dst[r * hs + j] = float(row[j]) * multiplier[size_t(col + j)] + bias[col + j];
          }
        }
      }
    }
  }
}

Status RunAttention(const AttentionState& s, const RunArgs& args) {
  const AttentionCore& c = s.core;
  const int64_t per_head = c.batch * c.heads * c.q_len;
  float* q = ThreadScratchFloats(ScratchSlot::kOp0, size_t(per_head * (2 * c.head_size + c.v_head_size)));
  float* const qkv[3] = {q, q + per_head * c.head_size, q + 2 * per_head * c.head_size};
  if (s.quantized)
    ProjectQuantized(s, args, qkv);
  else
    ProjectFloat(s, args, qkv);
  AttentionTensors io;
  io.q = qkv[0], io.k = qkv[1], io.v = qkv[2];
  if (const Tensor* past = Input(args, s.slots.past); past != nullptr && c.past_len > 0) {
    io.past_k = past->data<float>();
    io.past_v = io.past_k + c.batch * c.heads * c.past_len * c.head_size;
  }
  if (s.has_present) {
    io.present_k = args.output(1)->data<float>();
    io.present_v = io.present_k + c.batch * c.heads * c.total_len() * c.head_size;
  }
  if (const Tensor* mask = Input(args, s.slots.mask); mask != nullptr) io.mask = mask->data<int32_t>();
  if (c.has_bias) io.bias = args.input(s.slots.attn_bias)->data<float>();
  io.out = args.output(0)->data<float>();
  return RunAttentionCore(c, io);
}

const Dims* DimsOf(const PrepareContext& ctx, int slot) {
  return slot >= 0 && ctx.has_input(slot) ? &ctx.input(slot).dims : nullptr;
}

// The QAttention operands' dtypes and scale and zero point shapes (one value, or one per column).
Status CheckQuantizedOperands(const PrepareContext& ctx, AttentionState& s) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.input, {DataType::kUInt8, DataType::kInt8}));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.weights, {DataType::kUInt8, DataType::kInt8}));
  s.x_type = ctx.input(s.slots.input).dtype;
  s.w_type = ctx.input(s.slots.weights).dtype;
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.x_scale, {DataType::kFloat32}));
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.w_scale, {DataType::kFloat32}));
  if (ElementCount(ctx.input(s.slots.x_scale).dims) != 1) return InvalidArgument("input_scale must be one value");
  const int64_t width = s.width();
  auto per_column = [&](int slot, const char* what) -> Status {
    const int64_t count = ElementCount(ctx.input(slot).dims);
    if (count == 1 || count == width) return Status::Ok();
    return InvalidArgument(what, " must hold one value or ", width, ", not ", count);
  };
  QRT_RETURN_IF_ERROR(per_column(s.slots.w_scale, "weight_scale"));
  if (ctx.has_input(s.slots.x_zp)) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.x_zp, {s.x_type}));
    if (ElementCount(ctx.input(s.slots.x_zp).dims) != 1) return InvalidArgument("input_zero_point must be one value");
  }
  if (ctx.has_input(s.slots.w_zp)) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.w_zp, {s.w_type}));
    QRT_RETURN_IF_ERROR(per_column(s.slots.w_zp, "weight_zero_point"));
  }
  if (s.core.batch * s.core.q_len * width * s.input_hidden > 0) {
    s.igemm = IgemmProduct::Plan(ctx, s.input_hidden, width, false, s.slots.weights, s.slots.w_zp);
  }
  return Status::Ok();
}

Status PrepareAttentionOp(PrepareContext& ctx, bool quantized) {
  AttentionState s;
  s.quantized = quantized;
  s.slots = quantized ? kQAttentionSlots : kAttentionSlots;
  AttentionCore& c = s.core;
  QRT_ASSIGN_OR_RETURN(const bool unidirectional, ReadAttentionAttributes(ctx, c));
  QRT_ASSIGN_OR_RETURN(int64_t do_rotary, ctx.attrs().GetInt("do_rotary", 0));
  if (do_rotary != 0) return Unsupported("do_rotary (ONNX Runtime's CPU kernel does not implement it)");
  QRT_ASSIGN_OR_RETURN(int64_t share_buffer, ctx.attrs().GetInt("past_present_share_buffer", 0));

  if (!quantized) QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.input, {DataType::kFloat32}));
  const Dims& x = ctx.input(s.slots.input).dims;
  const Dims& w = ctx.input(s.slots.weights).dims;
  if (x.size() != 3) return InvalidArgument("input must be [batch, sequence, hidden], not ", DimsToString(x));
  if (w.size() != 2 || w[0] != x[2]) {
    return InvalidArgument("weights ", DimsToString(w), " must be [", x[2], ", Dq + Dk + Dv]");
  }
  c.batch = x[0], c.q_len = x[1], c.kv_len = x[1];
  s.input_hidden = x[2];
  std::vector<int64_t> sizes;
  if (!quantized && ctx.attrs().Has("qkv_hidden_sizes")) {
    QRT_ASSIGN_OR_RETURN(sizes, ctx.attrs().GetInts("qkv_hidden_sizes"));
    if (sizes.size() != 3 || sizes[0] != sizes[1] || sizes[0] + sizes[1] + sizes[2] != w[1]) {
      return InvalidArgument("qkv_hidden_sizes must be three sizes, Q's equal to K's, adding up to the weights' ", w[1],
                             " columns");
    }
  } else {
    if (w[1] % 3 != 0) return InvalidArgument("weights' ", w[1], " columns are not three equal blocks");
    sizes = {w[1] / 3, w[1] / 3, w[1] / 3};
  }
  for (int64_t size : sizes) {
    if (size <= 0 || size % c.heads != 0)
      return InvalidArgument("hidden size ", size, " is not a multiple of num_heads");
  }
  s.dq = sizes[0], s.dk = sizes[1], s.dv = sizes[2];
  c.head_size = s.dq / c.heads, c.v_head_size = s.dv / c.heads;
  if (!ctx.has_input(s.slots.bias)) return InvalidArgument("bias is required");
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.bias, {DataType::kFloat32}));
  if (ctx.input(s.slots.bias).dims != Dims{s.width()}) {
    return InvalidArgument("bias ", DimsToString(ctx.input(s.slots.bias).dims), " must be [", s.width(), "]");
  }

  const Dims* past = DimsOf(ctx, s.slots.past);
  if (past != nullptr) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.past, {DataType::kFloat32}));
    if (c.head_size != c.v_head_size) return Unsupported("past with Q and V heads of different sizes");
    if (past->size() != 5 || (*past)[0] != 2 || (*past)[1] != c.batch || (*past)[2] != c.heads ||
        (*past)[4] != c.head_size) {
      return InvalidArgument("past ", DimsToString(*past), " must be [2, ", c.batch, ", ", c.heads, ", P, ",
                             c.head_size, "]");
    }
    if (share_buffer != 0) return Unsupported("past_present_share_buffer with past (ORT's CPU kernel refuses it)");
    c.past_len = (*past)[3];
  }
  const Dims* attn_bias = DimsOf(ctx, s.slots.attn_bias);
  if (attn_bias != nullptr) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.attn_bias, {DataType::kFloat32}));
    if (past != nullptr) return InvalidArgument("past and attention_bias together (ORT refuses them)");
  }
  const Dims* mask = DimsOf(ctx, s.slots.mask);
  if (mask != nullptr) QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.mask, {DataType::kInt32}));
  QRT_RETURN_IF_ERROR(PrepareAttentionMaskAndBias(c, mask, attn_bias, /*allow_start_end=*/true,
                                                  /*dummy_2d_is_none=*/!quantized));
  FinishAttentionCore(ctx, c, unidirectional);
  if (quantized) {
    QRT_RETURN_IF_ERROR(CheckQuantizedOperands(ctx, s));
  } else {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.slots.weights, {DataType::kFloat32}));
    s.packed_w = PackedByOrt(ctx.input(s.slots.weights));
  }
  ctx.SetOutput(0, DataType::kFloat32, {c.batch, c.q_len, s.dv});
  s.has_present = ctx.has_output(1);
  if (s.has_present) {
    if (c.head_size != c.v_head_size) return Unsupported("present with Q and V heads of different sizes");
    ctx.SetOutput(1, DataType::kFloat32, {2, c.batch, c.heads, c.total_len(), c.head_size});
  }
  ctx.SetKernel<AttentionState, RunAttention>(std::move(s));
  return Status::Ok();
}

Status PrepareAttention(PrepareContext& ctx) { return PrepareAttentionOp(ctx, false); }
Status PrepareQAttention(PrepareContext& ctx) { return PrepareAttentionOp(ctx, true); }

}  // namespace

const OpDef kAttentionOp{"com.microsoft", "Attention", 2, 7, 1, 2, PrepareAttention};
const OpDef kQAttentionOp{"com.microsoft", "QAttention", 5, 9, 1, 2, PrepareQAttention};

}  // namespace qrt
