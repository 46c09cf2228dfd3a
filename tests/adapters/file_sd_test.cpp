// adapters/sim_serve/file_sd: which pods are scrape targets, the target list's shape,
// and the write-then-rename replacement of the file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "adapters/sim_serve/file_sd.hpp"

using namespace capstan::sim_serve;

TEST_CASE("only pods whose server is up (ready or draining) are scrape targets") {
  const std::vector<LivePod> pods{{"a-0", "a", "ready"}, {"a-1", "a", "pending"}, {"a-2", "a", "loading"},
                                  {"b-0", "b", "draining"}};
  const auto targets = file_sd_targets("127.0.0.1:9400", pods);
  REQUIRE(targets.size() == 2);
  CHECK(targets[0]["targets"] == nlohmann::json::array({"127.0.0.1:9400"}));
  CHECK(targets[0]["labels"]["__metrics_path__"] == "/metrics/pods/a-0");
  CHECK(targets[1]["labels"]["pod"] == "b-0");
  CHECK(targets[1]["labels"]["variant"] == "b");
  CHECK(file_sd_targets("h:1", {}).is_array());
}

TEST_CASE("write_file_atomically replaces the file and leaves no temporary behind") {
  const std::string path = "/tmp/capstan_file_sd_test_" + std::to_string(::getpid()) + ".json";
  REQUIRE(write_file_atomically(path, "[1]\n").ok());
  REQUIRE(write_file_atomically(path, "[2]\n").ok());
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ss.str() == "[2]\n");
  CHECK_FALSE(std::filesystem::exists(path + ".tmp"));
  std::remove(path.c_str());

  const auto bad = write_file_atomically("/nonexistent-dir/x.json", "[]");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("/nonexistent-dir/x.json") != std::string::npos);
}
