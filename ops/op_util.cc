#include "ops/op_util.h"

namespace qrt {

StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("axis ", axis, " is out of range for rank ", rank);
  }
  return axis < 0 ? axis + rank : axis;
}

StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b) {
  const size_t rank = std::max(a.size(), b.size());
  Dims out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return InvalidArgument("shapes ", DimsToString(a), " and ", DimsToString(b),
                             " cannot be broadcast together");
    }
  }
  return out;
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

Status NeedsConstant(const PrepareContext&, int input, const char* what) {
  return Status(StatusCode::kNeedsKnownValue, StrCat("input ", input, " (", what,
                     ") must be known when the graph is planned (an initializer or computed "
                     "from initializers and input shapes)"));
}

}  // namespace qrt
