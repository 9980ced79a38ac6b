// com.microsoft QGemm: Y = alpha * (A' - a_zp) x (B' - b_zp) + C, A' = A or A^T (transA),
// B' = B or B^T (transB); A, B 8-bit, b_scale and b_zp per tensor or per column (N), C an
// optional int32 bias on the accumulator's grid (a_scale * b_scale / alpha, zero point 0),
// broadcast to [M, N]. With y_scale (and y_zero_point) the output is requantized as ONNX
// Runtime does (RequantizeLikeOrt with the multiplier ((alpha * a_scale) * b_scale) / y_scale);
// without it, Y = float(acc) * ((alpha * a_scale) * b_scale), float32.
// The accumulators come from the exact integer GEMM (ops/kernels/igemm) at the AVX2 tier and
// above, from ref::GemmInteger below: the same int32 values.
#include <optional>
#include <vector>

#include "ops/igemm_operand.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/gemm/matmul_ref.h"
#include "ops/kernels/igemm/igemm.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct QGemmState {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  float alpha = 1.f;
  DataType a_dtype, b_dtype, y_dtype;
  bool has_c = false, quantized_output = false;
  Dims c_dims;
  std::optional<IgemmProduct> igemm;  // set: the exact integer GEMM
};

template <class Ta, class Tb>
void Accumulate(const QGemmState& s, const RunArgs& args, int32_t* acc) {
  const int32_t a_zp = args.input(2) ? int32_t(args.input(2)->GetAsInt64(0)) : 0;
  if (s.igemm) {
    IgemmFrom8Bit(s.igemm->kernel, s.m, s.n, s.k, args.input(0)->data<Ta>(), s.trans_a ? 1 : s.k, s.trans_a ? s.m : 1,
                  a_zp, s.igemm->ForRun(args, 3, 5), acc, s.n, s.igemm->threads);
    return;
  }
  std::vector<int32_t> b_zp(size_t(s.n), 0);
  if (const Tensor* z = args.input(5)) {
    for (int64_t j = 0; j < s.n; ++j) b_zp[size_t(j)] = int32_t(z->GetAsInt64(z->numel() == 1 ? 0 : j));
  }
  const GemmStrides st{s.trans_a ? 1 : s.k, s.trans_a ? s.m : 1, s.trans_b ? 1 : s.n, s.trans_b ? s.k : 1};
  ref::GemmInteger(s.m, s.n, s.k, args.input(0)->data<Ta>(), &a_zp, 0, args.input(3)->data<Tb>(), b_zp.data(), 1, st,
                   acc);
}

Status RunQGemm(const QGemmState& s, const RunArgs& args) {
  int32_t* acc = ThreadScratchArray<int32_t>(ScratchSlot::kOp0, size_t(s.m * s.n));
  Dispatch8BitPair(s.a_dtype, s.b_dtype,
                   [&](auto ta, auto tb) { Accumulate<decltype(ta), decltype(tb)>(s, args, acc); });
  if (s.has_c) {
    const Tensor& c = *args.input(6);
    const int64_t cm = s.c_dims.size() == 2 ? s.c_dims[0] : 1, cn = s.c_dims.empty() ? 1 : s.c_dims.back();
    const int32_t* cv = c.data<int32_t>();
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        acc[i * s.n + j] =
            int32_t(uint32_t(acc[i * s.n + j]) + uint32_t(cv[(cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j)]));
      }
    }
  }
  const float a_scale = args.input(1)->data<float>()[0];
  const Tensor& b_scale = *args.input(4);
  std::vector<float> scale(size_t(s.n));
  for (int64_t j = 0; j < s.n; ++j) {
    scale[size_t(j)] = (s.alpha * a_scale) * b_scale.data<float>()[b_scale.numel() == 1 ? 0 : j];
  }
  Tensor& y = *args.output(0);
  if (!s.quantized_output) {
    float* out = y.data<float>();
    for (int64_t i = 0; i < s.m * s.n; ++i) out[i] = float(acc[i]) * scale[size_t(i % s.n)];
    return Status::Ok();
  }
  const float y_scale = args.input(7)->data<float>()[0];
  const int32_t y_zp = args.input(8) ? int32_t(args.input(8)->GetAsInt64(0)) : 0;
  for (float& v : scale) v = v / y_scale;
  for (int64_t i = 0; i < s.m * s.n; ++i) {
    if (s.y_dtype == DataType::kUInt8) {
      y.data<uint8_t>()[i] = RequantizeLikeOrt<uint8_t>(acc[i], scale[size_t(i % s.n)], y_zp);
    } else {
      y.data<int8_t>()[i] = RequantizeLikeOrt<int8_t>(acc[i], scale[size_t(i % s.n)], y_zp);
    }
  }
  return Status::Ok();
}

Status ExpectScalarOrColumns(const PrepareContext& ctx, int i, const char* what, int64_t n, bool columns_ok) {
  if (!ctx.has_input(i)) return Status::Ok();
  const int64_t count = ElementCount(ctx.input(i).dims);
  if (count == 1 || (columns_ok && count == n && ctx.input(i).dims.size() == 1)) return Status::Ok();
  return InvalidArgument(what, " of shape ", DimsToString(ctx.input(i).dims), " must be a scalar",
                         columns_ok ? " or one per column" : "");
}

Status PrepareQGemm(PrepareContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(3);
  QGemmState s;
  s.a_dtype = a.dtype;
  s.b_dtype = b.dtype;
  for (DataType t : {a.dtype, b.dtype}) {
    if (t != DataType::kUInt8 && t != DataType::kInt8) return InvalidArgument("A and B must be 8-bit integers");
  }
  if (a.dims.size() != 2 || b.dims.size() != 2) return InvalidArgument("A and B must be 2-D");
  QRT_ASSIGN_OR_RETURN(int64_t ta, ctx.attrs().GetInt("transA", 0));
  QRT_ASSIGN_OR_RETURN(int64_t tb, ctx.attrs().GetInt("transB", 0));
  QRT_ASSIGN_OR_RETURN(s.alpha, ctx.attrs().GetFloat("alpha", 1.f));
  s.trans_a = ta != 0;
  s.trans_b = tb != 0;
  s.m = s.trans_a ? a.dims[1] : a.dims[0];
  s.k = s.trans_a ? a.dims[0] : a.dims[1];
  s.n = s.trans_b ? b.dims[0] : b.dims[1];
  if ((s.trans_b ? b.dims[1] : b.dims[0]) != s.k) {
    return InvalidArgument("A ", DimsToString(a.dims), " and B ", DimsToString(b.dims), " do not multiply");
  }
  for (int i : {1, 4}) {
    if (ctx.input(i).dtype != DataType::kFloat32) return InvalidArgument("input ", i, " (a scale) must be float32");
  }
  QRT_RETURN_IF_ERROR(ExpectScalarOrColumns(ctx, 1, "a_scale", s.n, false));
  QRT_RETURN_IF_ERROR(ExpectScalarOrColumns(ctx, 2, "a_zero_point", s.n, false));
  QRT_RETURN_IF_ERROR(ExpectScalarOrColumns(ctx, 4, "b_scale", s.n, true));
  QRT_RETURN_IF_ERROR(ExpectScalarOrColumns(ctx, 5, "b_zero_point", s.n, true));
  if (ctx.has_input(2) && ctx.input(2).dtype != a.dtype) return InvalidArgument("a_zero_point must have A's dtype");
  if (ctx.has_input(5) && ctx.input(5).dtype != b.dtype) return InvalidArgument("b_zero_point must have B's dtype");
  if (ctx.has_input(6)) {
    const TensorInfo& c = ctx.input(6);
    if (c.dtype != DataType::kInt32) return InvalidArgument("C must be int32");
    const bool ok = c.dims.size() <= 2 && BroadcastsTo(c.dims, Dims{s.m, s.n});
    if (!ok) return InvalidArgument("C ", DimsToString(c.dims), " does not broadcast to [", s.m, ", ", s.n, "]");
    s.has_c = true;
    s.c_dims = c.dims;
  }
  s.quantized_output = ctx.has_input(7);
  s.y_dtype = DataType::kFloat32;
  if (s.quantized_output) {
    if (ctx.input(7).dtype != DataType::kFloat32) return InvalidArgument("y_scale must be float32");
    QRT_RETURN_IF_ERROR(ExpectScalarOrColumns(ctx, 7, "y_scale", s.n, false));
    QRT_RETURN_IF_ERROR(ExpectScalarOrColumns(ctx, 8, "y_zero_point", s.n, false));
    s.y_dtype = ctx.has_input(8) ? ctx.input(8).dtype : DataType::kUInt8;
    if (s.y_dtype != DataType::kUInt8 && s.y_dtype != DataType::kInt8) {
      return InvalidArgument("y_zero_point must be 8-bit");
    }
  }
  if (s.m * s.n * s.k > 0) s.igemm = IgemmProduct::Plan(ctx, s.k, s.n, s.trans_b, 3, 5);
  ctx.SetOutput(0, s.y_dtype, {s.m, s.n});
  ctx.SetKernel<QGemmState, RunQGemm>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kQGemmOp{"com.microsoft", "QGemm", 6, 9, 1, 1, PrepareQGemm};

}  // namespace qrt
