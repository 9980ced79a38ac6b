#include "tools/cli_io.h"

#include <sys/stat.h>

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

namespace qrt::cli {
namespace {

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

template <class T>
T Load(const api::TensorView& t, size_t i) {
  T v;
  std::memcpy(&v, static_cast<const char*>(t.raw()) + i * sizeof(T), sizeof(T));
  return v;
}

// IEEE half and bfloat16 bits to float, for printing only.
float HalfToFloat(uint16_t h) {
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  const float sign = (h & 0x8000) ? -1.f : 1.f;
  if (exp == 0) return sign * std::ldexp(float(mant), -24);
  if (exp == 31) return mant ? NAN : sign * INFINITY;
  return sign * std::ldexp(float(mant | 0x400), exp - 25);
}
float BFloat16ToFloat(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

std::string SafeFileName(const std::string& name) {
  std::string s = name;
  for (char& c : s) {
    const bool ok =
        (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) c = '_';
  }
  return s;
}

std::string FormatElement(const api::TensorView& t, size_t i) {
  char buf[64];
  switch (t.dtype()) {
    case QRT_FLOAT32:
      std::snprintf(buf, sizeof buf, "%.9g", double(Load<float>(t, i)));
      break;
    case QRT_FLOAT64:
      std::snprintf(buf, sizeof buf, "%.9g", Load<double>(t, i));
      break;
    case QRT_FLOAT16:
      std::snprintf(buf, sizeof buf, "%.9g", double(HalfToFloat(Load<uint16_t>(t, i))));
      break;
    case QRT_BFLOAT16:
      std::snprintf(buf, sizeof buf, "%.9g", double(BFloat16ToFloat(Load<uint16_t>(t, i))));
      break;
    case QRT_UINT8:
      std::snprintf(buf, sizeof buf, "%u", unsigned(Load<uint8_t>(t, i)));
      break;
    case QRT_BOOL:
      std::snprintf(buf, sizeof buf, "%u", unsigned(Load<uint8_t>(t, i) != 0));
      break;
    case QRT_INT8:
      std::snprintf(buf, sizeof buf, "%d", int(Load<int8_t>(t, i)));
      break;
    case QRT_UINT16:
      std::snprintf(buf, sizeof buf, "%u", unsigned(Load<uint16_t>(t, i)));
      break;
    case QRT_INT16:
      std::snprintf(buf, sizeof buf, "%d", int(Load<int16_t>(t, i)));
      break;
    case QRT_INT32:
      std::snprintf(buf, sizeof buf, "%" PRId32, Load<int32_t>(t, i));
      break;
    case QRT_INT64:
      std::snprintf(buf, sizeof buf, "%" PRId64, Load<int64_t>(t, i));
      break;
    default:
      std::snprintf(buf, sizeof buf, "?");
  }
  return buf;
}

api::Result<std::vector<api::Tensor>> GatherInputs(const api::Graph& graph, const std::string& source,
                                                   const std::vector<std::string>& pairs, const std::string& dir,
                                                   bool require_all) {
  const std::vector<api::ValueInfo> infos = graph.inputs();
  std::vector<api::Tensor> inputs(infos.size());
  std::vector<bool> given(infos.size(), false);
  for (const std::string& pair : pairs) {
    const size_t eq = pair.find('=');
    if (eq == std::string::npos) return api::Status(QRT_INVALID_ARGUMENT, "--input '" + pair + "' must be NAME=FILE");
    const std::string name = pair.substr(0, eq), file = pair.substr(eq + 1);
    api::Result<size_t> k = graph.input_index(name);
    if (!k.ok()) return api::Status(QRT_INVALID_ARGUMENT, source + ": the model has no input named '" + name + "'");
    api::Result<api::Tensor> t = api::Tensor::Read(file);
    if (!t.ok()) return t.status();
    inputs[*k] = std::move(t).value();
    given[*k] = true;
  }
  for (size_t k = 0; k < infos.size() && !dir.empty(); ++k) {
    if (given[k]) continue;
    for (const std::string& candidate :
         {dir + "/" + SafeFileName(infos[k].name) + ".npy", dir + "/input_" + std::to_string(k) + ".pb",
          dir + "/input_" + std::to_string(k) + ".npy"}) {
      if (!FileExists(candidate)) continue;
      api::Result<api::Tensor> t = api::Tensor::Read(candidate);
      if (!t.ok()) return t.status();
      inputs[k] = std::move(t).value();
      given[k] = true;
      break;
    }
  }
  for (size_t k = 0; k < infos.size() && require_all; ++k) {
    if (!given[k]) {
      return api::Status(QRT_INVALID_ARGUMENT, source + ": missing input '" + infos[k].name +
                                                   "' (give it with --input NAME=FILE or --inputs DIR)");
    }
  }
  return inputs;
}

api::Status FillRandomInputs(const api::Graph& graph, std::vector<api::Tensor>* inputs, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  const std::vector<api::ValueInfo> infos = graph.inputs();
  for (size_t k = 0; k < infos.size(); ++k) {
    if ((*inputs)[k].view().dtype() != QRT_UNDEFINED) continue;
    std::vector<int64_t> dims;
    for (int64_t d : infos[k].shape) dims.push_back(d >= 0 ? d : 1);
    api::Result<api::Tensor> made = api::Tensor::Zeros(infos[k].dtype, dims);
    if (!made.ok()) return made.status();
    api::Tensor t = std::move(made).value();
    const size_t n = t.view().element_count(), size = qrt_dtype_size(infos[k].dtype);
    char* p = static_cast<char*>(t.raw());
    for (size_t i = 0; i < n; ++i, p += size) {
      switch (infos[k].dtype) {
        case QRT_FLOAT32: {
          const float v = unit(rng);
          std::memcpy(p, &v, 4);
          break;
        }
        case QRT_FLOAT64: {
          const double v = unit(rng);
          std::memcpy(p, &v, 8);
          break;
        }
        // Bit patterns of values in [0, 1): 0x3c00 is 1.0 in half, 0x3f80 in bfloat16.
        case QRT_FLOAT16: {
          const uint16_t v = uint16_t(rng() % 0x3c00);
          std::memcpy(p, &v, 2);
          break;
        }
        case QRT_BFLOAT16: {
          const uint16_t v = uint16_t(rng() % 0x3f80);
          std::memcpy(p, &v, 2);
          break;
        }
        case QRT_BOOL:
          *p = char(rng() & 1);
          break;
        default: {
          const uint64_t r = rng();
          std::memcpy(p, &r, size);
        }
      }
    }
    (*inputs)[k] = std::move(t);
  }
  return api::Status();
}

}  // namespace qrt::cli
