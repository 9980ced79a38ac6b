// One table from a tile's row count to its instance, for tile kernels templated on the
// number of rows they hold in registers. Plain C++ with no SIMD of its own: each kernel file
// instantiates it with its own tile (internal linkage), under its own flags.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

namespace qrt::igemm_rows {

template <template <int> class Tile, size_t... I>
constexpr auto MakeTable(std::index_sequence<I...>) {
  return std::array{&Tile<int(I) + 1>::Run...};
}

// Tile<rows>::Run(args...), rows clamped to [1, MaxRows].
template <template <int> class Tile, int MaxRows, class... Args>
void Dispatch(int64_t rows, Args... args) {
  static constexpr auto kTable = MakeTable<Tile>(std::make_index_sequence<MaxRows>());
  kTable[size_t(std::clamp<int64_t>(rows, 1, MaxRows) - 1)](args...);
}

}  // namespace qrt::igemm_rows
