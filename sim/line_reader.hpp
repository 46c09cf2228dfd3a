// Reads a text file one line at a time, counting lines, for the trace parsers; and
// the shared helpers for their error messages ("trace.csv: line 7: ...") and for
// strict number parsing (the whole field must be a finite number: "nan", "inf" and
// overflowing values are refused, so that no trace carries them into the simulator).
#pragma once

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "domain/core/result.hpp"

namespace capstan::sim {

class LineReader {
 public:
  explicit LineReader(std::string path);

  bool is_open() const { return in_.is_open(); }
  // Next non-blank line (trailing '\r' removed), or nullopt at the end of the file.
  std::optional<std::string> next();
  int line_number() const { return line_; }
  const std::string& path() const { return path_; }
  Error error(const std::string& message) const;

 private:
  std::string path_;
  std::ifstream in_;
  int line_ = 0;
};

std::vector<std::string> split_fields(const std::string& line, char sep = ',');
// False unless `text` is all one finite number.
bool parse_double(const std::string& text, double& out);
bool parse_int(const std::string& text, long long& out);

}  // namespace capstan::sim
