// replay/report.* and `capstan replay report`: a self-contained page with the recorded
// series, one value per tick for every variant.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "replay/report.hpp"
#include "replay_test_support.hpp"

namespace capstan::replay {
namespace {

using namespace capstan::testing;

TEST_CASE("report series hold one value per tick for every variant and figure") {
  auto store = storage::EventStore::open_read_only(recorded_history());
  REQUIRE(store.ok());
  auto series = report_series(*store.value(), {});
  REQUIRE(series.ok());
  REQUIRE(series.value().size() == 1);
  const auto& m = series.value().at(0);
  CHECK(m.at("model") == "sim/meta-llama/Llama-2-70b-hf");
  REQUIRE(m.at("t").size() == 30);
  CHECK(m.at("demand_rps").size() == 30);
  CHECK(m.at("forecast_rps").size() == 30);
  for (const char* key : {"current", "target", "ttft_observed_ms", "ttft_predicted_ms", "itl_observed_ms",
                          "itl_predicted_ms", "alpha_ms", "beta_ms", "gamma_ms"}) {
    CAPTURE(key);
    REQUIRE(m.at(key).size() == 2);
    for (const auto& values : m.at(key)) CHECK(values.size() == 30);
  }
  // The H100 variant served traffic and learned: its figures are there at the end.
  const auto& variants = m.at("variants");
  const std::size_t h100 = variants.at(0) == "llama70b-h100" ? 0 : 1;
  CHECK(m.at("alpha_ms").at(h100).back().is_number());
  CHECK(m.at("ttft_predicted_ms").at(h100).back().is_number());
  CHECK(m.at("ttft_observed_ms").at(h100).back().is_number());
  CHECK(m.at("decisions").size() > 0);
}

TEST_CASE("capstan replay report writes one offline HTML file with the charting library and the data inlined") {
  const std::string out = test_dir("report") + ".html";
  const auto run = run_binary("replay report --data " + recorded_history() + " --out " + out, 60);
  INFO(run.stderr_text);
  REQUIRE(run.exit_status == 0);
  std::ifstream in(out);
  std::stringstream html;
  html << in.rdbuf();
  std::filesystem::remove(out);
  const std::string page = html.str();
  CHECK_THAT(page, Catch::StartsWith("<!doctype html>"));
  CHECK_THAT(page, Catch::Contains("<h1>capstan replay report</h1>"));
  CHECK_THAT(page, Catch::Contains("uPlot"));
  CHECK_THAT(page, Catch::Contains("id=\"series\""));
  CHECK_THAT(page, Catch::Contains("ttft_predicted_ms"));
  CHECK_THAT(page, !Catch::Contains("http://"));
  CHECK_THAT(page, !Catch::Contains("https://cdn"));
}

TEST_CASE("capstan replay report refuses a missing store without touching the output file") {
  const std::string out = test_dir("kept") + ".html";
  std::ofstream(out) << "kept";
  const auto run = run_binary("replay report --data " + test_dir("absent") + " --out " + out, 60);
  CHECK(run.exit_status == 2);
  CHECK_THAT(run.stderr_text, Catch::Contains("--data: "));
  std::ifstream in(out);
  std::string text;
  std::getline(in, text);
  CHECK(text == "kept");
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace capstan::replay
