// com.microsoft MatMulNBits: Y = A * dequantize(B)^T (+ bias) with B's 4-bit codes in blocks
// along K (block_size 16 to 256, a power of two), a float scale per block and optional packed
// 4-bit zero points (8 when absent). A is float32 [..., K]; its leading dimensions are rows of
// one product, as in ONNX Runtime. The orders are ORT 1.30's (ops/kernels/nbits/matmul_nbits.h):
// one row of A takes the 16-lane one-row kernel, more rows the per-element chain, and
// accuracy_level 4 quantizes A to int8 per block as ORT's CompInt8 path does. The weights stay
// 4-bit in memory: every kernel dequantizes them as it reads them.
// Not taken (clear errors): bits other than 4, g_idx, float zero points.
// Threads: the float path splits Y's columns (each column's sum is the same whichever range it
// is in); the int8 path splits A's rows at even boundaries, the odd last row with the pair
// before it, so that every row is paired (or alone) as in the whole product, which is what
// ORT's orders depend on.
#include "ops/kernels/nbits/matmul_nbits.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "ops/op_util.h"
#include "ops/ops.h"
#include "runtime/parallel.h"

namespace qrt {
namespace {

enum Input : int { kA = 0, kB = 1, kScales = 2, kZeroPoints = 3, kGroupIndex = 4, kBias = 5 };

struct NbitsState {
  int64_t m = 0, n = 0, k = 0, block = 0, blocks = 0;
  bool int8_path = false, has_zero_points = false, has_bias = false;
  NbitsRowFn row = nullptr;
  NbitsRowsFn rows = nullptr;
  NbitsInt8Fn int8 = nullptr;
  // The int8 path with constant scales and zero points: their terms, made once.
  std::shared_ptr<const std::vector<float>> zero_point_terms;
  int threads = 1;
};

// Columns or row pairs per thread below which one thread does it all: about 64K multiply-adds.
int64_t MinPerThread(int64_t work_per_unit) { return std::max<int64_t>(1, (int64_t(1) << 16) / work_per_unit); }

Status RunNbits(const NbitsState& s, const RunArgs& args) {
  NbitsWeights w;
  w.n = s.n;
  w.k = s.k;
  w.block = s.block;
  w.blocks = s.blocks;
  w.codes = args.input(kB)->data<uint8_t>();
  w.scales = args.input(kScales)->data<float>();
  w.zero_points = s.has_zero_points ? args.input(kZeroPoints)->data<uint8_t>() : nullptr;
  if (s.zero_point_terms != nullptr) w.zero_point_terms = s.zero_point_terms->data();
  const float* a = args.input(kA)->data<float>();
  const float* bias = s.has_bias ? args.input(kBias)->data<float>() : nullptr;
  float* y = args.output(0)->data<float>();
  if (s.m == 0 || s.n == 0) return Status::Ok();
  if (s.int8_path) {
    const int64_t pairs = s.m / 2;
    if (s.threads <= 1 || pairs < 2) {
      s.int8(w, s.m, a, bias, y);
      return Status::Ok();
    }
    ParallelFor(s.threads, pairs, 1, MinPerThread(2 * s.k * s.n), [&](int64_t p0, int64_t p1) {
      const int64_t r0 = 2 * p0, r1 = p1 == pairs ? s.m : 2 * p1;
      s.int8(w, r1 - r0, a + r0 * s.k, bias, y + r0 * s.n);
    });
    return Status::Ok();
  }
  auto columns = [&](int64_t j0, int64_t j1) {
    if (s.m == 1)
      s.row(w, a, bias, j0, j1, y);
    else
      s.rows(w, s.m, a, bias, j0, j1, y);
  };
  if (s.threads <= 1) {
    columns(0, s.n);
  } else {
    ParallelFor(s.threads, s.n, 16, MinPerThread(s.m * s.k), columns);
  }
  return Status::Ok();
}

Status PrepareNbits(PrepareContext& ctx) {
  QRT_ASSIGN_OR_RETURN(int64_t k, ctx.attrs().GetInt("K", -1));
  QRT_ASSIGN_OR_RETURN(int64_t n, ctx.attrs().GetInt("N", -1));
  QRT_ASSIGN_OR_RETURN(int64_t bits, ctx.attrs().GetInt("bits", 4));
  QRT_ASSIGN_OR_RETURN(int64_t block, ctx.attrs().GetInt("block_size", -1));
  QRT_ASSIGN_OR_RETURN(int64_t accuracy, ctx.attrs().GetInt("accuracy_level", 0));
  if (k < 1 || n < 1) return InvalidArgument("attributes K and N must be positive (K ", k, ", N ", n, ")");
  if (bits != 4) return Unsupported("MatMulNBits with bits ", bits, " (qrt takes 4)");
  if (block < 16 || block > 256 || (block & (block - 1)) != 0) {
    return InvalidArgument("block_size ", block, " is not a power of two from 16 to 256");
  }
  if (accuracy < 0 || accuracy > 4) return InvalidArgument("accuracy_level ", accuracy, " is not 0 to 4");
  const TensorInfo& a = ctx.input(kA);
  if (a.dtype != DataType::kFloat32) return Unsupported("MatMulNBits with A of ", DataTypeName(a.dtype));
  if (a.dims.empty() || a.dims.back() != k) {
    return InvalidArgument("A ", DimsToString(a.dims), " must end in K = ", k);
  }
  NbitsState s;
  s.n = n;
  s.k = k;
  s.block = block;
  s.blocks = (k + block - 1) / block;
  s.m = ElementCount(a.dims) / k;
  const TensorInfo& b = ctx.input(kB);
  if (b.dtype != DataType::kUInt8 || ElementCount(b.dims) != n * s.blocks * (block / 2)) {
    return InvalidArgument("B must be uint8 [N, blocks, block_size / 2] = [", n, ", ", s.blocks, ", ", block / 2,
                           "], not ", DataTypeName(b.dtype), " ", DimsToString(b.dims));
  }
  const TensorInfo& scales = ctx.input(kScales);
  if (scales.dtype != DataType::kFloat32 || ElementCount(scales.dims) != n * s.blocks) {
    return InvalidArgument("scales must be ", n * s.blocks, " float32 values (N x blocks), not ",
                           DataTypeName(scales.dtype), " ", DimsToString(scales.dims));
  }
  s.has_zero_points = ctx.has_input(kZeroPoints);
  if (s.has_zero_points) {
    const TensorInfo& zp = ctx.input(kZeroPoints);
    if (zp.dtype != DataType::kUInt8) return Unsupported("MatMulNBits with zero points of ", DataTypeName(zp.dtype));
    if (ElementCount(zp.dims) != n * ((s.blocks + 1) / 2)) {
      return InvalidArgument("zero_points must be ", n * ((s.blocks + 1) / 2), " bytes (N x ceil(blocks / 2)), not ",
                             DimsToString(zp.dims));
    }
  }
  if (ctx.has_input(kGroupIndex)) return Unsupported("MatMulNBits with g_idx");
  s.has_bias = ctx.has_input(kBias);
  if (s.has_bias && (ctx.input(kBias).dtype != DataType::kFloat32 || ElementCount(ctx.input(kBias).dims) != n)) {
    return InvalidArgument("bias must be ", n, " float32 values");
  }
  s.int8_path = accuracy == 4;
  s.threads = ctx.threads();
  if (s.int8_path) {
    s.int8 = SelectNbitsInt8(ctx.isa());
    const Tensor* scales = ctx.input(kScales).value;
    const Tensor* zero_points = s.has_zero_points ? ctx.input(kZeroPoints).value : nullptr;
    if (scales != nullptr && (!s.has_zero_points || zero_points != nullptr) && s.int8 != ref::MatMulNbitsInt8 &&
        s.int8 != ref::MatMulNbitsInt8NoVnni && s.int8 != ref::MatMulNbitsInt8Lanes8) {
      NbitsWeights w;
      w.n = n, w.k = k, w.block = block, w.blocks = s.blocks;
      w.scales = scales->data<float>();
      w.zero_points = zero_points != nullptr ? zero_points->data<uint8_t>() : nullptr;
      s.zero_point_terms = std::make_shared<const std::vector<float>>(NbitsZeroPointTerms(w));
    }
  } else {
    s.row = SelectNbitsRow(ctx.isa());
    s.rows = SelectNbitsRows(ctx.isa());
  }
  Dims out = a.dims;
  out.back() = n;
  ctx.SetOutput(0, DataType::kFloat32, out);
  ctx.SetKernel<NbitsState, RunNbits>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kMatMulNBitsOp{"com.microsoft", "MatMulNBits", 3, 6, 1, 1, PrepareNbits};

}  // namespace qrt
