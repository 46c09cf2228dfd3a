// Text tables of the scenario suite; see scenarios_table.hpp.
#include "adapters/cli/scenarios_table.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "domain/core/format.hpp"

namespace capstan::cli {
namespace {

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

void add_unique(std::vector<std::string>& out, const std::string& name) {
  if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
}

// The scenarios and policies of a run's results, in order of first appearance, and one
// cell per (policy, scenario): "-" where that pair did not run.
struct Matrix {
  std::vector<std::string> scenarios, policies;
  std::vector<std::vector<std::string>> cells;
};

template <typename Result, typename Cell>
Matrix matrix_of(const std::vector<Result>& results, Cell cell) {
  Matrix m;
  for (const auto& r : results) {
    add_unique(m.scenarios, r.scenario);
    add_unique(m.policies, r.policy);
  }
  m.cells.assign(m.policies.size(), std::vector<std::string>(m.scenarios.size(), "-"));
  for (const auto& r : results) {
    const auto p = static_cast<std::size_t>(std::find(m.policies.begin(), m.policies.end(), r.policy) - m.policies.begin());
    const auto s = static_cast<std::size_t>(std::find(m.scenarios.begin(), m.scenarios.end(), r.scenario) - m.scenarios.begin());
    m.cells[p][s] = cell(r);
  }
  return m;
}

// A policy x scenario table with a last column counting the PASS cells of each row.
std::string matrix_text(const Matrix& m, const std::string& last_header) {
  std::vector<std::size_t> widths;
  for (std::size_t s = 0; s < m.scenarios.size(); ++s) {
    std::size_t w = std::max<std::size_t>(m.scenarios[s].size(), 4) + 2;
    for (const auto& row : m.cells) w = std::max(w, row[s].size() + 2);
    widths.push_back(w);
  }
  std::size_t first = std::string("policy").size();
  for (const auto& p : m.policies) first = std::max(first, p.size());
  std::ostringstream out;
  out << pad("policy", first + 2);
  for (std::size_t s = 0; s < m.scenarios.size(); ++s) out << pad(m.scenarios[s], widths[s]);
  out << last_header << "\n";
  for (std::size_t p = 0; p < m.policies.size(); ++p) {
    out << pad(m.policies[p], first + 2);
    int passed = 0, total = 0;
    for (std::size_t s = 0; s < m.scenarios.size(); ++s) {
      out << pad(m.cells[p][s], widths[s]);
      if (m.cells[p][s] != "-") ++total;
      if (m.cells[p][s] == "PASS") ++passed;
    }
    out << passed << "/" << total << "\n";
  }
  return out.str();
}

// The start of each check row: scenario and policy padded to the widest of the results.
template <typename Result>
std::pair<std::size_t, std::size_t> name_widths(const std::vector<Result>& results) {
  std::size_t scenario_w = 0, policy_w = 0;
  for (const auto& r : results) {
    scenario_w = std::max(scenario_w, r.scenario.size());
    policy_w = std::max(policy_w, r.policy.size());
  }
  return {scenario_w + 2, policy_w + 2};
}

}  // namespace

std::string format_check(const sim::CheckResult& c) {
  const std::string value = std::isnan(c.value) ? "never" : fmt_num(c.value);
  return c.name + " " + value + (c.bound == sim::Bound::kAtMost ? " <= " : " >= ") + fmt_num(c.limit) +
         (c.passed ? " ok" : " FAIL");
}

std::string format_scenario_matrix(const std::vector<sim::ScenarioResult>& results) {
  return matrix_text(matrix_of(results, [](const sim::ScenarioResult& r) { return r.passed ? "PASS" : "FAIL"; }),
                     "passed");
}

std::string format_scenario_checks(const std::vector<sim::ScenarioResult>& results) {
  const auto [scenario_w, policy_w] = name_widths(results);
  std::ostringstream out;
  for (const auto& r : results) {
    out << pad(r.scenario, scenario_w) << pad(r.policy, policy_w) << (r.passed ? "PASS  " : "FAIL  ");
    for (std::size_t i = 0; i < r.checks.size(); ++i) out << (i ? "; " : "") << format_check(r.checks[i]);
    out << "; GPU-hours " << fmt_num(std::round(r.gpu_hours * 100) / 100);
    if (r.static_gpu_hours && *r.static_gpu_hours > 0)
      out << ", vs_static " << fmt_num(std::round(r.gpu_hours / *r.static_gpu_hours * 100) / 100);
    if (!r.error.empty()) out << "; error: " << r.error;
    out << "\n";
  }
  return out.str();
}

namespace {

std::string seeds_text(const std::vector<std::uint64_t>& seeds) {
  std::string out;
  for (auto s : seeds) out += (out.empty() ? "" : ",") + std::to_string(s);
  return out;
}

std::string rounded(double v) { return std::isnan(v) ? "never" : fmt_num(std::round(v * 1000) / 1000); }

}  // namespace

std::string format_seeded_matrix(const std::vector<sim::SeededResult>& results) {
  return matrix_text(matrix_of(results,
                               [](const sim::SeededResult& r) {
                                 return r.passed() ? std::string("PASS") : "FAIL@" + seeds_text(r.failed_seeds);
                               }),
                     "passed at every seed");
}

std::string format_seeded_checks(const std::vector<sim::SeededResult>& results) {
  const auto [scenario_w, policy_w] = name_widths(results);
  std::ostringstream out;
  for (const auto& r : results) {
    out << pad(r.scenario, scenario_w) << pad(r.policy, policy_w) << (r.passed() ? "PASS  " : "FAIL  ");
    for (std::size_t i = 0; i < r.checks.size(); ++i) {
      const auto& c = r.checks[i];
      out << (i ? "; " : "") << c.name << " " << rounded(c.median) << " (" << rounded(c.worst) << ")"
          << (c.bound == sim::Bound::kAtMost ? " <= " : " >= ") << fmt_num(c.limit);
      if (!c.failed_seeds.empty()) out << " FAIL@" << seeds_text(c.failed_seeds);
    }
    out << "; GPU-hours " << rounded(r.gpu_hours_median) << " (" << rounded(r.gpu_hours_worst) << ")";
    if (!std::isnan(r.vs_static_median))
      out << ", vs_static " << rounded(r.vs_static_median) << " (" << rounded(r.vs_static_worst) << ")";
    for (const auto& e : r.errors) out << "; error " << e;
    out << "\n";
  }
  return out.str();
}

std::string format_scenario_list(const std::vector<sim::Scenario>& scenarios) {
  std::size_t w = std::string("scenario").size();
  for (const auto& s : scenarios) w = std::max(w, s.name.size());
  std::ostringstream out;
  out << pad("scenario", w + 2) << pad("duration_s", 12) << pad("checks", 8) << "description\n";
  for (const auto& s : scenarios)
    out << pad(s.name, w + 2) << pad(fmt_num(s.duration_s), 12) << pad(std::to_string(s.checks.size()), 8)
        << s.description << "\n";
  return out.str();
}

}  // namespace capstan::cli
