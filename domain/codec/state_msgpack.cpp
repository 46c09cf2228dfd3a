#include "domain/codec/state_msgpack.hpp"

#include <cmath>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "domain/codec/field_reader.hpp"
#include "domain/codec/msgpack.hpp"
#include "domain/codec/msgpack_reader.hpp"
#include "domain/codec/msgpack_writer.hpp"
#include "domain/codec/state_codec.hpp"

namespace capstan {
namespace {

// Members are written in the order nlohmann::json keeps an object's keys (sorted), and
// numbers as state_codec.cpp's document holds them, so that the bytes are to_msgpack's
// of that document; the test of this file compares the two on every policy's recorded
// states.

// ---- writing ----

// A sub-state rare enough to go through its nlohmann conversion (ARIMA and seasonal
// predictors, saturation-token's capacity): the tree of that part only.
template <class T>
void write_through_json(MsgpackWriter& w, const T& value) {
  w.raw(nlohmann::json::to_msgpack(non_finite_as_tokens(nlohmann::json(value))));
}

void write_numbers(MsgpackWriter& w, const auto& values) {
  w.array(values.size());
  for (double v : values) w.number(v);
}

void write_pairs(MsgpackWriter& w, const auto& pairs) {
  w.array(pairs.size());
  for (const auto& [a, b] : pairs) {
    w.array(2);
    w.number(a);
    w.number(b);
  }
}

// A map keyed by variant name, each value written by `write`.
template <class M, class Write>
void write_by_name(MsgpackWriter& w, const M& m, Write write) {
  w.map(m.size());
  for (const auto& [k, v] : m) {
    w.string(k);
    write(v);
  }
}

void write_params(MsgpackWriter& w, const ServiceParams& p) {
  w.map(3);
  w.string("alpha");
  w.number(p.alpha_ms);
  w.string("beta");
  w.number(p.beta_ms);
  w.string("gamma");
  w.number(p.gamma_ms);
}

void write_tuner(MsgpackWriter& w, const TunerState& t) {
  w.map(7);
  w.string("accepted_updates");
  w.integer(t.accepted_updates);
  w.string("consecutive_rejections");
  w.integer(t.consecutive_rejections);
  w.string("covariance");
  write_numbers(w, t.covariance);
  w.string("max_params");
  write_params(w, t.max_params);
  w.string("min_params");
  write_params(w, t.min_params);
  w.string("params");
  write_params(w, t.params);
  w.string("rejected_updates");
  w.integer(t.rejected_updates);
}

void write_variant_memory(MsgpackWriter& w, const VariantMemory& m) {
  w.map(m.waited_at_s ? 3 : 2);
  w.string("cold_start");
  if (m.cold_start) {
    w.map(2);
    w.string("prior_s");
    w.number(m.cold_start->prior_s);
    w.string("samples_s");
    write_numbers(w, m.cold_start->samples_s);
  } else {
    w.null();
  }
  w.string("tuner");
  if (m.tuner) {
    write_tuner(w, *m.tuner);
  } else {
    w.null();
  }
  if (!m.waited_at_s) return;  // as before it was kept
  w.string("waited_at_s");
  w.number(*m.waited_at_s);
}

void write_finisher(MsgpackWriter& w, const ModelFinisherState& f) {
  w.map(3);
  w.string("arrivals");
  write_pairs(w, f.arrivals);
  w.string("enforcer");
  write_by_name(w, f.enforcer.variants, [&](const VariantEnforcerState& v) {
    w.map(2);
    w.string("last_change_s");
    if (v.last_change_s) {
      w.number(*v.last_change_s);
    } else {
      w.null();
    }
    w.string("recent_targets");
    w.array(v.recent_targets.size());
    for (const TargetSample& s : v.recent_targets) {
      w.array(2);
      w.number(s.t_s);
      w.integer(s.target_replicas);
    }
  });
  w.string("last_good_target");
  write_by_name(w, f.last_good_target, [&](int n) { w.integer(n); });
}

void write_holt(MsgpackWriter& w, const HoltState& s) {
  w.map(4);
  w.string("config");
  w.map(2);
  w.string("alpha");
  w.number(s.config.alpha);
  w.string("beta");
  w.number(s.config.beta);
  w.string("count");
  w.integer(s.count);
  w.string("level");
  w.number(s.level);
  w.string("trend");
  w.number(s.trend);
}

void write_predictor(MsgpackWriter& w, const PredictorState& p) {
  if (const auto* c = std::get_if<ConstantState>(&p.model)) {
    w.array(2);
    w.integer(c->count);
    w.number(c->last);
  } else if (const auto* h = std::get_if<HoltState>(&p.model)) {
    w.array(5);
    w.number(h->config.alpha);
    w.number(h->config.beta);
    w.integer(h->count);
    w.number(h->level);
    w.number(h->trend);
  } else if (const auto* k = std::get_if<KalmanState>(&p.model)) {
    w.array(12);
    w.number(k->config.q_level);
    w.number(k->config.q_trend);
    w.number(k->config.r);
    w.integer(k->config.min_points);
    w.integer(k->fallback.count);
    w.number(k->fallback.last);
    w.number(k->level);
    w.number(k->trend);
    w.number(k->p_level);
    w.number(k->p_cross);
    w.number(k->p_trend);
    w.integer(k->config.log1p ? 1 : 0);
  } else {
    std::visit([&](const auto& m) { write_through_json(w, m); }, p.model);
  }
}

// state_codec.cpp's compact forecaster: arrays of numbers.
void write_selector(MsgpackWriter& w, const SelectorState& s) {
  w.array(2);
  w.number(s.config.error_weight);
  w.array(s.candidates.size());
  for (const SelectorCandidate& c : s.candidates) {
    w.array(4);
    w.string(to_string(kind_of(c.predictor)));
    w.number(c.mean_abs_error);
    w.integer(c.scored);
    write_predictor(w, c.predictor);
  }
}

void write_forecast(MsgpackWriter& w, const std::optional<TrafficForecastState>& f) {
  if (!f) return w.null();
  w.array(3);
  write_selector(w, f->rate_rps);
  write_selector(w, f->avg_input_tokens);
  write_selector(w, f->avg_output_tokens);
}

// A count of requests: an integer where it is one (state_codec.cpp's encode_count).
void write_count(MsgpackWriter& w, double v) {
  if (v == std::floor(v) && std::abs(v) < 0x1p53) return w.integer(static_cast<std::int64_t>(v));
  w.number(v);
}

void write_itl_evidence(MsgpackWriter& w, const ItlEvidence& e) {
  w.map(3);
  w.string("start");
  if (e.start) {
    w.array(2);
    w.number(e.start->a);
    w.number(e.start->b);
  } else {
    w.null();
  }
  w.string("upper_bounds_ms");
  write_numbers(w, e.upper_bounds_ms);
  w.string("windows");
  w.array(e.windows.size());
  for (const ItlWindow& win : e.windows) {
    std::size_t first = 0, end = win.below.size();
    while (first < end && win.below[first] == 0) ++first;
    while (end > first && win.below[end - 1] == win.requests) --end;
    w.array(5);
    w.number(win.d1_ms);
    w.number(win.model_itl_ms);
    write_count(w, win.requests);
    w.unsigned_integer(first);
    w.array(end - first);
    for (std::size_t i = first; i < end; ++i) write_count(w, win.below[i]);
  }
}

// forward_pass_regression.hpp's record.
void write_regression(MsgpackWriter& w, const RegressionState& s) {
  const RegressionRecord r = record_of(s);
  w.map(7);
  w.string("decode_kv_steps");
  w.boolean(r.decode_kv_steps);
  w.string("decode_length");
  write_numbers(w, r.decode_length_before);
  w.string("prefill_per_iter");
  write_numbers(w, r.prefill_per_iter_before);
  w.string("prefill_per_iter_from");
  w.unsigned_integer(r.prefill_per_iter_from);
  w.string("prompt_tokens");
  write_numbers(w, s.prompt_tokens);
  w.string("role");
  w.string(to_string(s.role));
  w.string("sample_columns");
  w.array(4);
  w.array(s.samples.size());
  for (const IterationSample& x : s.samples) w.number(x.prefill_tokens);
  write_numbers(w, r.decode_kv_column);
  w.array(s.samples.size());
  for (const IterationSample& x : s.samples) w.number(x.wall_time_ms);
  w.array(r.decode_requests.size());
  for (std::uint64_t n : r.decode_requests) w.unsigned_integer(n);
}

void write_split(MsgpackWriter& w, const SplitSizingState& s) {
  w.map(4);
  w.string("last_shape");
  if (s.last_shape) {
    w.array(3);
    w.number(s.last_shape->rate_rps);
    w.number(s.last_shape->avg_input_tokens);
    w.number(s.last_shape->avg_output_tokens);
  } else {
    w.null();
  }
  w.string("recent_capacity_rps");
  write_by_name(w, s.recent_capacity_rps, [&](const History<double>& d) { write_numbers(w, d); });
  w.string("recent_demand");
  write_by_name(w, s.recent_demand, [&](const DemandHistory& d) { write_pairs(w, d); });
  w.string("regressions");
  write_by_name(w, s.regressions, [&](const RegressionState& r) { write_regression(w, r); });
}

void write_load_variant(MsgpackWriter& w, const LoadVariantState& s) {
  w.map(2);
  w.string("last_change_s");
  if (s.last_change_s) {
    w.number(*s.last_change_s);
  } else {
    w.null();
  }
  w.string("regression");
  write_regression(w, s.regression);
}

// A policy memory's members with its "kind" among them, in key order.
void write_memory(MsgpackWriter& w, const std::monostate&) {
  w.map(1);
  w.string("kind");
  w.string("none");
}

void write_memory(MsgpackWriter& w, const FixedMemory& m) {
  w.map(2);
  w.string("held");
  write_by_name(w, m.held, [&](int n) { w.integer(n); });
  w.string("kind");
  w.string("fixed");
}

void write_rates(MsgpackWriter& w, const History<DemonstratedRate>& rates) {
  w.array(rates.size());
  for (const DemonstratedRate& d : rates) write_numbers(w, std::array{d.at_s, d.rps, d.input_tokens, d.output_tokens});
}

void write_memory(MsgpackWriter& w, const HybridMemory& m) {
  const bool headroom = m.headroom != MissHeadroom{};
  w.map(8 + (m.demonstrated.empty() ? 0 : 1) + (m.refuted.empty() ? 0 : 1) + (m.met.empty() ? 0 : 1) +
        (m.surges.empty() ? 0 : 1) +
        (m.judged_short.empty() ? 0 : 1) + (m.released_at_s.empty() ? 0 : 1) + (headroom ? 1 : 0));
  w.string("correction");
  write_by_name(w, m.correction, [&](double k) { w.number(k); });
  if (!m.demonstrated.empty()) {  // as before they were remembered when there are none
    w.string("demonstrated");
    write_by_name(w, m.demonstrated, [&](const History<DemonstratedRate>& rates) { write_rates(w, rates); });
  }
  w.string("forecast");
  write_forecast(w, m.forecast);
  if (headroom) {  // as before it was learned when there is none
    w.string("headroom");
    write_numbers(w, std::array{m.headroom.requests, m.headroom.missed, m.headroom.extra, m.headroom.spent_until_s});
  }
  w.string("itl_windows");
  write_by_name(w, m.itl_windows, [&](const ItlEvidence& e) { write_itl_evidence(w, e); });
  if (!m.judged_short.empty()) {  // as before it was remembered when there is none
    w.string("judged_short");
    write_by_name(w, m.judged_short, [&](const JudgedShort& j) { write_numbers(w, std::array{j.at_s, j.rps}); });
  }
  w.string("kind");
  w.string("hybrid");
  if (!m.met.empty()) {  // as before they were remembered when there are none
    w.string("met");
    write_by_name(w, m.met, [&](const History<DemonstratedRate>& rates) { write_rates(w, rates); });
  }
  w.string("recent_capacity");
  write_by_name(w, m.recent_capacity, [&](const History<double>& d) { write_numbers(w, d); });
  w.string("recent_demand");
  write_pairs(w, m.recent_demand);
  if (!m.refuted.empty()) {  // as before they were remembered when there are none
    w.string("refuted");
    write_by_name(w, m.refuted, [&](const History<DemonstratedRate>& rates) { write_rates(w, rates); });
  }
  if (!m.released_at_s.empty()) {  // as before they were remembered when there are none
    w.string("released_at_s");
    write_by_name(w, m.released_at_s, [&](double t) { w.number(t); });
  }
  w.string("split");
  write_split(w, m.split);
  w.string("starting_since");
  write_by_name(w, m.starting_since, [&](const History<double>& d) { write_numbers(w, d); });
  if (m.surges.empty()) return;  // as before surges were remembered
  w.string("surges");
  w.array(m.surges.size());
  for (const DemandSurge& e : m.surges) {
    write_numbers(w, std::array{e.start_s, e.end_s, e.from_rps, e.to_rps, e.recurs ? 1.0 : 0.0});
  }
}

void write_memory(MsgpackWriter& w, const ErlangMemory& m) {
  w.map(2);
  w.string("forecast");
  if (m.forecast) {
    write_holt(w, *m.forecast);
  } else {
    w.null();
  }
  w.string("kind");
  w.string("erlang");
}

void write_memory(MsgpackWriter& w, const TokenSaturationMemory& m) {
  w.map(2);
  w.string("capacity");
  write_through_json(w, m.capacity);
  w.string("kind");
  w.string("saturation-token");
}

void write_variants_memory(MsgpackWriter& w, const char* kind, const auto& variants, auto write) {
  w.map(2);
  w.string("kind");
  w.string(kind);
  w.string("variants");
  write_by_name(w, variants, write);
}

void write_memory(MsgpackWriter& w, const HpaMemory& m) {
  write_variants_memory(w, "hpa", m.variants, [&](const HpaVariantState& s) {
    w.map(1);
    w.string("recommendations");
    w.array(s.recommendations.size());
    for (const HpaRecommendation& r : s.recommendations) {
      w.array(2);
      w.number(r.at_s);
      w.integer(r.replicas);
    }
  });
}

void write_memory(MsgpackWriter& w, const LoadMemory& m) {
  write_variants_memory(w, "load", m.variants, [&](const LoadVariantState& s) { write_load_variant(w, s); });
}

void write_memory(MsgpackWriter& w, const ThroughputMemory& m) {
  write_variants_memory(w, "throughput", m.variants, [&](const ThroughputVariantState& s) {
    w.map(3);
    w.string("forecast");
    write_forecast(w, s.forecast);
    w.string("load");
    write_load_variant(w, s.load);
    w.string("tuner");
    if (s.tuner) {
      const TunerState& t = *s.tuner;
      const std::vector<double> covariance = covariance_record(t.covariance);
      w.array(12 + covariance.size());
      for (double v : {t.params.alpha_ms, t.params.beta_ms, t.params.gamma_ms}) w.number(v);
      for (double v : covariance) w.number(v);
      for (const ServiceParams* p : {&t.min_params, &t.max_params}) {
        for (double v : {p->alpha_ms, p->beta_ms, p->gamma_ms}) w.number(v);
      }
      w.integer(t.accepted_updates);
      w.integer(t.rejected_updates);
      w.integer(t.consecutive_rejections);
    } else {
      w.null();
    }
  });
}

// ---- reading: the same layout, or MsgpackMismatch ----

// A sub-state written through its nlohmann conversion, read back through it.
template <class T>
T read_through_json(MsgpackReader& r) {
  const std::size_t begin = r.position();
  r.skip();
  const auto bytes = r.bytes().subspan(begin, r.position() - begin);
  try {
    return non_finite_from_tokens(nlohmann::json::from_msgpack(bytes.begin(), bytes.end())).get<T>();
  } catch (const std::exception&) {
    throw MsgpackMismatch();  // the JSON reader names what is wrong
  }
}

template <class T, class Read>
std::optional<T> read_optional(MsgpackReader& r, Read read) {
  if (r.next_is_null()) {
    r.null();
    return std::nullopt;
  }
  return read();
}

template <class C>
C read_numbers(MsgpackReader& r) {
  C out;
  const std::size_t n = r.array();
  if constexpr (requires { out.reserve(n); }) out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(r.number());
  return out;
}

template <class C>
C read_pairs(MsgpackReader& r) {
  C out;
  const std::size_t n = r.array();
  if constexpr (requires { out.reserve(n); }) out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    r.array(2);
    const double a = r.number();
    out.emplace_back(a, r.number());
  }
  return out;
}

// A map keyed by variant name, in the writer's (increasing) key order.
template <class T, class Read>
std::map<std::string, T> read_by_name(MsgpackReader& r, Read read) {
  std::map<std::string, T> out;
  const std::size_t n = r.map();
  for (std::size_t i = 0; i < n; ++i) {
    const std::string_view key = r.string();
    if (!out.empty() && !(out.rbegin()->first < key)) throw MsgpackMismatch();
    out.emplace_hint(out.end(), std::string(key), read());
  }
  return out;
}

ServiceParams read_params(MsgpackReader& r) {
  ServiceParams p;
  r.map(3);
  r.key("alpha");
  p.alpha_ms = r.number();
  r.key("beta");
  p.beta_ms = r.number();
  r.key("gamma");
  p.gamma_ms = r.number();
  return p;
}

TunerState read_tuner(MsgpackReader& r) {
  TunerState t;
  r.map(7);
  r.key("accepted_updates");
  t.accepted_updates = r.integer();
  r.key("consecutive_rejections");
  t.consecutive_rejections = r.int32();
  r.key("covariance");
  r.array(t.covariance.size());
  for (double& c : t.covariance) c = r.number();
  r.key("max_params");
  t.max_params = read_params(r);
  r.key("min_params");
  t.min_params = read_params(r);
  r.key("params");
  t.params = read_params(r);
  r.key("rejected_updates");
  t.rejected_updates = r.integer();
  return t;
}

History<DemonstratedRate> read_rates(MsgpackReader& r) {
  History<DemonstratedRate> rates;
  const std::size_t n = r.array();
  for (std::size_t i = 0; i < n; ++i) {
    r.array(4);
    DemonstratedRate& d = rates.emplace_back();
    d.at_s = r.number();
    d.rps = r.number();
    d.input_tokens = r.number();
    d.output_tokens = r.number();
  }
  return rates;
}

VariantMemory read_variant_memory(MsgpackReader& r) {
  VariantMemory m;
  const std::size_t members = r.map();
  if (members != 2 && members != 3) throw MsgpackMismatch();
  r.key("cold_start");
  m.cold_start = read_optional<ColdStartState>(r, [&] {
    ColdStartState c;
    r.map(2);
    r.key("prior_s");
    c.prior_s = r.number();
    r.key("samples_s");
    c.samples_s = read_numbers<std::vector<double>>(r);
    return c;
  });
  r.key("tuner");
  m.tuner = read_optional<TunerState>(r, [&] { return read_tuner(r); });
  if (members == 3) {
    r.key("waited_at_s");
    m.waited_at_s = r.number();
  }
  return m;
}

ModelFinisherState read_finisher(MsgpackReader& r) {
  ModelFinisherState f;
  r.map(3);
  r.key("arrivals");
  f.arrivals = read_pairs<History<std::pair<double, double>>>(r);
  r.key("enforcer");
  f.enforcer.variants = read_by_name<VariantEnforcerState>(r, [&] {
    VariantEnforcerState v;
    r.map(2);
    r.key("last_change_s");
    v.last_change_s = read_optional<double>(r, [&] { return r.number(); });
    r.key("recent_targets");
    const std::size_t n = r.array();
    for (std::size_t i = 0; i < n; ++i) {
      r.array(2);
      const double t = r.number();
      v.recent_targets.push_back({t, r.int32()});
    }
    return v;
  });
  r.key("last_good_target");
  f.last_good_target = read_by_name<int>(r, [&] { return r.int32(); });
  return f;
}

HoltState read_holt(MsgpackReader& r) {
  HoltState s;
  r.map(4);
  r.key("config");
  r.map(2);
  r.key("alpha");
  s.config.alpha = r.number();
  r.key("beta");
  s.config.beta = r.number();
  r.key("count");
  s.count = r.integer();
  r.key("level");
  s.level = r.number();
  r.key("trend");
  s.trend = r.number();
  return s;
}

// arima_predictor.cpp's layout, [max_p, max_d, max_q, min_points, count, last, history,
// model or null], model = [p, d, q, scored_points, css, aic, params, tail, xx, xw], with
// the shape checks of its from_json; anything else is left to that reader, which names it.
ArimaState read_arima(MsgpackReader& r) {
  ArimaState s;
  r.array(8);
  s.config.grid.max_p = r.int32();
  s.config.grid.max_d = r.int32();
  s.config.grid.max_q = r.int32();
  s.config.min_points = r.int32();
  s.fallback.count = r.integer();
  s.fallback.last = r.number();
  s.history = read_numbers<std::vector<double>>(r);
  if (r.next_is_null()) {
    r.null();
    return s;
  }
  s.fitted = true;
  r.array(10);
  ArimaModel& m = s.model;
  m.order.p = r.int32();
  m.order.d = r.int32();
  m.order.q = r.int32();
  m.scored_points = r.int32();
  m.css = r.number();
  m.aic = r.number();
  if (m.order.p < 0 || m.order.d < 0 || m.order.q < 0) throw MsgpackMismatch();
  const auto p = static_cast<std::size_t>(m.order.p), d = static_cast<std::size_t>(m.order.d),
             q = static_cast<std::size_t>(m.order.q), k = 1 + p + q;
  const auto exactly = [&](std::size_t n) {
    if (r.array() != n) throw MsgpackMismatch();
  };
  exactly(k);
  m.constant = r.number();
  for (std::size_t i = 0; i < p; ++i) m.ar.push_back(r.number());
  for (std::size_t i = 0; i < q; ++i) m.ma.push_back(r.number());
  exactly(d + p + q);
  for (std::size_t i = 0; i < d; ++i) s.tail.levels.push_back(r.number());
  for (std::size_t i = 0; i < p; ++i) s.tail.lags.push_back(r.number());
  for (std::size_t i = 0; i < q; ++i) s.tail.shocks.push_back(r.number());
  s.xx = read_numbers<std::vector<double>>(r);
  s.xw = read_numbers<std::vector<double>>(r);
  if (s.xx.size() != k * (k + 1) / 2 || s.xw.size() != k) throw MsgpackMismatch();
  return s;
}

PredictorState read_predictor(MsgpackReader& r, std::string_view kind) {
  if (kind == "constant") {
    r.array(2);
    ConstantState c;
    c.count = r.integer();
    c.last = r.number();
    return {c};
  }
  if (kind == "holt") {
    r.array(5);
    HoltState h;
    h.config.alpha = r.number();
    h.config.beta = r.number();
    h.count = r.integer();
    h.level = r.number();
    h.trend = r.number();
    return {h};
  }
  if (kind == "kalman") {
    r.array(12);
    KalmanState k;
    k.config.q_level = r.number();
    k.config.q_trend = r.number();
    k.config.r = r.number();
    k.config.min_points = r.int32();
    k.fallback.count = r.integer();
    k.fallback.last = r.number();
    k.level = r.number();
    k.trend = r.number();
    k.p_level = r.number();
    k.p_cross = r.number();
    k.p_trend = r.number();
    k.config.log1p = r.integer() != 0;
    return {k};
  }
  if (kind == "arima") return {read_arima(r)};
  if (kind == "seasonal") return {read_through_json<SeasonalState>(r)};
  throw MsgpackMismatch();
}

SelectorState read_selector(MsgpackReader& r) {
  SelectorState s;
  r.array(2);
  s.config.error_weight = r.number();
  const std::size_t n = r.array();
  if (n == 0) throw MsgpackMismatch();
  s.candidates.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    r.array(4);
    const std::string_view kind = r.string();
    SelectorCandidate c;
    c.mean_abs_error = r.number();
    c.scored = r.integer();
    c.predictor = read_predictor(r, kind);
    s.candidates.push_back(std::move(c));
  }
  return s;
}

std::optional<TrafficForecastState> read_forecast(MsgpackReader& r) {
  return read_optional<TrafficForecastState>(r, [&] {
    r.array(3);
    TrafficForecastState f;
    f.rate_rps = read_selector(r);
    f.avg_input_tokens = read_selector(r);
    f.avg_output_tokens = read_selector(r);
    return f;
  });
}

// As state_codec.cpp's read_itl_evidence, whose checks it repeats (failing over to it).
ItlEvidence read_itl_evidence(MsgpackReader& r) {
  ItlEvidence e;
  r.map(3);
  r.key("start");
  e.start = read_optional<ProbitCoefficients>(r, [&] {
    r.array(2);
    const double a = r.number();
    return ProbitCoefficients{a, r.number()};
  });
  r.key("upper_bounds_ms");
  e.upper_bounds_ms = read_numbers<std::vector<double>>(r);
  r.key("windows");
  const std::size_t n = r.array();
  e.windows.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    r.array(5);
    const double d1_ms = r.number();
    const double model_itl_ms = r.number();
    const double requests = r.number();
    const std::int64_t leading = r.integer();
    const std::size_t listed = r.array();
    if (leading < 0 || static_cast<std::size_t>(leading) + listed > e.upper_bounds_ms.size()) throw MsgpackMismatch();
    std::vector<double> below(static_cast<std::size_t>(leading), 0.0);
    below.reserve(e.upper_bounds_ms.size());
    for (std::size_t k = 0; k < listed; ++k) below.push_back(r.number());
    below.resize(e.upper_bounds_ms.size(), requests);
    // Without its points: refit_itl_spread derives them when it first needs them, so a
    // restore does not take the logarithm of every bound of every window.
    e.windows.push_back(ItlWindow{d1_ms, model_itl_ms, requests, std::move(below), {}, std::nullopt});
  }
  return e;
}

RegressionState read_regression(MsgpackReader& r) {
  RegressionState s;
  RegressionRecord record;
  const auto count = [&] {
    const std::int64_t n = r.integer();
    if (n < 0) throw MsgpackMismatch();
    return static_cast<std::uint64_t>(n);
  };
  r.map(7);
  r.key("decode_kv_steps");
  record.decode_kv_steps = r.boolean();
  r.key("decode_length");
  record.decode_length_before = read_numbers<std::vector<double>>(r);
  r.key("prefill_per_iter");
  record.prefill_per_iter_before = read_numbers<std::vector<double>>(r);
  r.key("prefill_per_iter_from");
  record.prefill_per_iter_from = count();
  r.key("prompt_tokens");
  s.prompt_tokens = read_numbers<std::vector<double>>(r);
  r.key("role");
  if (!parse_role(std::string(r.string()), s.role)) throw MsgpackMismatch();
  r.key("sample_columns");
  r.array(4);
  const std::size_t n = r.array();
  s.samples.resize(n);
  for (IterationSample& x : s.samples) x.prefill_tokens = r.number();
  r.array(n);
  record.decode_kv_column.resize(n);
  for (double& v : record.decode_kv_column) v = r.number();
  r.array(n);
  for (IterationSample& x : s.samples) x.wall_time_ms = r.number();
  r.array(n);
  record.decode_requests.resize(n);
  for (std::uint64_t& requests : record.decode_requests) requests = count();
  auto rebuilt = from_record(std::move(s), record);
  if (!rebuilt.ok()) throw MsgpackMismatch();  // the JSON reader names the field
  return std::move(rebuilt).value();
}

SplitSizingState read_split(MsgpackReader& r) {
  SplitSizingState s;
  r.map(4);
  r.key("last_shape");
  s.last_shape = read_optional<TrafficSample>(r, [&] {
    r.array(3);
    TrafficSample t;
    t.rate_rps = r.number();
    t.avg_input_tokens = r.number();
    t.avg_output_tokens = r.number();
    return t;
  });
  r.key("recent_capacity_rps");
  s.recent_capacity_rps = read_by_name<History<double>>(r, [&] { return read_numbers<History<double>>(r); });
  r.key("recent_demand");
  s.recent_demand = read_by_name<DemandHistory>(r, [&] { return read_pairs<DemandHistory>(r); });
  r.key("regressions");
  s.regressions = read_by_name<RegressionState>(r, [&] { return read_regression(r); });
  return s;
}

LoadVariantState read_load_variant(MsgpackReader& r) {
  LoadVariantState s;
  r.map(2);
  r.key("last_change_s");
  s.last_change_s = read_optional<double>(r, [&] { return r.number(); });
  r.key("regression");
  s.regression = read_regression(r);
  return s;
}

template <class S, class Read>
PerVariantMemory<S> read_variants_memory(MsgpackReader& r, std::string_view kind, Read read) {
  r.key("kind");
  if (r.string() != kind) throw MsgpackMismatch();
  r.key("variants");
  return {read_by_name<S>(r, read)};
}

// The memory of a model under `policy`, its kind checked as read_model_state checks it.
PolicyMemory read_memory(MsgpackReader& r, const std::string& policy) {
  const std::size_t members = r.map();
  // A memory of one member is {kind} alone: "none" or a policy with nothing to keep.
  // Otherwise it can only be `policy`'s, and each branch checks its kind where it stands.
  std::string_view kind = policy;
  if (members == 1) {
    MsgpackReader ahead = r;
    ahead.key("kind");
    kind = ahead.string();
  }
  if (kind != "none" && kind != policy) throw MsgpackMismatch();
  const auto expect = [&](std::size_t n) {
    if (members != n) throw MsgpackMismatch();
  };
  const auto kind_is = [&](std::string_view k) {
    r.key("kind");
    if (r.string() != k) throw MsgpackMismatch();
  };
  if (kind == "none") {
    expect(1);
    kind_is("none");
    return std::monostate{};
  }
  if (kind == "fixed") {
    expect(2);
    r.key("held");
    FixedMemory m{read_by_name<int>(r, [&] { return r.int32(); })};
    kind_is("fixed");
    return m;
  }
  if (kind == "hybrid") {
    if (members < 8 || members > 14) throw MsgpackMismatch();
    HybridMemory m;
    // Whether the next member is `name`, one written only when it has entries.
    const auto next_is = [&](std::string_view name) {
      MsgpackReader ahead = r;
      return ahead.next_is_string() && ahead.string() == name;
    };
    r.key("correction");
    m.correction = read_by_name<double>(r, [&] { return r.number(); });
    if (next_is("demonstrated")) {
      r.key("demonstrated");
      m.demonstrated = read_by_name<History<DemonstratedRate>>(r, [&] { return read_rates(r); });
    }
    r.key("forecast");
    m.forecast = read_forecast(r);
    if (next_is("headroom")) {
      r.key("headroom");
      r.array(4);
      m.headroom = {r.number(), r.number(), r.number(), r.number()};  // a braced list reads left to right
      if (!valid_counts(m.headroom) || !(m.headroom.extra >= 0 && m.headroom.extra <= kMaxExtraHeadroom))
        throw MsgpackMismatch();
    }
    r.key("itl_windows");
    m.itl_windows = read_by_name<ItlEvidence>(r, [&] { return read_itl_evidence(r); });
    if (next_is("judged_short")) {
      r.key("judged_short");
      m.judged_short = read_by_name<JudgedShort>(r, [&] {
        r.array(2);
        return JudgedShort{r.number(), r.number()};  // a braced list reads left to right
      });
    }
    kind_is("hybrid");
    if (next_is("met")) {
      r.key("met");
      m.met = read_by_name<History<DemonstratedRate>>(r, [&] { return read_rates(r); });
    }
    r.key("recent_capacity");
    m.recent_capacity = read_by_name<History<double>>(r, [&] { return read_numbers<History<double>>(r); });
    r.key("recent_demand");
    m.recent_demand = read_pairs<DemandHistory>(r);
    if (next_is("refuted")) {
      r.key("refuted");
      m.refuted = read_by_name<History<DemonstratedRate>>(r, [&] { return read_rates(r); });
    }
    if (next_is("released_at_s")) {
      r.key("released_at_s");
      m.released_at_s = read_by_name<double>(r, [&] { return r.number(); });
    }
    r.key("split");
    m.split = read_split(r);
    r.key("starting_since");
    m.starting_since = read_by_name<History<double>>(r, [&] { return read_numbers<History<double>>(r); });
    if (members == 9u + !m.demonstrated.empty() + !m.refuted.empty() + !m.met.empty() + !m.judged_short.empty() +
                       !m.released_at_s.empty() + (m.headroom != MissHeadroom{})) {
      r.key("surges");
      const std::size_t n = r.array();
      for (std::size_t i = 0; i < n; ++i) {
        r.array(5);
        DemandSurge& e = m.surges.emplace_back();
        e.start_s = r.number();
        e.end_s = r.number();
        e.from_rps = r.number();
        e.to_rps = r.number();
        e.recurs = r.number() != 0;
      }
    }
    return m;
  }
  if (kind == "erlang") {
    expect(2);
    r.key("forecast");
    ErlangMemory m{read_optional<HoltState>(r, [&] { return read_holt(r); })};
    kind_is("erlang");
    return m;
  }
  if (kind == "saturation-token") {
    expect(2);
    r.key("capacity");
    TokenSaturationMemory m{read_through_json<TokenCapacityState>(r)};
    kind_is("saturation-token");
    return m;
  }
  expect(2);
  if (kind == "hpa") {
    return read_variants_memory<HpaVariantState>(r, kind, [&] {
      HpaVariantState s;
      r.map(1);
      r.key("recommendations");
      const std::size_t n = r.array();
      for (std::size_t i = 0; i < n; ++i) {
        r.array(2);
        const double at = r.number();
        s.recommendations.push_back({at, r.int32()});
      }
      return s;
    });
  }
  if (kind == "load") return read_variants_memory<LoadVariantState>(r, kind, [&] { return read_load_variant(r); });
  if (kind == "throughput") {
    return read_variants_memory<ThroughputVariantState>(r, kind, [&] {
      ThroughputVariantState s;
      r.map(3);
      r.key("forecast");
      s.forecast = read_forecast(r);
      r.key("load");
      s.load = read_load_variant(r);
      r.key("tuner");
      s.tuner = read_optional<TunerState>(r, [&] {
        TunerState t;
        const std::size_t n = r.array();
        if (n != 18 && n != 21) throw MsgpackMismatch();
        for (ServiceParams* p : {&t.params}) *p = {r.number(), r.number(), r.number()};
        std::array<double, 9> covariance{};
        for (std::size_t k = 0; k < n - 12; ++k) covariance[k] = r.number();
        t.covariance = *covariance_from_record(std::span(covariance).first(n - 12));
        for (ServiceParams* p : {&t.min_params, &t.max_params}) *p = {r.number(), r.number(), r.number()};
        t.accepted_updates = r.integer();
        t.rejected_updates = r.integer();
        t.consecutive_rejections = r.int32();
        return t;
      });
      return s;
    });
  }
  throw MsgpackMismatch();
}

FleetMemory read_fleet_memory(MsgpackReader& r, const std::string& policy) {
  FleetMemory out;
  r.map(5);
  r.key("fleet");
  r.map(0);
  r.key("models");
  const std::size_t models = r.array();
  for (std::size_t i = 0; i < models; ++i) {
    r.map(4);
    r.key("finisher");
    ModelState s;
    s.finisher = read_finisher(r);
    r.key("model_id");
    ModelKey key;
    key.model_id = std::string(r.string());
    r.key("ns");
    key.ns = std::string(r.string());
    r.key("policy");
    s.policy = read_memory(r, policy);
    out.models.emplace(std::move(key), std::move(s));
  }
  r.key("policy");
  if (r.string() != policy) throw MsgpackMismatch();
  r.key("schema");
  if (r.integer() != kStateSchema) throw MsgpackMismatch();
  r.key("variants");
  const std::size_t variants = r.array();
  for (std::size_t i = 0; i < variants; ++i) {
    r.map(4);
    r.key("memory");
    VariantMemory m = read_variant_memory(r);
    VariantKey key;
    r.key("model_id");
    key.model.model_id = std::string(r.string());
    r.key("ns");
    key.model.ns = std::string(r.string());
    r.key("variant");
    key.variant = std::string(r.string());
    out.variants.emplace(std::move(key), std::move(m));
  }
  if (!r.at_end()) throw MsgpackMismatch();
  return out;
}

}  // namespace

std::vector<std::uint8_t> encode_fleet_memory_msgpack(const std::string& policy, const FleetMemory& memory) {
  std::vector<std::uint8_t> out;
  out.reserve(256 + 2048 * memory.variants.size());
  MsgpackWriter w(out);
  w.map(5);
  w.string("fleet");
  w.map(0);
  w.string("models");
  w.array(memory.models.size());
  for (const auto& [key, s] : memory.models) {
    w.map(4);
    w.string("finisher");
    write_finisher(w, s.finisher);
    w.string("model_id");
    w.string(key.model_id);
    w.string("ns");
    w.string(key.ns);
    w.string("policy");
    std::visit([&](const auto& m) { write_memory(w, m); }, s.policy);
  }
  w.string("policy");
  w.string(policy);
  w.string("schema");
  w.integer(kStateSchema);
  w.string("variants");
  w.array(memory.variants.size());
  for (const auto& [key, m] : memory.variants) {
    w.map(4);
    w.string("memory");
    write_variant_memory(w, m);
    w.string("model_id");
    w.string(key.model.model_id);
    w.string("ns");
    w.string(key.model.ns);
    w.string("variant");
    w.string(key.variant);
  }
  out.shrink_to_fit();
  return out;
}

void write_model_state_msgpack(MsgpackWriter& w, const ModelState& state) {
  w.map(2);
  w.string("finisher");
  write_finisher(w, state.finisher);
  w.string("policy");
  std::visit([&](const auto& m) { write_memory(w, m); }, state.policy);
}

void write_variant_memory_msgpack(MsgpackWriter& w, const VariantMemory& memory) { write_variant_memory(w, memory); }

Result<FleetMemory> decode_fleet_memory_msgpack(const std::string& policy, std::span<const std::uint8_t> bytes) {
  try {
    MsgpackReader r(bytes);
    return read_fleet_memory(r, policy);
  } catch (const MsgpackMismatch&) {
    // Not in this writer's layout: the JSON reader decides, and names what is wrong.
  }
  auto json = from_msgpack_bytes(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
  if (!json.ok()) return json.error();
  return decode_fleet_memory(policy, json.value());
}

}  // namespace capstan
