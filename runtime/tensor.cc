#include "runtime/tensor.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "runtime/float8.h"
#include "runtime/half.h"

namespace qrt {

namespace {
std::atomic<int64_t> g_max_tensor_bytes{kMaxTensorBytes};
}  // namespace

int64_t MaxTensorBytes() { return g_max_tensor_bytes.load(std::memory_order_relaxed); }

void SetMaxTensorBytes(int64_t bytes) {
  g_max_tensor_bytes.store(std::clamp<int64_t>(bytes, 64, kMaxTensorBytes), std::memory_order_relaxed);
}

StatusOr<int64_t> CheckedElementCount(const Dims& dims, size_t elem_size) {
  if (int64_t(dims.size()) > kMaxRank) {
    return ResourceExhausted("rank ", dims.size(), " exceeds the limit of ", kMaxRank);
  }
  int64_t n = 1;
  bool zero = false;
  for (int64_t d : dims) {
    if (d < 0) return InvalidArgument("negative dimension ", d, " in shape ", DimsToString(dims));
  }
  // Zero dims count as 1 here: an empty tensor must still have dims whose every partial
  // product fits, because ops multiply subsets of dims (strides, outer and inner counts)
  // without knowing that another dim is zero. [0, 2^40, 2^40] is refused, not empty.
  const int64_t max_bytes = MaxTensorBytes();
  const int64_t limit = max_bytes / int64_t(elem_size == 0 ? 1 : elem_size);
  for (int64_t d : dims) {
    if (d == 0) {
      zero = true;
      continue;
    }
    if (n > limit / d) {
      return ResourceExhausted("tensor of shape ", DimsToString(dims), " exceeds the size limit of ", max_bytes,
                               " bytes");
    }
    n *= d;
  }
  if (zero) return int64_t(0);
  return n;
}

int64_t ElementCount(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

std::string DimsToString(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

StatusOr<Tensor> Tensor::Allocate(DataType dtype, Dims dims) {
  if (dtype == DataType::kUndefined) return InvalidArgument("cannot allocate a tensor of undefined dtype");
  QRT_ASSIGN_OR_RETURN(int64_t n, CheckedElementCount(dims, DataTypeSize(dtype)));
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  size_t bytes = size_t(n) * DataTypeSize(dtype);
  size_t rounded = (bytes + 63) / 64 * 64;
  if (rounded == 0) rounded = 64;
  void* p = std::aligned_alloc(64, rounded);
  if (p == nullptr) return ResourceExhausted("out of memory allocating ", bytes, " bytes");
  std::memset(p, 0, rounded);
  t.owner_ = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
  t.data_ = p;
  return t;
}

Tensor Tensor::Borrow(DataType dtype, Dims dims, void* data) {
  Tensor t;
  t.dtype_ = dtype;
  t.dims_ = std::move(dims);
  t.data_ = data;
  return t;
}

Tensor Tensor::Reshaped(Dims dims) const {
  Tensor t = *this;
  t.dims_ = std::move(dims);
  return t;
}

Tensor Tensor::Clone() const {
  if (dtype_ == DataType::kUndefined) return Tensor();  // nothing to copy (a RunValue that is no tensor)
  Tensor t = Allocate(dtype_, dims_).value();
  if (nbytes()) std::memcpy(t.data_, data_, nbytes());
  return t;
}

double Tensor::GetAsDouble(int64_t i) const {
  switch (dtype_) {
    case DataType::kFloat32:
      return data<float>()[i];
    case DataType::kFloat64:
      return data<double>()[i];
    case DataType::kFloat16:
      return HalfToFloat(data<uint16_t>()[i]);
    case DataType::kBFloat16:
      return BFloat16ToFloat(data<uint16_t>()[i]);
    case DataType::kInt8:
      return data<int8_t>()[i];
    case DataType::kUInt8:
      return data<uint8_t>()[i];
    case DataType::kInt16:
      return data<int16_t>()[i];
    case DataType::kUInt16:
      return data<uint16_t>()[i];
    case DataType::kInt32:
      return data<int32_t>()[i];
    case DataType::kInt64:
      return double(data<int64_t>()[i]);
    case DataType::kBool:
      return data<uint8_t>()[i] ? 1.0 : 0.0;
    case DataType::kUInt32:
      return data<uint32_t>()[i];
    case DataType::kUInt64:
      return double(data<uint64_t>()[i]);
    case DataType::kInt4:
      return data<int8_t>()[i];
    case DataType::kUInt4:
      return data<uint8_t>()[i];
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return Float8ToFloat(dtype_, data<uint8_t>()[i]);
    case DataType::kUndefined:
      break;
  }
  return 0.0;
}

int64_t Tensor::GetAsInt64(int64_t i) const {
  switch (dtype_) {
    case DataType::kInt64:
      return data<int64_t>()[i];
    case DataType::kInt32:
      return data<int32_t>()[i];
    case DataType::kInt16:
      return data<int16_t>()[i];
    case DataType::kUInt16:
      return data<uint16_t>()[i];
    case DataType::kInt8:
    case DataType::kInt4:
      return data<int8_t>()[i];
    case DataType::kUInt8:
    case DataType::kUInt4:
      return data<uint8_t>()[i];
    case DataType::kBool:
      return data<uint8_t>()[i] ? 1 : 0;
    case DataType::kUInt32:
      return data<uint32_t>()[i];
    case DataType::kUInt64:  // above INT64_MAX: wraps, as a two's-complement reinterpretation
      return int64_t(data<uint64_t>()[i]);
    default: {
      double d = GetAsDouble(i);
      if (!(d > -9.2e18 && d < 9.2e18)) return 0;  // NaN or out of range: no UB
      return int64_t(d);
    }
  }
}

}  // namespace qrt
