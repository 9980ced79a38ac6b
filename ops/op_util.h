// Small helpers shared by op definitions: axes, broadcasting, dtype dispatch.
#pragma once

#include <cstdint>
#include <vector>

#include "ops/kernels/common/broadcast.h"
#include "ops/kernels/quantize/min_max.h"
#include "runtime/half.h"
#include "runtime/op_def.h"

namespace qrt {

// axis in [-rank, rank) -> [0, rank); error otherwise.
StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank);

// BroadcastDims (numpy broadcast of two shapes) comes from ops/kernels/common/broadcast.h.

// Every element of an integer tensor as int64 (shape, axes, pads inputs).
std::vector<int64_t> ToInt64Vector(const Tensor& t);

// Strides (in elements) of `in` broadcast against `out` (same rank after left-padding
// `in` with 1s): 0 where `in` has size 1.
std::vector<int64_t> BroadcastStrides(const Dims& in, const Dims& out);

// Calls `inner(out_off, a_off, b_off, n, a_step, b_step)` over contiguous runs of the
// output's last dimension, for `a` and `b` broadcast to `out`.
template <class F>
void ForEachBroadcastRun(const Dims& out, const std::vector<int64_t>& as, const std::vector<int64_t>& bs, F inner) {
  const size_t rank = out.size();
  if (ElementCount(out) == 0) return;
  if (rank == 0) {
    inner(int64_t(0), int64_t(0), int64_t(0), int64_t(1), int64_t(0), int64_t(0));
    return;
  }
  const int64_t n = out[rank - 1];
  const int64_t outer = ElementCount(out) / n;
  std::vector<int64_t> idx(rank, 0);
  int64_t a_off = 0, b_off = 0;
  for (int64_t o = 0; o < outer; ++o) {
    inner(o * n, a_off, b_off, n, as[rank - 1], bs[rank - 1]);
    for (int64_t d = int64_t(rank) - 2; d >= 0; --d) {
      a_off += as[d];
      b_off += bs[d];
      if (++idx[d] < out[d]) break;
      a_off -= as[d] * out[d];
      b_off -= bs[d] * out[d];
      idx[d] = 0;
    }
  }
}

// Calls f(A{}, B{}) with A and B the C++ types (uint8_t or int8_t) of two 8-bit dtypes: the
// integer matmuls' and convolutions' operand pairs.
template <class F>
void Dispatch8BitPair(DataType a, DataType b, F&& f) {
  const bool au = a == DataType::kUInt8, bu = b == DataType::kUInt8;
  if (au && bu)
    f(uint8_t{}, uint8_t{});
  else if (au)
    f(uint8_t{}, int8_t{});
  else if (bu)
    f(int8_t{}, uint8_t{});
  else
    f(int8_t{}, int8_t{});
}

// Calls f(T{}) with T the C++ type of `dtype` among the listed numeric types;
// returns false if dtype is not one of them.
template <class F>
bool DispatchNumeric(DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::kFloat32:
      f(float{});
      return true;
    case DataType::kFloat64:
      f(double{});
      return true;
    case DataType::kInt8:
      f(int8_t{});
      return true;
    case DataType::kUInt8:
      f(uint8_t{});
      return true;
    case DataType::kInt16:
      f(int16_t{});
      return true;
    case DataType::kUInt16:
      f(uint16_t{});
      return true;
    case DataType::kInt32:
      f(int32_t{});
      return true;
    case DataType::kInt64:
      f(int64_t{});
      return true;
    case DataType::kUInt32:
      f(uint32_t{});
      return true;
    case DataType::kUInt64:
      f(uint64_t{});
      return true;
    default:
      return false;
  }
}

// Element i of a float32, float16 or bfloat16 buffer, as float (the 16-bit types widen exactly).
inline float LoadFloat(DataType t, const void* p, int64_t i) {
  switch (t) {
    case DataType::kFloat16:
      return HalfToFloat(static_cast<const uint16_t*>(p)[i]);
    case DataType::kBFloat16:
      return BFloat16ToFloat(static_cast<const uint16_t*>(p)[i]);
    default:
      return static_cast<const float*>(p)[i];
  }
}

// Stores v as element i of a float32, float16 or bfloat16 buffer (16-bit: nearest even).
inline void StoreFloat(DataType t, void* p, int64_t i, float v) {
  switch (t) {
    case DataType::kFloat16:
      static_cast<uint16_t*>(p)[i] = FloatToHalf(v);
      break;
    case DataType::kBFloat16:
      static_cast<uint16_t*>(p)[i] = FloatToBFloat16(v);
      break;
    default:
      static_cast<float*>(p)[i] = v;
      break;
  }
}

// An input's dtype and dims as the kernels' TensorDesc (empty where the input is omitted).
inline TensorDesc InputDesc(const PrepareContext& ctx, int i) {
  if (!ctx.has_input(i)) return TensorDesc{};
  return TensorDesc{ctx.input(i).dtype, ctx.input(i).dims};
}

// An input's bytes at run time, or null where it is omitted.
inline const void* InputData(const RunArgs& args, int i) {
  const Tensor* t = args.input(i);
  return t ? t->raw() : nullptr;
}

// An int32/int64 1-D input whose value is needed at plan time.
StatusOr<std::vector<int64_t>> ReadIntList(const PrepareContext& ctx, int input, const char* what);

// Axes in [-rank, rank), normalized; repeats are an error.
StatusOr<std::vector<int64_t>> NormalizeAxes(const std::vector<int64_t>& axes, int64_t rank);

// Checks an input's dtype is one of `allowed`.
Status ExpectDType(const PrepareContext& ctx, int input, std::initializer_list<DataType> allowed);

// True if a tensor of dims `d` broadcasts (right-aligned) to rank `rank` as one value per
// channel (axis 1) of `channels`: every dim is 1 except, possibly, the one on axis 1.
// ONNX Runtime's dynamic quantization of a float block to uint8 (DynamicQuantizeMatMul,
// DynamicQuantizeLSTM): lo = min(0, min x), hi = max(0, max x) (NaN ignored), scale =
// hi == lo ? 1 : (hi - lo) / 255, zp = rint(clamp(0 - lo / scale, 0, 255)), q = sat(rint(x /
// scale) + zp) (NaN: 0). Returns the scale; the codes go to q and the zero point to *zp_out.
float QuantizeDynamicU8(RangeWithZeroFn range, const float* x, int64_t count, uint8_t* q, int32_t* zp_out);

// ORT's MatMul, Gemm, FusedMatMul and Attention pack a 2-D initializer B (their weights) when the
// model loads, and its packed GEMM sums in another order (sgemm.h's packed_b).
bool PackedByOrt(const TensorInfo& b);

bool IsPerChannel(const Dims& d, int64_t channels, size_t rank);

// B's dims under the broadcasting rule of the node's opset. Before opset 7, binary ops
// broadcast only B onto A, and only with broadcast=1, aligning B's dims at `axis` (default:
// the trailing dims); the result is B's dims padded with trailing 1s, for numpy broadcasting.
// From opset 7 on: b unchanged.
StatusOr<Dims> LegacyBroadcastDims(const PrepareContext& ctx, const Dims& a, const Dims& b);

// Error for an input whose value must be known when the graph is planned.
Status NeedsConstant(const PrepareContext& ctx, int input, const char* what);

}  // namespace qrt
