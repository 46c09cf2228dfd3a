#include "adapters/cli/analyze_forecast_command.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "adapters/cli/flags.hpp"
#include "domain/forecast/forecast_horizon.hpp"
#include "domain/forecast/predictor.hpp"

namespace capstan::cli {
namespace {

// A year ahead at most, and a million steps in a period or a horizon.
constexpr double kMaxHorizonS = 366 * 86400.0;
constexpr double kMaxPeriodSteps = 1e6;

struct ForecastFlags {
  std::string model = "holt";
  std::string series;
  double horizon_s = NAN;
  double step_s = 15.0;
  double alpha = 0.3;
  int period_steps = 0;  // 0: one day of steps
};

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

PredictorConfig config_from(const ForecastFlags& f) {
  PredictorConfig c;
  c.holt = HoltConfig::with_alpha(f.alpha);
  c.seasonal = SeasonalConfig::daily(f.step_s);
  c.seasonal.alpha = f.alpha;
  if (f.period_steps > 0) c.seasonal.period_steps = f.period_steps;
  return c;
}

void run_forecast(const ForecastFlags& f, const CLI::App& cmd) {
  if (cmd.count("--series") == 0) throw UsageError("--series is required");
  if (cmd.count("--horizon-s") == 0) throw UsageError("--horizon-s is required");
  PredictorKind kind{};
  if (!parse_predictor_kind(f.model, kind)) {
    throw UsageError("--model must be one of constant, holt, kalman, arima, seasonal, got " +
                     f.model);
  }
  require_in(f.horizon_s, 0, kMaxHorizonS, "--horizon-s");
  require_in(f.step_s, 0, kMaxHorizonS, "--step-s", true);
  require_finite(f.alpha, "--alpha");
  if (!(f.alpha > 0 && f.alpha <= 1)) {
    throw UsageError("--alpha must be in (0, 1], got " + fmt_num(f.alpha));
  }
  if (cmd.count("--period-steps") > 0) require_in(f.period_steps, 2, kMaxPeriodSteps, "--period-steps");
  if (f.horizon_s / f.step_s > kMaxPeriodSteps) {
    throw UsageError("--horizon-s must be at most " + fmt_num(kMaxPeriodSteps) + " steps of --step-s, got " +
                     fmt_num(f.horizon_s / f.step_s));
  }
  const PredictorConfig config = config_from(f);
  if (kind == PredictorKind::kSeasonal && config.seasonal.period_steps < 2) {
    throw UsageError("--step-s " + fmt_num(f.step_s) + " leaves fewer than 2 steps per day: " +
                     "give --period-steps");
  }
  auto made = make_predictor(kind, config);
  if (!made) throw UsageError(made.error().message);

  const PredictorState state = warm_start(*made, read_series_file(f.series));
  nlohmann::json out = {{"forecast", forecast(state, horizon_steps(f.horizon_s, f.step_s))},
                        {"state", state}};
  if (const auto* holt = std::get_if<HoltState>(&state.model)) {
    out["level"] = holt->level;
    out["trend"] = holt->trend;
  }
  std::cout << out.dump() << "\n";
}

}  // namespace

std::vector<double> read_series_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UsageError("--series: cannot open " + path);
  std::vector<double> series;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = trim(line);
    if (text.empty()) continue;
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v) || v < 0) {
      throw UsageError("--series " + path + " line " + std::to_string(number) +
                       ": expected a number >= 0, got \"" + text + "\"");
    }
    series.push_back(v);
  }
  if (in.bad()) throw UsageError("--series: error reading " + path);
  return series;
}

void add_analyze_forecast_command(CLI::App& analyze) {
  auto flags = std::make_shared<ForecastFlags>();
  CLI::App* cmd = analyze.add_subcommand(
      "forecast", "fold a series into a load predictor and forecast it at a horizon");
  cmd->add_option("--model", flags->model, "constant|holt|kalman|arima|seasonal")
      ->capture_default_str();
  cmd->add_option("--series", flags->series, "file with one value per line, one line per step");
  cmd->add_option("--horizon-s", flags->horizon_s, "how far ahead, s (>= 0)");
  cmd->add_option("--step-s", flags->step_s, "seconds between lines (> 0)")->capture_default_str();
  cmd->add_option("--alpha", flags->alpha, "level smoothing of holt (beta = alpha/2) and seasonal")
      ->capture_default_str();
  cmd->add_option("--period-steps", flags->period_steps,
                  "seasonal period in steps (default: one day of --step-s)");
  cmd->callback([flags, cmd] { run_forecast(*flags, *cmd); });
}

}  // namespace capstan::cli
