#include "runtime/sequence.h"

namespace qrt {

const char* ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kTensor:
      return "a tensor";
    case ValueKind::kSequence:
      return "a sequence";
    case ValueKind::kNone:
      return "an empty optional";
  }
  return "?";
}

}  // namespace qrt
