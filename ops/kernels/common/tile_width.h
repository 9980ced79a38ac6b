// Kernels whose tiles are templates over their width in vectors run the rest of a row (less
// than a full tile) as one tile of exactly the vectors it needs. WithVectors picks that
// instantiation: f(std::integral_constant<int, V>()) for V = vectors in [1, kMax], nothing for 0.
// ISA-neutral; every instantiation takes a caller's lambda, so it stays in the caller's file.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

namespace qrt {

template <int kMax, int V = 1, class F>
inline void WithVectors(int64_t vectors, F&& f) {
  if (vectors == V) {
    f(std::integral_constant<int, V>());
  } else if constexpr (V < kMax) {
    WithVectors<kMax, V + 1>(vectors, std::forward<F>(f));
  }
}

}  // namespace qrt
