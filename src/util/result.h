// Result<T>: a value or a recoverable error with a message (ccache style).
// Fatal errors are thrown as FatalError and caught only in main.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace allocwatch {

struct Error {
  std::string message;
};

// Thrown for errors the program cannot go on from; main() prints the message
// and exits with exit_code (2: bad usage or profile, 1: anything else).
class FatalError : public std::runtime_error {
public:
  explicit FatalError(const std::string& message, int exit_code = 1)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

private:
  int exit_code_;
};

template <class T> class [[nodiscard]] Result {
public:
  Result(T value) : v_(std::move(value)) {}
  Result(Error error) : v_(std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

private:
  std::variant<T, Error> v_;
};

// For operations that return nothing but can fail.
struct Ok {};
using Status = Result<Ok>;

// Where an error ends the run (ccache's value_or_throw): the value, or
// FatalError with the error's message and `exit_code` (2: bad usage or
// profile, 1: anything else).
template <class T> T value_or_throw(Result<T>&& result, int exit_code = 1) {
  if (!result)
    throw FatalError(result.error().message, exit_code);
  return std::move(result.value());
}

// The same for an operation that returns nothing.
inline void throw_on_error(const Status& status, int exit_code = 1) {
  if (!status)
    throw FatalError(status.error().message, exit_code);
}

} // namespace allocwatch
