// ONNX TensorProto <-> Tensor, and single-tensor .pb files (the ONNX test-runner
// layout: test_data_set_N/input_K.pb). Model files are untrusted: every size,
// path and offset is checked before anything is allocated or read.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "runtime/graph.h"
#include "runtime/sequence.h"
#include "runtime/status.h"
#include "runtime/tensor.h"

namespace qrt {

// Decodes `proto` into a freshly allocated tensor. Accepts raw_data (little-endian),
// the typed fields onnx.proto allows for the dtype, and external data, whose
// `location` is resolved relative to `model_dir` and may not be absolute or contain
// "..". Unsupported dtypes (string, complex, uint32/64, float8, ...) and segmented
// tensors give kUnsupported; malformed tensors give kInvalidArgument.
StatusOr<Tensor> TensorFromProto(const onnx::TensorProto& proto, const std::string& model_dir);

// Encodes `t` as a TensorProto named `name`, with its bytes in raw_data.
onnx::TensorProto TensorToProto(const Tensor& t, const std::string& name);

// Reads one serialized TensorProto from `path`; external data is resolved relative
// to the file's directory. If `name` is not null it receives the stored tensor name.
// Errors name the file.
StatusOr<Tensor> ReadTensorProtoFile(const std::string& path, std::string* name = nullptr);

// Reads one serialized value of the declared kind: a TensorProto, a SequenceProto (of tensors),
// or an OptionalProto (of a tensor or a sequence). `dtype`, when defined, types an empty sequence.
StatusOr<RunValue> ReadValueProtoFile(const std::string& path, DeclaredKind kind,
                                      DataType dtype = DataType::kUndefined);

// Writes `t` as a serialized TensorProto (raw_data form) named `name`. Tensors that
// do not fit a protobuf message (2 GiB) give kResourceExhausted.
Status WriteTensorProtoFile(const std::string& path, const Tensor& t, const std::string& name);

}  // namespace qrt
