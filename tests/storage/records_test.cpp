#include "storage/records.hpp"

#include <bit>
#include <span>
#include <cstdint>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/tick_input_msgpack.hpp"
#include "storage/event_value_reader.hpp"
#include "storage/event_value_writer.hpp"
#include "storage/store_test_support.hpp"

namespace capstan::storage {
namespace {

using nlohmann::json;
using namespace capstan::testing;

std::uint64_t bits(double v) { return std::bit_cast<std::uint64_t>(v); }

std::string through_tree(const Event& e) {
  const std::vector<std::uint8_t> bytes = json::to_msgpack(encode_event_document(e));
  return {bytes.begin(), bytes.end()};
}

std::string from_document(const json& document) {
  const std::vector<std::uint8_t> bytes = json::to_msgpack(document);
  return {bytes.begin(), bytes.end()};
}

template <class T>
const T& tick_event_of(const Event& e) {
  return std::get<T>(std::get<TickEvent>(e.payload));
}

}  // namespace

TEST_CASE("every payload type is named and keyed by its model as the store freezes them") {
  std::vector<std::string> types;
  std::vector<std::optional<ModelKey>> models;
  for (const Event& e : one_of_each_event()) {
    types.push_back(event_type(e.payload));
    models.push_back(event_model(e.payload));
  }
  CHECK(types == std::vector<std::string>{"tick", "observation", "config_applied", "config_rejected", "actuation",
                                          "incident", "incident", "params_learned", "cold_start_learned", "forecast",
                                          "capacity", "stage", "decision", "decision"});
  const std::optional<ModelKey> none;
  CHECK(models == std::vector<std::optional<ModelKey>>{none, kLlama, none, none, kLlama, kQwen, none, kLlama, kLlama,
                                                       kLlama, kLlama, kLlama, kLlama, kQwen});
}

TEST_CASE("the direct MessagePack writer gives the bytes of the JSON tree for every payload type") {
  for (const Event& e : one_of_each_event()) {
    INFO(event_type(e.payload) << ": " << encode_event_document(e).dump());
    CHECK(encode_event_value(e) == through_tree(e));
  }
}

TEST_CASE("every payload type decodes and encodes again to the same bytes") {
  std::uint64_t seq = 0;
  for (const Event& e : one_of_each_event()) {
    const std::string bytes = encode_event_value(e);
    const auto decoded = decode_event_value(++seq, bytes);
    INFO(event_type(e.payload));
    REQUIRE(decoded.ok());
    CHECK(decoded->seq == seq);
    CHECK(bits(decoded->time_s) == bits(e.time_s));
    CHECK(decoded->payload.index() == e.payload.index());
    CHECK(encode_event_value(*decoded) == bytes);
  }
}

TEST_CASE("records read back equal to what was written, doubles bit for bit with NaN and infinities") {
  const std::vector<Event> events = one_of_each_event();
  std::vector<Event> read;
  for (const Event& e : events) {
    auto decoded = decode_event_value(7, encode_event_value(e));
    REQUIRE(decoded.ok());
    read.push_back(std::move(decoded).value());
  }
  CHECK(std::get<TickStarted>(read[0].payload) == std::get<TickStarted>(events[0].payload));
  const ModelTickInput& observed = *std::get<ObservationRecorded>(read[1].payload).input;
  CHECK(observed.model == kLlama);
  CHECK(bits(observed.decode_queue) == bits(kNaN));
  CHECK(bits(observed.variants.at(0).state.pods.at(0).kv_usage) == bits(-0.0));
  CHECK(bits(observed.variants.at(0).state.pods.at(0).running) == bits(kDenormMin));
  CHECK(observed.variants.at(0).state.pods.at(1).request_itl == sample_observation().variants[0].state.pods[1].request_itl);
  CHECK(std::get<ConfigApplied>(read[2].payload) == std::get<ConfigApplied>(events[2].payload));
  CHECK(std::get<ConfigRejected>(read[3].payload) == std::get<ConfigRejected>(events[3].payload));
  CHECK(std::get<ActuationRecorded>(read[4].payload) == std::get<ActuationRecorded>(events[4].payload));
  CHECK(std::get<Incident>(read[5].payload) == std::get<Incident>(events[5].payload));
  CHECK(std::get<Incident>(read[6].payload) == std::get<Incident>(events[6].payload));
  const ParamsLearned& params = tick_event_of<ParamsLearned>(read[7]);
  const ParamsLearned& written = tick_event_of<ParamsLearned>(events[7]);
  for (std::size_t i = 0; i < written.covariance.size(); ++i) {
    INFO("covariance[" << i << "]");
    CHECK(bits(params.covariance[i]) == bits(written.covariance[i]));
  }
  CHECK(bits(params.params.beta_ms) == bits(kDenormMin));
  CHECK(params.accepted_updates == 4'000'000'000L);
  CHECK(bits(tick_event_of<ForecastMade>(read[9]).candidates.at(0).recent_error) == bits(kNaN));
  CHECK(bits(tick_event_of<ForecastMade>(read[9]).observed_rps) == bits(-kInf));
  CHECK(bits(tick_event_of<CapacitySized>(read[10]).demand_rps) == bits(kNaN));
  CHECK(tick_event_of<StageApplied>(read[11]) == tick_event_of<StageApplied>(events[11]));
  CHECK(tick_event_of<DecisionMade>(read[12]).decision.reason.causes().size() == 1);
  CHECK(tick_event_of<DecisionMade>(read[13]) == tick_event_of<DecisionMade>(events[13]));
  for (std::size_t i = 0; i < events.size(); ++i) CHECK(bits(read[i].time_s) == bits(events[i].time_s));
}

TEST_CASE("the direct reader takes every type but the configuration") {
  for (Event e : one_of_each_event()) {
    // A tick number beyond int64 (the sample's) is left to the tree; a real one is not.
    if (auto* tick = std::get_if<TickStarted>(&e.payload)) tick->tick = 1'000'000'007;
    const std::string value = encode_event_value(e);
    const std::span bytes(reinterpret_cast<const std::uint8_t*>(value.data()), value.size());
    const std::string type = event_type(e.payload);
    INFO(type);
    if (type == "config_applied") {
      CHECK_THROWS_AS(read_event_value(1, bytes), MsgpackMismatch);
    } else {
      CHECK(encode_event_value(read_event_value(1, bytes)) == value);
    }
  }
}

TEST_CASE("the direct reader and the JSON tree read every type to the same values") {
  // A member the writer never writes (in an object), or a count written as a float or a
  // whole double as an integer (in a compact layout's array: its third element is one
  // or the other in the decision's, forecast's and capacity's layouts; an observation's
  // second, its priority, a count), sends the same record through the tree.
  for (const Event& e : one_of_each_event()) {
    const std::string direct = encode_event_value(e);
    json document = encode_event_document(e);
    if (document["payload"].is_array()) {
      json& number = document["payload"][event_type(e.payload) == "observation" ? 1 : 2];
      number = number.is_number_float() ? json(static_cast<std::int64_t>(number.get<double>())) : json(number.get<double>());
      const std::string altered = from_document(document);
      REQUIRE_THROWS_AS(read_event_value(5, std::span(reinterpret_cast<const std::uint8_t*>(altered.data()), altered.size())),
                        MsgpackMismatch);
    } else {
      document["payload"]["unknown_member"] = 1;
    }
    const auto through_tree = decode_event_value(5, from_document(document));
    const auto through_reader = decode_event_value(5, direct);
    INFO(event_type(e.payload));
    REQUIRE(through_tree.ok());
    REQUIRE(through_reader.ok());
    CHECK(encode_event_value(*through_tree) == encode_event_value(*through_reader));
    CHECK(bits(through_tree->time_s) == bits(through_reader->time_s));
  }
}

TEST_CASE("the direct reader finds the payload from the envelope's end, whatever the time's encoding") {
  // read_event_value places the payload's end from the members after it; the time takes
  // one to nine bytes (an integer, a float of either width, a token) and the type's
  // length varies, so every type is read at times of each encoding, to what the tree reads.
  for (Event e : one_of_each_event()) {
    if (event_type(e.payload) == "config_applied") continue;
    if (auto* tick = std::get_if<TickStarted>(&e.payload)) tick->tick = 1'000'000'007;
    for (double time_s : {0.0, 30.0, 0.5, 0.1, -0.0, 1e300, kNaN, kInf, -kInf}) {
      e.time_s = time_s;
      json document = encode_event_document(e);
      if (time_s == 30.0) document["time_s"] = 30;  // an integer, as the tree would have it
      const std::string value = from_document(document);
      const auto through_tree = decode_event_value(5, value);
      INFO(event_type(e.payload) << " at " << time_s);
      REQUIRE(through_tree.ok());
      const Event direct = read_event_value(5, std::span(reinterpret_cast<const std::uint8_t*>(value.data()), value.size()));
      CHECK(encode_event_value(direct) == encode_event_value(*through_tree));
      CHECK(bits(direct.time_s) == bits(through_tree->time_s));
    }
  }
}

TEST_CASE("a value whose members after the payload are not where the writer puts them is still read or refused as before") {
  const Event e = decision_event(kLlama, 5);
  const std::string value = encode_event_value(e);
  const auto as_bytes = [](const std::string& v) { return std::span(reinterpret_cast<const std::uint8_t*>(v.data()), v.size()); };
  // The type key as a longer string's encoding: the envelope's end is not recognised, and
  // the step over the payload reads it.
  std::string long_key = value;
  const std::size_t type_key = long_key.rfind("\xA4type");
  REQUIRE(type_key != std::string::npos);
  long_key.replace(type_key, 1, "\xD9\x04");
  CHECK(encode_event_value(read_event_value(5, as_bytes(long_key))) == value);
  // Trailing bytes, a cut value, or a type name out of the ASCII range are refused.
  for (std::string bad : {value + "x", value.substr(0, value.size() - 1), value.substr(0, value.size() - 1) + "\xE9"}) {
    CHECK_THROWS_AS(read_event_value(5, as_bytes(bad)), MsgpackMismatch);
  }
}

TEST_CASE("a NaN event time reads back as NaN") {
  Event e = decision_event(kLlama, kNaN);
  const auto decoded = decode_event_value(1, encode_event_value(e));
  REQUIRE(decoded.ok());
  CHECK(bits(decoded->time_s) == bits(kNaN));
}

TEST_CASE("an unknown schema version of the stored value is refused naming schema and the seq") {
  json document = encode_event_document(decision_event(kLlama, 5));
  document["schema"] = 2;
  const auto decoded = decode_event_value(42, from_document(document));
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("event 42"));
  CHECK_THAT(decoded.error().message, Catch::Contains("schema 2 is not a version this build reads (1)"));
  const auto header = decode_event_header(42, from_document(document));
  REQUIRE_FALSE(header.ok());
  CHECK_THAT(header.error().message, Catch::Contains("schema 2 is not a version"));
}

TEST_CASE("a decision is stored in its compact layout, schema 2, and reads back equal") {
  const Event e = one_of_each_event()[12];
  const std::string value = encode_event_value(e);
  const std::span bytes(reinterpret_cast<const std::uint8_t*>(value.data()), value.size());
  CHECK(payload_schema(bytes) == 2);
  CHECK(encode_event_document(e).at("payload").is_array());
  CHECK(value.find(tick_event_of<DecisionMade>(e).decision.reason.text()) == std::string::npos);
  const auto decoded = decode_event_value(3, value);
  REQUIRE(decoded.ok());
  CHECK(tick_event_of<DecisionMade>(*decoded).decision.reason.causes().at(0) ==
        tick_event_of<DecisionMade>(e).decision.reason.causes().at(0));
  // Schema 1's object is still written when asked, for `replay verify` of older stores.
  std::vector<std::uint8_t> schema1;
  write_event_value(e, schema1, 1);
  CHECK(payload_schema(schema1) == 1);
  CHECK(std::string(schema1.begin(), schema1.end()).find(tick_event_of<DecisionMade>(e).decision.reason.text()) !=
        std::string::npos);
  CHECK(value.size() < schema1.size());
  const auto old = decode_event_value(4, std::string(schema1.begin(), schema1.end()));
  REQUIRE(old.ok());
  CHECK(encode_event_value(*old) == value);
}

TEST_CASE("forecasts and capacity events are stored in their compact layouts, and schema 1 is written when asked") {
  for (const std::size_t i : {std::size_t{9}, std::size_t{10}}) {
    const Event e = one_of_each_event()[i];
    const std::string value = encode_event_value(e);
    INFO(event_type(e.payload));
    CHECK(payload_schema(std::span(reinterpret_cast<const std::uint8_t*>(value.data()), value.size())) == 2);
    CHECK(value.find("lambda_star_rps") == std::string::npos);
    CHECK(value.find("recent_error") == std::string::npos);
    std::vector<std::uint8_t> schema1;
    write_event_value(e, schema1, 1);
    CHECK(payload_schema(schema1) == 1);
    CHECK(value.size() * 2 < schema1.size());
    const auto old = decode_event_value(4, std::string(schema1.begin(), schema1.end()));
    REQUIRE(old.ok());
    CHECK(encode_event_value(*old) == value);
  }
}

TEST_CASE("an observation is stored in its compact layout, schema 2, and one of schema 1 still reads to the same input") {
  const Event e = one_of_each_event()[1];
  REQUIRE(event_type(e.payload) == "observation");
  const std::string value = encode_event_value(e);
  CHECK(payload_schema(std::span(reinterpret_cast<const std::uint8_t*>(value.data()), value.size())) == 2);
  CHECK(value.find("avg_ttft_ms") == std::string::npos);
  std::vector<std::uint8_t> schema1;
  write_event_value(e, schema1, 1);
  CHECK(payload_schema(schema1) == 1);
  CHECK(value.size() * 3 < schema1.size() * 2);
  const auto now = decode_event_value(4, value);
  const auto old = decode_event_value(4, std::string(schema1.begin(), schema1.end()));
  REQUIRE(now.ok());
  REQUIRE(old.ok());
  const ModelTickInput& written = *std::get<ObservationRecorded>(e.payload).input;
  for (const Event* read : {&*now, &*old}) {
    const ModelTickInput& input = *std::get<ObservationRecorded>(read->payload).input;
    CHECK(input.model == written.model);
    CHECK(encode_model_tick_input_msgpack(input) == encode_model_tick_input_msgpack(written));
    CHECK(encode_event_value(*read) == value);
  }
  CHECK(event_to_json(*now) == event_to_json(*old));  // the export line, whichever layout
}

TEST_CASE("an observation payload of an unknown schema is refused naming the payload's schema and the seq") {
  json document = encode_event_document(one_of_each_event()[1]);
  document["payload"][0] = 9;
  auto decoded = decode_event_value(7, from_document(document));
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message,
             Catch::Contains("event 7: payload.schema 9 is not an observation layout this build reads (1 or 2)"));
  document = encode_event_document(one_of_each_event()[1]);
  document["model"] = nullptr;
  decoded = decode_event_value(8, from_document(document));
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("event 8: model must name the model of an observation of schema 2"));
}

TEST_CASE("a decision payload of an unknown schema is refused naming the payload's schema and the seq") {
  json document = encode_event_document(one_of_each_event()[12]);
  document["payload"][0] = 3;
  const std::string value = from_document(document);
  const auto decoded = decode_event_value(42, value);
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message,
             Catch::Contains("event 42: payload.schema 3 is not a decision layout this build reads (1 or 2)"));
  CHECK(payload_schema(std::span(reinterpret_cast<const std::uint8_t*>(value.data()), value.size())) == 3);
  document = encode_event_document(one_of_each_event()[12]);
  document["model"] = nullptr;
  const auto no_model = decode_event_value(43, from_document(document));
  REQUIRE_FALSE(no_model.ok());
  CHECK_THAT(no_model.error().message, Catch::Contains("event 43: model must name the model of a decision of schema 2"));
}

TEST_CASE("an unknown event type is refused naming type") {
  json document = encode_event_document(decision_event(kLlama, 5));
  document["type"] = "decision_guessed";
  const auto decoded = decode_event_value(9, from_document(document));
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("event 9: type is not a known event type, got \"decision_guessed\""));
}

TEST_CASE("an envelope type that differs from its tick event's own is refused") {
  json document = encode_event_document(decision_event(kLlama, 5));
  document["type"] = "stage";
  const auto decoded = decode_event_value(3, from_document(document));
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("type does not match the payload's type"));
}

TEST_CASE("a malformed payload field is refused naming the payload and the field") {
  json document = encode_event_document(one_of_each_event()[4]);
  document["payload"]["status"] = "maybe";
  auto decoded = decode_event_value(11, from_document(document));
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("event 11: payload.status must be requested, applied, failed or acknowledged"));

  document = encode_event_document(one_of_each_event()[7]);
  document["payload"]["covariance"][4] = "x";
  decoded = decode_event_value(12, from_document(document));
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("event 12: payload"));
  CHECK_THAT(decoded.error().message, Catch::Contains("covariance[4] must be a number"));

  document = encode_event_document(one_of_each_event()[0]);
  document["payload"].erase("now_s");
  decoded = decode_event_value(13, from_document(document));
  REQUIRE_FALSE(decoded.ok());
  CHECK_THAT(decoded.error().message, Catch::Contains("event 13: payload.now_s is missing"));
}

TEST_CASE("bytes that are no MessagePack record are refused naming the seq, without throwing") {
  const std::string valid = encode_event_value(decision_event(kLlama, 5));
  for (const std::string& bytes : {std::string(), std::string("\xC1garbage", 8), valid.substr(0, valid.size() / 2),
                                   valid + "x", std::string("\x93\x01\x02\x03", 4)}) {
    const auto decoded = decode_event_value(77, bytes);
    REQUIRE_FALSE(decoded.ok());
    CHECK_THAT(decoded.error().message, Catch::StartsWith("event 77"));
    const auto header = decode_event_header(77, bytes);
    REQUIRE_FALSE(header.ok());
    CHECK_THAT(header.error().message, Catch::StartsWith("event 77"));
  }
}

TEST_CASE("the envelope gives type model and time without the payload") {
  for (const Event& e : one_of_each_event()) {
    const auto header = decode_event_header(1, encode_event_value(e));
    REQUIRE(header.ok());
    CHECK(header->type == event_type(e.payload));
    CHECK(header->model == event_model(e.payload));
    CHECK(bits(header->time_s) == bits(e.time_s));
  }
}

TEST_CASE("the export line carries seq type time model and the payload's fields") {
  Event e = one_of_each_event()[4];
  e.seq = 31;
  const json line = event_to_json(e);
  CHECK(line.at("seq") == 31);
  CHECK(line.at("type") == "actuation");
  CHECK(line.at("time_s").get<double>() == e.time_s);
  CHECK(line.at("model") == json{{"ns", "prod"}, {"model_id", "meta-llama/Llama-3.1-8B"}});
  CHECK(line.at("payload").at("status") == "failed");
  CHECK(line.at("payload").at("error") == "connection refused");
  CHECK(event_to_json(one_of_each_event()[0]).at("model").is_null());
  CHECK(event_to_json(decision_event(kLlama, kNaN)).at("time_s") == "nan");
}

}  // namespace capstan::storage
