#include "replay/explain.hpp"

#include <cstdio>

#include "domain/core/workload.hpp"

namespace capstan::replay {

namespace {

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

// The SLO resolution chain with the link that gave the targets marked.
std::string resolution_path(const std::string& source) {
  std::string out;
  for (const char* link : {"explicit", "derived", "observed"}) {
    if (!out.empty()) out += " > ";
    out += link == source ? "[" + source + "]" : std::string(link);
  }
  if (source != "explicit" && source != "derived" && source != "observed") out += " (used: " + source + ")";
  return out;
}

void write_observation(const ModelTickInput& m, std::ostream& out) {
  out << "inputs (the observation the tick used):\n";
  out << "  router: " << num(m.arrival_rate_rps) << " req/s arriving, " << num(m.upstream_queue)
      << " requests queued upstream";
  if (m.decode_queue > 0) out << ", " << num(m.decode_queue) << " waiting for decode";
  out << ", priority " << m.priority << "\n";
  for (const VariantTickInput& v : m.variants) {
    const VariantWorkload w = aggregate(v.state.pods);
    double kv = 0, queue = 0, running = 0;
    for (const PodMetrics& p : v.state.pods) {
      kv += p.kv_usage;
      queue += p.queue_length;
      running += p.running;
    }
    const double pods = v.state.pods.empty() ? 1.0 : static_cast<double>(v.state.pods.size());
    out << "  " << v.state.spec.name << ": " << v.state.current_replicas << " replicas (" << v.state.pending_replicas
        << " starting), " << v.state.pods.size() << " pods reporting " << num(w.total_arrival_rps) << " req/s, TTFT "
        << num(w.avg_ttft_ms) << " ms, ITL " << num(w.avg_itl_ms) << " ms, " << num(w.avg_input_tokens) << " in / "
        << num(w.avg_output_tokens) << " out tokens, mean KV use " << num(kv / pods) << ", " << num(queue)
        << " waiting, " << num(running) << " running";
    if (!v.new_cold_starts_s.empty()) out << ", " << v.new_cold_starts_s.size() << " replicas became ready";
    out << "\n";
  }
}

void write_variant(const DecisionRecord& r, std::ostream& out) {
  const Decision& d = r.decision;
  out << "\n" << d.variant << "\n";
  if (r.capacity) {
    const CapacitySized& c = *r.capacity;
    out << "  SLO: TTFT " << num(c.slo.ttft_ms) << " ms, ITL " << num(c.slo.itl_ms) << " ms from "
        << resolution_path(c.slo_source) << "\n";
  } else {
    out << "  SLO: not sized this tick (no capacity event)\n";
  }
  if (r.params) {
    const ParamsLearned& p = *r.params;
    out << "  learned parameters: alpha " << num(p.params.alpha_ms) << " ms, beta " << num(p.params.beta_ms)
        << " ms, gamma " << num(p.params.gamma_ms) << " ms (" << p.source << ", NIS " << num(p.nis) << ", "
        << (p.accepted ? "accepted" : "rejected" + (p.note.empty() ? std::string() : ": " + p.note)) << "; "
        << p.accepted_updates << " accepted / " << p.rejected_updates << " rejected updates)\n";
  } else {
    out << "  learned parameters: no EKF step this tick\n";
  }
  if (r.cold_start)
    out << "  cold start: " << num(r.cold_start->estimate_s) << " s learned (configured " << num(r.cold_start->prior_s)
        << " s), " << r.cold_start->new_samples_s.size() << " new start-up times\n";
  if (r.capacity) {
    const CapacitySized& c = *r.capacity;
    out << "  capacity: lambda* " << num(c.lambda_star_rps) << " req/s per replica at the SLO; sized at "
        << num(c.per_replica_rps) << " req/s per replica (bound: " << c.bound << "); demand " << num(c.demand_rps)
        << " req/s -> " << c.required_replicas << " replicas required\n";
  }
  const int proposed = r.stages.empty() ? d.target_replicas : r.stages.front().before;
  out << "  optimizer: " << d.current_replicas << " -> " << proposed << "\n";
  for (const StageApplied& s : r.stages)
    out << "  stage " << to_string(s.stage) << ": " << s.before << " -> " << s.after << " (" << to_string(s.code) << ")\n";
  out << "  final target: " << d.current_replicas << " -> " << d.target_replicas << " [" << to_string(d.reason.code)
      << "] " << d.reason.text() << "\n";
}

}  // namespace

Result<std::vector<DecisionRecord>> decisions_at(const storage::EventStore& store, const ModelKey& model, double at_s) {
  DecisionFilter filter;
  filter.range.to_time_s = at_s;
  filter.model = model;
  filter.with_observation = true;
  std::vector<DecisionRecord> last;
  auto ran = for_each_decision(store, filter, [&](DecisionRecord& r) {
    if (!last.empty() && last.front().tick != r.tick) last.clear();
    last.push_back(std::move(r));
    return true;
  });
  if (!ran.ok()) return ran.error();
  return last;
}

void write_explanation(const std::vector<DecisionRecord>& decisions, double asked_s, std::ostream& out) {
  if (decisions.empty()) return;
  const DecisionRecord& first = decisions.front();
  out << "decision of " << model_name(first.decision.model) << " at t=" << num(first.time_s) << " s (tick "
      << first.tick << ", decision seq " << first.seq << "; asked for t=" << num(asked_s) << " s)\n\n";
  if (first.observation) write_observation(*first.observation, out);
  if (first.forecast) {
    const ForecastMade& f = *first.forecast;
    out << "forecast: " << f.predictor << " predicts " << num(f.rate_rps) << " req/s at t+" << num(f.horizon_s)
        << " s from " << num(f.observed_rps) << " req/s observed";
    if (!f.candidates.empty()) {
      out << "; candidates (recent error):";
      for (const ForecastMade::Candidate& c : f.candidates) out << " " << c.predictor << " " << num(c.recent_error);
    }
    out << "\n";
  }
  for (const DecisionRecord& r : decisions) write_variant(r, out);
}

}  // namespace capstan::replay
