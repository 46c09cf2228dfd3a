// A ConfigMap-style directory (`--configmap-dir DIR`): one file per key, as Kubernetes
// mounts a ConfigMap (hidden entries such as `..data` are skipped).
//
//   DIR/<key>                                a capstan key of config_keys.hpp, the file
//                                            holding its value ("DIR/tick_s" -> "30s")
//   DIR/wva-queueing-model-config/<key>      WVA's ConfigMaps, mounted each under its
//   DIR/wva-saturation-scaling-config/<key>  name (seeds 000 and 002): a `default` entry
//   DIR/wva-model-scale-to-zero-config/<key> plus per-model entries matched by model_id
//                                            + namespace (any key name), each YAML
//
// What capstan takes from WVA's entries:
//   queueing      sloMultiplier -> slo_multiplier; tuningEnabled must be true (capstan
//                 always learns); per model targetTTFT + targetITL (both or neither,
//                 0 = infer) -> the model's SLO, sloMultiplier -> its slo_multiplier.
//   saturation    analyzerName ("" -> policy saturation, "saturation" -> policy
//                 saturation-token; fleet-wide only); priority -> models' priority;
//                 the thresholds (kvCacheThreshold, queueLengthThreshold, kvSpareTrigger,
//                 queueSpareTrigger, scaleUpThreshold, scaleDownBoundary) are accepted at
//                 the values capstan's saturation policies use and refused otherwise
//                 (no policy takes configured thresholds yet); enableLimiter must be
//                 false (capstan's limiter is gpu_budget).
//   scale-to-zero enable_scale_to_zero + retention_period -> scale_to_zero_retention_s
//                 (0 when disabled); a per-model entry without a namespace applies to
//                 that model id in every namespace.
// Throws ConfigError naming the file (DIR/KEY), the key and the rule.
#pragma once

#include <string>

#include "config/layer_values.hpp"

namespace capstan::config {

inline constexpr const char* kWvaQueueingConfig = "wva-queueing-model-config";
inline constexpr const char* kWvaSaturationConfig = "wva-saturation-scaling-config";
inline constexpr const char* kWvaScaleToZeroConfig = "wva-model-scale-to-zero-config";

LayerValues read_configmap_dir(const std::string& dir);

}  // namespace capstan::config
