#include "domain/model/queue_model.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <string>

#include "domain/core/format.hpp"
#include "domain/core/root_find.hpp"

namespace capstan {
namespace {

constexpr double kRateEpsilon = 0.001;       // WVA: lambda_min = mu(1) eps, lambda_max = mu(N)(1-eps)
constexpr double kEndTolerance = 1e-6;       // WVA: a bracket end this close to the target is the answer
constexpr double kSearchTolerance = 1e-9;    // tighter than WVA's 1e-6 so we land nearer the true root
constexpr double kRescaleAbove = 1e250;      // keep the unnormalised chain finite
constexpr double kRescaleBy = 1e-250;
constexpr int kFillStates = 32;              // 1/mu(n) entries filled at a time (inv_mu_up_to)

bool within_tolerance(double y, double target, double tol) {
  if (y == target) return true;
  if (target == 0) return false;
  return std::fabs((y - target) / target) <= tol;
}

Result<double> check_finite_nonnegative(double v, const char* name) {
  if (!std::isfinite(v) || v < 0) {
    return invalid_argument(std::string(name) + " must be a finite number >= 0, got " + fmt_num(v));
  }
  return v;
}

}  // namespace

Result<QueueAnalyzer> QueueAnalyzer::create(const ServiceParams& p, const QueueConfig& c,
                                            const RequestSize& s) {
  if (!std::isfinite(p.alpha_ms) || p.alpha_ms <= 0) {
    return invalid_argument("alpha must be a finite number > 0 ms, got " + fmt_num(p.alpha_ms));
  }
  for (auto [v, name] : {std::pair{p.beta_ms, "beta"}, std::pair{p.gamma_ms, "gamma"},
                         std::pair{s.input_tokens, "input_tokens"}}) {
    if (auto r = check_finite_nonnegative(v, name); !r) return r.error();
  }
  if (p.beta_ms == 0 && p.gamma_ms == 0) {
    return invalid_argument("beta and gamma cannot both be 0: a request would take no time");
  }
  if (!std::isfinite(s.output_tokens) || s.output_tokens < 1) {
    return invalid_argument("output_tokens must be a finite number >= 1, got " +
                            fmt_num(s.output_tokens));
  }
  if (c.max_batch_size < 1 || c.max_batch_size > 1'000'000) {
    return invalid_argument("max_batch_size must be in 1..1000000, got " +
                            std::to_string(c.max_batch_size));
  }
  if (c.max_queue_size < 0 || c.max_queue_size > 10'000'000) {
    return invalid_argument("max_queue_size must be in 0..10000000, got " +
                            std::to_string(c.max_queue_size));
  }
  return Result<QueueAnalyzer>(std::in_place, Made(), p, c, s);
}

QueueAnalyzer::QueueAnalyzer(Made, const ServiceParams& p, const QueueConfig& c, const RequestSize& s)
    : params_(p), config_(c), size_(s) {
  const double i = size_.input_tokens, o = size_.output_tokens;
  const double compute_tokens = (i + o) / (o + 1);
  const double memory_tokens = i + o / 2;
  per_batch_ms_ = params_.beta_ms * compute_tokens + params_.gamma_ms * memory_tokens;
  prefill_extra_ms_ = (params_.beta_ms + params_.gamma_ms) * i;
  decode_extra_ms_ = params_.gamma_ms * (i + o / 2);
  if (config_.max_batch_size > static_cast<int>(kInlineStates)) {
    inv_mu_heap_.resize(static_cast<std::size_t>(config_.max_batch_size));
  }
  inv_mu_last_ = inv_mu_of(terms(), config_.max_batch_size);
  lambda_min_ = kRateEpsilon / inv_mu_of(terms(), 1);
  lambda_max_ = (1 - kRateEpsilon) / inv_mu_last_;
}

QueueAnalyzer::Terms QueueAnalyzer::terms() const {
  return {params_.alpha_ms, params_.beta_ms,  per_batch_ms_,          prefill_extra_ms_,
          decode_extra_ms_, size_.output_tokens, size_.input_tokens != 0};
}

double QueueAnalyzer::inv_mu_of(const Terms& t, int n) {
  // prefill_time_ms(n) + o decode_time_ms(n) over n.
  const double batch = n;
  const double iteration_ms = t.alpha + batch * t.per_batch;
  const double prefill_ms = t.prefills ? iteration_ms + t.prefill_extra : 0.0;
  const double decode_ms = iteration_ms + t.beta + t.decode_extra;
  return (prefill_ms + t.output_tokens * decode_ms) / batch;
}

const double* QueueAnalyzer::inv_mu_up_to(int n) const {
  double* inv_mu = this->inv_mu();
  if (n <= inv_mu_filled_) return inv_mu;
  // From a local copy of the terms: read through `this` beside the writes to the inline
  // array, the loop was neither hoisted nor vectorised.
  const Terms t = terms();
  for (int k = inv_mu_filled_ + 1; k <= n; ++k) inv_mu[k - 1] = inv_mu_of(t, k);
  inv_mu_filled_ = n;
  return inv_mu;
}

double QueueAnalyzer::iteration_time_ms(double batch) const { return params_.alpha_ms + batch * per_batch_ms_; }

double QueueAnalyzer::prefill_time_ms(double batch) const {
  if (size_.input_tokens == 0) return 0;
  return iteration_time_ms(batch) + prefill_extra_ms_;
}

double QueueAnalyzer::decode_time_ms(double batch) const {
  return iteration_time_ms(batch) + params_.beta_ms + decode_extra_ms_;
}

QueueMetrics QueueAnalyzer::solved(double lambda) const {
  const auto bits = std::bit_cast<std::uint64_t>(lambda);
  for (std::size_t i = 0; i < solved_count_; ++i)
    if (solved_[i].solved.lambda_bits == bits) return solved_[i].solved.metrics;
  const QueueMetrics m = solve(lambda);
  if (solved_count_ < kMemo) solved_[solved_count_++].solved = {bits, m};  // full: solved each time asked
  return m;
}

QueueMetrics QueueAnalyzer::solve(double lambda) const {
  // Unnormalised p[k] = prod_{j<=k} lambda / mu(min(j, N)), with p[0] = 1. We keep only
  // the running sums the statistics need: total mass, first moment, and both restricted
  // to the in-service states k <= N.
  const int n_max = config_.max_batch_size;
  const int k_max = n_max + config_.max_queue_size;
  //
  // Each state asks one of two questions, by its ratio: below 1 the term shrank, so it
  // cannot need rescaling (the term before it was at most kRescaleAbove once checked,
  // and a product with a factor below 1 rounds to at most the larger factor), and only
  // the cut is checked; else only the rescale is (the cut needs a ratio below 1). That is
  // exactly the two checks every state made before, with the one that cannot hold left
  // out: the same sums, in the same order, so the same bits, for fewer instructions in
  // the loop that is a fifth of a hybrid tick's. k also counts as a double (exact), not
  // converted each state.
  double p = 1, mass = 1, moment = 0, mass_served = 1, moment_served = 0;
  int k = 1;
  double k_real = 1;
  bool cut = false;
  while (k <= n_max && !cut) {
    // The table as far as the next kFillStates states, filled as the chain reaches them.
    const int fill_end = std::min(n_max, std::max(inv_mu_filled_, k + kFillStates - 1));
    const double* inv_mu = inv_mu_up_to(fill_end);
    for (; k <= fill_end; ++k, k_real += 1) {
      const double ratio = lambda * inv_mu[k - 1];
      p *= ratio;
      mass += p;
      moment += k_real * p;
      if (ratio < 1) {
        // The ratio falls with k (mu grows with the batch), so once it is below 1 the
        // remaining terms only shrink: stop when they cannot move a sum by 1e-18.
        if (p < mass * 1e-18) { p = 0; cut = true; break; }
      } else if (p > kRescaleAbove) {
        p *= kRescaleBy; mass *= kRescaleBy; moment *= kRescaleBy;
      }
    }
  }
  mass_served = mass;
  moment_served = moment;
  if (k > n_max) {
    // One ratio for every queued state: a loop for each of its two cases.
    const double ratio = lambda * inv_mu_last_;
    if (ratio < 1) {
      for (; k <= k_max; ++k, k_real += 1) {
        p *= ratio;
        mass += p;
        moment += k_real * p;
        if (p < mass * 1e-18) { p = 0; break; }
      }
    } else {
      for (; k <= k_max; ++k, k_real += 1) {
        p *= ratio;
        mass += p;
        moment += k_real * p;
        if (p > kRescaleAbove) {
          p *= kRescaleBy; mass *= kRescaleBy; moment *= kRescaleBy;
          mass_served *= kRescaleBy; moment_served *= kRescaleBy;
        }
      }
    }
  }
  // p now holds p[K] unnormalised (0 if the tail was cut as negligible).
  const double p_full = (k > k_max) ? p / mass : 0.0;
  const double in_system = moment / mass;
  const double in_service = (moment_served + n_max * (mass - mass_served)) / mass;

  QueueMetrics m;
  m.rate_rps = lambda * 1000.0;
  const double throughput = lambda * (1 - p_full);
  m.throughput_rps = throughput * 1000.0;
  m.avg_resp_ms = in_system / throughput;
  const double service_ms = in_service / throughput;
  m.avg_wait_ms = std::max(0.0, m.avg_resp_ms - service_ms);
  m.avg_in_service = in_service;
  m.avg_prefill_ms = prefill_time_ms(in_service);
  m.itl_ms = (service_ms - m.avg_prefill_ms) / size_.output_tokens;
  m.ttft_ms = m.avg_wait_ms + m.avg_prefill_ms + m.itl_ms;
  m.rho = std::clamp(in_service / n_max, 0.0, 1.0);
  return m;
}

Result<QueueMetrics> QueueAnalyzer::analyze(double rate_rps) const {
  if (!std::isfinite(rate_rps) || rate_rps <= 0) {
    return invalid_argument("rate must be a finite number > 0 req/s, got " + fmt_num(rate_rps));
  }
  if (rate_rps > max_rate_rps()) {
    return Error{ErrorCode::kModelError, "rate " + fmt_num(rate_rps) +
                                             " req/s is above the model's maximum stable rate " +
                                             fmt_num(max_rate_rps()) + " req/s"};
  }
  return solved(rate_rps / 1000.0);
}

Error UnreachableTarget::error() const {
  return Error{ErrorCode::kTargetUnreachable,
               std::string("target ") + metric + " " + fmt_num(target_ms) +
                   " ms is below the bounded region: even at the lowest rate " + fmt_num(min_rate_rps) +
                   " req/s the model predicts " + fmt_num(at_min_rate_ms) + " ms"};
}

ErrorCode SizingResult::error_code() const {
  if (const auto* e = std::get_if<Error>(&v_)) return e->code;
  return ErrorCode::kTargetUnreachable;
}

Error SizingResult::error() const {
  if (const auto* e = std::get_if<Error>(&v_)) return *e;
  return std::get<UnreachableTarget>(v_).error();
}

SizingResult QueueAnalyzer::size(const SloTargets& targets) const {
  if (auto err = validate(targets)) return *err;
  Sizing out;
  const QueueMetrics at_min = solved(lambda_min_);
  const QueueMetrics at_max = solved(lambda_max_);
  out.evaluations = 2;

  // WVA's search contract, with Brent's method in place of plain bisection.
  // The largest rate, or nothing when the target is below the bounded region (the
  // caller then says so with `unreachable`).
  std::optional<UnreachableTarget> unreachable;
  auto largest_rate = [&](double target, auto metric, const char* name) -> std::optional<double> {
    const double y_lo = metric(at_min), y_hi = metric(at_max);
    if (within_tolerance(y_lo, target, kEndTolerance)) return lambda_min_;
    if (within_tolerance(y_hi, target, kEndTolerance)) return lambda_max_;
    const bool increasing = y_lo < y_hi;
    if (increasing ? target < y_lo : target > y_lo) {
      unreachable = UnreachableTarget{name, target, min_rate_rps(), y_lo};
      return std::nullopt;
    }
    if (increasing ? target > y_hi : target < y_hi) return lambda_max_;
    const RootResult root = brent_root([&](double x) { return metric(solved(x)); }, lambda_min_,
                                       lambda_max_, y_lo, y_hi, target, kSearchTolerance);
    out.evaluations += root.evaluations;
    return root.x;
  };

  double lambda_ttft = lambda_max_, lambda_itl = lambda_max_;
  if (targets.constrains_ttft()) {
    auto r = largest_rate(targets.ttft_ms, [](const QueueMetrics& m) { return m.ttft_ms; }, "TTFT");
    if (!r) return *unreachable;
    lambda_ttft = *r;
  }
  if (targets.constrains_itl()) {
    auto r = largest_rate(targets.itl_ms, [](const QueueMetrics& m) { return m.itl_ms; }, "ITL");
    if (!r) return *unreachable;
    lambda_itl = *r;
  }
  const double lambda = std::min(lambda_ttft, lambda_itl);
  out.lambda_ttft_rps = lambda_ttft * 1000.0;
  out.lambda_itl_rps = lambda_itl * 1000.0;
  out.lambda_star_rps = lambda * 1000.0;
  out.at_lambda_star = solved(lambda);
  ++out.evaluations;
  return out;
}

}  // namespace capstan
