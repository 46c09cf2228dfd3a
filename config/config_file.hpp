// `--config FILE`: the daemon's configuration file, YAML or JSON (JSON is read as the
// YAML it also is). The fleet knobs are keys of config_keys.hpp (nested by their dots:
// `slo: {ttft_ms: 500}`), and `models` declares the models and their variants:
//
//   models:
//     - model_id: meta-llama/Llama-2-70b-hf   # required
//       namespace: llm                         # default "default"
//       priority: 1
//       slo: {ttft_ms: 2000, itl_ms: 100}
//       slo_attainment: 0.95
//       slo_multiplier: 3
//       scale_to_zero_retention_s: 10m
//       variants:
//         - name: llama70b-h100                # required, unique in its model
//           scale_target: deployment/llama70b-h100
//           accelerator: H100
//           min_replicas: 0
//           max_replicas: 8
//           cost_per_replica: 12
//           gpus_per_replica: 4
//           max_batch_size: 256
//           max_queue_size: 100
//           kv_capacity_tokens: 416000
//           max_num_batched_tokens: 8192
//           cold_start_s: 4m
//           role: both                         # both | prefill | decode
//
// Unknown keys are refused. Throws ConfigError naming the file, the key and the rule.
#pragma once

#include <string>

#include "config/layer_values.hpp"

namespace capstan::config {

LayerValues read_config_file(const std::string& path);

}  // namespace capstan::config
