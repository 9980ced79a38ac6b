// Einsum: explicit ("ij,jk->ik") and implicit ("ij,jk": the labels seen once, in alphabetical
// order) equations, ellipses with broadcasting, repeated labels (diagonals), any number of
// inputs of one numeric type. Each output element sums the product of its inputs' elements
// over the contracted labels in row-major label order, in double for floats (one rounding)
// and in wrapping int64 for integers.
#include <algorithm>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct EinsumState {
  DataType dtype;
  int num_labels = 0, num_out = 0;            // labels 0..num_out-1 index the output, the rest are summed
  std::vector<int64_t> label_size;            // per label
  std::vector<std::vector<int64_t>> strides;  // per input, per label: the element stride (0 if absent/broadcast)
};

template <class E>
void EinsumTyped(const EinsumState& s, const RunArgs& args) {
  using C = typename E::Compute;
  using Acc = std::conditional_t<std::is_floating_point_v<C>, double, int64_t>;
  const size_t n_in = s.strides.size();
  std::vector<const typename E::Stored*> in(n_in);
  for (size_t k = 0; k < n_in; ++k) in[k] = args.input(int(k))->data<typename E::Stored>();
  auto* y = args.output(0)->data<typename E::Stored>();
  const int L = s.num_labels;
  std::vector<int64_t> idx(size_t(L), 0);
  int64_t out_count = 1, sum_count = 1;
  for (int l = 0; l < L; ++l) (l < s.num_out ? out_count : sum_count) *= s.label_size[size_t(l)];
  for (int64_t o = 0; o < out_count; ++o) {
    int64_t rem = o;
    for (int l = s.num_out - 1; l >= 0; --l) {
      idx[size_t(l)] = rem % s.label_size[size_t(l)];
      rem /= s.label_size[size_t(l)];
    }
    Acc acc = 0;
    for (int64_t r = 0; r < sum_count; ++r) {
      int64_t rr = r;
      for (int l = L - 1; l >= s.num_out; --l) {
        idx[size_t(l)] = rr % s.label_size[size_t(l)];
        rr /= s.label_size[size_t(l)];
      }
      Acc prod = 1;
      for (size_t k = 0; k < n_in; ++k) {
        int64_t off = 0;
        for (int l = 0; l < L; ++l) off += idx[size_t(l)] * s.strides[k][size_t(l)];
        if constexpr (std::is_floating_point_v<C>) {
          prod *= double(E::Load(in[k][off]));
        } else {
          prod = int64_t(uint64_t(prod) * uint64_t(int64_t(E::Load(in[k][off]))));
        }
      }
      if constexpr (std::is_floating_point_v<C>) {
        acc += prod;
      } else {
        acc = int64_t(uint64_t(acc) + uint64_t(prod));
      }
    }
    y[o] = E::Store(C(acc));
  }
}

Status RunEinsum(const EinsumState& s, const RunArgs& args) {
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    if constexpr (!std::is_same_v<typename E::Compute, bool>) EinsumTyped<E>(s, args);
  });
  return Status::Ok();
}

bool IsLabel(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

Status PrepareEinsum(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(std::string eq, ctx.attrs().GetString("equation"));
  eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (int(terms.size()) != ctx.num_inputs()) {
    return InvalidArgument("equation \"", eq, "\" has ", terms.size(), " terms for ", ctx.num_inputs(), " inputs");
  }
  EinsumState s;
  s.dtype = ctx.input(0).dtype;
  if (s.dtype == DataType::kBool) return InvalidArgument("Einsum on bool");
  // Labels: letters, and '0'+d for the d-th ellipsis dim counted from the right.
  std::vector<std::vector<char>> in_labels(terms.size());
  std::map<char, int64_t> size;
  int64_t ellipsis_rank = 0;
  for (size_t k = 0; k < terms.size(); ++k) {
    const TensorInfo& t = ctx.input(int(k));
    if (t.dtype != s.dtype) return InvalidArgument("inputs must share one dtype");
    const std::string& term = terms[k];
    const size_t dots = term.find("...");
    int64_t letters = 0;
    for (char c : term) {
      if (IsLabel(c)) {
        ++letters;
      } else if (c != '.') {
        return InvalidArgument("bad character '", std::string(1, c), "' in equation \"", eq, "\"");
      }
    }
    const int64_t rank = int64_t(t.dims.size());
    const int64_t ell = dots == std::string::npos ? 0 : rank - letters;
    if (ell < 0 || (dots == std::string::npos && letters != rank)) {
      return InvalidArgument("term \"", term, "\" does not fit input ", k, " of rank ", rank);
    }
    ellipsis_rank = std::max(ellipsis_rank, ell);
    for (size_t i = 0; i < term.size(); ++i) {
      if (term.compare(i, 3, "...") == 0) {
        for (int64_t e = ell - 1; e >= 0; --e) in_labels[k].push_back(char('0' + e));
        i += 2;
      } else {
        in_labels[k].push_back(term[i]);
      }
    }
    for (size_t d = 0; d < in_labels[k].size(); ++d) {
      const char l = in_labels[k][d];
      const int64_t v = t.dims[d];
      auto it = size.find(l);
      if (it == size.end() || it->second == 1) {
        size[l] = v;
      } else if (v != 1 && v != it->second) {
        return InvalidArgument("label '", std::string(1, l), "' has sizes ", it->second, " and ", v);
      }
    }
  }
  if (ellipsis_rank > 10) return Unsupported("ellipsis of rank ", ellipsis_rank);
  std::vector<char> out_labels;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    for (size_t i = 0; i < rhs.size(); ++i) {
      if (rhs.compare(i, 3, "...") == 0) {
        for (int64_t e = ellipsis_rank - 1; e >= 0; --e) out_labels.push_back(char('0' + e));
        i += 2;
      } else if (IsLabel(rhs[i]) && size.count(rhs[i])) {
        out_labels.push_back(rhs[i]);
      } else {
        return InvalidArgument("output label '", std::string(1, rhs[i]), "' is not an input label");
      }
    }
  } else {
    for (int64_t e = ellipsis_rank - 1; e >= 0; --e) out_labels.push_back(char('0' + e));
    std::map<char, int> count;
    for (const auto& ls : in_labels)
      for (char l : ls) count[l]++;
    for (const auto& [l, c] : count) {
      if (IsLabel(l) && c == 1) out_labels.push_back(l);
    }
  }
  std::vector<char> order = out_labels;
  for (const auto& [l, v] : size) {
    if (std::find(order.begin(), order.end(), l) == order.end()) order.push_back(l);
  }
  s.num_labels = int(order.size());
  s.num_out = int(out_labels.size());
  for (char l : order) s.label_size.push_back(size[l]);
  for (size_t k = 0; k < terms.size(); ++k) {
    const Dims& dims = ctx.input(int(k)).dims;
    std::vector<int64_t> elem_strides(dims.size(), 1);
    for (size_t d = dims.size(); d-- > 1;) elem_strides[d - 1] = elem_strides[d] * dims[d];
    std::vector<int64_t> st(order.size(), 0);
    for (size_t d = 0; d < dims.size(); ++d) {
      const size_t l = size_t(std::find(order.begin(), order.end(), in_labels[k][d]) - order.begin());
      if (dims[d] != 1) st[l] += elem_strides[d];  // repeated labels add up: a diagonal
    }
    s.strides.push_back(std::move(st));
  }
  Dims out;
  for (char l : out_labels) out.push_back(size[l]);
  QRT_RETURN_IF_ERROR(CheckedElementCount(out, DataTypeSize(s.dtype)).status());
  ctx.SetOutput(0, s.dtype, out);
  ctx.SetKernel<EinsumState, RunEinsum>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kEinsumOp{"", "Einsum", 1, 64, 1, 1, PrepareEinsum};

}  // namespace qrt
