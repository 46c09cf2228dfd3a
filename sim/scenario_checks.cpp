// The scenario checks; see scenario_checks.hpp.
#include "sim/scenario_checks.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <map>

#include "sim/scenario.hpp"

namespace capstan::sim {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double param(const CheckSpec& spec, const std::string& key, double fallback) {
  auto it = spec.params.find(key);
  return it == spec.params.end() ? fallback : it->second;
}

int total(const std::vector<int>& counts) {
  int n = 0;
  for (int c : counts) n += c;
  return n;
}

// Every variant's configuration in run order (PolicyRun::variants).
std::vector<const VariantConfig*> run_variants(const CheckContext& c) {
  std::vector<const VariantConfig*> out;
  for (const FleetConfig& f : c.fleets)
    for (const VariantConfig& v : f.variants) out.push_back(&v);
  return out;
}

// GPUs held by the replicas of a tick record (draining excluded; see the header).
int gpus_held(const TickRecord& t, const std::vector<const VariantConfig*>& variants) {
  int gpus = 0;
  for (std::size_t i = 0; i < t.replicas.size() && i < variants.size(); ++i)
    gpus += t.replicas[i] * variants[i]->gpus_per_replica;
  return gpus;
}

// The run's report, or model `model`'s own when the check names one.
const RunReport& report_of(const CheckSpec& spec, const CheckContext& c) {
  auto it = spec.params.find("model");
  if (it == spec.params.end()) return c.run.report;
  return c.run.models.at(static_cast<std::size_t>(it->second)).report;
}

using Evaluate = std::function<double(const CheckSpec&, const CheckContext&)>;

// Most scale actions in any window of window_s starting at or after after_s.
double scale_actions_per_window(const CheckSpec& spec, const CheckContext& c) {
  const double after_s = param(spec, "after_s", 0), window_s = param(spec, "window_s", 3600);
  std::vector<double> times;
  for (const ScaleAction& a : c.run.report.scale_actions)
    if (a.time_s >= after_s) times.push_back(a.time_s);
  std::sort(times.begin(), times.end());
  double most = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const auto end = std::lower_bound(times.begin(), times.end(), times[i] + window_s);
    most = std::max(most, static_cast<double>(end - (times.begin() + static_cast<long>(i))));
  }
  return most;
}

// Reversals back: up-down-up or down-up-down of one variant within within_ticks ticks.
double oscillations(const CheckSpec& spec, const CheckContext& c) {
  const double span_s = param(spec, "within_ticks", 3) * c.scenario.tick_s + 1e-9;
  const double after_s = param(spec, "after_s", 0);
  std::map<std::string, std::vector<std::pair<double, int>>> moves;  // variant -> (time, +1/-1)
  for (const ScaleAction& a : c.run.report.scale_actions)
    if (a.time_s >= after_s && a.to != a.from) moves[a.variant].emplace_back(a.time_s, a.to > a.from ? 1 : -1);
  double count = 0;
  for (const auto& [variant, m] : moves)
    for (std::size_t i = 0; i + 2 < m.size(); ++i)
      if (m[i].second == m[i + 2].second && m[i].second != m[i + 1].second && m[i + 2].first - m[i].first <= span_s)
        ++count;
  return count;
}

// Seconds after after_s until the fleet is at the floor for the rest of the run.
double time_to_floor_s(const CheckSpec& spec, const CheckContext& c) {
  const double after_s = spec.params.at("after_s");
  int floor = 0;  // per model: its minimums, and one replica when it may not scale to zero
  for (const FleetConfig& f : c.fleets) {
    int model_floor = 0;
    for (const VariantConfig& v : f.variants) model_floor += v.min_replicas;
    floor += c.scenario.scale_to_zero_retention_s <= 0 ? std::max(model_floor, 1) : model_floor;
  }
  floor = static_cast<int>(param(spec, "floor", floor));
  double reached = kNaN;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < after_s) continue;
    if (total(t.replicas) > floor) reached = kNaN;
    else if (std::isnan(reached)) reached = t.time_s - after_s;
  }
  return reached;
}

double idle_gpu_hours(const CheckSpec& spec, const CheckContext& c) {
  const double after_s = spec.params.at("after_s");
  const auto variants = run_variants(c);
  double gpu_s = 0;
  for (const TickRecord& t : c.run.series)
    if (t.time_s > after_s) gpu_s += gpus_held(t, variants) * c.scenario.tick_s;
  return gpu_s / 3600.0;
}

// Seconds after at_s until every later tick before until_s finished its requests
// within the TTFT target: none failed, some completed if any arrived, p99 <= SLO.
double ttft_recovery_s(const CheckSpec& spec, const CheckContext& c) {
  const double at_s = spec.params.at("at_s"), until_s = spec.params.at("until_s");
  double recovered = kNaN;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s <= at_s || t.time_s > until_s) continue;
    const bool good = t.failed == 0 && (t.completed > 0 || t.arrival_rate_rps == 0) &&
                      t.ttft_p99_ms <= c.scenario.slo.ttft_ms;
    if (!good) recovered = kNaN;
    else if (std::isnan(recovered)) recovered = t.time_s - at_s;
  }
  return recovered;
}

double observed_queueing_ticks(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = spec.params.at("from_s"), to_s = spec.params.at("to_s");
  double ticks = 0;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < from_s || t.time_s >= to_s) continue;
    if (std::any_of(t.decisions.begin(), t.decisions.end(), [](const Decision& d) {
          auto ms = observed_queueing_ms(d.reason.text);
          return ms && *ms > 0;
        }))
      ++ticks;
  }
  return ticks;
}

// Scale-ups decided while the variant already had replicas starting (pending/loading).
double scale_ups_while_loading(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = param(spec, "from_s", 0), to_s = param(spec, "to_s", kInf);
  double count = 0;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < from_s || t.time_s >= to_s) continue;
    for (const Decision& d : t.decisions) {
      const std::size_t i = variant_index(c.run, d);
      if (i >= t.replicas.size() || d.target_replicas <= d.current_replicas) continue;
      if (t.replicas[i] > t.ready[i]) ++count;
    }
  }
  return count;
}

// Largest relative gap between the horizon the reasons state and the fleet's start-up
// time (pending + cold start, what the simulator realises) of the slowest variant.
double horizon_error(const CheckSpec& spec, const CheckContext& c) {
  const double after_s = param(spec, "after_s", 0);
  double cold_start_s = 0;
  for (const VariantConfig* v : run_variants(c)) cold_start_s = std::max(cold_start_s, v->pending_s + v->cold_start_s);
  if (!(cold_start_s > 0)) return kNaN;
  double worst = kNaN;
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < after_s) continue;
    for (const Decision& d : t.decisions) {
      auto h = stated_horizon_s(d.reason.text);
      if (!h) continue;
      const double e = std::abs(*h - cold_start_s) / cold_start_s;
      worst = std::isnan(worst) ? e : std::max(worst, e);
    }
  }
  return worst;
}

// Most replicas a decision inside the gap went below the variant's last target before it.
double below_last_good(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = spec.params.at("from_s"), to_s = spec.params.at("to_s");
  std::map<std::size_t, int> last_good;  // by run variant index
  double worst = 0;
  for (const TickRecord& t : c.run.series) {
    for (const Decision& d : t.decisions) {
      const std::size_t i = variant_index(c.run, d);
      if (t.time_s < from_s) last_good[i] = d.target_replicas;
      else if (t.time_s < to_s && last_good.count(i))
        worst = std::max(worst, static_cast<double>(last_good[i] - d.target_replicas));
    }
  }
  return worst;
}

double metrics_missing_decisions(const CheckSpec& spec, const CheckContext& c) {
  const double from_s = spec.params.at("from_s"), to_s = spec.params.at("to_s");
  double count = 0;
  for (const TickRecord& t : c.run.series)
    if (t.time_s >= from_s && t.time_s < to_s)
      for (const Decision& d : t.decisions) count += d.reason.code == ReasonCode::kMetricsMissing ? 1 : 0;
  return count;
}

// Ticks after at_s until a tick whose decisions no longer say metrics_missing.
double resume_ticks(const CheckSpec& spec, const CheckContext& c) {
  const double at_s = spec.params.at("at_s");
  for (const TickRecord& t : c.run.series) {
    if (t.time_s < at_s || t.decisions.empty()) continue;
    if (std::none_of(t.decisions.begin(), t.decisions.end(),
                     [](const Decision& d) { return d.reason.code == ReasonCode::kMetricsMissing; }))
      return std::round((t.time_s - at_s) / c.scenario.tick_s);
  }
  return kNaN;
}

double slo_attainment(const CheckSpec& spec, const CheckContext& c) { return report_of(spec, c).slo_attainment; }
double ttft_p99_ms(const CheckSpec& spec, const CheckContext& c) { return report_of(spec, c).ttft_p99_ms; }

// Most GPUs held at once above the budget (negative: never reached it).
double budget_exceeded_gpus(const CheckSpec&, const CheckContext& c) {
  const auto variants = run_variants(c);
  int most = 0;
  for (const TickRecord& t : c.run.series) most = std::max(most, gpus_held(t, variants));
  return static_cast<double>(most - c.scenario.gpu_budget);
}

// Each variant's target after a tick's decisions (its replicas where none decided),
// clamped to the variant's bounds as the fleet applies it.
std::vector<int> targets_after(const TickRecord& t, const CheckContext& c,
                               const std::vector<const VariantConfig*>& variants) {
  std::vector<int> out = t.replicas;
  for (const Decision& d : t.decisions) {
    const std::size_t i = variant_index(c.run, d);
    if (i < out.size()) out[i] = std::clamp(d.target_replicas, variants[i]->min_replicas, variants[i]->max_replicas);
  }
  return out;
}

// Decisions with reason code budget_limited in ticks whose targets leave less than one
// replica of the variant free below the budget: a budget reason that is true.
double budget_blocked_reasons(const CheckSpec&, const CheckContext& c) {
  const auto variants = run_variants(c);
  double count = 0;
  for (const TickRecord& t : c.run.series) {
    const std::vector<int> targets = targets_after(t, c, variants);
    int gpus = 0;
    for (std::size_t i = 0; i < targets.size() && i < variants.size(); ++i)
      gpus += targets[i] * variants[i]->gpus_per_replica;
    for (const Decision& d : t.decisions) {
      const std::size_t i = variant_index(c.run, d);
      if (d.reason.code == ReasonCode::kBudgetLimited && i < variants.size() &&
          c.scenario.gpu_budget - gpus < variants[i]->gpus_per_replica)
        ++count;
    }
  }
  return count;
}

// Of the replicas scale-ups added (raises to a variant's minimum aside), the share
// placed on a variant while another variant of the same model, cheaper per unit of
// sustainable capacity at the SLO, still had room below its maximum after that tick.
// A variant that sustains nothing at the SLO is the dearest of all. 0 with no scale-up.
double spillover_off_cheapest(const CheckSpec&, const CheckContext& c) {
  const auto variants = run_variants(c);
  if (c.sustainable_rps.size() != variants.size()) return kNaN;
  std::vector<double> cost_per_rps;
  for (std::size_t i = 0; i < variants.size(); ++i)
    cost_per_rps.push_back(c.sustainable_rps[i] > 0 ? variants[i]->cost_per_replica_hour / c.sustainable_rps[i] : kInf);
  double added = 0, off = 0;
  for (const TickRecord& t : c.run.series) {
    const std::vector<int> targets = targets_after(t, c, variants);
    for (const Decision& d : t.decisions) {
      const std::size_t i = variant_index(c.run, d);
      if (i >= variants.size() || i >= t.replicas.size() || d.reason.code == ReasonCode::kMinReplicas) continue;
      const int more = targets[i] - t.replicas[i];
      if (more <= 0) continue;
      added += more;
      for (std::size_t u = 0; u < variants.size(); ++u)
        if (c.run.variant_model[u] == c.run.variant_model[i] && cost_per_rps[u] < cost_per_rps[i] &&
            targets[u] < variants[u]->max_replicas) {
          off += more;
          break;
        }
    }
  }
  return added > 0 ? off / added : 0;
}

double gpu_hours_vs_oracle(const CheckSpec&, const CheckContext& c) {
  if (!c.oracle_gpu_hours || !(*c.oracle_gpu_hours > 0)) return kNaN;
  return c.run.report.gpu_hours / *c.oracle_gpu_hours;
}

// Most replicas held at once over the most the oracle's plan needs at its peak.
double peak_replicas_vs_oracle(const CheckSpec&, const CheckContext& c) {
  if (!c.oracle_peak_replicas || *c.oracle_peak_replicas <= 0) return kNaN;
  int most = 0;
  for (const TickRecord& t : c.run.series) most = std::max(most, total(t.replicas));
  return static_cast<double>(most) / *c.oracle_peak_replicas;
}

struct Entry {
  CheckInfo info;
  Evaluate evaluate;
};

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all{
      {{"scale_actions_per_window", Bound::kAtMost, {}, {"after_s", "window_s"},
        "most scale actions in any window_s (default 3600) after after_s"}, scale_actions_per_window},
      {{"oscillations", Bound::kAtMost, {}, {"after_s", "within_ticks"},
        "up-down-up or down-up-down of a variant within within_ticks (default 3) ticks"}, oscillations},
      {{"time_to_floor_s", Bound::kAtMost, {"after_s"}, {"floor"},
        "s after after_s until the fleet stays at its floor (per model: 0 with scale to zero, else max(1, sum of min))"},
       time_to_floor_s},
      {{"idle_gpu_hours", Bound::kAtMost, {"after_s"}, {}, "GPU-hours of replicas held after after_s"},
       idle_gpu_hours},
      {{"ttft_recovery_s", Bound::kAtMost, {"at_s", "until_s"}, {},
        "s after at_s until every tick before until_s has p99 TTFT within the SLO and no failures"},
       ttft_recovery_s},
      {{"observed_queueing_ticks", Bound::kAtLeast, {"from_s", "to_s"}, {},
        "ticks in [from_s, to_s) whose decision states a non-zero observed queueing"}, observed_queueing_ticks},
      {{"scale_ups_while_loading", Bound::kAtMost, {}, {"from_s", "to_s"},
        "scale-ups decided while the variant had replicas pending or loading"}, scale_ups_while_loading},
      {{"peak_replicas_vs_oracle", Bound::kAtMost, {}, {},
        "most replicas held at once over the most the offline oracle needs", false, true}, peak_replicas_vs_oracle},
      {{"horizon_error", Bound::kAtMost, {}, {"after_s"},
        "largest |stated forecast horizon - measured start-up time| / start-up time"}, horizon_error},
      {{"below_last_good", Bound::kAtMost, {"from_s", "to_s"}, {},
        "most replicas a decision in the gap is below the variant's last target before it"}, below_last_good},
      {{"metrics_missing_decisions", Bound::kAtLeast, {"from_s", "to_s"}, {},
        "decisions with reason code metrics_missing in [from_s, to_s)"}, metrics_missing_decisions},
      {{"resume_ticks", Bound::kAtMost, {"at_s"}, {},
        "ticks after at_s until no decision says metrics_missing"}, resume_ticks},
      {{"budget_exceeded_gpus", Bound::kAtMost, {}, {},
        "most GPUs held at once (pending, loading, ready) minus gpu_budget", true}, budget_exceeded_gpus},
      {{"budget_blocked_reasons", Bound::kAtLeast, {}, {},
        "decisions with reason budget_limited while the targets leave less than a replica free below gpu_budget",
        true}, budget_blocked_reasons},
      {{"spillover_off_cheapest", Bound::kAtMost, {}, {},
        "share of scale-up replicas placed while a variant of the model cheaper per sustainable req/s had room",
        false, true}, spillover_off_cheapest},
      {{"slo_attainment", Bound::kAtLeast, {}, {"model"},
        "share of finished requests within both SLO targets (of model `model` when given)"}, slo_attainment},
      {{"ttft_p99_ms", Bound::kAtMost, {}, {"model"}, "p99 TTFT over the run, ms (of model `model` when given)"},
       ttft_p99_ms},
      {{"gpu_hours_vs_oracle", Bound::kAtMost, {}, {}, "GPU-hours over the offline oracle's", false, true},
       gpu_hours_vs_oracle},
  };
  return all;
}

}  // namespace

const std::vector<CheckInfo>& check_catalogue() {
  static const std::vector<CheckInfo> infos = [] {
    std::vector<CheckInfo> out;
    for (const Entry& e : entries()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

const CheckInfo* find_check(const std::string& name) {
  for (const CheckInfo& info : check_catalogue())
    if (info.name == name) return &info;
  return nullptr;
}

CheckResult evaluate_check(const CheckSpec& spec, const CheckContext& context) {
  CheckResult r;
  r.name = spec.check;
  r.limit = spec.limit;
  for (const Entry& e : entries()) {
    if (e.info.name != spec.check) continue;
    r.bound = e.info.bound;
    r.value = e.evaluate(spec, context);
    r.passed = !std::isnan(r.value) && (r.bound == Bound::kAtMost ? r.value <= r.limit : r.value >= r.limit);
    return r;
  }
  r.value = kNaN;
  return r;
}

std::optional<double> observed_queueing_ms(const std::string& text) {
  const std::string marker = " observed queueing";
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) return std::nullopt;
  std::string before = text.substr(0, at);
  if (before.size() >= 3 && before.compare(before.size() - 3, 3, " ms") == 0) before.resize(before.size() - 3);
  const std::size_t start = before.find_last_of(' ');
  const std::string figure = start == std::string::npos ? before : before.substr(start + 1);
  if (figure == "unbounded") return kInf;
  char* end = nullptr;
  const double v = std::strtod(figure.c_str(), &end);
  if (figure.empty() || end != figure.c_str() + figure.size()) return std::nullopt;
  return v;
}

std::optional<double> stated_horizon_s(const std::string& text) {
  const std::size_t at = text.find("t+");
  if (at == std::string::npos) return std::nullopt;
  const char* begin = text.c_str() + at + 2;
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || std::string(end).rfind(" s", 0) != 0) return std::nullopt;
  return v;
}

}  // namespace capstan::sim
