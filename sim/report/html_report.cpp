// Self-contained HTML report with uPlot charts; see html_report.hpp.
#include "sim/report/html_report.hpp"

#include <cstdio>

#include "sim/report/html_escape.hpp"
#include "sim/report/html_page.hpp"

namespace capstan::sim {

namespace {

nlohmann::json latency_or_null(const TickRecord& t, double value) {
  return t.completed > 0 ? nlohmann::json(value) : nlohmann::json(nullptr);
}

// Builds the table and the panels from the two JSON blocks.
const char* kScript = R"JS(
(function () {
  const summary = JSON.parse(document.getElementById('summary').textContent);
  const runs = JSON.parse(document.getElementById('series').textContent);
  const fmt = (v, d) => (v === null || v === undefined) ? '-' : Number(v).toFixed(d);
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#17becf'];
  const table = document.getElementById('table');
  const cols = [['policy', 'policy', null], ['requests', 'requests', 0], ['SLO att.', 'slo_attainment', 3],
    ['failed', 'failed', 0], ['TTFT p50 ms', 'ttft_p50_ms', 0], ['TTFT p99 ms', 'ttft_p99_ms', 0],
    ['ITL p50 ms', 'itl_p50_ms', 1], ['ITL p99 ms', 'itl_p99_ms', 1], ['GPU-h', 'gpu_hours', 2],
    ['cost', 'cost', 2], ['actions', 'scale_actions', 0], ['vs oracle', 'gpu_hours_vs_oracle', 2], ['vs static', 'vs_static', 2],
    ['error', 'error', null]];
  let html = '<tr>' + cols.map(c => '<th>' + c[0] + '</th>').join('') + '</tr>';
  for (const p of summary.policies) {
    html += '<tr>' + cols.map(c => '<td>' + (c[2] === null ? (p[c[1]] === null ? '' : String(p[c[1]])
      .replace(/</g, '&lt;')) : fmt(p[c[1]], c[2])) + '</td>').join('') + '</tr>';
  }
  table.innerHTML = html;
  const width = Math.max(360, Math.min(560, (window.innerWidth - 120) / 3));
  const panels = document.getElementById('panels');
  const sloTtft = summary.slo.ttft_ms, sloItl = summary.slo.itl_ms;
  const constant = (t, v) => t.map(() => (v > 0 ? v : null));
  const positive = (values) => values.map(v => (v > 0 ? v : null));  // log scale: no zeros
  for (const run of runs) {
    const panel = document.createElement('div');
    panel.className = 'panel';
    panel.innerHTML = '<h2>' + run.policy + '</h2>' +
      (run.error ? '<p class="error">error: ' + run.error.replace(/</g, '&lt;') + '</p>' : '') +
      '<div class="charts"></div>';
    panels.appendChild(panel);
    const charts = panel.querySelector('.charts');
    const demandSeries = [{ label: 'time s' }, { label: 'arrivals req/s', stroke: '#444', scale: 'rps' }];
    const demandData = [run.t, run.rate];
    run.variants.forEach((v, i) => {
      demandSeries.push({ label: v + ' replicas', stroke: colors[i % colors.length], scale: 'n', width: 2,
        paths: uPlot.paths.stepped({ align: 1 }) });
      demandData.push(run.replicas[i]);
      demandSeries.push({ label: v + ' ready', stroke: colors[i % colors.length], dash: [4, 4], scale: 'n',
        paths: uPlot.paths.stepped({ align: 1 }) });
      demandData.push(run.ready[i]);
    });
    const axes = (label, right) => [{ label: 'time s' }, { label: label, scale: right ? 'rps' : 'ms' }];
    new uPlot({ title: 'demand and replicas', width: width, height: 260, series: demandSeries,
      scales: { x: { time: false } },
      axes: [{ label: 'time s' }, { label: 'req/s', scale: 'rps' }, { label: 'replicas', scale: 'n', side: 1, grid: { show: false } }] },
      demandData, charts);
    const latency = (title, p50, p99, slo) => new uPlot({ title: title, width: width, height: 260,
      scales: { x: { time: false }, ms: { distr: 3 } }, axes: axes('ms', false),
      series: [{ label: 'time s' }, { label: 'p50', stroke: '#1f77b4', scale: 'ms' }, { label: 'p99', stroke: '#d62728', scale: 'ms' },
        { label: 'SLO', stroke: '#999', dash: [6, 4], scale: 'ms' }] },
      [run.t, positive(p50), positive(p99), constant(run.t, slo)], charts);
    latency('TTFT of requests finished per tick', run.ttft_p50_ms, run.ttft_p99_ms, sloTtft);
    latency('mean ITL of requests finished per tick', run.itl_p50_ms, run.itl_p99_ms, sloItl);
    const details = document.createElement('details');
    details.innerHTML = '<summary>' + run.decisions.length + ' decisions that changed a count</summary><pre>' +
      run.decisions.map(d => 't=' + d[0] + 's ' + d[1] + ' ' + d[2] + ' -> ' + d[3] + ' [' + d[4] + '] ' + d[5])
        .join('\n').replace(/</g, '&lt;') + '</pre>';
    panel.appendChild(details);
  }
})();
)JS";

// The yardsticks above the table: the oracle, the best static fleet, the estimate.
std::string yardsticks_text(const nlohmann::json& summary) {
  std::string out;
  const auto& oracle = summary.value("oracle", nlohmann::json(nullptr));
  if (oracle.is_object())
    out += "Oracle (fleet-level lower bound, sim/README.md): " + oracle.at("gpu_hours").dump() +
           " GPU-hours, peak replicas " + html_escape(oracle.at("peak_replicas").dump()) + ". ";
  const auto& fixed = summary.value("static_fleet", nlohmann::json(nullptr));
  if (fixed.is_object()) {
    const auto& best = fixed.at("best");
    out += std::string("Best static fleet") + (best.at("meets").get<bool>() ? "" : " (none meets the target)") + ": " +
           html_escape(best.at("replicas").dump()) + ", " + best.at("gpu_hours").dump() + " GPU-hours. ";
  }
  const auto& estimate = summary.value("per_replica_estimate", nlohmann::json(nullptr));
  if (estimate.is_object())
    out += "Per-replica estimate (not a bound): " + estimate.at("gpu_hours").dump() +
           " GPU-hours; sustainable rate per replica " + html_escape(estimate.at("sustainable_rps_per_replica").dump()) +
           " req/s.";
  return out;
}

// Over several seeds: each policy's figures as median (worst); the panels below are the first seed's.
std::string seeds_table(const nlohmann::json& aggregate) {
  const std::vector<std::pair<std::string, int>> figures{
      {"slo_attainment", 3}, {"failed", 0},    {"ttft_p99_ms", 0},         {"itl_p99_ms", 1},
      {"gpu_hours", 2},      {"cost", 2},      {"gpu_hours_vs_oracle", 2}, {"vs_static", 2}};
  auto cell = [](const nlohmann::json& v, int decimals) {
    if (!v.is_number()) return std::string("-");
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v.get<double>());
    return std::string(buf);
  };
  std::string out = "<h2>Over seeds " + html_escape(aggregate.at("seeds").dump()) +
                    ": median (worst)</h2>\n<table class=\"summary\"><tr><th>policy</th>";
  for (const auto& [name, decimals] : figures) out += "<th>" + name + "</th>";
  out += "<th>errors</th></tr>\n";
  for (const auto& p : aggregate.at("policies")) {
    out += "<tr><td>" + html_escape(p.at("policy").get<std::string>()) + "</td>";
    for (const auto& [name, decimals] : figures) {
      const auto& f = p.value(name, nlohmann::json());
      out += "<td>" + (f.is_object() ? cell(f.value("median", nlohmann::json()), decimals) + " (" +
                                           cell(f.value("worst", nlohmann::json()), decimals) + ")"
                                     : std::string("-")) +
             "</td>";
    }
    out += "<td>" + p.value("errors", nlohmann::json(0)).dump() + "</td></tr>\n";
  }
  return out + "</table>\n<p>The table and panels below are the first seed's.</p>\n";
}

}  // namespace

nlohmann::json series_json(const PolicyRun& run) {
  nlohmann::json t = nlohmann::json::array(), rate = nlohmann::json::array();
  nlohmann::json ttft50 = nlohmann::json::array(), ttft99 = nlohmann::json::array();
  nlohmann::json itl50 = nlohmann::json::array(), itl99 = nlohmann::json::array();
  std::vector<nlohmann::json> replicas(run.variants.size(), nlohmann::json::array());
  std::vector<nlohmann::json> ready(run.variants.size(), nlohmann::json::array());
  nlohmann::json decisions = nlohmann::json::array();
  for (const TickRecord& tick : run.series) {
    t.push_back(tick.time_s);
    rate.push_back(tick.arrival_rate_rps);
    ttft50.push_back(latency_or_null(tick, tick.ttft_p50_ms));
    ttft99.push_back(latency_or_null(tick, tick.ttft_p99_ms));
    itl50.push_back(latency_or_null(tick, tick.itl_p50_ms));
    itl99.push_back(latency_or_null(tick, tick.itl_p99_ms));
    for (std::size_t i = 0; i < run.variants.size(); ++i) {
      replicas[i].push_back(i < tick.replicas.size() ? tick.replicas[i] : 0);
      ready[i].push_back(i < tick.ready.size() ? tick.ready[i] : 0);
    }
    for (const Decision& d : tick.decisions)
      if (d.target_replicas != d.current_replicas)
        decisions.push_back({tick.time_s, d.variant, d.current_replicas, d.target_replicas,
                             to_string(d.reason.code), d.reason.text()});
  }
  return {{"policy", run.policy},   {"error", run.error},     {"variants", run.variants},
          {"t", t},                 {"rate", rate},           {"replicas", replicas},
          {"ready", ready},         {"ttft_p50_ms", ttft50},  {"ttft_p99_ms", ttft99},
          {"itl_p50_ms", itl50},    {"itl_p99_ms", itl99},    {"decisions", decisions}};
}

std::string render_html_report(const nlohmann::json& summary, const std::vector<PolicyRun>& runs,
                               const std::string& command) {
  nlohmann::json series = nlohmann::json::array();
  for (const auto& run : runs) series.push_back(series_json(run));
  std::string html = chart_page_head("capstan simulate: " + summary.value("trace", ""));
  html += "<h1>capstan simulate</h1>\n";
  html += "<pre>$ " + html_escape(command) + "</pre>\n";
  html += "<p>trace <code>" + html_escape(summary.value("trace", "")) + "</code>, fleet <code>" +
          html_escape(summary.value("fleet", "")) + "</code>, SLO TTFT &le; " +
          summary.at("slo").at("ttft_ms").dump() + " ms and mean ITL &le; " + summary.at("slo").at("itl_ms").dump() +
          " ms. " + yardsticks_text(summary) + "</p>\n";
  if (summary.contains("seed_aggregate")) html += seeds_table(summary.at("seed_aggregate"));
  html += "<table class=\"summary\" id=\"table\"></table>\n<div id=\"panels\"></div>\n";
  html += json_script("summary", summary);
  html += json_script("series", series);
  html += "<script>";
  html += kScript;
  html += "</script>\n" + chart_page_tail();
  return html;
}

}  // namespace capstan::sim
