#include "config/value_text.hpp"

#include <catch2/catch.hpp>

using namespace capstan::config;

namespace {

const ValueRule kDuration = duration_rule(0, 86400, true);

std::string error_of(const std::string& text, const ValueRule& rule) {
  auto v = parse_value(text, rule);
  return v.ok() ? "" : v.error().message;
}

}  // namespace

TEST_CASE("Durations read in ms, s, m, h or plain seconds") {
  CHECK(parse_duration("30s").value() == 30);
  CHECK(parse_duration("5m").value() == 300);
  CHECK(parse_duration("500ms").value() == Approx(0.5));
  CHECK(parse_duration("1h").value() == 3600);
  CHECK(parse_duration("12.5").value() == 12.5);
  CHECK(std::get<double>(parse_value(" 2m ", kDuration).value()) == 120);
}

TEST_CASE("A duration without a number or with an unknown unit is refused with its text") {
  CHECK_FALSE(parse_duration("5 minutes").ok());
  CHECK_FALSE(parse_duration("m").ok());
  CHECK_FALSE(parse_duration("10d").ok());
  CHECK(error_of("soon", kDuration) == "must be a duration in (0, 86400] (30s, 5m, 500ms, 1h or seconds), got 'soon'");
  CHECK(error_of("0s", kDuration) == "must be a duration in (0, 86400] (30s, 5m, 500ms, 1h or seconds), got '0s'");
}

TEST_CASE("Numbers must be finite whatever the range, and within it") {
  const ValueRule any = number_rule(-1e300, 1e300);
  CHECK(error_of(".nan", any) == "must be a finite number, got '.nan'");
  CHECK(error_of("NaN", any) == "must be a finite number, got 'NaN'");
  CHECK(error_of("-.inf", any) == "must be a finite number, got '-.inf'");
  CHECK(error_of("1e999", any) == "must be a finite number, got '1e999'");
  const ValueRule positive = number_rule(0, 10, true);
  CHECK(error_of("0", positive) == "must be a finite number in (0, 10], got '0'");
  CHECK(error_of("12", positive) == "must be a finite number in (0, 10], got '12'");
  CHECK(error_of("3x", positive) == "must be a finite number in (0, 10], got '3x'");
  CHECK(std::get<double>(parse_value("2.5", positive).value()) == 2.5);
}

TEST_CASE("Integers, booleans, names and paths keep to their kind") {
  const ValueRule integer = integer_rule(0, 100);
  CHECK(std::get<long long>(parse_value("7", integer).value()) == 7);
  CHECK(std::get<long long>(parse_value("1.0", integer).value()) == 1);  // WVA writes priority: 1.0
  CHECK(error_of("2.5", integer) == "must be an integer in [0, 100], got '2.5'");
  CHECK(error_of("-1", integer) == "must be an integer in [0, 100], got '-1'");
  const ValueRule unsigned_rule = kind_rule(ValueKind::kUnsigned);
  CHECK(std::get<std::uint64_t>(parse_value("18446744073709551615", unsigned_rule).value()) == 18446744073709551615ull);
  CHECK(error_of("-3", unsigned_rule) == "must be an integer >= 0, got '-3'");
  const ValueRule boolean = kind_rule(ValueKind::kBoolean);
  CHECK(std::get<bool>(parse_value("false", boolean).value()) == false);
  CHECK(error_of("yes please", boolean) == "must be true or false, got 'yes please'");
  const ValueRule names = choice_rule({"sim", "dry-run"});
  CHECK(error_of("kubernetes", names) == "must be one of sim, dry-run, got 'kubernetes'");
  const ValueRule path = kind_rule(ValueKind::kPath);
  CHECK(error_of("  ", path) == "must be a non-empty path, got '  '");
}
