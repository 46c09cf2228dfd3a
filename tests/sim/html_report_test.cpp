#include "sim/report/html_report.hpp"

#include <catch2/catch.hpp>

#include "domain/policies/fixed_policy.hpp"
#include "sim/report/report_assets.hpp"
#include "sim/report/summary_json.hpp"
#include "sim/sim_fixtures.hpp"
#include "sim/synthetic_trace.hpp"

using namespace capstan::sim;
using capstan::sim::testing::one_variant_fleet;

TEST_CASE("The HTML report is self-contained: uPlot inlined, no external resource, one panel per policy") {
  REQUIRE(uplot_js().size() > 40000);
  REQUIRE(uplot_js().find("uPlot") != std::string_view::npos);
  REQUIRE(uplot_css().find(".uplot") != std::string_view::npos);
  capstan::FixedPolicy fixed;
  HarnessOptions h;
  auto run = run_policy(fixed, one_variant_fleet(1, 0),
                        std::make_unique<SyntheticTrace>(poisson_rate(2), 300, fixed_lengths(100, 10), 1), h);
  REQUIRE(run.ok());
  run.value().error = "a </script> in an error";
  const std::vector<PolicyRun> runs{run.value()};
  const auto summary = summary_json("trace.csv", "fleet.yaml", {2000, 100}, Yardsticks{}, runs);
  const std::string html = render_html_report(summary, runs, "capstan simulate --policy fixed");
  CHECK(html.find(std::string(uplot_js().substr(0, 200))) != std::string::npos);
  CHECK(html.find("src=\"http") == std::string::npos);
  CHECK(html.find("href=\"http") == std::string::npos);
  CHECK(html.find("a </script> in") == std::string::npos);  // escaped inside the data block
  CHECK(html.find("capstan simulate --policy fixed") != std::string::npos);
  const auto series = series_json(run.value());
  CHECK(series["t"].size() == run.value().series.size());
  CHECK(series["replicas"][0][0] == 1);
  CHECK(series["decisions"].empty());  // holds only
}
