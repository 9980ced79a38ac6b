#include "ops/kernels/common/broadcast.h"

#include <algorithm>

namespace qrt {

StatusOr<Dims> BroadcastDims(const Dims& a, const Dims& b) {
  const size_t r = std::max(a.size(), b.size());
  Dims out(r, 1);
  for (size_t i = 0; i < r; ++i) {
    const int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    const int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return InvalidArgument("shapes ", DimsToString(a), " and ", DimsToString(b),
                             " are not broadcastable (numpy rules)");
    }
  }
  return out;
}

bool BroadcastsTo(const Dims& in, const Dims& out) {
  if (in.size() > out.size()) return false;
  const size_t off = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != 1 && in[i] != out[off + i]) return false;
  }
  return true;
}

StridedLoop MakeStridedLoop(const std::vector<Dims>& operands, const Dims& out, const std::vector<bool>& const_in_run) {
  const size_t k = operands.size();
  const size_t r = out.size();
  StridedLoop loop;
  loop.inner_inc.assign(k, 0);
  loop.outer_strides.assign(k, {});
  for (int64_t d : out) {
    if (d == 0) return loop;  // empty output: no runs
  }

  // Operand dims padded on the left to rank(out), and their contiguous strides.
  std::vector<Dims> padded(k, Dims(r, 1));
  std::vector<Dims> strides(k, Dims(r, 1));
  for (size_t j = 0; j < k; ++j) {
    const size_t off = r - operands[j].size();
    for (size_t i = 0; i < operands[j].size(); ++i) padded[j][off + i] = operands[j][i];
    for (size_t i = r; i-- > 1;) strides[j][i - 1] = strides[j][i] * padded[j][i];
  }

  // Drop size-1 output dims; merge neighbours in which every operand varies the same way.
  struct Group {
    int64_t size;
    std::vector<bool> varies;
    size_t last;  // innermost original dim of the group
  };
  std::vector<Group> groups;
  for (size_t i = 0; i < r; ++i) {
    if (out[i] == 1) continue;
    std::vector<bool> varies(k);
    for (size_t j = 0; j < k; ++j) varies[j] = padded[j][i] == out[i];
    if (!groups.empty() && groups.back().varies == varies) {
      groups.back().size *= out[i];
      groups.back().last = i;
    } else {
      groups.push_back({out[i], varies, i});
    }
  }

  loop.inner = 1;
  loop.num_runs = 1;
  if (groups.empty()) return loop;  // one element

  const Group& in_group = groups.back();
  bool split = false;
  for (size_t j = 0; j < k && j < const_in_run.size(); ++j) {
    if (const_in_run[j] && in_group.varies[j]) split = true;
  }
  const size_t n_outer = split ? groups.size() : groups.size() - 1;
  for (size_t g = 0; g < n_outer; ++g) {
    loop.outer_dims.push_back(groups[g].size);
    loop.num_runs *= groups[g].size;
    for (size_t j = 0; j < k; ++j) {
      loop.outer_strides[j].push_back(groups[g].varies[j] ? strides[j][groups[g].last] : 0);
    }
  }
  if (!split) {
    loop.inner = in_group.size;
    for (size_t j = 0; j < k; ++j) loop.inner_inc[j] = in_group.varies[j] ? 1 : 0;
  }
  return loop;
}

}  // namespace qrt
