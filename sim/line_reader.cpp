// Line-by-line reading and strict field parsing for the trace parsers; see line_reader.hpp.
#include "sim/line_reader.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace capstan::sim {

LineReader::LineReader(std::string path) : path_(std::move(path)), in_(path_) {}

std::optional<std::string> LineReader::next() {
  std::string line;
  while (std::getline(in_, line)) {
    ++line_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") != std::string::npos) return line;
  }
  return std::nullopt;
}

Error LineReader::error(const std::string& message) const {
  return invalid_argument(path_ + ": line " + std::to_string(line_) + ": " + message);
}

std::vector<std::string> split_fields(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string::size_type start = 0;
  for (;;) {
    const auto pos = line.find(sep, start);
    std::string field = line.substr(start, pos == std::string::npos ? std::string::npos : pos - start);
    const auto b = field.find_first_not_of(" \t");
    const auto e = field.find_last_not_of(" \t");
    out.push_back(b == std::string::npos ? "" : field.substr(b, e - b + 1));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

bool parse_double(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return errno == 0 && end == text.c_str() + text.size() && std::isfinite(out);
}

bool parse_int(const std::string& text, long long& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtoll(text.c_str(), &end, 10);
  return errno == 0 && end == text.c_str() + text.size();
}

}  // namespace capstan::sim
