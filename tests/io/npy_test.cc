// .npy reading and writing: numpy-written goldens (tests/data/io/npy, made by
// tests/data/io/gen_io_goldens.py), round trips, and malformed in-memory files.
#include "loaders/npy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace qrt {
namespace {

std::string GoldenPath(const std::string& file) { return std::string(QRT_SOURCE_DIR) + "/tests/data/io/npy/" + file; }

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string TempPath(const std::string& file) {
  return ::testing::TempDir() + "qrt_npy_test_" + std::to_string(getpid()) + "_" + file;
}

template <class T>
Tensor Make(DataType dtype, Dims dims, const std::vector<T>& values) {
  Tensor t = Tensor::Allocate(dtype, std::move(dims)).value();
  EXPECT_EQ(t.nbytes(), values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(t.raw(), values.data(), t.nbytes());
  return t;
}

// The values gen_io_goldens.py writes, keyed by file stem.
Tensor Expected(const std::string& key) {
  if (key == "f32") return Make<float>(DataType::kFloat32, {2, 3}, {0.0f, 1.5f, -2.25f, 3.0f, -0.125f, 1024.0f});
  if (key == "f16") return Make<uint16_t>(DataType::kFloat16, {3}, {0x3C00, 0xC100, 0x7BFF});
  if (key == "bf16") return Make<uint16_t>(DataType::kBFloat16, {3}, {0x3F80, 0xC020, 0x4049});
  if (key == "f64") return Make<double>(DataType::kFloat64, {2}, {0.1, -1e300});
  if (key == "i8") return Make<int8_t>(DataType::kInt8, {4}, {-128, -1, 0, 127});
  if (key == "u8") return Make<uint8_t>(DataType::kUInt8, {2, 2}, {0, 1, 128, 255});
  if (key == "i16") return Make<int16_t>(DataType::kInt16, {3}, {-32768, 0, 32767});
  if (key == "u16") return Make<uint16_t>(DataType::kUInt16, {2}, {0, 65535});
  if (key == "i32") return Make<int32_t>(DataType::kInt32, {3}, {INT32_MIN, 7, INT32_MAX});
  if (key == "i64") return Make<int64_t>(DataType::kInt64, {2}, {INT64_MIN, INT64_MAX});
  if (key == "bool") return Make<uint8_t>(DataType::kBool, {3}, {1, 0, 1});
  ADD_FAILURE() << "no expectation for " << key;
  return Tensor();
}

void ExpectSameTensor(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype()) << DataTypeName(got.dtype()) << " vs " << DataTypeName(want.dtype());
  ASSERT_EQ(got.dims(), want.dims()) << DimsToString(got.dims()) << " vs " << DimsToString(want.dims());
  ASSERT_EQ(got.nbytes(), want.nbytes());
  if (want.nbytes()) {
    EXPECT_EQ(std::memcmp(got.raw(), want.raw(), want.nbytes()), 0);
  }
}

const char* const kNumpyKeys[] = {"f32", "f16", "f64", "i8", "u8", "i16", "u16", "i32", "i64", "bool"};

TEST(NpyTest, ReadsNumpyGoldenForEveryDtype) {
  for (const char* key : kNumpyKeys) {
    SCOPED_TRACE(key);
    StatusOr<Tensor> t = ReadNpy(GoldenPath(std::string(key) + ".npy"));
    ASSERT_TRUE(t.ok()) << t.status().message();
    ExpectSameTensor(*t, Expected(key));
  }
}

TEST(NpyTest, WritesBytesIdenticalToNumpy) {
  for (const char* key : kNumpyKeys) {
    SCOPED_TRACE(key);
    const std::string path = TempPath(std::string(key) + ".npy");
    ASSERT_TRUE(WriteNpy(path, Expected(key)).ok());
    EXPECT_EQ(ReadBytes(path), ReadBytes(GoldenPath(std::string(key) + ".npy")));
    std::remove(path.c_str());
  }
}

TEST(NpyTest, ScalarAndEmpty) {
  StatusOr<Tensor> scalar = ReadNpy(GoldenPath("scalar_f32.npy"));
  ASSERT_TRUE(scalar.ok()) << scalar.status().message();
  ExpectSameTensor(*scalar, Make<float>(DataType::kFloat32, {}, {3.5f}));

  StatusOr<Tensor> empty = ReadNpy(GoldenPath("empty_f32.npy"));
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->dims(), (Dims{0, 3}));

  // Writing them reproduces numpy's files byte for byte too.
  for (const char* file : {"scalar_f32.npy", "empty_f32.npy"}) {
    const std::string path = TempPath(file);
    ASSERT_TRUE(WriteNpy(path, std::string(file) == "scalar_f32.npy" ? *scalar : *empty).ok());
    EXPECT_EQ(ReadBytes(path), ReadBytes(GoldenPath(file))) << file;
    std::remove(path.c_str());
  }
}

TEST(NpyTest, BigEndianIsByteSwapped) {
  StatusOr<Tensor> i4 = ReadNpy(GoldenPath("big_endian_i4.npy"));
  ASSERT_TRUE(i4.ok()) << i4.status().message();
  ExpectSameTensor(*i4, Make<int32_t>(DataType::kInt32, {2}, {1, -2}));
  StatusOr<Tensor> f8 = ReadNpy(GoldenPath("big_endian_f8.npy"));
  ASSERT_TRUE(f8.ok()) << f8.status().message();
  ExpectSameTensor(*f8, Make<double>(DataType::kFloat64, {1}, {-0.5}));
}

TEST(NpyTest, FormatVersions2And3) {
  for (const char* file : {"v2_f32.npy", "v3_f32.npy"}) {
    StatusOr<Tensor> t = ReadNpy(GoldenPath(file));
    ASSERT_TRUE(t.ok()) << file << ": " << t.status().message();
    ExpectSameTensor(*t, Make<float>(DataType::kFloat32, {2}, {1.0f, 2.0f}));
  }
}

TEST(NpyTest, FortranOrderIsRejected) {
  StatusOr<Tensor> t = ReadNpy(GoldenPath("fortran_f32.npy"));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(t.status().message().find("Fortran order is not supported"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("fortran_f32.npy"), std::string::npos);
}

TEST(NpyTest, RoundTripEveryNumpyDtype) {
  for (const char* key : kNumpyKeys) {
    SCOPED_TRACE(key);
    const Tensor want = Expected(key);
    const std::string path = TempPath(std::string("rt_") + key + ".npy");
    ASSERT_TRUE(WriteNpy(path, want).ok());
    StatusOr<Tensor> got = ReadNpy(path);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ExpectSameTensor(*got, want);
    std::remove(path.c_str());
  }
}

TEST(NpyTest, RoundTripRank4AndZeroDims) {
  Tensor t = Tensor::Allocate(DataType::kInt16, {2, 1, 3, 2}).value();
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int16_t>()[i] = int16_t(i * 1000 - 5000);
  for (const Tensor& want : {t, Tensor::Allocate(DataType::kUInt8, {4, 0, 2}).value()}) {
    const std::string path = TempPath("rt_rank.npy");
    ASSERT_TRUE(WriteNpy(path, want).ok());
    StatusOr<Tensor> got = ReadNpy(path);
    ASSERT_TRUE(got.ok()) << got.status().message();
    ExpectSameTensor(*got, want);
    std::remove(path.c_str());
  }
}

TEST(NpyTest, WritingBFloat16IsUnsupported) {
  Status s = WriteNpy(TempPath("bf16.npy"), Expected("bf16"));
  EXPECT_EQ(s.code(), StatusCode::kUnsupported);
  EXPECT_NE(s.message().find("bfloat16"), std::string::npos) << s.message();
}

TEST(NpyTest, WritingToBadPathIsIoError) {
  Status s = WriteNpy("/nonexistent-dir/x.npy", Expected("f32"));
  EXPECT_EQ(s.code(), StatusCode::kIoError) << s.message();
  EXPECT_NE(s.message().find("/nonexistent-dir/x.npy"), std::string::npos);
}

TEST(NpyTest, MissingFileAndDirectory) {
  StatusOr<Tensor> t = ReadNpy(GoldenPath("no_such_file.npy"));
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
  EXPECT_NE(t.status().message().find("no_such_file.npy"), std::string::npos);
  EXPECT_EQ(ReadNpy(std::string(QRT_SOURCE_DIR) + "/tests/data/io/npy").status().code(), StatusCode::kInvalidArgument);
}

// ---- malformed in-memory files ------------------------------------------------

// A version-`major`.0 file with `dict` as its header (no padding) and `payload`.
std::string MakeNpy(const std::string& dict, const std::string& payload, int major = 1) {
  std::string out("\x93NUMPY", 6);
  out += char(major);
  out += '\0';
  const std::string header = dict + "\n";
  out += char(header.size() & 0xff);
  out += char((header.size() >> 8) & 0xff);
  if (major != 1) {
    out += '\0';
    out += '\0';
  }
  return out + header + payload;
}

StatusOr<Tensor> Parse(const std::string& bytes) { return ParseNpy(bytes.data(), bytes.size(), "mem.npy"); }

std::string F32Payload(int n) { return std::string(size_t(n) * 4, '\0'); }

TEST(NpyTest, ParsesMinimalInMemoryFiles) {
  StatusOr<Tensor> t = Parse(MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", F32Payload(2)));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dims(), Dims{2});
  // Double quotes, no trailing comma, odd spacing, Python 2 longs, version 2.0.
  t = Parse(MakeNpy("{\"shape\":(1L,3L),\"descr\":\"<i4\",\"fortran_order\":False}", std::string(12, '\x01'), 2));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->dtype(), DataType::kInt32);
  EXPECT_EQ(t->dims(), (Dims{1, 3}));
  EXPECT_EQ(t->data<int32_t>()[2], 0x01010101);
}

TEST(NpyTest, BadMagicAndTruncatedPreamble) {
  EXPECT_EQ(Parse("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseNpy(nullptr, 0, "null").status().code(), StatusCode::kInvalidArgument);
  StatusOr<Tensor> t = Parse("\x93NUMPZ\x01\x00\x10\x00");
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("bad magic"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("mem.npy"), std::string::npos);
  EXPECT_EQ(Parse(std::string("\x93NUMPY", 6)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Parse(std::string("\x93NUMPY\x01\x00\x10", 9)).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Parse(std::string("\x93NUMPY\x02\x00\x10\x00\x00", 11)).status().code(), StatusCode::kInvalidArgument);
}

TEST(NpyTest, UnknownVersionIsUnsupported) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (), }";
  std::string v4 = MakeNpy(dict, F32Payload(1), 4);
  EXPECT_EQ(Parse(v4).status().code(), StatusCode::kUnsupported);
  std::string v11 = MakeNpy(dict, F32Payload(1));
  v11[7] = 1;
  EXPECT_EQ(Parse(v11).status().code(), StatusCode::kUnsupported);
}

TEST(NpyTest, HeaderLengthPastEndOrOverLimit) {
  std::string bytes = MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", F32Payload(1));
  bytes[8] = '\xff';
  bytes[9] = '\x7f';
  StatusOr<Tensor> t = Parse(bytes);
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("truncated"), std::string::npos) << t.status().message();

  std::string huge = MakeNpy("{}", "", 2);
  huge[8] = huge[9] = huge[10] = huge[11] = '\xff';
  EXPECT_EQ(Parse(huge).status().code(), StatusCode::kResourceExhausted);
}

TEST(NpyTest, MalformedHeadersAreInvalidArgument) {
  const char* const kBad[] = {
      "",
      "{",
      "[]",
      "{'descr': '<f4', 'fortran_order': False}",
      "{'descr': '<f4', 'shape': ()}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'extra': 1}",
      "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': ()}",
      "{'descr': '<f4', 'fortran_order': False, 'fortran_order': False, 'shape': ()}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (), 'shape': ()}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': 6}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}",
      "{'descr': <f4, 'fortran_order': False, 'shape': ()}",
      "{'descr': '<f4, 'fortran_order': False, 'shape': ()}",
      "{'descr': '<f\\x34', 'fortran_order': False, 'shape': ()}",
      "{'descr': '<f4', 'fortran_order': 0, 'shape': ()}",
      "{'descr': '<f4', 'fortran_order': Fals, 'shape': ()}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': ()} x",
      "{'descr': '<f4' 'fortran_order': False, 'shape': ()}",
      "{descr: '<f4', 'fortran_order': False, 'shape': ()}",
      "{'descr' '<f4', 'fortran_order': False, 'shape': ()}",
  };
  for (const char* dict : kBad) {
    StatusOr<Tensor> t = Parse(MakeNpy(dict, F32Payload(1)));
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument) << dict << " -> " << t.status().message();
  }
}

TEST(NpyTest, UnknownDescrIsUnsupported) {
  for (const char* descr : {"<c8", "|O", "<V2", "<U5", "|f4", "=f4", "<f16", "f4", "<", "", "<M8[ns]", "<b1x"}) {
    StatusOr<Tensor> t =
        Parse(MakeNpy(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (1,)}", F32Payload(1)));
    EXPECT_EQ(t.status().code(), StatusCode::kUnsupported) << descr << " -> " << t.status().message();
    EXPECT_NE(t.status().message().find(std::string("'") + descr + "'"), std::string::npos) << t.status().message();
  }
  StatusOr<Tensor> structured =
      Parse(MakeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", F32Payload(1)));
  EXPECT_EQ(structured.status().code(), StatusCode::kUnsupported) << structured.status().message();
}

TEST(NpyTest, SingleByteDescrsAcceptAnyByteOrder) {
  for (const char* descr : {"|u1", "<u1", ">u1", "=u1", "|b1", "|?"}) {
    StatusOr<Tensor> t = Parse(MakeNpy(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,)}",
                                       std::string("\x01\x00", 2)));
    ASSERT_TRUE(t.ok()) << descr << ": " << t.status().message();
    EXPECT_EQ(t->data<uint8_t>()[0], 1);
  }
}

TEST(NpyTest, DataSizeMismatch) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}";
  for (int n : {0, 5, 7}) {
    StatusOr<Tensor> t = Parse(MakeNpy(dict, F32Payload(n)));
    EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument) << n;
    EXPECT_NE(t.status().message().find("expected 24"), std::string::npos) << t.status().message();
  }
}

TEST(NpyTest, HugeShapeFailsBeforeAllocating) {
  StatusOr<Tensor> t = Parse(
      MakeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776)}", F32Payload(1)));
  EXPECT_EQ(t.status().code(), StatusCode::kResourceExhausted) << t.status().message();
  std::string rank17 = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
  for (int i = 0; i < 17; ++i) rank17 += "1,";
  rank17 += ")}";
  EXPECT_EQ(Parse(MakeNpy(rank17, F32Payload(1))).status().code(), StatusCode::kResourceExhausted);
}

TEST(NpyTest, BoolBytesMustBeZeroOrOne) {
  StatusOr<Tensor> t = Parse(MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (2,)}", "\x01\x02"));
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidArgument) << t.status().message();
}

TEST(NpyTest, EveryTruncationOfAGoldenFails) {
  const std::string bytes = ReadBytes(GoldenPath("f32.npy"));
  ASSERT_FALSE(bytes.empty());
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(ParseNpy(bytes.data(), n, "cut").ok()) << n;
  }
  // Same on disk, through the streaming reader.
  const std::string path = TempPath("cut.npy");
  for (size_t n : {size_t(0), size_t(9), size_t(64), bytes.size() - 1}) {
    std::ofstream(path, std::ios::binary) << bytes.substr(0, n);
    StatusOr<Tensor> t = ReadNpy(path);
    EXPECT_FALSE(t.ok()) << n;
    EXPECT_NE(t.status().message().find(path), std::string::npos);
  }
  std::remove(path.c_str());
}

// Random corruption of a valid file must yield a tensor or an error, never a crash
// (the sanitizer build turns out-of-bounds reads into failures).
TEST(NpyTest, RandomCorruptionNeverCrashes) {
  const std::string golden = ReadBytes(GoldenPath("f32.npy"));
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 2000; ++iter) {
    std::string bytes = golden;
    const int flips = 1 + int(rng() % 4);
    for (int k = 0; k < flips; ++k) bytes[rng() % bytes.size()] = char(rng());
    StatusOr<Tensor> t = ParseNpy(bytes.data(), bytes.size(), "fuzz");
    if (t.ok()) {
      EXPECT_LE(t->nbytes(), bytes.size()) << "seed 12345 iter " << iter;
    }
  }
}

}  // namespace
}  // namespace qrt
