#include "ops/kernels/common/index_map.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "runtime/float8.h"
#include "runtime/half.h"

namespace qrt {
namespace {

template <class T>
void Run(const IndexMap& map, const T* in, T* out, const void* fill_bytes) {
  T fill{};
  if (fill_bytes) std::memcpy(&fill, fill_bytes, sizeof(T));
  const size_t r = map.out_dims.size();
  if (ElementCount(map.out_dims) == 0) return;
  if (r == 0) {
    out[0] = in[0];
    return;
  }
  // base[d] = sum of the tables of axes < d at the current outer multi-index.
  int64_t idx[kMaxRank] = {0};
  int64_t base[kMaxRank] = {0};
  for (size_t d = 0; d + 1 < r; ++d) base[d + 1] = base[d] + map.tables[d][0];
  const int64_t n = map.out_dims[r - 1];
  const int64_t* inner = map.tables[r - 1].data();
  const int64_t outer = ElementCount(map.out_dims) / n;
  int64_t prev_base = 0;
  const int64_t repeat = map.inner_repeat;
  for (int64_t o = 0; o < outer; ++o) {
    T* dst = out + o * n;
    const int64_t b = base[r - 1];
    if (o > 0 && b == prev_base) {  // the same source row: the same output row
      std::memcpy(dst, dst - n, size_t(n) * sizeof(T));
    } else if (map.inner_contiguous && b >= 0) {
      std::memcpy(dst, in + b + inner[0], size_t(n) * sizeof(T));
    } else if (repeat == 2 && b >= 0) {
      const T* src = in + b + inner[0];
      int64_t i = 0;
      for (; i + 8 <= n; i += 8) {  // four elements at a time: the compiler's shuffles
        const T* s4 = src + i / 2;
        T* d8 = dst + i;
        for (int j = 0; j < 4; ++j) d8[2 * j] = d8[2 * j + 1] = s4[j];
      }
      for (; i + 2 <= n; i += 2) dst[i] = dst[i + 1] = src[i / 2];
      if (i < n) dst[i] = src[i / 2];
    } else if (repeat > 2 && b >= 0) {
      const T* src = in + b + inner[0];
      for (int64_t i = 0; i < n; i += repeat) std::fill_n(dst + i, std::min(repeat, n - i), src[i / repeat]);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t off = b + inner[i];
        dst[i] = off < 0 ? fill : in[off];
      }
    }
    prev_base = b;
    for (size_t d = r - 1; d-- > 0;) {  // odometer over the outer axes
      if (++idx[d] < map.out_dims[d]) {
        base[d + 1] = base[d] + map.tables[d][size_t(idx[d])];
        for (size_t k = d + 1; k + 1 < r; ++k) base[k + 1] = base[k] + map.tables[k][0];
        break;
      }
      idx[d] = 0;
    }
  }
}

template <class T>
void StoreSaturated(double v, unsigned char bytes[8]) {
  T t;
  if (std::isnan(v)) {
    t = T(0);
  } else if (v <= double(std::numeric_limits<T>::lowest())) {
    t = std::numeric_limits<T>::lowest();
  } else if (v >= double(std::numeric_limits<T>::max())) {
    t = std::numeric_limits<T>::max();
  } else {
    t = T(v);
  }
  std::memcpy(bytes, &t, sizeof(T));
}

}  // namespace

IndexMap PermutationMap(const Dims& dims, const std::vector<int64_t>& perm) {
  IndexMap map;
  const std::vector<int64_t> strides = ContiguousStrides(dims);
  map.tables.resize(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) {
    const size_t src = size_t(perm[d]);
    map.out_dims.push_back(dims[src]);
    for (int64_t o = 0; o < dims[src]; ++o) map.tables[d].push_back(o * strides[src]);
  }
  FinishIndexMap(map);
  return map;
}

void FinishIndexMap(IndexMap& map) {
  map.inner_contiguous = false;
  map.inner_repeat = 0;
  if (map.tables.empty() || map.tables.back().empty()) return;
  const std::vector<int64_t>& t = map.tables.back();
  if (t[0] < 0) return;
  int64_t repeat = 1;  // the length of the first run of equal entries
  while (size_t(repeat) < t.size() && t[size_t(repeat)] == t[0]) ++repeat;
  for (size_t i = 1; i < t.size(); ++i) {
    if (t[i] != t[0] + int64_t(i) / repeat) return;
  }
  if (repeat == 1)
    map.inner_contiguous = true;
  else
    map.inner_repeat = repeat;
}

void RunIndexMap(const IndexMap& map, size_t elem_size, const void* in, void* out, const void* fill) {
  switch (elem_size) {
    case 1:
      Run(map, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), fill);
      break;
    case 2:
      Run(map, static_cast<const uint16_t*>(in), static_cast<uint16_t*>(out), fill);
      break;
    case 4:
      Run(map, static_cast<const uint32_t*>(in), static_cast<uint32_t*>(out), fill);
      break;
    case 8:
      Run(map, static_cast<const uint64_t*>(in), static_cast<uint64_t*>(out), fill);
      break;
    default:
      break;
  }
}

std::vector<int64_t> ContiguousStrides(const Dims& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) s[d - 1] = s[d] * dims[d];
  return s;
}

void ScalarToBytes(DataType dtype, double value, unsigned char bytes[8]) {
  std::memset(bytes, 0, 8);
  switch (dtype) {
    case DataType::kFloat32: {
      const float f = float(value);
      std::memcpy(bytes, &f, 4);
      break;
    }
    case DataType::kFloat64:
      std::memcpy(bytes, &value, 8);
      break;
    case DataType::kFloat16: {
      const uint16_t h = FloatToHalf(float(value));
      std::memcpy(bytes, &h, 2);
      break;
    }
    case DataType::kBFloat16: {
      const uint16_t h = FloatToBFloat16(float(value));
      std::memcpy(bytes, &h, 2);
      break;
    }
    case DataType::kInt8:
      StoreSaturated<int8_t>(value, bytes);
      break;
    case DataType::kUInt8:
      StoreSaturated<uint8_t>(value, bytes);
      break;
    case DataType::kInt16:
      StoreSaturated<int16_t>(value, bytes);
      break;
    case DataType::kUInt16:
      StoreSaturated<uint16_t>(value, bytes);
      break;
    case DataType::kInt32:
      StoreSaturated<int32_t>(value, bytes);
      break;
    case DataType::kInt64:
      StoreSaturated<int64_t>(value, bytes);
      break;
    case DataType::kBool:
      bytes[0] = value != 0.0;
      break;
    case DataType::kUInt32:
      StoreSaturated<uint32_t>(value, bytes);
      break;
    case DataType::kUInt64:
      StoreSaturated<uint64_t>(value, bytes);
      break;
    case DataType::kInt4:
      bytes[0] = static_cast<unsigned char>(int8_t(std::clamp(value, -8.0, 7.0)));
      break;
    case DataType::kUInt4:
      bytes[0] = static_cast<unsigned char>(std::clamp(value, 0.0, 15.0));
      break;
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      bytes[0] = FloatToFloat8(dtype, float(value), true);
      break;
    case DataType::kUndefined:
      break;
  }
}

}  // namespace qrt
