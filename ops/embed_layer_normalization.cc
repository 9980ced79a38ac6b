// com.microsoft EmbedLayerNormalization: BERT's embedding layer. For every token (b, s),
// e = word_embedding[input_ids] + position_embedding[position] (+ segment_embedding[segment_ids]),
// then LayerNormalization over the hidden axis times gamma plus beta. Outputs: the result
// [B, S, H]; optionally mask_index [B] (int32, the number of tokens whose mask is 1; zeros
// without a mask) and the embedding sum e. Positions are s, or position_ids ([B, S], or [1, S]
// for every batch). float32 in ONNX Runtime 1.30's order (docs/float-order.md): the sum left to
// right in float, then the two-pass row normalization of ref::EmbedLayerNormRow. An id outside
// its table is an error, as in ONNX Runtime.
#include <vector>

#include "ops/kernels/norm/layer_norm.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum Input : int {
  kInputIds = 0,
  kSegmentIds = 1,
  kWordEmbedding = 2,
  kPositionEmbedding = 3,
  kSegmentEmbedding = 4,
  kGamma = 5,
  kBeta = 6,
  kMask = 7,
  kPositionIds = 8,
};

struct EmbedLnState {
  int64_t batch = 0, seq = 0, hidden = 0;
  int64_t words = 0, positions = 0, segments = 0;
  float epsilon = 1e-12f;
  bool has_segment = false, has_mask = false;
  int position_ids = 0;  // 0: none (s), 1: [1, S], 2: [B, S]
};

Status CheckId(int32_t id, int64_t size, const char* table, int64_t b, int64_t s) {
  if (id < 0 || id >= size)
    return InvalidArgument(table, " id ", id, " at [", b, ", ", s, "] is outside its ", size, " rows");
  return Status::Ok();
}

Status RunEmbedLn(const EmbedLnState& st, const RunArgs& args) {
  const int32_t* ids = args.input(kInputIds)->data<int32_t>();
  const int32_t* seg_ids = st.has_segment ? args.input(kSegmentIds)->data<int32_t>() : nullptr;
  const float* word = args.input(kWordEmbedding)->data<float>();
  const float* pos = args.input(kPositionEmbedding)->data<float>();
  const float* seg = st.has_segment ? args.input(kSegmentEmbedding)->data<float>() : nullptr;
  const float* gamma = args.input(kGamma)->data<float>();
  const float* beta = args.input(kBeta)->data<float>();
  const int32_t* pos_ids = st.position_ids ? args.input(kPositionIds)->data<int32_t>() : nullptr;
  float* y = args.output(0)->data<float>();
  int32_t* mask_index = args.num_outputs > 1 && args.output(1) ? args.output(1)->data<int32_t>() : nullptr;
  float* sum_out = args.num_outputs > 2 && args.output(2) ? args.output(2)->data<float>() : nullptr;
  const int64_t h = st.hidden;
  std::vector<float> row(static_cast<size_t>(h));
  for (int64_t b = 0; b < st.batch; ++b) {
    for (int64_t s = 0; s < st.seq; ++s) {
      const int64_t t = b * st.seq + s;
      const int32_t w = ids[t];
      QRT_RETURN_IF_ERROR(CheckId(w, st.words, "word", b, s));
      const int64_t p = st.position_ids == 2 ? pos_ids[t] : st.position_ids == 1 ? pos_ids[s] : s;
      if (p < 0 || p >= st.positions) {
        return InvalidArgument("position ", p, " at [", b, ", ", s, "] is outside its ", st.positions, " rows");
      }
      const float* wr = word + w * h;
      const float* pr = pos + p * h;
      const float* sr = nullptr;
      if (seg) {
        QRT_RETURN_IF_ERROR(CheckId(seg_ids[t], st.segments, "segment", b, s));
        sr = seg + seg_ids[t] * h;
      }
      for (int64_t i = 0; i < h; ++i) {
        float v = wr[i] + pr[i];
        if (sr) v = v + sr[i];
        row[size_t(i)] = v;
      }
      if (sum_out) std::copy(row.begin(), row.end(), sum_out + t * h);
      ref::EmbedLayerNormRow(h, row.data(), gamma, beta, st.epsilon, y + t * h);
    }
  }
  if (mask_index) {
    const int32_t* mask = st.has_mask ? args.input(kMask)->data<int32_t>() : nullptr;
    for (int64_t b = 0; b < st.batch; ++b) {
      int32_t count = 0;
      for (int64_t s = 0; mask && s < st.seq; ++s) count += mask[b * st.seq + s] == 1;
      mask_index[b] = count;
    }
  }
  return Status::Ok();
}

Status RequireInt32(const TensorInfo& t, const char* what, const Dims& dims) {
  if (t.dtype != DataType::kInt32) return InvalidArgument(what, " must be int32, not ", DataTypeName(t.dtype));
  if (t.dims != dims) return InvalidArgument(what, " ", DimsToString(t.dims), " must be ", DimsToString(dims));
  return Status::Ok();
}

Status RequireTable(const TensorInfo& t, const char* what, int64_t hidden) {
  if (t.dtype != DataType::kFloat32)
    return Unsupported("EmbedLayerNormalization with ", what, " of ", DataTypeName(t.dtype));
  if (t.dims.size() != 2 || t.dims[1] != hidden) {
    return InvalidArgument(what, " ", DimsToString(t.dims), " must be [rows, ", hidden, "]");
  }
  return Status::Ok();
}

Status PrepareEmbedLn(PrepareContext& ctx) {
  const TensorInfo& ids = ctx.input(kInputIds);
  if (ids.dtype != DataType::kInt32 || ids.dims.size() != 2) {
    return InvalidArgument("input_ids must be int32 [batch, sequence], not ", DataTypeName(ids.dtype), " ",
                           DimsToString(ids.dims));
  }
  for (int i : {kWordEmbedding, kPositionEmbedding, kGamma, kBeta}) {
    if (!ctx.has_input(i)) return InvalidArgument("input ", i, " is required");
  }
  EmbedLnState st;
  st.batch = ids.dims[0];
  st.seq = ids.dims[1];
  const TensorInfo& word = ctx.input(kWordEmbedding);
  if (word.dims.size() != 2) return InvalidArgument("word_embedding must have rank 2, not ", DimsToString(word.dims));
  st.hidden = word.dims[1];
  QRT_RETURN_IF_ERROR(RequireTable(word, "word_embedding", st.hidden));
  QRT_RETURN_IF_ERROR(RequireTable(ctx.input(kPositionEmbedding), "position_embedding", st.hidden));
  st.words = word.dims[0];
  st.positions = ctx.input(kPositionEmbedding).dims[0];
  st.has_segment = ctx.has_input(kSegmentIds);
  if (st.has_segment != ctx.has_input(kSegmentEmbedding)) {
    return InvalidArgument("segment_ids and segment_embedding must be given together");
  }
  if (st.has_segment) {
    QRT_RETURN_IF_ERROR(RequireInt32(ctx.input(kSegmentIds), "segment_ids", ids.dims));
    QRT_RETURN_IF_ERROR(RequireTable(ctx.input(kSegmentEmbedding), "segment_embedding", st.hidden));
    st.segments = ctx.input(kSegmentEmbedding).dims[0];
  }
  for (int i : {kGamma, kBeta}) {
    const TensorInfo& t = ctx.input(i);
    if (t.dtype != DataType::kFloat32 || t.dims != Dims{st.hidden}) {
      return InvalidArgument(i == kGamma ? "gamma" : "beta", " must be float32 [", st.hidden, "]");
    }
  }
  st.has_mask = ctx.has_input(kMask);
  if (st.has_mask) QRT_RETURN_IF_ERROR(RequireInt32(ctx.input(kMask), "mask", ids.dims));
  if (ctx.has_input(kPositionIds)) {
    const TensorInfo& p = ctx.input(kPositionIds);
    const bool shared = p.dims == Dims{1, st.seq};
    QRT_RETURN_IF_ERROR(RequireInt32(p, "position_ids", shared ? p.dims : ids.dims));
    st.position_ids = shared && st.batch != 1 ? 1 : 2;
  } else if (st.seq > st.positions) {
    return InvalidArgument("sequence ", st.seq, " is longer than position_embedding's ", st.positions, " rows");
  }
  QRT_ASSIGN_OR_RETURN(st.epsilon, ctx.attrs().GetFloat("epsilon", 1e-12f));
  QRT_ASSIGN_OR_RETURN(int64_t mask_index_type, ctx.attrs().GetInt("mask_index_type", 1));
  if (mask_index_type != 0 && mask_index_type != 1) {
    return InvalidArgument("mask_index_type ", mask_index_type, " is neither 0 nor 1");
  }
  ctx.SetOutput(0, DataType::kFloat32, {st.batch, st.seq, st.hidden});
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DataType::kInt32, {st.batch});
  if (ctx.num_outputs() > 2) ctx.SetOutput(2, DataType::kFloat32, {st.batch, st.seq, st.hidden});
  ctx.SetKernel<EmbedLnState, RunEmbedLn>(std::move(st));
  return Status::Ok();
}

}  // namespace

const OpDef kEmbedLayerNormalizationOp{"com.microsoft", "EmbedLayerNormalization", 7, 9, 1, 3, PrepareEmbedLn};

}  // namespace qrt
