#include "domain/model/queue_model.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "domain/core/format.hpp"
#include "test_data.hpp"

using namespace capstan;

namespace {

QueueAnalyzer make(double a, double b, double g, double in, double out, int batch = 256,
                   int queue = 100) {
  auto qa = QueueAnalyzer::create({a, b, g}, {batch, queue}, {in, out});
  REQUIRE(qa.ok());
  return qa.value();
}

}  // namespace

TEST_CASE("Size matches every WVA reference case within the stated tolerance") {
  const auto doc = capstan::testing::load_json("wva-queue.json");
  const double tol = doc.at("tolerance_rel").get<double>();
  REQUIRE(doc.at("cases").size() >= 10);
  for (const auto& c : doc.at("cases")) {
    INFO(c.dump());
    auto qa = make(c["alpha"], c["beta"], c["gamma"], c["input_tokens"], c["output_tokens"],
                   c["max_batch"], c["max_queue"]);
    auto sized = qa.size({c["target_ttft_ms"], c["target_itl_ms"]});
    if (c.value("expect_error", false)) {
      REQUIRE_FALSE(sized.ok());
      CHECK(sized.error().code == ErrorCode::kTargetUnreachable);
      continue;
    }
    REQUIRE(sized.ok());
    CHECK(sized->lambda_star_rps == Approx(c["lambda_star"].get<double>()).epsilon(tol));
    CHECK(sized->at_lambda_star.throughput_rps == Approx(c["throughput"].get<double>()).epsilon(tol));
    CHECK(sized->at_lambda_star.ttft_ms == Approx(c["ttft_ms"].get<double>()).epsilon(tol));
    CHECK(sized->at_lambda_star.itl_ms == Approx(c["itl_ms"].get<double>()).epsilon(tol));
    CHECK(sized->at_lambda_star.rho == Approx(c["rho"].get<double>()).epsilon(tol));
  }
}

TEST_CASE("Predicted TTFT and ITL grow with the arrival rate") {
  auto qa = make(5.0, 0.05, 5e-5, 512, 128);
  double last_ttft = 0, last_itl = 0;
  for (double frac = 0.05; frac < 1.0; frac += 0.05) {
    auto m = qa.analyze(frac * qa.max_rate_rps());
    REQUIRE(m.ok());
    CHECK(m->ttft_ms > last_ttft);
    CHECK(m->itl_ms > last_itl);
    CHECK(m->rho >= 0);
    CHECK(m->rho <= 1);
    last_ttft = m->ttft_ms;
    last_itl = m->itl_ms;
  }
}

TEST_CASE("At light load latency approaches the closed form of seed 000 section 9") {
  // rho -> 0: T_iter -> alpha, so ITL -> alpha + beta + gamma(i + o/2) plus one
  // request's own work, and the wait vanishes.
  auto qa = make(10.0, 0.01, 0.001, 1000, 100);
  auto m = qa.analyze(qa.min_rate_rps());
  REQUIRE(m.ok());
  CHECK(m->avg_wait_ms == Approx(0).margin(1e-6));
  CHECK(m->avg_in_service == Approx(qa.min_rate_rps() / 1000.0 *
                                    (qa.prefill_time_ms(1) + 100 * qa.decode_time_ms(1)))
                                 .epsilon(0.01));
  CHECK(m->itl_ms == Approx(qa.decode_time_ms(1)).epsilon(0.01));
}

TEST_CASE("A zero target leaves that metric unconstrained") {
  auto qa = make(10.0, 0.01, 0.001, 1000, 100, 64);
  auto both_free = qa.size({0, 0});
  REQUIRE(both_free.ok());
  CHECK(both_free->lambda_star_rps == Approx(qa.max_rate_rps()));
  auto itl_only = qa.size({0, 30});
  REQUIRE(itl_only.ok());
  CHECK(itl_only->lambda_ttft_rps == Approx(qa.max_rate_rps()));
  CHECK(itl_only->lambda_star_rps == itl_only->lambda_itl_rps);
}

TEST_CASE("A target below the lowest rate's latency is an error that says so") {
  auto qa = make(20.0, 0.03, 0.001, 2048, 64, 128);
  auto r = qa.size({300, 15});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kTargetUnreachable);
  CHECK_THAT(r.error().message, Catch::Contains("below the bounded region"));
}

TEST_CASE("An unreachable target's sentence names the target, the lowest rate and what the model predicts there") {
  const Error e = UnreachableTarget{"ITL", 15, 0.25, 17.5}.error();
  CHECK(e.code == ErrorCode::kTargetUnreachable);
  CHECK(e.message == "target ITL 15 ms is below the bounded region: even at the lowest rate 0.25 req/s the model predicts 17.5 ms");
}

TEST_CASE("A sizing that finds no rate tells its error's code without rendering it, and its sentence when read") {
  auto qa = make(20.0, 0.03, 0.001, 2048, 64, 128);
  auto ttft = qa.size({50, 0});
  REQUIRE_FALSE(ttft);
  CHECK(ttft.error_code() == ErrorCode::kTargetUnreachable);
  CHECK_THAT(ttft.error().message, Catch::StartsWith("target TTFT 50 ms is below the bounded region: even at the lowest rate " +
                                                     fmt_num(qa.min_rate_rps()) + " req/s the model predicts "));
  auto itl = qa.size({0, 15});
  REQUIRE_FALSE(itl);
  CHECK(itl.error_code() == ErrorCode::kTargetUnreachable);
  CHECK_THAT(itl.error().message, Catch::StartsWith("target ITL 15 ms is below"));
  // A target the sizing refuses to read is an invalid argument, with its own message.
  auto negative = qa.size({-1, 50});
  REQUIRE_FALSE(negative);
  CHECK(negative.error_code() == ErrorCode::kInvalidArgument);
  CHECK(negative.error().code == ErrorCode::kInvalidArgument);
  CHECK_FALSE(negative.error().message.empty());
}

TEST_CASE("Analyze rejects rates outside the model's range") {
  auto qa = make(5.0, 0.05, 5e-5, 512, 128);
  CHECK_FALSE(qa.analyze(0).ok());
  CHECK_FALSE(qa.analyze(-1).ok());
  CHECK_FALSE(qa.analyze(std::nan("")).ok());
  CHECK_FALSE(qa.analyze(qa.max_rate_rps() * 1.01).ok());
  CHECK(qa.analyze(qa.max_rate_rps()).ok());
}

TEST_CASE("Invalid parameters are rejected with the name of the field") {
  auto bad_alpha = QueueAnalyzer::create({-1, 0.05, 5e-5}, {256, 100}, {512, 128});
  REQUIRE_FALSE(bad_alpha.ok());
  CHECK_THAT(bad_alpha.error().message, Catch::Contains("alpha"));
  auto bad_out = QueueAnalyzer::create({5, 0.05, 5e-5}, {256, 100}, {512, 0.5});
  REQUIRE_FALSE(bad_out.ok());
  CHECK_THAT(bad_out.error().message, Catch::Contains("output_tokens"));
  auto bad_batch = QueueAnalyzer::create({5, 0.05, 5e-5}, {0, 100}, {512, 128});
  REQUIRE_FALSE(bad_batch.ok());
  CHECK_THAT(bad_batch.error().message, Catch::Contains("max_batch_size"));
  auto nan_gamma = QueueAnalyzer::create({5, 0.05, std::nan("")}, {256, 100}, {512, 128});
  REQUIRE_FALSE(nan_gamma.ok());
  CHECK_THAT(nan_gamma.error().message, Catch::Contains("gamma"));
}

TEST_CASE("The chain stays finite for K in the thousands at high load") {
  auto qa = make(5.0, 0.05, 5e-5, 512, 128, 2048, 20480);
  for (double frac : {0.001, 0.5, 0.9, 0.999}) {
    auto m = qa.analyze(frac * qa.max_rate_rps());
    REQUIRE(m.ok());
    CHECK(std::isfinite(m->ttft_ms));
    CHECK(std::isfinite(m->itl_ms));
    CHECK(m->throughput_rps > 0);
    CHECK(m->throughput_rps <= m->rate_rps * (1 + 1e-12));
  }
  auto sized = qa.size({2000, 60});
  REQUIRE(sized.ok());
  CHECK(std::isfinite(sized->lambda_star_rps));
}

TEST_CASE("Sizing is deterministic to the bit") {
  auto qa = make(8.0, 0.016, 0.0005, 1024, 256);
  auto a = qa.size({500, 50});
  auto b = qa.size({500, 50});
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->lambda_star_rps == b->lambda_star_rps);
  CHECK(a->at_lambda_star.ttft_ms == b->at_lambda_star.ttft_ms);
}

namespace {

bool same_bits(const QueueMetrics& a, const QueueMetrics& b) {
  const double xa[] = {a.rate_rps, a.throughput_rps, a.avg_resp_ms, a.avg_wait_ms, a.avg_in_service,
                       a.avg_prefill_ms, a.itl_ms, a.ttft_ms, a.rho};
  const double xb[] = {b.rate_rps, b.throughput_rps, b.avg_resp_ms, b.avg_wait_ms, b.avg_in_service,
                       b.avg_prefill_ms, b.itl_ms, b.ttft_ms, b.rho};
  return std::memcmp(xa, xb, sizeof(xa)) == 0;
}

bool same_bits(const Sizing& a, const Sizing& b) {
  return std::memcmp(&a.lambda_star_rps, &b.lambda_star_rps, sizeof(double)) == 0 &&
         std::memcmp(&a.lambda_ttft_rps, &b.lambda_ttft_rps, sizeof(double)) == 0 &&
         std::memcmp(&a.lambda_itl_rps, &b.lambda_itl_rps, sizeof(double)) == 0 &&
         same_bits(a.at_lambda_star, b.at_lambda_star) && a.evaluations == b.evaluations;
}

}  // namespace

// The analyzer remembers the chains it solved (a plan sizes one analyzer several times):
// what it answers after other questions must be what a fresh analyzer answers.
TEST_CASE("An analyzer answers every question as a fresh one does, whatever it was asked before") {
  const auto fresh = [] { return make(8.0, 0.016, 0.0005, 1024, 256); };
  auto used = fresh();
  const double max_rps = used.max_rate_rps();
  const double rates[] = {used.min_rate_rps(), 0.25 * max_rps, 0.5 * max_rps, 0.9 * max_rps, max_rps};
  // Ask in one order, then in the other, then sizings that share their end points and
  // (for the same TTFT target) their whole TTFT search.
  for (double r : rates) REQUIRE(used.analyze(r).ok());
  for (int i = 4; i >= 0; --i) {
    auto again = used.analyze(rates[i]);
    auto first = fresh().analyze(rates[i]);
    REQUIRE(again.ok());
    REQUIRE(first.ok());
    CHECK(same_bits(*again, *first));
  }
  const SloTargets asked[] = {{500, 50}, {0, 40}, {500, 40}, {500, 50}, {2000, 0}};
  for (const SloTargets& t : asked) {
    INFO(t.ttft_ms << " ms TTFT, " << t.itl_ms << " ms ITL");
    auto again = used.size(t);
    auto first = fresh().size(t);
    REQUIRE(again.ok() == first.ok());
    if (again.ok()) CHECK(same_bits(*again, *first));
  }
}

TEST_CASE("An analyzer asked more rates than it remembers still answers each as a fresh one does") {
  const auto fresh = [] { return make(8.0, 0.016, 0.0005, 1024, 256); };
  auto used = fresh();
  std::vector<double> rates;
  for (int i = 1; i <= 80; ++i) rates.push_back(used.max_rate_rps() * i / 80.0);
  for (double r : rates) REQUIRE(used.analyze(r).ok());
  for (double r : rates) {
    auto again = used.analyze(r);
    auto first = fresh().analyze(r);
    REQUIRE(again.ok());
    REQUIRE(first.ok());
    CHECK(same_bits(*again, *first));
  }
  auto again = used.size({500, 50});
  auto first = fresh().size({500, 50});
  REQUIRE(again.ok());
  REQUIRE(first.ok());
  CHECK(same_bits(*again, *first));
}

namespace {

// The chain solved as the analyzer once did, with every 1/mu(n) made before the first
// solve: the lazily filled table must give the same bits.
// Analyzers whose chains are cut early, never reach the queue, go beyond the inline
// service table (batch 300) or are rescaled at high load (batch 2048).
const struct TableCase {
  ServiceParams params;
  QueueConfig config;
  RequestSize size;
} kTableCases[] = {{{8.0, 0.016, 0.0005}, {256, 100}, {1024, 256}},
                   {{5.0, 0.05, 5e-5}, {64, 0}, {0, 1}},
                   {{22.3, 0.127, 0.00079}, {300, 300}, {512, 128}},
                   {{5.0, 0.05, 5e-5}, {2048, 20480}, {512, 128}}};

QueueMetrics solved_with_whole_table(const ServiceParams& sp, const QueueConfig& c, const RequestSize& s,
                                     double rate_rps) {
  const double i = s.input_tokens, o = s.output_tokens;
  const double per_batch = sp.beta_ms * ((i + o) / (o + 1)) + sp.gamma_ms * (i + o / 2);
  const double prefill_extra = (sp.beta_ms + sp.gamma_ms) * i, decode_extra = sp.gamma_ms * (i + o / 2);
  std::vector<double> inv_mu;
  for (int n = 1; n <= c.max_batch_size; ++n) {
    const double batch = n, iteration = sp.alpha_ms + batch * per_batch;
    const double prefill = i != 0 ? iteration + prefill_extra : 0.0;
    inv_mu.push_back((prefill + o * (iteration + sp.beta_ms + decode_extra)) / batch);
  }
  const double lambda = rate_rps / 1000.0;
  const int n_max = c.max_batch_size, k_max = n_max + c.max_queue_size;
  double p = 1, mass = 1, moment = 0;
  int k = 1;
  for (; k <= n_max; ++k) {
    const double ratio = lambda * inv_mu[k - 1];
    p *= ratio, mass += p, moment += k * p;
    if (p > 1e250) p *= 1e-250, mass *= 1e-250, moment *= 1e-250;
    if (ratio < 1 && p < mass * 1e-18) { p = 0; break; }
  }
  double mass_served = mass, moment_served = moment;
  if (k > n_max) {
    const double ratio = lambda * inv_mu[n_max - 1];
    for (; k <= k_max; ++k) {
      p *= ratio, mass += p, moment += k * p;
      if (p > 1e250) p *= 1e-250, mass *= 1e-250, moment *= 1e-250, mass_served *= 1e-250, moment_served *= 1e-250;
      if (ratio < 1 && p < mass * 1e-18) { p = 0; break; }
    }
  }
  const double p_full = (k > k_max) ? p / mass : 0.0;
  const double in_service = (moment_served + n_max * (mass - mass_served)) / mass;
  QueueMetrics m;
  m.rate_rps = lambda * 1000.0;
  const double throughput = lambda * (1 - p_full);
  m.throughput_rps = throughput * 1000.0;
  m.avg_resp_ms = moment / mass / throughput;
  const double service_ms = in_service / throughput;
  m.avg_wait_ms = std::max(0.0, m.avg_resp_ms - service_ms);
  m.avg_in_service = in_service;
  m.avg_prefill_ms = i != 0 ? sp.alpha_ms + in_service * per_batch + prefill_extra : 0.0;
  m.itl_ms = (service_ms - m.avg_prefill_ms) / o;
  m.ttft_ms = m.avg_wait_ms + m.avg_prefill_ms + m.itl_ms;
  m.rho = std::clamp(in_service / n_max, 0.0, 1.0);
  return m;
}

}  // namespace

// 1/mu(n) is filled as the chain reaches state n (a light load stops after a few dozen
// states): light rates first, then heavier ones that need more of the table, then the
// light ones again, each must be what the whole table gives.
TEST_CASE("An analyzer that fills its service table as solves reach it solves as with the whole table") {
  for (const auto& c : kTableCases) {
    auto qa = QueueAnalyzer::create(c.params, c.config, c.size);
    REQUIRE(qa.ok());
    std::vector<double> rates;
    for (double frac : {1e-4, 0.01, 0.2, 0.5, 0.9, 0.999, 1.0}) rates.push_back(frac * qa->max_rate_rps());
    rates.push_back(qa->min_rate_rps());
    for (int pass = 0; pass < 2; ++pass) {
      for (double r : rates) {
        INFO("batch " << c.config.max_batch_size << ", rate " << r);
        auto m = qa->analyze(r);
        REQUIRE(m.ok());
        CHECK(same_bits(*m, solved_with_whole_table(c.params, c.config, c.size, r)));
      }
    }
  }
}

// Two chains are solved at once in an SSE2 register's two halves (analyze_pair, and a
// sizing's searches): each must be what it is alone, wherever either is cut, rescaled or
// runs into the queue, and whichever half it is in.
TEST_CASE("Two chains solved at once are each what the whole table gives alone") {
  const double fractions[] = {1e-4, 0.01, 0.2, 0.5, 0.9, 0.97, 0.999, 1.0};
  for (const auto& c : kTableCases) {
    for (double fa : fractions) {
      for (double fb : fractions) {
        auto qa = QueueAnalyzer::create(c.params, c.config, c.size);
        REQUIRE(qa.ok());
        const double ra = fa * qa->max_rate_rps(), rb = fb * qa->max_rate_rps();
        INFO("batch " << c.config.max_batch_size << ", rates " << ra << " and " << rb);
        const auto [a, b] = qa->analyze_pair(ra, rb);
        REQUIRE(a.ok());
        REQUIRE(b.ok());
        CHECK(same_bits(*a, solved_with_whole_table(c.params, c.config, c.size, ra)));
        CHECK(same_bits(*b, solved_with_whole_table(c.params, c.config, c.size, rb)));
      }
    }
  }
}

TEST_CASE("A pair of rates of which analyze refuses one answers each as analyze does") {
  auto qa = make(8.0, 0.016, 0.0005, 1024, 256);
  const auto [a, b] = qa.analyze_pair(0.5 * qa.max_rate_rps(), 2 * qa.max_rate_rps());
  REQUIRE(a.ok());
  CHECK(same_bits(*a, *make(8.0, 0.016, 0.0005, 1024, 256).analyze(0.5 * qa.max_rate_rps())));
  REQUIRE_FALSE(b.ok());
  CHECK(b.error().code == ErrorCode::kModelError);
}

// size() makes its TTFT and ITL searches together, two chains at a time: each must find
// what a sizing with that target alone finds.
TEST_CASE("A sizing's TTFT and ITL searches made together each find what they find alone") {
  const struct {
    ServiceParams params;
    RequestSize size;
  } cases[] = {{{8.0, 0.016, 0.0005}, {1024, 256}}, {{22.3, 0.127, 0.00079}, {512, 128}}, {{34.0, 0.246, 0.0016}, {2000, 300}}};
  for (const auto& c : cases) {
    for (double ttft_ms : {300.0, 500.0, 2000.0, 10000.0}) {
      for (double itl_ms : {30.0, 50.0, 100.0, 400.0}) {
        INFO(ttft_ms << " ms TTFT, " << itl_ms << " ms ITL, alpha " << c.params.alpha_ms);
        const auto fresh = [&] { return make(c.params.alpha_ms, c.params.beta_ms, c.params.gamma_ms, c.size.input_tokens, c.size.output_tokens); };
        auto both = fresh().size({ttft_ms, itl_ms});
        auto ttft = fresh().size({ttft_ms, 0});
        auto itl = fresh().size({0, itl_ms});
        if (!ttft.ok() || !itl.ok()) {
          CHECK_FALSE(both.ok());
          continue;
        }
        REQUIRE(both.ok());
        CHECK(std::memcmp(&both->lambda_ttft_rps, &ttft->lambda_ttft_rps, sizeof(double)) == 0);
        CHECK(std::memcmp(&both->lambda_itl_rps, &itl->lambda_itl_rps, sizeof(double)) == 0);
        CHECK(both->evaluations == ttft->evaluations + itl->evaluations - 3);  // the ends and the last solve, once
      }
    }
  }
}
