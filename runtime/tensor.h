// Tensor: a dtype, concrete dims and a view of bytes, owned or borrowed.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/dtype.h"
#include "runtime/status.h"

namespace qrt {

using Dims = std::vector<int64_t>;

// Limits applied to every tensor qrt allocates or reads from a file.
inline constexpr int64_t kMaxRank = 16;
inline constexpr int64_t kMaxTensorBytes = int64_t(1) << 34;  // 16 GiB

// The per-tensor byte limit in force: kMaxTensorBytes unless lowered. A process that
// takes untrusted models with a memory budget (a service, a fuzzer) lowers it once at
// start; every size check below and every Tensor::Allocate then uses the lower value.
int64_t MaxTensorBytes();
// Sets the limit for the whole process, clamped to [64, kMaxTensorBytes] (so any scalar
// fits). Thread-safe, but tensors already allocated are not revisited: set it first.
void SetMaxTensorBytes(int64_t bytes);

// Product of dims, rejecting negative dims, overflow and sizes over MaxTensorBytes()
// for element size `elem_size` (pass 1 to check counts only).
StatusOr<int64_t> CheckedElementCount(const Dims& dims, size_t elem_size = 1);

// Unchecked product of dims (callers have validated them).
int64_t ElementCount(const Dims& dims);

// "[1,3,224,224]"
std::string DimsToString(const Dims& dims);

class Tensor {
 public:
  Tensor() = default;

  // Allocates zero-filled, 64-byte aligned storage. Fails on bad or huge dims.
  static StatusOr<Tensor> Allocate(DataType dtype, Dims dims);
  // Wraps memory the caller keeps alive for the tensor's lifetime.
  static Tensor Borrow(DataType dtype, Dims dims, void* data);
  // Scalar or 1-D convenience constructors (tests and loaders).
  template <class T>
  static Tensor FromVector(const std::vector<T>& values, Dims dims);

  DataType dtype() const { return dtype_; }
  const Dims& dims() const { return dims_; }
  int64_t rank() const { return int64_t(dims_.size()); }
  int64_t numel() const { return ElementCount(dims_); }
  size_t nbytes() const { return size_t(numel()) * DataTypeSize(dtype_); }
  bool empty() const { return data_ == nullptr && numel() != 0; }

  void* raw() { return data_; }
  const void* raw() const { return data_; }
  template <class T>
  T* data() {
    return static_cast<T*>(data_);
  }
  template <class T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }
  // Points this view at other bytes of the same dtype and dims (the executor binds
  // caller buffers this way without copying or allocating).
  void set_data(void* data) {
    data_ = data;
    owner_.reset();
  }

  // Same bytes with other dims of the same element count.
  Tensor Reshaped(Dims dims) const;
  // Deep copy into fresh storage (an undefined tensor stays one).
  Tensor Clone() const;
  // Element i converted to double / int64 (for small metadata tensors; any dtype).
  double GetAsDouble(int64_t i) const;
  int64_t GetAsInt64(int64_t i) const;

 private:
  DataType dtype_ = DataType::kUndefined;
  Dims dims_;
  void* data_ = nullptr;
  std::shared_ptr<void> owner_;
};

template <class T>
Tensor Tensor::FromVector(const std::vector<T>& values, Dims dims) {
  Tensor t = Allocate(DataTypeOf<T>::value, std::move(dims)).value();
  for (size_t i = 0; i < values.size() && i < size_t(t.numel()); ++i) t.data<T>()[i] = values[i];
  return t;
}

}  // namespace qrt
