// The shared vocabulary of every policy: who is scaled (model and variant keys), what
// a pod reports, how a variant is configured, and what an analyzer concludes about a
// variant's capacity. Plain values; serialisation lives in domain/codec/json.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace capstan {

struct ModelKey {
  std::string ns;        // Kubernetes namespace (or a host group on plain hosts)
  std::string model_id;  // e.g. "meta-llama/Meta-Llama-3.1-8B-Instruct"

  auto operator<=>(const ModelKey&) const = default;
};

struct VariantKey {
  ModelKey model;
  std::string variant;  // e.g. "llama-8b-h100"

  auto operator<=>(const VariantKey&) const = default;
};

// What serves a request: both phases, or one side of a prefill/decode split.
enum class Role { kBoth, kPrefill, kDecode };

const char* to_string(Role role);
bool parse_role(const std::string& text, Role& out);

// A latency histogram over one observation window, as Prometheus keeps one: the number
// of observations at or below each upper bound (cumulative, bounds increasing), their
// count (the +Inf bucket) and sum. Empty when the server does not export it.
struct WindowHistogram {
  std::vector<double> upper_bounds_ms;
  std::vector<double> cumulative;
  double count = 0;
  double sum_ms = 0;

  bool empty() const { return !(count > 0); }
  bool operator==(const WindowHistogram&) const = default;
};

// One pod's serving metrics over the last observation window.
struct PodMetrics {
  std::string pod;
  double arrival_rate_rps = 0;   // requests per second routed to this pod
  double avg_ttft_ms = 0;
  double avg_itl_ms = 0;
  double avg_input_tokens = 0;
  double avg_output_tokens = 0;
  double kv_usage = 0;           // fraction of KV cache in use, 0..1
  double queue_length = 0;       // requests waiting in the server
  double running = 0;            // requests in the running batch
  bool ready = true;
  double seconds_since_start = 0;
  // How old this sample is: seconds since the pod's metrics last updated (0 = taken in
  // this window). A collector that serves a frozen scrape says so here.
  double sample_age_s = 0;
  // Each request's own mean ITL (vLLM's vllm:request_time_per_output_token_seconds),
  // for the requests that finished in the window: the spread the SLO sees, which the
  // token-weighted avg_itl_ms hides.
  WindowHistogram request_itl;
};

struct VariantSpec {
  std::string name;
  int max_batch_size = 256;
  int max_queue_size = 100;
  double cost_per_replica = 1.0;  // relative cost units per replica-hour
  int gpus_per_replica = 1;
  int min_replicas = 0;
  int max_replicas = 100;
  Role role = Role::kBoth;
  // Engine limits, when known (0 = unknown): what token-based analyzers size against.
  double kv_capacity_tokens = 0;   // GPU KV blocks x block size
  int max_num_batched_tokens = 0;  // vLLM --max-num-batched-tokens
};

// The queue model's hardware parameters, all in milliseconds.
struct ServiceParams {
  double alpha_ms = 0;  // fixed overhead per iteration
  double beta_ms = 0;   // compute time per token
  double gamma_ms = 0;  // KV-cache access time per cached token

  bool operator==(const ServiceParams&) const = default;
};

enum class CapacityStatus {
  kOk,
  kNoMetrics,     // no pod of this variant reported
  kNoTraffic,     // pods reported, none had arrivals
  kNoParameters,  // no learned (alpha, beta, gamma) yet
  kModelError,    // the queue model or sizing failed
};

const char* to_string(CapacityStatus status);

// What an analyzer concludes about one variant this tick.
struct VariantCapacity {
  std::string variant;
  double per_replica_capacity_rps = 0;  // lambda*'s throughput at the SLO
  double total_capacity_rps = 0;        // per replica x ready replicas
  double total_demand_rps = 0;
  double utilization = 0;               // per-replica demand / per-replica capacity
  int required_replicas = 0;
  int current_replicas = 0;
  int pending_replicas = 0;
  int ready_replicas = 0;
  double cost_per_replica = 0;
  CapacityStatus status = CapacityStatus::kOk;
  std::string reason;                   // one sentence a person can read
};

}  // namespace capstan
