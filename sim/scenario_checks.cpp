// The scenario checks; see scenario_checks.hpp.
#include "sim/scenario_checks.hpp"

#include <cmath>
#include <cstdlib>

#include "sim/scenario_check_family.hpp"

namespace capstan::sim {
namespace {

using checks::Entry;

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all = [] {
    std::vector<Entry> out;
    for (auto family : {checks::stability_checks, checks::latency_checks, checks::metric_gap_checks,
                        checks::budget_checks, checks::overall_checks, checks::disagg_checks}) {
      auto more = family();
      out.insert(out.end(), more.begin(), more.end());
    }
    return out;
  }();
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
  r.value = checks::kNaN;
  return r;
}

}  // namespace capstan::sim
