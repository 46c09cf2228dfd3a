// The admin API's view of the daemon; see daemon_status.hpp.
#include "actors/daemon_status.hpp"

#include <algorithm>
#include <bit>

#include "adapters/admin/prometheus_text.hpp"
#include "domain/codec/event_codec.hpp"
#include "domain/codec/tick_input_codec.hpp"
#include "storage/event_store.hpp"

namespace capstan::actors {

using admin::Labels;
using admin::Sample;

DaemonStatus::DaemonStatus(std::string data_dir, nlohmann::json config)
    : data_dir_(std::move(data_dir)), config_(std::move(config)), tick_buckets_(tick_buckets_s().size(), 0) {}

const std::vector<double>& DaemonStatus::tick_buckets_s() {
  static const std::vector<double> bounds{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  return bounds;
}

void DaemonStatus::store_opened(std::uint64_t last_seq) {
  std::lock_guard lock(mutex_);
  store_open_ = true;
  start_seq_ = last_seq_ = last_seq;
  metrics_text_.clear();
}

void DaemonStatus::record_tick(const TickSummary& summary, const std::vector<storage::Event>& events) {
  std::unique_lock lock(mutex_);
  ++ticks_;
  last_tick_ = summary.tick;
  last_now_s_ = summary.now_s;
  last_seq_ = std::max(last_seq_, summary.last_seq);
  last_phases_ms_ = {summary.observed_ms, summary.planned_ms, summary.durable_ms, summary.done_ms};
  const double seconds = summary.done_ms / 1000;
  tick_seconds_sum_ += seconds;
  const auto& bounds = tick_buckets_s();
  const auto bucket = std::lower_bound(bounds.begin(), bounds.end(), seconds);
  if (bucket != bounds.end()) ++tick_buckets_[static_cast<std::size_t>(bucket - bounds.begin())];

  for (const Decision& d : summary.decisions) {
    ModelView& m = models_[d.model];
    m.tick = summary.tick;
    m.now_s = summary.now_s;
    m.variants[d.variant].decision = d;
    ++decisions_total_[{d.model.ns, d.model.model_id, d.variant, to_string(d.reason.code)}];
  }
  for (const storage::Event& e : events) {
    if (const auto* applied = std::get_if<storage::ConfigApplied>(&e.payload)) {
      // The whole ConfigUpdate; what config::to_json gave is its "applied".
      if (applied->effective.contains("applied")) config_ = applied->effective.at("applied");
    } else if (const auto* actuation = std::get_if<storage::ActuationRecorded>(&e.payload)) {
      if (actuation->status == "failed")
        ++models_[actuation->variant.model].variants[actuation->variant.variant].actuation_failures;
    } else if (const auto* tick_event = std::get_if<TickEvent>(&e.payload)) {
      if (const auto* p = std::get_if<ParamsLearned>(tick_event))
        models_[p->variant.model].variants[p->variant.variant].params = *p;
      else if (const auto* c = std::get_if<CapacitySized>(tick_event))
        models_[c->model].variants[c->variant].capacity = *c;
      else if (const auto* f = std::get_if<ForecastMade>(tick_event))
        models_[f->model].forecast = *f;
    }
  }
  lock.unlock();
  // Made here, once per tick, and without the lock: only this function changes models_
  // (called from the driver loop alone), so reading it meanwhile is safe, and a request
  // never waits for the text nor makes it.
  auto text = std::make_shared<ModelsText>();
  for (const auto& [key, view] : models_) {
    text->keys.push_back(key);
    text->summaries.push_back(model_json(key, view, false).dump());
  }
  text->all = "{\"models\":[";
  for (std::size_t i = 0; i < text->summaries.size(); ++i) text->all += (i ? "," : "") + text->summaries[i];
  text->all += "]}\n";
  lock.lock();
  models_text_ = std::move(text);
}

admin::Readiness DaemonStatus::readiness() const {
  std::lock_guard lock(mutex_);
  admin::Readiness r;
  if (config_.is_null()) r.reasons.push_back("no configuration is loaded");
  if (!store_open_) r.reasons.push_back("the event store " + data_dir_ + " is not open yet");
  if (ticks_ == 0) r.reasons.push_back("no tick has completed yet");
  r.ready = r.reasons.empty();
  return r;
}

namespace {

Labels variant_labels(const ModelKey& m, const std::string& variant) {
  return {{"namespace", m.ns}, {"model", m.model_id}, {"variant", variant}};
}

}  // namespace

std::string DaemonStatus::metrics() const {
  std::lock_guard lock(mutex_);
  if (metrics_tick_ == ticks_ && !metrics_text_.empty()) return metrics_text_;
  metrics_tick_ = ticks_;
  admin::PrometheusText out;
  const auto d = [](auto v) { return static_cast<double>(v); };
  out.family("capstan_ticks_total", "counter", "Ticks completed since the daemon started.", {{{}, d(ticks_)}});
  std::vector<double> cumulative;
  std::uint64_t running = 0;
  for (std::uint64_t n : tick_buckets_) cumulative.push_back(d(running += n));
  out.histogram("capstan_tick_duration_seconds", "Wall time of a tick, observation to actuation recorded.",
                tick_buckets_s(), cumulative, tick_seconds_sum_, d(ticks_));
  if (ticks_ > 0) {
    std::vector<Sample> phases;
    const char* names[] = {"observed", "planned", "durable", "done"};
    for (std::size_t i = 0; i < last_phases_ms_.size(); ++i) phases.push_back({{{"phase", names[i]}}, last_phases_ms_[i] / 1000});
    out.family("capstan_last_tick_phase_seconds", "gauge",
               "Seconds from the last tick's start to the end of each phase.", phases);
    out.family("capstan_last_tick", "gauge", "Number of the last completed tick.", {{{}, d(last_tick_)}});
  }
  std::vector<Sample> decisions;
  for (const auto& [key, n] : decisions_total_) {
    const auto& [ns, model, variant, reason] = key;
    decisions.push_back({{{"namespace", ns}, {"model", model}, {"variant", variant}, {"reason", reason}}, d(n)});
  }
  out.family("capstan_decisions_total", "counter", "Decisions made, by variant and reason code.", decisions);

  std::vector<Sample> desired, current, failures, alpha, beta, gamma, nis, lambda;
  for (const auto& [model, view] : models_) {
    for (const auto& [name, v] : view.variants) {
      const Labels labels = variant_labels(model, name);
      if (v.decision) {
        desired.push_back({labels, d(v.decision->target_replicas)});
        current.push_back({labels, d(v.decision->current_replicas)});
      }
      failures.push_back({labels, d(v.actuation_failures)});
      if (v.params) {
        alpha.push_back({labels, v.params->params.alpha_ms / 1000});
        beta.push_back({labels, v.params->params.beta_ms / 1000});
        gamma.push_back({labels, v.params->params.gamma_ms / 1000});
        nis.push_back({labels, v.params->nis});
      }
      if (v.capacity) lambda.push_back({labels, v.capacity->lambda_star_rps});
    }
  }
  out.family("capstan_desired_replicas", "gauge", "Replicas the last decision asked for.", desired);
  out.family("capstan_current_replicas", "gauge", "Replicas the last tick observed.", current);
  out.family("capstan_actuation_failures_total", "counter", "Actuation attempts that failed since the daemon started.",
             failures);
  out.family("capstan_events_appended_total", "counter", "Events appended to the store since the daemon started.",
             {{{}, d(last_seq_ - start_seq_)}});
  out.family("capstan_event_last_sequence", "gauge", "Sequence number of the last event in the store.",
             {{{}, d(last_seq_)}});
  // Prometheus wants base units: the learned milliseconds in seconds.
  out.family("capstan_learned_alpha_seconds", "gauge", "Learned fixed overhead per iteration (alpha).", alpha);
  out.family("capstan_learned_beta_seconds", "gauge", "Learned compute time per token (beta).", beta);
  out.family("capstan_learned_gamma_seconds", "gauge", "Learned KV-cache access time per cached token (gamma).", gamma);
  out.family("capstan_learned_nis", "gauge", "Normalised innovation squared of the last learning step.", nis);
  out.family("capstan_lambda_star_rps", "gauge", "Per-replica request rate meeting the SLO at its mean.", lambda);
  return metrics_text_ = out.text();
}

nlohmann::json DaemonStatus::model_json(const ModelKey& key, const ModelView& view, bool detail) const {
  nlohmann::json variants = nlohmann::json::array();
  for (const auto& [name, v] : view.variants) {
    nlohmann::json j = {{"name", name}};
    if (v.decision) {
      j["current_replicas"] = v.decision->current_replicas;
      j["desired_replicas"] = v.decision->target_replicas;
      j["reason"] = to_string(v.decision->reason.code);
      if (detail) j["last_decision"] = encode_decision(*v.decision);
    }
    if (detail) {
      j["learned"] = v.params ? encode_event(TickEvent{*v.params}) : nlohmann::json();
      j["capacity"] = v.capacity ? encode_event(TickEvent{*v.capacity}) : nlohmann::json();
      j["actuation_failures"] = v.actuation_failures;
    }
    variants.push_back(std::move(j));
  }
  nlohmann::json out = {{"namespace", key.ns}, {"model_id", key.model_id}, {"tick", view.tick},
                        {"time_s", view.now_s}, {"variants", std::move(variants)}};
  if (detail) {
    nlohmann::json slo;
    for (const auto& [name, v] : view.variants)
      if (v.capacity) slo = {{"ttft_ms", v.capacity->slo.ttft_ms}, {"itl_ms", v.capacity->slo.itl_ms},
                             {"source", v.capacity->slo_source}};
    out["slo"] = slo;
    out["forecast"] = view.forecast ? encode_event(TickEvent{*view.forecast}) : nlohmann::json();
  }
  return out;
}

std::string DaemonStatus::models(const admin::ModelPage& page) const {
  std::shared_ptr<const ModelsText> text;
  {
    std::lock_guard lock(mutex_);
    text = models_text_;
  }
  if (!text) text = std::make_shared<const ModelsText>(ModelsText{{}, {}, "{\"models\":[]}\n"});
  if (page.limit == 0 && !page.after) return text->all;
  const auto& keys = text->keys;
  std::size_t i = page.after ? static_cast<std::size_t>(std::upper_bound(keys.begin(), keys.end(), *page.after) - keys.begin()) : 0;
  const std::size_t end = page.limit == 0 ? keys.size() : std::min(keys.size(), i + page.limit);
  std::string out = "{\"models\":[";
  for (std::size_t first = i; i < end; ++i) out += (i > first ? "," : "") + text->summaries[i];
  out += "],\"next_after\":";
  out += end < keys.size() ? nlohmann::json(keys[end - 1].ns + "/" + keys[end - 1].model_id).dump() : "null";
  return out + "}\n";
}

std::optional<nlohmann::json> DaemonStatus::model(const ModelKey& key) const {
  std::lock_guard lock(mutex_);
  const auto it = models_.find(key);
  if (it == models_.end()) return std::nullopt;
  return model_json(key, it->second, true);
}

nlohmann::json DaemonStatus::config() const {
  std::lock_guard lock(mutex_);
  return config_;
}

namespace {

constexpr std::size_t kCachedPages = 64;

// An events query as the key of its page: every field that selects or bounds it,
// NUL-separated (no field holds a NUL; a model id may hold '/').
std::string page_key(const admin::EventQuery& q) {
  std::string key = std::to_string(q.from_seq) + '\0' + std::to_string(q.limit) + '\0';
  if (q.model) key += q.model->ns + '\0' + q.model->model_id;
  key += '\0';
  if (q.type) key += *q.type;
  key += '\0';
  if (q.since_s) key += std::to_string(std::bit_cast<std::uint64_t>(*q.since_s));
  return key;
}

}  // namespace

Result<std::string> DaemonStatus::events(const admin::EventQuery& query) const {
  if (query.type) {
    const auto& known = storage::known_event_types();
    if (std::find(known.begin(), known.end(), *query.type) == known.end()) {
      std::string list;
      for (const std::string& t : known) list += (list.empty() ? "" : ", ") + t;
      return invalid_argument("type must be one of " + list + ", got '" + *query.type + "'");
    }
  }
  // A secondary opener, kept and caught up with the writer (the journal's) when a tick
  // has appended since: what the pages show is durable as of the last tick at least. A
  // catch-up per request replayed the writer's log each time (189 requests a second at
  // most, with the daemon ticking 1,000 models every second). One that cannot catch up
  // is dropped and opened afresh.
  const std::uint64_t durable = [&] {
    std::lock_guard state_lock(mutex_);
    return last_seq_;
  }();
  std::lock_guard lock(reader_mutex_);
  if (pages_seq_ != durable || pages_.size() >= kCachedPages) {
    pages_.clear();
    pages_seq_ = durable;
  }
  const std::string key = page_key(query);
  if (auto hit = pages_.find(key); hit != pages_.end()) return hit->second;
  if (reader_ && reader_->last_sequence() < durable && reader_->refresh()) reader_.reset();
  if (!reader_) {
    auto opened = storage::EventStore::open_read_only(data_dir_);
    if (!opened) return Error{ErrorCode::kNoData, "the event store cannot be read: " + opened.error().message};
    reader_ = std::move(opened.value());
  }
  const storage::EventStore* store = reader_.get();
  storage::EventFilter filter;
  filter.from_seq = query.from_seq;
  filter.from_time_s = query.since_s;
  filter.model = query.model;
  filter.type = query.type;
  nlohmann::json page = nlohmann::json::array();
  nlohmann::json next;
  auto ran = store->for_each(filter, [&](const storage::Event& e) {
    if (page.size() == query.limit) {
      next = e.seq;
      return false;
    }
    page.push_back(storage::event_to_json(e));
    return true;
  });
  if (!ran) return ran.error();
  std::string reply = nlohmann::json{{"events", std::move(page)}, {"next_from_seq", next}}.dump() + "\n";
  pages_.emplace(key, reply);
  return reply;
}

void DaemonStatus::attach_actuator(caf::actor_system& system, actuator_actor actuator, caf::duration timeout) {
  std::lock_guard lock(actuator_mutex_);
  system_ = &system;
  actuator_ = std::move(actuator);
  actuator_timeout_ = timeout;
}

void DaemonStatus::detach_actuator() {
  std::lock_guard lock(actuator_mutex_);
  system_ = nullptr;
  actuator_ = nullptr;
}

template <class Reply, class... Ts>
std::optional<Reply> DaemonStatus::ask_actuator(std::string& why, Ts&&... xs) const {
  std::lock_guard lock(actuator_mutex_);
  if (system_ == nullptr) {
    why = "the daemon's actuator is not running";
    return std::nullopt;
  }
  std::optional<Reply> out;
  {
    // Hidden: a helper of the admin thread, not one of the actors the system waits for.
    caf::scoped_actor self{*system_, true};
    self->request(actuator_, actuator_timeout_, std::forward<Ts>(xs)...)
        .receive([&](Reply& reply) { out = std::move(reply); },
                 [&](caf::error& err) { why = "the actuator did not answer: " + system_->render(err); });
  }
  // A scoped actor leaves the system's logger in this thread's storage, and the system's
  // destructor waits for that logger to go: the daemon would never exit.
  caf::logger::set_current_actor_system(nullptr);
  return out;
}

admin::Reply DaemonStatus::pending_decisions(const std::optional<ModelKey>& model) const {
  std::string why;
  const auto pending = ask_actuator<PendingDecisions>(why, pending_atom::value);
  if (!pending) return {503, nullptr, why};
  if (!pending->advisory) return {409, nullptr, "the daemon applies its decisions itself (run it with --connector advisory)"};
  nlohmann::json list = nlohmann::json::array();
  std::lock_guard lock(mutex_);
  for (const PendingDecision& p : pending->decisions) {
    const Decision& d = p.decision;
    if (model && d.model != *model) continue;
    nlohmann::json entry = {{"id", p.id},
                            {"namespace", d.model.ns},
                            {"model_id", d.model.model_id},
                            {"variant", d.variant},
                            {"current_replicas", d.current_replicas},
                            {"target_replicas", d.target_replicas},
                            {"reason", to_string(d.reason.code)},
                            {"explanation", d.reason.text()},
                            {"decision", encode_decision(d)}};
    // What the daemon has learned of the variant since: the figures behind the decision.
    if (const auto m = models_.find(d.model); m != models_.end()) {
      if (const auto v = m->second.variants.find(d.variant); v != m->second.variants.end()) {
        entry["learned"] = v->second.params ? encode_event(TickEvent{*v->second.params}) : nlohmann::json();
        entry["capacity"] = v->second.capacity ? encode_event(TickEvent{*v->second.capacity}) : nlohmann::json();
      }
      entry["forecast"] = m->second.forecast ? encode_event(TickEvent{*m->second.forecast}) : nlohmann::json();
    }
    list.push_back(std::move(entry));
  }
  return {200, nlohmann::json{{"decisions", std::move(list)}}, ""};
}

admin::Reply DaemonStatus::review_decision(std::uint64_t id, const admin::Verdict& verdict) const {
  std::string why;
  const auto reply =
      ask_actuator<ReviewReply>(why, review_atom::value, ReviewRequest{id, verdict.approve, verdict.by, verdict.reason});
  if (!reply) return {503, nullptr, why};
  if (!reply->advisory) return {409, nullptr, "the daemon applies its decisions itself (run it with --connector advisory)"};
  if (!reply->done) return {404, nullptr, reply->error};
  return {202,
          {{"id", id},
           {"status", verdict.approve ? "approved" : "rejected"},
           {"by", verdict.by},
           {"reason", verdict.reason},
           {"note", verdict.approve ? "recorded and applied at the next tick" : "recorded at the next tick"}},
          ""};
}

}  // namespace capstan::actors
