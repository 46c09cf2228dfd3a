#include "adapters/cli/analyze_erlang_command.hpp"

#include <cstdio>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "adapters/cli/usage_error.hpp"
#include "run_binary.hpp"
#include "run_cli_in_process.hpp"
#include "test_data.hpp"

using capstan::cli::UsageError;
using capstan::testing::BinaryRun;
using capstan::testing::run_binary;

namespace {

nlohmann::json erlang(std::vector<std::string> args) {
  args.insert(args.begin(), "erlang");
  return nlohmann::json::parse(
      capstan::testing::run_cli(capstan::cli::add_analyze_erlang_command, args));
}

std::string usage_error(std::vector<std::string> args) {
  try {
    erlang(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  FAIL("expected a UsageError");
  return "";
}

std::string num(double v) { return nlohmann::json(v).dump(); }

}  // namespace

TEST_CASE("analyze erlang prints P(wait), P(wait > SLA) and rho for every reference case") {
  const auto doc = capstan::testing::load_json("erlang.json");
  const double tol = doc.at("tolerance_rel").get<double>();
  for (const auto& c : doc.at("cases")) {
    INFO(c.dump());
    const std::vector<std::string> common = {
        "--arrival-rate", num(c.at("arrival_rate")), "--service-rate", num(c.at("service_rate")),
        "--sla-seconds", num(c.at("sla_seconds"))};
    auto args = common;
    if (c.at("kind") == "erlang") {
      args.insert(args.end(), {"--servers", num(c.at("servers"))});
      const auto out = erlang(args);
      CHECK(out.at("p_wait").get<double>() == Approx(c.at("p_wait").get<double>()).epsilon(tol));
      CHECK(out.at("p_wait_gt_sla").get<double>() ==
            Approx(c.at("p_wait_gt_sla").get<double>()).epsilon(tol));
      CHECK(out.contains("rho"));
    } else {
      args.insert(args.end(), {"--max-violation", num(c.at("max_violation"))});
      const auto out = erlang(args);
      CHECK(out.at("required_servers").get<int>() == c.at("required_servers").get<int>());
      CHECK(out.size() == 1);
    }
  }
}

TEST_CASE("analyze erlang names the flag of a bad or missing value") {
  const std::vector<std::string> ok = {"--service-rate", "1", "--sla-seconds", "0.5",
                                       "--servers", "3"};
  auto with = [&](std::vector<std::string> extra) {
    auto args = ok;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  CHECK_THAT(usage_error(ok), Catch::Contains("--arrival-rate"));
  CHECK_THAT(usage_error(with({"--arrival-rate", "-2"})), Catch::Contains("--arrival-rate"));
  CHECK_THAT(usage_error(with({"--arrival-rate", "nan"})), Catch::Contains("--arrival-rate"));
  CHECK_THAT(usage_error({"--arrival-rate", "2", "--service-rate", "0", "--sla-seconds", "1",
                          "--servers", "3"}),
             Catch::Contains("--service-rate"));
  CHECK_THAT(usage_error({"--arrival-rate", "2", "--service-rate", "1", "--sla-seconds", "-1",
                          "--servers", "3"}),
             Catch::Contains("--sla-seconds"));
  CHECK_THAT(usage_error({"--arrival-rate", "2", "--service-rate", "1", "--sla-seconds", "1",
                          "--servers", "2.5"}),
             Catch::Contains("--servers"));
  CHECK_THAT(usage_error({"--arrival-rate", "2", "--service-rate", "1", "--sla-seconds", "1",
                          "--servers", "0"}),
             Catch::Contains("--servers"));
  CHECK_THAT(usage_error({"--arrival-rate", "2", "--service-rate", "1", "--sla-seconds", "1",
                          "--max-violation", "1.5"}),
             Catch::Contains("--max-violation"));
}

TEST_CASE("analyze erlang wants exactly one of --servers and --max-violation") {
  const std::string both = usage_error({"--arrival-rate", "2", "--service-rate", "1",
                                        "--sla-seconds", "1", "--servers", "3",
                                        "--max-violation", "0.01"});
  CHECK_THAT(both, Catch::Contains("--servers") && Catch::Contains("--max-violation"));
  const std::string neither =
      usage_error({"--arrival-rate", "2", "--service-rate", "1", "--sla-seconds", "1"});
  CHECK_THAT(neither, Catch::Contains("--servers") && Catch::Contains("--max-violation"));
}

TEST_CASE("The capstan binary answers analyze erlang and exits 2 on bad input") {
  const BinaryRun good = run_binary(
      "analyze erlang --arrival-rate 100 --service-rate 10 --sla-seconds 0.5 --max-violation 0.01");
  CHECK(good.exit_status == 0);
  CHECK(nlohmann::json::parse(good.stdout_text).at("required_servers") == 11);
  CHECK(run_binary("analyze erlang --arrival-rate 2 --service-rate 1 --sla-seconds 1")
            .exit_status == capstan::cli::kExitUsage);
  CHECK(run_binary("analyze erlang --arrival-rate -2 --service-rate 1 --sla-seconds 1 --servers 3")
            .exit_status == capstan::cli::kExitUsage);
}
