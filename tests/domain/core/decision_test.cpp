#include "domain/core/decision.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace capstan;

TEST_CASE("Every reason code has a stable snake_case name that parses back") {
  for (int i = 0; i <= static_cast<int>(ReasonCode::kPdBand); ++i) {
    const auto code = static_cast<ReasonCode>(i);
    const std::string name = to_string(code);
    INFO(name);
    CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos);
    auto back = parse_reason_code(name);
    REQUIRE(back.ok());
    CHECK(back.value() == code);
  }
  CHECK(std::string(to_string(ReasonCode::kScaleUp)) == "scale_up");
  CHECK(std::string(to_string(ReasonCode::kBudgetLimited)) == "budget_limited");
  CHECK(std::string(to_string(ReasonCode::kPendingGuard)) == "pending_guard");
  CHECK(std::string(to_string(ReasonCode::kPdBand)) == "pd_band");
}

TEST_CASE("An unknown reason code is an error naming the text") {
  auto r = parse_reason_code("scale_sideways");
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.error().message, Catch::Contains("scale_sideways"));
}

TEST_CASE("A decision survives a JSON round trip unchanged") {
  const Decision d{{"llm", "meta/llama-3.1-8b"}, "llama-8b-h100", 2, 3,
                   {ReasonCode::kScaleUp,
                    "scale up 2 -> 3: KV usage 0.86 above threshold 0.80 on 2 of 2 replicas"}};
  const nlohmann::json j = d;
  CHECK(j.at("reason").at("code") == "scale_up");
  CHECK(j.at("model").at("model_id") == "meta/llama-3.1-8b");
  CHECK(j.get<Decision>() == d);
  CHECK(nlohmann::json::from_msgpack(nlohmann::json::to_msgpack(j)).get<Decision>() == d);
}

TEST_CASE("A scaling request survives a JSON round trip unchanged") {
  const ScalingRequest r{"a10g", 4, 3, {ReasonCode::kScaleDown, "scale down 4 -> 3: spare"}};
  const nlohmann::json j = r;
  CHECK(j.get<ScalingRequest>() == r);
}

TEST_CASE("Parsing a malformed decision is an error, not an exception") {
  nlohmann::json j = Decision{{"ns", "m"}, "v", 1, 1, {ReasonCode::kHold, "hold at 1"}};
  j["reason"]["code"] = "bogus";
  auto bad_code = parse_decision(j);
  REQUIRE_FALSE(bad_code.ok());
  CHECK_THAT(bad_code.error().message, Catch::Contains("bogus"));
  j.erase("variant");
  auto missing = parse_decision(j);
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("variant"));
}

TEST_CASE("Change descriptions and codes follow the direction of the change") {
  CHECK(describe_change(2, 3) == "scale up 2 -> 3");
  CHECK(describe_change(3, 1) == "scale down 3 -> 1");
  CHECK(describe_change(2, 2) == "hold at 2");
  CHECK(direction_code(0, 1) == ReasonCode::kScaleUp);
  CHECK(direction_code(1, 0) == ReasonCode::kScaleDown);
  CHECK(direction_code(4, 4) == ReasonCode::kHold);
  const auto h = hold("v", 2, ReasonCode::kCooldown, "held");
  CHECK(h.target_replicas == 2);
  CHECK(to_decision({"ns", "m"}, h).variant == "v");
}
