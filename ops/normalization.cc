// BatchNormalization in inference mode:
//   y = (x - mean) / sqrt(var + epsilon) * scale + B
// per channel (axis 1), evaluated in that order in the element's float type
// (float16/bfloat16 in float32, rounded once). Training mode (batch statistics and the
// running-statistics outputs) is not implemented.
#include <cmath>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct BatchNormState {
  DataType x_dtype, p_dtype, stat_dtype;
  int64_t batch = 1, channels = 1, inner = 1;
  float epsilon = 1e-5f;
};

double LoadD(DataType t, const void* p, int64_t i) {
  switch (t) {
    case DataType::kFloat64:
      return static_cast<const double*>(p)[i];
    case DataType::kFloat16:
      return HalfToFloat(static_cast<const uint16_t*>(p)[i]);
    case DataType::kBFloat16:
      return BFloat16ToFloat(static_cast<const uint16_t*>(p)[i]);
    default:
      return static_cast<const float*>(p)[i];
  }
}

template <class T>
void Normalize(const BatchNormState& s, const RunArgs& args, const T* x, T* y) {
  for (int64_t c = 0; c < s.channels; ++c) {
    const T scale = T(LoadD(s.p_dtype, args.input(1)->raw(), c));
    const T bias = T(LoadD(s.p_dtype, args.input(2)->raw(), c));
    const T mean = T(LoadD(s.stat_dtype, args.input(3)->raw(), c));
    const T var = T(LoadD(s.stat_dtype, args.input(4)->raw(), c));
    const T denom = std::sqrt(var + T(s.epsilon));
    for (int64_t n = 0; n < s.batch; ++n) {
      const int64_t base = (n * s.channels + c) * s.inner;
      for (int64_t i = 0; i < s.inner; ++i) y[base + i] = (x[base + i] - mean) / denom * scale + bias;
    }
  }
}

Status RunBatchNorm(const BatchNormState& s, const RunArgs& args) {
  const Tensor& x = *args.input(0);
  Tensor& y = *args.output(0);
  switch (s.x_dtype) {
    case DataType::kFloat32:
      Normalize(s, args, x.data<float>(), y.data<float>());
      break;
    case DataType::kFloat64:
      Normalize(s, args, x.data<double>(), y.data<double>());
      break;
    default: {  // float16 / bfloat16: compute in float32
      const bool half = s.x_dtype == DataType::kFloat16;
      const uint16_t* px = x.data<uint16_t>();
      uint16_t* py = y.data<uint16_t>();
      for (int64_t c = 0; c < s.channels; ++c) {
        const float scale = float(LoadD(s.p_dtype, args.input(1)->raw(), c));
        const float bias = float(LoadD(s.p_dtype, args.input(2)->raw(), c));
        const float mean = float(LoadD(s.stat_dtype, args.input(3)->raw(), c));
        const float var = float(LoadD(s.stat_dtype, args.input(4)->raw(), c));
        const float denom = std::sqrt(var + s.epsilon);
        for (int64_t n = 0; n < s.batch; ++n) {
          const int64_t base = (n * s.channels + c) * s.inner;
          for (int64_t i = 0; i < s.inner; ++i) {
            const float v = half ? HalfToFloat(px[base + i]) : BFloat16ToFloat(px[base + i]);
            const float r = (v - mean) / denom * scale + bias;
            py[base + i] = half ? FloatToHalf(r) : FloatToBFloat16(r);
          }
        }
      }
    }
  }
  return Status::Ok();
}

Status PrepareBatchNorm(PrepareContext& ctx) {
  const TensorInfo& x = ctx.input(0);
  const std::initializer_list<DataType> kFloats = {DataType::kFloat32, DataType::kFloat64, DataType::kFloat16,
                                                   DataType::kBFloat16};
  QRT_RETURN_IF_ERROR(ExpectDType(ctx, 0, kFloats));
  QRT_ASSIGN_OR_RETURN(int64_t training, ctx.attrs().GetInt("training_mode", 0));
  if (training != 0) return Unsupported("BatchNormalization training_mode = 1");
  for (int o = 1; o < ctx.num_outputs(); ++o) {
    if (ctx.has_output(o)) return Unsupported("BatchNormalization training outputs (output ", o, ")");
  }
  const int64_t rank = int64_t(x.dims.size());
  if (rank < 2) return InvalidArgument("BatchNormalization input must have rank >= 2");
  BatchNormState s;
  s.x_dtype = x.dtype;
  s.batch = x.dims[0];
  s.channels = x.dims[1];
  for (int64_t d = 2; d < rank; ++d) s.inner *= x.dims[size_t(d)];
  QRT_ASSIGN_OR_RETURN(s.epsilon, ctx.attrs().GetFloat("epsilon", 1e-5f));
  for (int i = 1; i <= 4; ++i) {
    QRT_RETURN_IF_ERROR(ExpectDType(ctx, i, kFloats));
    if (ctx.input(i).dims != Dims{s.channels}) {
      return InvalidArgument("input ", i, " must have shape [", s.channels, "], got ", DimsToString(ctx.input(i).dims));
    }
  }
  s.p_dtype = ctx.input(1).dtype;
  s.stat_dtype = ctx.input(3).dtype;
  if (ctx.input(2).dtype != s.p_dtype || ctx.input(4).dtype != s.stat_dtype) {
    return InvalidArgument("scale and B, and mean and var, must have matching dtypes");
  }
  ctx.SetOutput(0, x.dtype, x.dims);
  ctx.SetKernel<BatchNormState, RunBatchNorm>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kBatchNormalizationOp{"", "BatchNormalization", 5, 5, 1, 5, PrepareBatchNorm};

}  // namespace qrt
