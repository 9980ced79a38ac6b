// Input and output files for the qrt CLI: .npy and ONNX TensorProto .pb.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace qrt::cli {

// Reads a tensor from a .npy or .pb file.
StatusOr<Tensor> ReadTensorFile(const std::string& path);

// Collects the graph's inputs from --input NAME=FILE pairs and an --inputs DIR
// (DIR/<name>.npy, else DIR/input_<k>.pb or .npy in graph-input order). Inputs found
// nowhere are left empty (Tensor with undefined dtype) unless `require_all`.
StatusOr<std::vector<Tensor>> GatherInputs(const Graph& graph, const std::vector<std::string>& pairs,
                                           const std::string& dir, bool require_all);

// Fills missing inputs with seeded random data (symbolic dims become 1).
Status FillRandomInputs(const Graph& graph, std::vector<Tensor>* inputs, uint64_t seed);

// A graph output name made safe as a file name: [A-Za-z0-9._-] kept, all else '_'.
std::string SafeFileName(const std::string& name);

}  // namespace qrt::cli
