#include "domain/model/queue_model.hpp"

#include <algorithm>
#include <bit>
#include <array>
#include <cmath>
#include <optional>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Unnormalised p[k] = prod_{j<=k} lambda / mu(min(j, N)), with p[0] = 1. We keep only
// the running sums the statistics need: total mass, first moment, and both restricted
// to the in-service states k <= N.
//
// Each state asks one of two questions, by its ratio: below 1 the term shrank, so it
// cannot need rescaling (the term before it was at most kRescaleAbove once checked,
// and a product with a factor below 1 rounds to at most the larger factor), and only
// the cut is checked; else only the rescale is (the cut needs a ratio below 1). That is
// exactly the two checks every state made before, with the one that cannot hold left
// out: the same sums, in the same order, so the same bits, for fewer instructions in
// the loop that is a fifth of a hybrid tick's. k also counts as a double (exact), not
// converted each state.
QueueMetrics QueueAnalyzer::solve(double lambda) const {
  Chain c;
  serve(lambda, c);
  queue(lambda, c);
  return metrics(lambda, c);
}

void QueueAnalyzer::serve(double lambda, Chain& c) const {
  const int n_max = config_.max_batch_size;
  if (c.ended || c.k > n_max) return;
  double p = c.p, mass = c.mass, moment = c.moment, k_real = c.k_real;
  int k = c.k;
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
  c = {p, mass, moment, mass, moment, k_real, k, cut};
}

void QueueAnalyzer::queue(double lambda, Chain& c) const {
  const int n_max = config_.max_batch_size;
  const int k_max = n_max + config_.max_queue_size;
  if (c.ended || c.k <= n_max) return;
  double p = c.p, mass = c.mass, moment = c.moment, mass_served = c.mass_served, moment_served = c.moment_served;
  double k_real = c.k_real;
  int k = c.k;
  // One ratio for every queued state: a loop for each of its two cases.
  const double ratio = lambda * inv_mu_last_;
  bool cut = false;
  if (ratio < 1) {
    for (; k <= k_max; ++k, k_real += 1) {
      p *= ratio;
      mass += p;
      moment += k_real * p;
      if (p < mass * 1e-18) { p = 0; cut = true; break; }
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
  c = {p, mass, moment, mass_served, moment_served, k_real, k, cut || k > k_max};
}

// Two chains at once, one in each half of an SSE2 register: each half's multiplies and
// adds are those of its chain alone (IEEE operations per lane, and no FMA in the
// baseline x86-64 build), so each chain's sums are the bits solve() gives. A chain is a
// sequence of dependent multiplies and adds, as long as the latency of each; two of
// them take about the time of one. Both stop at the first state where either is cut;
// the other goes on alone (serve, queue).
#if defined(__SSE2__)
void QueueAnalyzer::serve_pair(double lambda_a, double lambda_b, Chain& ca, Chain& cb) const {
  const int n_max = config_.max_batch_size;
  const __m128d lambda = _mm_set_pd(lambda_b, lambda_a);
  const __m128d one = _mm_set1_pd(1.0), tiny = _mm_set1_pd(1e-18), rescale_above = _mm_set1_pd(kRescaleAbove);
  __m128d p = one, mass = one, moment = _mm_setzero_pd();
  double k_real = 1;
  int k = 1;
  int cut_lanes = 0;
  while (k <= n_max && cut_lanes == 0) {
    const int fill_end = std::min(n_max, std::max(inv_mu_filled_, k + kFillStates - 1));
    const double* inv_mu = inv_mu_up_to(fill_end);
    for (; k <= fill_end; ++k, k_real += 1) {
      const __m128d ratio = _mm_mul_pd(lambda, _mm_set1_pd(inv_mu[k - 1]));
      p = _mm_mul_pd(p, ratio);
      mass = _mm_add_pd(mass, p);
      moment = _mm_add_pd(moment, _mm_mul_pd(_mm_set1_pd(k_real), p));
      const __m128d below = _mm_cmplt_pd(ratio, one);
      const __m128d cut = _mm_and_pd(below, _mm_cmplt_pd(p, _mm_mul_pd(mass, tiny)));
      const __m128d rescale = _mm_andnot_pd(below, _mm_cmpgt_pd(p, rescale_above));
      if (_mm_movemask_pd(_mm_or_pd(cut, rescale)) == 0) [[likely]] continue;
      // A lane to cut or rescale: as solve() does to its chain at this state.
      alignas(16) double lanes[3][2];
      _mm_store_pd(lanes[0], p);
      _mm_store_pd(lanes[1], mass);
      _mm_store_pd(lanes[2], moment);
      const int rescale_lanes = _mm_movemask_pd(rescale);
      for (int lane = 0; lane < 2; ++lane) {
        if (rescale_lanes & (1 << lane)) {
          for (auto& sum : lanes) sum[lane] *= kRescaleBy;
        }
      }
      cut_lanes = _mm_movemask_pd(cut);
      for (int lane = 0; lane < 2; ++lane) {
        if (cut_lanes & (1 << lane)) lanes[0][lane] = 0;
      }
      p = _mm_load_pd(lanes[0]);
      mass = _mm_load_pd(lanes[1]);
      moment = _mm_load_pd(lanes[2]);
      if (cut_lanes != 0) break;
    }
  }
  alignas(16) double lanes[3][2];
  _mm_store_pd(lanes[0], p);
  _mm_store_pd(lanes[1], mass);
  _mm_store_pd(lanes[2], moment);
  for (int lane = 0; lane < 2; ++lane) {
    Chain& c = lane == 0 ? ca : cb;
    const bool cut = (cut_lanes & (1 << lane)) != 0;
    // A lane not cut has finished state k when the other was cut there: it goes on
    // from the next.
    const bool past = cut_lanes != 0 && !cut;
    c = {lanes[0][lane], lanes[1][lane], lanes[2][lane], lanes[1][lane], lanes[2][lane],
         past ? k_real + 1 : k_real, past ? k + 1 : k, cut};
  }
}

void QueueAnalyzer::queue_pair(double lambda_a, double lambda_b, Chain& ca, Chain& cb) const {
  const int n_max = config_.max_batch_size;
  const int k_max = n_max + config_.max_queue_size;
  // Only two chains that both reach the queued states together with ratios below 1 (the
  // searches' chains near their roots); else each goes alone.
  if (ca.ended || cb.ended || ca.k != n_max + 1 || cb.k != n_max + 1) return;
  const double ratio_a = lambda_a * inv_mu_last_, ratio_b = lambda_b * inv_mu_last_;
  if (!(ratio_a < 1) || !(ratio_b < 1)) return;
  const __m128d ratio = _mm_set_pd(ratio_b, ratio_a), tiny = _mm_set1_pd(1e-18);
  __m128d p = _mm_set_pd(cb.p, ca.p), mass = _mm_set_pd(cb.mass, ca.mass), moment = _mm_set_pd(cb.moment, ca.moment);
  double k_real = ca.k_real;
  int k = ca.k;
  int cut_lanes = 0;
  for (; k <= k_max; ++k, k_real += 1) {
    p = _mm_mul_pd(p, ratio);
    mass = _mm_add_pd(mass, p);
    moment = _mm_add_pd(moment, _mm_mul_pd(_mm_set1_pd(k_real), p));
    cut_lanes = _mm_movemask_pd(_mm_cmplt_pd(p, _mm_mul_pd(mass, tiny)));
    if (cut_lanes != 0) [[unlikely]] break;
  }
  alignas(16) double lanes[3][2];
  _mm_store_pd(lanes[0], p);
  _mm_store_pd(lanes[1], mass);
  _mm_store_pd(lanes[2], moment);
  for (int lane = 0; lane < 2; ++lane) {
    Chain& c = lane == 0 ? ca : cb;
    const bool cut = (cut_lanes & (1 << lane)) != 0;
    const bool past = cut_lanes != 0 && !cut;
    c.p = cut ? 0.0 : lanes[0][lane];
    c.mass = lanes[1][lane];
    c.moment = lanes[2][lane];
    c.k = past ? k + 1 : k;
    c.k_real = past ? k_real + 1 : k_real;
    c.ended = cut || c.k > k_max;
  }
}
#else
void QueueAnalyzer::serve_pair(double, double, Chain&, Chain&) const {}
void QueueAnalyzer::queue_pair(double, double, Chain&, Chain&) const {}
#endif

QueueMetrics QueueAnalyzer::metrics(double lambda, const Chain& c) const {
  const int n_max = config_.max_batch_size;
  const int k_max = n_max + config_.max_queue_size;
  // p now holds p[K] unnormalised (0 if the tail was cut as negligible).
  const double p_full = (c.k > k_max) ? c.p / c.mass : 0.0;
  const double in_system = c.moment / c.mass;
  const double in_service = (c.moment_served + n_max * (c.mass - c.mass_served)) / c.mass;

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
