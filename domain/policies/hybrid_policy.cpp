#include "domain/policies/hybrid_policy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "domain/model/backlog_projection.hpp"
#include "domain/model/capacity_signal.hpp"
#include "domain/model/cold_start_estimator.hpp"
#include "domain/stages/cost_aware_optimizer.hpp"
#include "domain/forecast/demand_memory.hpp"
#include "domain/core/format.hpp"
#include "domain/model/itl_tail.hpp"
#include "domain/stages/metric_guard.hpp"
#include "domain/model/observed_queueing.hpp"
#include "domain/model/served_capacity.hpp"
#include "domain/model/model_learning.hpp"
#include "domain/policies/learning_policy.hpp"
#include "domain/model/tail_capacity.hpp"
#include "domain/forecast/predictor_selector.hpp"
#include "domain/forecast/traffic_forecast.hpp"
#include "domain/policies/role_sizing.hpp"
#include "domain/stages/release_bound.hpp"
#include "domain/policies/hybrid_correction.hpp"
#include "domain/policies/hybrid_safe_start.hpp"

namespace capstan {
namespace {

const std::vector<PredictorKind> kPredictors{PredictorKind::kConstant, PredictorKind::kHolt,
                                             PredictorKind::kKalman};

// A variant whose capacity per unit of cost is below half the most cost-efficient
// variant's is not bought for capacity (issue 22): it would take twice the spend for the
// same requests, and at long prompts such a variant often sustains almost nothing.
constexpr double kUsefulFraction = 0.5;

// Windows of per-request ITL evidence kept per variant: 20 ticks of 30 s, so the
// spread follows the fleet within minutes and pools enough requests at light load.
constexpr std::size_t kItlWindows = 20;

// Standard deviations of a tick's Poisson arrival count within which demand over what
// supply is taken as noise (noise_credit).
constexpr double kNoiseZ = 2;
constexpr double kSteadyRateChange = 0.25;  // of the larger rate, tick to tick, for a steady window (load_change)

// How long a rate the replicas served within the SLO stays a floor under the learned
// capacity, and how far the request shape may have moved from the one it was served at:
// the prompt's length by a quarter, the answer's by half, as it is counted over the
// requests that finished, which favours short answers while a rise is under way (on
// `step` the tripling's first tick counted 86 output tokens for 120 before it).
constexpr double kDemonstratedMemoryS = 1800;
constexpr double kDemonstratedInputShape = 0.25;
constexpr double kDemonstratedOutputShape = 0.5;
constexpr std::size_t kDemonstratedKept = 64;
// How long a load found short after a release caps releases (hold_release).
constexpr double kJudgedShortMemoryS = 3 * 3600;
// At a steady load, a spare under this share of the supply releases nothing, and a
// fleet whose replicas are each under it is bought to this much over the demand.
constexpr double kTolerance = 0.1;
// A fleet of at most this many replicas keeps one spare (spare_replica). Two, as first
// built, held a third H100 wherever two carried the load (`step`, `diurnal`'s quiet
// hours, the ServeGen windows: 5-18 % of their GPU-hours).
constexpr int kSmallFleetReplicas = 1;
// A release counts each replica at no more than this times the highest rate per replica
// it served within the SLO in the last half hour, at this request shape or a heavier one.
constexpr double kTrustBeyondShown = 1.5;
// At a steady load that bound can never release one replica of a fleet smaller than
// 1 / (1 - (1 + kSpareMargin) / kTrustBeyondShown), about 4.3 replicas: one fewer
// raises each one's load by n / (n - 1), more than the bound leaves over the margin.
// There a release counts each replica at up to this share of the learned figure instead,
// however little it was shown: at half, a figure twice too high still releases nothing
// the rest cannot carry (the learned figure was found up to a third high).
constexpr double kSmallFleetTrust = 0.5;
constexpr double kSmallFleetBelow = 1 / (1 - (1 + kSpareMargin) / kTrustBeyondShown);
// Recent capacity figures whose lowest is under this share of the one a release would
// count on swing too much to release into (a variant's last kCapacityWindow figures).
constexpr double kUnsteadyFigures = 0.6;
// A mean ITL at most this far over its target, with TTFT within and no queue, is a near
// miss: the pods' own measure says how much lower a load meets it (hold_contradicted_growth).
constexpr double kNearMissItl = 1.5;
// The decode floor counted at most at this share of the ITL target: beyond it, the
// relief a lower load gives grows without bound, and the cap would say nothing.
constexpr double kMaxFloorShare = 0.5;

struct ReplicaSizing {
  double capacity_rps = 0;    // per replica
  double predicted_ttft_ms = 0;
  bool tail_bound = false;    // the TTFT tail, not the mean, set the capacity
  double itl_sized_ms = 0;    // > 0: the ITL spread set it, sizing the mean ITL to this
  bool served_floor = false;  // what the replicas serve within the SLO now set it
  bool demonstrated = false;  // a rate they served within the SLO in the last half hour set it
  bool refuted = false;       // a rate at which they missed it in the last half hour capped it
  bool corrected = false;     // measured latency lowered the learned figure (hybrid_correction.hpp)
  double correction = 1;      // by this factor
  double model_rps = 0;       // this tick's figure from the learned model, before the median and floor
  double decode_floor_ms = 0; // the learned model's decode step for a batch of one
  double release_rps = 0;     // per replica, the most a release counts on (kTrustBeyondShown)
  double release_held_rps = 0;  // > 0: a load found short after a release caps release_rps (hold_release)
  bool unsteady_release = false;  // release_rps is the lowest recent figure: the figures swing (kUnsteadyFigures)
  bool small_fleet_release = false;  // release_rps is kSmallFleetTrust of the figure, above what was shown
  bool unsized = false;       // the learned model found no rate within the SLO this tick: the median set it
  double missed_at_rps = 0;   // > 0: the lowest rate its replicas missed the SLO at by their means (HybridMemory::refuted)
  double met_rps = 0;         // > 0: the highest they met it at (HybridMemory::met)
  std::optional<double> met_now = std::nullopt;  // what they serve this window with their means within the SLO (latency share 1)
};

const char* bound_of(const ReplicaSizing& s) {
  if (s.served_floor) return "served";
  if (s.demonstrated) return "demonstrated";
  if (s.refuted) return "refuted";
  if (s.corrected) return "measured";
  if (s.unsized) return "unsized";
  if (s.itl_sized_ms > 0) return "itl-spread";
  if (s.tail_bound) return "ttft-tail";
  return "mean";
}

Result<QueueAnalyzer> variant_queue(const ServiceParams& params, const VariantSpec& spec,
                                    const TrafficSample& traffic) {
  return QueueAnalyzer::create(params, {spec.max_batch_size, spec.max_queue_size},
                               {traffic.avg_input_tokens, std::max(1.0, traffic.avg_output_tokens)});
}

// `mean`'s sizing again with a tighter ITL target: the chain solved at the rate
// min(lambda_ttft, lambda_itl), as QueueAnalyzer::size would give it, for one search
// instead of two. The TTFT search does not depend on the ITL target, so `mean` has
// already made it; only the ITL search runs again, as a sizing with no TTFT target
// (whose rate is then lambda_itl's). Where the two rates cannot be ordered from their
// req/s figures, or `mean` was not solved at lambda_ttft, the full sizing decides.
Result<QueueMetrics> sized_for_itl(const QueueAnalyzer& qa, const Sizing& mean, const SloTargets& slo,
                                   double itl_ms) {
  auto itl = qa.size({0, itl_ms});
  if (!itl) return itl.error();
  if (itl->lambda_itl_rps < mean.lambda_ttft_rps) return itl->at_lambda_star;
  if (itl->lambda_itl_rps > mean.lambda_ttft_rps && mean.lambda_itl_rps > mean.lambda_ttft_rps) {
    return mean.at_lambda_star;
  }
  auto full = qa.size({slo.ttft_ms, itl_ms});
  if (!full) return full.error();
  return full->at_lambda_star;
}

std::optional<ReplicaSizing> size_variant(const ServiceParams& params, const VariantSpec& spec,
                                          const TrafficSample& traffic, const SloTargets& slo, double p,
                                          const std::optional<ItlSpread>& itl_spread) {
  auto qa = variant_queue(params, spec, traffic);
  if (!qa) return std::nullopt;
  // The mean sizing and the TTFT tail's rate searched side by side (the same bits as
  // one after the other, for about the cost of one).
  const SizingWithTail both = slo.ttft_ms > 0 ? size_with_tail(*qa, slo, p) : SizingWithTail{qa->size(slo), 0.0};
  const SizingResult& mean = both.mean;
  if (!mean) return std::nullopt;
  ReplicaSizing s{mean->at_lambda_star.throughput_rps, mean->at_lambda_star.ttft_ms, false, 0, false};
  s.decode_floor_ms = qa->decode_time_ms(1);
  if (slo.ttft_ms > 0) {
    const Result<double>& tail = both.tail_rps;
    if (!tail) return std::nullopt;
    if (*tail < s.capacity_rps) {
      s.capacity_rps = *tail;
      s.tail_bound = true;
      if (auto m = qa->analyze(*tail)) s.predicted_ttft_ms = m->ttft_ms;
    }
  }
  if (itl_spread && slo.itl_ms > 0) {
    const double sized_ms = itl_sizing_target_ms(*itl_spread, slo.itl_ms, qa->decode_time_ms(1), p);
    if (sized_ms < slo.itl_ms) {
      auto tail = sized_for_itl(*qa, *mean, slo, sized_ms);
      if (tail && tail->throughput_rps < s.capacity_rps) {
        s.capacity_rps = tail->throughput_rps;
        s.predicted_ttft_ms = tail->ttft_ms;
        s.tail_bound = false;
        s.itl_sized_ms = sized_ms;
      }
    }
  }
  if (!(s.capacity_rps > 0)) return std::nullopt;
  return s;
}

// How the model's request rate moved from the tick before (recorded within 1.5
// intervals) to now: steady when the two differ by at most kSteadyRateChange of the
// larger or a tick's Poisson noise; unknown without the tick before.
enum class LoadChange { kUnknown, kSteady, kRose, kFell };
LoadChange load_change(const DemandHistory& recent, double rate_rps, double now_s, double interval_s) {
  if (recent.empty() || !(interval_s > 0)) return LoadChange::kUnknown;
  const auto& [at_s, before_rps] = recent.back();
  if (!(at_s < now_s) || now_s - at_s > 1.5 * interval_s) return LoadChange::kUnknown;
  const double high = std::max(before_rps, rate_rps), low = std::min(before_rps, rate_rps);
  const double noise = kNoiseZ * std::sqrt(high * interval_s) / interval_s;
  if (high - low <= std::max(kSteadyRateChange * high, noise)) return LoadChange::kSteady;
  return rate_rps > before_rps ? LoadChange::kRose : LoadChange::kFell;
}

// This window's per-request ITL evidence of a variant, read against its learned model
// at the rate its replicas served, added to its recent windows (made at its first).
void add_itl_evidence(std::map<std::string, ItlEvidence>& evidence, const ServiceParams& params,
                      const VariantState& v, const TrafficSample& traffic, double max_sample_age_s) {
  const auto served = served_request_itl(v, max_sample_age_s, TunerConfig{}.transient_delay_s);
  if (!served) return;
  auto qa = variant_queue(params, v.spec, traffic);
  if (!qa) return;
  auto m = qa->analyze(served->rate_per_replica_rps);
  if (!m) return;
  add_itl_window(evidence[v.spec.name], served->requests, qa->decode_time_ms(1), m->itl_ms, kItlWindows);
}

// Started replicas, oldest first: one seen starting for the first time was asked for
// at the previous tick; the oldest is taken to be the first ready.
std::vector<double> starting_ready_in_s(History<double>& started, const VariantState& v,
                                        const std::optional<ColdStartState>& cold_start, const TickTime& time) {
  const auto starting = static_cast<size_t>(std::max(0, v.pending_replicas));
  while (started.size() > starting) started.pop_front();
  while (started.size() < starting) started.push_back(time.now_s - time.interval_s);
  const double cold_start_s = cold_start_estimate_s(cold_start.value_or(ColdStartState{}), ColdStartConfig{});
  std::vector<double> ready_in;
  for (double since : started) ready_in.push_back(std::max(0.0, cold_start_s - (time.now_s - since)));
  return ready_in;
}

ForecastMade forecast_event(const ModelKey& model, const TrafficForecastState& f, double horizon_s,
                            double min_scored, double value_rps, double observed_rps) {
  ForecastMade e{model, to_string(selected_kind(f.rate_rps, min_scored)), horizon_s, value_rps, observed_rps, {}};
  for (const SelectorCandidate& c : f.rate_rps.candidates) {
    e.candidates.push_back({to_string(kind_of(c.predictor)),
                            c.scored > 0 ? c.mean_abs_error : std::numeric_limits<double>::quiet_NaN()});
  }
  return e;
}

// Each role of a prefill/decode split sized on its own (role_sizing.hpp), with the
// replicas still starting tracked as for a whole model.
std::vector<ScalingRequest> plan_split(const ModelTickInput& m, std::span<const VariantView> views,
                                       const ModelObservation& seen, double forecast_rps, const PolicyConfig& config,
                                       const TickTime& time, HybridMemory& memory) {
  SplitTick tick{time.now_s, time.interval_s, seen.horizon_s, forecast_rps, seen.now.rate_rps, seen.usable, {}};
  for (size_t i = 0; i < m.variants.size(); ++i) {
    const VariantState& v = m.variants[i].state;
    tick.starting_ready_in_s.push_back(
        starting_ready_in_s(memory.starting_since[v.spec.name], v, views[i].learned.cold_start, time));
  }
  return plan_split_model(m, tick, config, memory.split);
}

// Before anything is learned: a variant whose warm pods miss the SLO or hold a queue is
// raised from the saturation rule's request to what measured latency and queue call for
// (hybrid_safe_start.hpp). Not by a miss with nothing waiting in the windows after its
// pods held a backlog (VariantMemory::waited_at_s): the requests finishing then ran in
// the batch the backlog filled, and their ITL is that batch's, not the arrivals'
// (`cold-fleet` at seed 4: two windows after 1,400 requests drained, eleven H100 read
// 1.2 req/s completed each against 12 arriving and bought a twelfth, and the fleet
// peaked at 14 for an oracle's 9).
void raise_to_measured_need(std::vector<ScalingRequest>& requests, const ModelTickInput& m,
                            std::span<const VariantView> views, const ModelObservation& seen,
                            const PolicyConfig& config, const TickTime& time, double drain_s) {
  const bool backlog_waiting = seen.backlog > seen.ready_replicas;
  for (size_t i = 0; i < requests.size(); ++i) {
    const VariantState& v = m.variants[i].state;
    const int ready = ready_replicas(v);
    if (ready == 0) continue;
    const auto verdict =
        judge_latency(v, config.slo, max_sample_age_s(time.interval_s), TunerConfig{}.transient_delay_s, backlog_waiting);
    if (!verdict) continue;
    ScalingRequest& r = requests[i];
    const double share = static_cast<double>(ready) / std::max(1, seen.ready_replicas);
    const MeasuredNeed need =
        measured_need(*verdict, r.current_replicas, seen.now.rate_rps * share, seen.backlog * share, drain_s);
    if (need.replicas <= r.target_replicas) continue;
    if (!verdict->queued && views[i].learned.waited_at_s) {
      r.reason = make_reason(r.reason.code, "hybrid.drained_miss",
                             {{"current", r.current_replicas}, {"wanted", need.replicas}}, {std::move(r.reason)});
      continue;
    }
    r.target_replicas = need.replicas;
    std::vector<Figure> figures{{"current", r.current_replicas},
                                {"target", r.target_replicas},
                                {"demand_rps", need.demand_rps},
                                {"completing_rps", need.completing_rps}};
    r.reason = make_reason(ReasonCode::kScaleUp, "hybrid.measured_need", std::move(figures), {std::move(r.reason)});
  }
}

// Caps a scale-up at `cap` replicas by the pods' own measure (never below the replicas
// there are), when it asked for more, with the reason `kind`: the counts, then
// `latency` figures, then the rates read and learned.
void cap_by_pods(ScalingRequest& r, double cap, const char* kind, std::vector<Figure> latency,
                 const PooledLatency& pods, double capacity_rps) {
  if (!std::isfinite(cap) || cap >= r.target_replicas) return;
  std::vector<Figure> figures{{"current", r.current_replicas},
                              {"wanted", r.target_replicas},
                              {"target", std::max(r.current_replicas, static_cast<int>(cap))}};
  for (Figure& f : latency) figures.push_back(std::move(f));
  figures.emplace_back("served_rps", pods.rps);
  figures.emplace_back("capacity_rps", capacity_rps);
  r.target_replicas = std::max(r.current_replicas, static_cast<int>(cap));
  r.reason = make_reason(r.target_replicas > r.current_replicas ? ReasonCode::kScaleUp : ReasonCode::kHold, kind,
                         std::move(figures), {std::move(r.reason)});
}

// A scale-up the model asks for while the variant's warm pods meet the SLO (mean TTFT and
// ITL within target, no queue, at most the tail probability of their requests' ITLs over
// target where they report them) at more than the learned capacity per replica (plus the
// release margin) is held: measured latency
// says the model is too pessimistic, and buying by it is the overshoot of issue 22's
// fresh start (`cold-fleet`: a fit of 0.14-0.5 req/s per replica while 11-24 replicas
// served 0.5-1 each within the SLO took the fleet to its maximum of 40).
// Where the means, pooled over the pods, are within target but the requests' ITL tail
// misses (or one pod's mean does), the pods need more replicas, but by their own
// measure, not by the model's: the scale-up is capped at the pods measured times the
// release margin and the demand's growth over what arrives now (`cold-fleet`: a fit made afresh one tick
// before put an H100 at 0.35 req/s while ten served 1.23 each with 6.4 % of requests
// over the ITL target, and bought 10 -> 36 for an oracle's 10). The pods measured, not
// the ready replicas: replicas just ready, not yet sent anything, take their share of
// the load the measure was read at (`cold-fleet` at seed 8: nine warm pods at 1.26 req/s
// each and four just ready, capped at 13 x 1.15 = 15 for an oracle's 9).
void hold_contradicted_growth(std::vector<ScalingRequest>& requests, const ModelTickInput& m,
                              const ModelObservation& seen, const std::vector<std::optional<ReplicaSizing>>& sizes,
                              const PolicyConfig& config, const TickTime& time, double demand_rps,
                              bool steady_load) {
  if (seen.backlog > seen.ready_replicas) return;
  for (size_t i = 0; i < requests.size(); ++i) {
    ScalingRequest& r = requests[i];
    if (!sizes[i] || r.target_replicas <= r.current_replicas) continue;
    const VariantState& v = m.variants[i].state;
    const double age_s = max_sample_age_s(time.interval_s), warm_up_s = TunerConfig{}.transient_delay_s;
    // Means within the targets are not enough: at one seed of `diurnal` a single H100 met
    // them at 9.4 req/s while its requests' ITL tail missed, and holding it cost the SLO.
    const std::optional<double>& served = sizes[i]->met_now;
    const double over_model = sizes[i]->capacity_rps * (1 + kSpareMargin);
    if (served && *served > over_model) {
      std::vector<Figure> figures{{"current", r.current_replicas},
                                  {"wanted", r.target_replicas},
                                  {"capacity_rps", sizes[i]->capacity_rps}};
      r.target_replicas = r.current_replicas;
      r.reason = make_reason(ReasonCode::kHold, "hybrid.contradicted", std::move(figures), {std::move(r.reason)});
      continue;
    }
    const auto pooled = pooled_latency(v, age_s, warm_up_s);
    if (!pooled || !(seen.now.rate_rps > 0)) continue;
    const SloTargets& slo = config.slo;
    const bool ttft_met = !over_target(pooled->ttft_ms, slo.ttft_ms);  // pooled means are finite
    const bool itl_met = !over_target(pooled->itl_ms, slo.itl_ms);
    const double growth = std::max(1.0, demand_rps / seen.now.rate_rps);
    if (ttft_met && itl_met) {
      if (!(pooled->rps > over_model)) continue;
      cap_by_pods(r, std::ceil(pooled->pods * (1 + kSpareMargin) * growth), "hybrid.tail_growth", {}, *pooled,
                  sizes[i]->capacity_rps);
      continue;
    }
    // The pods miss the ITL target by their mean, but by little, with TTFT within and
    // nothing waiting: how much lower a load brings them within it follows from the
    // decode step's growth with the batch (ITL = d1 / (1 - k x) for a floor d1 and a
    // load x per replica), so no more replicas than that relief, the margin and the
    // demand's growth are believable, whatever the learned capacity says. Only at a
    // steady load: in the window a rise came, the requests finishing ran mostly before
    // it, and their ITL understates what the new rate does (`step`'s tripling showed
    // 124 ms on its first tick, and a cap by it bought one replica of the two needed).
    if (!steady_load || !ttft_met || !(pooled->itl_ms <= kNearMissItl * slo.itl_ms)) continue;
    const double floor_ms = std::clamp(sizes[i]->decode_floor_ms, 0.0, kMaxFloorShare * slo.itl_ms);
    const double relief = (1 - floor_ms / pooled->itl_ms) / (1 - floor_ms / slo.itl_ms);
    cap_by_pods(r, std::ceil(pooled->pods * relief * (1 + kSpareMargin) * growth), "hybrid.near_miss",
                {{"itl_ms", pooled->itl_ms}, {"itl_target_ms", slo.itl_ms}}, *pooled, sizes[i]->capacity_rps);
  }
}

// Every serving variant's capacity is what its pods serve now within the SLO: supply
// is then the rate the pods report arriving, which the router's count can exceed by its
// own noise, and is a floor.
bool served_sets_supply(const std::vector<std::optional<ReplicaSizing>>& sizes, const ModelTickInput& m) {
  bool any = false;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (ready_replicas(m.variants[i].state) == 0) continue;
    if (!sizes[i] || !sizes[i]->served_floor) return false;
    any = true;
  }
  return any;
}

// Demand is a noisy figure: a tick's Poisson arrival count scatters the observed rate by
// sqrt(rate x interval) / interval, and the forecast and the drain of a few waiting
// requests follow it. While the supply carries what arrives now and nothing is queued,
// demand above supply by less than kNoiseZ of those deviations is no evidence that the
// replicas cannot take it, and does not buy one: at a steady 20 req/s on four H100s a
// forecast 0.9 req/s over the rate served, or one waiting request drained over two ticks
// (0.017 req/s), bought a fifth (`steady`, `idle-floor`). Over the supply now (unless the
// pods' served rate sets it), or with a projected backlog, there is no credit.
double noise_credit(const std::vector<std::optional<ReplicaSizing>>& sizes, const ModelTickInput& m, double supply,
                    double observed_rps, double interval_s, bool queued) {
  if (queued || !(observed_rps > 0) || !(interval_s > 0)) return 0;
  if (observed_rps > supply && !served_sets_supply(sizes, m)) return 0;
  return kNoiseZ * std::sqrt(observed_rps * interval_s) / interval_s;
}

// The capacity of the largest replica that a single replica, or a fleet under a shared
// GPU budget, keeps spare (N+1). On one replica a replica is all the capacity: with the
// capacity per replica learned right, such a fleet runs near its margin, and a crash,
// a drain or a rise of one replica's size leaves it short for a whole start-up
// (`slow-start`: one H100 at 6 req/s, then 30 within two minutes and a
// ten-minute start-up, bought a replica a tick while the first was loading). Under a
// GPU budget, a replica asked for when it is needed may be blocked by the budget, or
// reclaimed from a lower-priority model only after a start-up (`budget`: chat must
// hold its second H100 before its first step). Larger fleets have the 15 % margin.
// `up_to` is the fleet size it applies to: purchases keep the spare on a single
// replica; releases on a fleet of up to two, which one bounded release (half, step 9)
// could leave single, or the next tick would buy back what it released.
struct SpareReplica {
  int replicas = 0;     // the fleet's, starting ones included
  double largest = 0;   // the capacity of its largest replica
  bool budgeted = false;
  double rps(int up_to) const { return budgeted || replicas <= up_to ? largest : 0.0; }
};

SpareReplica spare_replica(const std::vector<std::optional<ReplicaSizing>>& sizes, const ModelTickInput& m,
                           const PolicyConfig& config) {
  SpareReplica out{.budgeted = config.gpu_budget > 0};
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int n = m.variants[i].state.current_replicas;
    out.replicas += n;
    if (sizes[i] && n > 0) out.largest = std::max(out.largest, sizes[i]->capacity_rps);
  }
  return out;
}

// Remembers this window's rate of a variant's replicas at the request shape now, when
// there is one (served_capacity.hpp: demonstrated within the SLO, or refuted, missed),
// and forgets what is older than kDemonstratedMemoryS.
void remember_rate(std::map<std::string, History<DemonstratedRate>>& memory, const VariantState& v,
                   std::optional<double> rps, const TrafficSample& now, const TickTime& time) {
  const bool add = rps && now.avg_input_tokens > 0 && now.avg_output_tokens > 0;
  auto it = memory.find(v.spec.name);
  if (it == memory.end()) {
    if (!add) return;
    it = memory.emplace(v.spec.name, History<DemonstratedRate>{}).first;
  }
  History<DemonstratedRate>& kept = it->second;
  while (!kept.empty() && (kept.front().at_s < time.now_s - kDemonstratedMemoryS || kept.size() >= kDemonstratedKept)) {
    kept.pop_front();
  }
  if (add) kept.push_back({time.now_s, *rps, now.avg_input_tokens, now.avg_output_tokens});
  if (kept.empty()) memory.erase(it);
}

// Within kJudgedShortMemoryS of a release, a fleet the model itself finds without its
// margin (the load per replica it carries, times 1 + kSpareMargin, above both its
// capacity figures) while the pods miss the SLO is not released to carry that load again:
// the lowest such load is remembered for kJudgedShortMemoryS from when it was last found,
// and a release counts each replica at no more than it less the margin
// (docs/policies.md `hybrid` step 23).
void hold_release(HybridMemory& memory, const std::string& key, ReplicaSizing& s,
                  const std::optional<PooledLatency>& pooled, bool missing_slo, double now_s) {
  auto held = memory.judged_short.find(key);
  if (held != memory.judged_short.end() && now_s - held->second.at_s > kJudgedShortMemoryS) {
    memory.judged_short.erase(held);
    held = memory.judged_short.end();
  }
  const auto released = memory.released_at_s.find(key);
  const bool after_release = released != memory.released_at_s.end() && now_s - released->second <= kJudgedShortMemoryS;
  const bool short_now =
      missing_slo && pooled && pooled->rps * (1 + kSpareMargin) > std::max(s.capacity_rps, s.model_rps);
  if (short_now && after_release) {
    held = memory.judged_short.try_emplace(key, JudgedShort{now_s, pooled->rps}).first;
    held->second.at_s = now_s;
    held->second.rps = std::min(held->second.rps, pooled->rps);
  }
  if (held == memory.judged_short.end()) return;
  s.release_held_rps = held->second.rps;
  s.release_rps = std::min(s.release_rps, held->second.rps / (1 + kSpareMargin));
}

// Requests wait (more than one per ready replica), or some variant's warm pods miss a
// target by their means (hybrid_correction.hpp's judge).
bool slo_missed_now(const ModelTickInput& m, const ModelObservation& seen, const PolicyConfig& config,
                    const TickTime& time) {
  const bool backlog_waiting = seen.backlog > seen.ready_replicas;
  if (backlog_waiting) return true;
  for (const VariantTickInput& v : m.variants) {
    const auto verdict = judge_latency(v.state, config.slo, max_sample_age_s(time.interval_s),
                                       TunerConfig{}.transient_delay_s, backlog_waiting);
    if (verdict && (verdict->missed || verdict->queued)) return true;
  }
  return false;
}

// Which remembered request shapes speak for the shape now. Latency grows with both
// token counts (a longer prompt stalls decoding longer, a longer answer keeps more
// requests in the batch), so a rate missed at a shape is missed at any heavier one, and a
// rate served within the SLO is served at any lighter one. A shape within
// kDemonstrated*Shape of the remembered one counts as either.
enum class ShapeReach { kHeavier, kLighter };

// The rates remembered at a shape that speaks for `shape`: the highest and the lowest
// (0 and infinity when there is none).
struct RatesNear {
  double highest = 0;
  double lowest = std::numeric_limits<double>::infinity();
};
RatesNear rates_near(const std::map<std::string, History<DemonstratedRate>>& memory, const std::string& variant,
                     const TrafficSample& shape, ShapeReach reach) {
  RatesNear out;
  const auto it = memory.find(variant);
  if (it == memory.end()) return out;
  // `a` remembered against `b` now: how far above and below b it may lie.
  const auto speaks = [reach](double a, double b, double by) {
    if (!(b > 0)) return false;
    const double ratio = a / b - 1;
    const bool above = ratio <= by || reach == ShapeReach::kLighter;
    const bool below = ratio >= -by || reach == ShapeReach::kHeavier;
    return above && below;
  };
  for (const DemonstratedRate& d : it->second) {
    if (speaks(d.input_tokens, shape.avg_input_tokens, kDemonstratedInputShape) &&
        speaks(d.output_tokens, shape.avg_output_tokens, kDemonstratedOutputShape)) {
      out.highest = std::max(out.highest, d.rps);
      out.lowest = std::min(out.lowest, d.rps);
    }
  }
  return out;
}

// The rate per replica the router sends a variant whose replicas carry less, when their
// pods miss the SLO there by their own means and the model has ready replicas of a more
// cost-efficient variant to buy instead; 0 otherwise. The router spreads requests by
// outstanding work, not by what each variant carries within the SLO: on the DeepSeek-R1
// day (seed 7) it sent the one A100 beside three H100 1.8 req/s, 0.64 of an H100's share,
// where the A100 carries 1.38, and every request on it missed the ITL target for half an
// hour while the supply, counted at 1.38, covered the demand. Such a variant adds
// nothing the SLO can use. Without a better variant sized to buy, the purchase would go
// to the same variant (the Azure code trace, seed 5: unsized H100s beside A100s that
// missed, and twelve more A100s bought).
double over_routed_rps(const ModelTickInput& m, const std::vector<std::optional<ReplicaSizing>>& sizes, size_t i,
                       const SloTargets& slo, double age_s, double warm_up_s) {
  const VariantState& v = m.variants[i].state;
  if (!sizes[i] || !(sizes[i]->capacity_rps > 0) || !(v.spec.cost_per_replica > 0)) return 0;
  const double efficiency = sizes[i]->capacity_rps / v.spec.cost_per_replica;
  bool better = false;
  for (size_t j = 0; j < m.variants.size(); ++j) {
    const VariantState& o = m.variants[j].state;
    better = better || (j != i && sizes[j] && ready_replicas(o) > 0 &&
                        sizes[j]->capacity_rps / o.spec.cost_per_replica > efficiency);
  }
  if (!better) return 0;
  const auto pods = pooled_latency(v, age_s, warm_up_s);
  if (!pods || !(pods->rps > sizes[i]->capacity_rps)) return 0;
  return over_target(pods->ttft_ms, slo.ttft_ms) || over_target(pods->itl_ms, slo.itl_ms) ? pods->rps : 0;
}

std::vector<ScalingRequest> plan_requests(const ModelTickInput& m, std::span<const VariantView> views,
                                          const PolicyConfig& config, const TickTime& time, HybridMemory& memory,
                                          std::vector<TickEvent>& events) {
  const double now_s = time.now_s, interval_s = time.interval_s;
  const ModelObservation seen = observe_model(m, views, time);
  if (!memory.forecast) memory.forecast = make_traffic_forecast(kPredictors).value();
  TrafficForecastState& forecaster = *memory.forecast;
  observe_traffic(forecaster, seen);

  const double horizon_s = seen.horizon_s;
  // While the fleet meets the SLO, a forecast is not carried further ahead than the
  // points it was judged on: a trend fitted to a run's first few ticks is no evidence of
  // where the rate will be a cold start later (the Azure conversation trace rises 2 -> 6
  // req/s over its first four minutes; Kalman, one-step best after eight points, put it
  // at 9.8 req/s six minutes on, and five H100 were bought where three carried what
  // came). A fleet missing it now, or spending its error budget too fast up to the last
  // tick, has shown it is short: there the early trend is taken (the Azure code trace's
  // first bursts miss on the three warm H100, and the replicas a trend buys early are
  // what its next bursts meet).
  const bool missing_slo = slo_missed_now(m, seen, config, time);
  const bool short_lately =
      missing_slo || budget_burn(memory.headroom, config.tail_probability) > 1;
  const double horizon_steps = horizon_s / interval_s;
  const double judged_on = short_lately ? 1 : horizon_steps;
  const TrafficSample ahead = forecast(forecaster, horizon_steps, judged_on);
  events.push_back(forecast_event(m.model, forecaster, horizon_s, judged_on, ahead.rate_rps,
                                  seen.now.rate_rps));
  if (is_split(m)) return plan_split(m, views, seen, ahead.rate_rps, config, time, memory);
  TrafficSample shape = ahead;
  if (!(shape.avg_input_tokens > 0)) shape = seen.now;
  // The request shape arriving now, or with nothing arriving the last one's level: what
  // the replicas were seen to serve or miss is matched against it, not against a
  // forecast that extrapolates the token lengths' noise over the horizon.
  const TrafficSample arriving = seen.has_token_lengths ? seen.now : forecast(forecaster, 0);

  // A window's latencies are those of requests finishing in it, which ran in the window
  // before too: read against this window's rate they say what that rate does only when
  // the rate was about the same then. After a burst, requests that ran in it finish in a
  // quiet window: their ITLs read as the spread at the quiet rate sized `burst-recur`'s
  // H100 to 0.53 req/s for 7.9, and their mean as a miss refuted it at 1.57. So only a
  // steady window adds ITL evidence, and a miss refutes its rate unless the rate fell
  // (the requests ran at more). A rate served within the SLO as the load rose is
  // demonstrated as before: the batch must have filled to what the rate explains
  // (kSteadyBatchShare), and excluding such windows took `slow-start`'s demonstrated
  // 7.67 req/s per H100 (true 7.9) and with it bought 7 replicas for an oracle's 4.
  const LoadChange change = load_change(memory.recent_demand, seen.now.rate_rps, now_s, interval_s);
  const bool steady_load = change == LoadChange::kSteady;
  const bool miss_counts = steady_load || change == LoadChange::kRose;

  // Capacity per replica of each variant, from what it learned; the replicas still
  // starting, with when each will be ready.
  std::vector<std::optional<ReplicaSizing>> sizes;
  sizes.reserve(m.variants.size());
  BacklogOutlook outlook{seen.backlog, seen.now.rate_rps, 0, {}, config.client_timeout_s};
  int fleet_replicas = 0;
  for (const VariantTickInput& v : m.variants) fleet_replicas += v.state.current_replicas;
  const bool small_fleet = fleet_replicas < kSmallFleetBelow;
  for (size_t i = 0; i < m.variants.size(); ++i) {
    const VariantTickInput& v = m.variants[i];
    const std::string& key = v.state.spec.name;
    std::optional<ReplicaSizing> s;
    const std::optional<TunerState>& tuner = views[i].learned.tuner;
    std::optional<ItlSpread> spread;
    // No ITL evidence either while the requests finishing ran in a drained backlog's
    // batch: read at the rate arriving, they widened the spread after `step`'s 3x step
    // until an H100 was sized at 4.2 req/s for about 7.9 (seed 7), and 5 held for 3.
    const bool drained_lately = views[i].learned.waited_at_s.has_value();
    if (tuner && seen.has_token_lengths && seen.usable && steady_load && !drained_lately) {
      add_itl_evidence(memory.itl_windows, tuner->params, v.state, seen.now, max_sample_age_s(interval_s));
    }
    if (auto w = memory.itl_windows.find(key); w != memory.itl_windows.end()) spread = refit_itl_spread(w->second);
    if (tuner && shape.avg_input_tokens > 0) {
      s = size_variant(tuner->params, v.state.spec, shape, config.slo, config.tail_probability, spread);
      // A model that finds no rate within the SLO at this shape, for a variant it has
      // sized before, gives one more figure: zero, which the median below outvotes until
      // it is most of the recent ones. Taken at its word, one burst's update that tripled
      // an H100's alpha (a batch of one predicted at 118 ms ITL against a 100 ms target)
      // counted seven H100 serving 19 req/s as no supply, and the fleet was bought again
      // as sixteen A100 (DeepSeek-R1 day, seed 6).
      if (!s) {
        const auto history = memory.recent_capacity.find(key);
        if (history != memory.recent_capacity.end() && !history->second.empty()) s = ReplicaSizing{.unsized = true};
      }
    }
    const double age_s = max_sample_age_s(interval_s), warm_up_s = TunerConfig{}.transient_delay_s;
    // Judged once: the served floor below and what the replicas demonstrate both read it.
    const auto served = served_within_slo_rps(v.state, config.slo, age_s, warm_up_s, config.tail_probability);
    // And with the means anywhere within the targets: remembered as met, and what a
    // contradicted scale-up is held by (hold_contradicted_growth).
    const auto met_now = served_within_slo_rps(v.state, config.slo, age_s, warm_up_s, config.tail_probability, 1.0);
    if (s) s->met_now = met_now;
    if (seen.usable) {
      remember_rate(memory.demonstrated, v.state,
                    demonstrated_rps(v.state, config.slo, age_s, warm_up_s, config.tail_probability, served.has_value()),
                    seen.now, time);
      remember_rate(memory.met, v.state, met_now, seen.now, time);
      remember_rate(memory.refuted, v.state,
                    miss_counts ? refuted_rps(v.state, config.slo, age_s, warm_up_s) : std::nullopt, seen.now, time);
    }
    if (s) {
      s->model_rps = s->capacity_rps;
      auto& history = memory.recent_capacity[key];
      remember_capacity(history, s->capacity_rps);
      s->capacity_rps = median_capacity(history);
      // A queue model that puts the capacity above a rate at which the replicas missed
      // the SLO by their means, with nothing waiting, at this request shape in the last
      // half hour is contradicted there (latency grows with load): the capacity is
      // capped at that rate, so a variant that cannot serve the traffic is not bought
      // for it (on the Azure code trace an A100 fitted at 1.1 req/s missed the ITL
      // target at 0.15 and was bought to its maximum twice).
      const double missed_at = rates_near(memory.refuted, key, arriving, ShapeReach::kHeavier).lowest;
      if (std::isfinite(missed_at) && missed_at > 0) s->missed_at_rps = missed_at;
      if (missed_at < s->capacity_rps) {
        s->capacity_rps = missed_at;
        s->refuted = true;
        s->tail_bound = false;
        s->itl_sized_ms = 0;
      }
      if (served && *served > s->capacity_rps) {
        s->capacity_rps = *served;
        s->served_floor = true;
        s->refuted = false;
        s->tail_bound = false;
        s->itl_sized_ms = 0;
      }
      // A queue model fitted at light load extrapolates: while the SLO is missed now
      // and the fleet must grow, it grows by the rate the replicas have served within
      // the SLO at this request shape, not by a fit that says less (matched against
      // the shape arriving now: a forecast of token lengths at the horizon extrapolates
      // their noise). Not while the SLO is met, so it never shrinks a fleet that meets
      // it: sized to it at light load, a fleet meets the next step with less headroom
      // than the rate it was shown at leaves.
      const double shown_ever = rates_near(memory.demonstrated, key, arriving, ShapeReach::kLighter).highest;
      // So too where the model has found no rate within the SLO for most of its recent
      // ticks: it has nothing to say, and without the rate shown the variant counts as
      // no supply (DeepSeek-R1 day, seed 6: eleven H100 that had served 2.85 req/s each
      // were counted as none after a backlog, fifteen A100 were bought and the H100
      // released).
      s->met_rps = rates_near(memory.met, key, arriving, ShapeReach::kLighter).highest;
      const double shown = missing_slo || !(s->capacity_rps > 0) ? shown_ever : 0;
      if (shown > s->capacity_rps) {
        s->capacity_rps = shown;
        s->served_floor = false;
        s->refuted = false;
        s->demonstrated = true;
        s->tail_bound = false;
        s->itl_sized_ms = 0;
      }
      if (s->capacity_rps > 0) {
        s->release_rps = shown_ever > 0 ? std::min(s->capacity_rps, kTrustBeyondShown * shown_ever) : s->capacity_rps;
        if (small_fleet && kSmallFleetTrust * s->capacity_rps > s->release_rps) {
          s->release_rps = kSmallFleetTrust * s->capacity_rps;
          s->small_fleet_release = true;
        }
        // A model whose recent figures swing by more than 1 / kUnsteadyFigures says as much
        // about the next tick's figure as about this one's: a release counts a replica at
        // no more than the lowest of them, or what the replicas served or showed if more.
        // With prompts of 12k-20k tokens the fit put an H100 at 0.13 req/s, then at 0.25-0.31
        // a tick later, where 24 replicas served 0.154 each (Mooncake, seed 1): the release
        // to 17-20 on the higher figure missed the SLO and bought back to 32.
        double lowest = 0;  // of the positive figures (a zero is an unsized tick's)
        for (double figure : history) {
          if (figure > 0 && (lowest == 0 || figure < lowest)) lowest = figure;
        }
        const double steady_trust = std::max({lowest, shown_ever, served.value_or(0.0)});
        if (lowest > 0 && lowest < kUnsteadyFigures * s->release_rps && steady_trust < s->release_rps) {
          s->release_rps = steady_trust;
          s->unsteady_release = true;
        }
        const bool counts = seen.usable && steady_load && !drained_lately;
        hold_release(memory, key, *s, counts ? pooled_latency(v.state, age_s, warm_up_s) : std::nullopt,
                     missing_slo, now_s);
        // Said only where it binds: the swinging figures or a load found short may hold it lower.
        if (s->release_rps < kSmallFleetTrust * s->capacity_rps) s->small_fleet_release = false;
      } else {
        s.reset();  // unsized, and zeros are most of the recent figures
      }
    }
    sizes.push_back(s);
    const std::vector<double> ready_in =
        starting_ready_in_s(memory.starting_since[key], v.state, views[i].learned.cold_start, time);
    if (!s) continue;
    // A backlog is taken to drain at the rate the replicas serve within the SLO: the
    // queue model's saturated rate was measured to be far off at low load, and
    // overestimating the drain is what leaves a fleet blind to a growing queue.
    outlook.ready_rate_rps += s->capacity_rps * ready_replicas(v.state);
    for (double in_s : ready_in) outlook.starting.push_back({in_s, s->capacity_rps});
  }

  // Demand: the forecast at the cold-start horizon, never below what is here now plus
  // draining the backlog still waiting when capacity asked for now can be ready.
  const double observed_rps = seen.now.rate_rps;
  const BacklogDemand backlog = backlog_demand(outlook, seen.ready_replicas, ahead.rate_rps, horizon_s, interval_s);
  const bool queued = backlog.queued;
  const double backlog_ahead = backlog.backlog_ahead;
  const double demand = backlog.demand_rps;

  CapacitySignal signal;
  signal.unit = "req/s";
  signal.demand = demand;
  double supply = 0, ready_supply = 0, trusted_supply = 0;
  bool any_capacity = false;
  // A variant the router sends more than it carries, missing the SLO there, is counted as
  // no supply (over_routed_rps): the purchase goes to the variant that carries its share,
  // and it is released, least cost-efficient, once the rest carry the demand without it.
  const std::string* over_routed = nullptr;
  double over_routed_at = 0, over_routed_capacity = 0;
  for (size_t i = 0; i < m.variants.size(); ++i) {
    const VariantState& v = m.variants[i].state;
    const double cap = sizes[i] ? sizes[i]->capacity_rps : 0;
    any_capacity = any_capacity || cap > 0;
    const double routed =
        over_routed_rps(m, sizes, i, config.slo, max_sample_age_s(interval_s), TunerConfig{}.transient_delay_s);
    if (routed > 0 && !over_routed) {
      over_routed = &v.spec.name;
      over_routed_at = routed;
      over_routed_capacity = cap;
    }
    const double counted = routed > 0 ? 0 : cap;
    supply += counted * v.current_replicas;  // starting replicas are coming capacity
    ready_supply += counted * ready_replicas(v);
    trusted_supply += (routed > 0 || !sizes[i] ? 0 : sizes[i]->release_rps) * v.current_replicas;
    signal.variants.push_back({v.spec.name, cap, v.spec.cost_per_replica, v.current_replicas, v.pending_replicas,
                               v.spec.min_replicas, v.spec.max_replicas, v.spec.gpus_per_replica,
                               sizes[i] ? sizes[i]->missed_at_rps : 0, sizes[i] ? sizes[i]->met_rps : 0});
  }
  // Capacity outlives the demand that needed it by the configured cooldown. The traffic
  // of ticks before any capacity is learned counts too: a burst met on the configured
  // replicas is not forgotten when the model takes over (`burst-recur` released 3 -> 2
  // a cooldown after learning began, not after the burst, and met the next on two).
  const double keep_s = config.scale_down_cooldown_s;
  const double peak = peak_demand(memory.recent_demand, now_s, observed_rps, demand, seen.usable, keep_s,
                                  surge_history_s(keep_s, interval_s));
  // A rise capacity could not follow holds its rate for a cooldown plus a horizon. Seen
  // before anything is learned too: a burst met by the configured replicas is the one
  // the next is judged by.
  const double surge = surge_hold(memory.surges, memory.recent_demand, now_s, interval_s, horizon_s, keep_s, kNoiseZ);
  if (!any_capacity) {
    std::vector<ScalingRequest> fallback = saturation_fallback(m, SaturationConfig{});
    raise_to_measured_need(fallback, m, views, seen, config, time, std::max(2 * interval_s, horizon_s));
    return fallback;
  }
  signal.supply = supply;
  const double noise = noise_credit(sizes, m, supply, observed_rps, interval_s, queued);
  bool within_noise = demand > supply && demand <= supply + noise;
  signal.required = std::max(0.0, demand - supply - noise);
  const double held = std::max(peak, surge);  // the rate capacity is kept for
  // Where the traffic's steps spend the SLO's error budget, capacity is bought to and
  // kept at a headroom over the demand that they have shown to need (hybrid_headroom.hpp).
  memory.headroom = next_headroom(memory.headroom, count_itl_misses(m, config.slo, max_sample_age_s(interval_s)),
                                  config.tail_probability, now_s, interval_s);
  const double head = 1 + kSpareMargin + memory.headroom.extra;
  const double keep_rps = held * head;
  // Less than the arrivals' noise over supply buys nothing here either: without it, a
  // burst at a fleet's edge bought a replica to release it after (`burst-recur`, seed 7).
  if (memory.headroom.extra > 0 && demand * head > supply + noise) {
    signal.required = std::max(signal.required, demand * head - supply - noise);
    within_noise = false;
  }
  // At a steady load, a fleet whose every replica is under kTolerance of its supply is
  // bought to kTolerance over the demand, the band a release holds (step 22), not to the
  // demand alone: there the capacity figure's next dip, or the next tick's count over
  // it, bought again while the last replica was still loading (`long-context`: 15 -> 16
  // -> 17 -> 19 H100 within an hour at a steady 2 req/s). A replica of a smaller fleet
  // is itself more than the band, as for releases. To the 15 % margin instead held more
  // on `long-context` and Mooncake for fewer settled seeds (docs/policies.md step 27).
  double bought_to = 0;
  if (steady_load && signal.required > 0) {
    double largest = 0;
    for (const VariantSupply& v : signal.variants) largest = std::max(largest, v.per_replica_capacity);
    const double to = demand * (1 + kTolerance);
    if (largest < kTolerance * supply && to - supply > signal.required) {
      signal.required = to - supply;
      bought_to = to;
    }
  }
  // A small fleet keeps one replica spare: demand is carried without its largest one.
  // While requests wait the backlog sizes the fleet instead.
  const bool spare_counts = !queued && demand > 0;
  // Not bought on served floors: a replica serving all it is sent says nothing of how
  // much more it could serve.
  const SpareReplica spare = spare_replica(sizes, m, config);
  const double spare_bought = spare_counts && !served_sets_supply(sizes, m) ? spare.rps(kSmallFleetReplicas) : 0.0;
  if (spare_bought > 0) {
    signal.required = std::max(signal.required, demand - (supply - spare_bought));
    within_noise = within_noise && !(signal.required > 0);
  }
  // Nothing is released while requests wait: the replicas holding them are the ones
  // draining them, and a backlog is the wrong time to trust a spare-capacity figure.
  signal.spare = queued ? 0.0 : std::max(0.0, supply - keep_rps);
  // Beyond what its replicas were shown to serve, a capacity is the model's extrapolation:
  // it is probed a release at a time, not released into (Mooncake at seed 1: 29 -> 16
  // H100 on a fitted 0.31 req/s each where 0.15 was served, and 0.87 attainment). The
  // spare is stated in the supply's units, as the optimizer releases by the model's.
  if (trusted_supply > 0 && trusted_supply < supply) {
    signal.spare = std::min(signal.spare, std::max(0.0, trusted_supply - keep_rps) * supply / trusted_supply);
  }
  // Replicas still starting are capacity a purchase need not buy again, not capacity to
  // release ready ones into: until they are ready, the ready ones carry the load (the
  // conversation trace at twice its rate, seed 2: an A100 released at 150 s while a
  // fourth H100 loaded, and the three ready H100 missed the ITL target for every request
  // for four minutes). Those still starting may go. The ready ones keep the demand with
  // its margin, not the cooldown's peak, which the replicas starting are there for: held
  // to the peak, two A100 stayed after a burst of the code trace while three H100 loaded
  // for a tenth of its rate (seed 5).
  signal.ready_spare = std::max(0.0, ready_supply - demand * head);
  // A release that could leave a small fleet leaves it the spare replica too.
  const double kept_spare = spare_counts ? spare.rps(2 * kSmallFleetReplicas) : 0.0;
  if (kept_spare > 0) signal.spare = std::min(signal.spare, std::max(0.0, supply - demand - kept_spare));
  const bool idle = !(observed_rps > 0) && !(seen.backlog > 0);
  // An idle model releases at once what the cooldown's peak no longer holds, not in
  // parts as the peak ages: each part restarts the scale-down cooldown, and the rest
  // then waits a cooldown more (`idle-floor`: 4 -> 3 when the peak had aged by a tick,
  // the floor 300 s later).
  if (idle && held > 0) signal.spare = 0;
  // At a steady load, a spare under kTolerance of the supply is the capacity figure's
  // scatter, not the traffic's (docs/policies.md `hybrid` step 22). Only a spare that
  // would release a replica is held, and said to be.
  bool within_tolerance = false;
  if (steady_load && !queued && signal.spare < kTolerance * supply) {
    const bool releases = std::any_of(signal.variants.begin(), signal.variants.end(), [&](const VariantSupply& v) {
      return v.current_replicas > v.min_replicas && v.per_replica_capacity > 0 && signal.spare >= v.per_replica_capacity;
    });
    if (releases) {
      signal.spare = 0;
      within_tolerance = true;
    }
  }
  signal.spare = bounded_release(signal, idle);
  signal.release_least_efficient_first = true;
  signal.useful_fraction = kUsefulFraction;
  std::vector<ScalingRequest> requests = optimize_cost_aware(signal);
  hold_contradicted_growth(requests, m, seen, sizes, config, time, demand, steady_load);
  for (size_t i = 0; i < requests.size(); ++i) {  // what hold_release reads at the next ticks
    if (requests[i].target_replicas < m.variants[i].state.current_replicas)
      memory.released_at_s[m.variants[i].state.spec.name] = now_s;
  }

  // The decision's latency estimate includes the queueing already observed.
  const double wait_ms = observed_wait_ms(seen.waiting_requests, m.upstream_queue, ready_supply);
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!sizes[i]) continue;
    events.push_back(CapacitySized{m.model, m.variants[i].state.spec.name, config.slo, "explicit", sizes[i]->model_rps,
                                   sizes[i]->capacity_rps, bound_of(*sizes[i]), demand, requests[i].target_replicas});
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    ScalingRequest& r = requests[i];
    // Made in place, not copied from a list: a reason is made per variant per tick.
    std::vector<Figure> figures;
    figures.reserve(20);
    figures.emplace_back("demand_rps", demand);
    figures.emplace_back("forecast_rps", ahead.rate_rps);
    figures.emplace_back("horizon_s", horizon_s);
    figures.emplace_back("observed_rps", observed_rps);
    figures.emplace_back("backlog", seen.backlog);
    figures.emplace_back("backlog_ahead", backlog_ahead);
    figures.emplace_back("peak_rps", peak);
    if (surge > peak) figures.emplace_back("surge_hold_rps", surge);  // only where it holds more
    if (memory.headroom.extra > 0) {
      figures.emplace_back("headroom", head);
      figures.emplace_back("budget_burn", budget_burn(memory.headroom, config.tail_probability));
    }
    if (std::max(spare_bought, kept_spare) > 0) figures.emplace_back("spare_replica_rps", std::max(spare_bought, kept_spare));
    figures.emplace_back("keep_s", keep_s);
    figures.emplace_back("supply_rps", supply);
    figures.emplace_back("queued", queued);
    if (within_noise) figures.emplace_back("noise_rps", noise);
    if (within_tolerance) figures.emplace_back("tolerance", kTolerance);
    if (bought_to > 0) figures.emplace_back("bought_to_rps", bought_to);
    if (over_routed) {
      figures.emplace_back("over_routed", *over_routed);
      figures.emplace_back("over_routed_rps", over_routed_at);
      figures.emplace_back("over_routed_capacity_rps", over_routed_capacity);
    }
    if (sizes[i] && sizes[i]->release_held_rps > 0) figures.emplace_back("release_held_rps", sizes[i]->release_held_rps);
    // Said where it can bind: on a hold or a release, not on a purchase.
    if (sizes[i] && sizes[i]->unsteady_release && r.target_replicas <= r.current_replicas)
      figures.emplace_back("unsteady_release_rps", sizes[i]->release_rps);
    if (sizes[i] && sizes[i]->small_fleet_release && r.target_replicas <= r.current_replicas)
      figures.emplace_back("small_fleet_release_rps", sizes[i]->release_rps);
    if (sizes[i]) {
      const ReplicaSizing& z = *sizes[i];
      figures.emplace_back("capacity_rps", z.capacity_rps);
      figures.emplace_back("bound", bound_of(z));
      figures.emplace_back("ttft_target_ms", config.slo.ttft_ms);
      figures.emplace_back("itl_target_ms", config.slo.itl_ms);
      figures.emplace_back("tail_probability", config.tail_probability);
      figures.emplace_back("itl_sized_ms", z.itl_sized_ms);
      figures.emplace_back("predicted_ttft_ms", z.predicted_ttft_ms);
      figures.emplace_back("observed_wait_ms", wait_ms);
      if (z.corrected) figures.emplace_back("correction", z.correction);
    }
    r.reason = make_reason(r.reason.code, "hybrid.sized", std::move(figures), {std::move(r.reason)});
  }
  return requests;
}

class Hybrid final : public LearningPolicy<HybridMemory> {
 public:
  std::string name() const override { return "hybrid"; }
  // A prefill/decode split is sized by the forward-pass regression (role_sizing.hpp).
  bool reads_forward_passes(const ModelTickInput& input) const override {
    return std::any_of(input.variants.begin(), input.variants.end(),
                       [](const VariantTickInput& v) { return v.state.spec.role != Role::kBoth; });
  }

 private:
  // The first estimate reads the ITL at the batch the pods run (docs/policies.md step 1).
  VariantLearning learning() const override { return {.bootstrap_at_batch = true}; }

  std::vector<ScalingRequest> requests(const ModelTickInput& m, std::span<const VariantView> views,
                                       const PolicyConfig& config, const TickTime& time, HybridMemory& memory,
                                       std::vector<TickEvent>& events) const override {
    return plan_requests(m, views, config, time, memory, events);
  }
};

}  // namespace

std::shared_ptr<const TickPolicy> hybrid_policy() {
  static const auto policy = std::make_shared<const Hybrid>();
  return policy;
}

}  // namespace capstan
