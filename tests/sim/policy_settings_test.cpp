#include "sim/policy_settings.hpp"
#include "sim/sustainable_rate.hpp"

#include <vector>

#include <catch2/catch.hpp>

using namespace capstan::sim;
using capstan::PolicyConfig;
using capstan::SloTargets;

TEST_CASE("Policy settings default to PolicyConfig's knobs and the oracle's attainment") {
  const PolicySettings s;
  const PolicyConfig c = policy_config(s);
  const PolicyConfig defaults;
  CHECK(c.slo == defaults.slo);
  CHECK(c.scale_down_cooldown_s == defaults.scale_down_cooldown_s);
  CHECK(c.scale_to_zero_retention_s == defaults.scale_to_zero_retention_s);
  CHECK(c.gpu_budget == defaults.gpu_budget);
  CHECK(c.client_timeout_s == defaults.client_timeout_s);
  CHECK(s.slo_attainment == SustainableRateOptions{}.attainment_target);
  CHECK(c.tail_probability == Approx(1 - s.slo_attainment));
}

TEST_CASE("policy_config carries every setting and makes the tail probability 1 - attainment") {
  PolicySettings s;
  s.slo = {0, 80};
  s.slo_attainment = 0.99;
  s.client_timeout_s = 90;
  s.scale_down_cooldown_s = 60;
  s.scale_to_zero_retention_s = 600;
  s.gpu_budget = 16;
  s.pd_band = {0.4, 1.0};
  s.max_step_up = 2;
  s.max_step_down = 1;
  s.hpa_target_per_replica = 8;
  const PolicyConfig c = policy_config(s);
  CHECK(c.slo == SloTargets{0, 80});
  CHECK(c.tail_probability == Approx(0.01));
  CHECK(c.client_timeout_s == 90);
  CHECK(c.scale_down_cooldown_s == 60);
  CHECK(c.scale_to_zero_retention_s == 600);
  CHECK(c.gpu_budget == 16);
  CHECK(c.pd_band == capstan::RatioBand{0.4, 1.0});
  CHECK(c.max_step_up == 2);
  CHECK(c.max_step_down == 1);
  CHECK(c.target_concurrency_per_replica == 8);
}

TEST_CASE("The client timeout is the longest of the fleets', unless the operator set one") {
  std::vector<FleetConfig> fleets(3);
  fleets[0].client_timeout_s = 30;
  fleets[1].client_timeout_s = 120;
  PolicySettings mine;
  mine.client_timeout_s = 45;
  CHECK(with_fleet_settings(mine, fleets).client_timeout_s == 120);
  CHECK(with_fleet_settings(mine, {}).client_timeout_s == 0);
  CHECK(with_fleet_settings(mine, fleets, {.client_timeout = true}).client_timeout_s == 45);
}

TEST_CASE("The HPA target is the operator's, else the first fleet's that sets one, else the default") {
  std::vector<FleetConfig> fleets(3);
  CHECK(with_fleet_settings(PolicySettings{}, fleets).hpa_target_per_replica == 32);
  fleets[1].hpa_target_per_replica = 12;
  fleets[2].hpa_target_per_replica = 20;
  CHECK(with_fleet_settings(PolicySettings{}, fleets).hpa_target_per_replica == 12);
  PolicySettings mine;
  mine.hpa_target_per_replica = 7;
  CHECK(with_fleet_settings(mine, fleets, {.hpa_target = true}).hpa_target_per_replica == 7);
  CHECK(PolicySettings{}.hpa_target_per_replica == PolicyConfig{}.target_concurrency_per_replica);
}
