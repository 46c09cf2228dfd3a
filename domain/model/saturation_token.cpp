#include "domain/model/saturation_token.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "domain/core/format.hpp"

namespace capstan {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct ModelAverages {
  double input_tokens = 0;
  double output_tokens = 0;
};

// Count-weighted over pods that report token lengths, as WVA does.
ModelAverages model_averages(std::span<const TokenVariantInput> variants) {
  ModelAverages avg;
  int count = 0;
  for (const auto& v : variants) {
    for (const PodMetrics* pod : ready_pods(v.state)) {
      if (pod->avg_input_tokens <= 0 && pod->avg_output_tokens <= 0) continue;
      avg.input_tokens += pod->avg_input_tokens;
      avg.output_tokens += pod->avg_output_tokens;
      ++count;
    }
  }
  if (count > 0) {
    avg.input_tokens /= count;
    avg.output_tokens /= count;
  }
  return avg;
}

TokenVariantCapacity variant_capacity(const TokenVariantInput& in, const ModelAverages& avg,
                                      const TokenSaturationConfig& config,
                                      TokenCapacityState& state) {
  const VariantState& v = in.state;
  TokenVariantCapacity c;
  c.variant = v.spec.name;
  c.role = v.spec.role;
  c.ready_replicas = ready_replicas(v);
  c.pending_replicas = v.pending_replicas;

  std::vector<double> capacities;
  if (in.facts.kv_capacity_tokens > 0) {
    for (const PodMetrics* pod : ready_pods(v)) {
      const auto r = replica_capacity(*pod, v.spec.name, in.facts, v.spec.max_batch_size,
                                      config.thresholds, state);
      capacities.push_back(r.effective_tokens);
      c.total_demand_tokens += r.demand_tokens;
    }
  }
  if (!capacities.empty()) {
    c.per_replica_capacity_tokens = median(capacities);
    c.source = CapacitySource::kLive;
    state.remembered_capacity_tokens[v.spec.name] = c.per_replica_capacity_tokens;
  } else if (auto it = state.remembered_capacity_tokens.find(v.spec.name);
             it != state.remembered_capacity_tokens.end() && it->second > 0) {
    c.per_replica_capacity_tokens = it->second;
    c.source = CapacitySource::kRemembered;
  } else if (double derived = derive_k2_tokens(in.facts.max_num_batched_tokens,
                                               v.spec.max_batch_size, avg.input_tokens,
                                               avg.output_tokens);
             derived > 0) {
    if (in.facts.kv_capacity_tokens > 0) {
      derived = std::min(derived, in.facts.kv_capacity_tokens *
                                      config.thresholds.kv_cache_threshold);
    }
    c.per_replica_capacity_tokens = derived;
    c.source = CapacitySource::kDerived;
  }
  c.total_capacity_tokens = c.ready_replicas * c.per_replica_capacity_tokens;
  c.anticipated_capacity_tokens =
      (c.ready_replicas + c.pending_replicas) * c.per_replica_capacity_tokens;
  if (c.total_capacity_tokens > 0) c.utilization = c.total_demand_tokens / c.total_capacity_tokens;
  return c;
}

// What a queued request will hold on a server of this role.
double epp_share(Role role, double input_tokens, double output_tokens) {
  return role == Role::kPrefill ? input_tokens : input_tokens + output_tokens;
}

CapacitySignal role_signal(Role role, std::span<const TokenVariantInput> inputs,
                           std::span<const TokenVariantCapacity> capacities,
                           double epp_demand_tokens, const TokenSaturationConfig& config) {
  CapacitySignal s;
  s.role = role;
  s.unit = "tokens";
  s.demand = epp_demand_tokens;
  double anticipated = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto& c = capacities[i];
    if (c.role != role) continue;
    const VariantSpec& spec = inputs[i].state.spec;
    s.supply += c.total_capacity_tokens;
    s.demand += c.total_demand_tokens;
    anticipated += c.anticipated_capacity_tokens;
    s.variants.push_back({spec.name, c.per_replica_capacity_tokens, spec.cost_per_replica,
                          inputs[i].state.current_replicas, c.pending_replicas,
                          spec.min_replicas, spec.max_replicas, spec.gpus_per_replica});
  }
  s.required = std::max(0.0, s.demand / config.scale_up_threshold - anticipated);
  s.spare = std::max(0.0, s.supply - s.demand / config.scale_down_boundary);
  return s;
}

std::optional<Error> validate_inputs(std::span<const TokenVariantInput> variants,
                                     const EppQueue& epp) {
  if (auto err = check_in_range("epp.queue_size", epp.queue_size, 0, kUnbounded)) return err;
  if (auto err = check_in_range("epp.queue_bytes", epp.queue_bytes, 0, kUnbounded)) return err;
  if (auto err = check_in_range("epp.prefix_cache_hit_rate", epp.prefix_cache_hit_rate, 0, 1)) {
    return err;
  }
  for (const auto& v : variants) {
    const std::string where = v.state.spec.name + ".";
    if (auto err = check_in_range(where + "kv_capacity_tokens", v.facts.kv_capacity_tokens, 0,
                                  kUnbounded)) {
      return err;
    }
    if (auto err = check_in_range(where + "max_num_batched_tokens",
                                  v.facts.max_num_batched_tokens, 0, kUnbounded)) {
      return err;
    }
  }
  return std::nullopt;
}

}  // namespace

const char* to_string(CapacitySource source) {
  switch (source) {
    case CapacitySource::kLive: return "live";
    case CapacitySource::kRemembered: return "remembered";
    case CapacitySource::kDerived: return "derived";
    case CapacitySource::kNone: return "none";
  }
  return "none";
}

std::optional<Error> validate(const TokenSaturationConfig& c) {
  if (auto err = validate(c.thresholds)) return err;
  if (!(c.scale_up_threshold > 0)) {
    return invalid_argument("scale_up_threshold must be in (0, 1], got " +
                            fmt_num(c.scale_up_threshold));
  }
  if (auto err = check_in_range("scale_up_threshold", c.scale_up_threshold, 0, 1)) return err;
  if (!(c.scale_down_boundary > 0) || !(c.scale_down_boundary < c.scale_up_threshold)) {
    return invalid_argument("scale_down_boundary must be in (0, scale_up_threshold " +
                            fmt_num(c.scale_up_threshold) + "), got " +
                            fmt_num(c.scale_down_boundary));
  }
  return std::nullopt;
}

Result<TokenSaturationStep> analyze_saturation_token(std::span<const TokenVariantInput> variants,
                                                     const EppQueue& epp,
                                                     const TokenSaturationConfig& config,
                                                     const TokenCapacityState& state) {
  if (auto err = validate(config)) return *err;
  if (auto err = validate_inputs(variants, epp)) return *err;

  TokenSaturationStep step{{}, state};
  TokenSaturationAnalysis& a = step.analysis;
  const ModelAverages avg = model_averages(variants);
  for (const auto& v : variants) {
    a.variants.push_back(variant_capacity(v, avg, config, step.state));
  }

  if (epp.queue_size > 0 || epp.queue_bytes > 0) {
    a.epp_input_tokens = std::max(epp.queue_bytes / kBytesPerToken,
                                  epp.queue_size * avg.input_tokens) *
                         (1 - epp.prefix_cache_hit_rate);
    a.epp_output_tokens = epp.queue_size * avg.output_tokens;
  }

  for (Role role : std::array{Role::kBoth, Role::kPrefill, Role::kDecode}) {
    const bool present = std::any_of(a.variants.begin(), a.variants.end(),
                                     [role](const TokenVariantCapacity& c) { return c.role == role; });
    if (!present) continue;
    a.signals.push_back(role_signal(role, variants, a.variants,
                                    epp_share(role, a.epp_input_tokens, a.epp_output_tokens),
                                    config));
  }
  return step;
}

}  // namespace capstan
