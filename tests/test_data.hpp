// Reads reference cases shipped under tests/data/ (copied from ../shared/vectors with
// their "source" field), so the tests pass from a fresh clone alone.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace capstan::testing {

inline std::string data_path(const std::string& name) {
  return std::string(CAPSTAN_TEST_DATA_DIR) + "/" + name;
}

inline nlohmann::json load_json(const std::string& name) {
  std::ifstream in(data_path(name));
  if (!in) throw std::runtime_error("cannot open test data " + data_path(name));
  return nlohmann::json::parse(in);
}

}  // namespace capstan::testing
