// KV hand-off latency; see kv_transfer.hpp.
#include "sim/kv_transfer.hpp"

namespace capstan::sim {

double kv_transfer_s(const KvTransferConfig& config, int tokens) {
  const double bits = static_cast<double>(tokens) * config.bytes_per_token * 8.0;
  return config.fixed_ms / 1000.0 + bits / (config.gbps * 1e9);
}

}  // namespace capstan::sim
