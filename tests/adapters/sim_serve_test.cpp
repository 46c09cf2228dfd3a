// `capstan sim serve` through the real binary on 127.0.0.1 with an ephemeral port
// (read from its first output line), on a tiny fleet whose replicas start in 2
// virtual seconds, at --speedup 10. Every wait has a deadline; the process is
// stopped (SIGTERM, then SIGKILL) at the end of each test.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "adapters/http_test_client.hpp"
#include "adapters/run_binary.hpp"
#include "adapters/spawned_binary.hpp"

using capstan::testing::http_call;
using capstan::testing::HttpReply;
using capstan::testing::SpawnedBinary;
using namespace std::chrono_literals;

namespace {

const std::string kFleet = std::string(CAPSTAN_TEST_DATA_DIR) + "/sim_serve/tiny_fleet.yaml";
const std::string kScale = "/apis/apps/v1/namespaces/default/deployments/tiny-h100/scale";
constexpr const char* kMergePatch = "application/merge-patch+json";

std::string tmp(const std::string& name) {
  return "/tmp/capstan_sim_serve_test_" + std::to_string(::getpid()) + name;
}

// A running `sim serve` and its port.
struct Served {
  explicit Served(std::vector<std::string> extra = {}) : process(args(std::move(extra))) {
    REQUIRE(process.started());
    const std::string line = process.read_line(10s);
    INFO(line << process.stderr_text());
    const auto at = line.find("http://127.0.0.1:");
    REQUIRE(at != std::string::npos);
    port = static_cast<unsigned short>(std::stoi(line.substr(at + 17)));
  }

  static std::vector<std::string> args(std::vector<std::string> extra) {
    std::vector<std::string> a{"sim", "serve", "--fleet", kFleet, "--listen", "127.0.0.1:0", "--speedup", "10"};
    if (std::find(extra.begin(), extra.end(), "--trace") == extra.end()) {
      a.push_back("--synthetic");
      a.push_back("poisson:2");
    }
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }

  HttpReply get(const std::string& target) const { return http_call(port, "GET", target); }
  HttpReply patch(const std::string& target, const std::string& body, const std::string& type = kMergePatch) const {
    return http_call(port, "PATCH", target, body, type);
  }
  nlohmann::json pods() const { return nlohmann::json::parse(get("/pods").body); }

  SpawnedBinary process;
  unsigned short port = 0;
};

bool has_pod(const nlohmann::json& pods, const std::string& name, const std::string& state) {
  for (const auto& p : pods)
    if (p["name"] == name && p["state"] == state) return true;
  return false;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("sim serve answers /healthz, lists the initial replicas and serves each pod's vLLM metrics") {
  Served s;
  auto health = s.get("/healthz");
  CHECK(health.status == 200);
  CHECK(health.body == "ok\n");

  const auto pods = s.pods();
  REQUIRE(pods.size() == 3);
  for (const char* name : {"tiny-a100-0", "tiny-h100-0", "tiny-h100-1"}) CHECK(has_pod(pods, name, "ready"));
  CHECK(pods[0]["variant"] == "tiny-a100");
  CHECK(pods[0]["metrics_path"] == "/metrics/pods/tiny-a100-0");

  auto metrics = s.get("/metrics/pods/tiny-h100-1");
  CHECK(metrics.status == 200);
  CHECK(metrics.headers["content-type"].rfind("text/plain; version=0.0.4", 0) == 0);
  CHECK(metrics.body.find("vllm:num_requests_running{") != std::string::npos);
  CHECK(metrics.body.find("vllm:kv_cache_usage_perc{") != std::string::npos);
  CHECK(metrics.body.find("pod=\"tiny-h100-1\"") != std::string::npos);

  CHECK(s.get("/metrics/pods/tiny-h100-9").status == 404);
  auto router = s.get("/metrics/router");
  CHECK(router.status == 200);
  CHECK(router.body.find("inference_extension_") != std::string::npos);
  CHECK(s.process.terminate() == 0);
}

TEST_CASE("PATCH scale to N+1 is read back at once and the new pod is ready after pending + cold start") {
  Served s;
  auto before = nlohmann::json::parse(s.get(kScale).body);
  CHECK(before["kind"] == "Scale");
  CHECK(before["apiVersion"] == "autoscaling/v1");
  CHECK(before["metadata"]["name"] == "tiny-h100");
  CHECK(before["metadata"]["namespace"] == "default");
  REQUIRE(before["spec"]["replicas"] == 2);
  CHECK(before["status"]["replicas"] == 2);
  CHECK(before["status"]["selector"] == "capstan.io/variant=tiny-h100");

  auto patched = s.patch(kScale, R"({"spec":{"replicas":3}})");
  REQUIRE(patched.status == 200);
  CHECK(nlohmann::json::parse(patched.body)["spec"]["replicas"] == 3);
  CHECK(nlohmann::json::parse(s.get(kScale).body)["spec"]["replicas"] == 3);

  // 2 virtual seconds at speedup 10: 0.2 s of wall time; allow 10 s.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  bool ready = false;
  while (!ready && std::chrono::steady_clock::now() < deadline) {
    ready = has_pod(s.pods(), "tiny-h100-2", "ready");
    if (!ready) std::this_thread::sleep_for(50ms);
  }
  CHECK(ready);
  CHECK(nlohmann::json::parse(s.get(kScale).body)["status"]["replicas"] == 3);
  CHECK(s.get("/metrics/pods/tiny-h100-2").status == 200);
  CHECK(s.process.terminate() == 0);
}

TEST_CASE("a bad Scale PATCH gets a 400 Status naming the field, unknown deployments and media types are refused") {
  Served s;
  auto bad_json = s.patch(kScale, R"({"spec":{"replicas":)");
  CHECK(bad_json.status == 400);
  auto status = nlohmann::json::parse(bad_json.body);
  CHECK(status["kind"] == "Status");
  CHECK(status["code"] == 400);
  CHECK(status["details"]["causes"][0]["field"] == "body");

  auto negative = s.patch(kScale, R"({"spec":{"replicas":-1}})");
  CHECK(negative.status == 400);
  status = nlohmann::json::parse(negative.body);
  CHECK(status["details"]["causes"][0]["field"] == "spec.replicas");
  CHECK(status["message"].get<std::string>().find("-1") != std::string::npos);

  CHECK(s.patch(kScale, R"({"spec":{"replicas":"3"}})").status == 400);
  CHECK(s.patch(kScale, R"({"spec":{}})").status == 400);
  CHECK(s.patch(kScale, R"({"spec":{"replicas":3}})", "application/json-patch+json").status == 415);

  const std::string unknown = "/apis/apps/v1/namespaces/default/deployments/nope/scale";
  auto missing = s.get(unknown);
  CHECK(missing.status == 404);
  CHECK(nlohmann::json::parse(missing.body)["reason"] == "NotFound");
  CHECK(s.patch(unknown, R"({"spec":{"replicas":1}})").status == 404);
  // Nothing changed.
  CHECK(nlohmann::json::parse(s.get(kScale).body)["spec"]["replicas"] == 2);
  CHECK(s.process.terminate() == 0);
}

TEST_CASE("The file-SD list (--file-sd) holds the ready pods with their metrics path and is rewritten when a pod comes up") {
  const std::string sd = tmp("_sd.json");
  std::remove(sd.c_str());
  Served s({"--file-sd", sd});
  auto targets = nlohmann::json::parse(read_file(sd));
  REQUIRE(targets.size() == 3);
  CHECK(targets[0]["targets"][0] == "127.0.0.1:" + std::to_string(s.port));
  CHECK(targets[0]["labels"]["__metrics_path__"] == "/metrics/pods/tiny-a100-0");
  CHECK(targets[0]["labels"]["pod"] == "tiny-a100-0");
  CHECK(targets[0]["labels"]["variant"] == "tiny-a100");

  REQUIRE(s.patch(kScale, R"({"spec":{"replicas":3}})").status == 200);
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (targets.size() != 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(50ms);
    targets = nlohmann::json::parse(read_file(sd));  // renamed into place: never partial
  }
  REQUIRE(targets.size() == 4);
  CHECK(targets[3]["labels"]["pod"] == "tiny-h100-2");
  CHECK(s.process.terminate() == 0);
  std::remove(sd.c_str());
}

TEST_CASE("sim serve stops on SIGTERM, at --duration-s and when the trace is done, with a summary line and exit 0") {
  {
    Served s;
    CHECK(s.process.terminate() == 0);
    CHECK(s.process.read_line(5s).find("stopped (SIGTERM)") != std::string::npos);
  }
  {
    Served s({"--duration-s", "0.5"});
    CHECK(s.process.wait_exit(10s) == 0);
    const std::string summary = s.process.read_line(5s);
    CHECK(summary.find("stopped (--duration-s reached)") != std::string::npos);
    CHECK(summary.find("requests") != std::string::npos);
  }
  {
    Served s({"--trace", std::string(CAPSTAN_TEST_DATA_DIR) + "/sim_serve/three_requests.csv"});
    CHECK(s.process.wait_exit(10s) == 0);
    const std::string summary = s.process.read_line(5s);
    CHECK(summary.find("stopped (trace done, fleet idle)") != std::string::npos);
    CHECK(summary.find("3 requests, 3 completed") != std::string::npos);
  }
}

TEST_CASE("sim serve refuses bad flags with exit 2 naming them") {
  using capstan::testing::run_binary;
  auto none = run_binary("sim serve --fleet " + kFleet);
  CHECK(none.exit_status == 2);
  CHECK(none.stderr_text.find("--trace FILE or --synthetic") != std::string::npos);
  auto listen = run_binary("sim serve --fleet " + kFleet + " --synthetic poisson:1 --listen nowhere");
  CHECK(listen.exit_status == 2);
  CHECK(listen.stderr_text.find("--listen") != std::string::npos);
  auto synthetic = run_binary("sim serve --fleet " + kFleet + " --synthetic burst:1");
  CHECK(synthetic.exit_status == 2);
  CHECK(synthetic.stderr_text.find("--synthetic") != std::string::npos);
  auto speedup = run_binary("sim serve --fleet " + kFleet + " --synthetic poisson:1 --speedup 0");
  CHECK(speedup.exit_status == 2);
  CHECK(speedup.stderr_text.find("--speedup") != std::string::npos);
}
