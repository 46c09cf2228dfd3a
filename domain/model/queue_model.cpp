#include "domain/model/queue_model.hpp"

#include <algorithm>
#include <bit>
#include <array>
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
  if (const QueueMetrics* m = remembered(lambda)) return *m;
  const QueueMetrics m = solve(lambda);
  remember(lambda, m);
  return m;
}

const QueueMetrics* QueueAnalyzer::remembered(double lambda) const {
  const auto bits = std::bit_cast<std::uint64_t>(lambda);
  for (std::size_t i = 0; i < solved_count_; ++i)
    if (solved_[i].solved.lambda_bits == bits) return &solved_[i].solved.metrics;
  return nullptr;
}

void QueueAnalyzer::remember(double lambda, const QueueMetrics& m) const {
  // Full: solved each time asked.
  if (solved_count_ < kMemo) solved_[solved_count_++].solved = {std::bit_cast<std::uint64_t>(lambda), m};
}

std::pair<QueueMetrics, QueueMetrics> QueueAnalyzer::solved_pair(double lambda_a, double lambda_b) const {
  const QueueMetrics* a = remembered(lambda_a);
  const QueueMetrics* b = remembered(lambda_b);
  if (a && b) return {*a, *b};
  if (a) return {*a, solved(lambda_b)};
  if (b) return {solved(lambda_a), *b};
  if (std::bit_cast<std::uint64_t>(lambda_a) == std::bit_cast<std::uint64_t>(lambda_b)) {
    const QueueMetrics m = solved(lambda_a);
    return {m, m};
  }
  Chain ca, cb;
  serve_pair(lambda_a, lambda_b, ca, cb);
  serve(lambda_a, ca);
  serve(lambda_b, cb);
  queue_pair(lambda_a, lambda_b, ca, cb);
  queue(lambda_a, ca);
  queue(lambda_b, cb);
  const std::pair<QueueMetrics, QueueMetrics> out{metrics(lambda_a, ca), metrics(lambda_b, cb)};
  remember(lambda_a, out.first);
  remember(lambda_b, out.second);
  return out;
}

std::optional<Error> QueueAnalyzer::refused(double rate_rps) const {
  if (!std::isfinite(rate_rps) || rate_rps <= 0) {
    return invalid_argument("rate must be a finite number > 0 req/s, got " + fmt_num(rate_rps));
  }
  if (rate_rps > max_rate_rps()) {
    return Error{ErrorCode::kModelError, "rate " + fmt_num(rate_rps) +
                                             " req/s is above the model's maximum stable rate " +
                                             fmt_num(max_rate_rps()) + " req/s"};
  }
  return std::nullopt;
}

Result<QueueMetrics> QueueAnalyzer::analyze(double rate_rps) const {
  if (auto error = refused(rate_rps)) return *error;
  return solved(rate_rps / 1000.0);
}

std::pair<Result<QueueMetrics>, Result<QueueMetrics>> QueueAnalyzer::analyze_pair(double rate_a_rps,
                                                                                  double rate_b_rps) const {
  if (refused(rate_a_rps) || refused(rate_b_rps)) return {analyze(rate_a_rps), analyze(rate_b_rps)};
  auto [a, b] = solved_pair(rate_a_rps / 1000.0, rate_b_rps / 1000.0);
  return {a, b};
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

SizingResult QueueAnalyzer::size(const SloTargets& targets) const { return size(targets, nullptr); }

SizingResult QueueAnalyzer::size(const SloTargets& targets, const RateSearch& beside) const {
  return size(targets, &beside);
}

SizingResult QueueAnalyzer::size(const SloTargets& targets, const RateSearch* beside) const {
  if (auto err = validate(targets)) return *err;
  Sizing out;
  const QueueMetrics at_min = solved(lambda_min_);
  const QueueMetrics at_max = solved(lambda_max_);
  out.evaluations = 2;

  // WVA's search contract, with Brent's method in place of plain bisection: per target,
  // the largest rate, found at an end of the bounded region or searched for, or nothing
  // when the target is below the region (the caller then says so with `unreachable`).
  struct Search {
    double lambda = 0;                // the answer, when found without a search
    std::optional<BrentSteps> steps;  // else the search
  };
  std::optional<UnreachableTarget> unreachable;
  auto largest_rate = [&](double target, auto metric, const char* name) -> std::optional<Search> {
    const double y_lo = metric(at_min), y_hi = metric(at_max);
    if (within_tolerance(y_lo, target, kEndTolerance)) return Search{lambda_min_, std::nullopt};
    if (within_tolerance(y_hi, target, kEndTolerance)) return Search{lambda_max_, std::nullopt};
    const bool increasing = y_lo < y_hi;
    if (increasing ? target < y_lo : target > y_lo) {
      unreachable = UnreachableTarget{name, target, min_rate_rps(), y_lo};
      return std::nullopt;
    }
    if (increasing ? target > y_hi : target < y_hi) return Search{lambda_max_, std::nullopt};
    return Search{0, BrentSteps(lambda_min_, lambda_max_, y_lo, y_hi, target, kSearchTolerance)};
  };
  const auto ttft_of = [](const QueueMetrics& m) { return m.ttft_ms; };
  const auto itl_of = [](const QueueMetrics& m) { return m.itl_ms; };

  Search ttft{lambda_max_, std::nullopt}, itl{lambda_max_, std::nullopt};
  if (targets.constrains_ttft()) {
    auto r = largest_rate(targets.ttft_ms, ttft_of, "TTFT");
    if (!r) return *unreachable;
    ttft = std::move(*r);
  }
  if (targets.constrains_itl()) {
    auto r = largest_rate(targets.itl_ms, itl_of, "ITL");
    if (!r) return *unreachable;
    itl = std::move(*r);
  }
  // The searches are independent (the TTFT's, the ITL's, and the one beside), and each
  // evaluation is a chain: made two at a time while two go on (solved_pair), in the
  // order listed, each search's steps and answer are those it makes alone. A rate the
  // search beside asks for that analyze() refuses is read as refused, unsolved.
  // (A point as a flag and a double, not an optional: GCC 12 takes an optional's value
  // for uninitialised here.)
  struct Pending {
    BrentSteps* steps = nullptr;
    double x = 0;       // the point to evaluate
    double lambda = 0;  // per ms
    bool searching = false;
  };
  std::array<Pending, 3> pending{Pending{ttft.steps ? &*ttft.steps : nullptr}, Pending{beside ? &beside->steps : nullptr},
                                 Pending{itl.steps ? &*itl.steps : nullptr}};
  const auto read = [&](std::size_t i, const QueueMetrics& m) {
    return i == 0 ? ttft_of(m) : i == 2 ? itl_of(m) : beside->read(Result<QueueMetrics>(m));
  };
  const auto next = [&](std::size_t i) {
    Pending& p = pending[i];
    const std::optional<double> point = p.steps ? p.steps->next() : std::nullopt;
    p.searching = point.has_value();
    p.x = point.value_or(0);
    p.lambda = i == 1 ? p.x / 1000.0 : p.x;
    if (i == 1 && p.searching) {
      // Refused: read as such now, and the search goes on.
      while (p.searching) {
        auto error = refused(p.x);
        if (!error) break;
        p.steps->evaluated(beside->read(Result<QueueMetrics>(*error)));
        const std::optional<double> again = p.steps->next();
        p.searching = again.has_value();
        p.x = again.value_or(0);
        p.lambda = p.x / 1000.0;
      }
    }
  };
  for (std::size_t i = 0; i < pending.size(); ++i) next(i);
  for (;;) {
    std::array<std::size_t, 3> live{};
    std::size_t n = 0;
    for (std::size_t i = 0; i < pending.size(); ++i)
      if (pending[i].searching) live[n++] = i;
    if (n == 0) break;
    if (n >= 2) {
      Pending &a = pending[live[0]], &b = pending[live[1]];
      const auto [m_a, m_b] = solved_pair(a.lambda, b.lambda);
      a.steps->evaluated(read(live[0], m_a));
      b.steps->evaluated(read(live[1], m_b));
    }
    if (n != 2) {
      Pending& c = pending[live[n - 1]];
      c.steps->evaluated(read(live[n - 1], solved(c.lambda)));
    }
    for (std::size_t j = 0; j < n; ++j) next(live[j]);
  }
  for (Search* s : {&ttft, &itl}) {
    if (!s->steps) continue;
    const RootResult root = s->steps->result();
    out.evaluations += root.evaluations;
    s->lambda = root.x;
  }

  const double lambda_ttft = ttft.lambda, lambda_itl = itl.lambda;
  const double lambda = std::min(lambda_ttft, lambda_itl);
  out.lambda_ttft_rps = lambda_ttft * 1000.0;
  out.lambda_itl_rps = lambda_itl * 1000.0;
  out.lambda_star_rps = lambda * 1000.0;
  out.at_lambda_star = solved(lambda);
  ++out.evaluations;
  return out;
}

}  // namespace capstan
