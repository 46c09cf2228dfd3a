// Output files of long-running commands are opened before the work starts, so a bad path
// fails at once (exit 2 naming the flag) rather than after minutes of simulation.
#pragma once

#include <fstream>
#include <memory>
#include <string>

#include "adapters/cli/usage_error.hpp"

namespace capstan::cli {

// nullptr for an empty path (the output was not asked for).
inline std::unique_ptr<std::ofstream> open_output(const std::string& path, const std::string& flag) {
  if (path.empty()) return nullptr;
  auto out = std::make_unique<std::ofstream>(path, std::ios::binary | std::ios::trunc);
  if (!*out) throw UsageError(flag + ": cannot write '" + path + "'");
  return out;
}

}  // namespace capstan::cli
