#include "domain/model/token_capacity.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace capstan;

namespace {

PodMetrics pod(double kv_usage, double queue_length, double in = 500, double out = 50) {
  PodMetrics p;
  p.kv_usage = kv_usage;
  p.queue_length = queue_length;
  p.avg_input_tokens = in;
  p.avg_output_tokens = out;
  return p;
}

const TokenVariantFacts kFacts{10000, 0};
const SaturationThresholds kThresholds{};

}  // namespace

TEST_CASE("Output lengths fall into short below 100, medium below 500, long from 500") {
  CHECK(classify_output_length(0) == OutputBucket::kShort);
  CHECK(classify_output_length(99.9) == OutputBucket::kShort);
  CHECK(classify_output_length(100) == OutputBucket::kMedium);
  CHECK(classify_output_length(499) == OutputBucket::kMedium);
  CHECK(classify_output_length(500) == OutputBucket::kLong);
}

TEST_CASE("k1 is the KV token capacity times the KV threshold and bounds the capacity") {
  TokenCapacityState state;
  const auto c = replica_capacity(pod(0.5, 0), "a10g", kFacts, 256, kThresholds, state);
  CHECK(c.k1_tokens == Approx(8000));
  CHECK(c.k2_source == K2Source::kMemoryBound);
  CHECK(c.effective_tokens == Approx(8000));
  CHECK(c.tokens_in_use == Approx(5000));
  CHECK(state.k2_history_tokens.empty());
}

TEST_CASE("Demand is tokens in use plus queued requests times the average input length") {
  TokenCapacityState state;
  const auto c = replica_capacity(pod(0.3, 2, 700), "a10g", kFacts, 256, kThresholds, state);
  CHECK(c.demand_tokens == Approx(3000 + 2 * 700));
}

TEST_CASE("A saturated queue makes the tokens in use the observed compute bound and records it") {
  TokenCapacityState state;
  const auto c = replica_capacity(pod(0.6, 5), "a10g", kFacts, 256, kThresholds, state);
  CHECK(c.k2_source == K2Source::kObserved);
  CHECK(c.k2_tokens == Approx(6000));
  CHECK(c.effective_tokens == Approx(6000));
  REQUIRE(state.k2_history_tokens.count("a10g|short") == 1);
  CHECK(state.k2_history_tokens["a10g|short"] == std::vector<double>{6000});
}

TEST_CASE("Without a saturated queue the rolling history of the same output bucket is used") {
  TokenCapacityState state;
  replica_capacity(pod(0.6, 5), "a10g", kFacts, 256, kThresholds, state);
  replica_capacity(pod(0.7, 6), "a10g", kFacts, 256, kThresholds, state);
  const auto c = replica_capacity(pod(0.2, 0), "a10g", kFacts, 256, kThresholds, state);
  CHECK(c.k2_source == K2Source::kHistory);
  CHECK(c.k2_tokens == Approx(6500));
  // A long-output workload has no history yet and falls through to k1.
  const auto other = replica_capacity(pod(0.2, 0, 500, 800), "a10g", kFacts, 256, kThresholds,
                                      state);
  CHECK(other.k2_source == K2Source::kMemoryBound);
}

TEST_CASE("The k2 history keeps the last 10 observations") {
  TokenCapacityState state;
  for (int i = 1; i <= 12; ++i) {
    replica_capacity(pod(i * 0.05, 5), "a10g", kFacts, 256, kThresholds, state);
  }
  const auto& window = state.k2_history_tokens["a10g|short"];
  REQUIRE(window.size() == kK2HistoryWindow);
  CHECK(window.front() == Approx(1500));  // the 3rd observation
  CHECK(window.back() == Approx(6000));
}

TEST_CASE("With no history k2 is derived from max batched tokens, max sequences and token lengths") {
  // n = min(2048 * 100 / (900 + 100), 256) = 204.8; k2 = 204.8 * (900 + 50) = 194560.
  CHECK(derive_k2_tokens(2048, 256, 900, 100) == Approx(194560));
  // Max sequences caps n: min(8192 * 200 / 1200, 256) = 256; k2 = 256 * 1100.
  CHECK(derive_k2_tokens(8192, 256, 1000, 200) == Approx(256 * 1100));
  CHECK(derive_k2_tokens(0, 256, 900, 100) == 0);
  CHECK(derive_k2_tokens(2048, 256, 900, 0) == 0);

  TokenCapacityState state;
  const auto c = replica_capacity(pod(0.1, 0, 900, 100), "a10g", {400000, 2048}, 256, kThresholds,
                                  state);
  CHECK(c.k2_source == K2Source::kDerived);
  CHECK(c.effective_tokens == Approx(194560));  // below k1 = 320000
}

TEST_CASE("The capacity state survives a JSON round trip unchanged") {
  TokenCapacityState state;
  state.k2_history_tokens["a10g|short"] = {6000, 6500.25};
  state.k2_history_tokens["h100|long"] = {42000};
  state.remembered_capacity_tokens["h100"] = 31234.5;
  const nlohmann::json j = state;
  CHECK(j.get<TokenCapacityState>() == state);
  CHECK(nlohmann::json::from_cbor(nlohmann::json::to_cbor(j)).get<TokenCapacityState>() == state);
}
