// qrt:MatMulInt4 (ops/matmul_int4.h): MatMul over a packed 4-bit B, dequantized one slice of
// columns at a time into a per-thread panel, so neither the float B nor a copy of one code per
// byte is kept in memory.
#include "ops/matmul_int4.h"

#include <algorithm>

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/gemm/sgemm.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

using namespace mmi4;

constexpr int64_t kPanelColumns = 64;

struct Int4State {
  int64_t m = 0, k = 0, n = 0;
  bool is_signed = false, has_zero_point = false;
  // The scale of element (k, j) is scale[(k / k_div) * scale_cols + j / n_div].
  int64_t k_div = 1, n_div = 1, scale_cols = 1;
  SgemmFn gemm = nullptr;
  int threads = 1;
};

Status RunInt4(const Int4State& s, const RunArgs& args) {
  const uint8_t* codes = args.input(kCodes)->data<uint8_t>();
  const float* scale = args.input(kScale)->data<float>();
  const void* zp = s.has_zero_point ? args.input(kZeroPoint)->raw() : nullptr;
  const int64_t row_bytes = (s.n + 1) / 2;
  float* panel = ThreadScratchFloats(ScratchSlot::kOp0, size_t(s.k * kPanelColumns));
  for (int64_t j0 = 0; j0 < s.n; j0 += kPanelColumns) {
    const int64_t width = std::min(kPanelColumns, s.n - j0);
    for (int64_t kk = 0; kk < s.k; ++kk) {
      for (int64_t c = 0; c < width; ++c) {
        const int64_t j = j0 + c;
        const uint8_t byte = codes[kk * row_bytes + j / 2];
        int32_t q = j % 2 ? byte >> 4 : byte & 15;
        if (s.is_signed && q >= 8) q -= 16;
        const int64_t at = (kk / s.k_div) * s.scale_cols + j / s.n_div;
        int32_t z = 0;
        if (zp) z = s.is_signed ? static_cast<const int8_t*>(zp)[at] : static_cast<const uint8_t*>(zp)[at];
        panel[kk * width + c] = float(q - z) * scale[at];
      }
    }
    SgemmArgs g;
    g.m = s.m, g.n = width, g.k = s.k;
    g.a = args.input(kA)->data<float>(), g.lda = s.k;
    g.b = panel, g.ldb = width;
    g.c = args.output(0)->data<float>() + j0, g.ldc = s.n;
    g.rule_n = s.n;  // the k blocks of the whole product
    g.threads = s.threads;
    s.gemm(g);
  }
  return Status::Ok();
}

Status PrepareInt4(PrepareContext& ctx) {
  const TensorInfo& a = ctx.input(kA);
  if (a.dtype != DataType::kFloat32) return Unsupported("MatMulInt4 with A of ", DataTypeName(a.dtype));
  QRT_ASSIGN_OR_RETURN(int64_t n, ctx.attrs().GetInt("n", -1));
  QRT_ASSIGN_OR_RETURN(int64_t is_signed, ctx.attrs().GetInt("signed", 0));
  QRT_ASSIGN_OR_RETURN(int64_t axis, ctx.attrs().GetInt("axis", 1));
  QRT_ASSIGN_OR_RETURN(int64_t block, ctx.attrs().GetInt("block_size", 0));
  const TensorInfo& codes = ctx.input(kCodes);
  if (a.dims.empty() || n < 1 || codes.dtype != DataType::kUInt8 || codes.dims.size() != 2 ||
      codes.dims[0] != a.dims.back() || codes.dims[1] != (n + 1) / 2) {
    return InvalidArgument("codes ", DimsToString(codes.dims), " do not fit A ", DimsToString(a.dims), " and n ", n);
  }
  Int4State s;
  s.k = a.dims.back();
  s.n = n;
  s.m = ElementCount(a.dims) / std::max<int64_t>(s.k, 1);
  s.is_signed = is_signed != 0;
  const TensorInfo& scale = ctx.input(kScale);
  const int64_t count = ElementCount(scale.dims);
  if (axis != 0 && axis != 1) return InvalidArgument("axis ", axis, " is neither 0 nor 1");
  if (count == 1 && scale.dims.size() <= 1) {
    s.k_div = s.k, s.n_div = s.n;
  } else if (block <= 0) {
    if (count != (axis == 0 ? s.k : s.n)) return InvalidArgument("a per-axis scale of ", count, " values");
    if (axis == 0)
      s.n_div = s.n;  // scale[k]
    else
      s.k_div = s.k, s.scale_cols = 1;  // scale[j]
  } else if (axis == 0) {
    s.k_div = block, s.scale_cols = s.n;
    if (count != (s.k + block - 1) / block * s.n) return InvalidArgument("a blocked scale of ", count, " values");
  } else {
    s.n_div = block, s.scale_cols = (s.n + block - 1) / block;
    if (count != s.k * s.scale_cols) return InvalidArgument("a blocked scale of ", count, " values");
  }
  if (scale.dtype != DataType::kFloat32) return InvalidArgument("the scale must be float32");
  s.has_zero_point = ctx.has_input(kZeroPoint);
  if (s.has_zero_point && (ctx.input(kZeroPoint).dtype != (s.is_signed ? DataType::kInt8 : DataType::kUInt8) ||
                           ElementCount(ctx.input(kZeroPoint).dims) != count)) {
    return InvalidArgument("the zero point must have the scale's ", count, " values, one code per byte");
  }
  s.gemm = SelectSgemmKernel(ctx.isa());
  s.threads = ctx.threads();
  Dims out = a.dims;
  out.back() = n;
  ctx.SetOutput(0, DataType::kFloat32, out);
  ctx.SetKernel<Int4State, RunInt4>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kQrtMatMulInt4Op{"qrt", "MatMulInt4", 3, 4, 1, 1, PrepareInt4};

}  // namespace qrt
