// qrt's JSON graph format (docs/json-format.md) -> Graph.
#pragma once

#include <string>

#include "runtime/graph.h"

namespace qrt {

// Reads a .json graph; `file` initializers are resolved next to it.
StatusOr<Graph> LoadJsonFile(const std::string& path);

// Parses JSON text. `source` names it in errors; `base_dir` resolves `file` data
// (empty refuses it).
StatusOr<Graph> LoadJsonText(const std::string& text, const std::string& source, const std::string& base_dir);

}  // namespace qrt
