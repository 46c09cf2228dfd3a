// The one error type command handlers throw for bad input: main() prints its message
// and exits with status 2. The message names the flag or field and the offending value.
#pragma once

#include <stdexcept>
#include <string>

namespace capstan::cli {

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

// Exit status for a decision that cannot be made from valid input (e.g. an SLO target
// no rate can meet): also 2, with its own message.
inline constexpr int kExitUsage = 2;

}  // namespace capstan::cli
