#include "ops/op_util.h"

#include <cmath>

namespace qrt {

StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("axis ", axis, " is out of range for rank ", rank);
  }
  return axis < 0 ? axis + rank : axis;
}

std::vector<int64_t> ToInt64Vector(const Tensor& t) {
  std::vector<int64_t> v(size_t(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[size_t(i)] = t.GetAsInt64(i);
  return v;
}

std::vector<int64_t> BroadcastStrides(const Dims& in, const Dims& out) {
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < in.size(); ++k) {
    size_t i = in.size() - 1 - k;
    size_t o = out.size() - 1 - k;
    strides[o] = in[i] == 1 ? 0 : stride;
    stride *= in[i];
  }
  return strides;
}

Status ExpectDType(const PrepareContext& ctx, int input, std::initializer_list<DataType> allowed) {
  DataType t = ctx.input(input).dtype;
  for (DataType a : allowed) {
    if (a == t) return Status::Ok();
  }
  std::string names;
  for (DataType a : allowed) names += (names.empty() ? "" : ", ") + std::string(DataTypeName(a));
  return InvalidArgument("input ", input, " has dtype ", DataTypeName(t), "; expected one of: ", names);
}

bool IsPerChannel(const Dims& d, int64_t channels, size_t rank) {
  if (d.size() > rank) return false;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i] != 1 && !(rank - d.size() + i == 1 && d[i] == channels)) return false;
  }
  return true;
}

Status NeedsConstant(const PrepareContext&, int input, const char* what) {
  return Status(StatusCode::kNeedsKnownValue,
                StrCat("input ", input, " (", what,
                       ") must be known when the graph is planned (an initializer or computed "
                       "from initializers and input shapes)"));
}

StatusOr<std::vector<int64_t>> ReadIntList(const PrepareContext& ctx, int input, const char* what) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, input, {DataType::kInt32, DataType::kInt64}));
  if (ctx.input(input).dims.size() != 1) {
    return InvalidArgument(what, " must be 1-D, got shape ", DimsToString(ctx.input(input).dims));
  }
  if (ctx.input(input).value == nullptr) return NeedsConstant(ctx, input, what);
  return ToInt64Vector(*ctx.input(input).value);
}

StatusOr<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  std::vector<char> seen(size_t(rank), 0);
  for (int64_t a : axes) {
    QRT_ASSIGN_OR_RETURN(int64_t ax, NormalizeAxis(a, rank));
    if (seen[size_t(ax)]) return InvalidArgument("axis ", a, " is repeated");
    seen[size_t(ax)] = 1;
    out.push_back(ax);
  }
  return out;
}

}  // namespace qrt

namespace qrt {

StatusOr<Dims> LegacyBroadcastDims(const PrepareContext& ctx, const Dims& a, const Dims& b) {
  if (ctx.opset() >= 7) return b;
  QRT_ASSIGN_OR_RETURN(int64_t broadcast, ctx.attrs().GetInt("broadcast", 0));
  if (broadcast == 0) {
    if (a != b) {
      return InvalidArgument("shapes ", DimsToString(a), " and ", DimsToString(b), " differ and broadcast is 0 (opset ",
                             ctx.opset(), ")");
    }
    return b;
  }
  const int64_t ra = int64_t(a.size()), rb = int64_t(b.size());
  QRT_ASSIGN_OR_RETURN(int64_t axis, ctx.attrs().GetInt("axis", ra - rb));
  if (axis < 0) axis += ra;
  if (axis < 0 || axis + rb > ra) {
    return InvalidArgument("B ", DimsToString(b), " does not fit A ", DimsToString(a), " at axis ", axis);
  }
  Dims out = b;
  out.resize(size_t(ra - axis), 1);  // trailing 1s align B at `axis`
  return out;
}

bool PackedByOrt(const TensorInfo& b) { return b.initializer && b.dims.size() == 2 && ElementCount(b.dims) > 0; }

float QuantizeDynamicU8(RangeWithZeroFn range, const float* x, int64_t count, uint8_t* q, int32_t* zp_out) {
  float lo, hi;
  range(count, x, &lo, &hi);  // the comparisons of std::min(lo, x) and std::max(hi, x): NaN ignored
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  const float initial = 0.0f - lo / scale;
  const int32_t zp = int32_t(std::nearbyint(std::max(0.0f, std::min(255.0f, initial))));
  for (int64_t i = 0; i < count; ++i) {
    float v = x[i] / scale;
    v = v >= float(-zp) ? v : float(-zp);  // NaN -> the lower bound, as MLAS's max(x, lo) gives
    v = v <= float(255 - zp) ? v : float(255 - zp);
    q[i] = uint8_t(int32_t(std::nearbyint(v)) + zp);
  }
  *zp_out = zp;
  return scale;
}

}  // namespace qrt
