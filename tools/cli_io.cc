#include "tools/cli_io.h"

#include <sys/stat.h>

#include <cstring>
#include <random>

#include "loaders/model_io.h"
#include "loaders/npy.h"
#include "loaders/tensor_proto.h"
#include "runtime/half.h"

namespace qrt::cli {
namespace {

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

StatusOr<Tensor> ReadTensorFile(const std::string& path) {
  if (EndsWith(path, ".npy")) return ReadNpy(path);
  if (EndsWith(path, ".pb")) return ReadTensorProtoFile(path);
  return InvalidArgument(path, ": unknown tensor file format (expected .npy or .pb)");
}

std::string SafeFileName(const std::string& name) {
  std::string s = name;
  for (char& c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return s;
}

StatusOr<std::vector<Tensor>> GatherInputs(const Graph& graph, const std::vector<std::string>& pairs,
                                           const std::string& dir, bool require_all) {
  std::vector<Tensor> inputs(graph.inputs.size());
  std::vector<bool> given(graph.inputs.size(), false);
  for (const std::string& pair : pairs) {
    const size_t eq = pair.find('=');
    if (eq == std::string::npos) return InvalidArgument("--input '", pair, "' must be NAME=FILE");
    const std::string name = pair.substr(0, eq), file = pair.substr(eq + 1);
    size_t k = 0;
    while (k < graph.inputs.size() && graph.value(graph.inputs[k]).name != name) ++k;
    if (k == graph.inputs.size()) {
      return InvalidArgument(graph.source, ": the model has no input named '", name, "'");
    }
    QRT_ASSIGN_OR_RETURN(inputs[k], ReadTensorFile(file));
    given[k] = true;
  }
  for (size_t k = 0; k < graph.inputs.size() && !dir.empty(); ++k) {
    if (given[k]) continue;
    const std::string name = graph.value(graph.inputs[k]).name;
    for (const std::string& candidate :
         {dir + "/" + SafeFileName(name) + ".npy", dir + "/input_" + std::to_string(k) + ".pb",
          dir + "/input_" + std::to_string(k) + ".npy"}) {
      if (FileExists(candidate)) {
        QRT_ASSIGN_OR_RETURN(inputs[k], ReadTensorFile(candidate));
        given[k] = true;
        break;
      }
    }
  }
  if (require_all) {
    for (size_t k = 0; k < graph.inputs.size(); ++k) {
      if (!given[k]) {
        return InvalidArgument(graph.source, ": missing input '", graph.value(graph.inputs[k]).name,
                               "' (give it with --input NAME=FILE or --inputs DIR)");
      }
    }
  }
  return inputs;
}

Status FillRandomInputs(const Graph& graph, std::vector<Tensor>* inputs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (size_t k = 0; k < graph.inputs.size(); ++k) {
    if ((*inputs)[k].dtype() != DataType::kUndefined) continue;
    const Value& v = graph.value(graph.inputs[k]);
    Dims dims;
    if (v.shape) {
      for (const Dim& d : *v.shape) dims.push_back(d.is_static() ? d.value : 1);
    }
    QRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(v.dtype, dims));
    std::uniform_real_distribution<float> uf(0.f, 1.f);
    for (int64_t i = 0; i < t.numel(); ++i) {
      const uint64_t r = rng();
      switch (t.dtype()) {
        case DataType::kFloat32: t.data<float>()[i] = uf(rng); break;
        case DataType::kFloat64: t.data<double>()[i] = uf(rng); break;
        case DataType::kFloat16: t.data<uint16_t>()[i] = FloatToHalf(uf(rng)); break;
        case DataType::kBFloat16: t.data<uint16_t>()[i] = FloatToBFloat16(uf(rng)); break;
        case DataType::kBool: t.data<uint8_t>()[i] = r & 1; break;
        default: std::memcpy(static_cast<char*>(t.raw()) + i * DataTypeSize(t.dtype()), &r, DataTypeSize(t.dtype()));
      }
    }
    (*inputs)[k] = std::move(t);
  }
  return Status::Ok();
}

}  // namespace qrt::cli
