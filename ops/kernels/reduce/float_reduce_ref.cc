// Reference FloatReduce (float_reduce.h): each output folded one element at a time.
#include "ops/kernels/reduce/float_reduce.h"

namespace qrt::ref {
namespace {

template <ReduceMap kMap>
float Mapped(float v) {
  if constexpr (kMap == ReduceMap::kAbs) return std::fabs(v);
  if constexpr (kMap == ReduceMap::kSquare) return v * v;
  return v;
}

template <ReduceMap kMap>
float FoldOne(const FloatReduceSpec& spec, int64_t count, const int64_t* reduced, const float* first, int64_t lead) {
  auto at = [&](int64_t j) { return Mapped<kMap>(first[reduced[j]]); };
  auto add = [](float a, float b) { return a + b; };
  auto mul = [](float a, float b) { return a * b; };
  switch (spec.fold) {
    case ReduceFold::kMax:
      return FoldExtreme<true>(count, at);
    case ReduceFold::kMin:
      return FoldExtreme<false>(count, at);
    case ReduceFold::kMul:
      return spec.order == ReduceOrder::kEigen ? FoldEigen(count, lead, 1.f, at, mul)
                                               : FoldSequential(count, 1.f, at, mul);
    case ReduceFold::kAdd:
      if (spec.order == ReduceOrder::kEigen) return FoldEigen(count, lead, 0.f, at, add);
      if (spec.order == ReduceOrder::kGroupsOfFour) return SumGroupsOfFour(count, at);
      return FoldSequential(count, 0.f, at, add);
  }
  return 0.f;
}

template <ReduceMap kMap>
void ReduceAll(const FloatReduceSpec& spec, int64_t outputs, const int64_t* kept, int64_t count, const int64_t* reduced,
               const float* x, float* y) {
  for (int64_t i = 0; i < outputs; ++i) y[i] = FoldOne<kMap>(spec, count, reduced, x + kept[i], EigenLead(kept[i]));
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

}  // namespace qrt::ref
