// Errors as values at domain boundaries. An Error says what failed and carries the
// offending value in its message ("sloMultiplier must be > 1.0, got 0.8"); a Result
// holds either a value or an Error. Nothing in domain/ throws across its API.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace capstan {

enum class ErrorCode {
  kInvalidArgument,   // a caller passed a value outside its documented range
  kTargetUnreachable, // an SLO target is below what the lowest rate achieves
  kModelError,        // the queue model could not be evaluated at these inputs
  kNoData,            // nothing to compute from (no metrics, no traffic)
};

struct Error {
  ErrorCode code = ErrorCode::kInvalidArgument;
  std::string message;
};

inline Error invalid_argument(std::string message) {
  return {ErrorCode::kInvalidArgument, std::move(message)};
}

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}       // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}   // NOLINT(google-explicit-constructor)
  // The value made in place, for one that is large to move (QueueAnalyzer).
  template <class... Args>
  explicit Result(std::in_place_t, Args&&... args) : v_(std::in_place_index<0>, std::forward<Args>(args)...) {}

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<Error>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace capstan
