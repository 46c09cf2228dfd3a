// The text `capstan scenarios run` prints: a matrix policy x scenario of PASS/FAIL,
// then one line per run with each check's figure against its limit
// ("ttft_recovery_s 300 <= 330 ok"), and `capstan scenarios list`'s table.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario.hpp"
#include "sim/scenario_runner.hpp"
#include "sim/scenario_seeds.hpp"

namespace capstan::cli {

std::string format_scenario_matrix(const std::vector<sim::ScenarioResult>& results);
std::string format_scenario_checks(const std::vector<sim::ScenarioResult>& results);
std::string format_scenario_list(const std::vector<sim::Scenario>& scenarios);

// "300 <= 330 ok" / "never >= 1 FAIL": a check's figure against its limit.
std::string format_check(const sim::CheckResult& check);

// Over several seeds (sim/scenario_seeds.hpp): PASS, or FAIL with the failing seeds; and
// each check as "median (worst)" with the seeds at which it failed.
std::string format_seeded_matrix(const std::vector<sim::SeededResult>& results);
std::string format_seeded_checks(const std::vector<sim::SeededResult>& results);

}  // namespace capstan::cli
