// qrt:Silu (made by fuse-silu): y = x * Sigmoid(x), or Sigmoid(x) * x with the int attribute
// sigmoid_first 1, as the Mul it replaces names its operands; float32. The sigmoid is
// Sigmoid's own float32 kernel (ORT's approximation, ops/kernels/eltwise/sigmoid_tanh.h) on a
// block at a time, and the product one float multiply: the two nodes' result to the bit,
// without the sigmoid tensor in memory.
#include <algorithm>

#include "ops/kernels/eltwise/sigmoid_tanh.h"
#include "ops/op_util.h"
#include "ops/ops.h"
#include "runtime/parallel.h"

namespace qrt {
namespace {

struct SiluState {
  FloatMapFn sigmoid = nullptr;
  bool sigmoid_first = false;
  int threads = 1;
};

// A block's sigmoids stay in L1 between the two steps.
constexpr int64_t kBlock = 1024;

void SiluRange(const SiluState& s, const float* x, float* y, int64_t begin, int64_t end) {
  alignas(64) float sig[kBlock];
  for (int64_t i = begin; i < end; i += kBlock) {
    const int64_t n = std::min(kBlock, end - i);
    s.sigmoid(n, x + i, sig);
    if (s.sigmoid_first) {
      for (int64_t j = 0; j < n; ++j) y[i + j] = sig[j] * x[i + j];
    } else {
      for (int64_t j = 0; j < n; ++j) y[i + j] = x[i + j] * sig[j];
    }
  }
}

Status RunSilu(const SiluState& s, const RunArgs& args) {
  const float* x = args.input(0)->data<float>();
  float* y = args.output(0)->data<float>();
  const int64_t n = args.input(0)->numel();
  if (s.threads <= 1) {
    SiluRange(s, x, y, 0, n);
    return Status::Ok();
  }
  ParallelFor(s.threads, n, kBlock, 16 * kBlock, [&](int64_t begin, int64_t end) { SiluRange(s, x, y, begin, end); });
  return Status::Ok();
}

Status PrepareSilu(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kFloat32}));
  SiluState s;
  QRT_ASSIGN_OR_RETURN(int64_t first, ctx.attrs().GetInt("sigmoid_first", 0));
  s.sigmoid_first = first != 0;
  s.sigmoid = SelectSigmoid(ctx.isa());
  s.threads = ctx.threads();
  ctx.SetOutput(0, DataType::kFloat32, ctx.input(0).dims);
  ctx.SetKernel<SiluState, RunSilu>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kQrtSiluOp{"qrt", "Silu", 1, 1, 1, 1, PrepareSilu};

}  // namespace qrt
