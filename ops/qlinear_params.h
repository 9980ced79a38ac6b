// The per-tensor scale and zero point inputs of ONNX Runtime's QOperator ops (com.microsoft
// QLinear*), read at plan time.
#pragma once

#include <cmath>
#include <cstdint>

#include "ops/op_util.h"

namespace qrt {

struct QParams {
  float scale = 1;
  int32_t zp = 0;
};

// A per-tensor float32 scale (input i) and optional zero point of q_dtype (input i + 1), both
// constants; errors name the input.
inline StatusOr<QParams> ReadQParams(const PrepareContext& ctx, int i, DataType q_dtype) {
  QParams p;
  if (!ctx.has_input(i) || ctx.input(i).dtype != DataType::kFloat32 || ElementCount(ctx.input(i).dims) != 1) {
    return InvalidArgument("input ", i, " must be a float32 scale, one per tensor");
  }
  if (ctx.input(i).value == nullptr) return NeedsConstant(ctx, i, "scale");
  p.scale = ctx.input(i).value->data<float>()[0];
  if (!(p.scale > 0) || !std::isfinite(p.scale)) return InvalidArgument("scale ", p.scale, " must be positive");
  if (ctx.has_input(i + 1)) {
    if (ctx.input(i + 1).dtype != q_dtype || ElementCount(ctx.input(i + 1).dims) != 1) {
      return InvalidArgument("input ", i + 1, " must be a zero point of the tensor's dtype, one per tensor");
    }
    if (ctx.input(i + 1).value == nullptr) return NeedsConstant(ctx, i + 1, "zero point");
    p.zp = int32_t(ctx.input(i + 1).value->GetAsInt64(0));
  }
  return p;
}

// ORT's float -> int32 cast as x86-64 performs it (cvttss2si): out of range and NaN give
// INT32_MIN, the "integer indefinite" value, which its clamps then see.
inline int32_t CastToInt32LikeX86(float r) { return r > -2147483904.f && r < 2147483648.f ? int32_t(r) : INT32_MIN; }

}  // namespace qrt
