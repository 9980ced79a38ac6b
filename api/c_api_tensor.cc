// C API: errors, version, dtypes and tensors.
#include <cstring>

#include "api/c_api_objects.h"
#include "loaders/model_io.h"
#include "loaders/npy.h"
#ifdef QRT_WITH_ONNX
#include "loaders/tensor_proto.h"
#endif

namespace qrt::capi {
namespace {
thread_local std::string last_error;
}  // namespace

qrt_status ToCStatus(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return QRT_OK;
    case StatusCode::kInvalidArgument:
      return QRT_INVALID_ARGUMENT;
    case StatusCode::kUnsupported:
      return QRT_UNSUPPORTED;
    case StatusCode::kNeedsKnownValue:
      return QRT_UNSUPPORTED;
    case StatusCode::kNotFound:
      return QRT_NOT_FOUND;
    case StatusCode::kIoError:
      return QRT_IO_ERROR;
    case StatusCode::kResourceExhausted:
      return QRT_RESOURCE_EXHAUSTED;
    case StatusCode::kInternal:
      return QRT_INTERNAL;
  }
  return QRT_INTERNAL;
}

qrt_status Fail(const Status& s) {
  try {
    last_error = s.message();
  } catch (...) {
    last_error.clear();  // no memory even for the message: the code still tells
  }
  return ToCStatus(s.code());
}

DataType FromCDtype(qrt_dtype t) {
  if (t == QRT_UNDEFINED) return DataType::kUndefined;
  return DataTypeFromOnnx(int(t)).value_or(DataType::kUndefined);
}

qrt_dtype ToCDtype(DataType t) {
  return t == DataType::kUndefined ? QRT_UNDEFINED : static_cast<qrt_dtype>(OnnxCodeFromDataType(t));
}

StatusOr<Dims> CheckedDims(qrt_dtype dtype, int32_t rank, const int64_t* dims, const void* data, size_t size_bytes) {
  const DataType t = FromCDtype(dtype);
  if (t == DataType::kUndefined) return InvalidArgument("unknown dtype code ", int(dtype));
  if (rank < 0 || rank > QRT_MAX_RANK) return InvalidArgument("rank ", rank, " is not within 0..", QRT_MAX_RANK);
  if (rank > 0 && dims == nullptr) return InvalidArgument("dims is NULL for rank ", rank);
  Dims d(dims, dims + rank);
  QRT_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(d, DataTypeSize(t)));
  const size_t bytes = size_t(count) * DataTypeSize(t);
  if (size_bytes != bytes) {
    return InvalidArgument(DataTypeName(t), DimsToString(d), " takes ", bytes, " bytes, size_bytes is ", size_bytes);
  }
  if (data == nullptr && bytes != 0) return InvalidArgument("data is NULL");
  return d;
}

qrt_tensor_view ViewOf(const Tensor& t) {
  return qrt_tensor_view{ToCDtype(t.dtype()), int32_t(t.rank()), t.dims().data(), t.raw(),
                         size_t(t.numel()) * DataTypeSize(t.dtype())};
}

}  // namespace qrt::capi

using qrt::capi::Fail;
using qrt::capi::Guard;

extern "C" {

#define QRT_STRINGIFY_(x) #x
#define QRT_STRINGIFY(x) QRT_STRINGIFY_(x)
const char* qrt_version_string(void) {
  return QRT_STRINGIFY(QRT_VERSION_MAJOR) "." QRT_STRINGIFY(QRT_VERSION_MINOR) "." QRT_STRINGIFY(QRT_VERSION_PATCH);
}

uint32_t qrt_version(void) {
  return (uint32_t(QRT_VERSION_MAJOR) << 16) | (uint32_t(QRT_VERSION_MINOR) << 8) | uint32_t(QRT_VERSION_PATCH);
}

const char* qrt_last_error(void) { return qrt::capi::last_error.c_str(); }

const char* qrt_status_name(qrt_status status) {
  switch (status) {
    case QRT_OK:
      return "ok";
    case QRT_INVALID_ARGUMENT:
      return "invalid argument";
    case QRT_UNSUPPORTED:
      return "unsupported";
    case QRT_NOT_FOUND:
      return "not found";
    case QRT_IO_ERROR:
      return "I/O error";
    case QRT_RESOURCE_EXHAUSTED:
      return "resource exhausted";
    case QRT_INTERNAL:
      return "internal error";
  }
  return "unknown status";
}

const char* qrt_dtype_name(qrt_dtype dtype) {
  // DataTypeName returns views of string literals, so data() is NUL-terminated.
  return qrt::DataTypeName(qrt::capi::FromCDtype(dtype)).data();
}

size_t qrt_dtype_size(qrt_dtype dtype) { return qrt::DataTypeSize(qrt::capi::FromCDtype(dtype)); }

qrt_status qrt_tensor_create(qrt_dtype dtype, int32_t rank, const int64_t* dims, qrt_tensor** out) {
  return Guard([&]() -> qrt::Status {
    if (out == nullptr) return qrt::InvalidArgument("qrt_tensor_create: out is NULL");
    *out = nullptr;
    const qrt::DataType t = qrt::capi::FromCDtype(dtype);
    if (t == qrt::DataType::kUndefined)
      return qrt::InvalidArgument("qrt_tensor_create: unknown dtype code ", int(dtype));
    if (rank < 0 || rank > QRT_MAX_RANK || (rank > 0 && dims == nullptr)) {
      return qrt::InvalidArgument("qrt_tensor_create: bad rank or dims");
    }
    QRT_ASSIGN_OR_RETURN(qrt::Tensor tensor, qrt::Tensor::Allocate(t, qrt::Dims(dims, dims + rank)));
    *out = new qrt_tensor{std::move(tensor)};
    return qrt::Status::Ok();
  });
}

qrt_status qrt_tensor_read_file(const char* path, qrt_tensor** out) {
  return Guard([&]() -> qrt::Status {
    if (out == nullptr || path == nullptr) return qrt::InvalidArgument("qrt_tensor_read_file: NULL argument");
    *out = nullptr;
    const std::string p(path);
    if (qrt::EndsWith(p, ".npy")) {
      QRT_ASSIGN_OR_RETURN(qrt::Tensor t, qrt::ReadNpy(p));
      *out = new qrt_tensor{std::move(t)};
      return qrt::Status::Ok();
    }
    if (qrt::EndsWith(p, ".pb")) {
#ifdef QRT_WITH_ONNX
      QRT_ASSIGN_OR_RETURN(qrt::Tensor t, qrt::ReadTensorProtoFile(p));
      *out = new qrt_tensor{std::move(t)};
      return qrt::Status::Ok();
#else
      return qrt::Unsupported(p, ": .pb tensors need the ONNX loader, which this build of qrt leaves out");
#endif
    }
    return qrt::InvalidArgument(p, ": unknown tensor file format (expected .npy or .pb)");
  });
}

void qrt_tensor_destroy(qrt_tensor* tensor) { delete tensor; }

qrt_tensor_view qrt_tensor_get_view(const qrt_tensor* tensor) {
  if (tensor == nullptr) return qrt_tensor_view{QRT_UNDEFINED, 0, nullptr, nullptr, 0};
  return qrt::capi::ViewOf(tensor->tensor);
}

void* qrt_tensor_data(qrt_tensor* tensor) { return tensor ? tensor->tensor.raw() : nullptr; }

qrt_status qrt_tensor_write_npy(const char* path, const qrt_tensor_view* view) {
  return Guard([&]() -> qrt::Status {
    if (path == nullptr || view == nullptr) return qrt::InvalidArgument("qrt_tensor_write_npy: NULL argument");
    QRT_ASSIGN_OR_RETURN(qrt::Dims dims,
                         qrt::capi::CheckedDims(view->dtype, view->rank, view->dims, view->data, view->size_bytes));
    const qrt::Tensor t = qrt::Tensor::Borrow(qrt::capi::FromCDtype(view->dtype), std::move(dims),
                                              const_cast<void*>(view->data));  // only read
    return qrt::WriteNpy(path, t);
  });
}

}  // extern "C"
