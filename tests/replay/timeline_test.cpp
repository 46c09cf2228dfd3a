// replay/timeline.* and `capstan replay timeline`: every recorded decision once, in time
// order, with its inputs; filters and formats; bad flags named.
#include <catch2/catch.hpp>

#include <sstream>

#include <nlohmann/json.hpp>

#include "replay/timeline.hpp"
#include "replay_test_support.hpp"

namespace capstan::replay {
namespace {

using namespace capstan::testing;

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST_CASE("timeline lists every decision once in time order with reason, SLO and its source, parameters, capacity and demand") {
  const auto run = run_binary("replay timeline --data " + recorded_history() + " --format json", 60);
  INFO(run.stderr_text);
  REQUIRE(run.exit_status == 0);
  const auto rows = json_lines(run.stdout_text);
  REQUIRE(rows.size() == 60);  // 30 ticks x 2 variants
  double last = 0;
  bool sized = false;
  for (const auto& row : rows) {
    CHECK(row.at("time_s").get<double>() >= last);
    last = row.at("time_s").get<double>();
    for (const char* key : {"model", "variant", "current", "target", "reason", "reason_text", "slo", "params",
                            "capacity", "forecast", "stages"})
      CHECK(row.contains(key));
    if (row.at("capacity").is_object() && row.at("params").is_object()) {
      sized = true;
      CHECK(row.at("slo").at("source") == "explicit");
      CHECK(row.at("slo").at("ttft_ms") == 2000.0);
      CHECK(row.at("params").at("alpha_ms").get<double>() > 0);
      // The learned model's own figure is 0 at a tick it finds no rate within the SLO at
      // the request shape (docs/policies.md `hybrid` step 24); the rate it sized by is then
      // its recent figures' median or a measured bound, never 0.
      CHECK(row.at("capacity").at("lambda_star_rps").get<double>() >= 0);
      CHECK(row.at("capacity").at("per_replica_rps").get<double>() > 0);
      CHECK(row.at("capacity").contains("demand_rps"));
    }
  }
  CHECK(sized);
}

TEST_CASE("timeline filters by variant and time and prints a table or CSV with a header") {
  const std::string data = " --data " + recorded_history();
  auto run = run_binary("replay timeline" + data + " --variant llama70b-h100 --from 300 --to 10m", 60);
  REQUIRE(run.exit_status == 0);
  std::istringstream lines(run.stdout_text);
  std::string header;
  std::getline(lines, header);
  for (const char* column : {"time_s", "reason", "slo_ttft_ms", "slo_source", "alpha_ms", "lambda_star_rps",
                             "required", "demand_rps", "forecast_rps"})
    CHECK_THAT(header, Catch::Contains(column));
  int rows = 0;
  for (std::string line; std::getline(lines, line); ++rows) CHECK_THAT(line, Catch::Contains("llama70b-h100"));
  CHECK(rows == 11);  // t = 300, 330, ..., 600
  run = run_binary("replay timeline" + data + " --format csv --to 60", 60);
  REQUIRE(run.exit_status == 0);
  CHECK_THAT(run.stdout_text, Catch::StartsWith("time_s,tick,model,variant,current,target,reason,"));
  CHECK(std::count(run.stdout_text.begin(), run.stdout_text.end(), '\n') == 1 + 4);
}

TEST_CASE("timeline with another event type lists that type's events") {
  const auto run = run_binary("replay timeline --data " + recorded_history() + " --type forecast --format json", 60);
  REQUIRE(run.exit_status == 0);
  const auto rows = json_lines(run.stdout_text);
  REQUIRE(rows.size() == 30);
  for (const auto& row : rows) CHECK(row.at("type") == "forecast");
}

TEST_CASE("timeline names a bad flag with exit status 2") {
  const std::string data = " --data " + recorded_history();
  auto run = run_binary("replay timeline" + data + " --model prod/none", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--model: no decisions recorded for 'prod/none'; recorded: sim/meta-llama/Llama-2-70b-hf"));
  run = run_binary("replay timeline" + data + " --to soon", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--to: 'soon' is not a time"));
  run = run_binary("replay timeline" + data + " --format yaml", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--format must be table, json or csv"));
  run = run_binary("replay timeline" + data + " --type decisions", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--type: 'decisions' is not an event type"));
  run = run_binary("replay timeline --data /nonexistent/capstan", 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--data: "));
}

}  // namespace
}  // namespace capstan::replay
