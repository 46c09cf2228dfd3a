// What the policies that learn the queue model (`hybrid`, `erlang`, `queueing`) learn,
// split by level as the tick is (domain/tick/tick_policy.hpp):
//   learn_variant  one variant's (alpha, beta, gamma) through the queueing analyzer's
//                  EKF tuner, and (for the forecasting policies) its cold start from
//                  its own replicas, with the events that say what was learned;
//   observe_model  the model's demand as observed this tick (router arrivals, token
//                  lengths weighted by each variant's arrivals, waiting requests) and
//                  the forecast horizon, from the tick input and the variants' views.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "domain/model/saturation.hpp"
#include "domain/tick/tick_policy.hpp"

namespace capstan {

struct VariantLearning {
  // Pods whose samples are stale (older than max_sample_age_s) or invalid teach nothing:
  // a frozen scrape repeats old figures. Off for `queueing`, which learns as WVA does.
  bool skip_unusable_pods = true;
  bool cold_start = true;  // learn the cold start from the replicas' start-up times
  // The first estimate (the tuner's bootstrap) assumes light load: a TTFT is prefill
  // alone. Taken while requests wait, the wait is read as prefill time, and the
  // tuner's bounds, set around that first estimate, can keep it from ever reaching the
  // truth (`cold-fleet`: beta bootstrapped at 26 ms against about 0.09, held at its
  // bound of 0.26 for the rest of the run, which halved every capacity estimate). So
  // no bootstrap is taken while the warm busy pods hold more than one waiting request
  // each, nor within three windows after they did or after their batch stopped draining
  // (VariantMemory::waited_at_s: the requests finishing then ran in the batch the
  // backlog filled), and a filter that rejected ten observations in a row is estimated
  // afresh from the first one without a queue. Off for `queueing`, which learns as WVA
  // does.
  bool bootstrap_without_queue = true;
  // The first estimate spreads the ITL's load part over the batch the pods run
  // (TunerConfig::bootstrap_at_batch). `hybrid` sets it; `erlang` and `queueing` keep
  // WVA's batch of one.
  bool bootstrap_at_batch = false;
};

Learned learn_variant(VariantMemory memory, const ModelKey& model, const VariantTickInput& input,
                      const TickTime& time, const VariantLearning& how);

struct ModelObservation {
  TrafficSample now;            // rate (router view) and arrival-weighted token lengths
  bool has_token_lengths = false;
  bool usable = false;          // this tick's rate is evidence (not a metrics gap)
  double waiting_requests = 0;  // in the servers
  double backlog = 0;           // waiting + the router's upstream queue
  double horizon_s = 0;         // the longest learned cold start + one tick
  int ready_replicas = 0;
};

// `variants`: learn_variant's views, one per variant of `model`, in its order.
ModelObservation observe_model(const ModelTickInput& model, std::span<const VariantView> variants,
                               const TickTime& time);

// The forecast series of a model: fed only usable ticks, token lengths carried over
// ticks that had none.
void observe_traffic(TrafficForecastState& forecaster, const ModelObservation& observed);

// WVA's saturation rule for a model nothing has been learned about yet; holds when
// even that cannot run.
std::vector<ScalingRequest> saturation_fallback(const ModelTickInput& model, const SaturationConfig& config);

}  // namespace capstan
