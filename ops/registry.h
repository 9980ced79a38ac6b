// The one list of ops qrt implements, looked up by (domain, op type).
#pragma once

#include <string_view>
#include <vector>

#include "runtime/op_def.h"

namespace qrt {

// nullptr if qrt has no such op. Domain "" and "ai.onnx" are the same domain;
// "org.openvinotoolkit" is an alias of "qrt" for FakeQuantize.
const OpDef* FindOp(std::string_view domain, std::string_view op_type);

// Every registered op, for listings and tests.
const std::vector<const OpDef*>& AllOps();

// Canonical spelling of a domain ("ai.onnx" -> "").
std::string_view CanonicalDomain(std::string_view domain);

}  // namespace qrt
