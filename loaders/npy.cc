#include "loaders/npy.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace qrt {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy I/O assumes a little-endian host");

constexpr char kMagic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};
// numpy itself refuses headers over 10000 bytes by default; a rank-16 shape needs
// well under 1 KiB, so this only bounds what a hostile file can make us parse.
constexpr size_t kMaxHeaderLen = size_t(1) << 16;
constexpr size_t kMaxPreambleLen = 12;  // magic + version + 4-byte header length

struct NpyHeader {
  DataType dtype = DataType::kUndefined;
  Dims dims;
  bool big_endian = false;
  size_t data_offset = 0;
};

struct DescrEntry {
  std::string_view code;  // descr without its byte-order character
  DataType dtype;
};
constexpr DescrEntry kDescrs[] = {
    {"f2", DataType::kFloat16}, {"f4", DataType::kFloat32}, {"f8", DataType::kFloat64}, {"i1", DataType::kInt8},
    {"u1", DataType::kUInt8},   {"i2", DataType::kInt16},   {"u2", DataType::kUInt16},  {"i4", DataType::kInt32},
    {"i8", DataType::kInt64},   {"b1", DataType::kBool},    {"?", DataType::kBool},     {"u4", DataType::kUInt32},
    {"u8", DataType::kUInt64},
};

// Maps a descr string such as "<f4" to a dtype and byte order.
Status ParseDescr(const std::string& descr, NpyHeader* h) {
  if (descr.size() >= 2) {
    const char order = descr[0];
    const std::string_view code = std::string_view(descr).substr(1);
    for (const DescrEntry& e : kDescrs) {
      if (e.code != code) continue;
      const bool single_byte = DataTypeSize(e.dtype) == 1;
      // '|' (not applicable) and '=' (native) are only unambiguous for 1-byte types.
      if (order == '<' || order == '>' || (single_byte && (order == '|' || order == '='))) {
        h->dtype = e.dtype;
        h->big_endian = order == '>' && !single_byte;
        return Status::Ok();
      }
      break;
    }
  }
  return Unsupported("npy dtype '", descr, "' is not supported");
}

// Recursive-descent parser for the header's Python dict literal, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  Status Parse(NpyHeader* h) {
    bool have_descr = false, have_order = false, have_shape = false;
    std::string descr;
    bool fortran = false;
    SkipSpace();
    QRT_RETURN_IF_ERROR(Expect('{'));
    while (true) {
      SkipSpace();
      if (Peek() == '}') break;
      std::string key;
      QRT_RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      QRT_RETURN_IF_ERROR(Expect(':'));
      SkipSpace();
      if (key == "descr") {
        if (have_descr) return Error("duplicate key 'descr'");
        if (Peek() == '[') return Unsupported("npy structured dtypes are not supported");
        QRT_RETURN_IF_ERROR(ParseString(&descr));
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_order) return Error("duplicate key 'fortran_order'");
        QRT_RETURN_IF_ERROR(ParseBool(&fortran));
        have_order = true;
      } else if (key == "shape") {
        if (have_shape) return Error("duplicate key 'shape'");
        QRT_RETURN_IF_ERROR(ParseShape(&h->dims));
        have_shape = true;
      } else {
        return Error(StrCat("unexpected key '", key, "'"));
      }
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() != '}') return Error("expected ',' or '}'");
    }
    ++pos_;  // '}'
    SkipSpace();
    if (pos_ != s_.size()) return Error("trailing characters after the dict");
    if (!have_descr || !have_order || !have_shape) {
      return Error("header must have the keys 'descr', 'fortran_order' and 'shape'");
    }
    QRT_RETURN_IF_ERROR(ParseDescr(descr, h));
    if (fortran) return Unsupported("Fortran order is not supported");
    return Status::Ok();
  }

 private:
  char Peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }

  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }

  Status Error(std::string_view what) const { return InvalidArgument("bad npy header at offset ", pos_, ": ", what); }

  Status Expect(char c) {
    if (Peek() != c) return Error(StrCat("expected '", c, "'"));
    ++pos_;
    return Status::Ok();
  }

  // A quoted string without escapes (numpy never writes any in these fields).
  Status ParseString(std::string* out) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Error("expected a quoted string");
    const size_t end = s_.find(quote, pos_ + 1);
    if (end == std::string_view::npos) return Error("unterminated string");
    std::string_view body = s_.substr(pos_ + 1, end - pos_ - 1);
    if (body.find('\\') != std::string_view::npos) return Error("escapes in strings are not supported");
    *out = std::string(body);
    pos_ = end + 1;
    return Status::Ok();
  }

  Status ParseBool(bool* out) {
    if (s_.substr(pos_, 4) == "True") {
      *out = true;
      pos_ += 4;
    } else if (s_.substr(pos_, 5) == "False") {
      *out = false;
      pos_ += 5;
    } else {
      return Error("expected True or False");
    }
    return Status::Ok();
  }

  // A tuple of non-negative ints: (), (5,), (2, 3). Python 2 files may write 3L.
  Status ParseShape(Dims* dims) {
    QRT_RETURN_IF_ERROR(Expect('('));
    dims->clear();
    while (true) {
      SkipSpace();
      if (Peek() == ')') break;
      if (int64_t(dims->size()) >= kMaxRank) {
        return ResourceExhausted("npy shape has more than ", kMaxRank, " dimensions");
      }
      int64_t v = 0;
      QRT_RETURN_IF_ERROR(ParseInt(&v));
      dims->push_back(v);
      SkipSpace();
      if (Peek() == ',') {
        ++pos_;
        continue;
      }
      if (Peek() != ')') return Error("expected ',' or ')' in shape");
    }
    ++pos_;  // ')'
    return Status::Ok();
  }

  Status ParseInt(int64_t* out) {
    if (Peek() < '0' || Peek() > '9') return Error("expected a non-negative integer");
    int64_t v = 0;
    while (Peek() >= '0' && Peek() <= '9') {
      const int digit = Peek() - '0';
      if (v > (INT64_MAX - digit) / 10) return Error("integer overflow in shape");
      v = v * 10 + digit;
      ++pos_;
    }
    if (Peek() == 'L') ++pos_;
    *out = v;
    return Status::Ok();
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// Parses magic, version and header from the first `size` bytes of a file.
StatusOr<NpyHeader> ParseHeader(const uint8_t* p, size_t size) {
  if (size < sizeof(kMagic) || std::memcmp(p, kMagic, sizeof(kMagic)) != 0) {
    return InvalidArgument("not an npy file (bad magic)");
  }
  if (size < 8) return InvalidArgument("truncated npy preamble");
  const int major = p[6], minor = p[7];
  size_t preamble = 0, header_len = 0;
  if (major == 1 && minor == 0) {
    preamble = 10;
    if (size < preamble) return InvalidArgument("truncated npy preamble");
    header_len = size_t(p[8]) | size_t(p[9]) << 8;
  } else if ((major == 2 || major == 3) && minor == 0) {
    preamble = 12;
    if (size < preamble) return InvalidArgument("truncated npy preamble");
    header_len = size_t(p[8]) | size_t(p[9]) << 8 | size_t(p[10]) << 16 | size_t(p[11]) << 24;
  } else {
    return Unsupported("npy format version ", major, ".", minor, " is not supported");
  }
  if (header_len > kMaxHeaderLen) {
    return ResourceExhausted("npy header of ", header_len, " bytes exceeds the limit of ", kMaxHeaderLen);
  }
  if (size - preamble < header_len) {
    return InvalidArgument("truncated npy header: ", header_len, " bytes declared, ", size - preamble, " present");
  }
  NpyHeader h;
  const std::string_view text(reinterpret_cast<const char*>(p + preamble), header_len);
  QRT_RETURN_IF_ERROR(HeaderParser(text).Parse(&h));
  h.data_offset = preamble + header_len;
  return h;
}

// Checks the payload size, then allocates the tensor the header describes.
StatusOr<Tensor> AllocateFor(const NpyHeader& h, size_t payload_bytes) {
  const size_t elem = DataTypeSize(h.dtype);
  QRT_ASSIGN_OR_RETURN(int64_t n, CheckedElementCount(h.dims, elem));
  const size_t want = size_t(n) * elem;
  if (payload_bytes != want) {
    return InvalidArgument("npy data has ", payload_bytes, " bytes, expected ", want, " for shape ",
                           DimsToString(h.dims), " of ", DataTypeName(h.dtype));
  }
  return Tensor::Allocate(h.dtype, h.dims);
}

// Converts big-endian payloads in place and rejects bool bytes other than 0 and 1,
// which kernels would otherwise see as a third truth value.
Status FixUpData(const NpyHeader& h, Tensor* t) {
  const size_t elem = DataTypeSize(h.dtype);
  uint8_t* b = static_cast<uint8_t*>(t->raw());
  const size_t n = t->nbytes();
  if (h.big_endian) {
    for (size_t i = 0; i < n; i += elem) std::reverse(b + i, b + i + elem);
  }
  if (h.dtype == DataType::kBool) {
    for (size_t i = 0; i < n; ++i) {
      if (b[i] > 1) return InvalidArgument("bool element ", i, " has byte value ", int(b[i]));
    }
  }
  return Status::Ok();
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

StatusOr<Tensor> ReadNpyImpl(const std::string& path) {
  FilePtr f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    if (errno == ENOENT) return NotFound("no such file");
    return IoError("cannot open: ", std::strerror(errno));
  }
  struct stat st;
  if (fstat(fileno(f.get()), &st) != 0) return IoError("cannot stat: ", std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return InvalidArgument("not a regular file");
  const size_t file_size = size_t(st.st_size);

  // The header is bounded, so read at most its maximum and parse from that.
  std::vector<uint8_t> head(std::min(file_size, kMaxPreambleLen + kMaxHeaderLen));
  if (std::fread(head.data(), 1, head.size(), f.get()) != head.size()) {
    return IoError("short read");
  }
  QRT_ASSIGN_OR_RETURN(NpyHeader h, ParseHeader(head.data(), head.size()));
  QRT_ASSIGN_OR_RETURN(Tensor t, AllocateFor(h, file_size - h.data_offset));
  if (t.nbytes() > 0) {
    if (std::fseek(f.get(), long(h.data_offset), SEEK_SET) != 0 ||
        std::fread(t.raw(), 1, t.nbytes(), f.get()) != t.nbytes()) {
      return IoError("short read");
    }
  }
  QRT_RETURN_IF_ERROR(FixUpData(h, &t));
  return t;
}

StatusOr<Tensor> ParseNpyImpl(const void* data, size_t size) {
  if (data == nullptr && size != 0) return InvalidArgument("null buffer");
  const uint8_t* p = static_cast<const uint8_t*>(data);
  QRT_ASSIGN_OR_RETURN(NpyHeader h, ParseHeader(p, size));
  QRT_ASSIGN_OR_RETURN(Tensor t, AllocateFor(h, size - h.data_offset));
  if (t.nbytes() > 0) std::memcpy(t.raw(), p + h.data_offset, t.nbytes());
  QRT_RETURN_IF_ERROR(FixUpData(h, &t));
  return t;
}

StatusOr<std::string> DescrFor(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
      return std::string("<f4");
    case DataType::kFloat16:
      return std::string("<f2");
    case DataType::kFloat64:
      return std::string("<f8");
    case DataType::kInt8:
      return std::string("|i1");
    case DataType::kUInt8:
      return std::string("|u1");
    case DataType::kInt16:
      return std::string("<i2");
    case DataType::kUInt16:
      return std::string("<u2");
    case DataType::kInt32:
      return std::string("<i4");
    case DataType::kInt64:
      return std::string("<i8");
    case DataType::kBool:
      return std::string("|b1");
    case DataType::kUInt32:
      return std::string("<u4");
    case DataType::kUInt64:
      return std::string("<u8");
    case DataType::kBFloat16:
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return Unsupported(DataTypeName(dtype), " has no numpy dtype; cannot write npy");
    case DataType::kUndefined:
      break;
  }
  return InvalidArgument("cannot write a tensor of undefined dtype");
}

// Same preamble + dict + padding layout numpy writes, so numpy reads it back.
StatusOr<std::string> MakeHeader(const Tensor& t) {
  QRT_ASSIGN_OR_RETURN(std::string descr, DescrFor(t.dtype()));
  std::string shape = "(";
  for (size_t i = 0; i < t.dims().size(); ++i) {
    if (i) shape += ", ";
    shape += std::to_string(t.dims()[i]);
  }
  if (t.dims().size() == 1) shape += ",";
  shape += ")";
  std::string dict = StrCat("{'descr': '", descr, "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Pad with spaces and end with '\n' so the data starts 64-byte aligned. With
  // rank <= kMaxRank the header is far below 64 KiB, so version 1.0 always fits.
  const size_t unpadded = 10 + dict.size() + 1;
  const std::string body = dict + std::string((64 - unpadded % 64) % 64, ' ') + "\n";
  std::string out(kMagic, sizeof(kMagic));
  out += '\x01';
  out += '\x00';
  out += char(body.size() & 0xff);
  out += char(body.size() >> 8);
  return out + body;
}

Status WriteNpyImpl(const std::string& path, const Tensor& t) {
  QRT_ASSIGN_OR_RETURN(std::string header, MakeHeader(t));
  if (t.raw() == nullptr && t.nbytes() != 0) return InvalidArgument("tensor has no data");
  FilePtr f(std::fopen(path.c_str(), "wb"));
  if (!f) return IoError("cannot open for writing: ", std::strerror(errno));
  if (std::fwrite(header.data(), 1, header.size(), f.get()) != header.size() ||
      (t.nbytes() && std::fwrite(t.raw(), 1, t.nbytes(), f.get()) != t.nbytes())) {
    return IoError("write failed: ", std::strerror(errno));
  }
  if (std::fclose(f.release()) != 0) return IoError("close failed: ", std::strerror(errno));
  return Status::Ok();
}

}  // namespace

StatusOr<Tensor> ReadNpy(const std::string& path) {
  StatusOr<Tensor> t = ReadNpyImpl(path);
  if (!t.ok()) return t.status().WithContext(path);
  return t;
}

StatusOr<Tensor> ParseNpy(const void* data, size_t size, const std::string& what) {
  StatusOr<Tensor> t = ParseNpyImpl(data, size);
  if (!t.ok()) return t.status().WithContext(what);
  return t;
}

Status WriteNpy(const std::string& path, const Tensor& t) { return WriteNpyImpl(path, t).WithContext(path); }

}  // namespace qrt
