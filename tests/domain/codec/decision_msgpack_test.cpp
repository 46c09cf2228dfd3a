// domain/codec/decision_msgpack.* and reason_tags.*: a decision's compact record (schema
// 2) reads back to the decision written, through either reader, and refuses what it
// cannot read naming the field.
#include "domain/codec/decision_msgpack.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"
#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/msgpack_writer.hpp"
#include "domain/codec/reason_tags.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "domain/codec/codec_test_support.hpp"

namespace capstan {
namespace {

using nlohmann::json;

const ModelKey kModel{"prod", "meta-llama/Llama-3.1-8B"};
using testing::kNaN;
using testing::kInf;

using testing::bits;

// A hybrid decision as a stage leaves it: a kind and figures with tags, a cause with
// its own figures, a figure name and a kind no table holds, doubles hard to round-trip,
// a text-only cause.
Decision sample() {
  const Reason optimizer = make_reason(ReasonCode::kScaleUp, "optimizer.up",
                                       {{"current", 2}, {"target", 3}, {"demand", 0.1 + 0.2}, {"unit", "req/s"}});
  const Reason sized = make_reason(
      ReasonCode::kScaleUp, "hybrid.sized",
      {{"current", 2},           {"target", 3},          {"demand_rps", 12.25},   {"forecast_rps", -0.0},
       {"horizon_s", 360.0},     {"observed_rps", kNaN}, {"backlog", 97},         {"backlog_ahead", 1e-300},
       {"peak_rps", kInf},       {"keep_s", 300.0},      {"supply_rps", -kInf},   {"bound", "itl-spread"},
       {"not_in_any_table", 7L}, {"capacity_rps", std::numeric_limits<double>::denorm_min()}},
      {optimizer});
  const Reason newer = make_reason(ReasonCode::kMaxReplicas, "a.kind_no_table_holds", {{"max_replicas", 4}},
                                   {sized, Reason(ReasonCode::kHold, "as given")});
  return {kModel, "h100", 2, 4, newer};
}

std::vector<std::uint8_t> direct_bytes(const Decision& d) {
  std::vector<std::uint8_t> out;
  MsgpackWriter w(out);
  write_decision_msgpack(w, d);
  return out;
}

Decision read_direct(const std::vector<std::uint8_t>& bytes) {
  MsgpackReader r(bytes);
  Decision d = read_decision_msgpack(r, kModel);
  if (!r.at_end()) throw MsgpackMismatch();
  return d;
}

Decision read_tree(const std::vector<std::uint8_t>& bytes) {
  const json document = json::from_msgpack(bytes);
  return read_decision_compact(FieldReader(document, "payload"), kModel);
}

void check_same_figures(const Reason& read, const Reason& written) {
  CHECK(read.code == written.code);
  CHECK(read.kind() == written.kind());
  CHECK(read.text() == written.text());
  REQUIRE(read.figures().size() == written.figures().size());
  for (std::size_t i = 0; i < written.figures().size(); ++i) {
    const Figure& a = read.figures()[i];
    const Figure& b = written.figures()[i];
    CAPTURE(b.name);
    CHECK(a.name == b.name);
    REQUIRE(a.value.index() == b.value.index());
    if (const auto* x = std::get_if<double>(&b.value)) {
      CHECK(bits(std::get<double>(a.value)) == bits(*x));
    } else {
      CHECK(a.value == b.value);
    }
  }
  REQUIRE(read.causes().size() == written.causes().size());
  for (std::size_t i = 0; i < written.causes().size(); ++i) check_same_figures(read.causes()[i], written.causes()[i]);
}

std::string error_of(const json& payload) { return testing::compact_error_of(payload, read_decision_compact, kModel); }

}  // namespace

TEST_CASE("a compact decision reads back as written through both readers, doubles bit for bit") {
  const Decision written = sample();
  const std::vector<std::uint8_t> bytes = direct_bytes(written);
  for (const Decision& read : {read_direct(bytes), read_tree(bytes)}) {
    CHECK(read.model == kModel);
    CHECK(read.variant == "h100");
    CHECK(read.current_replicas == 2);
    CHECK(read.target_replicas == 4);
    check_same_figures(read.reason, written.reason);
    // NaN aside, the decision is the one written (its text rendered again, the same).
    CHECK(read.reason.causes().at(1) == written.reason.causes().at(1));
    CHECK(direct_bytes(read) == bytes);
  }
}

TEST_CASE("the direct writer gives the bytes of the compact JSON tree") {
  const Decision d = sample();
  CHECK(direct_bytes(d) == json::to_msgpack(encode_decision_compact(d)));
  // Every NaN is one set of bytes, so equal bytes still mean equal doubles.
  Decision other_nan = d;
  other_nan.reason = make_reason(ReasonCode::kHold, "optimizer.up", {{"x", -std::nan("7")}});
  Decision quiet = d;
  quiet.reason = make_reason(ReasonCode::kHold, "optimizer.up", {{"x", kNaN}});
  CHECK(direct_bytes(other_nan) == direct_bytes(quiet));
  CHECK(json::to_msgpack(encode_decision_compact(other_nan)) == direct_bytes(quiet));
}

TEST_CASE("a compact decision stores no sentence and no tagged name, a quarter of its schema-1 object") {
  const Decision d = sample();
  const std::vector<std::uint8_t> bytes = direct_bytes(d);
  const std::string as_text(bytes.begin(), bytes.end());
  CHECK(as_text.find("hybrid.sized") == std::string::npos);
  CHECK(as_text.find("demand_rps") == std::string::npos);
  CHECK(as_text.find("scale_up") == std::string::npos);
  CHECK(as_text.find(d.reason.causes().at(0).text().substr(0, 20)) == std::string::npos);
  // Names no table holds are kept as strings, and so is a text-only reason's sentence.
  CHECK(as_text.find("not_in_any_table") != std::string::npos);
  CHECK(as_text.find("a.kind_no_table_holds") != std::string::npos);
  CHECK(as_text.find("as given") != std::string::npos);
  CHECK(bytes.size() * 4 < json::to_msgpack(encode_decision(d)).size());
}

TEST_CASE("a compact decision of an unknown schema is refused naming the schema") {
  json payload = encode_decision_compact(sample());
  payload[0] = 3;
  CHECK_THAT(error_of(payload), Catch::Contains("payload.schema 3 is not a decision layout this build reads (1 or 2)"));
  const std::vector<std::uint8_t> bytes = json::to_msgpack(payload);
  CHECK_THROWS_AS(read_direct(bytes), MsgpackMismatch);
}

TEST_CASE("a malformed compact decision is refused naming the field") {
  const json good = encode_decision_compact(sample());
  json payload = good;
  payload[4][2].push_back(1);  // a figure name without its value
  CHECK_THAT(error_of(payload), Catch::Contains("payload.reason.figures must hold names and values in pairs"));
  payload = good;
  payload[4][2][0] = 100000;  // a tag past the figure table's end, as a newer build might write
  CHECK_THAT(error_of(payload), Catch::Contains("payload.reason.figures[0] must be a figure name's tag or name"));
  CHECK_THROWS_AS(read_direct(json::to_msgpack(payload)), MsgpackMismatch);
  payload = good;
  payload[4][0] = 99;
  CHECK_THAT(error_of(payload), Catch::Contains("payload.reason.code must be a reason code's tag or name"));
  payload = good;
  payload[3] = "four";
  CHECK_THAT(error_of(payload), Catch::Contains("payload.target_replicas must be an integer"));
  payload = good;
  payload.erase(4);
  CHECK_THAT(error_of(payload), Catch::Contains("payload must hold 5 elements"));
  CHECK_THAT(error_of(json{{"decision", 1}}), Catch::Contains("payload must be an array"));
}

TEST_CASE("reason tags are frozen: the first names keep their numbers and every tag names one name") {
  CHECK(reason_tags::code_tag(ReasonCode::kHold) == 0);
  CHECK(reason_tags::code_tag(ReasonCode::kPdBand) == 14);
  CHECK(reason_tags::kind_tag("fixed.static") == 0);
  CHECK(reason_tags::kind_tag("hybrid.sized") == 1);
  CHECK(reason_tags::kind_tag("optimizer.within_thresholds") == 77);
  CHECK(reason_tags::figure_tag("current") == 0);
  CHECK(reason_tags::figure_tag("target") == 1);
  CHECK(reason_tags::figure_tag("demand_rps") == 2);
  CHECK(reason_tags::figure_tag("itl_correction") == 116);
  CHECK(reason_tags::figure_tag("spare_replica_rps") == 117);
  CHECK(reason_tags::kind_tag("hybrid.near_miss") == 78);
  CHECK(reason_tags::figure_tag("itl_ms") == 118);
  CHECK(reason_tags::figure_tag("tolerance") == 119);
  CHECK(reason_tags::figure_tag("release_held_rps") == 120);
  CHECK(reason_tags::kind_tag("hybrid.drained_miss") == 79);
  CHECK(reason_tags::figure_tag("headroom") == 121);
  CHECK(reason_tags::figure_tag("budget_burn") == 122);
  CHECK(reason_tags::figure_tag("bought_to_rps") == 123);
  CHECK(reason_tags::figure_tag("over_routed") == 124);
  CHECK(reason_tags::figure_tag("over_routed_rps") == 125);
  CHECK(reason_tags::figure_tag("over_routed_capacity_rps") == 126);
  CHECK(reason_tags::figure_tag("unsteady_release_rps") == 127);
  CHECK(reason_tags::figure_tag("small_fleet_release_rps") == 128);
  CHECK(reason_tags::kind_tag("optimizer.outserved") == 80);
  CHECK(reason_tags::kind_tag("optimizer.ready_short") == 81);
  CHECK(reason_tags::figure_tag("missed_at") == 129);
  CHECK(reason_tags::figure_tag("outserved_by") == 130);
  CHECK(reason_tags::figure_tag("met_at") == 131);
  CHECK(reason_tags::figure_tag("outserved_by_cost") == 132);
  CHECK(reason_tags::figure_tag("ready_spare") == 133);
  CHECK_FALSE(reason_tags::kind_tag("no.such_kind").has_value());
  CHECK_FALSE(reason_tags::figure_of(134).has_value());
  CHECK_FALSE(reason_tags::kind_of(-1).has_value());
  std::set<std::string_view> kinds, figures;
  for (long long t = 0; reason_tags::kind_of(t); ++t) {
    CHECK(reason_tags::kind_tag(*reason_tags::kind_of(t)) == t);
    kinds.insert(*reason_tags::kind_of(t));
  }
  for (long long t = 0; reason_tags::figure_of(t); ++t) {
    CHECK(reason_tags::figure_tag(*reason_tags::figure_of(t)) == t);
    figures.insert(*reason_tags::figure_of(t));
  }
  CHECK(kinds.size() == 82);
  CHECK(figures.size() == 134);
  for (long long t = 0; t < 15; ++t) CHECK(reason_tags::code_tag(*reason_tags::code_of(t)) == t);
}

TEST_CASE("a name its table does not hold has no tag, however near it is to one that does") {
  for (std::string_view name : {"", "curren", "currentt", "Current", "target ", "hybrid.sized", "itl_correctio"}) {
    CHECK_FALSE(reason_tags::figure_tag(name).has_value());
  }
  for (std::string_view name : {"", "hybrid.size", "hybrid.sizedd", "current", "fixed_static"}) {
    CHECK_FALSE(reason_tags::kind_tag(name).has_value());
  }
  const std::string copied("demand_rps");  // not the table's own characters
  CHECK(reason_tags::figure_tag(copied) == 2);
}

}  // namespace capstan
