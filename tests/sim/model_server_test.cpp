#include "sim/model_server.hpp"

#include <algorithm>
#include <map>

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"

using namespace capstan::sim;
using capstan::sim::testing::request;
using capstan::sim::testing::simple_profile;

namespace {

ServerConfig small_server(int seqs, int budget, int blocks) {
  ServerConfig c;
  c.max_num_seqs = seqs;
  c.max_num_batched_tokens = budget;
  c.num_gpu_blocks = blocks;
  c.block_size = 16;
  return c;
}

// Runs every iteration, checking the scheduler's invariants after each one.
void run_checked(ModelServer& s) {
  while (s.next_event_s() < ModelServer::kNever) {
    s.complete_iteration();
    const auto& fp = s.metrics().last_forward_pass;
    REQUIRE(s.used_blocks() <= s.config().num_gpu_blocks);
    REQUIRE(s.used_blocks() >= 0);
    REQUIRE(s.num_running() <= s.config().max_num_seqs);
    REQUIRE(fp.running_requests <= s.config().max_num_seqs);
    REQUIRE(fp.scheduled_prefill_tokens + fp.scheduled_decode_requests <= s.config().max_num_batched_tokens);
  }
}

}  // namespace

TEST_CASE("Scheduler never over-commits KV and respects batch and token-budget limits") {
  ModelServer s(small_server(8, 512, 200), simple_profile(0.05), 7);
  for (int i = 0; i < 60; ++i) {
    auto r = request(0.01 * i, 100 + 37 * (i % 9), 20 + 11 * (i % 7));
    r.id = static_cast<std::uint64_t>(i);
    s.enqueue(r, r.arrival_s);
  }
  run_checked(s);
  CHECK(s.idle());
  CHECK(s.used_blocks() == 0);
  const auto out = s.take_outcomes();
  CHECK(out.size() == 60);
  CHECK(std::none_of(out.begin(), out.end(), [](const RequestOutcome& o) { return o.failed; }));
  CHECK(s.metrics().request_success_total == 60);
}

TEST_CASE("Chunked prefill splits a long prompt over several iterations") {
  ModelServer s(small_server(8, 256, 1000), simple_profile(), 1);
  s.enqueue(request(0, 1000, 2), 0);
  s.complete_iteration();
  CHECK(s.metrics().last_forward_pass.scheduled_prefill_tokens == 256);
  CHECK(s.metrics().time_to_first_token_s.count() == 0);
  run_checked(s);
  CHECK(s.metrics().iterations_total == 4 + 1);  // ceil(1000 / 256) prefills, one decode
}

TEST_CASE("Waiting requests are admitted first come, first served") {
  // Equal requests, a batch of two: first tokens come in arrival order.
  ModelServer s(small_server(2, 4096, 1000), simple_profile(), 1);
  for (int i = 0; i < 10; ++i) {
    auto r = request(0.001 * i, 200, 10);
    r.id = static_cast<std::uint64_t>(i);
    s.enqueue(r, r.arrival_s);
  }
  run_checked(s);
  auto out = s.take_outcomes();
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.id < b.id; });
  for (std::size_t i = 1; i < out.size(); ++i)
    CHECK(out[i].arrival_s + out[i].ttft_s >= out[i - 1].arrival_s + out[i - 1].ttft_s);
}

TEST_CASE("A request that does not fit in KV waits instead of being admitted") {
  // 20 blocks = 320 tokens: the second 300-token prompt cannot be admitted beside the first.
  ModelServer s(small_server(8, 4096, 20), simple_profile(), 1);
  s.enqueue(request(0, 300, 5), 0);
  s.enqueue(request(0, 300, 5), 0);
  CHECK(s.num_running() == 1);
  CHECK(s.num_waiting() == 1);
  run_checked(s);
  CHECK(s.metrics().request_success_total == 2);
}

TEST_CASE("Decode growth that overflows KV preempts the newest request by recompute") {
  // 64 blocks = 1024 tokens; 8 requests that each grow to 300 tokens need 2400.
  ModelServer s(small_server(16, 4096, 64), simple_profile(), 1);
  for (int i = 0; i < 8; ++i) s.enqueue(request(0, 100, 200), 0);
  run_checked(s);
  CHECK(s.metrics().num_preemptions_total > 0);
  CHECK(s.metrics().request_success_total == 8);
  const auto out = s.take_outcomes();
  CHECK(std::any_of(out.begin(), out.end(), [](const RequestOutcome& o) { return o.preemptions > 0; }));
  // The oldest request is never the victim while newer ones run.
  CHECK(std::min_element(out.begin(), out.end(), [](auto& a, auto& b) { return a.end_s < b.end_s; })
            ->preemptions == 0);
}

TEST_CASE("Iteration time follows the cost model") {
  auto p = simple_profile();
  ModelServer s(small_server(8, 4096, 1000), p, 1);
  s.enqueue(request(0, 1000, 2), 0);
  CHECK(s.next_event_s() == Approx((10 + 0.05 * 1000) / 1000.0));
  s.complete_iteration();
  // One decode reading 1000 KV tokens.
  CHECK(s.metrics().last_forward_pass.wall_time_ms == Approx(10 + 0.05 + 0.0001 * 1000));
}

TEST_CASE("Prefix-cache hits skip prefill compute for the shared leading blocks") {
  ModelServer s(small_server(8, 8192, 4000), simple_profile(), 1);
  auto a = request(0, 2048, 1);
  a.hash_ids = {1, 2, 3, 4};
  s.enqueue(a, 0);
  run_checked(s);
  auto b = request(1, 2048, 1);
  b.hash_ids = {1, 2, 9, 10};
  s.enqueue(b, 1);
  CHECK(s.metrics().last_forward_pass.scheduled_prefill_tokens == 2048 - 2 * 512);
  run_checked(s);
  CHECK(s.metrics().prefix_cache_queries == 4096);
  CHECK(s.metrics().prefix_cache_hits == 1024);
}

TEST_CASE("Requests waiting past the client timeout are abandoned as failures") {
  auto cfg = small_server(1, 4096, 1000);
  cfg.client_timeout_s = 1.0;
  ModelServer s(cfg, simple_profile(), 1);
  s.enqueue(request(0, 100, 200), 0);  // occupies the only slot for ~2 s
  s.enqueue(request(0, 100, 5), 0);    // waits past 1 s
  run_checked(s);
  const auto out = s.take_outcomes();
  REQUIRE(out.size() == 2);
  CHECK(std::count_if(out.begin(), out.end(), [](auto& o) { return o.failed; }) == 1);
  CHECK(s.metrics().request_failure_total == 1);
}

TEST_CASE("A request longer than the whole KV cache is rejected as a failure") {
  ModelServer s(small_server(8, 4096, 10), simple_profile(), 1);
  s.enqueue(request(0, 1000, 10), 0);
  const auto out = s.take_outcomes();
  REQUIRE(out.size() == 1);
  CHECK(out[0].failed);
}
