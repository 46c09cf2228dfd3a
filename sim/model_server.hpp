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
//
// In a disaggregated fleet a server has a role. A prefill server stops a request at
// its first token (TTFT is measured there): it keeps the prompt's KV blocks, offers
// the request as a hand-off (take_handoffs()) and frees the blocks when the router
// says the transfer to a decode server is done (release_handoff_at()). A decode
// server takes a hand-off with its prompt KV already computed (accept_handoff()): it
// arrives when the transfer is done, is admitted FCFS like any request (blocks for the
// prompt plus the tokens generated, no prefill compute) and generates the remaining
// tokens. A decode server computes prompt tokens only to recompute a preempted request.
#pragma once

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <vector>

#include "domain/core/types.hpp"
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
  Role role = Role::kBoth;      // set from the variant's role by the fleet
};

// A request whose prompt a prefill server has computed and whose first token it has
// emitted, on its way to a decode server.
struct Handoff {
  Request request;
  double first_token_s = 0;
  int preemptions = 0;          // on the prefill server so far
  std::uint64_t key = 0;        // the prefill server's name for the KV blocks it holds
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

  // End of the iteration in flight or the next hand-off event, +infinity when idle.
  double next_event_s() const { return std::min(in_flight_ ? iteration_end_s_ : kNever, next_handoff_s()); }

  // Completes the iteration in flight and starts the next one.
  void complete_iteration();
  // Processes the event at next_event_s(): a hand-off event (KV freed after a transfer,
  // or a transferred request arriving) before an iteration ending at the same time.
  void process_next_event();

  // Prefill role: the requests that got their first token since the last call. Their
  // KV blocks stay held until release_handoff_at() (e.g. while no decode server is ready).
  std::vector<Handoff> take_handoffs();
  // Prefill role: the transfer of hand-off `key` ends at release_s; its blocks are freed then.
  void release_handoff_at(std::uint64_t key, double release_s);
  // Decode role: a hand-off whose KV transfer starts now and ends at arrive_s. False
  // (and the request fails) when prompt + output can never fit in this server's KV.
  bool accept_handoff(Handoff handoff, double now_s, double arrive_s);

  // Drops waiting requests that passed the client timeout (also done at each iteration).
  void abandon_timed_out(double now_s);

  bool idle() const { return running_.empty() && waiting_.empty() && held_.empty() && incoming_.empty(); }
  int num_running() const { return static_cast<int>(running_.size()); }
  int num_waiting() const { return static_cast<int>(waiting_.size()); }
  // Prefill role: hand-offs whose KV is still here (awaiting a decode server or in transfer).
  int num_handoffs_held() const { return static_cast<int>(held_.size()); }
  // Decode role: hand-offs accepted whose KV transfer has not ended yet.
  int num_handoffs_incoming() const { return static_cast<int>(incoming_.size()); }
  int used_blocks() const { return used_blocks_; }
  double kv_cache_usage() const;
  // Tokens still to compute or generate for every request here (router's load signal);
  // a prefill server counts prompt tokens only, a decode server its incoming hand-offs too.
  // A running count, kept as requests arrive, progress and leave: the router asks it
  // for every replica at every request, so it must not walk the requests.
  long long outstanding_tokens() const { return outstanding_tokens_; }
  // The same figure summed over every request (for tests of the running count).
  long long recount_outstanding_tokens() const;

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
  // A sequence's share of outstanding_tokens(); `computed` counts against it 1 for 1.
  long long work(const Sequence& s) const {
    const bool prompt_only = config_.role == Role::kPrefill;  // never generates past the first token
    return (s.known() - s.computed) + (prompt_only ? 0 : s.request.output_tokens - s.generated);
  }
  struct Scheduled {
    Sequence* seq;
    int num_new;
  };

  double next_handoff_s() const {
    const double release = releases_.empty() ? kNever : releases_.begin()->first;
    const double arrival = incoming_.empty() ? kNever : incoming_.begin()->first;
    return std::min(release, arrival);
  }
  void start_iteration(double now_s);
  void hand_off(std::unique_ptr<Sequence> seq, double now_s);
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
  long long outstanding_tokens_ = 0;  // sum of work() over running_, waiting_ and incoming_
  bool in_flight_ = false;
  double iteration_end_s_ = 0;
  std::vector<RequestOutcome> outcomes_;
  // Disaggregation: prefill side (held KV by key, release times) and decode side
  // (transfers in flight by arrival time; equal times keep their insertion order).
  std::map<std::uint64_t, std::unique_ptr<Sequence>> held_;
  std::multimap<double, std::uint64_t> releases_;
  std::multimap<double, std::unique_ptr<Sequence>> incoming_;
  std::vector<Handoff> handoffs_;
  std::uint64_t handoffs_made_ = 0;
  BoundedRing<ForwardPass> recent_passes_{kRecentForwardPasses};
};

}  // namespace capstan::sim
