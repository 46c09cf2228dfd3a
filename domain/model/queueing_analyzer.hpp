// The queueing-model analyzer for one model (seed 000 sections 4-6, 8;
// ../shared/reference/wva.md "Analyzer per model"): per variant it aggregates the
// pods' metrics, advances the EKF tuner, resolves one SLO for the model, sizes lambda*
// with the queue model and turns it into a required replica count. A variant that
// cannot be analysed (no metrics, no traffic, no parameters, model error) stays in the
// result as a zero-capacity entry with accurate replica counts; the model errors only
// when every variant fails: then ModelAnalysis::error is set, and the variants still
// carry their advanced tuner states so no learning is lost.
//
// Pure: the stored tuner states come in, the updated ones go out.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "domain/model/ekf_tuner.hpp"
#include "domain/core/result.hpp"
#include "domain/model/slo.hpp"
#include "domain/core/types.hpp"
#include "domain/core/workload.hpp"

namespace capstan {

struct QueueingAnalyzerConfig {
  SloConfig slo;
  TunerConfig tuner;
  // Learned parameters back the derived SLO only once the filter has accepted this many
  // updates; before that the observed-latency fallback applies (seed 000 section 3.3).
  long min_updates_for_derived_slo = 3;
};

struct VariantInput {
  VariantSpec spec;
  std::vector<PodMetrics> pods;
  int current_replicas = 0;
  int pending_replicas = 0;
  std::optional<TunerState> tuner;  // as stored after the previous cycle
};

struct TunerReport {
  std::string source;  // "bootstrap", "default", "ekf", or "none" when not tuned this cycle
  bool accepted = false;
  double nis = 0;
  std::string reason;
};

struct VariantAnalysis {
  VariantCapacity capacity;
  VariantWorkload workload;
  std::optional<TunerState> tuner;  // to store for the next cycle
  TunerReport tuning;
  double lambda_star_rps = 0;
};

struct ModelAnalysis {
  ModelKey model;
  ResolvedSlo slo;
  std::vector<VariantAnalysis> variants;
  double total_supply_rps = 0;
  double total_demand_rps = 0;
  double utilization = 0;
  double required_rps = 0;  // max(0, demand - supply)
  double spare_rps = 0;     // max(0, supply - demand)
  std::optional<Error> error;  // set when no variant could be analysed: emit no decision
};

// Errors only for an invalid configuration.
Result<ModelAnalysis> analyze_model(const ModelKey& model, const std::vector<VariantInput>& variants,
                                    const QueueingAnalyzerConfig& config);

// The analyzer's two halves, for callers that learn per variant and size per model
// (the tick's learn and plan): one variant's EKF step on its pods ...
struct VariantTuning {
  std::optional<TunerState> tuner;  // to store for the next cycle
  TunerReport report;
};
VariantTuning tune_variant(const VariantInput& variant, const TunerConfig& config);
// The same step from the parts of a variant it reads, which a caller holding them need
// not copy into a VariantInput (the pods' histograms were a tick's largest copies).
VariantTuning tune_variant(std::span<const PodMetrics> pods, int max_batch_size, std::optional<TunerState> tuner,
                           const TunerConfig& config);

// ... and the sizing of a model whose variants were tuned this cycle: each input's
// `tuner` is its state after this cycle's step, `reports` the steps' reports (same
// order).
Result<ModelAnalysis> analyze_tuned(const ModelKey& model, const std::vector<VariantInput>& variants,
                                    const std::vector<TunerReport>& reports, const QueueingAnalyzerConfig& config);

}  // namespace capstan
