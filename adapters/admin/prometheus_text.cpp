// The exposition writer; see prometheus_text.hpp.
#include "adapters/admin/prometheus_text.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace capstan::admin {
namespace {

bool valid_name(const std::string& name, bool colon) {
  if (name.empty()) return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
    if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
  }
  return true;
}

void check_name(const std::string& name, bool colon, const char* what) {
  if (!valid_name(name, colon)) throw std::invalid_argument(std::string("prometheus ") + what + " '" + name + "' is not valid");
}

// HELP text escapes only backslash and newline.
std::string escape_help(const std::string& help) {
  std::string out;
  for (char c : help) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

}  // namespace

std::string sample_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  // The shortest of %.15g .. %.17g that reads back exactly.
  for (int precision = 15; precision < 17; ++precision) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", precision, value);
    if (std::strtod(shorter, nullptr) == value) return shorter;
  }
  return text;
}

std::string escape_label_value(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

void PrometheusText::family(const std::string& name, const std::string& type, const std::string& help,
                            const std::vector<Sample>& samples) {
  check_name(name, true, "metric name");
  if (samples.empty()) return;
  text_ += "# HELP " + name + " " + escape_help(help) + "\n# TYPE " + name + " " + type + "\n";
  for (const Sample& s : samples) {
    text_ += name + s.suffix;
    if (!s.labels.empty()) {
      text_ += '{';
      for (std::size_t i = 0; i < s.labels.size(); ++i) {
        check_name(s.labels[i].first, false, "label name");
        text_ += (i ? "," : "") + s.labels[i].first + "=\"" + escape_label_value(s.labels[i].second) + "\"";
      }
      text_ += '}';
    }
    text_ += " " + sample_value(s.value) + "\n";
  }
}

void PrometheusText::histogram(const std::string& name, const std::string& help, const std::vector<double>& bounds,
                               const std::vector<double>& cumulative, double sum, double count) {
  std::vector<Sample> samples;
  for (std::size_t i = 0; i < bounds.size(); ++i)
    samples.push_back({{{"le", sample_value(bounds[i])}}, i < cumulative.size() ? cumulative[i] : count, "_bucket"});
  samples.push_back({{{"le", "+Inf"}}, count, "_bucket"});
  samples.push_back({{}, sum, "_sum"});
  samples.push_back({{}, count, "_count"});
  family(name, "histogram", help, samples);
}

}  // namespace capstan::admin
