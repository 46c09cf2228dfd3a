#include "domain/model/sla_sizing.hpp"

#include <cmath>

#include <catch2/catch.hpp>

#include "test_data.hpp"

using namespace capstan;

namespace {

// A profile whose throughput does not depend on the operating point, as in Dynamo's
// replica-calculation tests (mocked interpolators returning one figure).
PrefillProfile flat_prefill(double thpt) {
  return make_prefill_profile({{100, 8000}, {20, 400}, {thpt, thpt}}).value();
}

DecodeProfile flat_decode(double thpt) {
  return make_decode_profile({{0.1, 0.9}, {4000, 4000}, {5, 9}, {thpt, thpt}, 100000}).value();
}

}  // namespace

TEST_CASE("Dynamo reference: prefill and decode replicas for a predicted load (G1-G6)") {
  const auto cases = testing::load_json("dynamo-vectors.json").at("replicas");
  for (const auto& c : cases) {
    INFO(c.at("id").get<std::string>() << " -- " << c.at("source").get<std::string>());
    const double rate = c.at("requests").get<double>() / c.at("interval_s").get<double>();
    const double isl = c.at("isl"), osl = c.at("osl");
    const double p_rps = prefill_replica_rps(flat_prefill(c.at("prefill_thpt_per_gpu")), isl,
                                             c.at("prefill_gpus"), c.at("prefill_correction"));
    const double d_rps = decode_replica_rps(flat_decode(c.at("decode_thpt_per_gpu")), 10, isl, osl,
                                            c.at("decode_gpus"), c.at("decode_correction"));
    CHECK(std::max(1, replicas_for(rate, p_rps)) == c.at("prefill_replicas").get<int>());
    CHECK(std::max(1, replicas_for(rate, d_rps)) == c.at("decode_replicas").get<int>());
  }
}

TEST_CASE("Dynamo reference: KV usage of a decode engine at the observed concurrency (G8)") {
  const auto c = testing::load_json("dynamo-vectors.json").at("kv_usage");
  CHECK(kv_usage_at(c.at("concurrency"), c.at("context_tokens"), c.at("max_kv_tokens")) ==
        Approx(c.at("kv_usage").get<double>()));
  CHECK(decode_context_tokens(3000, 150) == 3075);
}

TEST_CASE("A prefill correction below one lowers the load, above one is ignored") {
  const PrefillProfile p = flat_prefill(40000);
  CHECK(prefill_replica_rps(p, 3000, 1, 0.5) == Approx(2 * 40000.0 / 3000));
  CHECK(prefill_replica_rps(p, 3000, 1, 2.5) == Approx(40000.0 / 3000));
  CHECK(prefill_replica_rps(p, 3000, 1, std::nan("")) == Approx(40000.0 / 3000));
  CHECK(prefill_replica_rps(p, 0, 1, 1) == 0);
}

TEST_CASE("A decode correction above one tightens the ITL target and lowers capacity") {
  // ITL 10 ms at usage 0.2 (10 000 tok/s/GPU), 30 ms at 0.8 (30 000 tok/s/GPU).
  const DecodeProfile d = make_decode_profile({{0.2, 0.8}, {3075, 3075}, {10, 30}, {10000, 30000}, 100000}).value();
  const double plain = decode_replica_rps(d, 20, 3000, 150, 1, 1);   // ITL 20 -> 20 000 tok/s
  const double tight = decode_replica_rps(d, 20, 3000, 150, 1, 2);   // ITL 10 -> 10 000 tok/s
  CHECK(plain == Approx(20000.0 / 150));
  CHECK(tight == Approx(10000.0 / 150));
  CHECK(decode_replica_rps(d, 20, 3000, 150, 1, -1) == Approx(plain));
}

TEST_CASE("Correction factors compare observed latency with the profile's") {
  const PrefillProfile p = make_prefill_profile({{1000, 3000}, {20, 60}, {40000, 40000}}).value();
  CHECK(prefill_correction(p, 80, 2000) == Approx(2.0));  // profile: 40 ms at 2000
  CHECK(std::isnan(prefill_correction(p, 0, 2000)));
  const DecodeProfile d = make_decode_profile({{0.0, 1.0}, {3075, 3075}, {10, 30}, {10000, 30000}, 100000}).value();
  // 16 requests x 3075 tokens = 49 200 of 100 000: ITL 19.84 ms expected.
  CHECK(decode_correction(d, 19.84, 16, 3075) == Approx(1.0));
  CHECK(std::isnan(decode_correction(d, 20, 0, 3075)));
}

TEST_CASE("Replica counts round up, but not when the load is exactly at capacity") {
  CHECK(replicas_for(30, 10) == 3);
  CHECK(replicas_for(30.5, 10) == 4);
  CHECK(replicas_for(0.1 * 3, 0.1) == 3);
  CHECK(replicas_for(0, 10) == 0);
  CHECK(time_shared_rps(10, 10) == Approx(5));
}
