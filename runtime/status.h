// Status and StatusOr: qrt's error values. No exception crosses a qrt API.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace qrt {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // the model or input is wrong
  kUnsupported,        // valid, but qrt does not implement it (op, dtype, attribute)
  kNotFound,           // a named file, input or value does not exist
  kIoError,            // reading or writing a file failed
  kResourceExhausted,  // a size limit was exceeded
  kInternal,           // a bug in qrt
  kNeedsKnownValue,    // an op needs an input's value when the graph is planned
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns this error with "prefix: " in front of its message; Ok stays Ok.
  Status WithContext(std::string_view prefix) const {
    if (ok()) return *this;
    return Status(code_, std::string(prefix) + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Concatenates anything streamable into one string.
template <class... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

template <class... Args>
Status InvalidArgument(const Args&... args) {
  return Status(StatusCode::kInvalidArgument, StrCat(args...));
}
template <class... Args>
Status Unsupported(const Args&... args) {
  return Status(StatusCode::kUnsupported, StrCat(args...));
}
template <class... Args>
Status NotFound(const Args&... args) {
  return Status(StatusCode::kNotFound, StrCat(args...));
}
template <class... Args>
Status IoError(const Args&... args) {
  return Status(StatusCode::kIoError, StrCat(args...));
}
template <class... Args>
Status ResourceExhausted(const Args&... args) {
  return Status(StatusCode::kResourceExhausted, StrCat(args...));
}
template <class... Args>
Status Internal(const Args&... args) {
  return Status(StatusCode::kInternal, StrCat(args...));
}

// A value or the error that prevented it.
template <class T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design
  StatusOr(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> v_;
};

}  // namespace qrt

#define QRT_CONCAT_INNER_(a, b) a##b
#define QRT_CONCAT_(a, b) QRT_CONCAT_INNER_(a, b)

#define QRT_RETURN_IF_ERROR(expr)              \
  do {                                         \
    ::qrt::Status qrt_status_ = (expr);        \
    if (!qrt_status_.ok()) return qrt_status_; \
  } while (0)

#define QRT_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                               \
  if (!tmp.ok()) return tmp.status();              \
  lhs = std::move(tmp).value()

#define QRT_ASSIGN_OR_RETURN(lhs, expr) QRT_ASSIGN_OR_RETURN_IMPL_(QRT_CONCAT_(qrt_statusor_, __LINE__), lhs, expr)

// Programmer-error check, active in debug builds only. Never used for model validation.
#ifdef NDEBUG
#define QRT_DCHECK(cond) ((void)0)
#else
#include <cstdio>
#include <cstdlib>
#define QRT_DCHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "%s:%d: QRT_DCHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)
#endif
