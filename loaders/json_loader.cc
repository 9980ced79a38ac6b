#include "loaders/json_loader.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

#include "loaders/base64.h"
#include "loaders/model_builder.h"
#include "loaders/onnx_loader.h"
#include "runtime/float8.h"
#include "runtime/half.h"

namespace qrt {
namespace {

using json = nlohmann::json;

constexpr int64_t kMaxJsonBytes = int64_t(1) << 31;
// Arrays and objects nested deeper than this are refused while parsing. A graph nested
// kMaxSubgraphDepth times needs about 6 levels per subgraph; nothing else goes deep.
constexpr int kMaxJsonDepth = 128;
constexpr size_t kMaxJsonValues = size_t(1) << 24;

Status Bad(const std::string& where, const std::string& what) { return InvalidArgument(where, ": ", what); }

StatusOr<std::string> GetString(const json& obj, const char* key, const std::string& where, bool required = true) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) return Bad(where, StrCat("missing \"", key, "\""));
    return std::string();
  }
  if (!it->is_string()) return Bad(where, StrCat("\"", key, "\" must be a string"));
  return it->get<std::string>();
}

StatusOr<DataType> ParseDType(const json& j, const std::string& where) {
  if (!j.is_string()) return Bad(where, "\"dtype\" must be a string");
  std::optional<DataType> t = ParseDataType(j.get<std::string>());
  if (!t) return Unsupported(where, ": unknown dtype '", j.get<std::string>(), "'");
  return *t;
}

StatusOr<Shape> ParseShape(const json& j, const std::string& where) {
  if (!j.is_array()) return Bad(where, "\"shape\" must be an array");
  if (int64_t(j.size()) > kMaxRank) return ResourceExhausted(where, ": rank ", j.size(), " exceeds ", kMaxRank);
  Shape s;
  for (const json& d : j) {
    if (d.is_number_integer()) {
      int64_t v = d.get<int64_t>();
      if (v < -1) return Bad(where, StrCat("invalid dimension ", v));
      s.push_back(v == -1 ? Dim::Symbolic("") : Dim::Static(v));
    } else if (d.is_string()) {
      s.push_back(Dim::Symbolic(d.get<std::string>()));
    } else {
      return Bad(where, "a dimension must be an integer or a string");
    }
  }
  return s;
}

// One JSON element into the tensor's storage at index i.
Status StoreElement(Tensor& t, int64_t i, const json& e, const std::string& where) {
  double d = 0;
  bool is_float = false;
  int64_t iv = 0;
  if (e.is_boolean()) {
    iv = e.get<bool>() ? 1 : 0;
  } else if (e.is_number_integer()) {
    if (e.is_number_unsigned() && e.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
      return Bad(where, StrCat("element ", i, " is out of range"));
    }
    iv = e.get<int64_t>();
  } else if (e.is_number_float()) {
    d = e.get<double>();
    is_float = true;
  } else if (e.is_string()) {
    const std::string s = e.get<std::string>();
    if (s == "nan")
      d = std::numeric_limits<double>::quiet_NaN();
    else if (s == "inf")
      d = std::numeric_limits<double>::infinity();
    else if (s == "-inf")
      d = -std::numeric_limits<double>::infinity();
    else
      return Bad(where, StrCat("element ", i, ": unknown string '", s, "' (use \"nan\", \"inf\" or \"-inf\")"));
    is_float = true;
  } else {
    return Bad(where, StrCat("element ", i, " is not a number"));
  }
  const DataType dt = t.dtype();
  if (IsFloat8Type(dt)) {  // the value, rounded to the type (saturating)
    t.data<uint8_t>()[i] = FloatToFloat8(dt, float(is_float ? d : double(iv)), true);
    return Status::Ok();
  }
  if (IsFloatType(dt)) {
    const double v = is_float ? d : double(iv);
    switch (dt) {
      case DataType::kFloat32:
        t.data<float>()[i] = float(v);
        break;
      case DataType::kFloat64:
        t.data<double>()[i] = v;
        break;
      case DataType::kFloat16:
        t.data<uint16_t>()[i] = FloatToHalf(float(v));
        break;
      default:
        t.data<uint16_t>()[i] = FloatToBFloat16(float(v));
        break;
    }
    return Status::Ok();
  }
  if (is_float) {
    if (!(d == std::floor(d)) || std::fabs(d) > 9.2e18) {
      return Bad(where, StrCat("element ", i, " (", d, ") is not an integer"));
    }
    iv = int64_t(d);
  }
  int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  switch (dt) {
    case DataType::kInt8:
      lo = -128;
      hi = 127;
      break;
    case DataType::kUInt8:
      lo = 0;
      hi = 255;
      break;
    case DataType::kInt4:
      lo = -8;
      hi = 7;
      break;
    case DataType::kUInt4:
      lo = 0;
      hi = 15;
      break;
    case DataType::kInt16:
      lo = -32768;
      hi = 32767;
      break;
    case DataType::kUInt16:
      lo = 0;
      hi = 65535;
      break;
    case DataType::kInt32:
      lo = std::numeric_limits<int32_t>::min();
      hi = std::numeric_limits<int32_t>::max();
      break;
    case DataType::kUInt32:
      lo = 0;
      hi = std::numeric_limits<uint32_t>::max();
      break;
    case DataType::kUInt64:  // JSON integers up to INT64_MAX
      lo = 0;
      break;
    case DataType::kBool:
      lo = 0;
      hi = 1;
      break;
    default:
      break;
  }
  if (iv < lo || iv > hi) {
    return Bad(where, StrCat("element ", i, " = ", iv, " is out of range for ", DataTypeName(dt)));
  }
  switch (dt) {
    case DataType::kInt8:
    case DataType::kInt4:
      t.data<int8_t>()[i] = int8_t(iv);
      break;
    case DataType::kUInt8:
    case DataType::kUInt4:
    case DataType::kBool:
      t.data<uint8_t>()[i] = uint8_t(iv);
      break;
    case DataType::kInt16:
      t.data<int16_t>()[i] = int16_t(iv);
      break;
    case DataType::kUInt16:
      t.data<uint16_t>()[i] = uint16_t(iv);
      break;
    case DataType::kInt32:
      t.data<int32_t>()[i] = int32_t(iv);
      break;
    case DataType::kInt64:
      t.data<int64_t>()[i] = iv;
      break;
    case DataType::kUInt32:
      t.data<uint32_t>()[i] = uint32_t(iv);
      break;
    case DataType::kUInt64:
      t.data<uint64_t>()[i] = uint64_t(iv);
      break;
    default:
      break;
  }
  return Status::Ok();
}

bool SafeRelativePath(const std::string& p) {
  if (p.empty() || p[0] == '/') return false;
  std::stringstream ss(p);
  std::string part;
  while (std::getline(ss, part, '/')) {
    if (part == "..") return false;
  }
  return true;
}

StatusOr<Tensor> ParseTensor(const json& j, const std::string& where, const std::string& base_dir) {
  if (!j.is_object()) return Bad(where, "a tensor must be an object");
  auto dt_it = j.find("dtype");
  if (dt_it == j.end()) return Bad(where, "missing \"dtype\"");
  QRT_ASSIGN_OR_RETURN(DataType dtype, ParseDType(*dt_it, where));
  auto sh_it = j.find("shape");
  if (sh_it == j.end()) return Bad(where, "missing \"shape\"");
  QRT_ASSIGN_OR_RETURN(Shape shape, ParseShape(*sh_it, where));
  std::optional<Dims> dims = StaticDims(shape);
  if (!dims) return Bad(where, "a constant tensor's shape must be static");
  StatusOr<int64_t> count = CheckedElementCount(*dims, DataTypeSize(dtype));
  if (!count.ok()) return count.status().WithContext(where);
  const size_t bytes = size_t(*count) * DataTypeSize(dtype);
  const int sources = int(j.contains("data")) + int(j.contains("data_base64")) + int(j.contains("file"));
  if (sources != 1) return Bad(where, "needs exactly one of \"data\", \"data_base64\", \"file\"");
  if (j.contains("data")) {
    const json& data = j["data"];
    if (!data.is_array()) {
      // A lone number is accepted for a one-element tensor.
      if (*count != 1) return Bad(where, "\"data\" must be an array");
    } else if (int64_t(data.size()) != *count) {
      return Bad(where,
                 StrCat("\"data\" has ", data.size(), " elements; shape ", DimsToString(*dims), " needs ", *count));
    }
    QRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, *dims));
    for (int64_t i = 0; i < *count; ++i) {
      QRT_RETURN_IF_ERROR(StoreElement(t, i, data.is_array() ? data[size_t(i)] : data, where));
    }
    return t;
  }
  std::vector<uint8_t> raw;
  if (j.contains("data_base64")) {
    if (!j["data_base64"].is_string()) return Bad(where, "\"data_base64\" must be a string");
    const std::string& text = j["data_base64"].get_ref<const std::string&>();
    if (text.size() / 4 * 3 > bytes + 3) return Bad(where, "\"data_base64\" is longer than the shape needs");
    StatusOr<std::vector<uint8_t>> decoded = Base64Decode(text);
    if (!decoded.ok()) return decoded.status().WithContext(where);
    raw = std::move(decoded).value();
  } else {
    if (!j["file"].is_string()) return Bad(where, "\"file\" must be a string");
    const std::string rel = j["file"].get<std::string>();
    if (!SafeRelativePath(rel))
      return Bad(where, StrCat("file path '", rel, "' must be relative and stay in the model's folder"));
    if (base_dir.empty())
      return Bad(where, StrCat("file '", rel, "': a model loaded from memory cannot use data files"));
    const std::string path = base_dir + "/" + rel;
    std::ifstream f(path, std::ios::binary);
    if (!f) return NotFound(where, ": cannot open data file '", path, "'");
    f.seekg(0, std::ios::end);
    const std::streamoff len = f.tellg();
    if (len < 0 || size_t(len) != bytes) {
      return Bad(where,
                 StrCat("data file '", path, "' has ", len, " bytes; shape ", DimsToString(*dims), " needs ", bytes));
    }
    f.seekg(0);
    raw.resize(bytes);
    if (bytes && !f.read(reinterpret_cast<char*>(raw.data()), std::streamsize(bytes))) {
      return IoError(where, ": read of '", path, "' failed");
    }
  }
  if (raw.size() != bytes) {
    return Bad(where, StrCat("data has ", raw.size(), " bytes; shape ", DimsToString(*dims), " of ",
                             DataTypeName(dtype), " needs ", bytes));
  }
  QRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, *dims));
  if (bytes) std::memcpy(t.raw(), raw.data(), bytes);
  if (Is4BitType(dtype)) {  // one value per byte, in range
    const int lo = dtype == DataType::kInt4 ? -8 : 0, hi = dtype == DataType::kInt4 ? 7 : 15;
    for (size_t i = 0; i < bytes; ++i) {
      const int v = dtype == DataType::kInt4 ? int(int8_t(raw[i])) : int(raw[i]);
      if (v < lo || v > hi)
        return Bad(where, StrCat("element ", i, " = ", v, " is out of range for ", DataTypeName(dtype)));
    }
  }
  return t;
}

// "kind": what a graph input or output holds (a tensor when absent).
StatusOr<DeclaredKind> ParseKind(const json& j, const std::string& where) {
  if (!j.contains("kind")) return DeclaredKind::kTensor;
  const std::optional<DeclaredKind> kind =
      j["kind"].is_string() ? DeclaredKindFromName(j["kind"].get<std::string>()) : std::nullopt;
  if (!kind) return Bad(where, "\"kind\" must be \"tensor\", \"sequence\", \"optional\" or \"optional_sequence\"");
  return *kind;
}

StatusOr<Graph> ParseGraph(const json& root, const std::string& source, const std::string& base_dir,
                           std::map<std::string, int64_t> opsets, int depth);

// JSON has no NaN or infinity: as in tensor data, "nan", "inf" and "-inf" are floats
// (the writer spells non-finite float attributes this way).
std::optional<float> NonFiniteFloat(const json& v) {
  if (!v.is_string()) return std::nullopt;
  const std::string& s = v.get_ref<const std::string&>();
  if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<float>::infinity();
  if (s == "-inf") return -std::numeric_limits<float>::infinity();
  return std::nullopt;
}

StatusOr<AttrValue> ParseAttr(const json& v, const std::string& where, const std::string& base_dir,
                              const std::map<std::string, int64_t>& opsets, int depth) {
  // The ONNX loader's caps (kMaxAttributeElements), so both formats accept the same models.
  if (v.is_array() && v.size() > kMaxAttributeElements) {
    return ResourceExhausted(where, ": ", v.size(), " entries, over the limit of ", kMaxAttributeElements);
  }
  if (v.is_string() && v.get_ref<const std::string&>().size() > kMaxAttributeElements) {
    return ResourceExhausted(where, ": a string of ", v.get_ref<const std::string&>().size(),
                             " bytes, over the limit of ", kMaxAttributeElements);
  }
  if (v.is_boolean()) return AttrValue(int64_t(v.get<bool>() ? 1 : 0));
  if (v.is_number_integer()) {
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
      return Bad(where, "integer out of range");
    }
    return AttrValue(v.get<int64_t>());
  }
  if (v.is_number_float()) return AttrValue(float(v.get<double>()));
  if (std::optional<float> f = NonFiniteFloat(v)) return AttrValue(*f);
  if (v.is_string()) return AttrValue(v.get<std::string>());
  if (v.is_object()) {
    if (v.size() == 1 && v.contains("tensor")) {
      QRT_ASSIGN_OR_RETURN(Tensor t, ParseTensor(v["tensor"], where, base_dir));
      return AttrValue(std::move(t));
    }
    if (v.size() == 1 && v.contains("graph")) {
      if (depth >= kMaxSubgraphDepth) return ResourceExhausted(where, ": subgraphs nested too deep");
      QRT_ASSIGN_OR_RETURN(Graph g, ParseGraph(v["graph"], where, base_dir, opsets, depth + 1));
      return AttrValue(std::make_shared<Graph>(std::move(g)));
    }
    return Bad(where, "an object attribute must be {\"tensor\": ...} or {\"graph\": ...}");
  }
  if (v.is_array()) {
    bool any_float = false, any_string = false, any_number = false;
    for (const json& e : v) {
      if (e.is_number_float() || NonFiniteFloat(e)) any_float = true;
      if (e.is_number() || e.is_boolean() || NonFiniteFloat(e))
        any_number = true;
      else if (e.is_string())
        any_string = true;
      else
        return Bad(where, "list attributes hold numbers or strings");
    }
    if (any_string && any_number) return Bad(where, "a list attribute mixes strings and numbers");
    if (any_string) return AttrValue(v.get<std::vector<std::string>>());
    if (any_float) {
      std::vector<float> f;
      for (const json& e : v) {
        f.push_back(e.is_string()    ? *NonFiniteFloat(e)
                    : e.is_boolean() ? float(e.get<bool>())
                                     : float(e.get<double>()));
      }
      return AttrValue(std::move(f));
    }
    std::vector<int64_t> ints;
    for (const json& e : v) {
      if (e.is_number_unsigned() && e.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
        return Bad(where, "integer out of range");
      }
      ints.push_back(e.is_boolean() ? int64_t(e.get<bool>()) : e.get<int64_t>());
    }
    return AttrValue(std::move(ints));
  }
  return Bad(where, "unsupported attribute value");
}

StatusOr<std::vector<std::string>> StringList(const json& node, const char* key, const std::string& where) {
  auto it = node.find(key);
  if (it == node.end()) return std::vector<std::string>();
  if (!it->is_array()) return Bad(where, StrCat("\"", key, "\" must be an array of strings"));
  std::vector<std::string> out;
  for (const json& e : *it) {
    if (!e.is_string()) return Bad(where, StrCat("\"", key, "\" must be an array of strings"));
    out.push_back(e.get<std::string>());
  }
  return out;
}

StatusOr<Graph> ParseGraph(const json& root, const std::string& source, const std::string& base_dir,
                           std::map<std::string, int64_t> opsets, int depth) {
  if (!root.is_object()) return Bad(source, "the graph must be a JSON object");
  if (depth == 0) {
    QRT_ASSIGN_OR_RETURN(std::string format, GetString(root, "format", source));
    if (format != "qrt.graph") return Bad(source, StrCat("\"format\" is '", format, "', expected 'qrt.graph'"));
    auto ver = root.find("version");
    if (ver == root.end() || !ver->is_number_integer()) return Bad(source, "missing integer \"version\"");
    if (ver->get<int64_t>() != 1)
      return Unsupported(source, ": JSON graph version ", ver->get<int64_t>(), " (qrt reads 1)");
    if (auto it = root.find("opsets"); it != root.end()) {
      if (!it->is_object()) return Bad(source, "\"opsets\" must be an object of domain: version");
      for (auto& [domain, v] : it->items()) {
        if (!v.is_number_integer()) return Bad(source, "opset versions must be integers");
        opsets[domain == "ai.onnx" ? "" : domain] = v.get<int64_t>();
      }
    }
    auto onnx = opsets.find("");
    if (onnx != opsets.end() && (onnx->second < kMinOnnxOpset || onnx->second > kMaxOnnxOpset)) {
      return Unsupported(source, ": ai.onnx opset ", onnx->second, " is not supported");
    }
  }
  ModelBuilder b(source, opsets, depth > 0);
  if (root.contains("name") && root["name"].is_string()) b.SetName(root["name"].get<std::string>());
  for (const char* key : {"inputs", "outputs", "initializers", "nodes"}) {
    if (root.contains(key) && !root[key].is_array()) return Bad(source, StrCat("\"", key, "\" must be an array"));
  }
  if (root.contains("initializers")) {
    size_t k = 0;
    for (const json& init : root["initializers"]) {
      std::string where = StrCat(source, ": initializers[", k++, "]");
      if (!init.is_object()) return Bad(where, "must be an object");
      QRT_ASSIGN_OR_RETURN(std::string name, GetString(init, "name", where));
      where += " '" + name + "'";
      QRT_ASSIGN_OR_RETURN(Tensor t, ParseTensor(init, where, base_dir));
      QRT_RETURN_IF_ERROR(b.AddInitializer(name, std::move(t)));
    }
  }
  if (root.contains("inputs")) {
    size_t k = 0;
    for (const json& in : root["inputs"]) {
      std::string where = StrCat(source, ": inputs[", k++, "]");
      if (!in.is_object()) return Bad(where, "must be an object");
      QRT_ASSIGN_OR_RETURN(std::string name, GetString(in, "name", where));
      DataType dt = DataType::kUndefined;
      if (in.contains("dtype")) {
        QRT_ASSIGN_OR_RETURN(dt, ParseDType(in["dtype"], where));
      }
      std::optional<Shape> shape;
      if (in.contains("shape")) {
        QRT_ASSIGN_OR_RETURN(shape, ParseShape(in["shape"], where));
      }
      QRT_ASSIGN_OR_RETURN(DeclaredKind kind, ParseKind(in, where));
      QRT_RETURN_IF_ERROR(b.AddInput(name, dt, shape, kind));
    }
  }
  if (root.contains("nodes")) {
    size_t k = 0;
    for (const json& n : root["nodes"]) {
      std::string where = StrCat(source, ": nodes[", k++, "]");
      if (!n.is_object()) return Bad(where, "must be an object");
      NodeSpec spec;
      QRT_ASSIGN_OR_RETURN(spec.name, GetString(n, "name", where, false));
      QRT_ASSIGN_OR_RETURN(spec.op_type, GetString(n, "op", where));
      if (!spec.name.empty()) where += " '" + spec.name + "'";
      if (n.contains("domain")) {
        QRT_ASSIGN_OR_RETURN(std::string d, GetString(n, "domain", where));
        spec.domain = d;
      }
      QRT_ASSIGN_OR_RETURN(spec.inputs, StringList(n, "inputs", where));
      QRT_ASSIGN_OR_RETURN(spec.outputs, StringList(n, "outputs", where));
      if (n.contains("attrs")) {
        if (!n["attrs"].is_object()) return Bad(where, "\"attrs\" must be an object");
        for (auto& [key, v] : n["attrs"].items()) {
          QRT_ASSIGN_OR_RETURN(AttrValue a,
                               ParseAttr(v, StrCat(where, ": attribute '", key, "'"), base_dir, opsets, depth));
          spec.attrs.Set(key, std::move(a));
        }
      }
      QRT_RETURN_IF_ERROR(b.AddNode(std::move(spec)));
    }
  }
  if (root.contains("outputs")) {
    size_t k = 0;
    for (const json& out : root["outputs"]) {
      std::string where = StrCat(source, ": outputs[", k++, "]");
      if (!out.is_object()) return Bad(where, "must be an object");
      QRT_ASSIGN_OR_RETURN(std::string name, GetString(out, "name", where));
      DataType dt = DataType::kUndefined;
      if (out.contains("dtype")) {
        QRT_ASSIGN_OR_RETURN(dt, ParseDType(out["dtype"], where));
      }
      std::optional<Shape> shape;
      if (out.contains("shape")) {
        QRT_ASSIGN_OR_RETURN(shape, ParseShape(out["shape"], where));
      }
      QRT_ASSIGN_OR_RETURN(DeclaredKind kind, ParseKind(out, where));
      QRT_RETURN_IF_ERROR(b.AddOutput(name, dt, shape, kind));
    }
  }
  return b.Finish();
}

std::string DirOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

// Counts JSON values and nesting while scanning the text, before any DOM is built, and
// stops at the limits. (nlohmann's callback parser could do the same while parsing, but it
// costs quadratic time on long arrays: 3.2 s for a 10^5-node graph.)
class JsonLimits : public nlohmann::json_sax<json> {
 public:
  std::string exceeded;

  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t) override { return Value(); }
  bool number_unsigned(number_unsigned_t) override { return Value(); }
  bool number_float(number_float_t, const string_t&) override { return Value(); }
  bool string(string_t&) override { return Value(); }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(); }
  bool key(string_t&) override { return true; }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(); }
  bool end_array() override { return Close(); }
  // A syntax error: the DOM parser that follows reports it, with its position.
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool Value() {
    if (++values_ <= kMaxJsonValues) return true;
    exceeded = StrCat("more than ", kMaxJsonValues, " JSON values");
    return false;
  }
  bool Open() {
    if (++depth_ > kMaxJsonDepth) {
      exceeded = StrCat("JSON nested deeper than ", kMaxJsonDepth, " levels");
      return false;
    }
    return Value();
  }
  bool Close() {
    --depth_;
    return true;
  }
  size_t values_ = 0;
  int depth_ = 0;
};

StatusOr<Graph> LoadJsonText(const std::string& text, const std::string& source, const std::string& base_dir) {
  // The DOM costs about 16 bytes per JSON value, whatever the text: "[0,0,0,...]" would
  // take 8 times its size in memory. Counting values first stops hostile text at
  // kMaxJsonValues; big tensors belong in data_base64 or file, which are one value.
  JsonLimits limits;
  json::sax_parse(text, &limits);
  if (!limits.exceeded.empty()) return ResourceExhausted(source, ": ", limits.exceeded);
  json root;
  try {
    root = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for "1e999"
    return InvalidArgument(source, ": invalid JSON: ", e.what());
  }
  try {
    return ParseGraph(root, source, base_dir, {}, 0);
  } catch (const json::exception& e) {  // a value of an unexpected JSON type
    return InvalidArgument(source, ": malformed graph: ", e.what());
  }
}

StatusOr<Graph> LoadJsonFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return NotFound(path, ": cannot open file");
  f.seekg(0, std::ios::end);
  const std::streamoff len = f.tellg();
  if (len < 0) return IoError(path, ": cannot read file");
  if (len > kMaxJsonBytes) return ResourceExhausted(path, ": JSON file larger than 2 GiB");
  f.seekg(0);
  std::string text(size_t(len), '\0');
  if (!f.read(text.data(), len)) return IoError(path, ": read failed");
  return LoadJsonText(text, path, DirOf(path));
}

}  // namespace qrt
