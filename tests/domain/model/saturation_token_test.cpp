#include "domain/model/saturation_token.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace capstan;

namespace {

PodMetrics pod(double kv_usage, double queue_length = 0, double in = 500, double out = 50) {
  PodMetrics p;
  p.kv_usage = kv_usage;
  p.queue_length = queue_length;
  p.avg_input_tokens = in;
  p.avg_output_tokens = out;
  return p;
}

TokenVariantInput variant(std::string name, double cost, std::vector<PodMetrics> pods,
                          double kv_tokens = 10000, int pending = 0, Role role = Role::kBoth) {
  TokenVariantInput v;
  v.state.spec.name = std::move(name);
  v.state.spec.cost_per_replica = cost;
  v.state.spec.role = role;
  v.state.current_replicas = static_cast<int>(pods.size()) + pending;
  v.state.pending_replicas = pending;
  v.state.pods = std::move(pods);
  v.facts.kv_capacity_tokens = kv_tokens;
  return v;
}

TokenSaturationStep analyze(const std::vector<TokenVariantInput>& vs, const EppQueue& epp = {},
                            const TokenCapacityState& state = {}) {
  auto r = analyze_saturation_token(vs, epp, TokenSaturationConfig{}, state);
  REQUIRE(r.ok());
  return r.value();
}

}  // namespace

TEST_CASE("Defaults are the seed's: scale-up threshold 0.85, scale-down boundary 0.70") {
  const TokenSaturationConfig c;
  CHECK(c.scale_up_threshold == 0.85);
  CHECK(c.scale_down_boundary == 0.70);
  CHECK(c.thresholds.kv_cache_threshold == 0.80);
}

TEST_CASE("Light load leaves spare capacity and requires none") {
  // 2 replicas x min(k1 8000, k2 = k1) = 16000 supply; 2 x 5000 in use.
  const auto step = analyze({variant("a10g", 5, {pod(0.5), pod(0.5)})});
  REQUIRE(step.analysis.signals.size() == 1);
  const auto& s = step.analysis.signals[0];
  CHECK(s.unit == "tokens");
  CHECK(s.supply == Approx(16000));
  CHECK(s.demand == Approx(10000));
  CHECK(s.required == 0);
  CHECK(s.spare == Approx(16000 - 10000 / 0.70));
}

TEST_CASE("Demand above 85 percent of supply requires the difference") {
  const auto step = analyze({variant("a10g", 5, {pod(0.75), pod(0.75)})});
  const auto& s = step.analysis.signals[0];
  CHECK(s.demand == Approx(15000));
  CHECK(s.required == Approx(15000 / 0.85 - 16000));
  CHECK(s.spare == 0);
}

TEST_CASE("Pending replicas count as anticipated supply against the requirement") {
  const auto step = analyze({variant("a10g", 5, {pod(0.75), pod(0.75)}, 10000, /*pending=*/1)});
  const auto& s = step.analysis.signals[0];
  CHECK(s.supply == Approx(16000));   // only ready replicas supply now
  CHECK(s.required == 0);             // 15000 / 0.85 < 3 x 8000
  CHECK(s.variants[0].pending_replicas == 1);
  CHECK(s.variants[0].current_replicas == 3);
}

TEST_CASE("Per-replica capacity is the median across ready replicas") {
  // The saturated-queue pods observe k2 = 3000 and 7000 and record them; the idle pod
  // then takes the history mean 5000.
  const auto step = analyze({variant("a10g", 5, {pod(0.3, 6), pod(0.7, 6), pod(0.1, 0)})});
  const auto& v = step.analysis.variants[0];
  CHECK(v.source == CapacitySource::kLive);
  // Median of 3000, 7000, 5000.
  CHECK(v.per_replica_capacity_tokens == Approx(5000));
  CHECK(v.total_capacity_tokens == Approx(15000));
  CHECK(step.state.remembered_capacity_tokens.at("a10g") == Approx(5000));
}

TEST_CASE("Pods that are not ready do not count") {
  auto v = variant("a10g", 5, {pod(0.5), pod(0.9, 9)});
  v.state.pods[1].ready = false;
  v.state.pending_replicas = 1;
  const auto step = analyze({v});
  CHECK(step.analysis.variants[0].ready_replicas == 1);
  CHECK(step.analysis.signals[0].demand == Approx(5000));
  CHECK(step.state.k2_history_tokens.empty());
}

TEST_CASE("EPP queue adds input tokens less prefix hits plus output tokens") {
  // 10 queued x 500 input x (1 - 0.2) = 4000; 10 x 50 output = 500.
  const auto step = analyze({variant("a10g", 5, {pod(0.5)})}, EppQueue{10, 0, 0.2});
  CHECK(step.analysis.epp_input_tokens == Approx(4000));
  CHECK(step.analysis.epp_output_tokens == Approx(500));
  CHECK(step.analysis.signals[0].demand == Approx(5000 + 4500));
  // Queue bytes win when they say more: 40000 bytes / 4 = 10000 tokens.
  const auto by_bytes = analyze({variant("a10g", 5, {pod(0.5)})}, EppQueue{10, 40000, 0});
  CHECK(by_bytes.analysis.epp_input_tokens == Approx(10000));
}

TEST_CASE("A variant with zero replicas uses the capacity it last showed") {
  const auto first = analyze({variant("h100", 15, {pod(0.6, 5)}, 50000)});
  CHECK(first.analysis.variants[0].per_replica_capacity_tokens == Approx(30000));
  auto idle = variant("h100", 15, {}, 50000);
  const auto second = analyze({idle}, {}, first.state);
  const auto& v = second.analysis.variants[0];
  CHECK(v.source == CapacitySource::kRemembered);
  CHECK(v.per_replica_capacity_tokens == Approx(30000));
  CHECK(v.total_capacity_tokens == 0);
  CHECK(second.analysis.signals[0].variants[0].per_replica_capacity == Approx(30000));
}

TEST_CASE("A never-seen zero-replica variant derives capacity from its engine limits") {
  auto fresh = variant("h100", 15, {}, 400000);
  fresh.facts.max_num_batched_tokens = 2048;
  const auto step = analyze({variant("a10g", 5, {pod(0.5, 0, 900, 100)}), fresh});
  const auto& v = step.analysis.variants[1];
  CHECK(v.source == CapacitySource::kDerived);
  CHECK(v.per_replica_capacity_tokens == Approx(194560));
  auto unknown = variant("l4", 3, {}, 0);
  const auto none = analyze({unknown});
  CHECK(none.analysis.variants[0].source == CapacitySource::kNone);
}

TEST_CASE("Prefill and decode pools get their own signals and their share of the EPP queue") {
  const auto step = analyze({variant("prefill-h100", 15, {pod(0.5)}, 10000, 0, Role::kPrefill),
                             variant("decode-a100", 10, {pod(0.7), pod(0.7)}, 10000, 0,
                                     Role::kDecode)},
                            EppQueue{10, 0, 0});
  REQUIRE(step.analysis.signals.size() == 2);
  const auto& prefill = step.analysis.signals[0];
  const auto& decode = step.analysis.signals[1];
  CHECK(prefill.role == Role::kPrefill);
  CHECK(decode.role == Role::kDecode);
  REQUIRE(prefill.variants.size() == 1);
  CHECK(prefill.variants[0].variant == "prefill-h100");
  CHECK(prefill.demand == Approx(5000 + 10 * 500));          // input only
  CHECK(decode.demand == Approx(14000 + 10 * 500 + 10 * 50)); // input and output
  CHECK(decode.supply == Approx(16000));
}

TEST_CASE("The analyzer state after a tick survives a JSON round trip") {
  const auto step = analyze({variant("a10g", 5, {pod(0.6, 5), pod(0.2)})});
  const nlohmann::json j = step.state;
  CHECK(j.get<TokenCapacityState>() == step.state);
  CHECK_FALSE(step.state.k2_history_tokens.empty());
}

TEST_CASE("Invalid token-analyzer settings and inputs are rejected with the field name") {
  TokenSaturationConfig c;
  c.scale_down_boundary = 0.9;
  auto r = analyze_saturation_token({}, {}, c, {});
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("scale_down_boundary") && Catch::Contains("0.9"));
  c = TokenSaturationConfig{};
  c.scale_up_threshold = 0;
  REQUIRE_FALSE(analyze_saturation_token({}, {}, c, {}).ok());
  auto neg = analyze_saturation_token({}, EppQueue{-1, 0, 0}, TokenSaturationConfig{}, {});
  REQUIRE_FALSE(neg.ok());
  CHECK_THAT(neg.error().message, Catch::Contains("epp.queue_size"));
  const std::vector<TokenVariantInput> bad{variant("a10g", 5, {pod(0.5)}, -5)};
  auto bad_kv = analyze_saturation_token(bad, {}, TokenSaturationConfig{}, {});
  REQUIRE_FALSE(bad_kv.ok());
  CHECK_THAT(bad_kv.error().message, Catch::Contains("a10g.kv_capacity_tokens"));
}
