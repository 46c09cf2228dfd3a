#include "replay/report.hpp"

#include <cmath>
#include <map>

#include "domain/core/workload.hpp"
#include "domain/model/queue_model.hpp"
#include "sim/report/html_escape.hpp"
#include "sim/report/html_page.hpp"

namespace capstan::replay {

namespace {

using nlohmann::json;

json number_or_null(bool has, double v) { return has && std::isfinite(v) ? json(v) : json(nullptr); }

// TTFT and ITL the learned queue model predicts for one replica at the observed rate
// and request sizes; nulls when there are no parameters, no traffic or no solution.
std::pair<json, json> predicted(const DecisionRecord& r, const VariantTickInput& v, const VariantWorkload& w) {
  if (!r.params || !w.has_traffic()) return {nullptr, nullptr};
  const int replicas = std::max(1, static_cast<int>(v.state.pods.size()));
  auto analyzer = QueueAnalyzer::create(r.params->params, {v.state.spec.max_batch_size, v.state.spec.max_queue_size},
                                        {w.avg_input_tokens, std::max(1.0, w.avg_output_tokens)});
  if (!analyzer.ok()) return {nullptr, nullptr};
  const double rate = w.total_arrival_rps / replicas;
  if (rate < analyzer.value().min_rate_rps() || rate > analyzer.value().max_rate_rps()) return {nullptr, nullptr};
  auto m = analyzer.value().analyze(rate);
  if (!m.ok()) return {nullptr, nullptr};
  return {number_or_null(true, m.value().ttft_ms), number_or_null(true, m.value().itl_ms)};
}

// One model's series, built tick by tick.
struct ModelSeries {
  std::vector<std::string> variants;
  std::map<std::string, std::size_t> index;
  json t = json::array(), demand = json::array(), forecast = json::array(), decisions = json::array();
  // figure -> one array per variant, one value per tick; json's operator[] grows them
  // with nulls, and report_series pads them to every variant and tick.
  std::map<std::string, json> per_variant;
  std::uint64_t last_tick = 0;
  bool any = false;

  std::size_t variant(const std::string& name) {
    const auto it = index.find(name);
    if (it != index.end()) return it->second;
    variants.push_back(name);
    return index[name] = variants.size() - 1;
  }

  void add(const DecisionRecord& r) {
    if (!any || r.tick != last_tick) {
      any = true;
      last_tick = r.tick;
      t.push_back(r.time_s);
      demand.push_back(r.forecast ? json(r.forecast->observed_rps)
                                  : r.observation ? json(r.observation->arrival_rate_rps) : json(nullptr));
      forecast.push_back(r.forecast ? json(r.forecast->rate_rps) : json(nullptr));
    }
    const std::size_t i = variant(r.decision.variant);
    const std::size_t at = t.size() - 1;
    auto set = [&](const char* key, json value) { per_variant[key][i][at] = std::move(value); };
    set("current", r.decision.current_replicas);
    set("target", r.decision.target_replicas);
    if (r.params) {
      set("alpha_ms", r.params->params.alpha_ms);
      set("beta_ms", r.params->params.beta_ms);
      set("gamma_ms", r.params->params.gamma_ms);
    }
    if (const VariantTickInput* v = r.observed_variant()) {
      const VariantWorkload w = aggregate(v->state.pods);
      set("ttft_observed_ms", number_or_null(w.has_traffic(), w.avg_ttft_ms));
      set("itl_observed_ms", number_or_null(w.has_traffic(), w.avg_itl_ms));
      auto [ttft, itl] = predicted(r, *v, w);
      set("ttft_predicted_ms", ttft);
      set("itl_predicted_ms", itl);
    }
    if (r.decision.target_replicas != r.decision.current_replicas)
      decisions.push_back({r.time_s, r.decision.variant, r.decision.current_replicas, r.decision.target_replicas,
                           to_string(r.decision.reason.code), r.decision.reason.text()});
  }
};

const char* kKeys[] = {"current",         "target",          "ttft_observed_ms", "ttft_predicted_ms",
                       "itl_observed_ms", "itl_predicted_ms", "alpha_ms",         "beta_ms",
                       "gamma_ms"};

// Plots each model's panel from the "series" block.
const char* kScript = R"JS(
(function () {
  const models = JSON.parse(document.getElementById('series').textContent);
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#17becf'];
  const width = Math.max(360, Math.min(560, (window.innerWidth - 120) / 2));
  const positive = (values) => values.map(v => (v !== null && v > 0 ? v : null));  // log scale: no zeros
  const stepped = () => uPlot.paths.stepped({ align: 1 });
  const panels = document.getElementById('panels');
  for (const m of models) {
    const panel = document.createElement('div');
    panel.className = 'panel';
    panel.innerHTML = '<h2></h2><div class="charts"></div>';
    panel.querySelector('h2').textContent = m.model;
    panels.appendChild(panel);
    const charts = panel.querySelector('.charts');
    const color = (i) => colors[i % colors.length];
    const demand = [{ label: 'time s' }, { label: 'observed req/s', stroke: '#444', scale: 'rps' },
      { label: 'forecast req/s', stroke: '#999', dash: [6, 4], scale: 'rps' }];
    const demandData = [m.t, m.demand_rps, m.forecast_rps];
    m.variants.forEach((v, i) => {
      demand.push({ label: v + ' target', stroke: color(i), width: 2, scale: 'n', paths: stepped() });
      demandData.push(m.target[i]);
      demand.push({ label: v + ' current', stroke: color(i), dash: [4, 4], scale: 'n', paths: stepped() });
      demandData.push(m.current[i]);
    });
    new uPlot({ title: 'demand, forecast and replicas', width: width, height: 260, series: demand,
      scales: { x: { time: false } },
      axes: [{ label: 'time s' }, { label: 'req/s', scale: 'rps' }, { label: 'replicas', scale: 'n', side: 1, grid: { show: false } }] },
      demandData, charts);
    const observedVsPredicted = (title, observed, predicted) => {
      const series = [{ label: 'time s' }], data = [m.t];
      m.variants.forEach((v, i) => {
        series.push({ label: v + ' observed', stroke: color(i), scale: 'ms' });
        data.push(positive(observed[i]));
        series.push({ label: v + ' predicted', stroke: color(i), dash: [6, 4], scale: 'ms' });
        data.push(positive(predicted[i]));
      });
      new uPlot({ title: title, width: width, height: 260, series: series,
        scales: { x: { time: false }, ms: { distr: 3 } }, axes: [{ label: 'time s' }, { label: 'ms', scale: 'ms' }] },
        data, charts);
    };
    observedVsPredicted('TTFT observed vs predicted', m.ttft_observed_ms, m.ttft_predicted_ms);
    observedVsPredicted('ITL observed vs predicted', m.itl_observed_ms, m.itl_predicted_ms);
    const params = [{ label: 'time s' }], paramData = [m.t];
    m.variants.forEach((v, i) => {
      [['alpha_ms', []], ['beta_ms', [6, 4]], ['gamma_ms', [2, 3]]].forEach(([key, dash]) => {
        params.push({ label: v + ' ' + key.replace('_ms', ''), stroke: color(i), dash: dash, scale: 'ms' });
        paramData.push(positive(m[key][i]));
      });
    });
    new uPlot({ title: 'learned alpha, beta, gamma (ms)', width: width, height: 260, series: params,
      scales: { x: { time: false }, ms: { distr: 3 } }, axes: [{ label: 'time s' }, { label: 'ms', scale: 'ms' }] },
      paramData, charts);
    const details = document.createElement('details');
    const summary = document.createElement('summary');
    summary.textContent = m.decisions.length + ' decisions that changed a count';
    const pre = document.createElement('pre');
    pre.textContent = m.decisions.map(d => 't=' + d[0] + 's ' + d[1] + ' ' + d[2] + ' -> ' + d[3] + ' [' + d[4] + '] ' + d[5]).join('\n');
    details.appendChild(summary);
    details.appendChild(pre);
    panel.appendChild(details);
  }
})();
)JS";

}  // namespace

Result<json> report_series(const storage::EventStore& store, const ReplayRange& range) {
  std::map<ModelKey, ModelSeries> models;
  DecisionFilter filter;
  filter.range = range;
  filter.with_observation = true;
  auto ran = for_each_decision(store, filter, [&](DecisionRecord& r) {
    models[r.decision.model].add(r);
    return true;
  });
  if (!ran.ok()) return ran.error();
  json out = json::array();
  for (auto& [key, m] : models) {
    json model = {{"model", model_name(key)}, {"variants", m.variants}, {"t", m.t},
                  {"demand_rps", m.demand},   {"forecast_rps", m.forecast}, {"decisions", m.decisions}};
    for (const char* k : kKeys) {
      json& arrays = m.per_variant[k];
      for (std::size_t i = 0; i < m.variants.size(); ++i) {
        json& values = arrays[i];
        if (values.size() < m.t.size()) values[m.t.size() - 1] = nullptr;  // null up to the last tick
      }
      model[k] = arrays.is_null() ? json::array() : arrays;
    }
    out.push_back(std::move(model));
  }
  return out;
}

std::string render_replay_report(const json& series, const std::string& data_dir, const std::string& command) {
  std::string html = sim::chart_page_head("capstan replay report: " + data_dir);
  html += "<h1>capstan replay report</h1>\n<pre>$ " + sim::html_escape(command) + "</pre>\n";
  html += "<p>The recorded decisions of <code>" + sim::html_escape(data_dir) +
          "</code>, tick by tick. Predicted TTFT and ITL are the learned queue model's (alpha, beta, gamma of that "
          "tick) at the per-replica rate and request sizes observed.</p>\n";
  html += "<div id=\"panels\"></div>\n";
  html += sim::json_script("series", series);
  html += "<script>";
  html += kScript;
  html += "</script>\n" + sim::chart_page_tail();
  return html;
}

}  // namespace capstan::replay
