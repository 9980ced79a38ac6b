// com.microsoft EmbedLayerNormalization: BERT's embedding layer. For every token (b, s),
// e = word_embedding[input_ids] + position_embedding[position] (+ segment_embedding[segment_ids]),
// then LayerNormalization over the hidden axis times gamma plus beta. Outputs: the result
// [B, S, H]; optionally mask_index [B] (int32, the number of tokens whose mask is 1; zeros
// without a mask) and the embedding sum e. Positions are s, or position_ids ([B, S], or [1, S]
// for every batch). float32 in ONNX Runtime 1.30's order (docs/float-order.md): the sum left to
// right in float, then the two-pass row normalization of ref::EmbedLayerNormRow. An id outside
// its table is an error, as in ONNX Runtime.
//
// com.microsoft QEmbedLayerNormalization is the same with 8-bit tables, gamma and beta, each
// with a per-tensor scale and zero point (inputs 8-17): every row is dequantized as
// DequantizeLinear does, (q - zp) * scale, when it is read (the float tables are never made),
// then summed and normalized as above. Outputs: the result and mask_index.
#include <algorithm>
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
  // QEmbedLayerNormalization: scales of word, position, segment, gamma, beta, then their zero
  // points; it has no position_ids.
  kScales = 8,
  kZeroPoints = 13,
};

// The five quantized tensors, in the order of their scales and zero points.
constexpr int kQuantized[] = {kWordEmbedding, kPositionEmbedding, kSegmentEmbedding, kGamma, kBeta};

struct EmbedLnState {
  int64_t batch = 0, seq = 0, hidden = 0;
  int64_t words = 0, positions = 0, segments = 0;
  float epsilon = 1e-12f;
  bool has_segment = false, has_mask = false;
  int position_ids = 0;  // 0: none (s), 1: [1, S], 2: [B, S]
  bool quantized = false;
  DataType qtype = DataType::kUInt8;
};

// Row r of a [rows, n] table: the floats themselves, or dequantized into `buffer`.
struct TableReader {
  const void* data = nullptr;
  bool quantized = false, is_signed = false;
  float scale = 1.f;
  int32_t zero_point = 0;
  std::vector<float> buffer;

  static TableReader Of(const EmbedLnState& st, const RunArgs& args, int input, int64_t n) {
    TableReader t;
    t.data = args.input(input)->raw();
    t.quantized = st.quantized;
    if (!st.quantized) return t;
    const int k = int(std::find(std::begin(kQuantized), std::end(kQuantized), input) - std::begin(kQuantized));
    t.is_signed = st.qtype == DataType::kInt8;
    t.scale = args.input(kScales + k)->data<float>()[0];
    const void* zp = args.input(kZeroPoints + k)->raw();
    t.zero_point = t.is_signed ? *static_cast<const int8_t*>(zp) : *static_cast<const uint8_t*>(zp);
    t.buffer.resize(static_cast<size_t>(n));
    return t;
  }
  const float* Row(int64_t r, int64_t n) {
    if (!quantized) return static_cast<const float*>(data) + r * n;
    for (int64_t i = 0; i < n; ++i) {
      const int32_t q =
          is_signed ? static_cast<const int8_t*>(data)[r * n + i] : static_cast<const uint8_t*>(data)[r * n + i];
      buffer[size_t(i)] = float(q - zero_point) * scale;
    }
    return buffer.data();
  }
};

Status CheckId(int32_t id, int64_t size, const char* table, int64_t b, int64_t s) {
  if (id < 0 || id >= size)
    return InvalidArgument(table, " id ", id, " at [", b, ", ", s, "] is outside its ", size, " rows");
  return Status::Ok();
}

Status RunEmbedLn(const EmbedLnState& st, const RunArgs& args) {
  const int32_t* ids = args.input(kInputIds)->data<int32_t>();
  const int32_t* seg_ids = st.has_segment ? args.input(kSegmentIds)->data<int32_t>() : nullptr;
  const int64_t h = st.hidden;
  TableReader word = TableReader::Of(st, args, kWordEmbedding, h);
  TableReader pos = TableReader::Of(st, args, kPositionEmbedding, h);
  TableReader seg = st.has_segment ? TableReader::Of(st, args, kSegmentEmbedding, h) : TableReader{};
  TableReader gamma_reader = TableReader::Of(st, args, kGamma, h), beta_reader = TableReader::Of(st, args, kBeta, h);
  const float* gamma = gamma_reader.Row(0, h);
  const float* beta = beta_reader.Row(0, h);
  const int32_t* pos_ids = st.position_ids ? args.input(kPositionIds)->data<int32_t>() : nullptr;
  float* y = args.output(0)->data<float>();
  int32_t* mask_index = args.num_outputs > 1 && args.output(1) ? args.output(1)->data<int32_t>() : nullptr;
  float* sum_out = args.num_outputs > 2 && args.output(2) ? args.output(2)->data<float>() : nullptr;
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
      const float* wr = word.Row(w, h);
      const float* pr = pos.Row(p, h);
      const float* sr = nullptr;
      if (st.has_segment) {
        QRT_RETURN_IF_ERROR(CheckId(seg_ids[t], st.segments, "segment", b, s));
        sr = seg.Row(seg_ids[t], h);
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

Status RequireTable(const TensorInfo& t, const char* what, int64_t hidden, DataType dtype) {
  if (t.dtype != dtype) return InvalidArgument(what, " must be ", DataTypeName(dtype), ", not ", DataTypeName(t.dtype));
  if (t.dims.size() != 2 || t.dims[1] != hidden) {
    return InvalidArgument(what, " ", DimsToString(t.dims), " must be [rows, ", hidden, "]");
  }
  return Status::Ok();
}

// QEmbedLayerNormalization's five scales (float32) and zero points (the tables' type), each
// one value, present for every quantized tensor given.
Status CheckQuantParams(const PrepareContext& ctx, DataType qtype) {
  for (int k = 0; k < 5; ++k) {
    if (!ctx.has_input(kQuantized[k])) continue;
    const TensorInfo& s = ctx.input(kScales + k);
    const TensorInfo& z = ctx.input(kZeroPoints + k);
    if (!ctx.has_input(kScales + k) || s.dtype != DataType::kFloat32 || ElementCount(s.dims) != 1) {
      return InvalidArgument("input ", kScales + k, " (a scale) must be one float32");
    }
    if (!ctx.has_input(kZeroPoints + k) || z.dtype != qtype || ElementCount(z.dims) != 1) {
      return InvalidArgument("input ", kZeroPoints + k, " (a zero point) must be one ", DataTypeName(qtype));
    }
  }
  return Status::Ok();
}

template <bool kQuantizedTables>
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
  st.quantized = kQuantizedTables;
  st.qtype = kQuantizedTables ? word.dtype : DataType::kFloat32;
  if (kQuantizedTables && st.qtype != DataType::kUInt8 && st.qtype != DataType::kInt8) {
    return InvalidArgument("word_embedding must be uint8 or int8, not ", DataTypeName(st.qtype));
  }
  if (kQuantizedTables) QRT_RETURN_IF_ERROR(CheckQuantParams(ctx, st.qtype));
  QRT_RETURN_IF_ERROR(RequireTable(word, "word_embedding", st.hidden, st.qtype));
  QRT_RETURN_IF_ERROR(RequireTable(ctx.input(kPositionEmbedding), "position_embedding", st.hidden, st.qtype));
  st.words = word.dims[0];
  st.positions = ctx.input(kPositionEmbedding).dims[0];
  st.has_segment = ctx.has_input(kSegmentIds);
  if (st.has_segment != ctx.has_input(kSegmentEmbedding)) {
    return InvalidArgument("segment_ids and segment_embedding must be given together");
  }
  if (st.has_segment) {
    QRT_RETURN_IF_ERROR(RequireInt32(ctx.input(kSegmentIds), "segment_ids", ids.dims));
    QRT_RETURN_IF_ERROR(RequireTable(ctx.input(kSegmentEmbedding), "segment_embedding", st.hidden, st.qtype));
    st.segments = ctx.input(kSegmentEmbedding).dims[0];
  }
  for (int i : {kGamma, kBeta}) {
    const TensorInfo& t = ctx.input(i);
    if (t.dtype != st.qtype || t.dims != Dims{st.hidden}) {
      return InvalidArgument(i == kGamma ? "gamma" : "beta", " must be ", DataTypeName(st.qtype), " [", st.hidden, "]");
    }
  }
  st.has_mask = ctx.has_input(kMask);
  if (st.has_mask) QRT_RETURN_IF_ERROR(RequireInt32(ctx.input(kMask), "mask", ids.dims));
  if (!kQuantizedTables && ctx.has_input(kPositionIds)) {
    const TensorInfo& p = ctx.input(kPositionIds);
    const bool shared = p.dims == Dims{1, st.seq};
    QRT_RETURN_IF_ERROR(RequireInt32(p, "position_ids", shared ? p.dims : ids.dims));
    st.position_ids = shared && st.batch != 1 ? 1 : 2;
  } else if (st.seq > st.positions) {
    return InvalidArgument("sequence ", st.seq, " is longer than position_embedding's ", st.positions, " rows");
  }
  QRT_ASSIGN_OR_RETURN(st.epsilon, ctx.attrs().GetFloat("epsilon", 1e-12f));
  QRT_ASSIGN_OR_RETURN(int64_t mask_index_type, ctx.attrs().GetInt("mask_index_type", 1));
  if (kQuantizedTables && ctx.num_outputs() > 2) return InvalidArgument("QEmbedLayerNormalization has two outputs");
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

const OpDef kEmbedLayerNormalizationOp{"com.microsoft", "EmbedLayerNormalization", 7, 9, 1, 3, PrepareEmbedLn<false>};
const OpDef kQEmbedLayerNormalizationOp{"com.microsoft",     "QEmbedLayerNormalization", 18, 18, 1, 2,
                                        PrepareEmbedLn<true>};

}  // namespace qrt
