#include "domain/codec/state_codec.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"
#include "domain/codec/json.hpp"
#include "domain/codec/tick_input_codec.hpp"

namespace capstan {
namespace {

using nlohmann::json;

// A sub-state read through its own conversion, with the path of the value in the error.
template <class T>
T read_value(const FieldReader& r) {
  try {
    return non_finite_from_tokens(r.json()).get<T>();
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

// A traffic forecaster (traffic_forecast.hpp) as arrays of numbers, not objects: its
// member names took three quarters of a variant's forecast bytes.
//   [rate_rps, avg_input_tokens, avg_output_tokens], each a selector
//   [error_weight, [[kind, mean_abs_error, scored, state], ...]], a predictor's state
//   constant [count, last]; holt [alpha, beta, count, level, trend];
//   kalman [q_level, q_trend, r, min_points, fallback count, fallback last, level,
//           trend, p_level, p_cross, p_trend, log1p (0 or 1)]; arima and seasonal as their own objects.
json encode_predictor_state(const PredictorState& p) {
  if (const auto* c = std::get_if<ConstantState>(&p.model)) return {c->count, encode_number(c->last)};
  if (const auto* h = std::get_if<HoltState>(&p.model)) {
    return {encode_number(h->config.alpha), encode_number(h->config.beta), h->count, encode_number(h->level),
            encode_number(h->trend)};
  }
  if (const auto* k = std::get_if<KalmanState>(&p.model)) {
    return {encode_number(k->config.q_level), encode_number(k->config.q_trend), encode_number(k->config.r),
            k->config.min_points, k->fallback.count, encode_number(k->fallback.last), encode_number(k->level),
            encode_number(k->trend), encode_number(k->p_level), encode_number(k->p_cross), encode_number(k->p_trend),
            k->config.log1p ? 1 : 0};
  }
  return std::visit([](const auto& m) { return json(m); }, p.model);
}

json encode_selector(const SelectorState& s) {
  json candidates = json::array();
  for (const SelectorCandidate& c : s.candidates) {
    candidates.push_back(
        {to_string(kind_of(c.predictor)), encode_number(c.mean_abs_error), c.scored, encode_predictor_state(c.predictor)});
  }
  return {encode_number(s.config.error_weight), std::move(candidates)};
}

json encode_forecast(const std::optional<TrafficForecastState>& f) {
  if (!f) return json();
  return {encode_selector(f->rate_rps), encode_selector(f->avg_input_tokens), encode_selector(f->avg_output_tokens)};
}

// The elements of an array of exactly `n`, or a failure saying what it must hold.
void expect_size(const FieldReader& r, std::size_t n, const char* shape) {
  if (r.size() != n) r.fail(std::string("must be ") + shape);
}

PredictorState read_predictor_state(const FieldReader& kind, const FieldReader& r) {
  PredictorKind k{};
  if (!parse_predictor_kind(kind.string(), k)) kind.fail("is not a kind of predictor");
  const auto at = [&](std::size_t i) { return r.at(i); };
  switch (k) {
    case PredictorKind::kConstant: {
      expect_size(r, 2, "[count, last]");
      return {ConstantState{at(0).integer(), at(1).number()}};
    }
    case PredictorKind::kHolt: {
      expect_size(r, 5, "[alpha, beta, count, level, trend]");
      HoltState h;
      h.config = {at(0).number(), at(1).number()};
      h.count = at(2).integer();
      h.level = at(3).number();
      h.trend = at(4).number();
      return {h};
    }
    case PredictorKind::kKalman: {
      expect_size(r, 12,
                  "[q_level, q_trend, r, min_points, fallback count, fallback last, level, trend, p_level, p_cross, "
                  "p_trend, log1p]");
      KalmanState s;
      s.config = {at(0).number(), at(1).number(), at(2).number(), at(3).int32(), false};
      s.fallback = {at(4).integer(), at(5).number()};
      s.level = at(6).number();
      s.trend = at(7).number();
      s.p_level = at(8).number();
      s.p_cross = at(9).number();
      s.p_trend = at(10).number();
      s.config.log1p = at(11).integer() != 0;
      return {s};
    }
    case PredictorKind::kArima: return {read_value<ArimaState>(r)};
    case PredictorKind::kSeasonal: return {read_value<SeasonalState>(r)};
  }
  kind.fail("is not a kind of predictor");
}

SelectorState read_selector(const FieldReader& r) {
  expect_size(r, 2, "[error_weight, [candidates...]]");
  SelectorState s;
  s.config.error_weight = r.at(std::size_t{0}).number();
  const FieldReader candidates = r.at(std::size_t{1});
  if (candidates.size() == 0) candidates.fail("must hold at least one candidate");
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const FieldReader c = candidates.at(i);
    expect_size(c, 4, "[kind, mean_abs_error, scored, state]");
    SelectorCandidate candidate;
    candidate.predictor = read_predictor_state(c.at(std::size_t{0}), c.at(std::size_t{3}));
    candidate.mean_abs_error = c.at(std::size_t{1}).number();
    candidate.scored = c.at(std::size_t{2}).integer();
    s.candidates.push_back(std::move(candidate));
  }
  return s;
}

std::optional<TrafficForecastState> read_forecast(const FieldReader& r) {
  if (r.is_null()) return std::nullopt;
  expect_size(r, 3, "[rate_rps, avg_input_tokens, avg_output_tokens]");
  return TrafficForecastState{read_selector(r.at(std::size_t{0})), read_selector(r.at(std::size_t{1})),
                              read_selector(r.at(std::size_t{2}))};
}

// A queue model's learned parameters as one array of numbers:
//   [alpha, beta, gamma, covariance (covariance_record: 6 or 9), min alpha, beta, gamma,
//    max alpha, beta, gamma, accepted_updates, rejected_updates, consecutive_rejections]
constexpr std::size_t kTunerNumbersBesidesCovariance = 12;

json encode_tuner_numbers(const std::optional<TunerState>& t) {
  if (!t) return json();
  json out = json::array();
  for (const ServiceParams* p : {&t->params}) {
    for (double v : {p->alpha_ms, p->beta_ms, p->gamma_ms}) out.push_back(encode_number(v));
  }
  for (double v : covariance_record(t->covariance)) out.push_back(encode_number(v));
  for (const ServiceParams* p : {&t->min_params, &t->max_params}) {
    for (double v : {p->alpha_ms, p->beta_ms, p->gamma_ms}) out.push_back(encode_number(v));
  }
  out.push_back(t->accepted_updates);
  out.push_back(t->rejected_updates);
  out.push_back(t->consecutive_rejections);
  return out;
}

std::optional<TunerState> read_tuner_numbers(const FieldReader& r) {
  if (r.is_null()) return std::nullopt;
  const std::size_t covariance_numbers = r.size() - std::min(r.size(), kTunerNumbersBesidesCovariance);
  if (covariance_numbers != 6 && covariance_numbers != 9) {
    r.fail("must be [alpha, beta, gamma, covariance (upper triangle, 6, or all 9), min alpha, beta, gamma, "
           "max alpha, beta, gamma, accepted_updates, rejected_updates, consecutive_rejections]");
  }
  TunerState t;
  std::size_t i = 0;
  const auto next = [&] { return r.at(i++).number(); };
  for (ServiceParams* p : {&t.params}) *p = {next(), next(), next()};
  std::array<double, 9> covariance{};
  for (std::size_t k = 0; k < covariance_numbers; ++k) covariance[k] = next();
  t.covariance = *covariance_from_record(std::span(covariance).first(covariance_numbers));
  for (ServiceParams* p : {&t.min_params, &t.max_params}) *p = {next(), next(), next()};
  t.accepted_updates = static_cast<long>(r.at(i++).integer());
  t.rejected_updates = static_cast<long>(r.at(i++).integer());
  t.consecutive_rejections = r.at(i++).int32();
  return t;
}

json encode_throughput_variant(const ThroughputVariantState& s) {
  return {{"forecast", encode_forecast(s.forecast)}, {"load", s.load}, {"tuner", encode_tuner_numbers(s.tuner)}};
}

ThroughputVariantState read_throughput_variant(const FieldReader& r) {
  ThroughputVariantState s;
  s.forecast = read_forecast(r.at("forecast"));
  s.load = read_value<LoadVariantState>(r.at("load"));
  s.tuner = read_tuner_numbers(r.at("tuner"));
  return s;
}

json encode_memory_body(const std::monostate&) { return json::object(); }
json encoded_itl_windows(const std::map<std::string, ItlEvidence>& m) {
  json out = json::object();
  for (const auto& [k, v] : m) out[k] = encode_itl_evidence(v);
  return out;
}
json encode_memory_body(const FixedMemory& m) { return {{"held", m.held}}; }
json encode_memory_body(const HybridMemory& m) {
  json out = {{"forecast", encode_forecast(m.forecast)},
              {"correction", m.correction},
              {"recent_demand", m.recent_demand},
              {"recent_capacity", encode_by_variant(m.recent_capacity)},
              {"itl_windows", encoded_itl_windows(m.itl_windows)},
              {"starting_since", encode_by_variant(m.starting_since)},
              {"split", m.split}};
  // Written only when there are any, so that a state without them keeps its bytes.
  for (const auto& [name, by_variant] : {std::pair{"demonstrated", &m.demonstrated}, std::pair{"refuted", &m.refuted},
                                           std::pair{"met", &m.met}}) {
    if (by_variant->empty()) continue;
    json& shown = out[name] = json::object();
    for (const auto& [variant, rates] : *by_variant) {
      json& list = shown[variant] = json::array();
      for (const DemonstratedRate& d : rates) list.push_back({d.at_s, d.rps, d.input_tokens, d.output_tokens});
    }
  }
  if (!m.judged_short.empty()) {
    json& held = out["judged_short"] = json::object();
    for (const auto& [variant, j] : m.judged_short) held[variant] = {j.at_s, j.rps};
  }
  if (!m.released_at_s.empty()) out["released_at_s"] = m.released_at_s;
  if (m.headroom != MissHeadroom{}) {
    out["headroom"] = {m.headroom.requests, m.headroom.missed, m.headroom.extra, m.headroom.spent_until_s};
  }
  if (!m.surges.empty()) {
    json& surges = out["surges"] = json::array();
    for (const DemandSurge& e : m.surges) {
      surges.push_back({e.start_s, e.end_s, e.from_rps, e.to_rps, e.recurs ? 1 : 0});
    }
  }
  return out;
}
json encode_memory_body(const ErlangMemory& m) { return {{"forecast", encode_optional_value(m.forecast)}}; }
json encode_memory_body(const TokenSaturationMemory& m) { return {{"capacity", m.capacity}}; }
template <class S>
json encode_memory_body(const PerVariantMemory<S>& m) {
  return {{"variants", encode_by_variant(m.variants)}};
}
json encode_memory_body(const ThroughputMemory& m) {
  json variants = json::object();
  for (const auto& [k, v] : m.variants) variants[k] = encode_throughput_variant(v);
  return {{"variants", std::move(variants)}};
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
    m.forecast = read_forecast(r.at("forecast"));
    m.recent_demand = read_value<DemandHistory>(r.at("recent_demand"));
    m.recent_capacity = read_by_variant<History<double>>(r.at("recent_capacity"));
    const FieldReader itl = r.at("itl_windows");
    for (const std::string& k : itl.keys()) m.itl_windows.emplace(k, read_itl_evidence(itl.at(k)));
    m.starting_since = read_by_variant<History<double>>(r.at("starting_since"));
    m.split = read_value<SplitSizingState>(r.at("split"));
    // Since schema 3; a state of schema 2 trusts every learned capacity as it is.
    if (r.has("correction")) m.correction = read_by_variant<double>(r.at("correction"));
    for (const auto& [name, by_variant] : {std::pair{"demonstrated", &m.demonstrated}, std::pair{"refuted", &m.refuted},
                                           std::pair{"met", &m.met}}) {
      if (!r.has(name)) continue;
      const FieldReader shown = r.at(name);
      for (const std::string& variant : shown.keys()) {
        const FieldReader list = shown.at(variant);
        History<DemonstratedRate>& rates = (*by_variant)[variant];
        for (std::size_t i = 0; i < list.size(); ++i) {
          const FieldReader e = list.at(i);
          if (e.size() != 4) e.fail("must be [at_s, rps, input_tokens, output_tokens]");
          rates.push_back({e.at(0).number(), e.at(1).number(), e.at(2).number(), e.at(3).number()});
        }
      }
    }
    if (r.has("judged_short")) {
      const FieldReader held = r.at("judged_short");
      for (const std::string& variant : held.keys()) {
        const FieldReader e = held.at(variant);
        if (e.size() != 2) e.fail("must be [at_s, rps]");
        m.judged_short[variant] = {e.at(0).number(), e.at(1).number()};
      }
    }
    if (r.has("released_at_s")) m.released_at_s = read_by_variant<double>(r.at("released_at_s"));
    if (r.has("headroom")) {
      const FieldReader e = r.at("headroom");
      if (e.size() != 4) e.fail("must be [requests, missed, extra, spent_until_s]");
      m.headroom = {e.at(0).number(), e.at(1).number(), e.at(2).number(), e.at(3).number()};
      if (!valid_counts(m.headroom)) e.fail("must hold finite numbers, requests >= missed >= 0, spent_until_s >= 0");
      if (!(m.headroom.extra >= 0 && m.headroom.extra <= kMaxExtraHeadroom))
        e.at(2).fail("must be within [0, " + std::to_string(kMaxExtraHeadroom) + "]");
    }
    if (r.has("surges")) {
      const FieldReader surges = r.at("surges");
      for (std::size_t i = 0; i < surges.size(); ++i) {
        const FieldReader e = surges.at(i);
        if (e.size() != 5) e.fail("must be [start_s, end_s, from_rps, to_rps, recurs]");
        m.surges.push_back({e.at(0).number(), e.at(1).number(), e.at(2).number(), e.at(3).number(),
                            e.at(4).number() != 0});
      }
    }
    return m;
  }
  if (kind == "erlang") return ErlangMemory{read_optional_value<HoltState>(r.at("forecast"))};
  if (kind == "saturation-token") return TokenSaturationMemory{read_value<TokenCapacityState>(r.at("capacity"))};
  if (kind == "hpa") return HpaMemory{read_by_variant<HpaVariantState>(r.at("variants"))};
  if (kind == "load") return LoadMemory{read_by_variant<LoadVariantState>(r.at("variants"))};
  if (kind == "throughput") {
    ThroughputMemory m;
    const FieldReader variants = r.at("variants");
    for (const std::string& k : variants.keys()) m.variants.emplace(k, read_throughput_variant(variants.at(k)));
    return m;
  }
  r.at("kind").fail("is not a kind of policy memory");
}

}  // namespace

// The upper triangle of a row-major 3x3 matrix, row by row.
constexpr std::array<std::size_t, 6> kUpperTriangle{0, 1, 2, 4, 5, 8};

std::vector<double> covariance_record(const std::array<double, 9>& c) {
  const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  if (bits(c[1]) != bits(c[3]) || bits(c[2]) != bits(c[6]) || bits(c[5]) != bits(c[7])) {
    return {c.begin(), c.end()};
  }
  std::vector<double> out;
  for (std::size_t i : kUpperTriangle) out.push_back(c[i]);
  return out;
}

std::optional<std::array<double, 9>> covariance_from_record(std::span<const double> recorded) {
  std::array<double, 9> c{};
  if (recorded.size() == 9) {
    std::copy(recorded.begin(), recorded.end(), c.begin());
    return c;
  }
  if (recorded.size() != kUpperTriangle.size()) return std::nullopt;
  for (std::size_t k = 0; k < kUpperTriangle.size(); ++k) {
    const std::size_t i = kUpperTriangle[k];
    c[i] = c[(i % 3) * 3 + i / 3] = recorded[k];
  }
  return c;
}

const char* memory_kind(const PolicyMemory& memory) {
  static constexpr const char* kKinds[] = {"none", "fixed", "hybrid", "erlang", "saturation-token",
                                           "hpa", "load", "throughput"};
  static_assert(std::size(kKinds) == std::variant_size_v<PolicyMemory>);
  return kKinds[memory.index()];
}

json encode_variant_memory(const VariantMemory& m) {
  json out{{"tuner", encode_optional_value(m.tuner)}, {"cold_start", encode_optional_value(m.cold_start)}};
  if (m.waited_at_s) out["waited_at_s"] = *m.waited_at_s;  // written only when set, as before it was kept
  return non_finite_as_tokens(std::move(out));
}

VariantMemory read_variant_memory(const FieldReader& r) {
  VariantMemory m;
  m.tuner = read_optional_value<TunerState>(r.at("tuner"));
  m.cold_start = read_optional_value<ColdStartState>(r.at("cold_start"));
  if (r.has("waited_at_s")) m.waited_at_s = r.at("waited_at_s").number();
  return m;
}

json encode_model_state(const ModelState& s) {
  json policy = std::visit([](const auto& m) { return encode_memory_body(m); }, s.policy);
  policy["kind"] = memory_kind(s.policy);
  return non_finite_as_tokens({{"finisher", s.finisher}, {"policy", std::move(policy)}});
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
    const long long schema = r.at("schema").integer();
    if (schema < kOldestStateSchema || schema > kStateSchema) expect_schema(r, kStateSchema);
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
