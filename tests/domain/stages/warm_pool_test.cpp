#include "domain/stages/warm_pool.hpp"

#include <catch2/catch.hpp>

#include "domain/model/erlang.hpp"

using namespace capstan;

namespace {

WarmPoolInputs base() {
  WarmPoolInputs in;
  in.arrival_rate_rps = 15;
  in.service_rate_rps = 4;
  in.sla_s = 0.5;
  in.cost_per_gpu_hour = 2;
  in.gpus_per_replica = 1;
  in.sla_penalty_per_hour = 100;
  in.min_replicas = 0;
  in.max_replicas = 50;
  return in;
}

}  // namespace

TEST_CASE("The warm pool stops at the valley of J and its neighbours cost more") {
  const WarmPoolInputs in = base();
  auto choice = optimize_warm_pool(in);
  REQUIRE(choice.ok());
  CHECK_FALSE(choice->capped);
  CHECK(choice->stable_min_replicas == 4);
  const int k = choice->replicas;
  REQUIRE(k > choice->stable_min_replicas);  // the penalty buys headroom
  auto j = [&](int n) { return warm_pool_cost_per_hour(in, n).value(); };
  CHECK(choice->cost_per_hour == Approx(j(k)));
  CHECK(j(k) < j(k - 1));
  CHECK(j(k) < j(k + 1));
  // The valley is the global minimum over the whole range.
  for (int n = choice->stable_min_replicas; n <= in.max_replicas; ++n) CHECK(j(k) <= j(n));
  CHECK(choice->gpu_cost_per_hour == Approx(2.0 * k));
  auto tail = erlang_c({15, 4, k}, 0.5);
  REQUIRE(tail.ok());
  CHECK(choice->p_violation == Approx(tail->p_wait_gt_sla));
  CHECK(choice->penalty_per_hour == Approx(100 * tail->p_wait_gt_sla));
  CHECK(choice->reason.find("valley") != std::string::npos);
}

TEST_CASE("GPUs per replica multiply the GPU cost and shrink the pool") {
  WarmPoolInputs in = base();
  auto one = optimize_warm_pool(in);
  in.gpus_per_replica = 8;
  auto eight = optimize_warm_pool(in);
  REQUIRE(one.ok());
  REQUIRE(eight.ok());
  CHECK(eight->replicas <= one->replicas);
  CHECK(eight->gpu_cost_per_hour == Approx(2.0 * 8 * eight->replicas));
}

TEST_CASE("A free SLA keeps only the stable minimum warm") {
  WarmPoolInputs in = base();
  in.sla_penalty_per_hour = 0;
  auto choice = optimize_warm_pool(in);
  REQUIRE(choice.ok());
  CHECK(choice->replicas == choice->stable_min_replicas);
}

TEST_CASE("The scan starts at min_replicas when that is above the stable minimum") {
  WarmPoolInputs in = base();
  in.min_replicas = 20;
  auto choice = optimize_warm_pool(in);
  REQUIRE(choice.ok());
  CHECK(choice->replicas == 20);
}

TEST_CASE("max_replicas bounds the pool and says so") {
  WarmPoolInputs in = base();
  in.sla_penalty_per_hour = 1e9;
  in.max_replicas = 6;
  auto capped = optimize_warm_pool(in);
  REQUIRE(capped.ok());
  CHECK(capped->replicas == 6);
  CHECK(capped->capped);
  CHECK(capped->reason.find("max_replicas") != std::string::npos);

  in.max_replicas = 3;  // below the stable minimum of 4
  auto unstable = optimize_warm_pool(in);
  REQUIRE(unstable.ok());
  CHECK(unstable->replicas == 3);
  CHECK(unstable->capped);
  CHECK(unstable->p_violation == 1.0);
}

TEST_CASE("Invalid warm-pool inputs are errors naming the field") {
  WarmPoolInputs in = base();
  in.cost_per_gpu_hour = -1;
  auto cost = optimize_warm_pool(in);
  REQUIRE_FALSE(cost.ok());
  CHECK(cost.error().message.find("cost_per_gpu_hour") != std::string::npos);
  in = base();
  in.max_replicas = 0;
  auto max = optimize_warm_pool(in);
  REQUIRE_FALSE(max.ok());
  CHECK(max.error().message.find("max_replicas") != std::string::npos);
  in = base();
  in.service_rate_rps = NAN;
  CHECK_FALSE(optimize_warm_pool(in).ok());
}
