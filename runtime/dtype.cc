#include "runtime/dtype.h"

#include <string>

namespace qrt {

size_t DataTypeSize(DataType t) {
  switch (t) {
    case DataType::kUndefined:
      return 0;
    case DataType::kFloat32:
      return 4;
    case DataType::kFloat16:
      return 2;
    case DataType::kBFloat16:
      return 2;
    case DataType::kFloat64:
      return 8;
    case DataType::kInt8:
      return 1;
    case DataType::kUInt8:
      return 1;
    case DataType::kInt16:
      return 2;
    case DataType::kUInt16:
      return 2;
    case DataType::kInt32:
      return 4;
    case DataType::kInt64:
      return 8;
    case DataType::kBool:
      return 1;
    case DataType::kUInt32:
      return 4;
    case DataType::kUInt64:
      return 8;
    case DataType::kInt4:
    case DataType::kUInt4:
    case DataType::kFloat8E4M3FN:
    case DataType::kFloat8E4M3FNUZ:
    case DataType::kFloat8E5M2:
    case DataType::kFloat8E5M2FNUZ:
      return 1;
  }
  return 0;
}

std::string_view DataTypeName(DataType t) {
  switch (t) {
    case DataType::kUndefined:
      return "undefined";
    case DataType::kFloat32:
      return "float32";
    case DataType::kFloat16:
      return "float16";
    case DataType::kBFloat16:
      return "bfloat16";
    case DataType::kFloat64:
      return "float64";
    case DataType::kInt8:
      return "int8";
    case DataType::kUInt8:
      return "uint8";
    case DataType::kInt16:
      return "int16";
    case DataType::kUInt16:
      return "uint16";
    case DataType::kInt32:
      return "int32";
    case DataType::kInt64:
      return "int64";
    case DataType::kBool:
      return "bool";
    case DataType::kUInt32:
      return "uint32";
    case DataType::kUInt64:
      return "uint64";
    case DataType::kInt4:
      return "int4";
    case DataType::kUInt4:
      return "uint4";
    case DataType::kFloat8E4M3FN:
      return "float8e4m3fn";
    case DataType::kFloat8E4M3FNUZ:
      return "float8e4m3fnuz";
    case DataType::kFloat8E5M2:
      return "float8e5m2";
    case DataType::kFloat8E5M2FNUZ:
      return "float8e5m2fnuz";
  }
  return "undefined";
}

std::optional<DataType> ParseDataType(std::string_view name) {
  struct Alias {
    std::string_view name;
    DataType type;
  };
  static constexpr Alias kAliases[] = {
      {"float32", DataType::kFloat32},
      {"float", DataType::kFloat32},
      {"f32", DataType::kFloat32},
      {"float16", DataType::kFloat16},
      {"half", DataType::kFloat16},
      {"f16", DataType::kFloat16},
      {"bfloat16", DataType::kBFloat16},
      {"bf16", DataType::kBFloat16},
      {"float64", DataType::kFloat64},
      {"double", DataType::kFloat64},
      {"f64", DataType::kFloat64},
      {"int8", DataType::kInt8},
      {"qint8", DataType::kInt8},
      {"s8", DataType::kInt8},
      {"uint8", DataType::kUInt8},
      {"quint8", DataType::kUInt8},
      {"u8", DataType::kUInt8},
      {"int16", DataType::kInt16},
      {"qint16", DataType::kInt16},
      {"s16", DataType::kInt16},
      {"uint16", DataType::kUInt16},
      {"quint16", DataType::kUInt16},
      {"u16", DataType::kUInt16},
      {"int32", DataType::kInt32},
      {"qint32", DataType::kInt32},
      {"s32", DataType::kInt32},
      {"int64", DataType::kInt64},
      {"int", DataType::kInt64},
      {"s64", DataType::kInt64},
      {"bool", DataType::kBool},
      {"uint32", DataType::kUInt32},
      {"u32", DataType::kUInt32},
      {"uint64", DataType::kUInt64},
      {"u64", DataType::kUInt64},
      {"bool_", DataType::kBool},
      {"int4", DataType::kInt4},
      {"uint4", DataType::kUInt4},
      {"float8e4m3fn", DataType::kFloat8E4M3FN},
      {"float8e4m3fnuz", DataType::kFloat8E4M3FNUZ},
      {"float8e5m2", DataType::kFloat8E5M2},
      {"float8e5m2fnuz", DataType::kFloat8E5M2FNUZ},
  };
  for (const Alias& a : kAliases) {
    if (a.name == name) return a.type;
  }
  return std::nullopt;
}

// Codes from onnx.proto TensorProto.DataType.
std::optional<DataType> DataTypeFromOnnx(int code) {
  switch (code) {
    case 1:
      return DataType::kFloat32;
    case 2:
      return DataType::kUInt8;
    case 3:
      return DataType::kInt8;
    case 4:
      return DataType::kUInt16;
    case 5:
      return DataType::kInt16;
    case 6:
      return DataType::kInt32;
    case 7:
      return DataType::kInt64;
    case 9:
      return DataType::kBool;
    case 10:
      return DataType::kFloat16;
    case 11:
      return DataType::kFloat64;
    case 12:
      return DataType::kUInt32;
    case 13:
      return DataType::kUInt64;
    case 16:
      return DataType::kBFloat16;
    case 17:
      return DataType::kFloat8E4M3FN;
    case 18:
      return DataType::kFloat8E4M3FNUZ;
    case 19:
      return DataType::kFloat8E5M2;
    case 20:
      return DataType::kFloat8E5M2FNUZ;
    case 21:
      return DataType::kUInt4;
    case 22:
      return DataType::kInt4;
    default:
      return std::nullopt;
  }
}

int OnnxCodeFromDataType(DataType t) {
  switch (t) {
    case DataType::kUndefined:
      return 0;
    case DataType::kFloat32:
      return 1;
    case DataType::kUInt8:
      return 2;
    case DataType::kInt8:
      return 3;
    case DataType::kUInt16:
      return 4;
    case DataType::kInt16:
      return 5;
    case DataType::kInt32:
      return 6;
    case DataType::kInt64:
      return 7;
    case DataType::kBool:
      return 9;
    case DataType::kUInt32:
      return 12;
    case DataType::kUInt64:
      return 13;
    case DataType::kFloat16:
      return 10;
    case DataType::kFloat64:
      return 11;
    case DataType::kBFloat16:
      return 16;
    case DataType::kFloat8E4M3FN:
      return 17;
    case DataType::kFloat8E4M3FNUZ:
      return 18;
    case DataType::kFloat8E5M2:
      return 19;
    case DataType::kFloat8E5M2FNUZ:
      return 20;
    case DataType::kUInt4:
      return 21;
    case DataType::kInt4:
      return 22;
  }
  return 0;
}

bool IsFloat8Type(DataType t) {
  return t == DataType::kFloat8E4M3FN || t == DataType::kFloat8E4M3FNUZ || t == DataType::kFloat8E5M2 ||
         t == DataType::kFloat8E5M2FNUZ;
}

bool Is4BitType(DataType t) { return t == DataType::kInt4 || t == DataType::kUInt4; }

bool IsFloatType(DataType t) {
  return t == DataType::kFloat32 || t == DataType::kFloat16 || t == DataType::kBFloat16 || t == DataType::kFloat64;
}

bool IsIntegerType(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUInt8 || t == DataType::kInt16 || t == DataType::kUInt16 ||
         t == DataType::kInt32 || t == DataType::kInt64 || t == DataType::kUInt32 || t == DataType::kUInt64;
}

bool IsSignedInteger(DataType t) {
  return t == DataType::kInt8 || t == DataType::kInt16 || t == DataType::kInt32 || t == DataType::kInt64;
}

}  // namespace qrt
