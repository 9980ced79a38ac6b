// ONNX MatMul, Gemm, MatMulInteger and QLinearMatMul, and com.microsoft FusedMatMul. The numerics are those of the
// reference kernels (ops/kernels/gemm/matmul_ref.h); the fast paths reproduce them:
//
//   MatMul / Gemm (f32): the ordered GEMM (ops/kernels/gemm/sgemm.h), every sum in ONNX Runtime's
//     MLAS order, AVX2 or reference (Isa::kScalar), bit-identical. Gemm as ORT computes it:
//     Y = C * beta first, then alpha * (A' x B') added by the GEMM. f64: the reference,
//     Y = (A' x B') * alpha, then + C * beta (skipped when beta == 0).
//   MatMulInteger / QLinearMatMul: the exact integer GEMM (ops/kernels/igemm) at the AVX2
//     tier and above: (a - a_zp) and (b - b_zp) widened to int16, products in int32, the
//     reference's bits in any order. Below AVX2, oneDNN f32 matmul of the same values as
//     floats when every partial sum is provably an integer within 2^24 (then exact in any
//     order): max|a - a_zp| * max_j sum_k |b'(k,j)| <= 2^24, from the constant B and zero
//     points, or K * 255 * 255 <= 2^24 without them. Otherwise the reference.
//     (oneDNN's int8 gemm saturates u8*s8 pairs in s16 on AVX2, docs/onednn-2.6.md 2b.)
//   FusedMatMul (f32): MatMul of A' and B', alpha * op(A) x op(B), as ORT hands it to MLAS:
//     transBatch moves an operand's first axis next to its matrix rows (perm [1..r-2, 0, r-1]),
//     trans swaps the last two; the operands are moved into those layouts (B kept as N x K when
//     transB, since MLAS's one-row order depends on it) and the ordered GEMM scales each k
//     block by alpha (its one-row kernels only for an untransposed A and alpha 1, as in MLAS).
//   QLinearMatMul requantizes as ONNX Runtime does (RequantizeLikeOrt: f32 multiplier, f32
//   product, clamp, rint).
//
// Supported zero points and scales: a per tensor; b per tensor or per column (1-D of
// size N); y per tensor. Others are Unsupported.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ops/coded_weights.h"
#include "ops/igemm_operand.h"
#include "ops/kernels/common/index_map.h"
#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/gemm/matmul_ref.h"
#include "ops/kernels/gemm/sgemm.h"
#include "ops/kernels/igemm/igemm.h"
#include "ops/kernels/quantize/requantize.h"
#include "ops/kernels/quantize/scale_int32.h"
#include "ops/matmul_integer_scaled.h"
#include "ops/onednn/onednn_matmul.h"
#include "ops/onednn/onednn_util.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "runtime/kernel_isa.h"

namespace qrt {
namespace {

// numpy matmul shapes: 1-D operands promoted (and the added dim dropped from the
// output), batch dims broadcast.
struct MatMulShape {
  int64_t m = 0, n = 0, k = 0;
  Dims a_batch, b_batch, batch;               // batch dims, left-padded with 1 to the output's rank
  std::vector<int64_t> a_bstride, b_bstride;  // in matrices; 0 = broadcast
  int64_t batch_count = 1;
  Dims out;
};

StatusOr<MatMulShape> MakeMatMulShape(const Dims& a_in, const Dims& b_in) {
  if (a_in.empty() || b_in.empty()) return InvalidArgument("MatMul of a scalar");
  Dims a = a_in, b = b_in;
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  MatMulShape s;
  s.m = a[a.size() - 2];
  s.k = a.back();
  s.n = b.back();
  if (b[b.size() - 2] != s.k) {
    return InvalidArgument("MatMul inner dims differ: ", DimsToString(a_in), " x ", DimsToString(b_in));
  }
  Dims ab(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2);
  QRT_ASSIGN_OR_RETURN(s.batch, BroadcastDims(ab, bb));
  while (ab.size() < s.batch.size()) ab.insert(ab.begin(), 1);
  while (bb.size() < s.batch.size()) bb.insert(bb.begin(), 1);
  s.a_batch = ab;
  s.b_batch = bb;
  s.a_bstride = BroadcastStrides(ab, s.batch);
  s.b_bstride = BroadcastStrides(bb, s.batch);
  s.batch_count = ElementCount(s.batch);
  s.out = s.batch;
  if (!a_vec) s.out.push_back(s.m);
  if (!b_vec) s.out.push_back(s.n);
  // Shapes are known without data (declared inputs), so A and B may each be at the size
  // limit: bound the output before anything multiplies m * n * k. With A, B and the
  // output each bounded, batch * m * n * k stays far inside int64.
  QRT_RETURN_IF_ERROR(CheckedElementCount(s.out).status());
  return s;
}

// Calls f(output_matrix, a_matrix, b_matrix) for every batch entry.
template <class F>
void ForEachBatch(const MatMulShape& s, F f) {
  const size_t rank = s.batch.size();
  std::vector<int64_t> idx(rank, 0);
  int64_t ai = 0, bi = 0;
  for (int64_t o = 0; o < s.batch_count; ++o) {
    f(o, ai, bi);
    for (size_t d = rank; d-- > 0;) {
      ai += s.a_bstride[d];
      bi += s.b_bstride[d];
      if (++idx[d] < s.batch[d]) break;
      ai -= s.a_bstride[d] * s.batch[d];
      bi -= s.b_bstride[d] * s.batch[d];
      idx[d] = 0;
    }
  }
}

// ---- MatMul (float) ----------------------------------------------------------------

bool SingleB(const MatMulShape& s) {
  for (int64_t v : s.b_batch) {
    if (v != 1) return false;
  }
  return true;
}

// oneDNN matmul for a MatMulShape: one 2-D product when B has no batch (A's batch dims
// fold into M), else full-rank with size-1 batch dims broadcast.
StatusOr<std::shared_ptr<const onednn::MatMul>> CreateOnednn(const MatMulShape& s) {
  if (s.batch_count == 0 || s.m * s.n * s.k == 0) return Unsupported("empty matmul");
  if (SingleB(s)) {
    const int64_t rows = s.batch_count * s.m;
    return onednn::MatMul::Create({rows, s.k}, {}, {s.k, s.n}, {}, {rows, s.n}, 1.f);
  }
  Dims a = s.a_batch, b = s.b_batch, c = s.batch;
  a.insert(a.end(), {s.m, s.k});
  b.insert(b.end(), {s.k, s.n});
  c.insert(c.end(), {s.m, s.n});
  return onednn::MatMul::Create(a, {}, b, {}, c, 1.f);
}

// FusedMatMul's operand moves: `map` copies the input into the layout the GEMM reads.
struct OperandMove {
  bool moved = false;
  IndexMap map;
};

struct MatMulState {
  MatMulShape shape;
  DataType dtype;
  SgemmFn gemm = nullptr;  // f32: the ordered GEMM
  int threads = 1;
  // FusedMatMul only: alpha, B read as N x K, A's batch folded into its rows (B without batch).
  float alpha = 1.f;
  bool trans_b = false, one_row_kernels = true, fold = true;
  bool packed_b = false;  // B a 2-D initializer: ORT packs it (sgemm.h)
  OperandMove move_a, move_b;
};

template <class T>
void RunMatMulRef(const MatMulShape& s, const T* a, const T* b, T* y) {
  const GemmStrides st{s.k, 1, s.n, 1};
  ForEachBatch(s, [&](int64_t o, int64_t ai, int64_t bi) {
    ref::GemmFloat(s.m, s.n, s.k, a + ai * s.m * s.k, b + bi * s.k * s.n, st, y + o * s.m * s.n);
  });
}

// As ONNX Runtime does: one product with A's batch folded into its rows when B has no batch,
// else one per batch entry.
void RunMatMulOrdered(const MatMulState& st, const float* a, const float* b, float* y) {
  const MatMulShape& s = st.shape;
  SgemmArgs g;
  g.n = s.n, g.k = s.k, g.lda = s.k, g.ldb = st.trans_b ? s.k : s.n, g.ldc = s.n;
  g.trans_b = st.trans_b;
  g.alpha = st.alpha;
  g.one_row_kernels = st.one_row_kernels;
  g.packed_b = st.packed_b;
  g.threads = st.threads;
  if (SingleB(s) && st.fold) {
    g.m = s.batch_count * s.m, g.a = a, g.b = b, g.c = y;
    st.gemm(g);
    return;
  }
  ForEachBatch(s, [&](int64_t o, int64_t ai, int64_t bi) {
    g.m = s.m, g.a = a + ai * s.m * s.k, g.b = b + bi * s.k * s.n, g.c = y + o * s.m * s.n;
    st.gemm(g);
  });
}

const float* Moved(const OperandMove& m, const Tensor& t, ScratchSlot slot) {
  if (!m.moved) return t.data<float>();
  float* out = ThreadScratchFloats(slot, size_t(std::max<int64_t>(1, t.numel())));
  RunIndexMap(m.map, sizeof(float), t.raw(), out, nullptr);
  return out;
}

Status RunMatMul(const MatMulState& s, const RunArgs& args) {
  const Tensor& a = *args.input(0);
  const Tensor& b = *args.input(1);
  Tensor& y = *args.output(0);
  if (s.dtype == DataType::kFloat32)
    RunMatMulOrdered(s, Moved(s.move_a, a, ScratchSlot::kWrappedIn), Moved(s.move_b, b, ScratchSlot::kWrappedOut),
                     y.data<float>());
  else
    RunMatMulRef(s.shape, a.data<double>(), b.data<double>(), y.data<double>());
  return Status::Ok();
}

Status PrepareMatMul(PrepareContext& ctx) {
  const DataType dt = ctx.input(0).dtype;
  if (dt != DataType::kFloat32 && dt != DataType::kFloat64) return Unsupported("MatMul on ", DataTypeName(dt));
  if (ctx.input(1).dtype != dt) return InvalidArgument("MatMul input dtypes differ");
  MatMulState s;
  s.dtype = dt;
  QRT_ASSIGN_OR_RETURN(s.shape, MakeMatMulShape(ctx.input(0).dims, ctx.input(1).dims));
  s.gemm = SelectSgemmKernel(ctx.isa());
  s.threads = ctx.threads();
  s.packed_b = PackedByOrt(ctx.input(1));
  ctx.SetOutput(0, dt, s.shape.out);
  ctx.SetKernel<MatMulState, RunMatMul>(std::move(s));
  return Status::Ok();
}

// ---- FusedMatMul -------------------------------------------------------------------

// The map that moves a tensor of `dims` by `perm`, and the dims it moves it to.
OperandMove MakeMove(const Dims& dims, const std::vector<int64_t>& perm, Dims* moved_dims) {
  OperandMove m;
  m.map = PermutationMap(dims, perm);
  for (size_t d = 0; d < perm.size(); ++d) m.moved = m.moved || perm[d] != int64_t(d);
  *moved_dims = m.map.out_dims;
  return m;
}

// [1, ..., r-2, 0, r-1] for transBatch, then the last two swapped for trans.
std::vector<int64_t> OperandPerm(size_t rank, bool trans_batch, bool trans) {
  std::vector<int64_t> p;
  if (trans_batch) {
    for (size_t d = 1; d + 1 < rank; ++d) p.push_back(int64_t(d));
    p.push_back(0);
    p.push_back(int64_t(rank) - 1);
  } else {
    for (size_t d = 0; d < rank; ++d) p.push_back(int64_t(d));
  }
  if (trans) std::swap(p[rank - 1], p[rank - 2]);
  return p;
}

Status PrepareFusedMatMul(PrepareContext& ctx) {
  const DataType dt = ctx.input(0).dtype;
  if (dt != DataType::kFloat32) return Unsupported("FusedMatMul on ", DataTypeName(dt));
  if (ctx.input(1).dtype != dt) return InvalidArgument("FusedMatMul input dtypes differ");
  QRT_ASSIGN_OR_RETURN(float alpha, ctx.attrs().GetFloat("alpha", 1.f));
  bool flags[4];
  const char* names[4] = {"transA", "transB", "transBatchA", "transBatchB"};
  for (int i = 0; i < 4; ++i) {
    QRT_ASSIGN_OR_RETURN(int64_t v, ctx.attrs().GetInt(names[i], 0));
    if (v != 0 && v != 1) return InvalidArgument(names[i], " must be 0 or 1, not ", v);
    flags[i] = v != 0;
  }
  const bool trans_a = flags[0], trans_b = flags[1], batch_a = flags[2], batch_b = flags[3];
  const Dims& a = ctx.input(0).dims;
  const Dims& b = ctx.input(1).dims;
  if ((batch_a || batch_b) && (a.size() < 3 || a.size() != b.size())) {
    return InvalidArgument("transBatchA and transBatchB need A and B of one rank, 3 or more: ", DimsToString(a),
                           " and ", DimsToString(b));
  }
  if ((trans_a && a.size() < 2) || (trans_b && b.size() < 2)) {
    return InvalidArgument("transA and transB need operands of rank 2 or more: ", DimsToString(a), " and ",
                           DimsToString(b));
  }
  MatMulState s;
  s.dtype = dt;
  Dims a_moved = a, b_moved = b, b_product = b;
  if (a.size() >= 2) s.move_a = MakeMove(a, OperandPerm(a.size(), batch_a, trans_a), &a_moved);
  if (b.size() >= 2) {
    // B goes to [batch..., N, K] when transposed: the GEMM reads it that way, as MLAS does.
    s.move_b = MakeMove(b, OperandPerm(b.size(), batch_b, false), &b_moved);
    b_product = b_moved;
    if (trans_b) std::swap(b_product[b.size() - 1], b_product[b.size() - 2]);
  }
  QRT_ASSIGN_OR_RETURN(s.shape, MakeMatMulShape(a_moved, b_product));
  s.gemm = SelectSgemmKernel(ctx.isa());
  s.threads = ctx.threads();
  s.alpha = alpha;
  s.trans_b = trans_b;
  s.one_row_kernels = !trans_a && alpha == 1.f;
  s.fold = !trans_a && !batch_a;
  s.packed_b = PackedByOrt(ctx.input(1));
  ctx.SetOutput(0, dt, s.shape.out);
  ctx.SetKernel<MatMulState, RunMatMul>(std::move(s));
  return Status::Ok();
}

// ---- Gemm --------------------------------------------------------------------------

}  // namespace

std::shared_ptr<const CodedWeights> CodeWeights(const TensorInfo& b, int64_t n, int64_t k) {
  const QuantGrid* grid = b.grid.get();
  if (b.value == nullptr || grid == nullptr || n * k < (int64_t(1) << 16) || b.value->numel() != n * k) return nullptr;
  const size_t rows_per_scale = grid->axis == -1 ? size_t(n) : 1;
  if ((grid->axis != -1 && grid->axis != 0) || grid->scales.size() * rows_per_scale != size_t(n) ||
      grid->zero_points.size() != grid->scales.size()) {
    return nullptr;
  }
  const bool is_signed = grid->type == DataType::kInt8;
  const int32_t lo = is_signed ? -128 : 0, hi = is_signed ? 127 : 255;
  auto coded = std::make_shared<CodedWeights>();
  const int64_t stride = (k + 7) / 8 * 8;
  coded->codes.resize(size_t(n * stride));
  const float* w = b.value->data<float>();
  for (int64_t j = 0; j < n; ++j) {
    const float scale = grid->scales[size_t(j) / rows_per_scale];
    const int32_t zp = grid->zero_points[size_t(j) / rows_per_scale];
    if (!std::isfinite(scale) || scale == 0.f || zp < lo || zp > hi) return nullptr;
    const float inverse = 1.f / scale;
    uint8_t* row = coded->codes.data() + j * stride;
    if (!CodesOnGrid(w + j * k, k, scale, inverse, zp, grid->type, row)) return nullptr;
    for (int64_t p = k; p < stride; ++p) row[p] = uint8_t(zp);
    coded->scales.push_back(scale);
    coded->zero_points.push_back(float(zp));
  }
  std::vector<uint8_t> rows = std::move(coded->codes);
  coded->codes.resize(rows.size());
  InterleaveCodedRows(rows.data(), n, stride, coded->codes.data());
  coded->view =
      CodedB{coded->codes.data(),
             stride,
             is_signed,
             coded->scales.data(),
             coded->zero_points.data(),
             std::all_of(coded->zero_points.begin(), coded->zero_points.end(), [](float z) { return z == 0.f; })};
  return coded;
}

namespace {

struct GemmState {
  int64_t m, n, k;
  bool trans_a, trans_b;
  GemmStrides strides;
  DataType dtype;
  float alpha, beta;
  bool has_c;
  std::vector<int64_t> c_strides;  // C broadcast to [M, N]
  SgemmFn gemm = nullptr;          // f32: the ordered GEMM
  int threads = 1;
  std::shared_ptr<const CodedWeights> coded;  // f32, B' as 8-bit codes (CodeWeights)
  bool packed_b = false;                      // B a 2-D initializer: ORT packs it (sgemm.h)
  // A constant transposed B, transposed once (k x n) where the blocked order reads it (packed,
  // or several rows): the same sums in the same order, without a transpose at every run.
  std::shared_ptr<const std::vector<float>> b_transposed;
};

// f64: the reference, Y = (A' x B') * alpha, then + C * beta.
void RunGemmDouble(const GemmState& s, const RunArgs& args) {
  const double* a = args.input(0)->data<double>();
  const double* b = args.input(1)->data<double>();
  double* y = args.output(0)->data<double>();
  ref::GemmFloat(s.m, s.n, s.k, a, b, s.strides, y);
  for (int64_t i = 0; i < s.m * s.n; ++i) y[i] = y[i] * double(s.alpha);
  if (s.has_c && s.beta != 0.f) {
    const double* c = args.input(2)->data<double>();
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) {
        y[i * s.n + j] = y[i * s.n + j] + c[i * s.c_strides[0] + j * s.c_strides[1]] * double(s.beta);
      }
    }
  }
}

// f32 as ONNX Runtime computes it: Y = C * beta broadcast first (when C is given and beta is
// not 0), then the ordered GEMM adds alpha * A' x B' to it.
void RunGemmFloat(const GemmState& s, const RunArgs& args) {
  const float* a = args.input(0)->data<float>();
  float* y = args.output(0)->data<float>();
  const bool with_c = s.has_c && s.beta != 0.f;
  if (with_c) {
    const float* c = args.input(2)->data<float>();
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t j = 0; j < s.n; ++j) y[i * s.n + j] = c[i * s.c_strides[0] + j * s.c_strides[1]] * s.beta;
    }
  }
  if (s.trans_a) {  // A' into row-major M x K
    float* at = static_cast<float*>(ThreadScratch(ScratchSlot::kOp0, size_t(s.m * s.k) * sizeof(float)));
    for (int64_t i = 0; i < s.m; ++i) {
      for (int64_t p = 0; p < s.k; ++p) at[i * s.k + p] = a[p * s.m + i];
    }
    a = at;
  }
  SgemmArgs g;
  g.m = s.m, g.n = s.n, g.k = s.k;
  g.a = a, g.lda = s.k;
  g.b = args.input(1)->data<float>(), g.ldb = s.trans_b ? s.k : s.n, g.trans_b = s.trans_b;
  if (s.b_transposed != nullptr) g.b = s.b_transposed->data(), g.ldb = s.n, g.trans_b = false;
  g.c = y, g.ldc = s.n;
  g.accumulate = with_c;
  g.alpha = s.alpha;
  g.one_row_kernels = !s.trans_a && s.alpha == 1.f;
  g.packed_b = s.packed_b;
  g.threads = s.threads;
  if (s.coded != nullptr)
    avx2::SgemmRowLanesCoded(g, s.coded->view);
  else
    s.gemm(g);
}

Status RunGemm(const GemmState& s, const RunArgs& args) {
  if (s.dtype == DataType::kFloat32)
    RunGemmFloat(s, args);
  else
    RunGemmDouble(s, args);
  return Status::Ok();
}

Status PrepareGemm(PrepareContext& ctx) {
  const DataType dt = ctx.input(0).dtype;
  if (dt != DataType::kFloat32 && dt != DataType::kFloat64) return Unsupported("Gemm on ", DataTypeName(dt));
  if (ctx.input(1).dtype != dt || (ctx.has_input(2) && ctx.input(2).dtype != dt)) {
    return InvalidArgument("Gemm input dtypes differ");
  }
  const Dims& a = ctx.input(0).dims;
  const Dims& b = ctx.input(1).dims;
  if (a.size() != 2 || b.size() != 2) return InvalidArgument("Gemm needs 2-D A and B");
  QRT_ASSIGN_OR_RETURN(int64_t trans_a, ctx.attrs().GetInt("transA", 0));
  QRT_ASSIGN_OR_RETURN(int64_t trans_b, ctx.attrs().GetInt("transB", 0));
  GemmState s;
  s.dtype = dt;
  s.trans_a = trans_a != 0;
  s.trans_b = trans_b != 0;
  QRT_ASSIGN_OR_RETURN(s.alpha, ctx.attrs().GetFloat("alpha", 1.f));
  QRT_ASSIGN_OR_RETURN(s.beta, ctx.attrs().GetFloat("beta", 1.f));
  s.m = trans_a ? a[1] : a[0];
  s.k = trans_a ? a[0] : a[1];
  s.n = trans_b ? b[0] : b[1];
  if ((trans_b ? b[1] : b[0]) != s.k) {
    return InvalidArgument("Gemm inner dims differ: ", DimsToString(a), " x ", DimsToString(b));
  }
  // Bounds m * n before m * n * k is formed (see MakeMatMulShape).
  QRT_RETURN_IF_ERROR(CheckedElementCount(Dims{s.m, s.n}, DataTypeSize(dt)).status());
  // a(i,p) = A[i][p] or A[p][i]; b(p,j) = B[p][j] or B[j][p].
  s.strides = GemmStrides{trans_a ? 1 : a[1], trans_a ? a[1] : 1, trans_b ? 1 : b[1], trans_b ? b[1] : 1};
  s.has_c = ctx.has_input(2);
  if (s.has_c) {
    const Dims& c = ctx.input(2).dims;
    auto bc = BroadcastDims(c, {s.m, s.n});
    if (!bc.ok() || *bc != Dims{s.m, s.n} || c.size() > 2) {
      return InvalidArgument("Gemm C of shape ", DimsToString(c), " does not broadcast to [", s.m, ",", s.n, "]");
    }
    s.c_strides = BroadcastStrides(c, {s.m, s.n});
  }
  s.gemm = SelectSgemmKernel(ctx.isa());
  s.threads = ctx.threads();
  s.packed_b = PackedByOrt(ctx.input(1));
  // The m == 1, transposed-B order, which the AVX2 kernel can read from codes (at every SIMD
  // tier: it has no AVX-512 twin). Test hook: attribute qrt_path "coded" requires
  // this path (Unsupported where it does not apply), "f32" refuses it.
  QRT_ASSIGN_OR_RETURN(std::string path, ctx.attrs().GetString("qrt_path", ""));
  if (!path.empty() && path != "coded" && path != "f32") return Unsupported("qrt_path ", path, " for Gemm");
  if (path != "f32" && dt == DataType::kFloat32 && CanUseAvx2(ctx.isa()) && s.m == 1 && s.trans_b && !s.trans_a &&
      s.alpha == 1.f && !s.packed_b) {
    s.coded = CodeWeights(ctx.input(1), s.n, s.k);
    if (s.coded != nullptr) NoteKernelIsa(Isa::kAvx2);
  }
  if (path == "coded" && s.coded == nullptr) return Unsupported("qrt_path coded does not apply to this Gemm");
  const TensorInfo& b_info = ctx.input(1);
  if (dt == DataType::kFloat32 && s.coded == nullptr && s.trans_b && b_info.value != nullptr &&
      (s.packed_b || s.m > 1)) {
    auto bt = std::make_shared<std::vector<float>>(size_t(s.k * s.n));
    const float* bv = b_info.value->data<float>();
    for (int64_t j = 0; j < s.n; ++j) {
      for (int64_t p = 0; p < s.k; ++p) (*bt)[size_t(p * s.n + j)] = bv[j * s.k + p];
    }
    s.b_transposed = std::move(bt);
  }
  ctx.SetOutput(0, dt, {s.m, s.n});
  ctx.SetKernel<GemmState, RunGemm>(std::move(s));
  return Status::Ok();
}

// ---- MatMulInteger and QLinearMatMul -----------------------------------------------

struct IntMatMulState {
  MatMulShape shape;
  DataType a_dtype, b_dtype, y_dtype;
  bool qlinear = false;
  int b = 1, a_zp = -1, b_zp = -1, a_scale = -1, b_scale = -1, y_scale = -1, y_zp = -1;  // -1: absent
  std::shared_ptr<const onednn::MatMul> onednn;                                          // set: the exact f32 path
  std::vector<float> b_float;            // constant (b - b_zp) for the f32 path
  std::optional<IgemmProduct> igemm;     // set: the exact integer GEMM
  RequantizeRowFn requantize = nullptr;  // QLinearMatMul with a per-tensor b_scale
  // qrt:MatMulIntegerScaled (matmul_integer_scaled.h): float(acc) * scale [+ bias].
  bool to_float = false;
  int scale = -1, bias = -1;
  ScaleInt32RowFn scale_row = nullptr;
};

// qrt:MatMulIntegerScaled's epilogue, in the order of the chain it replaces.
void ScaledEpilogue(const IntMatMulState& s, const RunArgs& args, const int32_t* acc, int64_t count) {
  const Tensor& scale = *args.input(s.scale);
  const Tensor* bias = s.bias >= 0 ? args.input(s.bias) : nullptr;
  ScaleInt32Params p;
  p.scale = scale.data<float>();
  p.scale_step = scale.numel() != 1 ? 1 : 0;
  if (bias != nullptr) p.bias = bias->data<float>(), p.bias_step = bias->numel() != 1 ? 1 : 0;
  float* y = args.output(0)->data<float>();
  for (int64_t i = 0; i < count; i += s.shape.n) s.scale_row(s.shape.n, acc + i, p, y + i);
}

int32_t ParamAt(const Tensor* t, int64_t i) {
  if (t == nullptr) return 0;
  return int32_t(t->GetAsInt64(t->numel() == 1 ? 0 : i));
}

template <class Ta, class Tb>
void RunIntRef(const IntMatMulState& s, const RunArgs& args, int32_t* acc) {
  const MatMulShape& sh = s.shape;
  const Ta* a = args.input(0)->data<Ta>();
  const Tb* b = args.input(s.b)->data<Tb>();
  const int32_t a_zp = ParamAt(s.a_zp >= 0 ? args.input(s.a_zp) : nullptr, 0);
  const Tensor* bz = s.b_zp >= 0 ? args.input(s.b_zp) : nullptr;
  int32_t* b_zp = static_cast<int32_t*>(ThreadScratch(ScratchSlot::kOp1, size_t(sh.n) * sizeof(int32_t)));
  for (int64_t j = 0; j < sh.n; ++j) b_zp[j] = ParamAt(bz, j);
  const GemmStrides st{sh.k, 1, sh.n, 1};
  ForEachBatch(sh, [&](int64_t o, int64_t ai, int64_t bi) {
    ref::GemmInteger(sh.m, sh.n, sh.k, a + ai * sh.m * sh.k, &a_zp, 0, b + bi * sh.k * sh.n, b_zp, 1, st,
                     acc + o * sh.m * sh.n);
  });
}

template <class T>
void ToFloatMinusZp(int64_t count, int64_t n, const T* v, const Tensor* zp, float* out) {
  if (zp == nullptr || zp->numel() == 1) {
    const int32_t z = ParamAt(zp, 0);
    for (int64_t i = 0; i < count; ++i) out[i] = float(int32_t(v[i]) - z);
    return;
  }
  for (int64_t i = 0; i < count; ++i) out[i] = float(int32_t(v[i]) - ParamAt(zp, i % n));  // per column
}

void ToFloatMinusZp(DataType dt, int64_t count, int64_t n, const void* v, const Tensor* zp, float* out) {
  if (dt == DataType::kUInt8)
    ToFloatMinusZp(count, n, static_cast<const uint8_t*>(v), zp, out);
  else
    ToFloatMinusZp(count, n, static_cast<const int8_t*>(v), zp, out);
}

template <class Ta>
void RunIntIgemm(const IntMatMulState& s, const RunArgs& args, int32_t* acc) {
  const MatMulShape& sh = s.shape;
  const Ta* a = args.input(0)->data<Ta>();
  const int32_t a_zp = ParamAt(s.a_zp >= 0 ? args.input(s.a_zp) : nullptr, 0);
  const IgemmProduct& g = *s.igemm;
  const int64_t packed = g.b.matrix_stride();
  const int16_t* b16 = g.ForRun(args, s.b, s.b_zp);
  if (SingleB(sh)) {  // A's batch folds into M
    IgemmFrom8Bit(g.kernel, sh.batch_count * sh.m, sh.n, sh.k, a, sh.k, 1, a_zp, b16, acc, sh.n, g.threads);
    return;
  }
  ForEachBatch(sh, [&](int64_t o, int64_t ai, int64_t bi) {
    IgemmFrom8Bit(g.kernel, sh.m, sh.n, sh.k, a + ai * sh.m * sh.k, sh.k, 1, a_zp, b16 + bi * packed,
                  acc + o * sh.m * sh.n, sh.n, g.threads);
  });
}

Status RunIntMatMul(const IntMatMulState& s, const RunArgs& args) {
  const MatMulShape& sh = s.shape;
  const int64_t out_count = sh.batch_count * sh.m * sh.n;
  Tensor& y = *args.output(0);
  int32_t* acc = s.qlinear || s.to_float
                     ? static_cast<int32_t*>(ThreadScratch(ScratchSlot::kOp0, size_t(out_count) * 4))
                     : y.data<int32_t>();
  if (s.onednn) {
    const Tensor& a = *args.input(0);
    float* af = static_cast<float*>(ThreadScratch(ScratchSlot::kOp1, size_t(a.numel()) * sizeof(float)));
    ToFloatMinusZp(s.a_dtype, a.numel(), 1, a.raw(), s.a_zp >= 0 ? args.input(s.a_zp) : nullptr, af);
    const float* bf = s.b_float.data();
    if (s.b_float.empty()) {
      const Tensor& b = *args.input(s.b);
      float* t = static_cast<float*>(ThreadScratch(ScratchSlot::kOp2, size_t(b.numel()) * sizeof(float)));
      ToFloatMinusZp(s.b_dtype, b.numel(), sh.n, b.raw(), s.b_zp >= 0 ? args.input(s.b_zp) : nullptr, t);
      bf = t;
    }
    QRT_RETURN_IF_ERROR(s.onednn->Run(af, bf, reinterpret_cast<float*>(acc)));
    // Exact integers within 2^24: convert in place.
    const float* cf = reinterpret_cast<const float*>(acc);
    for (int64_t i = 0; i < out_count; ++i) acc[i] = int32_t(cf[i]);
  } else if (s.igemm) {
    if (s.a_dtype == DataType::kUInt8)
      RunIntIgemm<uint8_t>(s, args, acc);
    else
      RunIntIgemm<int8_t>(s, args, acc);
  } else {
    Dispatch8BitPair(s.a_dtype, s.b_dtype,
                     [&](auto ta, auto tb) { RunIntRef<decltype(ta), decltype(tb)>(s, args, acc); });
  }
  if (s.to_float) {
    if (sh.n > 0) ScaledEpilogue(s, args, acc, out_count);
    return Status::Ok();
  }
  if (!s.qlinear) return Status::Ok();
  const float as = args.input(s.a_scale)->data<float>()[0];
  const Tensor& bs = *args.input(s.b_scale);
  const float ys = args.input(s.y_scale)->data<float>()[0];
  const int32_t yz = ParamAt(args.input(s.y_zp), 0);
  const bool per_col = bs.numel() != 1;
  if (!per_col) {
    RequantizeParams p;
    p.multiplier = QLinearMultiplier(as, bs.data<float>()[0], ys);
    p.y_zero_point = yz;
    s.requantize(out_count, acc, p, y.raw());
    return Status::Ok();
  }
  auto requant = [&](auto* out) {
    using T = std::remove_pointer_t<decltype(out)>;
    for (int64_t i = 0; i < out_count; ++i) {
      const float mult = QLinearMultiplier(as, bs.data<float>()[per_col ? i % sh.n : 0], ys);
      out[i] = RequantizeLikeOrt<T>(acc[i], mult, yz);
    }
  };
  if (s.y_dtype == DataType::kUInt8)
    requant(y.data<uint8_t>());
  else
    requant(y.data<int8_t>());
  return Status::Ok();
}

Status CheckMatParam(const PrepareContext& ctx, int i, const char* what, DataType dtype, bool per_column_ok,
                     int64_t n) {
  const TensorInfo& t = ctx.input(i);
  if (t.dtype != dtype) {
    return InvalidArgument(what, " has dtype ", DataTypeName(t.dtype), ", expected ", DataTypeName(dtype));
  }
  if (ElementCount(t.dims) == 1 && t.dims.size() <= 1) return Status::Ok();
  if (per_column_ok && t.dims == Dims{n}) return Status::Ok();
  return Unsupported(what, " of shape ", DimsToString(t.dims));
}

// The integer GEMM at AVX2 and above, else the exact f32 path when its partial sums are
// provably within 2^24 (file comment), else the reference.
void ChooseIntMatMulPath(const PrepareContext& ctx, IntMatMulState& s) {
  const MatMulShape& sh = s.shape;
  if (sh.batch_count * sh.m * sh.n * sh.k == 0) return;
  const Tensor* b = ctx.input(s.b).value;
  const Tensor* b_zp = s.b_zp >= 0 ? ctx.input(s.b_zp).value : nullptr;
  s.igemm = IgemmProduct::Plan(ctx, sh.k, sh.n, false, s.b, s.b_zp);
  if (s.igemm) return;
  if (!onednn::UsableUnder(ctx.isa())) return;
  const Tensor* a_zp = s.a_zp >= 0 ? ctx.input(s.a_zp).value : nullptr;
  const bool a_u8 = s.a_dtype == DataType::kUInt8;
  int64_t a_max = s.a_zp < 0 ? (a_u8 ? 255 : 128) : 255;
  if (a_zp != nullptr) {
    const int64_t z = a_zp->GetAsInt64(0), lo = a_u8 ? 0 : -128, hi = a_u8 ? 255 : 127;
    a_max = std::max(z - lo, hi - z);
  }
  const bool b_known = b != nullptr && (s.b_zp < 0 || b_zp != nullptr);
  int64_t b_sum = sh.k * 255;
  std::vector<float> bf;
  if (b_known) {
    bf.resize(size_t(b->numel()));
    ToFloatMinusZp(s.b_dtype, b->numel(), sh.n, b->raw(), b_zp, bf.data());
    b_sum = 0;
    for (int64_t bi = 0; bi < b->numel() / (sh.k * sh.n); ++bi) {
      for (int64_t j = 0; j < sh.n; ++j) {
        int64_t sum = 0;
        for (int64_t p = 0; p < sh.k; ++p) sum += int64_t(std::abs(bf[size_t((bi * sh.k + p) * sh.n + j)]));
        b_sum = std::max(b_sum, sum);
      }
    }
  }
  if (a_max * b_sum > (int64_t(1) << 24)) return;
  auto mm = CreateOnednn(sh);
  if (!mm.ok()) return;
  s.onednn = *mm;
  s.b_float = std::move(bf);
}

enum class IntMatMulKind { kMatMulInteger, kQLinearMatMul, kScaled };

Status PrepareIntMatMul(PrepareContext& ctx, IntMatMulKind kind) {
  IntMatMulState s;
  const bool qlinear = kind == IntMatMulKind::kQLinearMatMul;
  s.qlinear = qlinear;
  s.to_float = kind == IntMatMulKind::kScaled;
  if (qlinear) {
    s.b = 3, s.a_scale = 1, s.a_zp = 2, s.b_scale = 4, s.b_zp = 5, s.y_scale = 6, s.y_zp = 7;
  } else if (s.to_float) {
    if (ctx.has_input(mis::kAZeroPoint)) s.a_zp = mis::kAZeroPoint;
    if (ctx.has_input(mis::kBZeroPoint)) s.b_zp = mis::kBZeroPoint;
    s.scale = mis::kScale;
    if (ctx.has_input(mis::kBias)) s.bias = mis::kBias;
  } else {
    if (ctx.has_input(2)) s.a_zp = 2;
    if (ctx.has_input(3)) s.b_zp = 3;
  }
  s.a_dtype = ctx.input(0).dtype;
  s.b_dtype = ctx.input(s.b).dtype;
  for (DataType t : {s.a_dtype, s.b_dtype}) {
    if (t != DataType::kUInt8 && t != DataType::kInt8) return Unsupported("integer matmul on ", DataTypeName(t));
  }
  QRT_ASSIGN_OR_RETURN(s.shape, MakeMatMulShape(ctx.input(0).dims, ctx.input(s.b).dims));
  const int64_t n = s.shape.n;
  const bool b_vec = ctx.input(s.b).dims.size() == 1;  // per-column params need a real N
  if (s.a_zp >= 0) QRT_RETURN_IF_ERROR(CheckMatParam(ctx, s.a_zp, "a_zero_point", s.a_dtype, false, n));
  if (s.b_zp >= 0) QRT_RETURN_IF_ERROR(CheckMatParam(ctx, s.b_zp, "b_zero_point", s.b_dtype, !b_vec, n));
  s.y_dtype = DataType::kInt32;
  if (s.to_float) {
    if (ctx.input(s.b).dims.size() != 2) return Unsupported("B of rank ", ctx.input(s.b).dims.size());
    QRT_RETURN_IF_ERROR(CheckMatParam(ctx, s.scale, "Scale", DataType::kFloat32, true, n));
    if (s.bias >= 0) QRT_RETURN_IF_ERROR(CheckMatParam(ctx, s.bias, "Bias", DataType::kFloat32, true, n));
    s.y_dtype = DataType::kFloat32;
    s.scale_row = SelectScaleInt32Row(ctx.isa());
  }
  if (qlinear) {
    s.y_dtype = ctx.input(s.y_zp).dtype;
    if (s.y_dtype != DataType::kUInt8 && s.y_dtype != DataType::kInt8) {
      return Unsupported("y_zero_point dtype ", DataTypeName(s.y_dtype));
    }
    QRT_RETURN_IF_ERROR(CheckMatParam(ctx, s.a_scale, "a_scale", DataType::kFloat32, false, n));
    QRT_RETURN_IF_ERROR(CheckMatParam(ctx, s.b_scale, "b_scale", DataType::kFloat32, !b_vec, n));
    QRT_RETURN_IF_ERROR(CheckMatParam(ctx, s.y_scale, "y_scale", DataType::kFloat32, false, n));
    QRT_RETURN_IF_ERROR(CheckMatParam(ctx, s.y_zp, "y_zero_point", s.y_dtype, false, n));
    s.requantize = SelectRequantizeRowKernel(s.y_dtype, ctx.isa());
  }
  ChooseIntMatMulPath(ctx, s);
  ctx.SetOutput(0, s.y_dtype, s.shape.out);
  ctx.SetKernel<IntMatMulState, RunIntMatMul>(std::move(s));
  return Status::Ok();
}

Status PrepareMatMulInteger(PrepareContext& ctx) { return PrepareIntMatMul(ctx, IntMatMulKind::kMatMulInteger); }
Status PrepareQLinearMatMul(PrepareContext& ctx) { return PrepareIntMatMul(ctx, IntMatMulKind::kQLinearMatMul); }
Status PrepareMatMulIntegerScaled(PrepareContext& ctx) { return PrepareIntMatMul(ctx, IntMatMulKind::kScaled); }

}  // namespace

const OpDef kMatMulOp{"", "MatMul", 2, 2, 1, 1, PrepareMatMul};
const OpDef kGemmOp{"", "Gemm", 2, 3, 1, 1, PrepareGemm};
const OpDef kFusedMatMulOp{"com.microsoft", "FusedMatMul", 2, 2, 1, 1, PrepareFusedMatMul};
const OpDef kMatMulIntegerOp{"", "MatMulInteger", 2, 4, 1, 1, PrepareMatMulInteger};
const OpDef kQLinearMatMulOp{"", "QLinearMatMul", 8, 8, 1, 1, PrepareQLinearMatMul};
const OpDef kQrtMatMulIntegerScaledOp{"qrt", "MatMulIntegerScaled",     mis::kScale + 1, mis::kInputCount, 1,
                                      1,     PrepareMatMulIntegerScaled};

}  // namespace qrt
