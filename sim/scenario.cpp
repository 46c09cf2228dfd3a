// Scenario file loading and validation; see scenario.hpp.
#include "sim/scenario.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include "domain/core/format.hpp"
#include "sim/line_reader.hpp"
#include "sim/scenario_checks.hpp"
#include "sim/trace_open.hpp"
#include "sim/yaml_fields.hpp"

namespace capstan::sim {
namespace {

constexpr double kBig = 1e12;
// A generated rate above this would take hours to draw: an error, not a hang.
constexpr double kMaxRateRps = 1e6;
// Ticks a run may take (duration_s / tick_s), so that a tiny tick cannot hang a run.
constexpr double kMaxTicks = 1e7;

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string resolve(const std::string& scenario_file, const std::string& relative) {
  const std::filesystem::path p(relative);
  if (p.is_absolute()) return relative;
  return (std::filesystem::path(scenario_file).parent_path() / p).lexically_normal().string();
}

const std::map<std::string, std::vector<std::string>>& generator_params() {
  static const std::map<std::string, std::vector<std::string>> params{
      {"poisson", {"rate_rps"}},
      {"diurnal", {"mean_rps", "amplitude", "period_s", "phase_rad"}},
      {"step", {}},
      {"burst", {"base_rps", "burst_rps", "period_s", "burst_s"}},
      {"ramp", {"from_rps", "to_rps", "at_s", "ramp_s"}},
      {"trace", {"speedup", "rate_scale"}},
      {"rates", {"time_scale", "rate_scale"}},
  };
  return params;
}

// The points of a `rates` workload: each window's rate at its midpoint (a window lasts
// until the next one starts; the last as long as the one before it).
Result<std::vector<std::pair<double, double>>> load_rate_points(const std::string& file) {
  LineReader in(file);
  if (!in.is_open()) return invalid_argument("cannot read '" + file + "'");
  std::vector<std::pair<double, double>> rows;
  while (auto line = in.next()) {
    const std::vector<std::string> fields = split_fields(*line);
    double s = 0, r = 0;
    if (in.line_number() == 1 && !parse_double(fields[0], s)) continue;  // the header
    const bool numbers = fields.size() >= 2 && parse_double(fields[0], s) && parse_double(fields[1], r);
    if (!numbers || !std::isfinite(s) || !std::isfinite(r) || s < 0 || r < 0)
      return invalid_argument("'" + file + "' line " + std::to_string(in.line_number()) +
                              " must be window_start_s,rate_rps with both numbers >= 0, got '" + *line + "'");
    if (!rows.empty() && s <= rows.back().first)
      return invalid_argument("'" + file + "' line " + std::to_string(in.line_number()) +
                              " must start after the line before");
    rows.emplace_back(s, r);
  }
  if (rows.size() < 2) return invalid_argument("'" + file + "' must hold at least two windows");
  std::vector<std::pair<double, double>> points;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double length = i + 1 < rows.size() ? rows[i + 1].first - rows[i].first : rows[i].first - rows[i - 1].first;
    points.emplace_back(rows[i].first + length / 2, rows[i].second);
  }
  return points;
}

// Errors as YamlFields does, under the key prefix `prefix` ("workload.lengths.").
std::optional<Error> load_lengths(const std::string& path, const YAML::Node& node, const std::string& prefix,
                                  LengthSpec& out) {
  if (!node) return std::nullopt;
  YamlFields f(path, node, prefix);
  reject_unknown_keys(f, node, {"input_mean", "input_cv", "input_max", "output_mean", "output_cv"});
  f.optional_double("input_mean", out.input_mean, 1, 1e7);
  f.optional_double("input_cv", out.input_cv, 0, 10);
  f.optional_double("input_max", out.input_max, 1, 1e7);
  f.optional_double("output_mean", out.output_mean, 1, 1e7);
  f.optional_double("output_cv", out.output_cv, 0, 10);
  if (f.ok() && out.input_max > 0 && out.input_max < out.input_mean)
    f.fail("input_max", "must be at least input_mean (" + std::to_string(std::lround(out.input_mean)) + ")");
  if (!f.ok()) return f.error();
  return std::nullopt;
}

// `prefix` names the node in errors: "workload." or "models[1].workload.".
Result<WorkloadSpec> load_workload(const std::string& path, const YAML::Node& node, const std::string& prefix) {
  WorkloadSpec w;
  YamlFields f(path, node, prefix);
  f.required_string("generator", w.generator);
  if (!f.ok()) return f.error();
  const auto& all = generator_params();
  auto it = all.find(w.generator);
  if (it == all.end()) {
    std::vector<std::string> names;
    for (const auto& [name, _] : all) names.push_back(name);
    f.fail("generator", "must be one of " + join(names) + ", got '" + w.generator + "'");
    return f.error();
  }
  std::vector<std::string> known{"generator", "lengths"};
  known.insert(known.end(), it->second.begin(), it->second.end());
  if (w.generator == "step") known.push_back("steps");
  if (w.generator == "trace") known.insert(known.end(), {"path", "window"});
  if (w.generator == "rates") known.push_back("path");
  reject_unknown_keys(f, node, known);
  const bool optional_param = w.generator == "trace" || w.generator == "rates";
  for (const auto& key : it->second) {
    double v = 0;
    const bool has_default = optional_param || key == "phase_rad";
    if (has_default && !node[key]) continue;
    const bool rate = key.size() > 4 && key.substr(key.size() - 4) == "_rps";
    f.required_double(key, v, key == "phase_rad" ? -kBig : 0, key == "amplitude" ? 1 : rate ? kMaxRateRps : kBig);
    if (f.ok()) w.params[key] = v;
  }
  if (f.ok() && (w.generator == "diurnal" || w.generator == "burst") && w.params["period_s"] <= 0)
    f.fail("period_s", "must be > 0, got 0");
  if (f.ok() && w.generator == "step") {
    const YAML::Node steps = node["steps"];
    if (!steps || !steps.IsSequence() || steps.size() == 0) {
      f.fail("steps", "must be a non-empty list of [start_s, rate_rps] pairs");
    } else {
      for (std::size_t i = 0; i < steps.size() && f.ok(); ++i) {
        const std::string key = "steps[" + std::to_string(i) + "]";
        try {
          if (!steps[i].IsSequence() || steps[i].size() != 2) throw YAML::Exception(YAML::Mark(), "");
          const double start = steps[i][0].as<double>(), rate = steps[i][1].as<double>();
          if (!(start >= 0 && start <= kBig && rate >= 0 && rate <= kMaxRateRps))
            f.fail(key, "must have start_s in 0.." + fmt_num(kBig) + " and rate_rps in 0.." + fmt_num(kMaxRateRps) +
                            ", got [" + fmt_num(start) + ", " + fmt_num(rate) + "]");
          else if (!w.steps.empty() && start <= w.steps.back().first)
            f.fail(key, "must start after the previous step");
          else w.steps.emplace_back(start, rate);
        } catch (const YAML::Exception&) {
          f.fail(key, "must be a [start_s, rate_rps] pair of numbers");
        }
      }
    }
  }
  if (f.ok() && w.generator == "trace") {
    std::string rel;
    f.required_string("path", rel);
    if (f.ok()) {
      w.trace_path = resolve(path, rel);
      if (!std::filesystem::exists(w.trace_path)) f.fail("path", "must name an existing file, got '" + rel + "'");
    }
    std::string window;
    f.optional_string("window", window);
    if (f.ok() && !window.empty()) {
      auto parsed = parse_window(window);
      if (!parsed.ok()) f.fail("window", "must be FROM:TO seconds: " + parsed.error().message);
      else {
        w.window_from_s = parsed.value().first;
        w.window_to_s = std::isfinite(parsed.value().second) ? parsed.value().second : -1;
      }
    }
    if (f.ok() && w.params.count("speedup") && !(w.params["speedup"] >= kMinSpeedup && w.params["speedup"] <= kMaxSpeedup))
      f.fail("speedup", "must be in " + fmt_num(kMinSpeedup) + ".." + fmt_num(kMaxSpeedup) + ", got " +
                            fmt_num(w.params["speedup"]));
    if (f.ok() && w.params.count("rate_scale") && !(w.params["rate_scale"] > 0 && w.params["rate_scale"] <= kMaxRateScale))
      f.fail("rate_scale", "must be > 0 and <= " + fmt_num(kMaxRateScale) + ", got " + fmt_num(w.params["rate_scale"]));
  }
  if (f.ok() && w.generator == "rates") {
    for (const char* key : {"time_scale", "rate_scale"})
      if (f.ok() && w.params.count(key) && !(w.params[key] > 0 && w.params[key] <= kMaxRateScale))
        f.fail(key, "must be > 0 and <= " + fmt_num(kMaxRateScale) + ", got " + fmt_num(w.params[key]));
    std::string rel;
    f.required_string("path", rel);
    if (f.ok()) {
      const std::string file = resolve(path, rel);
      auto points = load_rate_points(file);
      if (!points.ok()) f.fail("path", points.error().message);
      else {
        const double time_scale = w.params.count("time_scale") ? w.params["time_scale"] : 1;
        const double rate_scale = w.params.count("rate_scale") ? w.params["rate_scale"] : 1;
        for (auto [t, r] : points.value()) w.rate_points.emplace_back(t / time_scale, r * rate_scale);
        for (const auto& [t, r] : w.rate_points)
          if (f.ok() && r > kMaxRateRps)
            f.fail("rate_scale", "makes a rate of " + fmt_num(r) + " req/s, above " + fmt_num(kMaxRateRps));
      }
    }
  }
  if (!f.ok()) return f.error();
  if (auto e = load_lengths(path, node["lengths"], prefix + "lengths.", w.lengths)) return *e;
  return w;
}

// `slo_attainment` may leave out its limit: it is then the scenario's slo.attainment,
// the figure the oracle and the policies were given.
Result<CheckSpec> load_check(const std::string& path, const YAML::Node& node, std::size_t index,
                             double slo_attainment) {
  CheckSpec c;
  YamlFields f(path, node, "checks[" + std::to_string(index) + "].");
  f.required_string("check", c.check);
  if (!f.ok()) return f.error();
  const CheckInfo* info = find_check(c.check);
  if (info == nullptr) {
    std::vector<std::string> names;
    for (const CheckInfo& i : check_catalogue()) names.push_back(i.name);
    f.fail("check", "must be one of " + join(names) + ", got '" + c.check + "'");
    return f.error();
  }
  std::vector<std::string> known{"check", "limit"};
  known.insert(known.end(), info->required.begin(), info->required.end());
  known.insert(known.end(), info->optional.begin(), info->optional.end());
  reject_unknown_keys(f, node, known);
  if (c.check == "slo_attainment" && !node["limit"]) {
    c.limit = slo_attainment;
  } else {
    f.required_double("limit", c.limit, -kBig, kBig);
  }
  for (const auto& key : info->required) {
    double v = 0;
    f.required_double(key, v, 0, kBig);
    if (f.ok()) c.params[key] = v;
  }
  for (const auto& key : info->optional) {
    if (!node[key]) continue;
    double v = 0;
    f.optional_double(key, v, 0, kBig);
    if (f.ok()) c.params[key] = v;
  }
  if (!f.ok()) return f.error();
  return c;
}

// The fleet path of a model, resolved and required to exist; errors via `f`.
void load_fleet_path(const std::string& path, YamlFields& f, std::string& out) {
  std::string fleet;
  f.required_string("fleet", fleet);
  if (!f.ok()) return;
  out = resolve(path, fleet);
  if (!std::filesystem::exists(out)) f.fail("fleet", "must name an existing file, got '" + fleet + "'");
}

// `models: [{fleet, workload, priority}, ...]`, each named "models[i]." in errors.
Result<std::vector<ModelSpec>> load_models(const std::string& path, const YAML::Node& node) {
  if (!node.IsSequence() || node.size() == 0)
    return invalid_argument(path + ": models must be a non-empty list of {fleet, workload, priority}");
  std::vector<ModelSpec> out;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const std::string prefix = "models[" + std::to_string(i) + "].";
    if (!node[i].IsMap()) return invalid_argument(path + ": models[" + std::to_string(i) + "] must be a mapping");
    YamlFields f(path, node[i], prefix);
    reject_unknown_keys(f, node[i], {"fleet", "workload", "priority"});
    ModelSpec m;
    load_fleet_path(path, f, m.fleet_path);
    f.optional_int("priority", m.priority, 1, 1000000);
    if (f.ok() && !node[i]["workload"]) f.fail("workload", "is required");
    if (!f.ok()) return f.error();
    auto workload = load_workload(path, node[i]["workload"], prefix + "workload.");
    if (!workload.ok()) return workload.error();
    m.workload = std::move(workload).value();
    out.push_back(std::move(m));
  }
  return out;
}

// `policy: {pd_band: [lo, hi], max_step_up, max_step_down}`: PolicyConfig knobs the
// scenario sets for every policy it runs; errors named "policy.<key>".
std::optional<Error> load_policy(const std::string& path, const YAML::Node& node, ScenarioPolicy& out) {
  if (!node.IsMap())
    return invalid_argument(path + ": policy must be a mapping of pd_band, max_step_up, max_step_down, hpa_target");
  YamlFields f(path, node, "policy.");
  reject_unknown_keys(f, node, {"pd_band", "max_step_up", "max_step_down", "hpa_target"});
  f.optional_double("hpa_target", out.hpa_target, 0.001, 1e6);
  f.optional_int("max_step_up", out.max_step_up, 0, 1000000);
  f.optional_int("max_step_down", out.max_step_down, 0, 1000000);
  if (f.ok() && node["pd_band"]) {
    const YAML::Node band = node["pd_band"];
    try {
      if (!band.IsSequence() || band.size() != 2) throw YAML::Exception(YAML::Mark(), "");
      out.pd_band = {band[0].as<double>(), band[1].as<double>()};
      if (auto e = validate(out.pd_band)) f.fail("pd_band", "must be a valid band: " + e->message);
      else if (!enabled(out.pd_band)) f.fail("pd_band", "must set a bound (0 = none), got [0, 0]");
    } catch (const YAML::Exception&) {
      f.fail("pd_band", "must be a [min_prefill_per_decode, max_prefill_per_decode] pair of numbers");
    }
  }
  if (!f.ok()) return f.error();
  return std::nullopt;
}

// What the catalogue cannot check alone: budget checks need a budget, a `model`
// parameter must name one of the scenario's models, and a `from_s` must leave some of
// the run to measure.
std::optional<Error> check_against_scenario(const std::string& path, const Scenario& s) {
  for (std::size_t i = 0; i < s.checks.size(); ++i) {
    const CheckSpec& c = s.checks[i];
    const std::string key = path + ": checks[" + std::to_string(i) + "].";
    const CheckInfo* info = find_check(c.check);
    if (info != nullptr && info->needs_gpu_budget && s.gpu_budget <= 0)
      return invalid_argument(key + "check " + c.check + " needs gpu_budget > 0, got " + std::to_string(s.gpu_budget));
    if (auto it = c.params.find("model"); it != c.params.end()) {
      if (it->second != std::floor(it->second) || it->second >= static_cast<double>(s.models.size()))
        return invalid_argument(key + "model must be a model index below " + std::to_string(s.models.size()) +
                                ", got " + fmt_num(it->second));
      if (c.params.count("from_s"))
        return invalid_argument(key + "from_s counts the requests of every model: give it or model, not both");
    }
    if (auto it = c.params.find("from_s"); it != c.params.end() && it->second >= s.duration_s)
      return invalid_argument(key + "from_s must be below duration_s (" + fmt_num(s.duration_s) + "), got " +
                              fmt_num(it->second));
  }
  return std::nullopt;
}

}  // namespace

Result<Scenario> load_scenario(const std::string& path) {
  auto doc = load_yaml_file(path);
  if (!doc.ok()) return doc.error();
  const YAML::Node root = doc.value();
  YamlFields top(path, root);
  reject_unknown_keys(top, root,
                      {"name", "description", "fleet", "workload", "models", "gpu_budget", "duration_s", "tick_s",
                       "seed", "slo", "scale_to_zero_retention_s", "scale_down_cooldown_s", "metrics_gap", "policy",
                       "checks"});
  Scenario s;
  s.file = path;
  int seed = 1;
  const bool several = top.ok() && root["models"];
  top.required_string("name", s.name);
  top.optional_string("description", s.description);
  if (several && (root["fleet"] || root["workload"]))
    top.fail(root["fleet"] ? "fleet" : "workload", "cannot be combined with models (give each model its own)");
  ModelSpec single;
  if (!several && top.ok() && !root["fleet"])
    top.fail("fleet", "is required (or models: a list of {fleet, workload, priority})");
  if (!several) load_fleet_path(path, top, single.fleet_path);
  top.optional_int("gpu_budget", s.gpu_budget, 0, 1000000);
  top.required_double("duration_s", s.duration_s, 1, 1e8);
  top.optional_double("tick_s", s.tick_s, 0.001, 1e6);
  top.optional_int("seed", seed, 0, 1 << 30);
  top.optional_double("scale_to_zero_retention_s", s.scale_to_zero_retention_s, 0, 1e8);
  top.optional_double("scale_down_cooldown_s", s.scale_down_cooldown_s, 0, 1e8);
  if (top.ok() && s.duration_s / s.tick_s > kMaxTicks)
    top.fail("tick_s", "must be >= duration_s / " + fmt_num(kMaxTicks) + " (" + fmt_num(s.duration_s / kMaxTicks) +
                           "), got " + fmt_num(s.tick_s));
  if (top.ok() && (s.name.empty() || s.name.find_first_of(" \t/") != std::string::npos))
    top.fail("name", "must be a non-empty word without spaces or '/', got '" + s.name + "'");
  if (top.ok() && root["slo"]) {
    YamlFields slo(path, root["slo"], "slo.");
    reject_unknown_keys(slo, root["slo"], {"ttft_ms", "itl_ms", "attainment"});
    slo.optional_double("ttft_ms", s.slo.ttft_ms, 0, 1e9);
    slo.optional_double("itl_ms", s.slo.itl_ms, 0, 1e9);
    slo.optional_double("attainment", s.slo_attainment, kMinAttainmentTarget, kMaxAttainmentTarget);
    if (slo.ok() && !s.slo.is_explicit())
      slo.fail("ttft_ms", "or itl_ms must be > 0 (0 leaves that metric unconstrained), got both 0");
    if (!slo.ok()) return slo.error();
  }
  if (top.ok() && root["metrics_gap"]) {
    YamlFields gap(path, root["metrics_gap"], "metrics_gap.");
    reject_unknown_keys(gap, root["metrics_gap"], {"from_s", "to_s", "kind"});
    MetricsGap g;
    std::string kind = "missing";
    gap.required_double("from_s", g.from_s, 0, 1e8);
    gap.required_double("to_s", g.to_s, 0, 1e8);
    gap.optional_string("kind", kind);
    if (gap.ok() && g.to_s <= g.from_s) gap.fail("to_s", "must be > from_s");
    bool known = false;
    for (MetricsGapKind k : {MetricsGapKind::kMissing, MetricsGapKind::kNaN, MetricsGapKind::kStale})
      if (kind == to_string(k)) {
        g.kind = k;
        known = true;
      }
    if (gap.ok() && !known) gap.fail("kind", "must be one of missing, nan, stale, got '" + kind + "'");
    if (!gap.ok()) return gap.error();
    s.metrics_gap = g;
  }
  if (top.ok() && root["policy"])
    if (auto e = load_policy(path, root["policy"], s.policy)) return *e;
  if (!top.ok()) return top.error();
  s.seed = static_cast<std::uint64_t>(seed);
  if (several) {
    auto models = load_models(path, root["models"]);
    if (!models.ok()) return models.error();
    s.models = std::move(models).value();
  } else {
    if (!root["workload"]) return invalid_argument(path + ": workload is required");
    auto workload = load_workload(path, root["workload"], "workload.");
    if (!workload.ok()) return workload.error();
    single.workload = std::move(workload).value();
    s.models.push_back(std::move(single));
  }
  const YAML::Node checks = root["checks"];
  if (!checks || !checks.IsSequence() || checks.size() == 0)
    return invalid_argument(path + ": checks must be a non-empty list");
  for (std::size_t i = 0; i < checks.size(); ++i) {
    auto c = load_check(path, checks[i], i, s.slo_attainment);
    if (!c.ok()) return c.error();
    s.checks.push_back(std::move(c).value());
  }
  if (auto e = check_against_scenario(path, s)) return *e;
  return s;
}

Result<std::vector<Scenario>> load_scenarios(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return invalid_argument(dir + ": not a directory");
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".yaml") files.push_back(entry.path().string());
  std::vector<Scenario> out;
  std::set<std::string> names;
  for (const auto& file : files) {
    auto s = load_scenario(file);
    if (!s.ok()) return s.error();
    if (!names.insert(s.value().name).second)
      return invalid_argument(file + ": name must be unique in " + dir + ", got '" + s.value().name + "' twice");
    out.push_back(std::move(s).value());
  }
  std::sort(out.begin(), out.end(), [](const Scenario& a, const Scenario& b) { return a.name < b.name; });
  return out;
}

}  // namespace capstan::sim
