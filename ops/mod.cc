// Mod(A, B), numpy-broadcast. fmod=0 (integers only): the remainder takes the divisor's sign,
// as Python's %; fmod=1: the dividend's sign, as C's fmod (floats) and % (integers). An
// integer division by zero gives 0, and so does lowest % -1: ONNX leaves both undefined, and
// qrt must not be.
#include <cmath>
#include <limits>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct ModState {
  DataType dtype;
  StridedLoop loop;
  bool fmod = false;
};

template <class T>
T IntMod(T a, T b, bool fmod) {
  if (b == 0) return T(0);
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return T(0);  // also lowest % -1, which overflows in C++
  }
  T r = T(a % b);
  if (!fmod && r != 0 && ((r < 0) != (b < 0))) r = T(r + b);
  return r;
}

Status RunMod(const ModState& s, const RunArgs& args) {
  const bool fmod = s.fmod;
  DispatchElem(s.dtype, [&](auto tag) {
    using E = Elem<decltype(tag)>;
    using S = typename E::Stored;
    using C = typename E::Compute;
    if constexpr (!std::is_same_v<C, bool>) {
      BroadcastMap2(s.loop, args.input(0)->data<S>(), args.input(1)->data<S>(), args.output(0)->data<S>(),
                    [fmod](S a, S b) -> S {
                      if constexpr (std::is_integral_v<C>) {
                        return IntMod<C>(a, b, fmod);
                      } else {
                        return E::Store(std::fmod(E::Load(a), E::Load(b)));
                      }
                    });
    }
  });
  return Status::Ok();
}

Status PrepareMod(PrepareContext& ctx) {
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(1);
  if (a.dtype != b.dtype) {
    return InvalidArgument("input dtypes differ: ", DataTypeName(a.dtype), " and ", DataTypeName(b.dtype));
  }
  if (a.dtype == DataType::kBool) return InvalidArgument("Mod is not defined on bool");
  QRT_ASSIGN_OR_RETURN(int64_t fmod, ctx.attrs().GetInt("fmod", 0));
  if (fmod != 0 && fmod != 1) return InvalidArgument("fmod must be 0 or 1, not ", fmod);
  if (fmod == 0 && IsFloatType(a.dtype)) return InvalidArgument("fmod=0 is defined for integers only; use fmod=1");
  QRT_ASSIGN_OR_RETURN(Dims out, BroadcastDims(a.dims, b.dims));
  ModState s;
  s.dtype = a.dtype;
  s.fmod = fmod != 0;
  s.loop = MakeStridedLoop({a.dims, b.dims, out}, out);
  ctx.SetOutput(0, a.dtype, out);
  ctx.SetKernel<ModState, RunMod>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kModOp{"", "Mod", 2, 2, 1, 1, PrepareMod};

}  // namespace qrt
