// Prometheus text exposition format 0.0.4: one family at a time, each with its HELP and
// TYPE lines, then its samples. Names must match [a-zA-Z_:][a-zA-Z0-9_:]* and label
// names [a-zA-Z_][a-zA-Z0-9_]* (std::invalid_argument naming the name otherwise: a bad
// name is a programming error); label values are escaped (\\, \", \n). A family without
// samples writes nothing.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace capstan::admin {

inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Sample {
  Sample(Labels labels_, double value_, std::string suffix_ = {})
      : labels(std::move(labels_)), value(value_), suffix(std::move(suffix_)) {}
  Labels labels;
  double value = 0;
  std::string suffix;  // "_bucket", "_sum", "_count" of a histogram; empty otherwise
};

class PrometheusText {
 public:
  // type: "counter", "gauge" or "histogram".
  void family(const std::string& name, const std::string& type, const std::string& help,
              const std::vector<Sample>& samples);
  // A histogram from cumulative bucket counts at the upper bounds (+Inf added), sum and count.
  void histogram(const std::string& name, const std::string& help, const std::vector<double>& bounds,
                 const std::vector<double>& cumulative, double sum, double count);

  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// "1", "0.25", "NaN", "+Inf", "-Inf": exact enough to read back (%.17g trimmed).
std::string sample_value(double value);
// \\ -> \\\\, " -> \\", newline -> \\n.
std::string escape_label_value(const std::string& value);

}  // namespace capstan::admin
