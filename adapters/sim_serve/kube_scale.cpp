// Kubernetes Scale / Status objects; see kube_scale.hpp.
#include "adapters/sim_serve/kube_scale.hpp"

#include <limits>

namespace capstan::sim_serve {

std::string variant_selector(const std::string& variant) { return "capstan.io/variant=" + variant; }

nlohmann::json scale_object(const std::string& ns, const std::string& name, int spec_replicas,
                            int status_replicas) {
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"replicas", spec_replicas}}},
          {"status", {{"replicas", status_replicas}, {"selector", variant_selector(name)}}}};
}

Result<ScalePatch> parse_scale_patch(const std::string& body, ScalePatchError& error) {
  const auto fail = [&](std::string field, std::string message) -> Result<ScalePatch> {
    error = {field, message};
    return invalid_argument(message);
  };
  const auto j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return fail("body", "body is not valid JSON");
  if (!j.is_object()) return fail("body", "body must be a JSON object, got " + std::string(j.type_name()));
  const auto spec = j.find("spec");
  if (spec == j.end() || !spec->is_object()) return fail("spec", "spec must be an object with replicas");
  const auto replicas = spec->find("replicas");
  if (replicas == spec->end()) return fail("spec.replicas", "spec.replicas is required");
  const auto bad = [&] {
    return fail("spec.replicas", "spec.replicas must be a non-negative integer, got " + replicas->dump());
  };
  if (replicas->is_number_unsigned()) {
    if (replicas->get<unsigned long long>() > static_cast<unsigned long long>(std::numeric_limits<int>::max()))
      return bad();
    return ScalePatch{static_cast<int>(replicas->get<unsigned long long>())};
  }
  return bad();  // negative, fractional, string, null, ...
}

nlohmann::json status_object(int code, const std::string& reason, const std::string& message,
                             const std::string& name, const std::string& field) {
  nlohmann::json details = nlohmann::json::object();
  if (!name.empty()) {
    details["name"] = name;
    details["group"] = "apps";
    details["kind"] = "deployments";
  }
  if (!field.empty())
    details["causes"] = nlohmann::json::array({{{"reason", "FieldValueInvalid"}, {"message", message}, {"field", field}}});
  return {{"kind", "Status"},       {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
          {"status", "Failure"},    {"message", message}, {"reason", reason},
          {"details", details},     {"code", code}};
}

bool is_merge_patch(const std::string& content_type) {
  const std::string type = content_type.substr(0, content_type.find(';'));
  return type == "application/merge-patch+json" || type == "application/strategic-merge-patch+json";
}

}  // namespace capstan::sim_serve
