// Windowed PodMetrics from cumulative counters; see pod_snapshot.hpp.
#include "sim/pod_snapshot.hpp"

namespace capstan::sim {

namespace {
double ratio(double num, std::uint64_t den) { return den > 0 ? num / static_cast<double>(den) : 0; }
}  // namespace

CounterSample sample_counters(const Replica& replica, const Router& router, double now_s) {
  const auto& m = replica.server().metrics();
  CounterSample s;
  s.time_s = now_s;
  s.routed = router.attempts_success(replica.name());
  s.ttft_sum_s = m.time_to_first_token_s.sum();
  s.ttft_count = m.time_to_first_token_s.count();
  s.itl_sum_s = m.time_per_output_token_s.sum();
  s.itl_count = m.time_per_output_token_s.count();
  s.prompt_tokens_sum = m.request_prompt_tokens.sum();
  s.prompt_count = m.request_prompt_tokens.count();
  s.generation_tokens_sum = m.request_generation_tokens.sum();
  s.generation_count = m.request_generation_tokens.count();
  s.request_itl_buckets = m.request_time_per_output_token_s.bucket_counts();
  s.request_itl_sum_s = m.request_time_per_output_token_s.sum();
  return s;
}

PodMetrics pod_metrics(const Replica& replica, const CounterSample& before,
                       const CounterSample& now) {
  PodMetrics p;
  p.pod = replica.name();
  const double window_s = now.time_s - before.time_s;
  if (window_s > 0) p.arrival_rate_rps = static_cast<double>(now.routed - before.routed) / window_s;
  p.avg_ttft_ms = 1000.0 * ratio(now.ttft_sum_s - before.ttft_sum_s, now.ttft_count - before.ttft_count);
  p.avg_itl_ms = 1000.0 * ratio(now.itl_sum_s - before.itl_sum_s, now.itl_count - before.itl_count);
  p.avg_input_tokens =
      ratio(now.prompt_tokens_sum - before.prompt_tokens_sum, now.prompt_count - before.prompt_count);
  p.avg_output_tokens = ratio(now.generation_tokens_sum - before.generation_tokens_sum,
                              now.generation_count - before.generation_count);
  // A replica's first window starts from zero counts.
  const std::vector<double>& bounds_s = replica.server().metrics().request_time_per_output_token_s.upper_bounds();
  const bool from_zero = before.request_itl_buckets.empty();
  if ((from_zero || now.request_itl_buckets.size() == before.request_itl_buckets.size()) &&
      bounds_s.size() + 1 == now.request_itl_buckets.size()) {
    WindowHistogram& h = p.request_itl;
    double cumulative = 0;
    for (std::size_t i = 0; i < now.request_itl_buckets.size(); ++i) {
      cumulative += static_cast<double>(now.request_itl_buckets[i] - (from_zero ? 0 : before.request_itl_buckets[i]));
      if (i < bounds_s.size()) {
        h.upper_bounds_ms.push_back(1000.0 * bounds_s[i]);
        h.cumulative.push_back(cumulative);
      }
    }
    h.count = cumulative;
    h.sum_ms = 1000.0 * (now.request_itl_sum_s - before.request_itl_sum_s);
  }
  const auto& server = replica.server();
  p.kv_usage = server.kv_cache_usage();
  p.queue_length = server.num_waiting();
  p.running = server.num_running();
  p.ready = replica.ready();
  p.seconds_since_start = now.time_s - replica.created_s();
  return p;
}

}  // namespace capstan::sim
