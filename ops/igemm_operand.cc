#include "ops/igemm_operand.h"

#include "ops/kernels/common/thread_scratch.h"
#include "ops/kernels/igemm/igemm.h"

namespace qrt {
namespace {

// zp holds n values; out holds matrices * IgemmPackedBSize(k, n).
void Pack(const IgemmOperandB& op, const Tensor& b, const Tensor* b_zp, int32_t* zp, int16_t* out) {
  for (int64_t j = 0; j < op.n; ++j) {
    zp[j] = b_zp == nullptr ? 0 : int32_t(b_zp->GetAsInt64(b_zp->numel() == 1 ? 0 : j));
  }
  const int64_t matrix = op.k * op.n, matrices = matrix == 0 ? 0 : b.numel() / matrix;
  for (int64_t i = 0; i < matrices; ++i) {
    int16_t* o = out + i * op.matrix_stride();
    if (b.dtype() == DataType::kUInt8)
      IgemmPackB(op.k, op.n, b.data<uint8_t>() + i * matrix, op.rs, op.cs, zp, 1, o);
    else
      IgemmPackB(op.k, op.n, b.data<int8_t>() + i * matrix, op.rs, op.cs, zp, 1, o);
  }
}

int64_t Matrices(const IgemmOperandB& op, const Tensor& b) { return op.k * op.n == 0 ? 0 : b.numel() / (op.k * op.n); }

}  // namespace

IgemmOperandB IgemmOperandB::ForMatrix(int64_t k, int64_t n, bool transposed) {
  IgemmOperandB op;
  op.k = k, op.n = n;
  op.rs = transposed ? 1 : n;
  op.cs = transposed ? k : 1;
  return op;
}

int64_t IgemmOperandB::matrix_stride() const { return IgemmPackedBSize(k, n); }

std::optional<IgemmProduct> IgemmProduct::Plan(const PrepareContext& ctx, int64_t k, int64_t n, bool transposed,
                                               int b_input, int b_zp_input) {
  if (!CanUseAvx2(ctx.isa())) return std::nullopt;
  IgemmProduct p;
  p.kernel = SelectIgemmKernel(ctx.isa());
  p.threads = ctx.threads();
  p.b = IgemmOperandB::ForMatrix(k, n, transposed);
  const bool has_zp = b_zp_input >= 0 && ctx.has_input(b_zp_input);
  const Tensor* b = ctx.input(b_input).value;
  const Tensor* zp = has_zp ? ctx.input(b_zp_input).value : nullptr;
  if (b != nullptr && (!has_zp || zp != nullptr)) p.b.PackConstant(*b, zp);
  return p;
}

const int16_t* IgemmProduct::ForRun(const RunArgs& args, int b_input, int b_zp_input) const {
  return b.ForRun(*args.input(b_input), b_zp_input >= 0 ? args.input(b_zp_input) : nullptr);
}

void IgemmOperandB::PackConstant(const Tensor& b, const Tensor* b_zp) {
  std::vector<int32_t> zp(static_cast<size_t>(n));
  packed.assign(size_t(Matrices(*this, b) * matrix_stride()), 0);
  Pack(*this, b, b_zp, zp.data(), packed.data());
}

const int16_t* IgemmOperandB::ForRun(const Tensor& b, const Tensor* b_zp) const {
  if (!packed.empty()) return packed.data();
  // The zero points first, then the panels (64-byte aligned: n rounded up to 32 values).
  const int64_t zp_values = (n + 31) / 32 * 32;
  auto* scratch = static_cast<char*>(ThreadScratch(
      ScratchSlot::kOp2, size_t(zp_values) * sizeof(int32_t) + size_t(Matrices(*this, b) * matrix_stride()) * 2));
  int32_t* zp = reinterpret_cast<int32_t*>(scratch);
  int16_t* out = reinterpret_cast<int16_t*>(scratch + zp_values * sizeof(int32_t));
  Pack(*this, b, b_zp, zp, out);
  return out;
}

}  // namespace qrt
