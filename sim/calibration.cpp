// Cost-model calibration from measured iteration times; see calibration.hpp.
#include "sim/calibration.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

namespace capstan::sim {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  return out;
}

}  // namespace

Result<std::vector<CalibrationPoint>> read_splitwise_points(const std::string& path,
                                                            const std::string& model,
                                                            const std::string& hardware,
                                                            int tensor_parallel) {
  std::ifstream in(path);
  if (!in) return invalid_argument(path + ": cannot open file");
  std::string line;
  std::getline(in, line);
  const auto header = split_csv(line);
  auto column = [&](const std::string& name) {
    return static_cast<int>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  const int c_model = column("model"), c_hw = column("hardware"), c_p = column("prompt_size"),
            c_b = column("batch_size"), c_o = column("token_size"), c_pt = column("prompt_time"),
            c_tt = column("token_time"), c_tp = column("tensor_parallel");
  const int needed = std::max({c_model, c_hw, c_p, c_b, c_o, c_pt, c_tt, c_tp});
  if (needed >= static_cast<int>(header.size()))
    return invalid_argument(path + ": line 1: missing a splitwise perf_model column");
  std::map<std::tuple<int, int, int>, std::pair<std::vector<double>, std::vector<double>>> groups;
  int line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty()) continue;
    const auto cells = split_csv(line);
    if (static_cast<int>(cells.size()) <= needed)
      return invalid_argument(path + ": line " + std::to_string(line_no) + ": too few fields");
    if (cells[c_model] != model || cells[c_hw] != hardware) continue;
    try {
      if (std::stoi(cells[c_tp]) != tensor_parallel) continue;
      auto& g = groups[{std::stoi(cells[c_p]), std::stoi(cells[c_b]), std::stoi(cells[c_o])}];
      g.first.push_back(std::stod(cells[c_pt]));
      g.second.push_back(std::stod(cells[c_tt]));
    } catch (const std::exception&) {
      return invalid_argument(path + ": line " + std::to_string(line_no) + ": not a number");
    }
  }
  std::vector<CalibrationPoint> points;
  for (const auto& [key, times] : groups) {
    const auto [prompt, batch, output] = key;
    const std::string shape = " P=" + std::to_string(prompt) + " B=" + std::to_string(batch) +
                              " O=" + std::to_string(output);
    if (batch == 1) {
      CalibrationPoint p{"prefill" + shape, {}, median(times.first)};
      p.work.scheduled_tokens = p.work.prefill_tokens = prompt;
      p.work.prefill_attention_token2 = static_cast<double>(prompt) * prompt;
      points.push_back(p);
    }
    // token_time is the mean decode step; the mean context is prompt + output / 2.
    CalibrationPoint d{"decode" + shape, {}, median(times.second)};
    d.work.scheduled_tokens = batch;
    d.work.decode_kv_tokens = static_cast<long long>(batch) * (prompt + output / 2);
    points.push_back(d);
  }
  if (points.empty())
    return invalid_argument(path + ": no rows for " + model + " on " + hardware + " TP" +
                            std::to_string(tensor_parallel));
  return points;
}

Result<HardwareProfile> fit_profile(const std::vector<CalibrationPoint>& points,
                                    HardwareProfile base) {
  constexpr int n = 4;
  std::array<std::array<double, n + 1>, n> m{};
  for (const auto& p : points) {
    const std::array<double, n> x = {1.0, static_cast<double>(p.work.scheduled_tokens),
                                     static_cast<double>(p.work.decode_kv_tokens),
                                     p.work.prefill_attention_token2};
    const double w = 1.0 / (p.measured_ms * p.measured_ms);  // relative error
    for (int i = 0; i < n; ++i) {
      m[i][n] += w * x[i] * p.measured_ms;
      for (int j = 0; j < n; ++j) m[i][j] += w * x[i] * x[j];
    }
  }
  // Normal equations by Gauss-Jordan with partial pivoting; the columns differ by
  // ~10 orders of magnitude, so scale each column by its diagonal first.
  std::array<double, n> scale{};
  for (int i = 0; i < n; ++i) scale[i] = m[i][i] > 0 ? 1.0 / std::sqrt(m[i][i]) : 1.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m[i][j] *= scale[i] * scale[j];
  for (int i = 0; i < n; ++i) m[i][n] *= scale[i];
  for (int c = 0; c < n; ++c) {
    int pivot = c;
    for (int r = c + 1; r < n; ++r)
      if (std::abs(m[r][c]) > std::abs(m[pivot][c])) pivot = r;
    std::swap(m[c], m[pivot]);
    if (std::abs(m[c][c]) < 1e-12) return Error{ErrorCode::kModelError, "calibration points do not determine the coefficients"};
    for (int r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = m[r][c] / m[c][c];
      for (int k = c; k <= n; ++k) m[r][k] -= f * m[c][k];
    }
  }
  std::array<double, n> coef{};
  for (int i = 0; i < n; ++i) coef[i] = m[i][n] / m[i][i] * scale[i];
  base.overhead_ms = coef[0];
  base.compute_ms_per_token = coef[1];
  base.kv_read_ms_per_token = coef[2];
  base.prefill_attention_ms_per_token2 = coef[3];
  const auto err = fit_error(base, points);
  base.fit_mape = err.mape;
  base.fit_max_rel_error = err.max_rel_error;
  return base;
}

FitError fit_error(const HardwareProfile& profile, const std::vector<CalibrationPoint>& points) {
  FitError e;
  if (points.empty()) return e;
  for (const auto& p : points) {
    const double rel = std::abs(expected_iteration_ms(profile, p.work) - p.measured_ms) / p.measured_ms;
    e.mape += rel;
    if (rel > e.max_rel_error) {
      e.max_rel_error = rel;
      e.worst_label = p.label;
    }
  }
  e.mape /= static_cast<double>(points.size());
  return e;
}

}  // namespace capstan::sim
