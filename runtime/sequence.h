// Run-time values that are not one tensor: ONNX's sequence type (an ordered list of tensors of
// one element type) and an optional without a value. Such values never live in the arena: the
// plan leaves them, and every node that reads them, to run time (runtime/plan.h, kDynamic).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/tensor.h"

namespace qrt {

enum class ValueKind : uint8_t {
  kTensor,
  kSequence,
  kNone,  // an optional holding nothing
};

const char* ValueKindName(ValueKind kind);

struct Sequence {
  DataType dtype = DataType::kUndefined;  // every item's (an empty sequence keeps it too)
  std::vector<Tensor> items;              // each owns its bytes
};

// A value a run reads or produces.
struct RunValue {
  ValueKind kind = ValueKind::kTensor;
  Tensor tensor;                             // kTensor
  std::shared_ptr<const Sequence> sequence;  // kSequence
  static RunValue Of(Tensor t) { return RunValue{ValueKind::kTensor, std::move(t), nullptr}; }
  static RunValue Of(std::shared_ptr<const Sequence> s) {
    return RunValue{ValueKind::kSequence, Tensor(), std::move(s)};
  }
  static RunValue None() { return RunValue{ValueKind::kNone, Tensor(), nullptr}; }
};

}  // namespace qrt
