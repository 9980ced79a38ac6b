// TfIdfVectorizer (opset 9): counts, per row of X ([C] or [N, C], int32 or int64), the n-grams
// of a pool, and writes them as a float vector of max(ngram_indexes) + 1 columns per row.
// ngram_counts[k] is where the (k+1)-grams start in pool_int64s; the i-th n-gram of the pool
// (in pool order, over all lengths) is counted in column ngram_indexes[i]. An n-gram of
// length n with skip s takes the items at start, start + (s + 1), ... (n items); for every s in
// [0, max_skip_count], every start and every n in [min_gram_length, max_gram_length] it is
// counted once when it is in the pool; unigrams do not depend on s and are counted for s = 0
// only (as ONNX Runtime does). Output: TF the count; IDF weights[c] (1 without weights) where
// the count is not 0, else 0; TFIDF count * weights[c] (the count without weights).
// pool_strings (string inputs) is not supported: qrt has no string tensors.
#include <map>
#include <vector>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class TfIdfMode { kTf, kIdf, kTfIdf };

// The pool as a trie: node 0 is the root; child[(node, item)] is the node after item; column
// of a node is the output column of the n-gram ending there, or -1.
struct NgramTrie {
  std::map<std::pair<int32_t, int64_t>, int32_t> child;
  std::vector<int64_t> column = {-1};

  int32_t Find(int32_t node, int64_t item) const {
    auto it = child.find({node, item});
    return it == child.end() ? -1 : it->second;
  }
  int32_t Insert(int32_t node, int64_t item) {
    auto [it, added] = child.emplace(std::make_pair(node, item), int32_t(column.size()));
    if (added) column.push_back(-1);
    return it->second;
  }
};

struct TfIdfState {
  DataType dtype;
  int64_t rows = 1, row_len = 0, columns = 0;
  int64_t min_gram = 1, max_gram = 1, max_skip = 0;
  TfIdfMode mode = TfIdfMode::kTf;
  std::vector<float> weights;
  NgramTrie trie;
};

template <class T>
void CountRow(const TfIdfState& s, const T* row, float* counts) {
  for (int64_t skip = 0; skip <= s.max_skip; ++skip) {
    const int64_t step = skip + 1;
    const int64_t min_n = skip > 0 ? std::max<int64_t>(s.min_gram, 2) : s.min_gram;
    if (min_n > s.max_gram) break;
    for (int64_t start = 0; start < s.row_len; ++start) {
      int32_t node = 0;
      for (int64_t n = 1, at = start; n <= s.max_gram && at < s.row_len; ++n, at += step) {
        node = s.trie.Find(node, int64_t(row[at]));
        if (node < 0) break;
        const int64_t c = s.trie.column[size_t(node)];
        if (n >= min_n && c >= 0) counts[c] += 1.f;
      }
    }
  }
}

Status RunTfIdf(const TfIdfState& s, const RunArgs& args) {
  float* y = args.output(0)->data<float>();
  for (int64_t r = 0; r < s.rows; ++r) {
    float* out = y + r * s.columns;
    std::fill(out, out + s.columns, 0.f);
    if (s.dtype == DataType::kInt32) {
      CountRow(s, args.input(0)->data<int32_t>() + r * s.row_len, out);
    } else {
      CountRow(s, args.input(0)->data<int64_t>() + r * s.row_len, out);
    }
    for (int64_t c = 0; c < s.columns; ++c) {
      const float w = s.weights.empty() ? 1.f : s.weights[size_t(c)];
      if (s.mode == TfIdfMode::kIdf) out[c] = out[c] > 0 ? w : 0.f;
      if (s.mode == TfIdfMode::kTfIdf) out[c] = out[c] * w;
    }
  }
  return Status::Ok();
}

// Builds the trie from the pool; checks the attributes fit together.
Status BuildTrie(const std::vector<int64_t>& pool, const std::vector<int64_t>& counts,
                 const std::vector<int64_t>& indexes, NgramTrie& trie, int64_t& columns) {
  size_t ngram = 0;
  for (size_t k = 0; k < counts.size(); ++k) {
    const int64_t n = int64_t(k) + 1;
    const int64_t begin = counts[k], end = k + 1 < counts.size() ? counts[k + 1] : int64_t(pool.size());
    if (begin < 0 || end < begin || end > int64_t(pool.size())) {
      return InvalidArgument("ngram_counts ", counts[k], " is out of order or beyond the pool of ", pool.size());
    }
    if ((end - begin) % n != 0) {
      return InvalidArgument("the ", n, "-gram section of the pool holds ", end - begin, " items, not a multiple of ",
                             n);
    }
    for (int64_t at = begin; at < end; at += n, ++ngram) {
      if (ngram >= indexes.size()) return InvalidArgument("ngram_indexes has fewer entries than the pool has n-grams");
      if (indexes[ngram] < 0) return InvalidArgument("ngram_indexes holds a negative column ", indexes[ngram]);
      int32_t node = 0;
      for (int64_t i = 0; i < n; ++i) node = trie.Insert(node, pool[size_t(at + i)]);
      trie.column[size_t(node)] = indexes[ngram];
    }
  }
  if (ngram != indexes.size())
    return InvalidArgument("ngram_indexes has ", indexes.size(), " entries for ", ngram, " n-grams");
  for (int64_t c : indexes) columns = std::max(columns, c + 1);
  return Status::Ok();
}

Status PrepareTfIdf(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kInt32, DataType::kInt64}));
  if (x.dims.empty() || x.dims.size() > 2)
    return InvalidArgument("X must be [C] or [N, C], not ", DimsToString(x.dims));
  if (ctx.attrs().Has("pool_strings")) return Unsupported("pool_strings (qrt has no string tensors)");
  TfIdfState s;
  s.dtype = x.dtype;
  s.rows = x.dims.size() == 2 ? x.dims[0] : 1;
  s.row_len = x.dims.back();
  QRT_ASSIGN_OR_RETURN(s.min_gram, ctx.attrs().GetInt("min_gram_length"));
  QRT_ASSIGN_OR_RETURN(s.max_gram, ctx.attrs().GetInt("max_gram_length"));
  QRT_ASSIGN_OR_RETURN(s.max_skip, ctx.attrs().GetInt("max_skip_count"));
  if (s.min_gram < 1 || s.max_gram < s.min_gram) {
    return InvalidArgument("min_gram_length ", s.min_gram, " and max_gram_length ", s.max_gram,
                           " are not 1 <= min <= max");
  }
  if (s.max_skip < 0) return InvalidArgument("max_skip_count ", s.max_skip, " is negative");
  QRT_ASSIGN_OR_RETURN(std::string mode, ctx.attrs().GetString("mode"));
  if (mode == "TF") {
    s.mode = TfIdfMode::kTf;
  } else if (mode == "IDF") {
    s.mode = TfIdfMode::kIdf;
  } else if (mode == "TFIDF") {
    s.mode = TfIdfMode::kTfIdf;
  } else {
    return InvalidArgument("mode \"", mode, "\" is not TF, IDF or TFIDF");
  }
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> pool, ctx.attrs().GetInts("pool_int64s"));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> counts, ctx.attrs().GetInts("ngram_counts"));
  QRT_ASSIGN_OR_RETURN(std::vector<int64_t> indexes, ctx.attrs().GetInts("ngram_indexes"));
  if (int64_t(counts.size()) < s.max_gram) {
    return InvalidArgument("ngram_counts has ", counts.size(), " sections for max_gram_length ", s.max_gram);
  }
  QRT_RETURN_IF_ERROR(BuildTrie(pool, counts, indexes, s.trie, s.columns));
  QRT_ASSIGN_OR_RETURN(s.weights, ctx.attrs().GetFloats("weights", std::vector<float>{}));
  if (!s.weights.empty() && int64_t(s.weights.size()) < s.columns) {
    return InvalidArgument("weights has ", s.weights.size(), " values for ", s.columns, " columns");
  }
  ctx.SetOutput(0, DataType::kFloat32, x.dims.size() == 2 ? Dims{s.rows, s.columns} : Dims{s.columns});
  ctx.SetKernel<TfIdfState, RunTfIdf>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kTfIdfVectorizerOp{"", "TfIdfVectorizer", 1, 1, 1, 1, PrepareTfIdf};

}  // namespace qrt
