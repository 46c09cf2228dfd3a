// A small fleet for policy tests: one model with a cheap and a dear variant whose pods
// report what the queue model predicts for known parameters at their share of the load.
#pragma once

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include <catch2/catch.hpp>

#include "domain/model/ekf_tuner.hpp"
#include "domain/model/queue_model.hpp"
#include "domain/policies/policy.hpp"

namespace capstan::testing {

inline const ServiceParams kFixtureTruth{6.0, 0.016, 0.0004};

inline PodMetrics pod_at(const std::string& name, double rate, double queue = 0) {
  TunerObservation o{1, 1, 1000, 200, rate, 256};
  auto h = predict_observation(kFixtureTruth, o, 10);
  REQUIRE(h.ok());
  PodMetrics p;
  p.pod = name;
  p.arrival_rate_rps = rate;
  p.avg_ttft_ms = (*h)[0];
  p.avg_itl_ms = (*h)[1];
  p.avg_input_tokens = 1000;
  p.avg_output_tokens = 200;
  p.queue_length = queue;
  p.seconds_since_start = 3600;
  return p;
}

// A per-replica rate `overload` times lambda*, what one replica of the truth serves
// within `slo` (a 0 target unconstrained) at the fixture's request sizes, kept below
// saturation so that the pods can still report it.
inline double overloaded_rps(const SloTargets& slo, double overload = 1.15) {
  auto qa = QueueAnalyzer::create(kFixtureTruth, {VariantSpec{}.max_batch_size, VariantSpec{}.max_queue_size},
                                  {1000, 200});
  REQUIRE(qa.ok());
  auto sized = qa->size(slo);
  REQUIRE(sized.ok());
  return std::min(overload * sized->lambda_star_rps, 0.95 * qa->max_rate_rps());
}

// SLOs with one target, each binding well below saturation at the fixture's sizes.
inline const SloTargets kTtftOnly{60, 0};
inline const SloTargets kItlOnly{0, 20};

struct Fleet {
  int cheap = 2, dear = 0, cheap_pending = 0;
};

// model_rps is spread evenly over the ready pods of both variants.
inline TickInput tick_at(double now_s, const Fleet& f, double model_rps, double queue_per_pod = 0,
                         double upstream = 0, std::vector<double> cold_starts = {}) {
  TickInput in;
  in.now_s = now_s;
  in.interval_s = 30;
  ModelTickInput m;
  m.model = {"prod", "llama"};
  const int ready = f.cheap - f.cheap_pending + f.dear;
  for (auto [name, cost, n, pending] :
       {std::tuple{"cheap", 2.0, f.cheap, f.cheap_pending}, std::tuple{"dear", 4.0, f.dear, 0}}) {
    VariantTickInput v;
    v.state.spec.name = name;
    v.state.spec.cost_per_replica = cost;
    v.state.spec.max_replicas = 40;
    v.state.current_replicas = n;
    v.state.pending_replicas = pending;
    v.state.desired_replicas = n;
    v.configured_cold_start_s = 300;
    if (std::string(name) == "cheap") v.new_cold_starts_s = cold_starts;
    for (int i = 0; i < n - pending; ++i) {
      v.state.pods.push_back(pod_at(std::string(name) + std::to_string(i), model_rps / ready, queue_per_pod));
    }
    m.variants.push_back(v);
  }
  m.arrival_rate_rps = model_rps;
  m.upstream_queue = upstream;
  in.models.push_back(m);
  return in;
}

}  // namespace capstan::testing
