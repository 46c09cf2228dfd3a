#include "config/config_reload.hpp"

#include <catch2/catch.hpp>

#include "temp_config.hpp"

using namespace capstan;
using namespace capstan::config;
using capstan::testing::TempConfigDir;

namespace {

ConfigSources file_source(const std::string& path) {
  return {.configmap_dir = std::nullopt, .file = path, .env = {}, .flags = {}};
}

const char* kTwoModels = R"(tick_s: 30s
models:
  - {model_id: a, namespace: ns, variants: [{name: a1}]}
  - {model_id: b, namespace: ns, variants: [{name: b1}]}
)";

}  // namespace

TEST_CASE("An invalid change keeps the last good configuration and says why") {
  TempConfigDir dir;
  const std::string path = dir.write("c.yaml", kTwoModels);
  auto first = load_config(file_source(path));
  REQUIRE(first.ok());
  dir.write("c.yaml", "tick_s: never\n");
  const ReloadOutcome outcome = reload(first.value(), file_source(path));
  REQUIRE(outcome.error.has_value());
  CHECK(outcome.error->message ==
        "file " + path + ": tick_s must be a duration in (0, 86400] (30s, 5m, 500ms, 1h or seconds), got 'never'");
  CHECK(outcome.config.config.tick_s == 30);
  CHECK(outcome.config.config.models.size() == 2);
  CHECK(outcome.change.empty());
}

TEST_CASE("A valid change lists the keys that changed and the models that appeared or left") {
  TempConfigDir dir;
  const std::string path = dir.write("c.yaml", kTwoModels);
  auto first = load_config(file_source(path));
  REQUIRE(first.ok());
  dir.write("c.yaml", R"(tick_s: 10s
models:
  - {model_id: b, namespace: ns, variants: [{name: b1, max_replicas: 4}]}
  - {model_id: c, namespace: ns, variants: [{name: c1}]}
)");
  const ReloadOutcome outcome = reload(first.value(), file_source(path));
  REQUIRE_FALSE(outcome.error.has_value());
  CHECK(outcome.config.config.tick_s == 10);
  const auto& keys = outcome.change.changed_keys;
  CHECK(std::find(keys.begin(), keys.end(), "tick_s") != keys.end());
  CHECK(std::find(keys.begin(), keys.end(), "models[0].model_id") != keys.end());
  CHECK(std::find(keys.begin(), keys.end(), "models[0].variants[0].max_replicas") != keys.end());
  CHECK(std::find(keys.begin(), keys.end(), "policy") == keys.end());
  CHECK(outcome.change.added_models == std::vector<ModelKey>{{"ns", "c"}});
  CHECK(outcome.change.removed_models == std::vector<ModelKey>{{"ns", "a"}});
}

TEST_CASE("Re-reading an unchanged configuration changes nothing") {
  TempConfigDir dir;
  const std::string path = dir.write("c.yaml", kTwoModels);
  auto first = load_config(file_source(path));
  REQUIRE(first.ok());
  const ReloadOutcome outcome = reload(first.value(), file_source(path));
  CHECK_FALSE(outcome.error.has_value());
  CHECK(outcome.change.empty());
  CHECK(outcome.change.added_models.empty());
  CHECK(outcome.change.removed_models.empty());
}

TEST_CASE("flatten names every leaf by its key path") {
  const auto leaves = flatten(nlohmann::json::parse(R"({"a": 1, "b": {"c": [true, {"d": null}]}, "e": []})"));
  REQUIRE(leaves.size() == 4);
  CHECK(leaves[0].first == "a");
  CHECK(leaves[1].first == "b.c[0]");
  CHECK(leaves[2].first == "b.c[1].d");
  CHECK(leaves[3].first == "e");
}
