#include "domain/model/token_capacity.hpp"

#include <algorithm>
#include <numeric>

#include <nlohmann/json.hpp>

namespace capstan {
namespace {

std::string history_key(const std::string& variant, OutputBucket bucket) {
  return variant + "|" + to_string(bucket);
}

void record(std::vector<double>& window, double value) {
  window.push_back(value);
  if (window.size() > kK2HistoryWindow) {
    window.erase(window.begin(), window.end() - static_cast<std::ptrdiff_t>(kK2HistoryWindow));
  }
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return 0;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

}  // namespace

const char* to_string(OutputBucket bucket) {
  switch (bucket) {
    case OutputBucket::kShort: return "short";
    case OutputBucket::kMedium: return "medium";
    case OutputBucket::kLong: return "long";
  }
  return "short";
}

OutputBucket classify_output_length(double avg_output_tokens) {
  if (avg_output_tokens < kShortOutputTokens) return OutputBucket::kShort;
  if (avg_output_tokens < kMediumOutputTokens) return OutputBucket::kMedium;
  return OutputBucket::kLong;
}

const char* to_string(K2Source source) {
  switch (source) {
    case K2Source::kObserved: return "observed";
    case K2Source::kHistory: return "history";
    case K2Source::kDerived: return "derived";
    case K2Source::kMemoryBound: return "memory_bound";
  }
  return "memory_bound";
}

void to_json(nlohmann::json& j, const TokenCapacityState& state) {
  j = {{"k2_history_tokens", state.k2_history_tokens},
       {"remembered_capacity_tokens", state.remembered_capacity_tokens}};
}

void from_json(const nlohmann::json& j, TokenCapacityState& state) {
  state.k2_history_tokens =
      j.at("k2_history_tokens").get<std::map<std::string, std::vector<double>>>();
  state.remembered_capacity_tokens =
      j.at("remembered_capacity_tokens").get<std::map<std::string, double>>();
}

double derive_k2_tokens(double max_num_batched_tokens, double max_num_seqs,
                        double avg_input_tokens, double avg_output_tokens) {
  if (max_num_batched_tokens <= 0 || avg_output_tokens <= 0) return 0;
  const double in = std::max(avg_input_tokens, 0.0);
  const double out = avg_output_tokens;
  // In steady state a batch of B tokens per step holds B * O / (I + O) sequences, each
  // holding I + O/2 tokens of KV on average over its life.
  double sequences = max_num_batched_tokens * out / (in + out);
  if (max_num_seqs > 0) sequences = std::min(sequences, max_num_seqs);
  return sequences * (in + out / 2);
}

ReplicaTokenCapacity replica_capacity(const PodMetrics& pod, const std::string& variant,
                                      const TokenVariantFacts& facts, int max_num_seqs,
                                      const SaturationThresholds& thresholds,
                                      TokenCapacityState& state) {
  ReplicaTokenCapacity c;
  c.tokens_in_use = std::clamp(pod.kv_usage, 0.0, 1.0) * facts.kv_capacity_tokens;
  c.demand_tokens = c.tokens_in_use + std::max(pod.queue_length, 0.0) *
                                          std::max(pod.avg_input_tokens, 0.0);
  c.k1_tokens = facts.kv_capacity_tokens * thresholds.kv_cache_threshold;

  const std::string key =
      history_key(variant, classify_output_length(pod.avg_output_tokens));
  const auto past = state.k2_history_tokens.find(key);
  const double history = past == state.k2_history_tokens.end() ? 0 : mean(past->second);
  const double derived = derive_k2_tokens(facts.max_num_batched_tokens, max_num_seqs,
                                          pod.avg_input_tokens, pod.avg_output_tokens);
  if (queue_saturated(pod, thresholds) && c.tokens_in_use > 0) {
    c.k2_tokens = c.tokens_in_use;
    c.k2_source = K2Source::kObserved;
    record(state.k2_history_tokens[key], c.tokens_in_use);
  } else if (history > 0) {
    c.k2_tokens = history;
    c.k2_source = K2Source::kHistory;
  } else if (derived > 0) {
    c.k2_tokens = derived;
    c.k2_source = K2Source::kDerived;
  } else {
    c.k2_tokens = c.k1_tokens;
    c.k2_source = K2Source::kMemoryBound;
  }
  c.effective_tokens = std::min(c.k1_tokens, c.k2_tokens);
  return c;
}

}  // namespace capstan
