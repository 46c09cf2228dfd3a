#include "sim/prometheus_text.hpp"

#include <catch2/catch.hpp>

#include "sim/fleet.hpp"
#include "sim/sim_fixtures.hpp"

using namespace capstan::sim;
using capstan::sim::testing::one_variant_fleet;
using capstan::sim::testing::request;

TEST_CASE("A replica renders vLLM's metric names, types and labels") {
  Fleet f(one_variant_fleet(1, 0), 1);
  f.route(request(0, 300, 5), 0);
  while (f.next_event_s() < 100) f.process_next_event();
  const auto text = render_replica_metrics(*f.replicas()[0], "test-model");
  for (const char* needle :
       {"# TYPE vllm:num_requests_running gauge", "# TYPE vllm:num_requests_waiting gauge",
        "# TYPE vllm:kv_cache_usage_perc gauge", "vllm:cache_config_info{model_name=\"test-model\",pod=\"v-0\",block_size=\"16\",num_gpu_blocks=\"4096\"",
        "# TYPE vllm:time_to_first_token_seconds histogram",
        "vllm:time_to_first_token_seconds_bucket{model_name=\"test-model\",pod=\"v-0\",le=\"+Inf\"} 1",
        "vllm:time_to_first_token_seconds_count{model_name=\"test-model\",pod=\"v-0\"} 1",
        "vllm:time_per_output_token_seconds_count{model_name=\"test-model\",pod=\"v-0\"} 4",
        "# TYPE vllm:request_time_per_output_token_seconds histogram",
        "vllm:request_time_per_output_token_seconds_count{model_name=\"test-model\",pod=\"v-0\"} 1",
        "vllm:request_prompt_tokens_sum{model_name=\"test-model\",pod=\"v-0\"} 300",
        "vllm:request_generation_tokens_sum{model_name=\"test-model\",pod=\"v-0\"} 5",
        "vllm:request_success_total{model_name=\"test-model\",pod=\"v-0\",finished_reason=\"length\"} 1",
        "# TYPE vllm:prefix_cache_queries counter", "vllm:prefix_cache_hits_total",
        "capstan_sim:forward_pass_wall_time_seconds"}) {
    INFO(needle);
    CHECK_THAT(text, Catch::Contains(needle));
  }
}

TEST_CASE("The router renders EPP attempts per pod and the flow-control queue") {
  Fleet f(one_variant_fleet(0, 10), 1);
  f.route(request(0, 100, 5), 0);
  auto text = render_router_metrics(f.router(), "m");
  CHECK_THAT(text, Catch::Contains("inference_extension_flow_control_queue_size{model_name=\"m\"} 1"));
  CHECK_THAT(text, Catch::Contains("inference_extension_flow_control_queue_bytes{model_name=\"m\"} 400"));
  REQUIRE(f.set_desired("v", 1, 0).ok());
  while (f.next_event_s() < 100) f.process_next_event();
  text = render_router_metrics(f.router(), "m");
  CHECK_THAT(text, Catch::Contains(
                       "inference_extension_scheduler_attempts_total{model_name=\"m\",pod=\"v-0\",status=\"success\"} 1"));
  CHECK_THAT(text, Catch::Contains("inference_extension_flow_control_queue_size{model_name=\"m\"} 0"));
}
