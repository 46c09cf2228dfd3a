// Iteration-time cost model and its profile files; see cost_model.hpp.
#include "sim/cost_model.hpp"

#include <algorithm>

#include "sim/yaml_fields.hpp"

namespace capstan::sim {

double expected_iteration_ms(const HardwareProfile& p, const IterationWork& w) {
  return p.overhead_ms + p.compute_ms_per_token * static_cast<double>(w.scheduled_tokens) +
         p.kv_read_ms_per_token * static_cast<double>(w.decode_kv_tokens) +
         p.prefill_attention_ms_per_token2 * w.prefill_attention_token2;
}

double sample_iteration_ms(const HardwareProfile& p, const IterationWork& w, Rng& rng) {
  const double expected = expected_iteration_ms(p, w);
  if (p.noise_cv <= 0) return expected;
  return expected * std::max(0.5, 1.0 + p.noise_cv * rng.normal());
}

Result<HardwareProfile> load_profile(const std::string& path) {
  auto doc = load_yaml_file(path);
  if (!doc.ok()) return doc.error();
  YamlFields f(path, doc.value());
  HardwareProfile p;
  f.required_string("name", p.name);
  f.optional_string("model", p.model);
  f.optional_string("gpu", p.gpu);
  f.optional_int("tensor_parallel", p.tensor_parallel, 1, 1024);
  f.required_double("overhead_ms", p.overhead_ms, 0, 1e6);
  f.required_double("compute_ms_per_token", p.compute_ms_per_token, 0, 1e3);
  f.required_double("kv_read_ms_per_token", p.kv_read_ms_per_token, 0, 1e3);
  f.optional_double("prefill_attention_ms_per_token2", p.prefill_attention_ms_per_token2, 0, 1e3);
  f.optional_double("noise_cv", p.noise_cv, 0, 0.5);
  if (doc.value()["fit"]) {
    YamlFields fit(path, doc.value()["fit"], "fit.");
    fit.optional_double("mape", p.fit_mape, 0, 10);
    fit.optional_double("max_rel_error", p.fit_max_rel_error, 0, 10);
    if (!fit.ok()) return fit.error();
  }
  if (!f.ok()) return f.error();
  return p;
}

}  // namespace capstan::sim
