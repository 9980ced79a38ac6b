// com.microsoft QLinearSoftmax: softmax of 8-bit codes along an axis, computed as ONNX Runtime's
// CPU kernel does, so that the codes match it bit for bit:
// - a 256-entry float table e[i] = float(exp((i - 255 + shift) * x_scale)) in double, with
//   shift = max(0, log(FLT_MAX / D) - 5) / x_scale for a row of D elements (so that a row's sum
//   stays finite); a row reads e[x - max(row) + 255], whose largest entry is e[255];
// - the row's sum of those floats, in element order; X's zero point cancels and is unused;
// - y = nearbyintf(e * floor(1 / y_scale) / sum) + y_zp, as float operations, then saturated
//   above (uint8: min(255, y), through ORT's float -> uint32 cast) or to the int8 range (through
//   its float -> int32 cast and a 32-bit sum). Rows so short that e[255] * floor(1 / y_scale)
//   overflows float give what those casts give: y_zp for uint8, 127 for int8 below zero point 0.
// Opset (the `opset` attribute, Softmax's opset the model was quantized from) < 13: the rows are
// dims[axis:] flattened; >= 13: the single axis. axis defaults to -1 (the schema's default, for
// every opset).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/op_util.h"
#include "ops/ops.h"
#include "ops/qlinear_params.h"

namespace qrt {
namespace {

enum Input : int { kX = 0, kXScale = 1, kXZeroPoint = 2, kYScale = 3, kYZeroPoint = 4, kInputCount = 5 };

using ExpTable = std::array<float, 256>;

ExpTable BuildExpTable(float x_scale, int64_t row) {
  double shift = std::log(double(std::numeric_limits<float>::max() / float(row)));
  shift = std::max(0.0, shift - 5.0) / double(x_scale);
  ExpTable e;
  for (int i = 0; i < 256; ++i) e[size_t(i)] = float(std::exp((double(i) - 255.0 + shift) * double(x_scale)));
  return e;
}

// ORT's float -> uint32 cast as x86-64 performs it: cvttss2si's 64-bit result, its low half.
uint32_t CastToUint32(float r) { return r > -9.2e18f && r < 9.2e18f ? uint32_t(uint64_t(int64_t(r))) : 0; }

struct QSoftmaxState {
  bool is_signed = false;
  int64_t outer = 1, row = 1, inner = 1;  // rows of `row` elements, `inner` apart
  bool table_fixed = false;
  ExpTable table{};
};

template <class T>
void SoftmaxRows(const QSoftmaxState& s, const ExpTable& e, float y_scale, int32_t y_zp, const T* x, T* y) {
  const float ys = std::floor(1.0f / y_scale);
  for (int64_t o = 0; o < s.outer; ++o) {
    for (int64_t in = 0; in < s.inner; ++in) {
      const T* xr = x + o * s.row * s.inner + in;
      T* yr = y + o * s.row * s.inner + in;
      int32_t xmax = xr[0];
      for (int64_t k = 1; k < s.row; ++k) xmax = std::max<int32_t>(xmax, xr[k * s.inner]);
      // e[x - xmax + 255], indexed from 0 for every x of the row (no pointer outside the table).
      auto shifted = [&](int32_t x) { return e[size_t(x - xmax + 255)]; };
      float sum = 0.f;
      for (int64_t k = 0; k < s.row; ++k) sum += shifted(xr[k * s.inner]);
      for (int64_t k = 0; k < s.row; ++k) {
        const float r = std::nearbyintf((shifted(xr[k * s.inner]) * ys) / sum);
        if constexpr (std::is_same_v<T, uint8_t>) {
          const uint32_t q = CastToUint32(r) + uint32_t(y_zp);
          yr[k * s.inner] = q > 255 ? uint8_t(255) : uint8_t(q);
        } else {
          // A 32-bit sum that wraps: an overflowed quotient (INT32_MIN) plus a negative zero point
          // saturates high.
          const int32_t q = int32_t(uint32_t(CastToInt32LikeX86(r)) + uint32_t(y_zp));
          yr[k * s.inner] = int8_t(std::max(-128, std::min(127, q)));
        }
      }
    }
  }
}

Status RunQLinearSoftmax(const QSoftmaxState& s, const RunArgs& args) {
  if (s.outer * s.row * s.inner == 0) return Status::Ok();
  const ExpTable e = s.table_fixed ? s.table : BuildExpTable(args.input(kXScale)->data<float>()[0], s.row);
  const float y_scale = args.input(kYScale)->data<float>()[0];
  const int32_t y_zp = args.input(kYZeroPoint) ? int32_t(args.input(kYZeroPoint)->GetAsInt64(0)) : 0;
  if (s.is_signed) {
    SoftmaxRows(s, e, y_scale, y_zp, args.input(kX)->data<int8_t>(), args.output(0)->data<int8_t>());
  } else {
    SoftmaxRows(s, e, y_scale, y_zp, args.input(kX)->data<uint8_t>(), args.output(0)->data<uint8_t>());
  }
  return Status::Ok();
}

Status PrepareQLinearSoftmax(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(kX);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, kX, {DataType::kUInt8, DataType::kInt8}));
  for (int i : {kXScale, kYScale}) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, i, {DataType::kFloat32}));
    if (ElementCount(ctx.input(i).dims) != 1) return InvalidArgument("input ", i, " must be one scale per tensor");
  }
  for (int i : {kXZeroPoint, kYZeroPoint}) {
    if (!ctx.has_input(i)) continue;
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, i, {x.dtype}));
    if (ElementCount(ctx.input(i).dims) != 1) return InvalidArgument("input ", i, " must be one zero point");
  }
  if (!ctx.attrs().Has("opset")) return InvalidArgument("attribute 'opset' is required");
  QRT_ASSIGN_OR_RETURN(int64_t opset, ctx.attrs().GetInt("opset"));
  QRT_ASSIGN_OR_RETURN(int64_t axis_attr, ctx.attrs().GetInt("axis", -1));
  const int64_t rank = int64_t(x.dims.size());
  if (rank == 0) return InvalidArgument("X must have rank >= 1");
  QRT_ASSIGN_OR_RETURN(int64_t axis, NormalizeAxis(axis_attr, rank));
  QSoftmaxState s;
  s.is_signed = x.dtype == DataType::kInt8;
  for (int64_t d = 0; d < axis; ++d) s.outer *= x.dims[size_t(d)];
  if (opset < 13) {
    for (int64_t d = axis; d < rank; ++d) s.row *= x.dims[size_t(d)];
  } else {
    s.row = x.dims[size_t(axis)];
    for (int64_t d = axis + 1; d < rank; ++d) s.inner *= x.dims[size_t(d)];
  }
  if (const Tensor* scale = ctx.input(kXScale).value; scale != nullptr && s.row > 0) {
    s.table = BuildExpTable(scale->data<float>()[0], s.row);
    s.table_fixed = true;
  }
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<QSoftmaxState, RunQLinearSoftmax>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kQLinearSoftmaxOp{"com.microsoft", "QLinearSoftmax", kYScale + 1, kInputCount, 1, 1, PrepareQLinearSoftmax};

}  // namespace qrt
