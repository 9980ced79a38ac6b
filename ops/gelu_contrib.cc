// ONNX Runtime's GELU family (domain com.microsoft): Gelu (erf form), BiasGelu (Gelu of
// X + bias), FastGelu (the tanh form, with an optional bias added first) and QuickGelu
// (x * sigmoid(alpha * x), alpha 1.702 by default). The bias broadcasts along the last axis.
// float32 follows ONNX Runtime 1.30 bit for bit, with v = x (+ bias):
//   Gelu, BiasGelu  (0.5f * v) * (erf(v * 0.70710677f) + 1.0f), MLAS's erf (eltwise/erf.h)
//   FastGelu        (0.5f * v) * (tanh(v * ((C * v) * v + B)) + 1.0f), MLAS's tanh
//                   (eltwise/sigmoid_tanh.h), B = 0.7978845608028654f, C = 0.035677408136300125f
//   QuickGelu       x * sigmoid(x * alpha) (x * sigmoid(x) when alpha is 1), MLAS's sigmoid
// float64 computes the textbook formulas with libm.
#include <algorithm>
#include <cmath>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/eltwise/erf.h"
#include "ops/kernels/eltwise/sigmoid_tanh.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Gelu { kErf, kBias, kFast, kQuick };

struct GeluState {
  Gelu kind;
  DataType dtype;
  int64_t bias_len = 0;  // 0: no bias
  float alpha = 1.702f;
  FloatMapFn gelu_erf = nullptr;  // float32 Gelu / BiasGelu
  FloatMapFn tanh = nullptr;      // float32 FastGelu
  FloatMapFn sigmoid = nullptr;   // float32 QuickGelu
};

// y[i] = x[i] + b[(offset + i) mod len] for n values, a row of the bias at a time rather than a
// division per element.
void AddBias(const float* x, const float* b, int64_t n, int64_t len, int64_t offset, float* y) {
  for (int64_t i = 0; i < n; offset = 0) {
    const int64_t count = std::min(len - offset, n - i);
    for (int64_t j = 0; j < count; ++j) y[i + j] = x[i + j] + b[offset + j];
    i += count;
  }
}

// FastGelu's constants as ORT writes them (float).
constexpr float kFastGeluB = 0.7978845608028654f;
constexpr float kFastGeluC = 0.035677408136300125f;
constexpr int64_t kChunk = 4096;

// float32 FastGelu and QuickGelu a chunk at a time: the argument into y, MLAS's function in
// place, then the product with the input.
void FastOrQuickGeluF32(const GeluState& s, const RunArgs& args) {
  const float* x = args.input(0)->data<float>();
  const float* b = s.bias_len ? args.input(1)->data<float>() : nullptr;
  float* y = args.output(0)->data<float>();
  const int64_t n = args.input(0)->numel();
  float* v = ThreadScratchFloats(ScratchSlot::kOp0, size_t(std::min(n, kChunk)));
  for (int64_t start = 0; start < n; start += kChunk) {
    const int64_t count = std::min(kChunk, n - start);
    const float* in = x + start;
    float* out = y + start;
    if (b != nullptr) {
      AddBias(in, b, count, s.bias_len, start % s.bias_len, v);
      in = v;
    }
    if (s.kind == Gelu::kFast) {
      for (int64_t i = 0; i < count; ++i) out[i] = in[i] * (kFastGeluC * in[i] * in[i] + kFastGeluB);
      s.tanh(count, out, out);
      for (int64_t i = 0; i < count; ++i) out[i] = 0.5f * in[i] * (out[i] + 1.0f);
    } else {
      if (s.alpha != 1.f) {
        for (int64_t i = 0; i < count; ++i) out[i] = in[i] * s.alpha;
        s.sigmoid(count, out, out);
      } else {
        s.sigmoid(count, in, out);
      }
      for (int64_t i = 0; i < count; ++i) out[i] = in[i] * out[i];
    }
  }
}

template <class T>
T Apply(Gelu kind, T x, float alpha) {
  switch (kind) {
    case Gelu::kFast: {
      const T inner = T(0.7978845608028654) * (x + T(0.044715) * x * x * x);
      return T(0.5) * x * (T(1) + std::tanh(inner));
    }
    case Gelu::kQuick:
      return x * (T(1) / (T(1) + std::exp(-T(alpha) * x)));
    default:
      return T(0.5) * x * (T(1) + std::erf(x * T(0.7071067811865476)));
  }
}

template <class T>
void GeluTyped(const GeluState& s, const RunArgs& args) {
  const T* x = args.input(0)->data<T>();
  const T* b = s.bias_len ? args.input(1)->data<T>() : nullptr;
  T* y = args.output(0)->data<T>();
  const int64_t n = args.input(0)->numel();
  for (int64_t i = 0; i < n; ++i) {
    const T v = b ? x[i] + b[i % s.bias_len] : x[i];
    y[i] = Apply<T>(s.kind, v, s.alpha);
  }
}

Status RunGelu(const GeluState& s, const RunArgs& args) {
  if (s.gelu_erf != nullptr) {
    const float* x = args.input(0)->data<float>();
    float* y = args.output(0)->data<float>();
    const int64_t n = args.input(0)->numel();
    if (s.bias_len) {
      AddBias(x, args.input(1)->data<float>(), n, s.bias_len, 0, y);
      x = y;
    }
    s.gelu_erf(n, x, y);
    return Status::Ok();
  }
  if (s.tanh != nullptr || s.sigmoid != nullptr) {
    FastOrQuickGeluF32(s, args);
    return Status::Ok();
  }
  if (s.dtype == DataType::kFloat64) {
    GeluTyped<double>(s, args);
  } else {
    GeluTyped<float>(s, args);
  }
  return Status::Ok();
}

template <Gelu kKind>
Status PrepareGelu(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  if (x.dtype != DataType::kFloat32 && x.dtype != DataType::kFloat64) {
    return Unsupported("com.microsoft GELU ops on ", DataTypeName(x.dtype), " (qrt has float32 and float64)");
  }
  GeluState s;
  s.kind = kKind;
  s.dtype = x.dtype;
  if (kKind == Gelu::kQuick) {
    QRT_ASSIGN_OR_RETURN(s.alpha, ctx.attrs().GetFloat("alpha", 1.702f));
  }
  if ((kKind == Gelu::kBias || kKind == Gelu::kFast) && ctx.has_input(1)) {
    const TensorInfo& b = ctx.input(1);
    if (b.dtype != x.dtype || b.dims.size() != 1 || x.dims.empty() || b.dims[0] != x.dims.back()) {
      return InvalidArgument("bias must be 1-D of X's last dim and dtype, not ", DimsToString(b.dims));
    }
    s.bias_len = b.dims[0];
  } else if (kKind == Gelu::kBias) {
    return InvalidArgument("BiasGelu needs its bias");
  }
  if ((kKind == Gelu::kErf || kKind == Gelu::kBias) && x.dtype == DataType::kFloat32) {
    s.gelu_erf = SelectGeluErf(ctx.isa());
  }
  if (kKind == Gelu::kFast && x.dtype == DataType::kFloat32) s.tanh = SelectTanh(ctx.isa());
  if (kKind == Gelu::kQuick && x.dtype == DataType::kFloat32) s.sigmoid = SelectSigmoid(ctx.isa());
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<GeluState, RunGelu>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kMsGeluOp{"com.microsoft", "Gelu", 1, 1, 1, 1, PrepareGelu<Gelu::kErf>};
const OpDef kMsBiasGeluOp{"com.microsoft", "BiasGelu", 2, 2, 1, 1, PrepareGelu<Gelu::kBias>};
const OpDef kMsFastGeluOp{"com.microsoft", "FastGelu", 1, 2, 1, 1, PrepareGelu<Gelu::kFast>};
const OpDef kMsQuickGeluOp{"com.microsoft", "QuickGelu", 1, 1, 1, 1, PrepareGelu<Gelu::kQuick>};

}  // namespace qrt
