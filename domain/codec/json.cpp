#include "domain/codec/json.hpp"

#include <cmath>
#include <stdexcept>

#include "domain/core/format.hpp"

namespace capstan {
namespace {

void read(const nlohmann::json& j, const char* key, double& out, double min_value) {
  if (!j.contains(key)) return;
  const auto& v = j.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < min_value) {
    throw std::invalid_argument(std::string(key) + " must be a finite number >= " +
                                std::to_string(min_value) + ", got " + v.dump());
  }
  out = v.get<double>();
}

void read(const nlohmann::json& j, const char* key, int& out, int min_value) {
  if (!j.contains(key)) return;
  const auto& v = j.at(key);
  if (!v.is_number_integer() || v.get<long long>() < min_value || v.get<long long>() > 1'000'000'000) {
    throw std::invalid_argument(std::string(key) + " must be an integer >= " +
                                std::to_string(min_value) + ", got " + v.dump());
  }
  out = v.get<int>();
}

void read(const nlohmann::json& j, const char* key, std::string& out) {
  if (!j.contains(key)) return;
  if (!j.at(key).is_string()) throw std::invalid_argument(std::string(key) + " must be a string, got " + j.at(key).dump());
  out = j.at(key).get<std::string>();
}

void read(const nlohmann::json& j, const char* key, bool& out) {
  if (!j.contains(key)) return;
  if (!j.at(key).is_boolean()) throw std::invalid_argument(std::string(key) + " must be true or false, got " + j.at(key).dump());
  out = j.at(key).get<bool>();
}

std::vector<double> read_numbers(const nlohmann::json& j, const std::string& key) {
  if (!j.contains(key)) return {};
  const auto& v = j.at(key);
  if (!v.is_array()) throw std::invalid_argument(key + " must be an array of numbers, got " + v.dump());
  std::vector<double> out;
  for (const auto& x : v) {
    if (!x.is_number() || !std::isfinite(x.get<double>()) || x.get<double>() < 0) {
      throw std::invalid_argument(key + " must hold finite numbers >= 0, got " + x.dump());
    }
    out.push_back(x.get<double>());
  }
  return out;
}

WindowHistogram read_histogram(const nlohmann::json& j, const std::string& key) {
  if (!j.is_object()) throw std::invalid_argument(key + " must be a JSON object, got " + j.dump());
  WindowHistogram h;
  h.upper_bounds_ms = read_numbers(j, "upper_bounds_ms");
  h.cumulative = read_numbers(j, "cumulative");
  read(j, "count", h.count, 0);
  read(j, "sum_ms", h.sum_ms, 0);
  if (h.upper_bounds_ms.size() != h.cumulative.size()) {
    throw std::invalid_argument(key + ".cumulative must have one count per upper bound (" +
                                std::to_string(h.upper_bounds_ms.size()) + "), got " +
                                std::to_string(h.cumulative.size()));
  }
  for (std::size_t i = 0; i < h.cumulative.size(); ++i) {
    if (i > 0 && !(h.upper_bounds_ms[i] > h.upper_bounds_ms[i - 1])) {
      throw std::invalid_argument(key + ".upper_bounds_ms must increase, got " + j.at("upper_bounds_ms").dump());
    }
    if ((i > 0 && h.cumulative[i] < h.cumulative[i - 1]) || h.cumulative[i] > h.count) {
      throw std::invalid_argument(key + ".cumulative must not decrease and stay <= count " + fmt_num(h.count) +
                                  ", got " + j.at("cumulative").dump());
    }
  }
  return h;
}

}  // namespace

void from_json(const nlohmann::json& j, PodMetrics& p) {
  if (!j.is_object()) throw std::invalid_argument("a pod must be a JSON object, got " + j.dump());
  read(j, "pod", p.pod);
  read(j, "arrival_rate_rps", p.arrival_rate_rps, 0);
  read(j, "avg_ttft_ms", p.avg_ttft_ms, 0);
  read(j, "avg_itl_ms", p.avg_itl_ms, 0);
  read(j, "avg_input_tokens", p.avg_input_tokens, 0);
  read(j, "avg_output_tokens", p.avg_output_tokens, 0);
  read(j, "kv_usage", p.kv_usage, 0);
  read(j, "queue_length", p.queue_length, 0);
  read(j, "running", p.running, 0);
  read(j, "ready", p.ready);
  read(j, "seconds_since_start", p.seconds_since_start, 0);
  read(j, "sample_age_s", p.sample_age_s, 0);
  if (j.contains("request_itl")) p.request_itl = read_histogram(j.at("request_itl"), "request_itl");
}

void to_json(nlohmann::json& j, const PodMetrics& p) {
  j = {{"pod", p.pod}, {"arrival_rate_rps", p.arrival_rate_rps}, {"avg_ttft_ms", p.avg_ttft_ms},
       {"avg_itl_ms", p.avg_itl_ms}, {"avg_input_tokens", p.avg_input_tokens},
       {"avg_output_tokens", p.avg_output_tokens}, {"kv_usage", p.kv_usage},
       {"queue_length", p.queue_length}, {"running", p.running}, {"ready", p.ready},
       {"seconds_since_start", p.seconds_since_start}, {"sample_age_s", p.sample_age_s}};
  if (!p.request_itl.empty()) {
    j["request_itl"] = {{"upper_bounds_ms", p.request_itl.upper_bounds_ms},
                        {"cumulative", p.request_itl.cumulative},
                        {"count", p.request_itl.count},
                        {"sum_ms", p.request_itl.sum_ms}};
  }
}

void from_json(const nlohmann::json& j, VariantSpec& v) {
  if (!j.is_object()) throw std::invalid_argument("a variant must be a JSON object, got " + j.dump());
  read(j, "name", v.name);
  read(j, "max_batch_size", v.max_batch_size, 1);
  read(j, "max_queue_size", v.max_queue_size, 0);
  read(j, "cost_per_replica", v.cost_per_replica, 0);
  read(j, "gpus_per_replica", v.gpus_per_replica, 1);
  read(j, "min_replicas", v.min_replicas, 0);
  read(j, "max_replicas", v.max_replicas, 0);
  if (v.max_replicas < v.min_replicas) {
    throw std::invalid_argument("max_replicas " + std::to_string(v.max_replicas) +
                                " is below min_replicas " + std::to_string(v.min_replicas));
  }
  std::string role;
  read(j, "role", role);
  if (!parse_role(role, v.role)) {
    throw std::invalid_argument("role must be both, prefill or decode, got \"" + role + "\"");
  }
}

void to_json(nlohmann::json& j, const VariantSpec& v) {
  j = {{"name", v.name}, {"max_batch_size", v.max_batch_size}, {"max_queue_size", v.max_queue_size},
       {"cost_per_replica", v.cost_per_replica}, {"gpus_per_replica", v.gpus_per_replica},
       {"min_replicas", v.min_replicas}, {"max_replicas", v.max_replicas}, {"role", to_string(v.role)}};
}

void to_json(nlohmann::json& j, const ModelAnalysis& a) {
  nlohmann::json variants = nlohmann::json::array();
  for (const VariantAnalysis& v : a.variants) {
    nlohmann::json tuning = {{"source", v.tuning.source}, {"accepted", v.tuning.accepted},
                             {"nis", v.tuning.nis}};
    if (!v.tuning.reason.empty()) tuning["reason"] = v.tuning.reason;
    nlohmann::json entry = {{"capacity", v.capacity},
                            {"lambda_star_rps", v.lambda_star_rps},
                            {"workload", {{"total_arrival_rps", v.workload.total_arrival_rps},
                                          {"avg_input_tokens", v.workload.avg_input_tokens},
                                          {"avg_output_tokens", v.workload.avg_output_tokens},
                                          {"avg_ttft_ms", v.workload.avg_ttft_ms},
                                          {"avg_itl_ms", v.workload.avg_itl_ms},
                                          {"busy_pods", v.workload.busy_pods}}},
                            {"tuning", tuning}};
    if (v.tuner) entry["tuner"] = *v.tuner;
    variants.push_back(std::move(entry));
  }
  j = {{"model", {{"namespace", a.model.ns}, {"model_id", a.model.model_id}}},
       {"slo", {{"target_ttft_ms", a.slo.targets.ttft_ms}, {"target_itl_ms", a.slo.targets.itl_ms},
                {"path", to_string(a.slo.path)}}},
       {"variants", variants},
       {"total_supply_rps", a.total_supply_rps},
       {"total_demand_rps", a.total_demand_rps},
       {"utilization", a.utilization},
       {"required_rps", a.required_rps},
       {"spare_rps", a.spare_rps}};
  if (a.error) j["error"] = a.error->message;
}

void to_json(nlohmann::json& j, const ServiceParams& p) {
  j = {{"alpha", p.alpha_ms}, {"beta", p.beta_ms}, {"gamma", p.gamma_ms}};
}

void from_json(const nlohmann::json& j, ServiceParams& p) {
  j.at("alpha").get_to(p.alpha_ms);
  j.at("beta").get_to(p.beta_ms);
  j.at("gamma").get_to(p.gamma_ms);
}

void to_json(nlohmann::json& j, const TunerState& s) {
  j = {{"params", s.params},          {"covariance", s.covariance},
       {"min_params", s.min_params},  {"max_params", s.max_params},
       {"accepted_updates", s.accepted_updates}, {"rejected_updates", s.rejected_updates},
       {"consecutive_rejections", s.consecutive_rejections}};
}

void from_json(const nlohmann::json& j, TunerState& s) {
  j.at("params").get_to(s.params);
  j.at("covariance").get_to(s.covariance);
  j.at("min_params").get_to(s.min_params);
  j.at("max_params").get_to(s.max_params);
  j.at("accepted_updates").get_to(s.accepted_updates);
  j.at("rejected_updates").get_to(s.rejected_updates);
  j.at("consecutive_rejections").get_to(s.consecutive_rejections);
}

void to_json(nlohmann::json& j, const VariantCapacity& c) {
  j = {{"variant", c.variant},
       {"status", to_string(c.status)},
       {"reason", c.reason},
       {"per_replica_capacity_rps", c.per_replica_capacity_rps},
       {"total_capacity_rps", c.total_capacity_rps},
       {"total_demand_rps", c.total_demand_rps},
       {"utilization", c.utilization},
       {"required_replicas", c.required_replicas},
       {"current_replicas", c.current_replicas},
       {"pending_replicas", c.pending_replicas},
       {"ready_replicas", c.ready_replicas},
       {"cost_per_replica", c.cost_per_replica}};
}

}  // namespace capstan
