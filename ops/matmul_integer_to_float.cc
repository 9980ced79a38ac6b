// com.microsoft MatMulIntegerToFloat and DynamicQuantizeMatMul: an 8-bit matrix product whose
// int32 accumulators become floats through ONNX Runtime's scale-and-bias output step,
//   y = float(acc) * multiplier[n] + bias[n]      (a float multiply, then a float add)
// with multiplier = a_scale * b_scale (per tensor, or per column of B: a_scale * b_scale[n]).
// acc = sum_k (a - a_zp) * (b - b_zp[n]) is exact (int32, wrapping).
// DynamicQuantizeMatMul first quantizes its float A to uint8 as ORT's dynamic quantizer does:
// lo = min(0, min(A)), hi = max(0, max(A)), a_scale = hi == lo ? 1 : (hi - lo) / 255,
// a_zp = rint(clamp(0 - lo / a_scale, 0, 255)), a = sat(rint(A / a_scale) + a_zp) (NaN: 0).
// A is [..., M, K] (or [K]); B is a 2-D [K, N] matrix of uint8 or int8. The accumulators
// come from the exact integer GEMM (ops/kernels/igemm) at the AVX2 tier and above.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "ops/igemm_operand.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/gemm/matmul_ref.h"
#include "ops/kernels/igemm/igemm.h"
#include "ops/kernels/quantize/min_max.h"
#include "ops/kernels/quantize/scale_int32.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct IntToFloatState {
  bool dynamic = false;  // DynamicQuantizeMatMul (float A)
  int64_t m = 1, n = 1, k = 1;
  DataType a_dtype = DataType::kUInt8, b_dtype = DataType::kUInt8;
  // Input slots (-1 when the op has none or it is absent).
  int a_scale = -1, a_zp = -1, b = 1, b_scale = -1, b_zp = -1, bias = -1;
  RangeWithZeroFn range = nullptr;    // DynamicQuantizeMatMul: A's range
  std::optional<IgemmProduct> igemm;  // set: the exact integer GEMM
  ScaleInt32RowFn scale_row = nullptr;
};

template <class Ta, class Tb>
void Accumulate(const IntToFloatState& s, const Ta* a, int32_t a_zp, const Tb* b, const std::vector<int32_t>& b_zp,
                int32_t* acc) {
  const GemmStrides st{s.k, 1, s.n, 1};
  ref::GemmInteger(s.m, s.n, s.k, a, &a_zp, 0, b, b_zp.data(), 1, st, acc);
}

Status RunIntToFloat(const IntToFloatState& s, const RunArgs& args) {
  const int64_t count = s.m * s.k;
  std::vector<uint8_t> a_codes;
  const void* a = args.input(0)->raw();
  int32_t a_zp = 0;
  float a_scale = 1.f;
  if (s.dynamic) {
    a_codes.resize(size_t(count));
    a_scale = QuantizeDynamicU8(s.range, args.input(0)->data<float>(), count, a_codes.data(), &a_zp);
    a = a_codes.data();
  } else {
    a_scale = args.input(s.a_scale)->data<float>()[0];
    if (s.a_zp >= 0 && args.input(s.a_zp)) a_zp = int32_t(args.input(s.a_zp)->GetAsInt64(0));
  }
  std::vector<int32_t> b_zp(size_t(s.n), 0);
  if (s.b_zp >= 0 && args.input(s.b_zp)) {
    const Tensor& z = *args.input(s.b_zp);
    for (int64_t j = 0; j < s.n; ++j) b_zp[size_t(j)] = int32_t(z.GetAsInt64(z.numel() == 1 ? 0 : j));
  }
  const Tensor& bs = *args.input(s.b_scale);
  std::vector<float> multiplier(size_t(s.n));
  for (int64_t j = 0; j < s.n; ++j) multiplier[size_t(j)] = a_scale * bs.data<float>()[bs.numel() == 1 ? 0 : j];
  int32_t* acc = ThreadScratchArray<int32_t>(ScratchSlot::kOp0, size_t(s.m * s.n));
  const DataType a_dtype = s.dynamic ? DataType::kUInt8 : s.a_dtype;
  const void* b = args.input(s.b)->raw();
  Dispatch8BitPair(a_dtype, s.b_dtype, [&](auto ta, auto tb) {
    using Ta = decltype(ta);
    using Tb = decltype(tb);
    const Ta* a8 = static_cast<const Ta*>(a);
    if (s.igemm) {
      IgemmFrom8Bit(s.igemm->kernel, s.m, s.n, s.k, a8, s.k, 1, a_zp, s.igemm->ForRun(args, s.b, s.b_zp), acc, s.n,
                    s.igemm->threads);
    } else {
      Accumulate(s, a8, a_zp, static_cast<const Tb*>(b), b_zp, acc);
    }
  });
  const float* bias = s.bias >= 0 && args.input(s.bias) ? args.input(s.bias)->data<float>() : nullptr;
  float* y = args.output(0)->data<float>();
  ScaleInt32Params p;
  p.scale = multiplier.data();
  p.scale_step = 1;
  p.bias = bias;
  p.bias_step = 1;
  for (int64_t i = 0; i < s.m; ++i) s.scale_row(s.n, acc + i * s.n, p, y + i * s.n);
  return Status::Ok();
}

// One value, or one per column of B.
Status CheckPerColumn(const PrepareContext& ctx, int i, const char* what, int64_t n) {
  const int64_t count = ElementCount(ctx.input(i).dims);
  if (count == 1 || (ctx.input(i).dims == Dims{n})) return Status::Ok();
  return Unsupported(what, " of shape ", DimsToString(ctx.input(i).dims), " (one value, or one per column of B)");
}

Status PrepareIntToFloat(PrepareContext& ctx, bool dynamic) {
  IntToFloatState s;
  s.dynamic = dynamic;
  if (dynamic) {
    s.b_scale = 2, s.b_zp = 3, s.bias = 4;
    s.range = SelectRangeWithZero(ctx.isa());
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kFloat32}));
  } else {
    s.a_scale = 2, s.b_scale = 3, s.a_zp = 4, s.b_zp = 5, s.bias = 6;
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kUInt8, DataType::kInt8}));
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.a_scale, {DataType::kFloat32}));
    if (ElementCount(ctx.input(s.a_scale).dims) != 1) return Unsupported("a_scale per row of A");
    if (ctx.has_input(s.a_zp)) {
      QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.a_zp, {ctx.input(0).dtype}));
      if (ElementCount(ctx.input(s.a_zp).dims) != 1) return Unsupported("a_zero_point per row of A");
    }
  }
  s.a_dtype = ctx.input(0).dtype;
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.b, {DataType::kUInt8, DataType::kInt8}));
  s.b_dtype = ctx.input(s.b).dtype;
  const Dims& a = ctx.input(0).dims;
  const Dims& b = ctx.input(s.b).dims;
  if (b.size() != 2) return Unsupported("B of rank ", b.size(), " (a 2-D matrix is supported)");
  if (a.empty()) return InvalidArgument("A must have rank >= 1");
  s.k = b[0];
  s.n = b[1];
  if (a.back() != s.k) return InvalidArgument("A's last dim ", a.back(), " differs from B's rows ", s.k);
  s.m = s.k == 0 ? ElementCount(Dims(a.begin(), a.end() - 1)) : ElementCount(a) / s.k;
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.b_scale, {DataType::kFloat32}));
  QRT_RETURN_IF_ERROR(CheckPerColumn(ctx, s.b_scale, "b_scale", s.n));
  if (ctx.has_input(s.b_zp)) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.b_zp, {s.b_dtype}));
    QRT_RETURN_IF_ERROR(CheckPerColumn(ctx, s.b_zp, "b_zero_point", s.n));
  }
  if (ctx.has_input(s.bias)) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, s.bias, {DataType::kFloat32}));
    if (ctx.input(s.bias).dims != Dims{s.n}) return InvalidArgument("bias must have shape [", s.n, "]");
  }
  if (s.m * s.n * s.k > 0) s.igemm = IgemmProduct::Plan(ctx, s.k, s.n, false, s.b, s.b_zp);
  Dims out(a.begin(), a.end() - 1);
  out.push_back(s.n);
  ctx.SetOutput(0, DataType::kFloat32, out);
  s.scale_row = SelectScaleInt32Row(ctx.isa());
  ctx.SetKernel<IntToFloatState, RunIntToFloat>(std::move(s));
  return Status::Ok();
}

Status PrepareMatMulIntegerToFloat(PrepareContext& ctx) { return PrepareIntToFloat(ctx, false); }
Status PrepareDynamicQuantizeMatMul(PrepareContext& ctx) { return PrepareIntToFloat(ctx, true); }

}  // namespace

const OpDef kMatMulIntegerToFloatOp{"com.microsoft", "MatMulIntegerToFloat", 4, 7, 1, 1, PrepareMatMulIntegerToFloat};
const OpDef kDynamicQuantizeMatMulOp{
    "com.microsoft", "DynamicQuantizeMatMul", 3, 5, 1, 1, PrepareDynamicQuantizeMatMul};

}  // namespace qrt
