// Shared helpers of the simulator tests: a simple deterministic hardware profile, an
// in-memory trace, a one-variant fleet config, and paths of the shipped data files.
#pragma once

#include <string>
#include <vector>

#include "sim/fleet_config.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim::testing {

inline std::string sim_data(const std::string& name) {
  return std::string(CAPSTAN_TEST_DATA_DIR) + "/sim/" + name;
}

inline std::string profiles_dir() { return std::string(CAPSTAN_TEST_DATA_DIR) + "/../../sim/profiles"; }

inline HardwareProfile simple_profile(double noise_cv = 0) {
  HardwareProfile p;
  p.name = "test";
  p.overhead_ms = 10;
  p.compute_ms_per_token = 0.05;
  p.kv_read_ms_per_token = 0.0001;
  p.prefill_attention_ms_per_token2 = 0;
  p.noise_cv = noise_cv;
  return p;
}

class VectorTrace : public TraceSource {
 public:
  explicit VectorTrace(std::vector<Request> requests) : requests_(std::move(requests)) {}
  Result<std::optional<Request>> next() override {
    if (i_ >= requests_.size()) return std::optional<Request>{};
    return std::optional<Request>{requests_[i_++]};
  }

 private:
  std::vector<Request> requests_;
  std::size_t i_ = 0;
};

inline Request request(double arrival_s, int input, int output) {
  Request r;
  r.arrival_s = arrival_s;
  r.input_tokens = input;
  r.output_tokens = output;
  return r;
}

inline FleetConfig one_variant_fleet(int initial, double cold_start_s, double timeout_s = 0,
                                     double noise_cv = 0) {
  FleetConfig f;
  f.model = "test-model";
  f.client_timeout_s = timeout_s;
  VariantConfig v;
  v.name = "v";
  v.profile = simple_profile(noise_cv);
  v.cost_per_replica_hour = 2.0;
  v.gpus_per_replica = 4;
  v.cold_start_s = cold_start_s;
  v.initial_replicas = initial;
  v.min_replicas = 0;
  v.max_replicas = 10;
  v.server.max_num_seqs = 64;
  v.server.max_num_batched_tokens = 2048;
  v.server.num_gpu_blocks = 4096;
  v.server.block_size = 16;
  v.server.client_timeout_s = timeout_s;
  f.variants.push_back(v);
  return f;
}

}  // namespace capstan::sim::testing
