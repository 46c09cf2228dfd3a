#include "domain/model/forward_pass_regression.hpp"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "domain/deterministic_noise.hpp"
#include "test_data.hpp"

using namespace capstan;

namespace {

const nlohmann::json& vectors() {
  static const nlohmann::json j = testing::load_json("dynamo-vectors.json");
  return j;
}

RegressionState fold(Role role, const nlohmann::json& samples, const RegressionConfig& config = {}) {
  RegressionState s{role, {}, {}, {}, {}};
  for (const auto& row : samples) {
    const IterationReport r{row.at(2).get<double>(), row.at(0).get<double>(), row.at(3).get<double>(),
                            row.at(1).get<double>(), row.at(4).get<double>()};
    s = observe(std::move(s), r, config);
  }
  return s;
}

RegressionState model(const std::string& name) {
  const auto& m = vectors().at("models").at(name);
  Role role = Role::kBoth;
  REQUIRE(parse_role(m.at("role").get<std::string>(), role));
  return fold(role, m.at("samples"));
}

WallTimeFit fitted(const RegressionState& s) {
  auto f = fit(s, RegressionConfig{});
  REQUIRE(f.has_value());
  return *f;
}

}  // namespace

TEST_CASE("Prefill regression recovers PF-A's 1 ms per token and 2 ms intercept") {
  const RegressionState s = model("PF-A");
  const WallTimeFit f = fitted(s);
  CHECK(f.prefill_ms_per_token == Approx(1.0));
  CHECK(f.intercept_ms == Approx(2.0));
  CHECK(f.decode_ms_per_kv_token == 0);
  CHECK(average_prompt_tokens(s) == Approx(1500));
}

TEST_CASE("Dynamo reference: prefill engine rate and TTFT (B1, B9, B10)") {
  for (const auto& c : vectors().at("prefill_rate")) {
    INFO(c.at("id").get<std::string>() << " -- " << c.at("source").get<std::string>());
    const WallTimeFit f = fitted(model(c.at("model")));
    const EngineRate r = prefill_engine_rate(f, c.at("input_tokens"), c.at("max_batched_tokens"));
    const double tol = std::max(1e-12, c.at("tol_rel").get<double>());
    CHECK(r.rps == Approx(c.at("rps").get<double>()).epsilon(tol).margin(1e-12));
    CHECK(r.latency_ms == Approx(c.at("latency_ms").get<double>()).epsilon(tol).margin(1e-12));
  }
}

TEST_CASE("Dynamo reference: chunked TTFT of the queue plus one average prompt (B2-B8)") {
  for (const auto& c : vectors().at("ttft")) {
    INFO(c.at("id").get<std::string>() << " -- " << c.at("source").get<std::string>());
    const RegressionState s = model(c.at("model"));
    const double ttft = estimate_ttft_ms(fitted(s), c.at("queued_tokens"), average_prompt_tokens(s),
                                         c.at("max_batched_tokens"), c.at("kv_hit_rate"));
    CHECK(ttft == Approx(c.at("ttft_ms").get<double>()).epsilon(1e-6));
  }
}

TEST_CASE("A NaN KV hit rate counts as no hit (B8)") {
  const RegressionState s = model("PF-C");
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(estimate_ttft_ms(fitted(s), 4000, average_prompt_tokens(s), 100000, nan) == Approx(6250));
}

TEST_CASE("Dynamo reference: largest decode batch within the ITL target (C1, C2)") {
  for (const auto& c : vectors().at("decode_rate")) {
    INFO(c.at("id").get<std::string>() << " -- " << c.at("source").get<std::string>());
    const WallTimeFit f = fitted(model(c.at("model")));
    const EngineRate r = decode_engine_rate(f, c.at("itl_target_ms"), c.at("context_tokens"),
                                            c.at("output_tokens"), c.at("max_batch"));
    const double tol = c.at("tol_rel");
    CHECK(r.batch == c.at("batch").get<int>());
    CHECK(r.latency_ms == Approx(c.at("itl_ms").get<double>()).epsilon(tol));
    CHECK(r.rps == Approx(c.at("rps").get<double>()).epsilon(tol));
  }
}

TEST_CASE("A decode batch of one that already misses the target is still used (Dynamo warns)") {
  const WallTimeFit f = fitted(model("DC-A"));
  const EngineRate r = decode_engine_rate(f, 5, 1000, 150, 40);
  CHECK(r.batch == 1);
  CHECK(r.latency_ms == Approx(11.0));
  CHECK(decode_engine_rate(f, 50, 0, 150, 40).rps == 0);  // C7
}

TEST_CASE("Aggregated 2D regression recovers known coefficients (C3)") {
  const auto& c = vectors().at("fit_2d");
  const WallTimeFit f = fitted(fold(Role::kBoth, c.at("samples")));
  const double tol = c.at("tol_abs");
  CHECK(f.prefill_ms_per_token == Approx(c.at("prefill_ms_per_token").get<double>()).margin(tol));
  CHECK(f.decode_ms_per_kv_token == Approx(c.at("decode_ms_per_kv_token").get<double>()).margin(tol));
  CHECK(f.intercept_ms == Approx(c.at("intercept_ms").get<double>()).margin(1e-6));
}

TEST_CASE("Regression recovers known coefficients from noisy synthetic forward passes") {
  testing::LcgNoise noise(42);
  RegressionConfig config;
  config.max_samples = 200;
  RegressionState s{Role::kBoth, {}, {}, {}, {}};
  for (int i = 0; i < 200; ++i) {
    const double p = 2048 * noise.uniform();
    const double d = 60000 * noise.uniform();
    const double wall = 0.08 * p + 0.0004 * d + 12;
    s = observe(std::move(s), {wall * (1 + 0.02 * noise.gaussian()), p, 1, d, 32}, config);
  }
  const auto f = fit(s, config);
  REQUIRE(f.has_value());
  CHECK(f->prefill_ms_per_token == Approx(0.08).epsilon(0.03));
  CHECK(f->decode_ms_per_kv_token == Approx(0.0004).epsilon(0.03));
  CHECK(f->intercept_ms == Approx(12).epsilon(0.15));
}

TEST_CASE("Collinear 2D data gives the minimum-norm fit, exact on the training line") {
  RegressionState s{Role::kBoth, {}, {}, {}, {}};
  for (double n : {5.0, 10.0, 20.0, 30.0, 40.0}) s = observe(std::move(s), {0.01 * 1000 * n + 1, n, 1, 1000 * n, n}, {});
  const WallTimeFit f = fitted(s);
  for (double n : {7.0, 25.0}) CHECK(f.wall_time_ms(n, 1000 * n) == Approx(10 * n + 1));
}

TEST_CASE("Idle heartbeats are not samples and too few samples give no fit (B12, B13)") {
  RegressionState s{Role::kPrefill, {}, {}, {}, {}};
  s = observe(std::move(s), {0, 0, 0, 0, 0}, {});
  CHECK(s.samples.empty());
  for (int t = 1; t <= 4; ++t) s = observe(std::move(s), {t * 10.0, t * 100.0, 1, 0, 0}, {});
  CHECK_FALSE(fit(s, {}).has_value());
  s = observe(std::move(s), {50, 500, 1, 0, 0}, {});
  CHECK(fit(s, {}).has_value());
}

TEST_CASE("A negative slope leaves the regression not ready") {
  RegressionState s{Role::kPrefill, {}, {}, {}, {}};
  for (int t = 1; t <= 6; ++t) s = observe(std::move(s), {100.0 - t, t * 100.0, 1, 0, 0}, {});
  CHECK_FALSE(fit(s, {}).has_value());
}

TEST_CASE("The window keeps the newest max_samples iterations") {
  RegressionConfig config;
  config.max_samples = 10;
  RegressionState s{Role::kPrefill, {}, {}, {}, {}};
  for (int t = 1; t <= 20; ++t) s = observe(std::move(s), {t * 1.0, t * 100.0, 1, 0, 0}, config);
  REQUIRE(s.samples.size() == 10);
  CHECK(s.samples.front().prefill_tokens == 1100);
  CHECK(s.prompt_tokens.size() == 10);
}

TEST_CASE("Regression state survives a JSON round trip bit for bit") {
  const RegressionState s = model("DC-A");
  const auto back = nlohmann::json::parse(nlohmann::json(s).dump()).get<RegressionState>();
  CHECK(back == s);
}

namespace {

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

std::vector<std::uint64_t> bits(const std::vector<double>& values) {
  std::vector<std::uint64_t> out;
  for (double v : values) out.push_back(bits(v));
  return out;
}

void check_same_bits(const RegressionState& read, const RegressionState& written) {
  CHECK(read.role == written.role);
  REQUIRE(read.samples.size() == written.samples.size());
  for (std::size_t i = 0; i < read.samples.size(); ++i) {
    CHECK(bits(read.samples[i].prefill_tokens) == bits(written.samples[i].prefill_tokens));
    CHECK(bits(read.samples[i].decode_kv_tokens) == bits(written.samples[i].decode_kv_tokens));
    CHECK(bits(read.samples[i].wall_time_ms) == bits(written.samples[i].wall_time_ms));
  }
  CHECK(bits(read.prompt_tokens) == bits(written.prompt_tokens));
  CHECK(bits(read.decode_length) == bits(written.decode_length));
  CHECK(bits(read.prefill_per_iter) == bits(written.prefill_per_iter));
}

RegressionState through_json_text(const RegressionState& s) {
  return nlohmann::json::parse(nlohmann::json(s).dump()).get<RegressionState>();
}

// A window of 6 that has turned over, with decode lengths older than its samples (its
// prefill-only iterations added none), decode lengths of 3 and 7 requests and of an
// empty context, and an idle heartbeat that scheduled a prompt.
RegressionState turned_over_window() {
  RegressionConfig config;
  config.max_samples = 6;
  RegressionState s{Role::kBoth, {}, {}, {}, {}};
  const IterationReport reports[] = {
      // wall_time_ms, prefill_tokens, prefill_requests, decode_kv_tokens, decode_requests
      {12.5, 800, 2, 0, 0},   {0.1 + 0.2, 0, 0, 1000, 3}, {7.25, 0, 0, 1001, 3}, {9.75, 33, 1, 2002, 7},
      {0, 5, 1, 0, 0},        {8.5, 0, 0, 2005, 7},       {6.0, 900, 1, 0, 0},    {6.5, 950, 1, 0, 0},
      {8.25, 0, 0, 2011, 7},  {8.0, 0, 0, 0, 1}};
  for (const IterationReport& r : reports) s = observe(std::move(s), r, config);
  REQUIRE(s.samples.size() == 6);
  return s;
}

}  // namespace

TEST_CASE("The regression's record gives each decode length as a request count and prefill_per_iter as the samples'") {
  const RegressionState s = turned_over_window();
  const RegressionRecord r = record_of(s);
  // Samples (prefill, decode KV): (33, 2002), (0, 2005), (900, 0), (950, 0), (0, 2011), (0, 0).
  CHECK(r.decode_kv_steps);
  CHECK(r.decode_kv_column == std::vector<double>{2002, 3, -2005, 0, 2011, -2011});
  CHECK(r.decode_requests == std::vector<std::uint64_t>{7, 7, 0, 0, 7, 1});
  CHECK(bits(r.decode_length_before) == bits(std::vector<double>{1000.0 / 3, 1001.0 / 3}));
  // prefill_per_iter: the heartbeat's 5, then the samples' from the second on.
  CHECK(r.prefill_per_iter_from == 1);
  CHECK(bits(r.prefill_per_iter_before) == bits(std::vector<double>{5}));
  check_same_bits(from_record(RegressionState{s.role, s.samples, s.prompt_tokens, {}, {}}, r).value(), s);
  check_same_bits(through_json_text(s), s);
}

TEST_CASE("Averages no request count gives, and KV tokens no steps give, are recorded in full and read back bit for bit") {
  RegressionState s{Role::kDecode, {{0, 1000, 9.5}, {-0.0, 3, 9.5}, {0, 0, 9.5}}, {}, {}, {}};
  s.decode_length = {0.1 + 0.2, -0.0, 1e-300};  // 1000 / n, -0 / n, 0 / n: none of them
  s.prefill_per_iter = {5, -0.0, 0};
  const RegressionRecord r = record_of(s);
  CHECK(r.decode_requests == std::vector<std::uint64_t>{0, 0, 0});
  CHECK(bits(r.decode_length_before) == bits(s.decode_length));
  CHECK(r.prefill_per_iter_from == 1);
  check_same_bits(through_json_text(s), s);

  s.decode_length = {-0.0};  // the -0 of the second sample's -0 tokens
  s.samples[1].decode_kv_tokens = -0.0;
  CHECK(record_of(s).decode_requests == std::vector<std::uint64_t>{0, 1, 0});
  CHECK_FALSE(record_of(s).decode_kv_steps);  // 1000 - 1000 is +0: the values as they are
  check_same_bits(through_json_text(s), s);
}

TEST_CASE("A regression recorded under state schema 3, every series in full, is read") {
  const nlohmann::json schema3 = {{"role", "both"},
                                  {"samples", {{800, 0, 12.5}, {0, 1001, 7.25}}},
                                  {"prompt_tokens", {400}},
                                  {"decode_length", {1001.0 / 3}},
                                  {"prefill_per_iter", {800, 0}}};
  const RegressionState read = schema3.get<RegressionState>();
  const RegressionState expected{Role::kBoth, {{800, 0, 12.5}, {0, 1001, 7.25}}, {400}, {1001.0 / 3}, {800, 0}};
  check_same_bits(read, expected);
}

TEST_CASE("A malformed regression record is refused naming the field") {
  using nlohmann::json;
  const json valid = turned_over_window();
  const auto refusal = [&](const std::string& pointer, const json& value) {
    json doc = valid;
    doc[json::json_pointer(pointer)] = value;
    try {
      doc.get<RegressionState>();
    } catch (const json::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK_THAT(refusal("/sample_columns/3", {7, 1}),
             Catch::Contains("sample_columns' decode_requests must hold one count per sample (6), got 2"));
  CHECK_THAT(refusal("/sample_columns/3", {7, 7, -7, 0, 7, 1}), Catch::Contains("decode_requests: -7 is not an integer >= 0"));
  CHECK_THAT(refusal("/sample_columns/3", {7, 7, 0.5, 0, 7, 1}), Catch::Contains("decode_requests: 0.5 is not an integer >= 0"));
  CHECK_THAT(refusal("/sample_columns/3", 7), Catch::Contains("sample_columns must be [[prefill_tokens...]"));
  CHECK_THAT(refusal("/sample_columns", json::array({json::array({1}), json::array({2}), json::array({3})})),
             Catch::Contains("sample_columns must be [[prefill_tokens...]"));
  CHECK_THAT(refusal("/sample_columns/1", json::array({2})), Catch::Contains("sample_columns must be columns of one length"));
  CHECK_THAT(refusal("/prefill_per_iter_from", 7),
             Catch::Contains("prefill_per_iter_from must be at most the number of samples (6), got 7"));
  CHECK_THAT(refusal("/prefill_per_iter_from", "0"), Catch::Contains("prefill_per_iter_from: \"0\" is not an integer >= 0"));
  CHECK_THAT(refusal("/decode_kv_steps", 1), Catch::Contains("decode_kv_steps must be true or false, got 1"));
  CHECK_THAT(refusal("/role", "both ways"), Catch::Contains("role \"both ways\" is not a role"));
  CHECK(refusal("/prefill_per_iter_from", 6) == "accepted");
}
