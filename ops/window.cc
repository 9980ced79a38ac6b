// The window generators HannWindow, HammingWindow and BlackmanWindow (opset 17): `size`
// (a known integer scalar) values of the window, periodic (N = size, default) or symmetric
// (N = size - 1), computed in double and rounded once to output_datatype (float32 default):
//   Hann:     0.5 - 0.5 cos(2 pi n / N)
//   Hamming:  25/46 - (21/46) cos(2 pi n / N)
//   Blackman: 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)
#include <cmath>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Window { kHann, kHamming, kBlackman };

struct WindowState {
  Window kind;
  DataType dtype;
  int64_t size = 0;
  bool periodic = true;
};

Status RunWindow(const WindowState& s, const RunArgs& args) {
  const double pi = 3.14159265358979323846;
  const double n_total = double(s.periodic ? s.size : s.size - 1);
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using C = typename E::Compute;
    if constexpr (!std::is_same_v<C, bool>) {
      auto* y = args.output(0)->data<typename E::Stored>();
      for (int64_t n = 0; n < s.size; ++n) {
        const double a = n_total > 0 ? 2 * pi * double(n) / n_total : 0.0;
        double v;
        switch (s.kind) {
          case Window::kHann:
            v = 0.5 - 0.5 * std::cos(a);
            break;
          case Window::kHamming:
            v = 25.0 / 46.0 - (21.0 / 46.0) * std::cos(a);
            break;
          default:
            v = 0.42 - 0.5 * std::cos(a) + 0.08 * std::cos(2 * a);
        }
        y[n] = E::Store(C(v));
      }
    }
  });
  return Status::Ok();
}

template <Window kKind>
Status PrepareWindow(PrepareContext& ctx) {
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, {DataType::kInt32, DataType::kInt64}));
  if (ElementCount(ctx.input(0).dims) != 1) return InvalidArgument("size must be a scalar");
  if (ctx.input(0).value == nullptr) return NeedsConstant(ctx, 0, "size");
  WindowState s;
  s.kind = kKind;
  s.size = ctx.input(0).value->GetAsInt64(0);
  if (s.size < 0) return InvalidArgument("size ", s.size, " is negative");
  QRT_ASSIGN_OR_RETURN(int64_t periodic, ctx.attrs().GetInt("periodic", 1));
  s.periodic = periodic != 0;
  QRT_ASSIGN_OR_RETURN(int64_t code, ctx.attrs().GetInt("output_datatype", 1));
  std::optional<DataType> t = DataTypeFromOnnx(int(code));
  if (!t || *t == DataType::kBool) return InvalidArgument("output_datatype ", code, " is not a numeric type qrt has");
  s.dtype = *t;
  QRT_RETURN_IF_ERROR(CheckedElementCount({s.size}, DataTypeSize(s.dtype)).status());
  ctx.SetOutput(0, s.dtype, {s.size});
  ctx.SetKernel<WindowState, RunWindow>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kHannWindowOp{"", "HannWindow", 1, 1, 1, 1, PrepareWindow<Window::kHann>};
const OpDef kHammingWindowOp{"", "HammingWindow", 1, 1, 1, 1, PrepareWindow<Window::kHamming>};
const OpDef kBlackmanWindowOp{"", "BlackmanWindow", 1, 1, 1, 1, PrepareWindow<Window::kBlackman>};

}  // namespace qrt
