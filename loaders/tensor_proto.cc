#include "loaders/tensor_proto.h"

#include <onnx/onnx-data.pb.h>  // after onnx_pb.h, which defines ONNX_API
#include <sys/stat.h>

#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace qrt {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "raw_data is little-endian and is copied as is");

// Names for every TensorProto.DataType code, including those newer than the
// onnx.proto we compile against, so errors can say what was rejected.
std::string OnnxTypeName(int code) {
  static constexpr std::string_view kNames[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",          "INT8",       "UINT16",   "INT16",
      "INT32",          "INT64",      "STRING",         "BOOL",       "FLOAT16",  "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",      "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4",      "INT4",     "FLOAT4E2M1"};
  if (code >= 0 && size_t(code) < std::size(kNames)) return std::string(kNames[code]);
  return StrCat("unknown (", code, ")");
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// Opens `path` for reading and returns it with its size; it must be a regular file.
StatusOr<FilePtr> OpenRegularFile(const std::string& path, int64_t* size) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    if (errno == ENOENT) return NotFound("file '", path, "' does not exist");
    return IoError("cannot open '", path, "': ", std::strerror(errno));
  }
  struct stat st;
  if (fstat(fileno(f.get()), &st) != 0) return IoError("cannot stat '", path, "': ", std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument("'", path, "' is not a regular file");
  *size = int64_t(st.st_size);
  return f;
}

// Strict decimal parse of an external_data integer ("4096"); no sign, no spaces.
StatusOr<int64_t> ParseByteCount(const std::string& key, const std::string& s) {
  if (s.empty() || s.size() > 19) return InvalidArgument("external_data ", key, " '", s, "' is not a valid byte count");
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return InvalidArgument("external_data ", key, " '", s, "' is not a valid byte count");
    v = v * 10 + (c - '0');  // 19 digits cannot overflow int64
  }
  return v;
}

// Joins `location` to `model_dir`, refusing anything that could leave model_dir
// lexically. Both separators count, since models exported on Windows use '\'.
StatusOr<std::string> ResolveExternalPath(const std::string& location, const std::string& model_dir) {
  if (location.empty()) return InvalidArgument("external_data location is empty");
  if (location.find('\0') != std::string::npos) return InvalidArgument("external_data location contains NUL");
  if (location[0] == '/' || location[0] == '\\' || (location.size() >= 2 && location[1] == ':')) {
    return InvalidArgument("external_data location '", location, "' is an absolute path");
  }
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find_first_of("/\\", start);
    if (end == std::string::npos) end = location.size();
    if (location.compare(start, end - start, "..") == 0) {
      return InvalidArgument("external_data location '", location, "' contains '..'");
    }
    start = end + 1;
  }
  // A model read from memory has no folder, so it cannot refer to other files.
  if (model_dir.empty())
    return InvalidArgument("external_data '", location, "': a model loaded from memory cannot use external data");
  return model_dir + "/" + location;
}

// Reads exactly `t->nbytes()` bytes of external data into `t`.
Status ReadExternal(const onnx::TensorProto& proto, const std::string& model_dir, Tensor* t) {
  std::string location;
  int64_t offset = 0, length = -1;
  bool have_location = false, have_offset = false;
  for (const auto& entry : proto.external_data()) {
    const std::string& key = entry.key();
    if ((key == "location" && have_location) || (key == "offset" && have_offset) || (key == "length" && length >= 0)) {
      return InvalidArgument("duplicate external_data key '", key, "'");
    }
    if (key == "location") {
      location = entry.value();
      have_location = true;
    } else if (key == "offset") {
      QRT_ASSIGN_OR_RETURN(offset, ParseByteCount(key, entry.value()));
      have_offset = true;
    } else if (key == "length") {
      QRT_ASSIGN_OR_RETURN(length, ParseByteCount(key, entry.value()));
    }
    // Other keys ("checksum", future ones) do not affect how the bytes are read.
  }
  if (!have_location) return InvalidArgument("external_data has no 'location'");
  QRT_ASSIGN_OR_RETURN(std::string path, ResolveExternalPath(location, model_dir));

  const int64_t want = int64_t(t->nbytes());
  if (length >= 0 && length != want) {
    return InvalidArgument("external_data length ", length, " != ", want, " bytes expected for shape ",
                           DimsToString(t->dims()), " of ", DataTypeName(t->dtype()));
  }
  int64_t file_size = 0;
  QRT_ASSIGN_OR_RETURN(FilePtr f, OpenRegularFile(path, &file_size));
  if (offset > file_size || want > file_size - offset) {
    return InvalidArgument("external_data [", offset, ", ", offset, " + ", want, ") is out of bounds of '", path, "' (",
                           file_size, " bytes)");
  }
  if (want == 0) return Status::Ok();
  if (fseeko(f.get(), off_t(offset), SEEK_SET) != 0 || std::fread(t->raw(), 1, size_t(want), f.get()) != size_t(want)) {
    return IoError("short read from '", path, "'");
  }
  return Status::Ok();
}

// Range of values int32_data may hold for `dtype`. 16-bit floats carry their bit
// pattern; writers disagree on whether it is sign-extended, so accept both views.
bool Int32DataRange(DataType dtype, int64_t* lo, int64_t* hi) {
  switch (dtype) {
    case DataType::kInt32:
      *lo = INT32_MIN;
      *hi = INT32_MAX;
      return true;
    case DataType::kInt16:
      *lo = INT16_MIN;
      *hi = INT16_MAX;
      return true;
    case DataType::kUInt16:
      *lo = 0;
      *hi = UINT16_MAX;
      return true;
    case DataType::kInt8:
      *lo = INT8_MIN;
      *hi = INT8_MAX;
      return true;
    case DataType::kUInt8:
      *lo = 0;
      *hi = UINT8_MAX;
      return true;
    case DataType::kBool:
      *lo = 0;
      *hi = 1;
      return true;
    case DataType::kFloat16:
    case DataType::kBFloat16:
      *lo = INT16_MIN;
      *hi = UINT16_MAX;
      return true;
    case DataType::kFloat8E4M3FN:  // the code, one per entry
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      *lo = 0;
      *hi = UINT8_MAX;
      return true;
    default:
      return false;
  }
}

Status CopyInt32Data(const onnx::TensorProto& proto, Tensor* t) {
  int64_t lo = 0, hi = 0;
  Int32DataRange(t->dtype(), &lo, &hi);
  const int n = proto.int32_data_size();
  for (int i = 0; i < n; ++i) {
    const int32_t v = proto.int32_data(i);
    if (v < lo || v > hi) {
      return InvalidArgument("int32_data[", i, "] = ", v, " is out of range for ", DataTypeName(t->dtype()));
    }
    switch (DataTypeSize(t->dtype())) {
      case 1:
        t->data<uint8_t>()[i] = uint8_t(v);
        break;
      case 2:
        t->data<uint16_t>()[i] = uint16_t(v);
        break;
      default:
        t->data<int32_t>()[i] = v;
        break;
    }
  }
  return Status::Ok();
}

// Where a TensorProto keeps its elements; onnx.proto allows exactly one.
enum class Storage : uint8_t { kNone, kExternal, kRaw, kFloat, kInt32, kString, kInt64, kDouble, kUInt64 };

std::string_view StorageName(Storage s) {
  switch (s) {
    case Storage::kNone:
      return "no data field";
    case Storage::kExternal:
      return "external_data";
    case Storage::kRaw:
      return "raw_data";
    case Storage::kFloat:
      return "float_data";
    case Storage::kInt32:
      return "int32_data";
    case Storage::kString:
      return "string_data";
    case Storage::kInt64:
      return "int64_data";
    case Storage::kDouble:
      return "double_data";
    case Storage::kUInt64:
      return "uint64_data";
  }
  return "?";
}

StatusOr<Storage> FindStorage(const onnx::TensorProto& proto) {
  std::vector<Storage> found;
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) found.push_back(Storage::kExternal);
  if (proto.has_raw_data()) found.push_back(Storage::kRaw);
  if (proto.float_data_size()) found.push_back(Storage::kFloat);
  if (proto.int32_data_size()) found.push_back(Storage::kInt32);
  if (proto.string_data_size()) found.push_back(Storage::kString);
  if (proto.int64_data_size()) found.push_back(Storage::kInt64);
  if (proto.double_data_size()) found.push_back(Storage::kDouble);
  if (proto.uint64_data_size()) found.push_back(Storage::kUInt64);
  if (proto.external_data_size() && proto.data_location() != onnx::TensorProto::EXTERNAL) {
    return InvalidArgument("external_data is set but data_location is not EXTERNAL");
  }
  if (found.size() > 1) {
    return InvalidArgument("data stored in both ", StorageName(found[0]), " and ", StorageName(found[1]));
  }
  return found.empty() ? Storage::kNone : found[0];
}

// Number of values in a typed field, or -1 if onnx.proto does not let that field
// hold `dtype` (string_data holds no dtype qrt supports; uint64_data holds uint32 and uint64).
int64_t TypedFieldCount(const onnx::TensorProto& proto, Storage s, DataType dtype) {
  int64_t lo, hi;
  switch (s) {
    case Storage::kFloat:
      return dtype == DataType::kFloat32 ? proto.float_data_size() : -1;
    case Storage::kInt32:
      return Int32DataRange(dtype, &lo, &hi) ? proto.int32_data_size() : -1;
    case Storage::kInt64:
      return dtype == DataType::kInt64 ? proto.int64_data_size() : -1;
    case Storage::kDouble:
      return dtype == DataType::kFloat64 ? proto.double_data_size() : -1;
    case Storage::kUInt64:
      return dtype == DataType::kUInt64 || dtype == DataType::kUInt32 ? proto.uint64_data_size() : -1;
    default:
      return -1;
  }
}

// int4 / uint4: files pack two per byte, the first in the low nibble (raw_data and external
// data as bytes, int32_data as one byte per entry); qrt keeps one per byte, sign-extended.
StatusOr<Tensor> FourBitFromProto(const onnx::TensorProto& proto, const std::string& model_dir, DataType dtype) {
  Dims dims(proto.dims().begin(), proto.dims().end());
  QRT_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(dims, 1));
  const int64_t packed = (count + 1) / 2;
  QRT_ASSIGN_OR_RETURN(Storage storage, FindStorage(proto));
  QRT_ASSIGN_OR_RETURN(Tensor bytes, Tensor::Allocate(DataType::kUInt8, {packed}));
  switch (storage) {
    case Storage::kNone:
      if (count != 0) return InvalidArgument("no data for ", count, " elements");
      break;
    case Storage::kRaw:
      if (int64_t(proto.raw_data().size()) != packed) {
        return InvalidArgument("raw_data has ", proto.raw_data().size(), " bytes, expected ", packed, " for ", count,
                               " packed 4-bit values");
      }
      if (packed) std::memcpy(bytes.raw(), proto.raw_data().data(), size_t(packed));
      break;
    case Storage::kExternal:
      QRT_RETURN_IF_ERROR(ReadExternal(proto, model_dir, &bytes));
      break;
    case Storage::kInt32:
      if (proto.int32_data_size() != packed) {
        return InvalidArgument("int32_data has ", proto.int32_data_size(), " values, expected ", packed, " for ", count,
                               " packed 4-bit values");
      }
      for (int64_t i = 0; i < packed; ++i) {
        const int32_t v = proto.int32_data(int(i));
        if (v < 0 || v > 255) return InvalidArgument("int32_data[", i, "] = ", v, " is not a byte of two 4-bit values");
        bytes.data<uint8_t>()[i] = uint8_t(v);
      }
      break;
    default:
      return InvalidArgument(StorageName(storage), " cannot hold ", DataTypeName(dtype));
  }
  QRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, dims));
  const uint8_t* in = bytes.data<uint8_t>();
  uint8_t* out = t.data<uint8_t>();
  for (int64_t i = 0; i < count; ++i) {
    const int nibble = (in[i / 2] >> (4 * (i % 2))) & 0xF;
    out[i] = uint8_t(dtype == DataType::kInt4 ? (nibble ^ 8) - 8 : nibble);
  }
  return t;
}

StatusOr<Tensor> TensorFromProtoImpl(const onnx::TensorProto& proto, const std::string& model_dir) {
  if (proto.has_segment()) return Unsupported("segmented tensors (TensorProto.segment) are not supported");
  if (proto.data_type() == 0) return InvalidArgument("data_type is UNDEFINED or missing");
  const std::optional<DataType> maybe_dtype = DataTypeFromOnnx(proto.data_type());
  if (!maybe_dtype) return Unsupported("data type ", OnnxTypeName(proto.data_type()), " is not supported");
  const DataType dtype = *maybe_dtype;
  if (Is4BitType(dtype)) return FourBitFromProto(proto, model_dir, dtype);

  Dims dims(proto.dims().begin(), proto.dims().end());
  // Size checks come before any allocation, so a hostile shape cannot exhaust memory.
  QRT_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(dims, DataTypeSize(dtype)));
  QRT_ASSIGN_OR_RETURN(Storage storage, FindStorage(proto));
  const size_t want_bytes = size_t(count) * DataTypeSize(dtype);
  const std::string shape_desc = StrCat("shape ", DimsToString(dims), " of ", DataTypeName(dtype));

  switch (storage) {
    case Storage::kNone:
      if (count != 0) return InvalidArgument("no data for ", count, " elements (", shape_desc, ")");
      break;
    case Storage::kRaw:
      if (proto.raw_data().size() != want_bytes) {
        return InvalidArgument("raw_data has ", proto.raw_data().size(), " bytes, expected ", want_bytes, " for ",
                               shape_desc);
      }
      break;
    case Storage::kExternal:
      break;  // checked against the file in ReadExternal
    default: {
      const int64_t n = TypedFieldCount(proto, storage, dtype);
      if (n < 0) return InvalidArgument(StorageName(storage), " cannot hold ", DataTypeName(dtype));
      if (n != count) {
        return InvalidArgument(StorageName(storage), " has ", n, " values, expected ", count, " for ", shape_desc);
      }
    }
  }

  QRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, dims));
  if (want_bytes != 0) {
    switch (storage) {
      case Storage::kRaw:
        std::memcpy(t.raw(), proto.raw_data().data(), want_bytes);
        break;
      case Storage::kExternal:
        QRT_RETURN_IF_ERROR(ReadExternal(proto, model_dir, &t));
        break;
      case Storage::kInt32:
        QRT_RETURN_IF_ERROR(CopyInt32Data(proto, &t));
        break;
      case Storage::kFloat:
        std::memcpy(t.raw(), proto.float_data().data(), want_bytes);
        break;
      case Storage::kInt64:
        std::memcpy(t.raw(), proto.int64_data().data(), want_bytes);
        break;
      case Storage::kDouble:
        std::memcpy(t.raw(), proto.double_data().data(), want_bytes);
        break;
      case Storage::kUInt64:
        for (int64_t i = 0; i < count; ++i) {
          const uint64_t v = proto.uint64_data(int(i));
          if (dtype == DataType::kUInt64) {
            t.data<uint64_t>()[i] = v;
          } else if (v > UINT32_MAX) {
            return InvalidArgument("uint64_data element ", i, " = ", v, " is out of range for uint32");
          } else {
            t.data<uint32_t>()[i] = uint32_t(v);
          }
        }
        break;
      default:
        return Internal("unhandled storage ", StorageName(storage));
    }
  } else if (storage == Storage::kExternal) {
    QRT_RETURN_IF_ERROR(ReadExternal(proto, model_dir, &t));  // still validates location and bounds
  }

  // Bools in raw or external data are bytes; anything but 0/1 would be a third truth value.
  if (dtype == DataType::kBool) {
    const uint8_t* b = t.data<uint8_t>();
    for (int64_t i = 0; i < count; ++i) {
      if (b[i] > 1) return InvalidArgument("bool element ", i, " has byte value ", int(b[i]));
    }
  }
  return t;
}

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return "";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto, const std::string& model_dir) {
  StatusOr<Tensor> t = TensorFromProtoImpl(proto, model_dir);
  if (!t.ok()) {
    return t.status().WithContext(proto.name().empty() ? "tensor" : StrCat("tensor '", proto.name(), "'"));
  }
  return t;
}

onnx::TensorProto TensorToProto(const Tensor& t, const std::string& name) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(OnnxCodeFromDataType(t.dtype()));
  for (int64_t d : t.dims()) proto.add_dims(d);
  if (Is4BitType(t.dtype())) {  // two per byte, the first in the low nibble
    std::string packed(size_t((t.numel() + 1) / 2), '\0');
    for (int64_t i = 0; i < t.numel(); ++i) {
      packed[size_t(i / 2)] = char(uint8_t(packed[size_t(i / 2)]) | (t.data<uint8_t>()[i] & 0xF) << (4 * (i % 2)));
    }
    proto.set_raw_data(packed);
    return proto;
  }
  // Always set raw_data, even when empty, so the storage form is explicit.
  proto.set_raw_data(t.raw() ? std::string(static_cast<const char*>(t.raw()), t.nbytes()) : std::string());
  return proto;
}

namespace {

// A file's bytes, for a message of at most 2 GiB.
StatusOr<std::string> ReadMessageBytes(const std::string& path) {
  int64_t size = 0;
  StatusOr<FilePtr> f = OpenRegularFile(path, &size);
  if (!f.ok()) return f.status();
  // A protobuf message cannot exceed 2 GiB; refuse before reading anything.
  if (size > INT_MAX) return ResourceExhausted(path, ": ", size, " bytes exceeds the 2 GiB protobuf limit");
  std::string bytes(size_t(size), '\0');
  if (size && std::fread(bytes.data(), 1, bytes.size(), f->get()) != bytes.size()) {
    return IoError(path, ": short read");
  }
  return bytes;
}

constexpr int kSequenceOfTensors = 1;   // SequenceProto / OptionalProto DataType TENSOR
constexpr int kOptionalOfSequence = 3;  // OptionalProto DataType SEQUENCE

StatusOr<std::shared_ptr<const Sequence>> SequenceFromProto(const onnx::SequenceProto& proto, const std::string& dir) {
  if (proto.elem_type() != kSequenceOfTensors) {
    return Unsupported("a sequence of element type ", proto.elem_type(), " (only sequences of tensors)");
  }
  auto sequence = std::make_shared<Sequence>();
  for (const onnx::TensorProto& item : proto.tensor_values()) {
    QRT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(item, dir));
    if (sequence->items.empty()) sequence->dtype = t.dtype();
    if (t.dtype() != sequence->dtype) return InvalidArgument("the sequence's items have different element types");
    sequence->items.push_back(std::move(t));
  }
  return std::shared_ptr<const Sequence>(std::move(sequence));
}

}  // namespace

StatusOr<Tensor> ReadTensorProtoFile(const std::string& path, std::string* name) {
  QRT_ASSIGN_OR_RETURN(std::string bytes, ReadMessageBytes(path));
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(bytes.data(), int(bytes.size()))) {
    return InvalidArgument(path, ": not a valid TensorProto (truncated or corrupt file)");
  }
  StatusOr<Tensor> t = TensorFromProto(proto, DirName(path));
  if (!t.ok()) return t.status().WithContext(path);
  if (name) *name = proto.name();
  return t;
}

StatusOr<RunValue> ReadValueProtoFile(const std::string& path, DeclaredKind kind, DataType dtype) {
  if (kind == DeclaredKind::kTensor) {
    QRT_ASSIGN_OR_RETURN(Tensor t, ReadTensorProtoFile(path));
    return RunValue::Of(std::move(t));
  }
  QRT_ASSIGN_OR_RETURN(std::string bytes, ReadMessageBytes(path));
  RunValue value;
  if (kind == DeclaredKind::kSequence) {
    onnx::SequenceProto proto;
    if (!proto.ParseFromArray(bytes.data(), int(bytes.size()))) {
      return InvalidArgument(path, ": not a valid SequenceProto (truncated or corrupt file)");
    }
    StatusOr<std::shared_ptr<const Sequence>> s = SequenceFromProto(proto, DirName(path));
    if (!s.ok()) return s.status().WithContext(path);
    value = RunValue::Of(std::move(s).value());
  } else {
    onnx::OptionalProto proto;
    if (!proto.ParseFromArray(bytes.data(), int(bytes.size()))) {
      return InvalidArgument(path, ": not a valid OptionalProto (truncated or corrupt file)");
    }
    if (proto.has_tensor_value()) {
      StatusOr<Tensor> t = TensorFromProto(proto.tensor_value(), DirName(path));
      if (!t.ok()) return t.status().WithContext(path);
      value = RunValue::Of(std::move(t).value());
    } else if (proto.has_sequence_value() || proto.elem_type() == kOptionalOfSequence) {
      if (!proto.has_sequence_value()) return RunValue::None();
      StatusOr<std::shared_ptr<const Sequence>> s = SequenceFromProto(proto.sequence_value(), DirName(path));
      if (!s.ok()) return s.status().WithContext(path);
      value = RunValue::Of(std::move(s).value());
    } else {
      return RunValue::None();
    }
  }
  // An empty sequence says no element type: the model's declaration does.
  if (value.kind == ValueKind::kSequence && value.sequence->items.empty() && dtype != DataType::kUndefined) {
    auto typed = std::make_shared<Sequence>(*value.sequence);
    typed->dtype = dtype;
    value.sequence = std::move(typed);
  }
  return value;
}

Status WriteTensorProtoFile(const std::string& path, const Tensor& t, const std::string& name) {
  if (t.dtype() == DataType::kUndefined) return InvalidArgument(path, ": cannot write a tensor of undefined dtype");
  if (t.raw() == nullptr && t.nbytes() != 0) return InvalidArgument(path, ": tensor has no data");
  if (t.nbytes() + name.size() + 1024 > size_t(INT_MAX)) {
    return ResourceExhausted(path, ": tensor of ", t.nbytes(), " bytes exceeds the 2 GiB protobuf limit");
  }
  const std::string bytes = TensorToProto(t, name).SerializeAsString();
  FilePtr f(std::fopen(path.c_str(), "wb"));
  if (!f) return IoError(path, ": cannot open for writing: ", std::strerror(errno));
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size()) {
    return IoError(path, ": write failed: ", std::strerror(errno));
  }
  if (std::fclose(f.release()) != 0) return IoError(path, ": close failed: ", std::strerror(errno));
  return Status::Ok();
}

}  // namespace qrt
