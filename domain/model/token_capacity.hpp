// One replica's token capacity for the saturation-token analyzer (seed 002,
// "saturation-token-based"): the smaller of a memory bound k1 (KV tokens x
// kv_cache_threshold) and a compute bound k2 taken from the first available of
//   1. observed: the tokens in use while the queue is saturated, also recorded;
//   2. history: the mean of the last 10 observations for this variant and output bucket;
//   3. derived from engine limits: n = min(B * O / (I + O), S), k2 = n * (I + O / 2) with
//      B max batched tokens, S max sequences, I and O average input and output tokens;
//   4. k1 itself.
// History is bucketed by average output length (short < 100, medium < 500, long), since
// the compute bound depends on it. The state that outlives a tick -- k2 history and the
// capacity last seen for each variant, kept for when it has no replicas -- is a plain
// value passed in and returned.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "domain/model/saturation_thresholds.hpp"
#include "domain/core/types.hpp"

namespace capstan {

inline constexpr std::size_t kK2HistoryWindow = 10;
inline constexpr double kShortOutputTokens = 100;   // short: below this
inline constexpr double kMediumOutputTokens = 500;  // medium: below this; long otherwise

enum class OutputBucket { kShort, kMedium, kLong };
const char* to_string(OutputBucket bucket);
OutputBucket classify_output_length(double avg_output_tokens);

// What the engine's configuration says about a variant's replicas.
struct TokenVariantFacts {
  double kv_capacity_tokens = 0;      // per replica: GPU blocks x block size; 0 = unknown
  double max_num_batched_tokens = 0;  // vLLM --max-num-batched-tokens; 0 = unknown
};

struct TokenCapacityState {
  // Key "<variant>|<bucket>"; oldest first, at most kK2HistoryWindow values.
  std::map<std::string, std::vector<double>> k2_history_tokens;
  // Per-replica capacity a variant last showed with ready replicas.
  std::map<std::string, double> remembered_capacity_tokens;

  bool operator==(const TokenCapacityState&) const = default;
};

void to_json(nlohmann::json& j, const TokenCapacityState& state);
void from_json(const nlohmann::json& j, TokenCapacityState& state);

enum class K2Source { kObserved, kHistory, kDerived, kMemoryBound };
const char* to_string(K2Source source);

struct ReplicaTokenCapacity {
  double tokens_in_use = 0;
  double demand_tokens = 0;     // in use + queued x average input length
  double k1_tokens = 0;
  double k2_tokens = 0;
  double effective_tokens = 0;  // min(k1, k2)
  K2Source k2_source = K2Source::kMemoryBound;
};

// k2 from engine limits; 0 when the limits or the output length are unknown.
double derive_k2_tokens(double max_num_batched_tokens, double max_num_seqs,
                        double avg_input_tokens, double avg_output_tokens);

// Requires facts.kv_capacity_tokens > 0. Records an observed k2 into `state`.
ReplicaTokenCapacity replica_capacity(const PodMetrics& pod, const std::string& variant,
                                      const TokenVariantFacts& facts, int max_num_seqs,
                                      const SaturationThresholds& thresholds,
                                      TokenCapacityState& state);

}  // namespace capstan
