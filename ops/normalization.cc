// BatchNormalization:
//   y = (x - mean) / sqrt(var + epsilon) * scale + B
// per channel (axis 1), evaluated in that order in the element's float type
// (float16/bfloat16 in float32, rounded once). In training mode (training_mode = 1) mean and var
// are the batch's own (over every axis but 1, the variance of the population), computed in
// double and rounded to the statistics' type; the optional outputs 1 and 2 are the running
// statistics input * momentum + batch * (1 - momentum), as ONNX's function defines them.
#include <cmath>
#include <vector>

#include "ops/op_util.h"
#include "ops/ops.h"

namespace qrt {
namespace {

struct BatchNormState {
  DataType x_dtype, p_dtype, stat_dtype;
  int64_t batch = 1, channels = 1, inner = 1;
  float epsilon = 1e-5f;
  bool training = false;
  float momentum = 0.9f;
};

// Training mode's batch statistics, per channel, in double.
void BatchStatistics(const BatchNormState& s, const Tensor& x, std::vector<double>* mean, std::vector<double>* var) {
  const double count = double(s.batch * s.inner);
  mean->assign(size_t(s.channels), 0.0);
  var->assign(size_t(s.channels), 0.0);
  for (int64_t c = 0; c < s.channels; ++c) {
    double sum = 0;
    for (int64_t n = 0; n < s.batch; ++n) {
      for (int64_t i = 0; i < s.inner; ++i) sum += x.GetAsDouble((n * s.channels + c) * s.inner + i);
    }
    const double m = count > 0 ? sum / count : 0.0;
    double sq = 0;
    for (int64_t n = 0; n < s.batch; ++n) {
      for (int64_t i = 0; i < s.inner; ++i) {
        const double d = x.GetAsDouble((n * s.channels + c) * s.inner + i) - m;
        sq += d * d;
      }
    }
    (*mean)[size_t(c)] = m;
    (*var)[size_t(c)] = count > 0 ? sq / count : 0.0;
  }
}

// Stores v into element i of a float tensor of any width.
void StoreD(Tensor& t, int64_t i, double v) {
  switch (t.dtype()) {
    case DataType::kFloat64:
      t.data<double>()[i] = v;
      break;
    case DataType::kFloat16:
      t.data<uint16_t>()[i] = FloatToHalf(float(v));
      break;
    case DataType::kBFloat16:
      t.data<uint16_t>()[i] = FloatToBFloat16(float(v));
      break;
    default:
      t.data<float>()[i] = float(v);
  }
}

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

// mean and var: the statistics to normalise by (args' inputs 3 and 4, or the batch's).
template <class T>
void Normalize(const BatchNormState& s, const RunArgs& args, const T* x, T* y, const void* mean_p, const void* var_p) {
  for (int64_t c = 0; c < s.channels; ++c) {
    const T scale = T(LoadD(s.p_dtype, args.input(1)->raw(), c));
    const T bias = T(LoadD(s.p_dtype, args.input(2)->raw(), c));
    const T mean = T(LoadD(s.stat_dtype, mean_p, c));
    const T var = T(LoadD(s.stat_dtype, var_p, c));
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
  const void* mean_p = args.input(3)->raw();
  const void* var_p = args.input(4)->raw();
  Tensor batch_mean, batch_var;  // training mode: the batch's statistics, in the statistics' type
  if (s.training) {
    std::vector<double> mean, var;
    BatchStatistics(s, x, &mean, &var);
    batch_mean = Tensor::Allocate(s.stat_dtype, {s.channels}).value();
    batch_var = Tensor::Allocate(s.stat_dtype, {s.channels}).value();
    for (int64_t c = 0; c < s.channels; ++c) {
      StoreD(batch_mean, c, mean[size_t(c)]);
      StoreD(batch_var, c, var[size_t(c)]);
      const double m = double(s.momentum);
      if (Tensor* rm = args.output(1)) StoreD(*rm, c, LoadD(s.stat_dtype, mean_p, c) * m + mean[size_t(c)] * (1 - m));
      if (Tensor* rv = args.output(2)) StoreD(*rv, c, LoadD(s.stat_dtype, var_p, c) * m + var[size_t(c)] * (1 - m));
    }
    mean_p = batch_mean.raw();
    var_p = batch_var.raw();
  }
  switch (s.x_dtype) {
    case DataType::kFloat32:
      Normalize(s, args, x.data<float>(), y.data<float>(), mean_p, var_p);
      break;
    case DataType::kFloat64:
      Normalize(s, args, x.data<double>(), y.data<double>(), mean_p, var_p);
      break;
    default: {  // float16 / bfloat16: compute in float32
      const bool half = s.x_dtype == DataType::kFloat16;
      const uint16_t* px = x.data<uint16_t>();
      uint16_t* py = y.data<uint16_t>();
      for (int64_t c = 0; c < s.channels; ++c) {
        const float scale = float(LoadD(s.p_dtype, args.input(1)->raw(), c));
        const float bias = float(LoadD(s.p_dtype, args.input(2)->raw(), c));
        const float mean = float(LoadD(s.stat_dtype, mean_p, c));
        const float var = float(LoadD(s.stat_dtype, var_p, c));
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
  if (training != 0 && training != 1) return InvalidArgument("training_mode must be 0 or 1, got ", training);
  for (int o = 3; o < ctx.num_outputs(); ++o) {
    // Opset 9-13's saved mean and variance: the training graph's, not ONNX's any more.
    if (ctx.has_output(o)) return Unsupported("BatchNormalization's saved statistics (output ", o, ")");
  }
  for (int o = 1; o < 3 && o < ctx.num_outputs(); ++o) {
    // Before opset 14 these outputs came with the training graph's own attributes (is_test,
    // spatial): not implemented.
    if (ctx.has_output(o) && training == 0) {
      return Unsupported("BatchNormalization's running statistics (output ", o, ") without training_mode = 1");
    }
  }
  const int64_t rank = int64_t(x.dims.size());
  if (rank < 2) return InvalidArgument("BatchNormalization input must have rank >= 2");
  BatchNormState s;
  s.x_dtype = x.dtype;
  s.batch = x.dims[0];
  s.channels = x.dims[1];
  for (int64_t d = 2; d < rank; ++d) s.inner *= x.dims[size_t(d)];
  QRT_ASSIGN_OR_RETURN(s.epsilon, ctx.attrs().GetFloat("epsilon", 1e-5f));
  QRT_ASSIGN_OR_RETURN(s.momentum, ctx.attrs().GetFloat("momentum", 0.9f));
  s.training = training == 1;
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
  for (int o = 1; o < 3 && o < ctx.num_outputs(); ++o) ctx.SetOutput(o, s.stat_dtype, {s.channels});
  ctx.SetKernel<BatchNormState, RunBatchNorm>(std::move(s));
  return Status::Ok();
}

}  // namespace

const OpDef kBatchNormalizationOp{"", "BatchNormalization", 5, 5, 1, 5, PrepareBatchNorm};

}  // namespace qrt
