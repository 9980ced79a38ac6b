// Element types qrt knows, their sizes, names and ONNX codes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace qrt {

enum class DataType : uint8_t {
  kUndefined = 0,
  kFloat32,
  kFloat16,
  kBFloat16,
  kFloat64,
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kInt64,
  kBool,
  kUInt32,
  kUInt64,
  // 4-bit integers, one per byte in memory (packed two per byte only in files), and the 8-bit
  // floats of ONNX opset 19+ (runtime/float8.h): quantized types of QuantizeLinear and
  // DequantizeLinear.
  kInt4,
  kUInt4,
  kFloat8E4M3FN,
  kFloat8E4M3FNUZ,
  kFloat8E5M2,
  kFloat8E5M2FNUZ,
};

// Bytes per element; 0 for kUndefined.
size_t DataTypeSize(DataType t);

// Canonical name: "float32", "uint8", ... ("undefined" for kUndefined).
std::string_view DataTypeName(DataType t);

// Parses a canonical name, a numpy/ONNX spelling ("float", "double", "half",
// "bfloat16", "int", "bool_") or a TensorFlow quantized alias (qint8, quint8,
// qint16, quint16, qint32). Returns nullopt for anything else.
std::optional<DataType> ParseDataType(std::string_view name);

// ONNX TensorProto.DataType code <-> DataType. Unknown codes give nullopt.
std::optional<DataType> DataTypeFromOnnx(int onnx_code);
int OnnxCodeFromDataType(DataType t);

bool IsFloatType(DataType t);    // f32, f16, bf16, f64
bool IsFloat8Type(DataType t);   // the four 8-bit floats
bool Is4BitType(DataType t);     // int4, uint4
bool IsIntegerType(DataType t);  // every int type (not bool)
bool IsSignedInteger(DataType t);
inline bool Is8BitInteger(DataType t) { return t == DataType::kInt8 || t == DataType::kUInt8; }

// Compile-time mapping from C++ type to DataType.
template <class T>
struct DataTypeOf;
template <>
struct DataTypeOf<float> {
  static constexpr DataType value = DataType::kFloat32;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType value = DataType::kFloat64;
};
template <>
struct DataTypeOf<int8_t> {
  static constexpr DataType value = DataType::kInt8;
};
template <>
struct DataTypeOf<uint8_t> {
  static constexpr DataType value = DataType::kUInt8;
};
template <>
struct DataTypeOf<int16_t> {
  static constexpr DataType value = DataType::kInt16;
};
template <>
struct DataTypeOf<uint16_t> {
  static constexpr DataType value = DataType::kUInt16;
};
template <>
struct DataTypeOf<int32_t> {
  static constexpr DataType value = DataType::kInt32;
};
template <>
struct DataTypeOf<int64_t> {
  static constexpr DataType value = DataType::kInt64;
};
template <>
struct DataTypeOf<bool> {
  static constexpr DataType value = DataType::kBool;
};
template <>
struct DataTypeOf<uint32_t> {
  static constexpr DataType value = DataType::kUInt32;
};
template <>
struct DataTypeOf<uint64_t> {
  static constexpr DataType value = DataType::kUInt64;
};

}  // namespace qrt
