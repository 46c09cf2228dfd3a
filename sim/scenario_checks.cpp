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

std::optional<double> observed_queueing_ms(const std::string& text) {
  const std::string marker = " observed queueing";
  const std::size_t at = text.find(marker);
  if (at == std::string::npos) return std::nullopt;
  std::string before = text.substr(0, at);
  if (before.size() >= 3 && before.compare(before.size() - 3, 3, " ms") == 0) before.resize(before.size() - 3);
  const std::size_t start = before.find_last_of(' ');
  const std::string figure = start == std::string::npos ? before : before.substr(start + 1);
  if (figure == "unbounded") return checks::kInf;
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
