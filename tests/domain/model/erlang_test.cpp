#include "domain/model/erlang.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "test_data.hpp"

using namespace capstan;

TEST_CASE("Erlang C matches every reference case of erlang.json within its tolerance") {
  const auto doc = capstan::testing::load_json("erlang.json");
  const double tol = doc.at("tolerance_rel").get<double>();
  int erlang_cases = 0, required_cases = 0;
  for (const auto& c : doc.at("cases")) {
    INFO(c.dump());
    const double lambda = c.at("arrival_rate"), mu = c.at("service_rate"), t = c.at("sla_seconds");
    if (c.at("kind") == "erlang") {
      ++erlang_cases;
      auto r = erlang_c({lambda, mu, c.at("servers").get<int>()}, t);
      REQUIRE(r.ok());
      CHECK(r->p_wait == Approx(c.at("p_wait").get<double>()).epsilon(tol));
      CHECK(r->p_wait_gt_sla == Approx(c.at("p_wait_gt_sla").get<double>()).epsilon(tol));
      CHECK(r->rho == Approx(lambda / mu / c.at("servers").get<int>()).epsilon(tol));
    } else {
      ++required_cases;
      REQUIRE(c.at("kind") == "required");
      auto k = required_servers(lambda, mu, t, c.at("max_violation").get<double>());
      REQUIRE(k.ok());
      CHECK(*k == c.at("required_servers").get<int>());
    }
  }
  CHECK(erlang_cases >= 5);
  CHECK(required_cases >= 3);
}

TEST_CASE("An unstable queue (rho >= 1) always waits") {
  auto at_capacity = erlang_c({100, 10, 10}, 0.5);
  REQUIRE(at_capacity.ok());
  CHECK(at_capacity->rho == 1.0);
  CHECK(at_capacity->p_wait == 1.0);
  CHECK(at_capacity->p_wait_gt_sla == 1.0);
  auto overloaded = erlang_c({300, 10, 10}, 5.0);
  REQUIRE(overloaded.ok());
  CHECK(overloaded->p_wait == 1.0);
  CHECK(overloaded->p_wait_gt_sla == 1.0);
}

TEST_CASE("No arrivals means no waiting") {
  auto r = erlang_c({0, 1, 1}, 0);
  REQUIRE(r.ok());
  CHECK(r->p_wait == 0.0);
  CHECK(r->rho == 0.0);
  auto k = required_servers(0, 1, 0.1, 0.01);
  REQUIRE(k.ok());
  CHECK(*k == 1);
}

TEST_CASE("The tail decays exponentially with the SLA at rate c mu - lambda") {
  const MmcQueue q{20, 3, 8};
  auto at0 = erlang_c(q, 0), at1 = erlang_c(q, 1.0);
  REQUIRE(at0.ok());
  REQUIRE(at1.ok());
  CHECK(at0->p_wait_gt_sla == Approx(at0->p_wait));
  CHECK(at1->p_wait_gt_sla == Approx(at0->p_wait * std::exp(-(8 * 3.0 - 20))));
}

TEST_CASE("More servers never raise the probability of waiting") {
  for (double lambda : {5.0, 95.0, 900.0}) {
    double last_wait = 1.0, last_tail = 1.0;
    for (int c = 1; c <= 1200; ++c) {
      auto r = erlang_c({lambda, 1.0, c}, 0.05);
      REQUIRE(r.ok());
      CHECK(r->p_wait <= last_wait);
      CHECK(r->p_wait_gt_sla <= last_tail);
      CHECK(r->p_wait >= 0.0);
      last_wait = r->p_wait;
      last_tail = r->p_wait_gt_sla;
    }
    CHECK(last_wait < 1e-12);
  }
}

TEST_CASE("Thousands of servers stay finite and between 0 and 1") {
  auto r = erlang_c({4990, 1, 5000}, 0.01);
  REQUIRE(r.ok());
  CHECK(std::isfinite(r->p_wait));
  CHECK(r->p_wait > 0.0);
  CHECK(r->p_wait < 1.0);
  auto k = required_servers(20000, 1, 0.01, 0.001);
  REQUIRE(k.ok());
  CHECK(*k > 20000);
  CHECK(*k < 20600);
}

TEST_CASE("Required servers is the smallest stable count meeting the budget") {
  const double lambda = 37, mu = 2.5, t = 0.2, p = 0.02;
  auto k = required_servers(lambda, mu, t, p);
  REQUIRE(k.ok());
  CHECK(*k >= static_cast<int>(std::floor(lambda / mu)) + 1);
  auto at_k = erlang_c({lambda, mu, *k}, t);
  REQUIRE(at_k.ok());
  CHECK(at_k->p_wait_gt_sla < p);
  auto below = erlang_c({lambda, mu, *k - 1}, t);
  REQUIRE(below.ok());
  CHECK(below->p_wait_gt_sla >= p);
}

TEST_CASE("Required servers grows with the arrival rate and a tighter budget") {
  int last = 0;
  for (double lambda = 1; lambda <= 400; lambda *= 1.5) {
    auto k = required_servers(lambda, 1, 0.1, 0.01);
    REQUIRE(k.ok());
    CHECK(*k >= last);
    last = *k;
  }
  auto loose = required_servers(100, 1, 0.1, 0.1), tight = required_servers(100, 1, 0.1, 0.0001);
  REQUIRE(loose.ok());
  REQUIRE(tight.ok());
  CHECK(*tight > *loose);
}

TEST_CASE("Invalid Erlang inputs are errors naming the field") {
  auto neg = erlang_c({-1, 1, 2}, 0.1);
  REQUIRE_FALSE(neg.ok());
  CHECK(neg.error().message.find("arrival_rate_rps") != std::string::npos);
  CHECK(neg.error().message.find("-1") != std::string::npos);
  auto mu = erlang_c({1, 0, 2}, 0.1);
  REQUIRE_FALSE(mu.ok());
  CHECK(mu.error().message.find("service_rate_rps") != std::string::npos);
  auto servers = erlang_c({1, 1, 0}, 0.1);
  REQUIRE_FALSE(servers.ok());
  CHECK(servers.error().message.find("servers") != std::string::npos);
  CHECK_FALSE(erlang_c({1, 1, kMaxErlangServers + 1}, 0.1).ok());
  auto sla = erlang_c({1, 1, 2}, NAN);
  REQUIRE_FALSE(sla.ok());
  CHECK(sla.error().message.find("sla_s") != std::string::npos);
  auto p = required_servers(1, 1, 0.1, 0);
  REQUIRE_FALSE(p.ok());
  CHECK(p.error().message.find("max_violation") != std::string::npos);
  auto capped = required_servers(1000, 1, 0.1, 0.01, 100);
  REQUIRE_FALSE(capped.ok());
  CHECK(capped.error().code == ErrorCode::kTargetUnreachable);
}
