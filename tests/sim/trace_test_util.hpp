// Helpers of the trace-parser tests: write an inline sample to a temporary file, and
// drain a source into a vector (or its error).
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/trace_source.hpp"

namespace capstan::sim::testing {

inline std::string write_temp(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "capstan_trace_tests";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

struct Drained {
  std::vector<Request> requests;
  std::string error;  // empty when the whole source parsed
};

inline Drained drain(TraceSource& source, std::size_t limit = 10000000) {
  Drained d;
  while (d.requests.size() < limit) {
    auto r = source.next();
    if (!r.ok()) {
      d.error = r.error().message;
      break;
    }
    if (!r.value()) break;
    d.requests.push_back(*r.value());
  }
  return d;
}

}  // namespace capstan::sim::testing
