// Issue 22's targets from a simulate document; see slo_targets.hpp.
#include "sim/report/slo_targets.hpp"

#include <algorithm>
#include <map>

#include "sim/report/seed_summary.hpp"

namespace capstan::sim {
namespace {

struct SeedRow {
  double attainment = 0;
  double gpu_hours = 0;
};

struct Seed {
  std::uint64_t seed = 0;
  std::map<std::string, SeedRow> rows;  // by policy
  std::vector<std::string> order;       // policies as the document lists them
  double static_gpu_hours = 0;
  bool static_meets = false;
  std::optional<double> static_from_start;  // its attainment asked for at t = 0 (documents before it: none)
  bool policy_error = false;
};

Result<Seed> read_seed(const nlohmann::json& summary, std::uint64_t seed, const std::string& policy) {
  const std::string where = "seed " + std::to_string(seed) + ": ";
  if (!summary.is_object() || !summary.contains("policies") || !summary.at("policies").is_array())
    return invalid_argument(where + "no policies in the simulate document");
  Seed s;
  s.seed = seed;
  for (const auto& row : summary.at("policies")) {
    const auto name = row.value("policy", std::string());
    const auto att = row.value("slo_attainment", nlohmann::json());
    const auto gpu = row.value("gpu_hours", nlohmann::json());
    if (!att.is_number() || !gpu.is_number())
      return invalid_argument(where + "policy '" + name + "' has no slo_attainment or gpu_hours");
    s.rows[name] = {att.get<double>(), gpu.get<double>()};
    s.order.push_back(name);
    if (name == policy) s.policy_error = row.value("error", nlohmann::json()).is_string();
  }
  if (!s.rows.count(policy)) return invalid_argument(where + "no row for policy '" + policy + "'");
  const auto fleet = summary.value("static_fleet", nlohmann::json());
  const auto best = fleet.is_object() ? fleet.value("best", nlohmann::json()) : nlohmann::json();
  if (!best.is_object() || !best.value("gpu_hours", nlohmann::json()).is_number())
    return invalid_argument(where + "no static_fleet.best.gpu_hours (run simulate with a static fleet)");
  s.static_gpu_hours = best.at("gpu_hours").get<double>();
  s.static_meets = best.value("meets", false);
  const auto from_start = fleet.value("from_start", nlohmann::json());
  if (from_start.is_object() && from_start.value("attainment", nlohmann::json()).is_number())
    s.static_from_start = from_start.at("attainment").get<double>();
  return s;
}

MedianWorst over(const std::vector<double>& values, bool higher_is_worse) {
  std::vector<nlohmann::json> j(values.begin(), values.end());
  const auto mw = median_and_worst(j, higher_is_worse);
  return {mw.at("median").get<double>(), mw.at("worst").get<double>()};
}

}  // namespace

bool SloTargetsVerdict::all_met() const {
  for (const TargetCheck& t : {reaches_attainment, within_static, below_peers})
    if (!t.median_met || !t.worst_met) return false;
  return true;
}

Result<SloTargetsVerdict> judge_slo_targets(const nlohmann::json& document, const SloTargetsSpec& spec) {
  std::vector<Seed> seeds;
  if (document.is_object() && document.contains("per_seed")) {
    const auto& per_seed = document.at("per_seed");
    const auto& numbers = document.value("seeds", nlohmann::json::array());
    if (!per_seed.is_array() || per_seed.empty() || numbers.size() != per_seed.size())
      return invalid_argument("per_seed must be a non-empty array with one entry per seed in 'seeds'");
    for (std::size_t i = 0; i < per_seed.size(); ++i) {
      auto s = read_seed(per_seed[i], numbers[i].get<std::uint64_t>(), spec.policy);
      if (!s.ok()) return s.error();
      seeds.push_back(std::move(s).value());
    }
  } else {
    auto s = read_seed(document, 0, spec.policy);  // a single-seed document does not name its seed
    if (!s.ok()) return s.error();
    seeds.push_back(std::move(s).value());
  }

  SloTargetsVerdict v;
  std::vector<double> att, gpu, stat, ratio, from_start;
  for (const Seed& s : seeds) {
    const SeedRow& own = s.rows.at(spec.policy);
    v.seeds.push_back(s.seed);
    att.push_back(own.attainment);
    gpu.push_back(own.gpu_hours);
    stat.push_back(s.static_gpu_hours);
    if (!s.static_meets) v.static_misses.push_back(s.seed);
    if (s.static_from_start) from_start.push_back(*s.static_from_start);
    if (s.static_gpu_hours > 0) ratio.push_back(own.gpu_hours / s.static_gpu_hours);
    v.errors += s.policy_error;
  }
  v.attainment = over(att, false);
  v.gpu_hours = over(gpu, true);
  v.static_gpu_hours = over(stat, true);
  if (ratio.size() == seeds.size()) v.vs_static = over(ratio, true);
  if (from_start.size() == seeds.size()) v.static_from_start_attainment = over(from_start, false);

  v.reaches_attainment = {v.attainment.median >= spec.attainment, v.attainment.worst >= spec.attainment};
  const bool yardstick = v.static_misses.empty() && v.vs_static.has_value();
  v.within_static = {yardstick && v.vs_static->median <= 1.0, yardstick && v.vs_static->worst <= 1.0};

  v.below_peers = {true, true};
  for (const std::string& name : seeds.front().order) {
    if (name == spec.policy) continue;
    PeerComparison peer;
    peer.policy = name;
    std::vector<double> peer_att, peer_gpu;
    for (const Seed& s : seeds) {
      const auto it = s.rows.find(name);
      if (it == s.rows.end()) return invalid_argument("seed " + std::to_string(s.seed) + ": no row for policy '" + name + "'");
      peer_att.push_back(it->second.attainment);
      peer_gpu.push_back(it->second.gpu_hours);
      const SeedRow& own = s.rows.at(spec.policy);
      if (it->second.attainment >= own.attainment) {
        peer.seeds_counted.push_back(s.seed);
        const double r = it->second.gpu_hours > 0 ? own.gpu_hours / it->second.gpu_hours : 0;
        peer.worst_ratio = std::max(peer.worst_ratio.value_or(r), r);
      }
    }
    peer.attainment = over(peer_att, false);
    peer.gpu_hours = over(peer_gpu, true);
    peer.counts_at_median = peer.attainment.median >= v.attainment.median;
    peer.median_ratio = peer.gpu_hours.median > 0 ? v.gpu_hours.median / peer.gpu_hours.median : 0;
    if (peer.counts_at_median && peer.median_ratio > spec.peer_ratio) v.below_peers.median_met = false;
    if (peer.worst_ratio && *peer.worst_ratio > spec.peer_ratio) v.below_peers.worst_met = false;
    v.peers.push_back(std::move(peer));
  }
  return v;
}

}  // namespace capstan::sim
