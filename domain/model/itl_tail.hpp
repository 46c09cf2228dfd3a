// The spread of requests' ITL around the queue model's mean, measured from the
// fleet's own per-request ITL histograms (capstan's `hybrid`, docs/policies.md).
//
// The SLO counts a request as met when its own mean ITL is within the target, so
// sizing the model's mean ITL to the target lets about half the requests miss it. A
// request's ITL is the decode step of a batch of one, d1, plus a load part from the
// requests batched beside it; the model predicts the mean load part, m(lambda) - d1.
// Taking each request's load part as lognormal around it,
//   ln((ITL - d1) / (m(lambda) - d1)) ~ N(location, scale^2),
// every bucket bound b of a window's histogram, at the rate the replicas served, is a
// point: position x = ln((b - d1) / (m - d1)), with the requests at or below b and
// all of the window's. P(ITL <= b) = Phi((x - location) / scale) is a probit
// regression, fitted by maximum likelihood over the points of recent windows. The
// location absorbs the model's bias at the operating point (a simulated H100 under a
// 512/128-token mix of length CV 0.8 serves a 75 ms mean where the true-cost model
// says 69 ms), the scale the spread between requests.
//
// Then P(ITL > target) <= p while m(lambda) <= d1 + (target - d1) e^-(location + z_p scale):
// the queue model is sized against that mean ITL instead of the target.
//
// `hybrid` refits every tick over its last 20 windows (ItlEvidence). The log-likelihood
// is concave in (a, b) = (-location / scale, 1 / scale), so its optimum is unique and any
// start reaches it: a refit starts where the previous one ended, with each window's
// share of the likelihood there remembered, and takes a Newton step or two instead of a
// dozen from scratch (issue 19).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/core/history.hpp"
#include "domain/core/types.hpp"
#include "domain/core/variant_state.hpp"

namespace capstan {

// What a variant's ready replicas served this window: their per-request ITL histograms
// summed, and their mean arrival rate per replica. Only pods with a sample at most
// max_sample_age_s old, started at least warm_up_s ago, serving traffic, and with the
// same bucket bounds as the first such pod count; nothing when no request finished on
// them, or when any of them holds a queue (more than one waiting request): what its
// requests met then is the backlog's, not the rate's.
struct ServedItl {
  WindowHistogram requests;
  double rate_per_replica_rps = 0;
};

std::optional<ServedItl> served_request_itl(const VariantState& variant, double max_sample_age_s,
                                            double warm_up_s);

// One histogram bound of one window.
struct ItlTailPoint {
  double position = 0;  // ln((bound - d1) / (model mean ITL - d1))
  double below = 0;     // requests with ITL <= bound
  double total = 0;     // requests in the window

  bool operator==(const ItlTailPoint&) const = default;
};

// The points of one window's per-request ITL histogram (pooled over a variant's
// pods), for a model whose decode step at batch one is d1_ms and whose mean ITL at the
// rate served is model_itl_ms. Bounds at or below d1 carry no position and are left
// out; none when the histogram is empty or the model's load part is under 1 ms.
std::vector<ItlTailPoint> itl_tail_points(const WindowHistogram& window, double d1_ms, double model_itl_ms);

struct ItlSpread {
  double location = 0;
  double scale = 0;
  double requests = 0;  // over the windows fitted

  bool operator==(const ItlSpread&) const = default;
};

// One window's share of the log-likelihood at one (a, b), with its gradient and its
// Hessian (negated: the observed information).
struct ItlFitTerms {
  double log_likelihood = 0;
  double grad_a = 0, grad_b = 0;
  double info_aa = 0, info_ab = 0, info_bb = 0;

  bool operator==(const ItlFitTerms&) const = default;
};

// The probit's coefficients, P(ITL <= bound) = Phi(a + b position): a = -location / scale,
// b = 1 / scale. Kept as such so that a refit starts exactly where the last one was.
struct ProbitCoefficients {
  double a = 0;
  double b = 0;

  bool operator==(const ProbitCoefficients&) const = default;
};

// One window of evidence as kept between ticks: the requests at or below each of the
// histogram's bounds (ItlEvidence::upper_bounds_ms), with the model's d1 and mean ITL
// it was read against. That is all the fit needs; the points follow from it.
struct ItlWindow {
  double d1_ms = 0;
  double model_itl_ms = 0;
  double requests = 0;
  std::vector<double> below;  // per bound, in [0, requests]; NaN where not finite (no point)

  // Derived, never saved: the window's points (itl_tail_points), and its terms at
  // ItlEvidence::start when known. The points never change once made, so the copies of
  // a model's state that hold the window share them: a plan works on a copy of the state
  // and a snapshot takes another, and with twenty windows of a score of points each, the
  // points were most of a hybrid model's state. Null until made.
  std::shared_ptr<const std::vector<ItlTailPoint>> points;
  std::optional<ItlFitTerms> terms_at_start;
};

// A variant's recent windows, oldest first, all with the same histogram bounds, and
// where the next fit starts.
struct ItlEvidence {
  std::vector<double> upper_bounds_ms;
  History<ItlWindow> windows;
  std::optional<ProbitCoefficients> start;  // none: from scale 0.3 at location 0
};

// A window from what is kept of it, its points derived as itl_tail_points does.
ItlWindow make_itl_window(const std::vector<double>& upper_bounds_ms, double d1_ms, double model_itl_ms,
                          double requests, std::vector<double> below);

// Adds this window's histogram, read against the model as itl_tail_points, as the
// newest window, keeping at most `max_windows`; nothing when it gives no point. A
// histogram with other bounds than the kept windows' starts the evidence over.
void add_itl_window(ItlEvidence& evidence, const WindowHistogram& window, double d1_ms, double model_itl_ms,
                    std::size_t max_windows);

// Requests, summed over the windows fitted, below which nothing is fitted.
inline constexpr double kMinSpreadRequests = 200;

// The maximum-likelihood fit over the points of several windows (one vector each), or
// nothing when they say too little: under kMinSpreadRequests requests, no point with
// requests on both sides of its bound, or a fit that does not converge to a scale in
// [0.005, 3].
std::optional<ItlSpread> fit_itl_spread(const std::vector<std::vector<ItlTailPoint>>& windows);

// The same fit over the evidence's windows, from evidence.start: updates the start (and
// each window's terms there) for the next refit, or clears it when nothing fits.
std::optional<ItlSpread> refit_itl_spread(ItlEvidence& evidence);

// z with P(Z > z) = p for a standard normal Z, p in (0, 1).
double normal_upper_quantile(double p);

// The mean ITL to size the queue model against so that P(ITL > target_ms) <= p:
// d1 + (target - d1) e^-(location + z_p scale), above the target when even the tail
// stays under the model's mean (location + z_p scale < 0).
double itl_sizing_target_ms(const ItlSpread& spread, double target_ms, double d1_ms, double p);

void to_json(nlohmann::json& j, const ItlTailPoint& p);
void from_json(const nlohmann::json& j, ItlTailPoint& p);

}  // namespace capstan
