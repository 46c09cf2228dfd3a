// sim/scenario.*: the shipped scenario files load; bad files fail with the file, the
// key and the rule in the message.
#include "sim/scenario.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>

using namespace capstan::sim;

namespace {

const std::string kShipped = std::string(CAPSTAN_SOURCE_DIR) + "/sim/scenarios";
const std::string kTestDir = std::string(CAPSTAN_TEST_DATA_DIR) + "/scenarios";

// A scenario file next to the test fleet, so its relative fleet path resolves.
class TempScenario {
 public:
  explicit TempScenario(const std::string& text)
      : path_(kTestDir + "/tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++) + ".yml") {
    std::ofstream(path_) << text;
  }
  ~TempScenario() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

const std::string kGood = R"(name: t
fleet: fleets/small.yaml
workload: {generator: poisson, rate_rps: 2}
duration_s: 120
checks:
  - {check: slo_attainment, limit: 0.9}
)";

std::string load_error(const std::string& text) {
  TempScenario f(text);
  auto s = load_scenario(f.path());
  REQUIRE_FALSE(s.ok());
  const std::string message = s.error().message;
  CHECK(message.rfind(f.path() + ": ", 0) == 0);  // names the file first
  return message;
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("Every shipped scenario file loads, names unique, sorted by name") {
  auto all = load_scenarios(kShipped);
  INFO((all.ok() ? "" : all.error().message));
  REQUIRE(all.ok());
  std::vector<std::string> names;
  for (const auto& s : all.value()) names.push_back(s.name);
  for (const char* expected : {"burst", "diurnal", "idle", "metrics-gap", "slow-start", "steady"})
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  CHECK(std::is_sorted(names.begin(), names.end()));
}

TEST_CASE("A scenario resolves its fleet path against its own folder and keeps its settings") {
  TempScenario f(kGood + "metrics_gap: {from_s: 30, to_s: 60, kind: nan}\nscale_to_zero_retention_s: 600\n");
  auto s = load_scenario(f.path());
  INFO((s.ok() ? "" : s.error().message));
  REQUIRE(s.ok());
  CHECK(s.value().fleet_path == kTestDir + "/fleets/small.yaml");
  CHECK(s.value().workload.params.at("rate_rps") == 2);
  CHECK(s.value().tick_s == 30);
  REQUIRE(s.value().metrics_gap.has_value());
  CHECK(s.value().metrics_gap->nan);
  CHECK(s.value().scale_to_zero_retention_s == 600);
}

TEST_CASE("Scenario schema errors name the file, the key and the rule") {
  CHECK_THAT(load_error(kGood + "durations: 3\n"), Catch::Contains("durations is not a known key"));
  CHECK_THAT(load_error(replace(kGood, "fleet: fleets/small.yaml\n", "")), Catch::Contains("fleet is required"));
  CHECK_THAT(load_error(replace(kGood, "fleets/small.yaml", "fleets/none.yaml")),
             Catch::Contains("fleet must name an existing file, got 'fleets/none.yaml'"));
  CHECK_THAT(load_error(replace(kGood, "duration_s: 120", "duration_s: -5")),
             Catch::Contains("duration_s must be >= 1, got -5"));
  CHECK_THAT(load_error(replace(kGood, "generator: poisson", "generator: zipf")),
             Catch::Contains("workload.generator must be one of"));
  CHECK_THAT(load_error(replace(kGood, "rate_rps: 2", "rate: 2")),
             Catch::Contains("workload.rate is not a known key"));
  CHECK_THAT(load_error(replace(kGood, "rate_rps: 2", "rate_rps: fast")),
             Catch::Contains("workload.rate_rps must be a number, got 'fast'"));
  CHECK_THAT(load_error(replace(kGood, "{generator: poisson, rate_rps: 2}", "{generator: step, steps: [[60, 1], [0, 2]]}")),
             Catch::Contains("workload.steps[1] must start after the previous step"));
  CHECK_THAT(load_error(replace(kGood, "check: slo_attainment", "check: vibes")),
             Catch::Contains("checks[0].check must be one of"));
  CHECK_THAT(load_error(replace(kGood, "limit: 0.9", "limit: high")),
             Catch::Contains("checks[0].limit must be a number, got 'high'"));
  CHECK_THAT(load_error(replace(kGood, "{check: slo_attainment, limit: 0.9}", "{check: ttft_recovery_s, limit: 60, at_s: 30}")),
             Catch::Contains("checks[0].until_s is required"));
  CHECK_THAT(load_error(replace(kGood, "limit: 0.9", "limit: 0.9, after_s: 3")),
             Catch::Contains("checks[0].after_s is not a known key"));
  CHECK_THAT(load_error(kGood + "metrics_gap: {from_s: 60, to_s: 30}\n"),
             Catch::Contains("metrics_gap.to_s must be > from_s"));
  CHECK_THAT(load_error(kGood + "metrics_gap: {from_s: 30, to_s: 60, kind: stale}\n"),
             Catch::Contains("metrics_gap.kind must be one of missing, nan, got 'stale'"));
  CHECK_THAT(load_error(replace(kGood, "rate_rps: 2}", "rate_rps: 2, lengths: {input_mean: 0}}")),
             Catch::Contains("workload.lengths.input_mean must be >= 1, got 0"));
  CHECK_THAT(load_error(replace(kGood, "checks:\n  - {check: slo_attainment, limit: 0.9}\n", "")),
             Catch::Contains("checks must be a non-empty list"));
}
