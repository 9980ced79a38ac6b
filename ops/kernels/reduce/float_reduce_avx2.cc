// AVX2 FloatReduce, bit-identical to ref::FloatReduce. Three shapes are vectorized:
//  - Eigen's order on a contiguous run: its two 4-float packet accumulators are the halves of
//    one 8-float register, so every lane adds the reference's elements in its order;
//  - Max / Min on a contiguous run, eight lanes at once; a run holding a NaN, or whose extreme
//    is a zero (where -0 and +0 tie and the first one wins), is folded again by the reference;
//  - eight adjacent outputs at once (the innermost axis kept), each lane folding its own output
//    in the reference's order (sequential or groups of four).
// Everything else is the reference, one output at a time.
#include <immintrin.h>

#include "ops/kernels/reduce/float_reduce.h"

namespace qrt::avx2 {
namespace {

template <ReduceMap kMap>
inline float Map1(float v) {
  if constexpr (kMap == ReduceMap::kAbs) return std::fabs(v);
  if constexpr (kMap == ReduceMap::kSquare) return v * v;
  return v;
}

template <ReduceMap kMap>
inline __m256 Map8(__m256 v) {
  if constexpr (kMap == ReduceMap::kAbs) return _mm256_andnot_ps(_mm256_set1_ps(-0.f), v);
  if constexpr (kMap == ReduceMap::kSquare) return _mm256_mul_ps(v, v);
  return v;
}

template <ReduceMap kMap>
inline __m128 Map4(__m128 v) {
  if constexpr (kMap == ReduceMap::kAbs) return _mm_andnot_ps(_mm_set1_ps(-0.f), v);
  if constexpr (kMap == ReduceMap::kSquare) return _mm_mul_ps(v, v);
  return v;
}

template <bool kMul>
inline float Op1(float a, float b) {
  return kMul ? a * b : a + b;
}
template <bool kMul>
inline __m256 Op8(__m256 a, __m256 b) {
  return kMul ? _mm256_mul_ps(a, b) : _mm256_add_ps(a, b);
}
template <bool kMul>
inline __m128 Op4(__m128 a, __m128 b) {
  return kMul ? _mm_mul_ps(a, b) : _mm_add_ps(a, b);
}

template <ReduceMap kMap, bool kMul>
float EigenRun(const float* p, int64_t n, int64_t lead) {
  if (lead > n) lead = n;
  const int64_t whole = (n - lead) / 4 * 4;
  if (whole == 0) {
    return ref::FoldSequential(
        n, kMul ? 1.f : 0.f, [&](int64_t j) { return Map1<kMap>(p[j]); }, Op1<kMul>);
  }
  const int64_t end2 = lead + (n - lead) / 8 * 8, end = lead + whole;
  __m128 p0;
  if (whole > 4) {
    __m256 acc = Map8<kMap>(_mm256_loadu_ps(p + lead));
    for (int64_t i = lead + 8; i < end2; i += 8) acc = Op8<kMul>(acc, Map8<kMap>(_mm256_loadu_ps(p + i)));
    p0 = Op4<kMul>(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    if (end > end2) p0 = Op4<kMul>(p0, Map4<kMap>(_mm_loadu_ps(p + end2)));
  } else {
    p0 = Map4<kMap>(_mm_loadu_ps(p + lead));
  }
  alignas(16) float l[4];
  _mm_store_ps(l, p0);
  float r = Op1<kMul>(Op1<kMul>(l[0], l[2]), Op1<kMul>(l[1], l[3]));
  for (int64_t j = 0; j < lead; ++j) r = Op1<kMul>(r, Map1<kMap>(p[j]));
  for (int64_t j = end; j < n; ++j) r = Op1<kMul>(r, Map1<kMap>(p[j]));
  return r;
}

template <bool kMax>
inline __m256 Extreme8(__m256 v, __m256 acc) {  // v beats acc strictly, else acc (NaN v: acc)
  return kMax ? _mm256_max_ps(v, acc) : _mm256_min_ps(v, acc);
}

template <ReduceMap kMap, bool kMax>
float ExtremeRun(const float* p, int64_t n) {
  auto at = [&](int64_t j) { return Map1<kMap>(p[j]); };
  if (n < 8) return ref::FoldExtreme<kMax>(n, at);
  __m256 acc = _mm256_set1_ps(kMax ? -INFINITY : INFINITY), nan = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 v = Map8<kMap>(_mm256_loadu_ps(p + i));
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    acc = Extreme8<kMax>(v, acc);
  }
  if (!_mm256_testz_ps(nan, nan)) return ref::FoldExtreme<kMax>(n, at);
  alignas(32) float l[8];
  _mm256_store_ps(l, acc);
  float r = l[0];
  for (int k = 1; k < 8; ++k) r = (kMax ? l[k] > r : l[k] < r) ? l[k] : r;
  for (; i < n; ++i) {
    const float v = at(i);
    if (std::isnan(v)) return v;
    if (kMax ? v > r : v < r) r = v;
  }
  return r == 0.f ? ref::FoldExtreme<kMax>(n, at) : r;
}

// Eight adjacent outputs starting at `base`, each folded over the reduced offsets in order.
template <ReduceMap kMap>
__m256 Columns(const FloatReduceSpec& spec, int64_t count, const int64_t* reduced, const float* base) {
  auto at = [&](int64_t j) { return Map8<kMap>(_mm256_loadu_ps(base + reduced[j])); };
  switch (spec.fold) {
    case ReduceFold::kMax:
    case ReduceFold::kMin: {
      const bool max = spec.fold == ReduceFold::kMax;
      __m256 acc = _mm256_set1_ps(max ? -INFINITY : INFINITY), seen = _mm256_setzero_ps(), first_nan = seen;
      for (int64_t j = 0; j < count; ++j) {
        const __m256 v = at(j);
        const __m256 is_nan = _mm256_cmp_ps(v, v, _CMP_UNORD_Q);
        first_nan = _mm256_blendv_ps(first_nan, v, _mm256_andnot_ps(seen, is_nan));
        seen = _mm256_or_ps(seen, is_nan);
        acc = max ? Extreme8<true>(v, acc) : Extreme8<false>(v, acc);
      }
      return _mm256_blendv_ps(acc, first_nan, seen);
    }
    case ReduceFold::kMul: {
      __m256 acc = at(0);
      for (int64_t j = 1; j < count; ++j) acc = _mm256_mul_ps(acc, at(j));
      return acc;
    }
    case ReduceFold::kAdd:
      if (spec.order == ReduceOrder::kGroupsOfFour) {
        __m256 c = _mm256_setzero_ps();
        bool first = true;
        auto add_group = [&](__m256 t) {
          c = first ? t : _mm256_add_ps(t, c);
          first = false;
        };
        int64_t k = 0;
        for (; k + 4 <= count; k += 4) {
          add_group(_mm256_add_ps(_mm256_add_ps(_mm256_add_ps(at(k), at(k + 1)), at(k + 2)), at(k + 3)));
        }
        if (count - k >= 2) add_group(_mm256_add_ps(at(k), at(k + 1))), k += 2;
        if (count - k == 1) add_group(at(k));
        return c;
      } else {
        __m256 acc = at(0);
        for (int64_t j = 1; j < count; ++j) acc = _mm256_add_ps(acc, at(j));
        return acc;
      }
  }
  return _mm256_setzero_ps();
}

template <ReduceMap kMap>
void ReduceAll(const FloatReduceSpec& spec, int64_t outputs, const int64_t* kept, int64_t count, const int64_t* reduced,
               const float* x, float* y) {
  const bool extreme = spec.fold == ReduceFold::kMax || spec.fold == ReduceFold::kMin;
  for (int64_t i = 0; i < outputs;) {
    const float* first = x + kept[i];
    if (spec.reduced_contiguous && extreme) {
      y[i++] =
          spec.fold == ReduceFold::kMax ? ExtremeRun<kMap, true>(first, count) : ExtremeRun<kMap, false>(first, count);
    } else if (spec.reduced_contiguous && spec.order == ReduceOrder::kEigen) {
      const int64_t lead = EigenLead(kept[i]);
      y[i++] = spec.fold == ReduceFold::kMul ? EigenRun<kMap, true>(first, count, lead)
                                             : EigenRun<kMap, false>(first, count, lead);
    } else if (spec.order != ReduceOrder::kEigen && count > 0 && i + 8 <= outputs && kept[i + 7] == kept[i] + 7) {
      _mm256_storeu_ps(y + i, Columns<kMap>(spec, count, reduced, first));
      i += 8;
    } else {
      ref::FloatReduce(spec, 1, kept + i, count, reduced, x, y + i);
      ++i;
    }
  }
}

}  // namespace

void FloatReduce(const FloatReduceSpec& spec, int64_t outputs, const int64_t* kept, int64_t count,
                 const int64_t* reduced, const float* x, float* y) {
  switch (spec.map) {
    case ReduceMap::kIdentity:
      return ReduceAll<ReduceMap::kIdentity>(spec, outputs, kept, count, reduced, x, y);
    case ReduceMap::kAbs:
      return ReduceAll<ReduceMap::kAbs>(spec, outputs, kept, count, reduced, x, y);
    case ReduceMap::kSquare:
      return ReduceAll<ReduceMap::kSquare>(spec, outputs, kept, count, reduced, x, y);
  }
}

}  // namespace qrt::avx2
