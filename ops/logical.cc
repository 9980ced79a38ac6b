// Numpy-broadcasting logical ops on bool tensors: And, Or, Xor (Not, being unary, is in
// ops/unary.cc), and BitShift on unsigned integers.
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

enum class Logic { kAnd, kOr, kXor };

struct BroadcastState {
  DataType dtype;
  StridedLoop loop;
  bool left = true;  // BitShift direction
};

// The output shape and loop of two same-dtype inputs.
Status PrepareBroadcast(PrepareContext& ctx, BroadcastState& s) {
  const TensorInfo& a = ctx.input(0);
  const TensorInfo& b = ctx.input(1);
  if (a.dtype != b.dtype) {
    return InvalidArgument("input dtypes differ: ", DataTypeName(a.dtype), " and ", DataTypeName(b.dtype));
  }
  QRT_ASSIGN_OR_RETURN(Dims b_dims, LegacyBroadcastDims(ctx, a.dims, b.dims));
  QRT_ASSIGN_OR_RETURN(Dims out, BroadcastDims(a.dims, b_dims));
  s.dtype = a.dtype;
  s.loop = MakeStridedLoop({a.dims, b_dims, out}, out);
  ctx.SetOutput(0, a.dtype, out);
  return Status::Ok();
}

template <Logic kOp>
Status RunLogic(const BroadcastState& s, const RunArgs& args) {
  BroadcastMap2(s.loop, args.input(0)->data<uint8_t>(), args.input(1)->data<uint8_t>(), args.output(0)->data<uint8_t>(),
                [](uint8_t a, uint8_t b) -> uint8_t {
                  const bool x = a != 0, y = b != 0;
                  if constexpr (kOp == Logic::kAnd) return x && y;
                  if constexpr (kOp == Logic::kOr) return x || y;
                  return x != y;
                });
  return Status::Ok();
}

template <Logic kOp>
Status PrepareLogic(PrepareContext& ctx) {
  BroadcastState s;
  QRT_RETURN_IF_ERROR(PrepareBroadcast(ctx, s));
  if (s.dtype != DataType::kBool) return InvalidArgument("inputs must be bool, not ", DataTypeName(s.dtype));
  ctx.SetKernel<BroadcastState, RunLogic<kOp>>(std::move(s));
  return Status::Ok();
}

// A shift by the type's width or more gives 0 (C++ leaves it undefined).
template <class T>
void ShiftTyped(const BroadcastState& s, const RunArgs& args) {
  constexpr T kBits = T(sizeof(T) * 8);
  const bool left = s.left;
  BroadcastMap2(s.loop, args.input(0)->data<T>(), args.input(1)->data<T>(), args.output(0)->data<T>(),
                [left](T x, T n) -> T {
                  if (n >= kBits) return T(0);
                  return left ? T(x << n) : T(x >> n);
                });
}

Status RunBitShift(const BroadcastState& s, const RunArgs& args) {
  switch (s.dtype) {
    case DataType::kUInt8:
      ShiftTyped<uint8_t>(s, args);
      break;
    case DataType::kUInt16:
      ShiftTyped<uint16_t>(s, args);
      break;
    case DataType::kUInt32:
      ShiftTyped<uint32_t>(s, args);
      break;
    case DataType::kUInt64:
      ShiftTyped<uint64_t>(s, args);
      break;
    default:
      break;
  }
  return Status::Ok();
}

Status PrepareBitShift(PrepareContext& ctx) {
  BroadcastState s;
  QRT_RETURN_IF_ERROR(PrepareBroadcast(ctx, s));
  if (s.dtype != DataType::kUInt8 && s.dtype != DataType::kUInt16 && s.dtype != DataType::kUInt32 &&
      s.dtype != DataType::kUInt64) {
    return InvalidArgument("BitShift takes unsigned integers, not ", DataTypeName(s.dtype));
  }
  QRT_ASSIGN_OR_RETURN(std::string direction, ctx.attrs().GetString("direction"));
  if (direction != "LEFT" && direction != "RIGHT") {
    return InvalidArgument("direction must be LEFT or RIGHT, not \"", direction, "\"");
  }
  s.left = direction == "LEFT";
  ctx.SetKernel<BroadcastState, RunBitShift>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kAndOp{"", "And", 2, 2, 1, 1, PrepareLogic<Logic::kAnd>};
const OpDef kOrOp{"", "Or", 2, 2, 1, 1, PrepareLogic<Logic::kOr>};
const OpDef kXorOp{"", "Xor", 2, 2, 1, 1, PrepareLogic<Logic::kXor>};
const OpDef kBitShiftOp{"", "BitShift", 2, 2, 1, 1, PrepareBitShift};

}  // namespace qrt
