#include "adapters/fleet/dry_run_connector.hpp"

namespace capstan::fleet {

Result<int> DryRunConnector::scale(const VariantKey& variant, int replicas) {
  if (replicas < 0) return invalid_argument("replicas must be >= 0, got " + std::to_string(replicas));
  const auto it = last_.find(variant);
  if (it == last_.end() || it->second != replicas) {
    last_[variant] = replicas;
    if (report_) report_(variant, replicas);
  }
  return replicas;
}

}  // namespace capstan::fleet
