// Iteration-level continuous-batching server; see model_server.hpp.
#include "sim/model_server.hpp"

#include <algorithm>

namespace capstan::sim {

ModelServer::ModelServer(ServerConfig config, HardwareProfile profile, std::uint64_t seed)
    : config_(config),
      profile_(std::move(profile)),
      rng_(seed),
      prefix_cache_(config.enable_prefix_caching
                        ? static_cast<std::size_t>(config.num_gpu_blocks) * config.block_size /
                              kPrefixBlockTokens
                        : 0),
      metrics_(std::min(config.num_gpu_blocks * config.block_size, 1 << 20)) {}

int ModelServer::blocks_for(int tokens) const {
  return (tokens + config_.block_size - 1) / config_.block_size;
}

double ModelServer::kv_cache_usage() const {
  return config_.num_gpu_blocks > 0 ? static_cast<double>(used_blocks_) / config_.num_gpu_blocks : 0;
}

long long ModelServer::recount_outstanding_tokens() const {
  long long total = 0;
  for (const auto& s : running_) total += work(*s);
  for (const auto& s : waiting_) total += work(*s);
  for (const auto& [arrive_s, s] : incoming_) total += work(*s);
  return total;
}

void ModelServer::enqueue(Request request, double now_s) {
  ++metrics_.arrivals_total;
  auto seq = std::make_unique<Sequence>();
  seq->request = std::move(request);
  seq->request.output_tokens = std::max(1, seq->request.output_tokens);
  seq->request.input_tokens = std::max(1, seq->request.input_tokens);
  const long long capacity = static_cast<long long>(config_.num_gpu_blocks) * config_.block_size;
  if (seq->request.input_tokens + seq->request.output_tokens > capacity) {
    fail(*seq, now_s);  // can never fit, as vLLM rejects prompts over max_model_len
    return;
  }
  outstanding_tokens_ += work(*seq);
  waiting_.push_back(std::move(seq));
  if (!in_flight_) start_iteration(now_s);
}

bool ModelServer::accept_handoff(Handoff handoff, double now_s, double arrive_s) {
  ++metrics_.arrivals_total;
  auto seq = std::make_unique<Sequence>();
  seq->request = std::move(handoff.request);
  seq->preemptions = handoff.preemptions;
  seq->first_token_s = handoff.first_token_s;
  const long long capacity = static_cast<long long>(config_.num_gpu_blocks) * config_.block_size;
  if (seq->request.input_tokens + seq->request.output_tokens > capacity) {
    fail(*seq, now_s);
    return false;
  }
  // The prompt's KV comes with it and the first token is out: what is left is one
  // decode step per remaining token, starting with the first token's own KV.
  seq->computed = seq->request.input_tokens;
  seq->generated = 1;
  seq->prefix_checked = true;
  outstanding_tokens_ += work(*seq);
  incoming_.emplace(arrive_s, std::move(seq));
  return true;
}

void ModelServer::release_handoff_at(std::uint64_t key, double release_s) {
  if (held_.count(key) > 0) releases_.emplace(release_s, key);
}

std::vector<Handoff> ModelServer::take_handoffs() {
  std::vector<Handoff> out;
  out.swap(handoffs_);
  return out;
}

void ModelServer::hand_off(std::unique_ptr<Sequence> seq, double now_s) {
  // The prefill server's part of the request is done, as vLLM reports a max_tokens=1 request.
  ++metrics_.request_success_total;
  metrics_.e2e_request_latency_s.observe(now_s - seq->request.arrival_s);
  metrics_.request_prompt_tokens.observe(seq->request.input_tokens);
  metrics_.request_generation_tokens.observe(seq->generated);
  outstanding_tokens_ -= work(*seq);
  const std::uint64_t key = ++handoffs_made_;
  handoffs_.push_back({seq->request, seq->first_token_s, seq->preemptions, key});
  held_.emplace(key, std::move(seq));
}

void ModelServer::process_next_event() {
  const double t_iteration = in_flight_ ? iteration_end_s_ : kNever;
  const double t_handoff = next_handoff_s();
  if (t_handoff == kNever || t_handoff > t_iteration) {
    complete_iteration();
    return;
  }
  if (!releases_.empty() && releases_.begin()->first <= t_handoff) {
    const auto held = held_.find(releases_.begin()->second);
    releases_.erase(releases_.begin());
    used_blocks_ -= held->second->blocks;
    held_.erase(held);
  } else {
    auto node = incoming_.extract(incoming_.begin());
    // The decode server's first inter-token gap starts when the request reaches it:
    // the transfer is not decode work (the request's own mean ITL still includes it).
    node.mapped()->last_token_s = t_handoff;
    waiting_.push_back(std::move(node.mapped()));
  }
  if (!in_flight_ && !waiting_.empty()) start_iteration(t_handoff);
}

void ModelServer::abandon_timed_out(double now_s) {
  if (config_.client_timeout_s <= 0) return;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const auto& s = **it;
    if (s.first_token_s < 0 && now_s - s.request.arrival_s > config_.client_timeout_s) {
      used_blocks_ -= s.blocks;
      outstanding_tokens_ -= work(s);
      fail(s, now_s);
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
}

void ModelServer::check_prefix(Sequence& seq) {
  if (seq.prefix_checked || seq.computed > 0) return;
  seq.prefix_checked = true;
  if (!config_.enable_prefix_caching || seq.request.hash_ids.empty()) return;
  metrics_.prefix_cache_queries += static_cast<std::uint64_t>(seq.request.input_tokens);
  const int hit_blocks = prefix_cache_.lookup(seq.request.hash_ids);
  // At least the last prompt token is always computed, to produce the first output.
  const int cached = std::min(hit_blocks * kPrefixBlockTokens, seq.known() - 1);
  metrics_.prefix_cache_hits += static_cast<std::uint64_t>(cached);
  outstanding_tokens_ -= cached - seq.computed;
  seq.computed = cached;
}

void ModelServer::preempt(std::unique_ptr<Sequence> victim) {
  used_blocks_ -= victim->blocks;
  outstanding_tokens_ += victim->computed;
  victim->blocks = 0;
  victim->computed = 0;
  victim->prefix_checked = false;
  ++victim->preemptions;
  ++metrics_.num_preemptions_total;
  waiting_.push_front(std::move(victim));
}

void ModelServer::start_iteration(double now_s) {
  abandon_timed_out(now_s);
  batch_.clear();
  const int queued_at_start = num_waiting();
  int budget = config_.max_num_batched_tokens;
  bool preempted = false;
  for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
    Sequence& seq = *running_[i];
    const int num_new = std::min(seq.known() - seq.computed, budget);
    const int need = blocks_for(seq.computed + num_new) - seq.blocks;
    while (need > config_.num_gpu_blocks - used_blocks_ && running_.size() > i + 1) {
      auto victim = std::move(running_.back());
      running_.pop_back();
      preempt(std::move(victim));
      preempted = true;
    }
    if (need > config_.num_gpu_blocks - used_blocks_) {
      auto self = std::move(running_[i]);
      running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
      preempt(std::move(self));
      preempted = true;
      break;
    }
    seq.blocks += need;
    used_blocks_ += need;
    batch_.push_back({&seq, num_new});
    budget -= num_new;
  }
  while (!preempted && !waiting_.empty() && budget > 0 &&
         num_running() < config_.max_num_seqs) {
    Sequence& seq = *waiting_.front();
    check_prefix(seq);
    const int num_new = std::min(seq.known() - seq.computed, budget);
    const int need = blocks_for(seq.computed + num_new) - seq.blocks;
    if (need > config_.num_gpu_blocks - used_blocks_) break;  // waits for KV, FCFS
    seq.blocks += need;
    used_blocks_ += need;
    batch_.push_back({&seq, num_new});
    budget -= num_new;
    running_.push_back(std::move(waiting_.front()));
    waiting_.pop_front();
  }
  if (batch_.empty()) {
    in_flight_ = false;
    return;
  }
  IterationWork work;
  ForwardPass pass;
  for (const auto& [seq, num_new] : batch_) {
    work.scheduled_tokens += num_new;
    const bool decode = seq->generated > 0 && seq->known() - seq->computed == 1;
    if (decode) {
      work.decode_kv_tokens += seq->computed;
      ++pass.scheduled_decode_requests;
    } else {
      work.prefill_tokens += num_new;
      work.prefill_attention_token2 +=
          static_cast<double>(num_new) * static_cast<double>(seq->computed + num_new);
    }
  }
  pass.start_s = now_s;
  pass.wall_time_ms = sample_iteration_ms(profile_, work, rng_);
  pass.scheduled_prefill_tokens = work.prefill_tokens;
  pass.decode_kv_tokens = work.decode_kv_tokens;
  pass.queued_requests = queued_at_start;
  pass.running_requests = static_cast<int>(batch_.size());
  metrics_.last_forward_pass = pass;
  recent_passes_.push(pass);
  ++metrics_.iterations_total;
  metrics_.busy_time_s += pass.wall_time_ms / 1000.0;
  metrics_.prompt_tokens_total += static_cast<std::uint64_t>(work.prefill_tokens);
  in_flight_ = true;
  iteration_end_s_ = now_s + pass.wall_time_ms / 1000.0;
}

void ModelServer::complete_iteration() {
  if (!in_flight_) return;
  const double now_s = iteration_end_s_;
  const bool prompt_only = config_.role == Role::kPrefill;
  for (const auto& [seq, num_new] : batch_) {
    seq->computed += num_new;
    outstanding_tokens_ -= num_new;
    if (seq->computed < seq->known()) continue;  // prefill chunk, no token yet
    if (prompt_only) ++outstanding_tokens_;  // the new token is known, not yet computed
    if (seq->generated == 0) {
      seq->first_token_s = now_s;
      metrics_.time_to_first_token_s.observe(now_s - seq->request.arrival_s);
      if (config_.enable_prefix_caching) prefix_cache_.insert(seq->request.hash_ids);
    } else {
      metrics_.time_per_output_token_s.observe(now_s - seq->last_token_s);
    }
    seq->last_token_s = now_s;
    ++seq->generated;
    ++metrics_.generation_tokens_total;
  }
  batch_.clear();
  std::vector<std::unique_ptr<Sequence>> still_running;
  still_running.reserve(running_.size());
  for (auto& seq : running_) {
    if (seq->generated >= seq->request.output_tokens) {
      used_blocks_ -= seq->blocks;
      outstanding_tokens_ -= work(*seq);
      finish(*seq, now_s);
    } else if (config_.role == Role::kPrefill && seq->generated > 0) {
      hand_off(std::move(seq), now_s);
    } else {
      still_running.push_back(std::move(seq));
    }
  }
  running_ = std::move(still_running);
  in_flight_ = false;
  if (!idle()) start_iteration(now_s);
}

void ModelServer::finish(const Sequence& seq, double now_s) {
  ++metrics_.request_success_total;
  metrics_.e2e_request_latency_s.observe(now_s - seq.request.arrival_s);
  metrics_.request_prompt_tokens.observe(seq.request.input_tokens);
  metrics_.request_generation_tokens.observe(seq.request.output_tokens);
  RequestOutcome o;
  o.id = seq.request.id;
  o.arrival_s = seq.request.arrival_s;
  o.end_s = now_s;
  o.input_tokens = seq.request.input_tokens;
  o.output_tokens = seq.request.output_tokens;
  o.ttft_s = seq.first_token_s - seq.request.arrival_s;
  o.mean_itl_s = seq.generated > 1 ? (now_s - seq.first_token_s) / (seq.generated - 1) : 0;
  if (seq.generated > 1) metrics_.request_time_per_output_token_s.observe(o.mean_itl_s);
  o.preemptions = seq.preemptions;
  outcomes_.push_back(o);
}

void ModelServer::fail(const Sequence& seq, double now_s) {
  ++metrics_.request_failure_total;
  RequestOutcome o;
  o.id = seq.request.id;
  o.arrival_s = seq.request.arrival_s;
  o.end_s = now_s;
  o.input_tokens = seq.request.input_tokens;
  o.output_tokens = seq.request.output_tokens;
  o.failed = true;
  o.preemptions = seq.preemptions;
  outcomes_.push_back(o);
}

std::vector<RequestOutcome> ModelServer::take_outcomes() {
  std::vector<RequestOutcome> out;
  out.swap(outcomes_);
  return out;
}

}  // namespace capstan::sim
