#include "sim/fleet_config.hpp"

#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "sim/sim_fixtures.hpp"

using namespace capstan::sim;

namespace {

std::string write_config(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "capstan_fleet_config_test";
  std::filesystem::create_directories(dir);
  const auto path = (dir / name).string();
  std::ofstream(path) << "model: m\nprofiles_dir: " << capstan::sim::testing::profiles_dir() << "\n" << text;
  return path;
}

const char* kVariant =
    "variants:\n"
    "  - name: a\n"
    "    profile: llama2-70b-a100-tp4\n"
    "    cost_per_replica_hour: 8\n"
    "    cold_start_s: 300\n"
    "    num_gpu_blocks: 26000\n";

}  // namespace

TEST_CASE("The shipped example fleet loads with two calibrated GPU variants") {
  const std::string path = std::string(CAPSTAN_TEST_DATA_DIR) + "/../../ops/examples/fleet.yaml";
  auto fleet = load_fleet_config(path);
  REQUIRE(fleet.ok());
  REQUIRE(fleet->variants.size() == 2);
  CHECK(fleet->variants[0].profile.gpu == "A100-80GB");
  CHECK(fleet->variants[1].profile.gpu == "H100-80GB");
  CHECK(fleet->variants[0].cost_per_replica_hour != fleet->variants[1].cost_per_replica_hour);
  CHECK(fleet->variants[1].server.client_timeout_s == fleet->client_timeout_s);
  CHECK(to_variant_spec(fleet->variants[1]).max_batch_size == 256);
}

TEST_CASE("Every shipped scenario fleet loads") {
  // bench/slo_targets_bench.cpp and the scenarios name these by path; a typo in one would
  // otherwise surface only when that run starts.
  const auto dir = std::filesystem::path(CAPSTAN_SOURCE_DIR) / "sim/scenarios/fleets";
  int loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    auto fleet = load_fleet_config(entry.path().string());
    CHECK(fleet.ok());
    loaded += fleet.ok();
  }
  CHECK(loaded >= 10);
}

TEST_CASE("The shipped disaggregated fleet loads a prefill and a decode variant and its KV link") {
  const std::string path = std::string(CAPSTAN_SOURCE_DIR) + "/sim/scenarios/fleets/llama70b-disagg.yaml";
  auto fleet = load_fleet_config(path);
  REQUIRE(fleet.ok());
  REQUIRE(fleet->variants.size() == 2);
  CHECK(fleet->disaggregated());
  CHECK(fleet->variants[0].role == capstan::Role::kPrefill);
  CHECK(fleet->variants[1].role == capstan::Role::kDecode);
  CHECK(to_variant_spec(fleet->variants[1]).role == capstan::Role::kDecode);
  CHECK(fleet->variants[0].profile.gpu == "H100-80GB");
  CHECK(fleet->variants[0].initial_replicas == 2);
  CHECK(fleet->variants[1].initial_replicas == 2);
  CHECK(fleet->kv_transfer.fixed_ms == 5);
  CHECK(fleet->kv_transfer.gbps == 100);
  CHECK(fleet->kv_transfer.bytes_per_token == 327680);
}

TEST_CASE("A fleet of role-both variants is not disaggregated and keeps the default KV link") {
  const std::string path = std::string(CAPSTAN_TEST_DATA_DIR) + "/../../ops/examples/fleet.yaml";
  auto fleet = load_fleet_config(path);
  REQUIRE(fleet.ok());
  CHECK_FALSE(fleet->disaggregated());
  CHECK(fleet->kv_transfer.bytes_per_token == kLlama2_70bKvBytesPerToken);
}

TEST_CASE("Disaggregated fleet errors name the variant's role or the kv_transfer key") {
  const std::string prefill = std::string(kVariant) + "    role: prefill\n";
  const std::string second = "  - name: b\n    profile: llama2-70b-a100-tp4\n    cost_per_replica_hour: 8\n"
                             "    cold_start_s: 300\n    num_gpu_blocks: 26000\n";
  SECTION("decode without prefill") {
    auto p = write_config("decode_only.yaml", std::string(kVariant) + "    role: decode\n");
    auto r = load_fleet_config(p);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("decode_only.yaml: variants[0].role is decode") &&
                                      Catch::Contains("needs a variant with role: prefill"));
  }
  SECTION("a role-both variant beside split ones") {
    auto p = write_config("mixed.yaml", prefill + second);
    auto r = load_fleet_config(p);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("mixed.yaml: variants[1].role must be prefill or decode") &&
                                      Catch::Contains("got 'both'"));
  }
  SECTION("an unknown role") {
    auto p = write_config("badrole.yaml", std::string(kVariant) + "    role: encode\n");
    auto r = load_fleet_config(p);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("variants[0].role must be one of both, prefill, decode"));
  }
  SECTION("a zero bandwidth") {
    auto p = write_config("gbps.yaml", "kv_transfer: {gbps: 0}\n" + prefill + second + "    role: decode\n");
    auto r = load_fleet_config(p);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("gbps.yaml") && Catch::Contains("kv_transfer.gbps must be >="));
  }
  SECTION("kv_transfer not a mapping") {
    auto p = write_config("kvscalar.yaml", "kv_transfer: 5\n" + prefill + second + "    role: decode\n");
    auto r = load_fleet_config(p);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("kvscalar.yaml: kv_transfer must be a mapping"));
  }
  SECTION("a prefill and a decode variant load") {
    auto p = write_config("pd.yaml", "kv_transfer: {fixed_ms: 2, gbps: 400}\n" + prefill + second + "    role: decode\n");
    auto r = load_fleet_config(p);
    REQUIRE(r.ok());
    CHECK(r->variants[1].role == capstan::Role::kDecode);
    CHECK(r->kv_transfer.fixed_ms == 2);
    CHECK(r->kv_transfer.gbps == 400);
  }
}

TEST_CASE("A fleet may set the HPA target its operator runs, and a bad one is refused naming the key") {
  auto set = load_fleet_config(write_config("hpa.yaml", "model: m\nhpa_target_per_replica: 12\n" + std::string(kVariant)));
  INFO((set.ok() ? "" : set.error().message));
  REQUIRE(set.ok());
  CHECK(set->hpa_target_per_replica == 12);
  auto unset = load_fleet_config(write_config("nohpa.yaml", "model: m\n" + std::string(kVariant)));
  REQUIRE(unset.ok());
  CHECK(unset->hpa_target_per_replica == 0);
  for (const char* bad : {"0", ".nan", "-4"}) {
    auto r = load_fleet_config(write_config("badhpa.yaml", "model: m\nhpa_target_per_replica: " + std::string(bad) + "\n" +
                                                               std::string(kVariant)));
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("hpa_target_per_replica"));
  }
}

TEST_CASE("Fleet config errors name the file, the key and the rule") {
  SECTION("a value out of range") {
    auto p = write_config("neg.yaml", std::string(kVariant) + "    max_replicas: -1\n");
    auto r = load_fleet_config(p);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("neg.yaml") && Catch::Contains("variants[0].max_replicas") &&
                                      Catch::Contains("must be >= 0, got -1"));
  }
  SECTION("a missing key") {
    auto p = write_config("missing.yaml", "variants:\n  - name: a\n    profile: x\n");
    auto r = load_fleet_config(p);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("variants[0].cost_per_replica_hour is required"));
  }
  SECTION("an unknown profile") {
    auto p = write_config("prof.yaml", "variants:\n  - name: a\n    profile: nope\n    cost_per_replica_hour: 1\n"
                                       "    cold_start_s: 1\n    num_gpu_blocks: 10\n");
    auto r = load_fleet_config(p);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("variants[0].profile 'nope'"));
  }
  SECTION("a disaggregated role") {
    auto p = write_config("role.yaml", std::string(kVariant) + "    role: prefill\n");
    auto r = load_fleet_config(p);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("variants[0].role"));
  }
  SECTION("a non-number") {
    auto p = write_config("nan.yaml", std::string(kVariant) + "    block_size: big\n");
    auto r = load_fleet_config(p);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains("variants[0].block_size must be an integer"));
  }
}
