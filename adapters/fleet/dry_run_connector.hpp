// A connector that changes nothing: every scale request is accepted as asked, and each
// change of a variant's target is reported to a callback (the daemon prints it), so an
// operator can watch what capstan would do to a real fleet before letting it.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "adapters/fleet/connector.hpp"

namespace capstan::fleet {

class DryRunConnector : public Connector {
 public:
  using Report = std::function<void(const VariantKey&, int replicas)>;
  explicit DryRunConnector(Report report) : report_(std::move(report)) {}
  std::string name() const override { return "dry-run"; }
  Result<int> scale(const VariantKey& variant, int replicas) override;

 private:
  Report report_;
  std::map<VariantKey, int> last_;
};

}  // namespace capstan::fleet
