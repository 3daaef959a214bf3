// Result<T> and Error: how every fallible strobe function reports failure.
//
// Owns: nothing beyond its value. An Error carries a one-line message, an
// optional hint (what the user should do), the errno that caused it (0 when
// none) and free-form context (a path, pid or offset already formatted into
// the message). Thread safety: plain values. Not async-signal-safe (allocates).
#pragma once

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>
#include <variant>

namespace strobe {

// What kind of failure, so the CLI can map it to an exit status.
enum class ErrorKind {
  kGeneric,        // anything else (exit 1)
  kUsage,          // bad arguments or input from the user (exit 2)
  kPermission,     // the kernel refused: perf_event_paranoid, capabilities, ptrace (exit 3)
  kNotFound,       // command, pid or file not found
  kUnsupported,    // the hardware or kernel lacks it (no PMU, old kernel)
  kCorrupt,        // malformed input data (a recording, an ELF file, a record)
  kCannotExecute,  // a command exists but exec(2) refused it (exit 126)
};

struct Error {
  std::string message;  // one line: what went wrong, with context
  std::string hint;     // one line: what to do about it (may be empty)
  int errnum = 0;       // errno at the failure, 0 when not a system error
  ErrorKind kind = ErrorKind::kGeneric;

  // "message: strerror(errnum)" when errnum is set.
  [[nodiscard]] std::string describe() const {
    if (errnum == 0) return message;
    return message + ": " + std::strerror(errnum);
  }
};

inline Error makeError(std::string message, std::string hint = {},
                       ErrorKind kind = ErrorKind::kGeneric) {
  return Error{std::move(message), std::move(hint), 0, kind};
}
// Captures errno at the call.
inline Error systemError(std::string message, std::string hint = {},
                         ErrorKind kind = ErrorKind::kGeneric) {
  return Error{std::move(message), std::move(hint), errno, kind};
}

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<1>(v_); }
  Error&& takeError() { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>: success carries nothing.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT

  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  const Error& error() const { return error_; }
  Error&& takeError() { return std::move(error_); }

 private:
  Error error_;
  bool ok_ = true;
};

using Status = Result<void>;

}  // namespace strobe
