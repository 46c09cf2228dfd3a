// HTML report of the scenario suite; see scenarios_html.hpp.
#include "sim/report/scenarios_html.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "domain/core/format.hpp"
#include "sim/report/html_escape.hpp"

namespace capstan::sim {
namespace {

constexpr double kWidth = 720, kHeight = 120;

// One polyline of `values` over the run, scaled to [0, top].
std::string polyline(const std::vector<double>& values, double top, const char* colour) {
  if (values.empty() || !(top > 0)) return "";
  std::ostringstream s;
  s << "<polyline fill='none' stroke='" << colour << "' points='";
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double x = kWidth * static_cast<double>(i) / static_cast<double>(std::max<std::size_t>(1, values.size() - 1));
    const double y = kHeight - kHeight * std::min(values[i], top) / top;
    s << fmt_num(std::round(x * 10) / 10) << "," << fmt_num(std::round(y * 10) / 10) << " ";
  }
  s << "'/>";
  return s.str();
}

std::string run_svg(const PolicyRun& run, double slo_ttft_ms) {
  std::vector<double> replicas, ttft;
  double most = 1;
  for (const TickRecord& t : run.series) {
    double n = 0;
    for (int r : t.replicas) n += r;
    replicas.push_back(n);
    most = std::max(most, n);
    ttft.push_back(t.ttft_p99_ms);
  }
  const double ttft_top = std::max(1.0, slo_ttft_ms) * 3;
  std::ostringstream s;
  s << "<svg width='" << kWidth << "' height='" << kHeight << "' style='border:1px solid #ccc'>"
    << polyline(replicas, most * 1.1, "#1f77b4") << polyline(ttft, ttft_top, "#d62728");
  if (slo_ttft_ms > 0) {
    const double y = kHeight - kHeight / 3;
    s << "<line x1='0' x2='" << kWidth << "' y1='" << y << "' y2='" << y << "' stroke='#d62728' stroke-dasharray='4'/>";
  }
  s << "</svg><div class='legend'>blue: replicas (top " << fmt_num(most * 1.1)
    << "); red: p99 TTFT per tick (top 3x SLO, dashed: SLO " << fmt_num(slo_ttft_ms) << " ms)</div>";
  return s.str();
}

}  // namespace

std::string render_scenarios_html(const std::vector<ScenarioResult>& results, const std::vector<double>& slo_ttft_ms,
                                  const std::string& command) {
  std::ostringstream h;
  h << "<!DOCTYPE html><html><head><meta charset='utf-8'><title>capstan scenarios</title><style>"
       "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}td,th{padding:2px 8px;text-align:left}"
       ".pass{color:#080}.fail{color:#c00;font-weight:bold}.legend{font-size:12px;color:#555}"
       "details{margin:4px 0 12px}</style></head><body><h1>capstan scenarios</h1><pre>$ "
    << html_escape(command) << "</pre><table><tr><th>scenario</th><th>policy</th><th>result</th><th>GPU-h</th><th>vs static</th><th>checks</th></tr>";
  for (const auto& r : results) {
    h << "<tr><td>" << html_escape(r.scenario) << "</td><td>" << html_escape(r.policy) << "</td><td class='"
      << (r.passed ? "pass'>PASS" : "fail'>FAIL") << "</td><td>" << fmt_num(std::round(r.gpu_hours * 100) / 100)
      << "</td><td>"
      << (r.static_gpu_hours && *r.static_gpu_hours > 0
              ? fmt_num(std::round(r.gpu_hours / *r.static_gpu_hours * 100) / 100)
              : std::string("-"))
      << "</td><td>";
    for (const auto& c : r.checks)
      h << html_escape(c.name) << " " << (std::isnan(c.value) ? "never" : fmt_num(c.value))
        << (c.bound == Bound::kAtMost ? " &le; " : " &ge; ") << fmt_num(c.limit) << (c.passed ? "" : " (fail)")
        << "<br>";
    h << "</td></tr>";
  }
  h << "</table>";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    h << "<h2>" << html_escape(r.scenario) << " / " << html_escape(r.policy) << "</h2>"
      << run_svg(r.run, i < slo_ttft_ms.size() ? slo_ttft_ms[i] : 0);
    if (!r.error.empty()) h << "<p class='fail'>" << html_escape(r.error) << "</p>";
    h << "<details><summary>decisions that changed a count or that the GPU budget limited</summary><table>";
    for (const TickRecord& t : r.run.series)
      for (const Decision& d : t.decisions)
        if (d.target_replicas != d.current_replicas || d.reason.code == ReasonCode::kBudgetLimited) {
          // The run's name for the variant: "<model>/<variant>" when there are several models.
          const std::size_t v = variant_index(r.run, d);
          h << "<tr><td>" << fmt_num(t.time_s) << " s</td><td>"
            << html_escape(v < r.run.variants.size() ? r.run.variants[v] : d.variant) << "</td><td>"
            << html_escape(to_string(d.reason.code)) << "</td><td>" << html_escape(d.reason.text()) << "</td></tr>";
        }
    h << "</table></details>";
  }
  h << "</body></html>\n";
  return h.str();
}

}  // namespace capstan::sim
