#include "adapters/cli/analyze_forecast_command.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "adapters/cli/usage_error.hpp"
#include "domain/forecast/predictor.hpp"
#include "run_cli_in_process.hpp"

using capstan::cli::UsageError;

namespace {

// A series file that removes itself when the test ends.
class SeriesFile {
 public:
  SeriesFile(const std::string& name, const std::string& content)
      : path_(std::filesystem::temp_directory_path() /
              ("capstan_forecast_" + std::to_string(::getpid()) + "_" + name + ".txt")) {
    std::ofstream(path_) << content;
  }
  ~SeriesFile() { std::filesystem::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

nlohmann::json forecast_cmd(std::vector<std::string> args) {
  args.insert(args.begin(), "forecast");
  return nlohmann::json::parse(
      capstan::testing::run_cli(capstan::cli::add_analyze_forecast_command, args));
}

std::string usage_error(std::vector<std::string> args) {
  try {
    forecast_cmd(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  FAIL("expected a UsageError");
  return "";
}

}  // namespace

TEST_CASE("analyze forecast with holt prints the seed's forecast, level and trend") {
  const SeriesFile f("holt", "10\n\n12\n  15  \n");
  const auto out = forecast_cmd({"--model", "holt", "--series", f.path(), "--horizon-s", "60"});
  CHECK(out.at("level").get<double>() == Approx(11.983).epsilon(1e-12));
  CHECK(out.at("trend").get<double>() == Approx(0.28395).epsilon(1e-12));
  CHECK(out.at("forecast").get<double>() == Approx(13.1188).epsilon(1e-12));
  CHECK(out.at("state").at("kind") == "holt");
  CHECK(out.at("state").at("state").at("config").at("alpha") == 0.3);
}

TEST_CASE("analyze forecast honours --alpha and --step-s") {
  const SeriesFile f("alpha", "10\n12\n");
  const auto out = forecast_cmd({"--model", "holt", "--series", f.path(), "--horizon-s", "60",
                                 "--step-s", "30", "--alpha", "0.5"});
  // level = 0.5*12 + 0.5*10 = 11; trend = 0.25*1 = 0.25; 2 steps ahead
  CHECK(out.at("level").get<double>() == Approx(11));
  CHECK(out.at("trend").get<double>() == Approx(0.25));
  CHECK(out.at("forecast").get<double>() == Approx(11.5));
}

TEST_CASE("analyze forecast runs every model and its state loads back") {
  std::string content;
  for (int t = 0; t < 80; ++t) content += std::to_string(20 + t % 8) + "\n";
  const SeriesFile f("all", content);
  for (const char* model : {"constant", "holt", "kalman", "arima", "seasonal"}) {
    INFO(model);
    const auto out = forecast_cmd({"--model", model, "--series", f.path(), "--horizon-s", "30",
                                   "--period-steps", "8"});
    CHECK(out.at("forecast").get<double>() >= 0.0);
    auto state = capstan::predictor_from_json(out.at("state"));
    REQUIRE(state.ok());
    CHECK(capstan::forecast(*state, 2) == out.at("forecast").get<double>());
    CHECK(out.contains("level") == (std::string(model) == "holt"));
  }
}

TEST_CASE("analyze forecast names the file and line of a malformed value") {
  const SeriesFile f("bad", "10\n\n12\n1x2\n");
  const std::string msg = usage_error({"--model", "constant", "--series", f.path(),
                                       "--horizon-s", "60"});
  CHECK_THAT(msg, Catch::Contains(f.path()) && Catch::Contains("line 4") &&
                      Catch::Contains("1x2"));
}

TEST_CASE("analyze forecast rejects bad flags naming them") {
  const SeriesFile f("flags", "10\n");
  CHECK_THAT(usage_error({"--model", "prophet", "--series", f.path(), "--horizon-s", "1"}),
             Catch::Contains("--model"));
  CHECK_THAT(usage_error({"--series", f.path(), "--horizon-s", "-1"}),
             Catch::Contains("--horizon-s"));
  CHECK_THAT(usage_error({"--series", f.path()}), Catch::Contains("--horizon-s"));
  CHECK_THAT(usage_error({"--horizon-s", "60"}), Catch::Contains("--series"));
  CHECK_THAT(usage_error({"--series", f.path(), "--horizon-s", "60", "--step-s", "0"}),
             Catch::Contains("--step-s"));
  CHECK_THAT(usage_error({"--series", f.path(), "--horizon-s", "60", "--alpha", "2"}),
             Catch::Contains("--alpha"));
  CHECK_THAT(usage_error({"--series", "/nonexistent/series.txt", "--horizon-s", "60"}),
             Catch::Contains("/nonexistent/series.txt"));
}
