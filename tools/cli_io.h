// Input and output files for the qrt CLI (.npy and ONNX TensorProto .pb), through
// the public API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qrt/qrt.hpp"

namespace qrt::cli {

// Collects the graph's inputs from --input NAME=FILE pairs and an --inputs DIR
// (DIR/<name>.npy, else DIR/input_<k>.pb or .npy in graph-input order). Inputs found
// nowhere are left empty (a default Tensor) unless `require_all`.
api::Result<std::vector<api::Tensor>> GatherInputs(const api::Graph& graph, const std::string& source,
                                                   const std::vector<std::string>& pairs, const std::string& dir,
                                                   bool require_all);

// Fills the inputs left empty with seeded random data (symbolic dims become 1).
api::Status FillRandomInputs(const api::Graph& graph, std::vector<api::Tensor>* inputs, uint64_t seed);

// A graph output name made safe as a file name: [A-Za-z0-9._-] kept, all else '_'.
std::string SafeFileName(const std::string& name);

// Element i of `t` for printing: integers exactly, floats as double.
std::string FormatElement(const api::TensorView& t, size_t i);

}  // namespace qrt::cli
