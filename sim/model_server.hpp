// One simulated continuous-batching model server (a vLLM replica), advanced one
// scheduler iteration at a time; this is the ground truth the analyzers must learn,
// not a queueing formula.
//
// Scheduler (vLLM v1-like): running requests first, in admission order, each taking
// its remaining prefill (chunked to the token budget) or one decode token; then the
// FCFS waiting queue, while the batch is below max_num_seqs and tokens remain in
// max_num_batched_tokens. KV cache is paged (num_gpu_blocks x block_size tokens); a
// waiting request whose next chunk does not fit in free blocks waits (head of line).
// When a running request's growth overflows KV, the most recently admitted running
// request is preempted by recompute: its blocks are freed and it returns to the front
// of the waiting queue, to redo its prompt plus the tokens generated so far.
// An iteration's duration comes from the cost model (cost_model.hpp).
#pragma once

#include <deque>
#include <limits>
#include <memory>
#include <vector>

#include "sim/bounded_ring.hpp"
#include "sim/cost_model.hpp"
#include "sim/prefix_cache.hpp"
#include "sim/request.hpp"
#include "sim/rng.hpp"
#include "sim/server_metrics.hpp"

namespace capstan::sim {

struct ServerConfig {
  int max_num_seqs = 256;
  int max_num_batched_tokens = 8192;
  int num_gpu_blocks = 25000;
  int block_size = 16;
  bool enable_prefix_caching = true;
  double client_timeout_s = 0;  // waiting longer than this before the first token: abandoned; 0 = never
};

// How one request ended, for the run report.
struct RequestOutcome {
  std::uint64_t id = 0;
  double arrival_s = 0;
  double end_s = 0;
  int input_tokens = 0;
  int output_tokens = 0;
  bool failed = false;
  double ttft_s = 0;       // completed requests only
  double mean_itl_s = 0;   // mean gap between output tokens (0 for one-token answers)
  int preemptions = 0;
};

class ModelServer {
 public:
  ModelServer(ServerConfig config, HardwareProfile profile, std::uint64_t seed);

  // A request routed here at now_s. Starts an iteration at once if the server was idle.
  void enqueue(Request request, double now_s);

  // End of the iteration in flight, or +infinity when idle.
  double next_event_s() const { return in_flight_ ? iteration_end_s_ : kNever; }

  // Completes the iteration in flight (at next_event_s()) and starts the next one.
  void complete_iteration();

  // Drops waiting requests that passed the client timeout (also done at each iteration).
  void abandon_timed_out(double now_s);

  bool idle() const { return running_.empty() && waiting_.empty(); }
  int num_running() const { return static_cast<int>(running_.size()); }
  int num_waiting() const { return static_cast<int>(waiting_.size()); }
  int used_blocks() const { return used_blocks_; }
  double kv_cache_usage() const;
  // Tokens still to compute or generate for every request here (router's load signal).
  long long outstanding_tokens() const;

  const ServerConfig& config() const { return config_; }
  const HardwareProfile& profile() const { return profile_; }
  const ServerMetrics& metrics() const { return metrics_; }

  // Outcomes since the last call (completed, abandoned, rejected).
  std::vector<RequestOutcome> take_outcomes();

  // The most recent iterations since the last call (at most kRecentForwardPasses,
  // oldest first), for policies that regress iteration time on the work scheduled.
  std::vector<ForwardPass> take_recent_forward_passes() { return recent_passes_.drain(); }
  static constexpr std::size_t kRecentForwardPasses = 64;

  static constexpr double kNever = std::numeric_limits<double>::infinity();

 private:
  struct Sequence {
    Request request;
    int computed = 0;     // tokens whose KV is in cache
    int generated = 0;    // output tokens emitted
    int blocks = 0;       // KV blocks held
    bool prefix_checked = false;
    double first_token_s = -1;
    double last_token_s = 0;
    int preemptions = 0;
    int known() const { return request.input_tokens + generated; }
  };
  struct Scheduled {
    Sequence* seq;
    int num_new;
  };

  void start_iteration(double now_s);
  int blocks_for(int tokens) const;
  void preempt(std::unique_ptr<Sequence> victim);
  void fail(const Sequence& seq, double now_s);
  void finish(const Sequence& seq, double now_s);
  void check_prefix(Sequence& seq);

  ServerConfig config_;
  HardwareProfile profile_;
  Rng rng_;
  PrefixCache prefix_cache_;
  ServerMetrics metrics_;
  std::deque<std::unique_ptr<Sequence>> waiting_;
  std::vector<std::unique_ptr<Sequence>> running_;
  std::vector<Scheduled> batch_;
  int used_blocks_ = 0;
  bool in_flight_ = false;
  double iteration_end_s_ = 0;
  std::vector<RequestOutcome> outcomes_;
  BoundedRing<ForwardPass> recent_passes_{kRecentForwardPasses};
};

}  // namespace capstan::sim
