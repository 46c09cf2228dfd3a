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

namespace {

// Runs every event (iterations and hand-off events) until the server has none.
void run_events(ModelServer& s) {
  while (s.next_event_s() < ModelServer::kNever) {
    s.process_next_event();
    REQUIRE(s.used_blocks() <= s.config().num_gpu_blocks);
    REQUIRE(s.used_blocks() >= 0);
  }
}

}  // namespace

TEST_CASE("A prefill server stops at the first token and holds the prompt's KV until released") {
  auto cfg = small_server(8, 4096, 1000);
  cfg.role = capstan::Role::kPrefill;
  ModelServer s(cfg, simple_profile(), 1);
  s.enqueue(request(0, 320, 50), 0);
  run_events(s);  // one prefill iteration, then nothing until the release is known
  CHECK(s.metrics().iterations_total == 1);
  CHECK(s.metrics().time_to_first_token_s.count() == 1);
  CHECK(s.metrics().generation_tokens_total == 1);
  CHECK(s.take_outcomes().empty());
  auto handoffs = s.take_handoffs();
  REQUIRE(handoffs.size() == 1);
  CHECK(handoffs[0].first_token_s == Approx(0.026));
  CHECK(s.num_handoffs_held() == 1);
  CHECK(s.used_blocks() == 20);
  CHECK(s.outstanding_tokens() == 0);  // nothing left to compute here
  CHECK_FALSE(s.idle());
  s.release_handoff_at(handoffs[0].key, 0.5);
  CHECK(s.next_event_s() == 0.5);
  run_events(s);
  CHECK(s.used_blocks() == 0);
  CHECK(s.idle());
}

TEST_CASE("A prefill server admits a request blocked on held KV once a transfer frees it") {
  // 30 blocks: the first prompt's 20 are held, so the second prompt (20) waits.
  auto cfg = small_server(8, 4096, 30);
  cfg.role = capstan::Role::kPrefill;
  ModelServer s(cfg, simple_profile(), 1);
  s.enqueue(request(0, 320, 50), 0);
  run_events(s);
  s.enqueue(request(0.1, 320, 50), 0.1);
  CHECK(s.num_waiting() == 1);
  CHECK(s.next_event_s() == ModelServer::kNever);
  s.release_handoff_at(s.take_handoffs()[0].key, 1.0);
  run_events(s);
  CHECK(s.take_handoffs().size() == 1);
  CHECK(s.metrics().time_to_first_token_s.sum() == Approx(0.026 + (1.0 + 0.026 - 0.1)));
}

TEST_CASE("A decode server takes a hand-off with its prompt KV present and only decodes") {
  auto cfg = small_server(8, 4096, 1000);
  cfg.role = capstan::Role::kDecode;
  ModelServer s(cfg, simple_profile(), 1);
  Handoff h;
  h.request = request(0, 1000, 5);
  h.first_token_s = 0.06;
  REQUIRE(s.accept_handoff(h, 0.06, 0.2));
  CHECK(s.num_handoffs_incoming() == 1);
  CHECK(s.outstanding_tokens() == 5);
  CHECK(s.next_event_s() == 0.2);
  run_events(s);
  CHECK(s.metrics().iterations_total == 4);
  CHECK(s.metrics().prompt_tokens_total == 0);
  CHECK(s.metrics().time_to_first_token_s.count() == 0);
  CHECK(s.metrics().time_per_output_token_s.count() == 4);
  const auto out = s.take_outcomes();
  REQUIRE(out.size() == 1);
  CHECK(out[0].ttft_s == Approx(0.06));
  const double step_s = (10 + 0.05 + 0.0001 * 1000) / 1000.0;  // about, the context grows by a token per step
  CHECK(out[0].end_s == Approx(0.2 + 4 * step_s).epsilon(1e-3));
  CHECK(out[0].mean_itl_s == Approx((out[0].end_s - 0.06) / 4));
  CHECK(s.used_blocks() == 0);
}

TEST_CASE("A decode server fails a hand-off that can never fit in its KV cache") {
  auto cfg = small_server(8, 4096, 10);
  cfg.role = capstan::Role::kDecode;
  ModelServer s(cfg, simple_profile(), 1);
  Handoff h;
  h.request = request(0, 150, 20);
  CHECK_FALSE(s.accept_handoff(h, 0.1, 0.2));
  const auto out = s.take_outcomes();
  REQUIRE(out.size() == 1);
  CHECK(out[0].failed);
  CHECK(s.idle());
}

TEST_CASE("The running count of outstanding tokens equals a recount through preemptions, prefix hits, timeouts and hand-offs") {
  // Tight KV (preemption by recompute), shared prefixes (cache hits), a client timeout
  // (abandoned waiting requests), and each role: after every event the running count
  // must equal the sum over every request, or routing would change.
  std::uint64_t preemptions = 0;
  for (const capstan::Role role : {capstan::Role::kBoth, capstan::Role::kPrefill, capstan::Role::kDecode}) {
    auto cfg = small_server(6, 512, 120);
    cfg.role = role;
    cfg.client_timeout_s = 0.8;
    ModelServer s(cfg, simple_profile(0.1), 3);
    Rng rng(11);
    double now = 0;
    const auto step = [&s] {
      const double t = s.next_event_s();
      s.process_next_event();
      REQUIRE(s.outstanding_tokens() == s.recount_outstanding_tokens());
      for (const auto& h : s.take_handoffs()) s.release_handoff_at(h.key, t + 0.05);
    };
    for (int i = 0; i < 400; ++i) {
      now += rng.exponential(40);
      while (s.next_event_s() <= now) step();
      Request r = request(now, 100 + static_cast<int>(rng.uniform() * 600), 1 + static_cast<int>(rng.uniform() * 80));
      r.hash_ids = {1, 2, static_cast<std::uint64_t>(3 + i % 4)};
      if (role == capstan::Role::kDecode) {
        Handoff h;
        h.request = r;
        h.first_token_s = now;
        s.accept_handoff(h, now, now + 0.01);
      } else {
        s.enqueue(r, now);
      }
      REQUIRE(s.outstanding_tokens() == s.recount_outstanding_tokens());
      s.abandon_timed_out(now);
      REQUIRE(s.outstanding_tokens() == s.recount_outstanding_tokens());
    }
    while (s.next_event_s() < ModelServer::kNever) step();
    preemptions += s.metrics().num_preemptions_total;
    CHECK(s.outstanding_tokens() == 0);
  }
  CHECK(preemptions > 0);  // the tight KV made some server recompute
}
