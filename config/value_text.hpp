// Reading one configured value from its text, the one form every layer gives it in: a
// YAML/JSON scalar, a ConfigMap file's content, an environment variable, a flag. A rule
// says what the text must be (a duration, a number in a range, an integer, a boolean,
// one of a few names, a path); the error states the rule and the text, and the caller
// puts the source and key in front: "file capstan.yaml: tick_s " + "must be > 0, got 0".
//
// Durations: "30s", "5m", "500ms", "1h" or a plain number of seconds. Numbers must be
// finite: NaN and the infinities (".nan", "inf", ...) are refused whatever the range.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "domain/core/result.hpp"

namespace capstan::config {

enum class ValueKind { kNumber, kDuration, kInteger, kUnsigned, kBoolean, kChoice, kText, kPath };

struct ValueRule {
  ValueKind kind = ValueKind::kNumber;
  double min = -std::numeric_limits<double>::max();  // numbers, durations, integers
  double max = std::numeric_limits<double>::max();
  bool min_open = false;                              // min < value rather than min <= value
  bool max_open = false;                              // value < max rather than value <= max
  std::vector<std::string> choices;                   // kChoice

  std::string describe() const;  // "a duration >= 0 (30s, 5m, 500ms, 1h or seconds)"
};

ValueRule number_rule(double min, double max, bool min_open = false, bool max_open = false);
ValueRule duration_rule(double min, double max, bool min_open = false);
ValueRule integer_rule(double min, double max);
ValueRule kind_rule(ValueKind kind);  // kUnsigned, kBoolean, kText, kPath: no range
ValueRule choice_rule(std::vector<std::string> names);

// A number (double), an integer (long long), an unsigned 64-bit integer, a boolean or a string.
using Value = std::variant<double, long long, std::uint64_t, bool, std::string>;

// Errors (kInvalidArgument) with "must be <rule>, got '<text>'", without a source or key.
Result<Value> parse_value(const std::string& text, const ValueRule& rule);

// Seconds from "30s", "5m", "500ms", "1h" or "12.5"; errors on anything else.
Result<double> parse_duration(const std::string& text);

}  // namespace capstan::config
