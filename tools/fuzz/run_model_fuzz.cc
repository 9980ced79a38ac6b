// libFuzzer target: load, compile and run a fuzzed model. Text starting with '{' (after
// blanks) is a JSON graph, anything else a serialized ONNX model. Per input, a hash
// picks the ISA (AVX2 or scalar) and the passes (default or none), symbolic and missing
// shapes get small sizes, and inputs get small pseudo-random values with some NaN, inf
// and extremes. Runs are skipped only when the inputs or the planned arena are over
// this target's budget; everything else must end in a Status, never a crash.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "loaders/json_loader.h"
#include "loaders/onnx_loader.h"
#include "runtime/half.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "tools/fuzz/fuzz_util.h"

namespace qrt {
namespace {

constexpr int64_t kMaxInputElements = 4096;  // per input
constexpr size_t kMaxArenaBytes = size_t(64) << 20;

bool LooksLikeJson(const uint8_t* data, size_t size) {
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '{') return true;
    if (data[i] != ' ' && data[i] != '\n' && data[i] != '\t' && data[i] != '\r') return false;
  }
  return false;
}

// A float test value: mostly small numbers a model sees, sometimes the edge cases.
double FloatValue(fuzz::Rng& rng) {
  switch (rng.Below(16)) {
    case 0:
      return std::numeric_limits<double>::quiet_NaN();
    case 1:
      return rng.Below(2) ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    case 2:
      return rng.Below(2) ? 3e38 : -1e30;
    case 3:
      return rng.Below(2) ? -0.0 : 1e-40;
    default:
      return (double(rng.Below(2001)) - 1000.0) / 250.0;  // [-4, 4] in steps of 1/250
  }
}

// An integer test value: mostly small (indices, axes, shapes), sometimes any bits.
int64_t IntValue(fuzz::Rng& rng) {
  if (rng.Below(4) == 0) return int64_t(rng.Next());
  return int64_t(rng.Below(9)) - 4;
}

void Fill(Tensor& t, fuzz::Rng& rng) {
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; ++i) {
    switch (t.dtype()) {
      case DataType::kFloat32:
        t.data<float>()[i] = float(FloatValue(rng));
        break;
      case DataType::kFloat64:
        t.data<double>()[i] = FloatValue(rng);
        break;
      case DataType::kFloat16:
        t.data<uint16_t>()[i] = FloatToHalf(float(FloatValue(rng)));
        break;
      case DataType::kBFloat16:
        t.data<uint16_t>()[i] = FloatToBFloat16(float(FloatValue(rng)));
        break;
      case DataType::kBool:
        t.data<uint8_t>()[i] = uint8_t(rng.Below(2));
        break;
      case DataType::kInt8:
      case DataType::kUInt8:
        t.data<uint8_t>()[i] = uint8_t(IntValue(rng));
        break;
      case DataType::kInt16:
      case DataType::kUInt16:
        t.data<uint16_t>()[i] = uint16_t(IntValue(rng));
        break;
      case DataType::kInt32:
        t.data<int32_t>()[i] = int32_t(IntValue(rng));
        break;
      case DataType::kInt64:
        t.data<int64_t>()[i] = IntValue(rng);
        break;
      case DataType::kUndefined:
        break;
    }
  }
}

// Concrete dims for a graph input: declared static dims as they are, a symbol the same
// size everywhere it appears (1..3), an undeclared shape a small random one.
Dims InputDims(const Value& v, std::map<std::string, int64_t>& symbols, fuzz::Rng& rng) {
  Dims dims;
  if (!v.shape) {
    const uint64_t rank = rng.Below(4);
    for (uint64_t d = 0; d < rank; ++d) dims.push_back(int64_t(1 + rng.Below(3)));
    return dims;
  }
  for (const Dim& d : *v.shape) {
    if (d.is_static()) {
      dims.push_back(d.value);
    } else if (d.symbol.empty()) {
      dims.push_back(int64_t(1 + rng.Below(3)));
    } else {
      auto it = symbols.find(d.symbol);
      if (it == symbols.end()) it = symbols.emplace(d.symbol, int64_t(1 + rng.Below(3))).first;
      dims.push_back(it->second);
    }
  }
  return dims;
}

void RunOne(const uint8_t* data, size_t size) {
  StatusOr<Graph> graph =
      LooksLikeJson(data, size)
          ? LoadJsonText(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json", fuzz::DataDir())
          : LoadOnnxBuffer(data, size, "fuzz.onnx", fuzz::DataDir());
  if (!graph.ok()) return;
  const uint64_t h = fuzz::Hash(data, size);
  fuzz::Rng rng(h);
  CompileOptions options;
  options.max_isa = (h & 1) ? Isa::kScalar : kIsaAuto;
  options.passes = (h & 2) ? "none" : "default";

  // Inputs first: their sizes decide whether this model is run at all.
  std::vector<Tensor> inputs;
  std::map<std::string, int64_t> symbols;
  for (ValueId id : graph->inputs) {
    const Value& v = graph->value(id);
    const Dims dims = InputDims(v, symbols, rng);
    StatusOr<int64_t> n = CheckedElementCount(dims, 1);
    if (!n.ok() || *n > kMaxInputElements) return;
    StatusOr<Tensor> t = Tensor::Allocate(v.dtype == DataType::kUndefined ? DataType::kFloat32 : v.dtype, dims);
    if (!t.ok()) return;
    Fill(*t, rng);
    inputs.push_back(std::move(t).value());
  }

  StatusOr<std::shared_ptr<const CompiledModel>> model = Compile(std::move(graph).value(), options);
  if (!model.ok()) return;
  StatusOr<std::shared_ptr<const Plan>> plan = (*model)->PlanFor(inputs);
  if (!plan.ok() || (*plan)->arena_bytes > kMaxArenaBytes) return;
  Session session(*model);
  std::vector<Tensor> outputs;
  if (!session.Run(inputs, &outputs).ok()) return;
  // Read every output byte, so a view past its buffer is caught here.
  volatile uint8_t sink = 0;
  for (const Tensor& t : outputs) {
    const uint8_t* p = static_cast<const uint8_t*>(t.raw());
    for (size_t i = 0; p && i < t.nbytes(); ++i) sink = sink ^ p[i];
  }
}

}  // namespace
}  // namespace qrt

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  qrt::fuzz::Setup();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  qrt::RunOne(data, size);
  return 0;
}
