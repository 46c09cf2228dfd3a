// `capstan config check` and `capstan config print` through the real binary.
#include <cstdlib>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "adapters/run_binary.hpp"
#include "temp_config.hpp"

using capstan::testing::run_binary;
using capstan::testing::TempConfigDir;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

const std::string kSource = CAPSTAN_SOURCE_DIR;

// Sets an environment variable for the binaries a test runs, and unsets it after.
struct ScopedEnv {
  ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~ScopedEnv() { ::unsetenv(name_); }
  const char* name_;
};

}  // namespace

TEST_CASE("config check passes the shipped demo configuration and ConfigMap directory") {
  const auto file = run_binary("config check " + kSource + "/ops/examples/capstan.yaml", 60);
  INFO(file.stderr_text);
  CHECK(file.exit_status == 0);
  CHECK_THAT(file.stdout_text, StartsWith("ok: " + kSource + "/ops/examples/capstan.yaml: 0 models, 0 variants; policy hybrid"));
  const auto dir = run_binary("config check " + kSource + "/ops/examples/configmap", 60);
  INFO(dir.stderr_text);
  CHECK(dir.exit_status == 0);
  CHECK_THAT(dir.stdout_text, StartsWith("ok: " + kSource + "/ops/examples/configmap: 2 models, 0 variants"));
}

TEST_CASE("config check prints the error naming file, key and rule, and exits 1") {
  TempConfigDir dir;
  const std::string file = dir.write("bad.yaml", "tick_s: soon\n");
  const auto run = run_binary("config check " + file, 60);
  CHECK(run.exit_status == 1);
  CHECK(run.stdout_text.empty());
  CHECK(run.stderr_text == "capstan config check: file " + file +
                               ": tick_s must be a duration in (0, 86400] (30s, 5m, 500ms, 1h or seconds), got 'soon'\n");
}

TEST_CASE("config check of a file ignores the environment: it checks the file alone") {
  ScopedEnv env("CAPSTAN_TICK", "not-a-duration");
  const auto run = run_binary("config check " + kSource + "/ops/examples/capstan.yaml", 60);
  CHECK(run.exit_status == 0);
}

TEST_CASE("config print shows each value with the layer that set it, as a table or as JSON") {
  TempConfigDir dir;
  const std::string file = dir.write("c.yaml", "tick_s: 20s\npolicy: erlang\nseed: 7\n");
  ScopedEnv env("CAPSTAN_POLICY", "queueing");
  const auto table = run_binary("config print --config " + file + " --tick 5s", 60);
  INFO(table.stderr_text);
  REQUIRE(table.exit_status == 0);
  CHECK_THAT(table.stdout_text, StartsWith("key "));
  CHECK_THAT(table.stdout_text, Contains("flag --tick"));
  CHECK_THAT(table.stdout_text, Contains("env CAPSTAN_POLICY"));
  CHECK_THAT(table.stdout_text, Contains("file " + file));

  const auto json = run_binary("config print --config " + file + " --tick 5s --format json", 60);
  REQUIRE(json.exit_status == 0);
  const auto j = nlohmann::json::parse(json.stdout_text);
  CHECK(j["config"]["tick_s"] == 5.0);
  CHECK(j["origins"]["tick_s"] == "flag --tick");
  CHECK(j["config"]["policy"] == "queueing");
  CHECK(j["origins"]["policy"] == "env CAPSTAN_POLICY");
  CHECK(j["config"]["seed"] == 7);
  CHECK(j["origins"]["seed"] == "file " + file);
  CHECK(j["origins"]["speedup"] == "default");
}

TEST_CASE("config print refuses a bad flag naming it, and exits 1") {
  const auto run = run_binary("config print --connector kubernetes", 60);
  CHECK(run.exit_status == 1);
  CHECK(run.stderr_text == "capstan config print: flag --connector must be one of sim, dry-run, advisory, got 'kubernetes'\n");
}
