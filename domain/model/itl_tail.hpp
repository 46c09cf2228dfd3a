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
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

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

// Requests, summed over the windows fitted, below which nothing is fitted.
inline constexpr double kMinSpreadRequests = 200;

// The maximum-likelihood fit over the points of several windows (one vector each), or
// nothing when they say too little: under kMinSpreadRequests requests, no point with
// requests on both sides of its bound, or a fit that does not converge to a scale in
// [0.005, 3].
std::optional<ItlSpread> fit_itl_spread(const std::vector<std::vector<ItlTailPoint>>& windows);

// z with P(Z > z) = p for a standard normal Z, p in (0, 1).
double normal_upper_quantile(double p);

// The mean ITL to size the queue model against so that P(ITL > target_ms) <= p:
// d1 + (target - d1) e^-(location + z_p scale), above the target when even the tail
// stays under the model's mean (location + z_p scale < 0).
double itl_sizing_target_ms(const ItlSpread& spread, double target_ms, double d1_ms, double p);

void to_json(nlohmann::json& j, const ItlTailPoint& p);
void from_json(const nlohmann::json& j, ItlTailPoint& p);

}  // namespace capstan
