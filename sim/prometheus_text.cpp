// Prometheus text exposition of simulated vLLM and EPP metrics; see prometheus_text.hpp.
#include "sim/prometheus_text.hpp"

#include <sstream>

namespace capstan::sim {

namespace {

std::string fmt(double v) {
  std::ostringstream o;
  o.precision(17);
  o << v;
  return o.str();
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

class Writer {
 public:
  explicit Writer(std::string labels) : labels_(std::move(labels)) {}

  void header(const std::string& name, const char* type, const std::string& help) {
    out_ << "# HELP " << name << ' ' << help << "\n# TYPE " << name << ' ' << type << '\n';
  }
  void sample(const std::string& name, double v, const std::string& extra = "") {
    out_ << name << '{' << labels_ << (extra.empty() ? "" : "," + extra) << "} " << fmt(v) << '\n';
  }
  void gauge(const std::string& name, const std::string& help, double v) {
    header(name, "gauge", help);
    sample(name, v);
  }
  void counter(const std::string& name, const std::string& help, double v) {
    header(name, "counter", help);
    sample(name + "_total", v);
  }
  void histogram(const std::string& name, const std::string& help, const Histogram& h) {
    header(name, "histogram", help);
    std::uint64_t cumulative = 0;
    for (std::size_t i = 0; i < h.upper_bounds().size(); ++i) {
      cumulative += h.bucket_counts()[i];
      sample(name + "_bucket", static_cast<double>(cumulative), "le=\"" + fmt(h.upper_bounds()[i]) + "\"");
    }
    sample(name + "_bucket", static_cast<double>(h.count()), "le=\"+Inf\"");
    sample(name + "_sum", h.sum());
    sample(name + "_count", static_cast<double>(h.count()));
  }
  std::string str() const { return out_.str(); }

 private:
  std::string labels_;
  std::ostringstream out_;
};

}  // namespace

std::string render_replica_metrics(const Replica& replica, const std::string& model_name) {
  const auto& server = replica.server();
  const auto& m = server.metrics();
  const auto& cfg = server.config();
  Writer w("model_name=\"" + escape(model_name) + "\",pod=\"" + escape(replica.name()) + "\"");
  w.gauge("vllm:num_requests_running", "Number of requests in model execution batches.", server.num_running());
  w.gauge("vllm:num_requests_waiting", "Number of requests waiting to be processed.", server.num_waiting());
  w.gauge("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", server.kv_cache_usage());
  w.header("vllm:cache_config_info", "gauge", "Information of the LLMEngine CacheConfig.");
  w.sample("vllm:cache_config_info", 1,
           "block_size=\"" + std::to_string(cfg.block_size) + "\",num_gpu_blocks=\"" +
               std::to_string(cfg.num_gpu_blocks) + "\",enable_prefix_caching=\"" +
               (cfg.enable_prefix_caching ? "True" : "False") + "\"");
  w.histogram("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.",
              m.time_to_first_token_s);
  w.histogram("vllm:time_per_output_token_seconds", "Histogram of time per output token in seconds.",
              m.time_per_output_token_s);
  w.histogram("vllm:request_time_per_output_token_seconds",
              "Histogram of time_per_output_token_seconds per request.", m.request_time_per_output_token_s);
  w.histogram("vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.",
              m.e2e_request_latency_s);
  w.histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.", m.request_prompt_tokens);
  w.histogram("vllm:request_generation_tokens", "Number of generation tokens processed.",
              m.request_generation_tokens);
  w.header("vllm:request_success", "counter", "Count of successfully processed requests.");
  w.sample("vllm:request_success_total", static_cast<double>(m.request_success_total),
           "finished_reason=\"length\"");
  w.counter("vllm:num_preemptions", "Cumulative number of preemptions.", static_cast<double>(m.num_preemptions_total));
  w.counter("vllm:prompt_tokens", "Number of prefill tokens computed.", static_cast<double>(m.prompt_tokens_total));
  w.counter("vllm:generation_tokens", "Number of generation tokens processed.",
            static_cast<double>(m.generation_tokens_total));
  w.counter("vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
            static_cast<double>(m.prefix_cache_queries));
  w.counter("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
            static_cast<double>(m.prefix_cache_hits));
  const auto& fp = m.last_forward_pass;
  w.gauge("capstan_sim:forward_pass_wall_time_seconds", "Wall time of the last forward pass.", fp.wall_time_ms / 1000.0);
  w.gauge("capstan_sim:forward_pass_scheduled_prefill_tokens", "Prefill tokens in the last forward pass.",
          static_cast<double>(fp.scheduled_prefill_tokens));
  w.gauge("capstan_sim:forward_pass_decode_kv_tokens", "KV tokens read by decodes in the last forward pass.",
          static_cast<double>(fp.decode_kv_tokens));
  w.gauge("capstan_sim:forward_pass_queued_requests", "Requests waiting when the last forward pass was scheduled.",
          fp.queued_requests);
  w.counter("capstan_sim:forward_passes", "Forward passes executed.", static_cast<double>(m.iterations_total));
  w.counter("capstan_sim:forward_pass_busy_seconds", "Sum of forward-pass wall times.", m.busy_time_s);
  return w.str();
}

std::string render_router_metrics(const Router& router, const std::string& model_name) {
  Writer w("model_name=\"" + escape(model_name) + "\"");
  w.header("inference_extension_scheduler_attempts_total", "counter",
           "Scheduling attempts per selected endpoint and status.");
  for (const auto& [pod, n] : router.attempts_success())
    w.sample("inference_extension_scheduler_attempts_total", static_cast<double>(n),
             "pod=\"" + escape(pod) + "\",status=\"success\"");
  w.gauge("inference_extension_flow_control_queue_size", "Requests held in the flow-control queue.",
          static_cast<double>(router.queue_size()));
  w.gauge("inference_extension_flow_control_queue_bytes", "Bytes held in the flow-control queue.",
          static_cast<double>(router.queue_bytes()));
  w.gauge("capstan_sim:decode_queue_size", "Prefilled requests waiting for a ready decode replica (disaggregated fleets).",
          static_cast<double>(router.decode_queue_size()));
  return w.str();
}

}  // namespace capstan::sim
