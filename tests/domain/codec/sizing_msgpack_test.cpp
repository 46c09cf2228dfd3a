// domain/codec/sizing_msgpack.*: a forecast's and a capacity event's compact records
// (schema 2) read back as written through either reader, and refuse what they cannot
// read naming the field.
#include "domain/codec/sizing_msgpack.hpp"

#include <bit>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/codec/event_codec.hpp"
#include "domain/codec/field_reader.hpp"
#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/msgpack_writer.hpp"
#include "domain/codec/codec_test_support.hpp"

namespace capstan {
namespace {

using nlohmann::json;

const ModelKey kModel{"prod", "meta-llama/Llama-3.1-8B"};
using testing::kNaN;
using testing::kInf;
const double kPointThree = 0.1 + 0.2;

using testing::bits;

ForecastMade forecast() { return {kModel, "holt", 360, kPointThree, -kInf, {{"constant", kNaN}, {"holt", -0.0}}}; }
CapacitySized capacity() {
  return {kModel, "h100", {2000, kPointThree}, "explicit", 1.2003, std::numeric_limits<double>::denorm_min(), "itl-spread", kNaN, 7};
}

template <class Write>
std::vector<std::uint8_t> bytes_of(Write write) {
  std::vector<std::uint8_t> out;
  MsgpackWriter w(out);
  write(w);
  return out;
}

template <class Read>
auto read_all(const std::vector<std::uint8_t>& bytes, Read read) {
  MsgpackReader r(bytes);
  auto out = read(r);
  if (!r.at_end()) throw MsgpackMismatch();
  return out;
}

template <class Read>
std::string error_of(const json& payload, Read read) {
  return testing::compact_error_of(payload, read, kModel);
}

}  // namespace

TEST_CASE("a compact forecast reads back as written through both readers, doubles bit for bit") {
  const ForecastMade written = forecast();
  const auto bytes = bytes_of([&](MsgpackWriter& w) { write_forecast_msgpack(w, written); });
  CHECK(bytes == json::to_msgpack(encode_forecast_compact(written)));
  const json tree = json::from_msgpack(bytes);
  for (const ForecastMade& read : {read_all(bytes, [](MsgpackReader& r) { return read_forecast_msgpack(r, kModel); }),
                                   read_forecast_compact(FieldReader(tree, "payload"), kModel)}) {
    CHECK(read.model == kModel);
    CHECK(read.predictor == "holt");
    CHECK(bits(read.horizon_s) == bits(360));
    CHECK(bits(read.rate_rps) == bits(kPointThree));
    CHECK(bits(read.observed_rps) == bits(-kInf));
    REQUIRE(read.candidates.size() == 2);
    CHECK(read.candidates[0].predictor == "constant");
    CHECK(bits(read.candidates[0].recent_error) == bits(kNaN));
    CHECK(bits(read.candidates[1].recent_error) == bits(-0.0));
    CHECK(bytes_of([&](MsgpackWriter& w) { write_forecast_msgpack(w, read); }) == bytes);
  }
  CHECK(bytes.size() * 3 < json::to_msgpack(encode_event(TickEvent{written})).size());
}

TEST_CASE("a compact capacity event reads back as written through both readers, doubles bit for bit") {
  const CapacitySized written = capacity();
  const auto bytes = bytes_of([&](MsgpackWriter& w) { write_capacity_msgpack(w, written); });
  CHECK(bytes == json::to_msgpack(encode_capacity_compact(written)));
  const json tree = json::from_msgpack(bytes);
  for (const CapacitySized& read : {read_all(bytes, [](MsgpackReader& r) { return read_capacity_msgpack(r, kModel); }),
                                    read_capacity_compact(FieldReader(tree, "payload"), kModel)}) {
    CHECK(read.model == kModel);
    CHECK(read.variant == "h100");
    CHECK(bits(read.slo.ttft_ms) == bits(2000));
    CHECK(bits(read.slo.itl_ms) == bits(kPointThree));
    CHECK(read.slo_source == "explicit");
    CHECK(bits(read.lambda_star_rps) == bits(1.2003));
    CHECK(bits(read.per_replica_rps) == bits(std::numeric_limits<double>::denorm_min()));
    CHECK(read.bound == "itl-spread");
    CHECK(bits(read.demand_rps) == bits(kNaN));
    CHECK(read.required_replicas == 7);
    CHECK(bytes_of([&](MsgpackWriter& w) { write_capacity_msgpack(w, read); }) == bytes);
  }
  CHECK(bytes.size() * 3 < json::to_msgpack(encode_event(TickEvent{written})).size());
}

TEST_CASE("a compact forecast or capacity event of an unknown schema, or malformed, is refused naming the field") {
  json f = encode_forecast_compact(forecast());
  f[0] = 3;
  CHECK_THAT(error_of(f, read_forecast_compact), Catch::Contains("payload.schema 3 is not a forecast layout this build reads (1 or 2)"));
  CHECK_THROWS_AS(read_all(json::to_msgpack(f), [](MsgpackReader& r) { return read_forecast_msgpack(r, kModel); }),
                  MsgpackMismatch);
  f = encode_forecast_compact(forecast());
  f[5].push_back("kalman");
  CHECK_THAT(error_of(f, read_forecast_compact),
             Catch::Contains("payload.candidates must hold predictors and recent errors in pairs"));
  f = encode_forecast_compact(forecast());
  f[3] = "fast";
  CHECK_THAT(error_of(f, read_forecast_compact), Catch::Contains("payload.rate_rps must be a number"));

  json c = encode_capacity_compact(capacity());
  c[0] = 7;
  CHECK_THAT(error_of(c, read_capacity_compact), Catch::Contains("payload.schema 7 is not a capacity layout this build reads (1 or 2)"));
  c = encode_capacity_compact(capacity());
  c[9] = 7.5;
  CHECK_THAT(error_of(c, read_capacity_compact), Catch::Contains("payload.required_replicas must be an integer"));
  c = encode_capacity_compact(capacity());
  c.erase(9);
  CHECK_THAT(error_of(c, read_capacity_compact), Catch::Contains("payload must hold 10 elements"));
}

}  // namespace capstan
