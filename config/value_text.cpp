// Configured values from text; see value_text.hpp.
#include "config/value_text.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>


namespace capstan::config {
namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// The whole text as a double (finite or not); false when any of it is not a number.
bool read_double(const std::string& text, double& out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return false;
  std::string lowered = text;
  std::transform(lowered.begin(), lowered.end(), lowered.begin(), [](unsigned char c) { return std::tolower(c); });
  // YAML spells the non-finite numbers .nan, .inf and -.inf.
  if (lowered == ".nan") lowered = "nan";
  if (lowered == ".inf" || lowered == "+.inf") lowered = "inf";
  if (lowered == "-.inf") lowered = "-inf";
  char* end = nullptr;
  errno = 0;
  out = std::strtod(lowered.c_str(), &end);
  if (end != lowered.c_str() + lowered.size()) return false;
  if (errno == ERANGE && std::isinf(out)) return true;  // overflow reads as infinite: refused below
  return true;
}

// A bound as written in a rule: whole numbers in full ("31536000", not fmt_num's 3.1536e+07).
std::string bound_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.15g", v);
  return buf;
}

std::string range_text(const ValueRule& r) {
  const bool has_min = r.min > -std::numeric_limits<double>::max();
  const bool has_max = r.max < std::numeric_limits<double>::max();
  if (has_min && has_max)
    return std::string(r.min_open ? "in (" : "in [") + bound_text(r.min) + ", " + bound_text(r.max) + (r.max_open ? ")" : "]");
  if (has_min) return std::string(r.min_open ? "> " : ">= ") + bound_text(r.min);
  if (has_max) return (r.max_open ? "< " : "<= ") + bound_text(r.max);
  return "";
}

bool in_range(double v, const ValueRule& r) {
  if (r.min_open ? !(v > r.min) : !(v >= r.min)) return false;
  return r.max_open ? v < r.max : v <= r.max;
}

Error refuse(const ValueRule& rule, const std::string& text) {
  return invalid_argument("must be " + rule.describe() + ", got '" + text + "'");
}

}  // namespace

ValueRule number_rule(double min, double max, bool min_open, bool max_open) {
  return {ValueKind::kNumber, min, max, min_open, max_open, {}};
}
ValueRule duration_rule(double min, double max, bool min_open) {
  return {ValueKind::kDuration, min, max, min_open, false, {}};
}
ValueRule integer_rule(double min, double max) { return {ValueKind::kInteger, min, max, false, false, {}}; }
ValueRule kind_rule(ValueKind kind) {
  return {kind, -std::numeric_limits<double>::max(), std::numeric_limits<double>::max(), false, false, {}};
}
ValueRule choice_rule(std::vector<std::string> names) {
  ValueRule rule = kind_rule(ValueKind::kChoice);
  rule.choices = std::move(names);
  return rule;
}

std::string ValueRule::describe() const {
  const std::string range = range_text(*this);
  const std::string within = range.empty() ? "" : " " + range;
  switch (kind) {
    case ValueKind::kNumber: return "a finite number" + within;
    case ValueKind::kDuration: return "a duration" + within + " (30s, 5m, 500ms, 1h or seconds)";
    case ValueKind::kInteger: return "an integer" + within;
    case ValueKind::kUnsigned: return "an integer >= 0";
    case ValueKind::kBoolean: return "true or false";
    case ValueKind::kChoice: {
      std::string names;
      for (const auto& c : choices) names += (names.empty() ? "" : ", ") + c;
      return "one of " + names;
    }
    case ValueKind::kText: return "a non-empty string";
    case ValueKind::kPath: return "a non-empty path";
  }
  return "";
}

Result<double> parse_duration(const std::string& raw) {
  const std::string text = trimmed(raw);
  static const std::pair<const char*, double> kUnits[] = {{"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}};
  double scale = 1;
  std::string number = text;
  for (const auto& [suffix, seconds] : kUnits) {
    const std::string s = suffix;
    if (text.size() > s.size() && text.compare(text.size() - s.size(), s.size(), s) == 0) {
      number = text.substr(0, text.size() - s.size());
      scale = seconds;
      break;
    }
  }
  double v = 0;
  if (!read_double(number, v) || (!number.empty() && !std::isdigit(static_cast<unsigned char>(number.back())) &&
                                  number.back() != '.'))
    return invalid_argument("must be a duration (30s, 5m, 500ms, 1h or seconds), got '" + raw + "'");
  return v * scale;
}

Result<Value> parse_value(const std::string& raw, const ValueRule& rule) {
  const std::string text = trimmed(raw);
  switch (rule.kind) {
    case ValueKind::kNumber:
    case ValueKind::kDuration:
    case ValueKind::kInteger: {
      double v = 0;
      if (rule.kind == ValueKind::kDuration) {
        auto d = parse_duration(text);
        if (!d.ok()) return refuse(rule, raw);
        v = d.value();
      } else if (!read_double(text, v)) {
        return refuse(rule, raw);
      }
      if (!std::isfinite(v)) return invalid_argument("must be a finite number, got '" + raw + "'");
      if (rule.kind == ValueKind::kInteger && v != std::floor(v)) return refuse(rule, raw);
      if (!in_range(v, rule)) return refuse(rule, raw);
      if (rule.kind == ValueKind::kInteger) return Value{static_cast<long long>(v)};
      return Value{v};
    }
    case ValueKind::kUnsigned: {
      if (text.empty() || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }))
        return refuse(rule, raw);
      errno = 0;
      const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
      if (errno == ERANGE) return refuse(rule, raw);
      return Value{static_cast<std::uint64_t>(v)};
    }
    case ValueKind::kBoolean:
      if (text == "true") return Value{true};
      if (text == "false") return Value{false};
      return refuse(rule, raw);
    case ValueKind::kChoice:
      if (std::find(rule.choices.begin(), rule.choices.end(), text) == rule.choices.end()) return refuse(rule, raw);
      return Value{text};
    case ValueKind::kText:
    case ValueKind::kPath:
      if (text.empty()) return refuse(rule, raw);
      return Value{text};
  }
  return refuse(rule, raw);
}

}  // namespace capstan::config
