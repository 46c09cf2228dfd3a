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
