#include "domain/codec/state_codec.hpp"

#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"
#include "domain/codec/json.hpp"
#include "domain/codec/tick_input_codec.hpp"

namespace capstan {
namespace {

using nlohmann::json;

// Sub-states are written through nlohmann conversions of their own, which write a
// non-finite double as null: the encoder turns every non-finite number into the tokens
// encode_number uses, and the reader turns them back before converting.
json with_tokens(json j) {
  if (j.is_number_float() && !std::isfinite(j.get<double>())) return encode_number(j.get<double>());
  if (j.is_structured()) {
    for (auto& v : j) v = with_tokens(std::move(v));
  }
  return j;
}

json with_numbers(json j) {
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "nan" || s == "inf" || s == "-inf") return FieldReader(j, "").number();
  }
  if (j.is_structured()) {
    for (auto& v : j) v = with_numbers(std::move(v));
  }
  return j;
}

// A sub-state read through its own conversion, with the path of the value in the error.
template <class T>
T read_value(const FieldReader& r) {
  try {
    return with_numbers(r.json()).get<T>();
  } catch (const json::exception& e) {
    throw CodecError(r.path() + ": " + e.what());
  }
}

template <class T>
json encode_optional_value(const std::optional<T>& v) {
  return v ? json(*v) : json();
}

template <class T>
std::optional<T> read_optional_value(const FieldReader& r) {
  if (r.is_null()) return std::nullopt;
  return read_value<T>(r);
}

template <class T>
json encode_by_variant(const std::map<std::string, T>& m) {
  json out = json::object();
  for (const auto& [k, v] : m) out[k] = v;
  return out;
}

template <class T>
std::map<std::string, T> read_by_variant(const FieldReader& r) {
  std::map<std::string, T> out;
  for (const std::string& k : r.keys()) out.emplace(k, read_value<T>(r.at(k)));
  return out;
}

// A count of requests: an integer where it is one (MessagePack then stores most in one
// to three bytes instead of nine).
json encode_count(double v) {
  if (v == std::floor(v) && std::abs(v) < 0x1p53) return static_cast<std::int64_t>(v);
  return encode_number(v);
}

// A variant's ITL evidence (itl_tail.hpp), compactly:
//   {"upper_bounds_ms": [...], "start": null | [a, b],
//    "windows": [[d1_ms, model_itl_ms, requests, zeros, [below...]], ...]}
// A window's requests at or below each bound: `zeros` leading bounds with none, then
// the listed counts, then every request at each bound left.
json encode_itl_evidence(const ItlEvidence& e) {
  json windows = json::array();
  for (const ItlWindow& w : e.windows) {
    std::size_t first = 0, end = w.below.size();
    while (first < end && w.below[first] == 0) ++first;
    while (end > first && w.below[end - 1] == w.requests) --end;
    json below = json::array();
    for (std::size_t i = first; i < end; ++i) below.push_back(encode_count(w.below[i]));
    windows.push_back({encode_number(w.d1_ms), encode_number(w.model_itl_ms), encode_count(w.requests), first,
                       std::move(below)});
  }
  return {{"upper_bounds_ms", encode_numbers(e.upper_bounds_ms)},
          {"start", e.start ? json{encode_number(e.start->a), encode_number(e.start->b)} : json()},
          {"windows", std::move(windows)}};
}

ItlEvidence read_itl_evidence(const FieldReader& r) {
  ItlEvidence e;
  e.upper_bounds_ms = r.at("upper_bounds_ms").numbers();
  if (const FieldReader start = r.at("start"); !start.is_null()) {
    if (start.size() != 2) start.fail("must be [a, b]");
    e.start = ProbitCoefficients{start.at(std::size_t{0}).number(), start.at(std::size_t{1}).number()};
  }
  const FieldReader windows = r.at("windows");
  for (std::size_t i = 0; i < windows.size(); ++i) {
    const FieldReader w = windows.at(i);
    if (w.size() != 5) w.fail("must be [d1_ms, model_itl_ms, requests, zeros, [below...]]");
    const double requests = w.at(std::size_t{2}).number();
    const FieldReader zeros = w.at(std::size_t{3});
    const std::vector<double> listed = w.at(std::size_t{4}).numbers();
    const auto leading = static_cast<std::size_t>(zeros.unsigned64());
    if (leading + listed.size() > e.upper_bounds_ms.size()) zeros.fail("and the counts listed exceed the bounds");
    std::vector<double> below(leading, 0.0);
    below.insert(below.end(), listed.begin(), listed.end());
    below.resize(e.upper_bounds_ms.size(), requests);
    e.windows.push_back(make_itl_window(e.upper_bounds_ms, w.at(std::size_t{0}).number(), w.at(std::size_t{1}).number(),
                                        requests, std::move(below)));
  }
  return e;
}

json encode_memory_body(const std::monostate&) { return json::object(); }
json encoded_itl_windows(const std::map<std::string, ItlEvidence>& m) {
  json out = json::object();
  for (const auto& [k, v] : m) out[k] = encode_itl_evidence(v);
  return out;
}
json encode_memory_body(const FixedMemory& m) { return {{"held", m.held}}; }
json encode_memory_body(const HybridMemory& m) {
  return {{"forecast", encode_optional_value(m.forecast)},
          {"recent_demand", m.recent_demand},
          {"recent_capacity", encode_by_variant(m.recent_capacity)},
          {"itl_windows", encoded_itl_windows(m.itl_windows)},
          {"starting_since", encode_by_variant(m.starting_since)},
          {"split", m.split}};
}
json encode_memory_body(const ErlangMemory& m) { return {{"forecast", encode_optional_value(m.forecast)}}; }
json encode_memory_body(const TokenSaturationMemory& m) { return {{"capacity", m.capacity}}; }
template <class S>
json encode_memory_body(const PerVariantMemory<S>& m) {
  return {{"variants", encode_by_variant(m.variants)}};
}

PolicyMemory read_memory(const FieldReader& r, const std::string& kind) {
  if (kind == "none") return std::monostate{};
  if (kind == "fixed") {
    FixedMemory m;
    m.held = read_by_variant<int>(r.at("held"));
    return m;
  }
  if (kind == "hybrid") {
    HybridMemory m;
    m.forecast = read_optional_value<TrafficForecastState>(r.at("forecast"));
    m.recent_demand = read_value<DemandHistory>(r.at("recent_demand"));
    m.recent_capacity = read_by_variant<std::deque<double>>(r.at("recent_capacity"));
    const FieldReader itl = r.at("itl_windows");
    for (const std::string& k : itl.keys()) m.itl_windows.emplace(k, read_itl_evidence(itl.at(k)));
    m.starting_since = read_by_variant<std::deque<double>>(r.at("starting_since"));
    m.split = read_value<SplitSizingState>(r.at("split"));
    return m;
  }
  if (kind == "erlang") return ErlangMemory{read_optional_value<HoltState>(r.at("forecast"))};
  if (kind == "saturation-token") return TokenSaturationMemory{read_value<TokenCapacityState>(r.at("capacity"))};
  if (kind == "hpa") return HpaMemory{read_by_variant<HpaVariantState>(r.at("variants"))};
  if (kind == "load") return LoadMemory{read_by_variant<LoadVariantState>(r.at("variants"))};
  if (kind == "throughput") return ThroughputMemory{read_by_variant<ThroughputVariantState>(r.at("variants"))};
  r.at("kind").fail("is not a kind of policy memory");
}

}  // namespace

const char* memory_kind(const PolicyMemory& memory) {
  static constexpr const char* kKinds[] = {"none", "fixed", "hybrid", "erlang", "saturation-token",
                                           "hpa", "load", "throughput"};
  static_assert(std::size(kKinds) == std::variant_size_v<PolicyMemory>);
  return kKinds[memory.index()];
}

json encode_variant_memory(const VariantMemory& m) {
  return with_tokens({{"tuner", encode_optional_value(m.tuner)}, {"cold_start", encode_optional_value(m.cold_start)}});
}

VariantMemory read_variant_memory(const FieldReader& r) {
  VariantMemory m;
  m.tuner = read_optional_value<TunerState>(r.at("tuner"));
  m.cold_start = read_optional_value<ColdStartState>(r.at("cold_start"));
  return m;
}

json encode_model_state(const ModelState& s) {
  json policy = std::visit([](const auto& m) { return encode_memory_body(m); }, s.policy);
  policy["kind"] = memory_kind(s.policy);
  return with_tokens({{"finisher", s.finisher}, {"policy", std::move(policy)}});
}

ModelState read_model_state(const FieldReader& r, const std::string& policy) {
  ModelState s;
  s.finisher = read_value<ModelFinisherState>(r.at("finisher"));
  const FieldReader memory = r.at("policy");
  const FieldReader kind = memory.at("kind");
  const std::string k = kind.string();
  if (k != "none" && k != policy) kind.fail("is not the memory of policy \"" + policy + "\"");
  s.policy = read_memory(memory, k);
  return s;
}

json encode_fleet_memory(const std::string& policy, const FleetMemory& memory) {
  json variants = json::array();
  for (const auto& [key, m] : memory.variants) {
    variants.push_back({{"ns", key.model.ns},
                        {"model_id", key.model.model_id},
                        {"variant", key.variant},
                        {"memory", encode_variant_memory(m)}});
  }
  json models = json::array();
  for (const auto& [key, s] : memory.models) {
    json m = encode_model_state(s);
    m["ns"] = key.ns;
    m["model_id"] = key.model_id;
    models.push_back(std::move(m));
  }
  return {{"schema", kStateSchema},
          {"policy", policy},
          {"variants", std::move(variants)},
          {"models", std::move(models)},
          {"fleet", json::object()}};
}

Result<FleetMemory> decode_fleet_memory(const std::string& policy, const json& j) {
  return decode_with<FleetMemory>(policy + " policy state", [&] {
    const FieldReader r(j, "");
    expect_schema(r, kStateSchema);
    const FieldReader name = r.at("policy");
    if (name.string() != policy) name.fail("is another policy's state");
    FleetMemory out;
    const FieldReader variants = r.at("variants");
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const FieldReader v = variants.at(i);
      VariantKey key{read_model_key(v), v.at("variant").string()};
      out.variants.emplace(std::move(key), read_variant_memory(v.at("memory")));
    }
    const FieldReader models = r.at("models");
    for (std::size_t i = 0; i < models.size(); ++i) {
      const FieldReader m = models.at(i);
      out.models.emplace(read_model_key(m), read_model_state(m, policy));
    }
    r.at("fleet").keys();  // an object; FleetState has no fields yet
    return out;
  });
}

}  // namespace capstan
