#include "domain/model/perf_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

#include "domain/core/format.hpp"

namespace capstan {
namespace {

// Linear interpolation of y over ascending x[lo, hi), clamped at both ends.
double interp(const std::vector<double>& x, const std::vector<double>& y, size_t lo, size_t hi,
              double at) {
  if (!(at > x[lo])) return y[lo];
  if (at >= x[hi - 1]) return y[hi - 1];
  const auto it = std::upper_bound(x.begin() + static_cast<long>(lo), x.begin() + static_cast<long>(hi), at);
  const size_t i = static_cast<size_t>(it - x.begin());
  const double w = (at - x[i - 1]) / (x[i] - x[i - 1]);
  return y[i - 1] + w * (y[i] - y[i - 1]);
}

std::optional<Error> check_column(const char* name, const std::vector<double>& v, size_t n,
                                  bool positive) {
  if (v.size() != n) {
    return invalid_argument(std::string(name) + " must have " + std::to_string(n) +
                            " values like the first column, got " + std::to_string(v.size()));
  }
  for (double x : v) {
    if (!std::isfinite(x) || x < 0 || (positive && x == 0)) {
      return invalid_argument(std::string(name) + " must hold finite numbers " +
                              (positive ? "> 0" : ">= 0") + ", got " + fmt_num(x));
    }
  }
  return std::nullopt;
}

std::vector<size_t> order_by(const std::vector<double>& major, const std::vector<double>& minor) {
  std::vector<size_t> idx(major.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    return major[a] != major[b] ? major[a] < major[b] : minor[a] < minor[b];
  });
  return idx;
}

std::vector<double> permute(const std::vector<double>& v, const std::vector<size_t>& idx) {
  std::vector<double> out;
  out.reserve(idx.size());
  for (size_t i : idx) out.push_back(v[i]);
  return out;
}

// One sampled context length: samples [begin, end) of the decode profile.
struct Level {
  double context = 0;
  size_t begin = 0, end = 0;
};

// The one or two sampled levels around `context`, and the blend weight of the second.
struct Bracket {
  Level lower, upper;
  double weight = 0;
};

Bracket bracket(const DecodeProfile& p, double context) {
  std::vector<Level> levels;
  for (size_t i = 0; i < p.context_tokens.size(); ++i) {
    if (levels.empty() || p.context_tokens[i] != levels.back().context) {
      levels.push_back({p.context_tokens[i], i, i});
    }
    levels.back().end = i + 1;
  }
  if (!(context > levels.front().context)) return {levels.front(), levels.front(), 0};
  for (size_t k = 1; k < levels.size(); ++k) {
    if (context <= levels[k].context) {
      const double w = (context - levels[k - 1].context) / (levels[k].context - levels[k - 1].context);
      return {levels[k - 1], levels[k], w};
    }
  }
  return {levels.back(), levels.back(), 0};
}

DecodeOperatingPoint best_on_level(const DecodeProfile& p, const Level& l, double target) {
  const auto& u = p.kv_usage;
  const auto& itl = p.itl_ms;
  const auto& thpt = p.tokens_per_s_per_gpu;
  if (itl[l.end - 1] <= target) return {thpt[l.end - 1], itl[l.end - 1], u[l.end - 1]};
  for (size_t i = l.end - 1; i > l.begin; --i) {
    // Segment [i-1, i]: the top end misses the target; the crossing is inside if the
    // bottom end meets it.
    if (itl[i - 1] <= target) {
      const double w = (target - itl[i - 1]) / (itl[i] - itl[i - 1]);
      return {thpt[i - 1] + w * (thpt[i] - thpt[i - 1]), target, u[i - 1] + w * (u[i] - u[i - 1])};
    }
  }
  return {thpt[l.begin], itl[l.begin], u[l.begin]};
}

}  // namespace

Result<PrefillProfile> make_prefill_profile(PrefillProfile raw) {
  const size_t n = raw.input_tokens.size();
  if (n == 0) return invalid_argument("prefill_isl must not be empty");
  if (auto e = check_column("prefill_isl", raw.input_tokens, n, true)) return *e;
  if (auto e = check_column("prefill_ttft", raw.ttft_ms, n, true)) return *e;
  if (auto e = check_column("prefill_thpt_per_gpu", raw.tokens_per_s_per_gpu, n, true)) return *e;
  const auto idx = order_by(raw.input_tokens, raw.input_tokens);
  for (size_t k = 1; k < n; ++k) {
    if (raw.input_tokens[idx[k]] == raw.input_tokens[idx[k - 1]]) {
      return invalid_argument("prefill_isl must not repeat a value, got " +
                              fmt_num(raw.input_tokens[idx[k]]) + " twice");
    }
  }
  return PrefillProfile{permute(raw.input_tokens, idx), permute(raw.ttft_ms, idx),
                        permute(raw.tokens_per_s_per_gpu, idx)};
}

Result<DecodeProfile> make_decode_profile(DecodeProfile raw) {
  const size_t n = raw.kv_usage.size();
  if (n == 0) return invalid_argument("x_kv_usage must not be empty");
  if (auto e = check_column("x_kv_usage", raw.kv_usage, n, false)) return *e;
  if (auto e = check_column("y_context_length", raw.context_tokens, n, true)) return *e;
  if (auto e = check_column("z_itl", raw.itl_ms, n, true)) return *e;
  if (auto e = check_column("z_thpt_per_gpu", raw.tokens_per_s_per_gpu, n, true)) return *e;
  if (!std::isfinite(raw.max_kv_tokens) || !(raw.max_kv_tokens > 0)) {
    return invalid_argument("max_kv_tokens must be a finite number > 0, got " + fmt_num(raw.max_kv_tokens));
  }
  const auto idx = order_by(raw.context_tokens, raw.kv_usage);
  for (size_t k = 1; k < n; ++k) {
    if (raw.context_tokens[idx[k]] == raw.context_tokens[idx[k - 1]] &&
        raw.kv_usage[idx[k]] == raw.kv_usage[idx[k - 1]]) {
      return invalid_argument("decode samples must not repeat a (x_kv_usage, y_context_length) pair, got (" +
                              fmt_num(raw.kv_usage[idx[k]]) + ", " + fmt_num(raw.context_tokens[idx[k]]) +
                              ") twice");
    }
  }
  return DecodeProfile{permute(raw.kv_usage, idx), permute(raw.context_tokens, idx),
                       permute(raw.itl_ms, idx), permute(raw.tokens_per_s_per_gpu, idx),
                       raw.max_kv_tokens};
}

double prefill_ttft_ms(const PrefillProfile& p, double input_tokens) {
  return interp(p.input_tokens, p.ttft_ms, 0, p.input_tokens.size(), input_tokens);
}

double prefill_tokens_per_s_per_gpu(const PrefillProfile& p, double input_tokens) {
  return interp(p.input_tokens, p.tokens_per_s_per_gpu, 0, p.input_tokens.size(), input_tokens);
}

double decode_itl_ms(const DecodeProfile& p, double kv_usage, double context_tokens) {
  const Bracket b = bracket(p, context_tokens);
  const double lo = interp(p.kv_usage, p.itl_ms, b.lower.begin, b.lower.end, kv_usage);
  const double hi = interp(p.kv_usage, p.itl_ms, b.upper.begin, b.upper.end, kv_usage);
  return lo + b.weight * (hi - lo);
}

DecodeOperatingPoint best_decode_point(const DecodeProfile& p, double itl_target_ms,
                                       double context_tokens) {
  const Bracket b = bracket(p, context_tokens);
  const DecodeOperatingPoint lo = best_on_level(p, b.lower, itl_target_ms);
  const DecodeOperatingPoint hi = best_on_level(p, b.upper, itl_target_ms);
  const double w = b.weight;
  return {lo.tokens_per_s_per_gpu + w * (hi.tokens_per_s_per_gpu - lo.tokens_per_s_per_gpu),
          lo.itl_ms + w * (hi.itl_ms - lo.itl_ms), lo.kv_usage + w * (hi.kv_usage - lo.kv_usage)};
}

void to_json(nlohmann::json& j, const PrefillProfile& p) {
  j = {{"prefill_isl", p.input_tokens},
       {"prefill_ttft", p.ttft_ms},
       {"prefill_thpt_per_gpu", p.tokens_per_s_per_gpu}};
}

void from_json(const nlohmann::json& j, PrefillProfile& p) {
  PrefillProfile raw{j.at("prefill_isl").get<std::vector<double>>(),
                     j.at("prefill_ttft").get<std::vector<double>>(),
                     j.at("prefill_thpt_per_gpu").get<std::vector<double>>()};
  auto made = make_prefill_profile(std::move(raw));
  if (!made) throw std::invalid_argument(made.error().message);
  p = std::move(made).value();
}

void to_json(nlohmann::json& j, const DecodeProfile& p) {
  j = {{"x_kv_usage", p.kv_usage},
       {"y_context_length", p.context_tokens},
       {"z_itl", p.itl_ms},
       {"z_thpt_per_gpu", p.tokens_per_s_per_gpu},
       {"max_kv_tokens", p.max_kv_tokens}};
}

void from_json(const nlohmann::json& j, DecodeProfile& p) {
  // Dynamo's NPZ stores max_kv_tokens as an array and uses element 0.
  const auto& kv = j.at("max_kv_tokens");
  DecodeProfile raw{j.at("x_kv_usage").get<std::vector<double>>(),
                    j.at("y_context_length").get<std::vector<double>>(),
                    j.at("z_itl").get<std::vector<double>>(),
                    j.at("z_thpt_per_gpu").get<std::vector<double>>(),
                    kv.is_array() ? kv.at(0).get<double>() : kv.get<double>()};
  auto made = make_decode_profile(std::move(raw));
  if (!made) throw std::invalid_argument(made.error().message);
  p = std::move(made).value();
}

template <class T>
static Result<T> parse_profile(const nlohmann::json& j) {
  try {
    return j.get<T>();
  } catch (const std::exception& e) {
    return invalid_argument(std::string("profile: ") + e.what());
  }
}

Result<PrefillProfile> parse_prefill_profile(const nlohmann::json& j) {
  return parse_profile<PrefillProfile>(j);
}
Result<DecodeProfile> parse_decode_profile(const nlohmann::json& j) {
  return parse_profile<DecodeProfile>(j);
}

}  // namespace capstan
