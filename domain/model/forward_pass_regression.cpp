#include "domain/model/forward_pass_regression.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>


namespace capstan {
namespace {

constexpr double kMinWallTimeMs = 1e-3;
constexpr double kMaxKvHitRate = 0.95;

// Keeps the newest `limit` values.
void push_window(std::vector<double>& window, double value, int limit) {
  // Leading zeros say nothing about request sizes: skip them until a real value came.
  if (window.empty() && value == 0) return;
  window.push_back(value);
  if (static_cast<int>(window.size()) > limit) window.erase(window.begin());
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  double sum = 0;
  for (double v : values) sum += v;
  return sum / static_cast<double>(values.size());
}

bool usable(double v) { return std::isfinite(v) && v >= 0; }

bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

// The request count n with tokens / n equal to `average` bit for bit, or 0 when none is.
std::uint64_t requests_behind(double tokens, double average) {
  const double n = average > 0 ? std::round(tokens / average) : 1;
  if (!(n >= 1 && n < 0x1p32) || !same_bits(tokens / n, average)) return 0;
  return static_cast<std::uint64_t>(n);
}

// Features of a sample for the state's role.
std::pair<double, double> features(Role role, const IterationSample& s) {
  switch (role) {
    case Role::kPrefill: return {s.prefill_tokens, 0};
    case Role::kDecode: return {0, s.decode_kv_tokens};
    case Role::kBoth: break;
  }
  return {s.prefill_tokens, s.decode_kv_tokens};
}

}  // namespace

std::optional<Error> validate(const RegressionConfig& config) {
  if (config.max_samples < 2) {
    return invalid_argument("max_samples must be >= 2, got " + std::to_string(config.max_samples));
  }
  if (config.min_observations < 2 || config.min_observations > config.max_samples) {
    return invalid_argument("min_observations must be in [2, max_samples], got " +
                            std::to_string(config.min_observations));
  }
  return std::nullopt;
}

RegressionState observe(RegressionState state, const IterationReport& r,
                        const RegressionConfig& config) {
  if (!usable(r.wall_time_ms) || !usable(r.prefill_tokens) || !usable(r.prefill_requests) ||
      !usable(r.decode_kv_tokens) || !usable(r.decode_requests)) {
    return state;
  }
  const int limit = config.max_samples;
  if (r.prefill_tokens > 0) {
    push_window(state.prompt_tokens, r.prefill_tokens / std::max(1.0, r.prefill_requests), limit);
  }
  if (r.decode_requests > 0) push_window(state.decode_length, r.decode_kv_tokens / r.decode_requests, limit);
  push_window(state.prefill_per_iter, r.prefill_tokens, limit);
  if (r.wall_time_ms == 0) return state;  // heartbeat: averages only
  state.samples.push_back({r.prefill_tokens, r.decode_kv_tokens, r.wall_time_ms});
  if (static_cast<int>(state.samples.size()) > limit) state.samples.erase(state.samples.begin());
  return state;
}

double WallTimeFit::wall_time_ms(double prefill_tokens, double decode_kv_tokens) const {
  const double t = prefill_ms_per_token * prefill_tokens +
                   decode_ms_per_kv_token * decode_kv_tokens + intercept_ms;
  return std::max(kMinWallTimeMs, t);
}

std::optional<WallTimeFit> fit(const RegressionState& state, const RegressionConfig& config) {
  const auto n = static_cast<double>(state.samples.size());
  if (state.samples.size() < static_cast<size_t>(std::max(2, config.min_observations))) {
    return std::nullopt;
  }
  double mx = 0, my = 0, mz = 0;
  for (const IterationSample& s : state.samples) {
    const auto [x, y] = features(state.role, s);
    mx += x;
    my += y;
    mz += s.wall_time_ms;
  }
  mx /= n;
  my /= n;
  mz /= n;
  // Centred normal equations [a b; b c] [p; q] = [u; v].
  double a = 0, b = 0, c = 0, u = 0, v = 0;
  for (const IterationSample& s : state.samples) {
    const auto [x0, y0] = features(state.role, s);
    const double x = x0 - mx, y = y0 - my, z = s.wall_time_ms - mz;
    a += x * x;
    b += x * y;
    c += y * y;
    u += x * z;
    v += y * z;
  }
  double p = 0, q = 0;
  const double det = a * c - b * b;
  if (det > 1e-12 * a * c && det > 0) {
    p = (c * u - b * v) / det;
    q = (a * v - b * u) / det;
  } else if (a + c > 0) {
    // Rank one (one feature constant, or both collinear): the minimum-norm solution
    // v (v . rhs) / lambda along the one eigenvector v with eigenvalue lambda = a + c.
    double ex = a > 0 ? a : b, ey = a > 0 ? b : c;
    const double norm = std::hypot(ex, ey);
    ex /= norm;
    ey /= norm;
    const double along = (ex * u + ey * v) / (a + c);
    p = ex * along;
    q = ey * along;
  }
  WallTimeFit f{p, q, mz - p * mx - q * my};
  if (!std::isfinite(f.intercept_ms) || !std::isfinite(p) || !std::isfinite(q)) return std::nullopt;
  // Tiny negative slopes from rounding on flat data are zero, not a failed fit.
  const double tol = 1e-12;
  if (p < -tol || q < -tol) return std::nullopt;
  f.prefill_ms_per_token = std::max(0.0, p);
  f.decode_ms_per_kv_token = std::max(0.0, q);
  return f;
}

double average_prompt_tokens(const RegressionState& state) { return mean(state.prompt_tokens); }
double average_decode_length(const RegressionState& state) { return mean(state.decode_length); }
double average_prefill_per_iteration(const RegressionState& state) {
  return mean(state.prefill_per_iter);
}

double chunked_prefill_ms(const WallTimeFit& fit, double tokens, double max_batched_tokens,
                          double decode_kv_tokens) {
  if (!(tokens > 0)) return 0;
  if (!(max_batched_tokens > 0) || tokens <= max_batched_tokens) {
    return fit.wall_time_ms(tokens, decode_kv_tokens);
  }
  const double chunks = std::ceil(tokens / max_batched_tokens);
  const double last = tokens - (chunks - 1) * max_batched_tokens;
  return (chunks - 1) * fit.wall_time_ms(max_batched_tokens, decode_kv_tokens) +
         fit.wall_time_ms(last, decode_kv_tokens);
}

double estimate_ttft_ms(const WallTimeFit& fit, double queued_prefill_tokens,
                        double avg_prompt_tokens, double max_batched_tokens, double kv_hit_rate,
                        double decode_kv_tokens) {
  const double hit = std::isfinite(kv_hit_rate) ? std::clamp(kv_hit_rate, 0.0, kMaxKvHitRate) : 0.0;
  const double tokens = (queued_prefill_tokens + avg_prompt_tokens) * (1 - hit);
  return chunked_prefill_ms(fit, tokens, max_batched_tokens, decode_kv_tokens);
}

double estimate_itl_ms(const WallTimeFit& fit, double scheduled_kv_tokens, double queued_kv_tokens,
                       double avg_decode_length, double prefill_tokens) {
  return fit.wall_time_ms(prefill_tokens, scheduled_kv_tokens + queued_kv_tokens + avg_decode_length);
}

EngineRate prefill_engine_rate(const WallTimeFit& fit, double input_tokens,
                               double max_batched_tokens) {
  const double ttft_ms = chunked_prefill_ms(fit, input_tokens, max_batched_tokens);
  if (!(ttft_ms > 0)) return {};
  return {1000.0 / ttft_ms, ttft_ms, 1};
}

EngineRate decode_engine_rate(const WallTimeFit& fit, double itl_target_ms, double context_tokens,
                              double output_tokens, int max_batch) {
  if (!(context_tokens > 0) || !(output_tokens > 0)) return {};
  const auto itl_at = [&](int b) { return fit.wall_time_ms(0, b * context_tokens); };
  int lo = 1, hi = std::max(1, max_batch);
  if (itl_at(1) <= itl_target_ms) {
    while (lo < hi) {  // largest b with itl_at(b) <= target; ITL grows with b
      const int mid = lo + (hi - lo + 1) / 2;
      if (itl_at(mid) <= itl_target_ms) lo = mid; else hi = mid - 1;
    }
  }
  const double itl = itl_at(lo);
  return {lo / (output_tokens * itl / 1000.0), itl, lo};
}

RegressionRecord record_of(const RegressionState& s) {
  RegressionRecord r;
  r.decode_kv_steps = true;
  double previous = 0;
  for (const IterationSample& x : s.samples) {
    const double step = x.decode_kv_tokens - previous;
    r.decode_kv_steps = r.decode_kv_steps && same_bits(previous + step, x.decode_kv_tokens);
    r.decode_kv_column.push_back(step);
    previous = x.decode_kv_tokens;
  }
  if (!r.decode_kv_steps) {
    for (std::size_t i = 0; i < s.samples.size(); ++i) r.decode_kv_column[i] = s.samples[i].decode_kv_tokens;
  }
  // Newest first: each sample takes the newest average not yet taken when its tokens
  // give it; the averages no sample gives are older than the samples' (or came from
  // a heartbeat), and are kept as they are.
  std::vector<std::uint64_t> counts(s.samples.size(), 0);
  std::size_t left = s.decode_length.size();
  for (std::size_t i = s.samples.size(); i-- > 0 && left > 0;) {
    counts[i] = requests_behind(s.samples[i].decode_kv_tokens, s.decode_length[left - 1]);
    if (counts[i] > 0) --left;
  }
  r.decode_length_before.assign(s.decode_length.begin(), s.decode_length.begin() + static_cast<std::ptrdiff_t>(left));
  r.decode_requests = std::move(counts);
  // prefill_per_iter ends with the samples' prefill column unless a heartbeat came since.
  std::size_t matched = 0;
  while (matched < s.samples.size() && matched < s.prefill_per_iter.size() &&
         same_bits(s.samples[s.samples.size() - 1 - matched].prefill_tokens,
                   s.prefill_per_iter[s.prefill_per_iter.size() - 1 - matched])) {
    ++matched;
  }
  r.prefill_per_iter_before.assign(s.prefill_per_iter.begin(),
                                   s.prefill_per_iter.end() - static_cast<std::ptrdiff_t>(matched));
  r.prefill_per_iter_from = s.samples.size() - matched;
  return r;
}

Result<RegressionState> from_record(RegressionState s, const RegressionRecord& r) {
  const std::size_t n = s.samples.size();
  if (r.decode_kv_column.size() != n) {
    return invalid_argument("sample_columns must be columns of one length, got " + std::to_string(n) +
                            " prefill_tokens and " + std::to_string(r.decode_kv_column.size()) + " decode_kv_tokens");
  }
  double previous = 0;
  for (std::size_t i = 0; i < n; ++i) {
    s.samples[i].decode_kv_tokens = r.decode_kv_steps ? previous + r.decode_kv_column[i] : r.decode_kv_column[i];
    previous = s.samples[i].decode_kv_tokens;
  }
  if (r.decode_requests.size() != n) {
    return invalid_argument("sample_columns' decode_requests must hold one count per sample (" + std::to_string(n) + "), got " +
                            std::to_string(r.decode_requests.size()));
  }
  if (r.prefill_per_iter_from > n) {
    return invalid_argument("prefill_per_iter_from must be at most the number of samples (" + std::to_string(n) +
                            "), got " + std::to_string(r.prefill_per_iter_from));
  }
  s.decode_length = r.decode_length_before;
  for (std::size_t i = 0; i < r.decode_requests.size(); ++i) {
    if (r.decode_requests[i] > 0) {
      s.decode_length.push_back(s.samples[i].decode_kv_tokens / static_cast<double>(r.decode_requests[i]));
    }
  }
  s.prefill_per_iter = r.prefill_per_iter_before;
  for (std::size_t i = r.prefill_per_iter_from; i < n; ++i) s.prefill_per_iter.push_back(s.samples[i].prefill_tokens);
  return s;
}

void to_json(nlohmann::json& j, const RegressionConfig& c) {
  j = {{"max_samples", c.max_samples}, {"min_observations", c.min_observations}};
}
void from_json(const nlohmann::json& j, RegressionConfig& c) {
  c.max_samples = j.at("max_samples").get<int>();
  c.min_observations = j.at("min_observations").get<int>();
}

void to_json(nlohmann::json& j, const IterationSample& s) {
  j = nlohmann::json::array({s.prefill_tokens, s.decode_kv_tokens, s.wall_time_ms});
}
void from_json(const nlohmann::json& j, IterationSample& s) {
  s = {j.at(0).get<double>(), j.at(1).get<double>(), j.at(2).get<double>()};
}

void to_json(nlohmann::json& j, const RegressionState& s) {
  RegressionRecord r = record_of(s);
  nlohmann::json columns = nlohmann::json::array({nlohmann::json::array(), std::move(r.decode_kv_column),
                                                   nlohmann::json::array(), std::move(r.decode_requests)});
  for (const IterationSample& x : s.samples) {
    columns[0].push_back(x.prefill_tokens);
    columns[2].push_back(x.wall_time_ms);
  }
  j = {{"role", to_string(s.role)},
       {"sample_columns", std::move(columns)},
       {"decode_kv_steps", r.decode_kv_steps},
       {"prompt_tokens", s.prompt_tokens},
       {"decode_length", std::move(r.decode_length_before)},
       {"prefill_per_iter", std::move(r.prefill_per_iter_before)},
       {"prefill_per_iter_from", r.prefill_per_iter_from}};
}

void from_json(const nlohmann::json& j, RegressionState& s) {
  const auto fail = [&](const std::string& why) {
    throw nlohmann::json::other_error::create(501, "regression: " + why, &j);
  };
  const auto count = [&](const nlohmann::json& n, const char* field) {
    if (!n.is_number_unsigned() && !(n.is_number_integer() && n.get<std::int64_t>() >= 0)) {
      fail(std::string(field) + ": " + n.dump() + " is not an integer >= 0");
    }
    return n.get<std::uint64_t>();
  };
  RegressionState out;
  const std::string role = j.at("role").get<std::string>();
  if (!parse_role(role, out.role)) fail("role \"" + role + "\" is not a role");
  out.prompt_tokens = j.at("prompt_tokens").get<std::vector<double>>();
  if (j.contains("samples")) {  // schema 3: every series in full
    out.samples = j.at("samples").get<std::vector<IterationSample>>();
    out.decode_length = j.at("decode_length").get<std::vector<double>>();
    out.prefill_per_iter = j.at("prefill_per_iter").get<std::vector<double>>();
    s = std::move(out);
    return;
  }
  const nlohmann::json& columns = j.at("sample_columns");
  if (!columns.is_array() || columns.size() != 4 || !columns[3].is_array()) {
    fail("sample_columns must be [[prefill_tokens...], [decode_kv_tokens...], [wall_time_ms...], "
         "[decode_requests...]]");
  }
  const auto prefill = columns[0].get<std::vector<double>>(), wall = columns[2].get<std::vector<double>>();
  if (wall.size() != prefill.size()) fail("sample_columns must be columns of one length");
  for (std::size_t i = 0; i < prefill.size(); ++i) out.samples.push_back({prefill[i], 0, wall[i]});
  RegressionRecord r;
  const nlohmann::json& steps = j.at("decode_kv_steps");
  if (!steps.is_boolean()) fail("decode_kv_steps must be true or false, got " + steps.dump());
  r.decode_kv_steps = steps.get<bool>();
  r.decode_kv_column = columns[1].get<std::vector<double>>();
  for (const nlohmann::json& n : columns[3]) r.decode_requests.push_back(count(n, "decode_requests"));
  r.decode_length_before = j.at("decode_length").get<std::vector<double>>();
  r.prefill_per_iter_before = j.at("prefill_per_iter").get<std::vector<double>>();
  r.prefill_per_iter_from = count(j.at("prefill_per_iter_from"), "prefill_per_iter_from");
  auto rebuilt = from_record(std::move(out), r);
  if (!rebuilt.ok()) fail(rebuilt.error().message);
  s = std::move(rebuilt.value());
}

void to_json(nlohmann::json& j, const WallTimeFit& f) {
  j = {{"prefill_ms_per_token", f.prefill_ms_per_token},
       {"decode_ms_per_kv_token", f.decode_ms_per_kv_token},
       {"intercept_ms", f.intercept_ms}};
}

}  // namespace capstan
