#include "domain/codec/decision_msgpack.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "domain/codec/compact_layout.hpp"
#include "domain/codec/field_reader.hpp"
#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/msgpack_writer.hpp"
#include "domain/codec/reason_tags.hpp"

namespace capstan {
namespace {

using nlohmann::json;
using compact_layout::element;
using compact_layout::float_exact;

// Element positions, frozen with the layout.
enum PayloadAt : std::size_t { kSchemaAt, kVariantAt, kCurrentAt, kTargetAt, kReasonAt, kPayloadSize };
enum ReasonAt : std::size_t { kCodeAt, kKindAt, kFiguresAt, kCausesAt, kReasonSize };
constexpr std::size_t kTextAt = 1, kTextReasonSize = 2;

// ---- the tree ----

json tag_or_name(std::optional<int> tag, std::string_view name) {
  return tag ? json(*tag) : json(std::string(name));
}

json encode_reason(const Reason& r) {
  const json code = tag_or_name(reason_tags::code_tag(r.code), to_string(r.code));
  if (r.kind().empty()) return json::array({code, r.text()});
  json figures = json::array();
  for (const Figure& f : r.figures()) {
    figures.push_back(tag_or_name(reason_tags::figure_tag(f.name), f.name));
    std::visit(
        [&](const auto& v) {
          using V = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<V, double>) {
            figures.push_back(float_exact(v));
          } else {
            figures.push_back(v);
          }
        },
        f.value);
  }
  json causes = json::array();
  for (const Reason& c : r.causes()) causes.push_back(encode_reason(c));
  return json::array({code, tag_or_name(reason_tags::kind_tag(r.kind()), r.kind()), std::move(figures), std::move(causes)});
}

void expect_size(const FieldReader& array, std::size_t n, const char* what) {
  if (array.size() != n) array.fail("must hold " + std::to_string(n) + " elements (" + what + ")");
}

ReasonCode read_code(const FieldReader& r) {
  if (r.json().is_string()) {
    auto code = parse_reason_code(r.string());
    if (!code) r.fail("must be a reason code");
    return *code;
  }
  auto code = reason_tags::code_of(r.integer());
  if (!code) r.fail("must be a reason code's tag or name");
  return *code;
}

std::string read_name(const FieldReader& r, std::optional<std::string_view> (*name_of)(long long), const char* what) {
  if (r.json().is_string()) return r.string();
  auto name = name_of(r.integer());
  if (!name) r.fail(std::string("must be a ") + what + "'s tag or name");
  return std::string(*name);
}

Figure::Value read_value(const FieldReader& r) {
  const json& j = r.json();
  if (j.is_number_float()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  return r.integer();
}

Reason read_reason(const FieldReader& r) {
  const std::size_t n = r.size();
  if (n == kTextReasonSize) return {read_code(element(r, kCodeAt, "code")), element(r, kTextAt, "text").string()};
  expect_size(r, kReasonSize, "code, kind, figures, causes; or code, text");
  const ReasonCode code = read_code(element(r, kCodeAt, "code"));
  std::string kind = read_name(element(r, kKindAt, "kind"), reason_tags::kind_of, "reason kind");
  const FieldReader figures = element(r, kFiguresAt, "figures");
  if (figures.size() % 2 != 0) figures.fail("must hold names and values in pairs");
  std::vector<Figure> out;
  out.reserve(figures.size() / 2);
  for (std::size_t i = 0; i < figures.size(); i += 2) {
    std::string name = read_name(figures.at(i), reason_tags::figure_of, "figure name");
    out.emplace_back(std::move(name), read_value(figures.at(i + 1)));
  }
  const FieldReader causes = element(r, kCausesAt, "causes");
  std::vector<Reason> inner;
  for (std::size_t i = 0; i < causes.size(); ++i) inner.push_back(read_reason(causes.at(i)));
  return make_reason(code, std::move(kind), std::move(out), std::move(inner));
}

// ---- the bytes ----

void tag_or_name(MsgpackWriter& w, std::optional<int> tag, std::string_view name) {
  if (tag) {
    w.integer(*tag);
  } else {
    w.string(name);
  }
}

void write_reason(MsgpackWriter& w, const Reason& r) {
  if (r.kind().empty()) {
    w.array(kTextReasonSize);
    tag_or_name(w, reason_tags::code_tag(r.code), to_string(r.code));
    w.string(r.text());
    return;
  }
  w.array(kReasonSize);
  tag_or_name(w, reason_tags::code_tag(r.code), to_string(r.code));
  tag_or_name(w, reason_tags::kind_tag(r.kind()), r.kind());
  w.array(2 * r.figures().size());
  for (const Figure& f : r.figures()) {
    tag_or_name(w, reason_tags::figure_tag(f.name), f.name);
    if (const auto* i = std::get_if<long long>(&f.value)) {
      w.integer(*i);
    } else if (const auto* x = std::get_if<double>(&f.value)) {
      w.float_exact(*x);
    } else {
      w.string(std::get<std::string>(f.value));
    }
  }
  w.array(r.causes().size());
  for (const Reason& c : r.causes()) write_reason(w, c);
}

ReasonCode read_code(MsgpackReader& r) {
  if (r.next_is_string()) {
    auto code = parse_reason_code(r.string());
    if (!code) throw MsgpackMismatch();
    return *code;
  }
  auto code = reason_tags::code_of(r.integer());
  if (!code) throw MsgpackMismatch();
  return *code;
}

std::string read_name(MsgpackReader& r, std::optional<std::string_view> (*name_of)(long long)) {
  if (r.next_is_string()) return std::string(r.string());
  auto name = name_of(r.integer());
  if (!name) throw MsgpackMismatch();
  return std::string(*name);
}

Reason read_reason(MsgpackReader& r) {
  const std::size_t n = r.array();
  if (n == kTextReasonSize) {
    const ReasonCode code = read_code(r);
    return {code, std::string(r.string())};
  }
  if (n != kReasonSize) throw MsgpackMismatch();
  const ReasonCode code = read_code(r);
  std::string kind = read_name(r, reason_tags::kind_of);
  const std::size_t values = r.array();
  if (values % 2 != 0) throw MsgpackMismatch();
  std::vector<Figure> figures;
  figures.reserve(values / 2);
  for (std::size_t i = 0; i < values; i += 2) {
    std::string name = read_name(r, reason_tags::figure_of);
    if (r.next_is_float()) {
      figures.emplace_back(std::move(name), r.float_value());
    } else if (r.next_is_string()) {
      figures.emplace_back(std::move(name), std::string(r.string()));
    } else {
      figures.emplace_back(std::move(name), static_cast<long long>(r.integer()));
    }
  }
  std::vector<Reason> causes(r.array());
  for (Reason& c : causes) c = read_reason(r);
  return make_reason(code, std::move(kind), std::move(figures), std::move(causes));
}

}  // namespace

json encode_decision_compact(const Decision& d) {
  return json::array({kDecisionLayoutSchema, d.variant, d.current_replicas, d.target_replicas, encode_reason(d.reason)});
}

Decision read_decision_compact(const FieldReader& payload, const ModelKey& model) {
  compact_layout::expect_layout(payload, kDecisionLayoutSchema, "decision", kPayloadSize,
                                "schema, variant, current_replicas, target_replicas, reason");
  Decision d;
  d.model = model;
  d.variant = element(payload, kVariantAt, "variant").string();
  d.current_replicas = element(payload, kCurrentAt, "current_replicas").int32();
  d.target_replicas = element(payload, kTargetAt, "target_replicas").int32();
  d.reason = read_reason(element(payload, kReasonAt, "reason"));
  return d;
}

void write_decision_msgpack(MsgpackWriter& w, const Decision& d) {
  w.array(kPayloadSize);
  w.integer(kDecisionLayoutSchema);
  w.string(d.variant);
  w.integer(d.current_replicas);
  w.integer(d.target_replicas);
  write_reason(w, d.reason);
}

Decision read_decision_msgpack(MsgpackReader& r, const ModelKey& model) {
  r.array(kPayloadSize);
  if (r.integer() != kDecisionLayoutSchema) throw MsgpackMismatch();
  Decision d;
  d.model = model;
  d.variant = std::string(r.string());
  d.current_replicas = r.int32();
  d.target_replicas = r.int32();
  d.reason = read_reason(r);
  return d;
}

}  // namespace capstan
