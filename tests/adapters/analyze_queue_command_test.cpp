#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "run_binary.hpp"
#include "test_data.hpp"

using capstan::testing::run_binary;

namespace {

std::string num(double v) { return nlohmann::json(v).dump(); }

std::string queue_args(const nlohmann::json& c) {
  std::ostringstream a;
  a << "analyze queue --alpha " << num(c["alpha"]) << " --beta " << num(c["beta"]) << " --gamma "
    << num(c["gamma"]) << " --input-tokens " << num(c["input_tokens"]) << " --output-tokens "
    << num(c["output_tokens"]) << " --max-batch " << c["max_batch"] << " --max-queue "
    << c["max_queue"] << " --target-ttft " << num(c["target_ttft_ms"]) << " --target-itl "
    << num(c["target_itl_ms"]);
  return a.str();
}

const std::string kBase =
    "analyze queue --alpha 5 --beta 0.05 --gamma 5e-5 --input-tokens 512 --output-tokens 128";

}  // namespace

TEST_CASE("analyze queue reproduces every WVA reference case through the binary") {
  const auto doc = capstan::testing::load_json("wva-queue.json");
  const double tol = doc.at("tolerance_rel").get<double>();
  for (const auto& c : doc.at("cases")) {
    INFO(c.dump());
    const auto run = run_binary(queue_args(c));
    if (c.value("expect_error", false)) {
      CHECK(run.exit_status == 2);
      CHECK_THAT(run.stderr_text, Catch::Contains("below the bounded region"));
      continue;
    }
    REQUIRE(run.exit_status == 0);
    const auto out = nlohmann::json::parse(run.stdout_text);
    CHECK(out.at("lambda_star").get<double>() == Approx(c["lambda_star"].get<double>()).epsilon(tol));
    CHECK(out.at("throughput").get<double>() == Approx(c["throughput"].get<double>()).epsilon(tol));
    CHECK(out.at("at_lambda_star").at("ttft_ms").get<double>() == Approx(c["ttft_ms"].get<double>()).epsilon(tol));
    CHECK(out.at("at_lambda_star").at("itl_ms").get<double>() == Approx(c["itl_ms"].get<double>()).epsilon(tol));
    CHECK(out.at("at_lambda_star").at("rho").get<double>() == Approx(c["rho"].get<double>()).epsilon(tol));
    CHECK(out.contains("lambda_ttft"));
    CHECK(out.contains("lambda_itl"));
    CHECK(out.at("target_ttft_ms") == c["target_ttft_ms"]);
    CHECK_FALSE(out.contains("at_rate"));
  }
}

TEST_CASE("analyze queue with --rate adds the queue's state at that rate") {
  const auto run = run_binary(kBase + " --target-ttft 500 --target-itl 50 --rate 10");
  REQUIRE(run.exit_status == 0);
  const auto out = nlohmann::json::parse(run.stdout_text);
  CHECK(out.at("at_rate").at("rate").get<double>() == 10);
  CHECK(out.at("at_rate").at("ttft_ms").get<double>() > 0);
  CHECK(out.at("at_rate").at("rho").get<double>() < out.at("at_lambda_star").at("rho").get<double>());
}

TEST_CASE("analyze queue derives targets from --slo-multiplier") {
  const auto run = run_binary(kBase + " --slo-multiplier 3");
  REQUIRE(run.exit_status == 0);
  const auto out = nlohmann::json::parse(run.stdout_text);
  CHECK(out.at("target_ttft_ms").get<double>() == Approx(3 * 5 + 0.05005 * 512));
}

TEST_CASE("analyze queue rejects bad input with exit 2 and names the flag") {
  struct Bad {
    std::string args;
    std::string mentions;
  };
  const std::vector<Bad> cases{
      {"analyze queue --alpha -5 --beta 0.05 --gamma 5e-5 --input-tokens 512 --output-tokens 128 --target-ttft 500 --target-itl 50", "--alpha"},
      {"analyze queue --alpha nan --beta 0.05 --gamma 5e-5 --input-tokens 512 --output-tokens 128 --target-ttft 500 --target-itl 50", "--alpha"},
      {"analyze queue --alpha 5 --gamma 5e-5 --input-tokens 512 --output-tokens 128 --target-ttft 500 --target-itl 50", "--beta"},
      {kBase + " --slo-multiplier 1", "--slo-multiplier"},
      {kBase + " --slo-multiplier 0.8", "--slo-multiplier"},
      {kBase + " --target-ttft 500", "--target-itl"},
      {kBase + " --target-itl 50", "--target-ttft"},
      {kBase + " --target-ttft -1 --target-itl 50", "--target-ttft"},
      {kBase + " --target-ttft 500 --target-itl 50 --rate -3", "--rate"},
      {kBase, "--slo-multiplier"},
      {"analyze queue --alpha 5 --beta 0.05 --gamma 5e-5 --input-tokens 512 --output-tokens 0 --slo-multiplier 3", "--output-tokens"},
  };
  for (const Bad& b : cases) {
    INFO(b.args);
    const auto run = run_binary(b.args);
    CHECK(run.exit_status == 2);
    CHECK(run.stdout_text.empty());
    CHECK_THAT(run.stderr_text, Catch::Contains(b.mentions));
  }
}

TEST_CASE("analyze tune prints one line per observation, bootstrap first") {
  const std::string path = "/tmp/capstan_tune_test.jsonl";
  {
    std::ofstream f(path);
    f << R"({"ttft_ms": 45.0, "itl_ms": 9.5, "input_tokens": 1000, "output_tokens": 100, "arrival_rate": 0.5, "max_batch": 64, "time_s": 0})" "\n"
      << "\n"
      << R"({"ttft_ms": 48.0, "itl_ms": 10.2, "input_tokens": 1000, "output_tokens": 100, "arrival_rate": 2.0, "max_batch": 64})" "\n";
  }
  const auto run = run_binary("analyze tune --input " + path);
  REQUIRE(run.exit_status == 0);
  std::istringstream lines(run.stdout_text);
  std::string first, second, third;
  std::getline(lines, first);
  std::getline(lines, second);
  CHECK_FALSE(std::getline(lines, third));
  const auto a = nlohmann::json::parse(first), b = nlohmann::json::parse(second);
  CHECK(a.at("source") == "bootstrap");
  CHECK(a.at("alpha").get<double>() == Approx(0.9 * 9.5));
  CHECK(a.at("time_s") == 0);
  CHECK(b.at("source") == "ekf");
  for (const char* key : {"alpha", "beta", "gamma", "nis", "accepted", "source"}) CHECK(b.contains(key));
}

TEST_CASE("analyze tune names the line and field of a bad observation") {
  const std::string path = "/tmp/capstan_tune_bad.jsonl";
  {
    std::ofstream f(path);
    f << R"({"ttft_ms": 45.0, "itl_ms": 9.5, "input_tokens": 1000, "output_tokens": 100, "arrival_rate": 0.5, "max_batch": 64})" "\n"
      << R"({"ttft_ms": 45.0, "itl_ms": -1, "input_tokens": 1000, "output_tokens": 100, "arrival_rate": 0.5, "max_batch": 64})" "\n";
  }
  const auto run = run_binary("analyze tune --input " + path);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains(":2") && Catch::Contains("itl_ms"));
  CHECK(run_binary("analyze tune --input /nonexistent.jsonl").exit_status == 2);
}

TEST_CASE("analyze slo reports the targets and the path taken") {
  auto derived = run_binary("analyze slo --slo-multiplier 3 --alpha 5 --beta 0.05 --gamma 5e-5 --input-tokens 512 --output-tokens 128");
  REQUIRE(derived.exit_status == 0);
  CHECK(nlohmann::json::parse(derived.stdout_text).at("path") == "derived");
  auto observed = run_binary("analyze slo --observed-ttft 200 --observed-itl 20");
  REQUIRE(observed.exit_status == 0);
  CHECK(nlohmann::json::parse(observed.stdout_text).at("target_ttft_ms").get<double>() == 300);
  auto lone = run_binary("analyze slo --target-ttft 500");  // ITL 0: not constrained
  REQUIRE(lone.exit_status == 0);
  const auto lone_out = nlohmann::json::parse(lone.stdout_text);
  CHECK(lone_out.at("path") == "explicit");
  CHECK(lone_out.at("target_ttft_ms").get<double>() == 500);
  CHECK(lone_out.at("target_itl_ms").get<double>() == 0);
  auto negative = run_binary("analyze slo --target-ttft 500 --target-itl -1");
  CHECK(negative.exit_status == 2);
  CHECK_THAT(negative.stderr_text, Catch::Contains("--target-itl"));
}

TEST_CASE("analyze model runs the shipped example history end to end") {
  const auto run = run_binary(std::string("analyze model --input ") + CAPSTAN_SOURCE_DIR + "/ops/examples/model-history.jsonl");
  REQUIRE(run.exit_status == 0);
  std::istringstream lines(run.stdout_text);
  std::string line, last;
  int n = 0;
  while (std::getline(lines, line)) {
    last = line;
    ++n;
  }
  CHECK(n == 8);
  const auto out = nlohmann::json::parse(last);
  CHECK(out.at("slo").at("path") == "explicit");
  REQUIRE(out.at("variants").size() == 2);
  for (const auto& v : out.at("variants")) {
    CHECK(v.at("capacity").at("status") == "ok");
    CHECK(v.at("capacity").at("required_replicas").get<int>() >= 1);
    CHECK(v.at("tuning").at("source") == "ekf");
  }
}
