// Median and worst over seeds; see seed_summary.hpp.
#include "sim/report/seed_summary.hpp"

#include <algorithm>
#include <string>

namespace capstan::sim {
namespace {

const std::vector<std::string> kPolicyFigures{"requests",     "slo_attainment", "failed",      "ttft_p50_ms",
                                              "ttft_p99_ms",  "itl_p50_ms",     "itl_p99_ms",  "gpu_hours",
                                              "cost",         "scale_actions",  "gpu_hours_vs_oracle",
                                              "vs_static"};

nlohmann::json at_path(const nlohmann::json& j, const std::vector<std::string>& path) {
  const nlohmann::json* at = &j;
  for (const auto& key : path) {
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &at->at(key);
  }
  return *at;
}

}  // namespace

nlohmann::json median_and_worst(const std::vector<nlohmann::json>& values, bool higher_is_worse) {
  std::vector<double> v;
  for (const auto& x : values)
    if (x.is_number()) v.push_back(x.get<double>());
  if (v.empty()) return {{"median", nullptr}, {"worst", nullptr}};
  std::sort(v.begin(), v.end());
  return {{"median", v[(v.size() - 1) / 2]}, {"worst", higher_is_worse ? v.back() : v.front()}};
}

nlohmann::json seed_aggregate_json(const std::vector<std::uint64_t>& seeds,
                                   const std::vector<nlohmann::json>& summaries) {
  auto over_seeds = [&](const std::vector<std::string>& path, bool higher_is_worse) {
    std::vector<nlohmann::json> values;
    for (const auto& s : summaries) values.push_back(at_path(s, path));
    return median_and_worst(values, higher_is_worse);
  };
  nlohmann::json policies = nlohmann::json::array();
  if (!summaries.empty()) {
    const auto& first = summaries.front().at("policies");
    for (std::size_t p = 0; p < first.size(); ++p) {
      nlohmann::json row = {{"policy", first[p].at("policy")}};
      for (const auto& figure : kPolicyFigures) {
        std::vector<nlohmann::json> values;
        for (const auto& s : summaries) values.push_back(at_path(s.at("policies").at(p), {figure}));
        row[figure] = median_and_worst(values, figure != "slo_attainment");
      }
      int errors = 0;
      for (const auto& s : summaries) errors += s.at("policies").at(p).value("error", nlohmann::json()).is_string();
      row["errors"] = errors;
      policies.push_back(row);
    }
  }
  return {{"seeds", seeds},
          {"oracle", {{"gpu_hours", over_seeds({"oracle", "gpu_hours"}, true)}}},
          {"static_fleet", {{"gpu_hours", over_seeds({"static_fleet", "best", "gpu_hours"}, true)}}},
          {"policies", policies}};
}

}  // namespace capstan::sim
