// What the tick input codecs' tests share (tick_input_codec_test, tick_input_msgpack_test,
// observation_msgpack_test, state_msgpack_test): a tick input with every awkward double
// in it, the recorded inputs of tests/data/ticks/ (and every model of them), a bit-for-bit check of pod metrics, and the check that
// every field of a document, deleted or mistyped, is refused naming its path.
#pragma once

#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/codec/codec_test_support.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "test_data.hpp"

namespace capstan::testing {

inline constexpr double kDenormMax = 2.2250738585072009e-308;  // the largest subnormal
inline const double kPointThree = 0.1 + 0.2;

// A metrics gap: every number of the pod NaN, recorded verbatim.
inline PodMetrics gap_pod() {
  PodMetrics p;
  p.pod = "h100-0";
  p.arrival_rate_rps = p.avg_ttft_ms = p.avg_itl_ms = p.avg_input_tokens = p.avg_output_tokens = kNaN;
  p.kv_usage = p.queue_length = p.running = p.seconds_since_start = p.sample_age_s = kNaN;
  p.ready = false;
  return p;
}

inline PodMetrics awkward_pod() {
  PodMetrics p;
  p.pod = "h100-1";
  p.arrival_rate_rps = kPointThree;
  p.avg_ttft_ms = kInf;
  p.avg_itl_ms = -kInf;
  p.avg_input_tokens = kDenormMin;
  p.avg_output_tokens = kDenormMax;
  p.kv_usage = -0.0;
  p.queue_length = -3;  // verbatim: the codec validates types, not ranges
  p.running = 1e308;
  p.seconds_since_start = 12.5;
  p.sample_age_s = 0;
  p.request_itl = {{50, 75, 100}, {10, 180, 199}, 200, 13500.25};
  return p;
}

inline TickInput sample_input() {
  VariantTickInput h100;
  h100.state.spec.name = "h100";
  h100.state.spec.cost_per_replica = kPointThree;
  h100.state.spec.role = Role::kPrefill;
  h100.state.spec.kv_capacity_tokens = 1.5e6;
  h100.state.spec.max_num_batched_tokens = 8192;
  h100.state.current_replicas = 2;
  h100.state.pending_replicas = 1;
  h100.state.desired_replicas = 3;
  h100.state.pods = {gap_pod(), awkward_pod()};
  h100.forward_passes = {{12.5, 512, 2048, 1, 7, "h100-1", 1, 0, 0}, {kNaN, 0, kInf, 0, 0, "", 0, 33, kPointThree}};
  h100.new_cold_starts_s = {41.5, kPointThree};
  h100.configured_cold_start_s = 60;

  VariantTickInput a100;
  a100.state.spec.name = "a100";
  a100.state.spec.role = Role::kDecode;
  a100.state.current_replicas = 0;

  ModelTickInput llama;
  llama.model = {"prod", "meta-llama/Llama-3.1-8B"};
  llama.variants = {h100, a100};
  llama.upstream_queue = 4;
  llama.decode_queue = kNaN;
  llama.arrival_rate_rps = kPointThree;
  llama.priority = 2;

  ModelTickInput idle;
  idle.model = {"prod", "qwen"};

  TickInput input;
  input.now_s = 1'700'000'000.125;
  input.interval_s = 30;
  input.models = {llama, idle};
  return input;
}

// The inputs a recorded simulation gave every policy (tests/data/ticks/), in order.
inline std::vector<TickInput> recorded_inputs(const std::string& name) {
  std::vector<TickInput> out;
  std::ifstream in(data_path("ticks/" + name + ".jsonl"));
  REQUIRE(in);
  std::string line, first_policy;
  while (std::getline(in, line)) {
    auto record = decode_tick_record(nlohmann::json::parse(line));
    REQUIRE(record.ok());
    if (first_policy.empty()) first_policy = record.value().policy;
    if (record.value().policy == first_policy) out.push_back(std::move(record).value().input);
  }
  return out;
}

inline void check_pod_bits(const PodMetrics& read, const PodMetrics& written) {
  CHECK(read.pod == written.pod);
  CHECK(bits(read.arrival_rate_rps) == bits(written.arrival_rate_rps));
  CHECK(bits(read.avg_ttft_ms) == bits(written.avg_ttft_ms));
  CHECK(bits(read.avg_itl_ms) == bits(written.avg_itl_ms));
  CHECK(bits(read.avg_input_tokens) == bits(written.avg_input_tokens));
  CHECK(bits(read.avg_output_tokens) == bits(written.avg_output_tokens));
  CHECK(bits(read.kv_usage) == bits(written.kv_usage));
  CHECK(bits(read.queue_length) == bits(written.queue_length));
  CHECK(bits(read.running) == bits(written.running));
  CHECK(read.ready == written.ready);
  CHECK(bits(read.seconds_since_start) == bits(written.seconds_since_start));
  CHECK(bits(read.sample_age_s) == bits(written.sample_age_s));
  CHECK(read.request_itl == written.request_itl);
}

// A tick record embeds a whole tick input document, whose errors name paths inside it.
inline std::string path_in_own_document(const std::string& path) {
  const std::string embedded = "input.";
  return path.rfind(embedded, 0) == 0 ? path.substr(embedded.size()) : path;
}

// Optional members: absent means empty.
inline bool optional_field(const std::string& path) { return path.ends_with(".request_itl"); }

template <class Decode>
void check_every_field_refused(const nlohmann::json& valid, Decode decode) {
  std::vector<Field> fields;
  collect_fields(valid, "", nlohmann::json::json_pointer(), fields);
  REQUIRE(fields.size() > 20);
  for (const Field& f : fields) {
    const std::string named = path_in_own_document(f.path);
    if (!optional_field(f.path)) {
      nlohmann::json doc = valid;
      doc[f.pointer.parent_pointer()].erase(f.pointer.back());
      const auto decoded = decode(doc);
      INFO("deleted " << f.path);
      REQUIRE_FALSE(decoded.ok());
      CHECK(names_field(decoded.error().message, named));
    }
    nlohmann::json doc = valid;
    doc[f.pointer] = wrong_type_for(valid[f.pointer]);
    const auto decoded = decode(doc);
    INFO(f.path << " = " << doc[f.pointer].dump());
    REQUIRE_FALSE(decoded.ok());
    CHECK(names_field(decoded.error().message, named));
  }
}

// Every model of every recorded tick (tests/data/ticks/), and the hand-made awkward one.
template <class Check>
inline void for_each_recorded_model(Check check) {
  std::size_t models = 0, histograms = 0;
  for (const std::string recording : {"budget", "disagg", "stale-gap"}) {
    const std::vector<TickInput> inputs = recorded_inputs(recording);
    for (std::size_t t = 0; t < inputs.size(); ++t) {
      for (const ModelTickInput& m : inputs[t].models) {
        INFO(recording << " tick " << t << " " << m.model.model_id);
        check(m);
        ++models;
        for (const VariantTickInput& v : m.variants) {
          for (const PodMetrics& p : v.state.pods) histograms += has_request_itl(p) ? 1 : 0;
        }
      }
    }
  }
  // The recordings hold what the store mostly sees, pods with ITL histograms; the
  // sample adds a pod without one and every awkward double.
  CHECK(models > 50);
  CHECK(histograms > 200);
  for (const ModelTickInput& m : sample_input().models) check(m);
}


}  // namespace capstan::testing
