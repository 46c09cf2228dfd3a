// The slice of the Kubernetes API the simulated fleet answers, so that a real
// autoscaler's actuator (or kubectl scale --raw) can drive it: the autoscaling/v1
// Scale subresource of a Deployment named after a variant, its merge-patch body, and
// the meta/v1 Status object Kubernetes returns on errors (with the offending field
// in details.causes, as the API server does for validation errors).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "domain/core/result.hpp"

namespace capstan::sim_serve {

// The label selector of a variant's pods in Scale.status.selector.
std::string variant_selector(const std::string& variant);

nlohmann::json scale_object(const std::string& ns, const std::string& name, int spec_replicas,
                            int status_replicas);

// Reads {"spec":{"replicas":N}} (merge patch; other fields are ignored). The error
// message names the field: "spec.replicas must be a non-negative integer, got -1".
struct ScalePatchError {
  std::string field;
  std::string message;
};
struct ScalePatch {
  int replicas = 0;
};
Result<ScalePatch> parse_scale_patch(const std::string& body, ScalePatchError& error);

// meta/v1 Status; `field` (optional) becomes details.causes[0].field.
nlohmann::json status_object(int code, const std::string& reason, const std::string& message,
                             const std::string& name = "", const std::string& field = "");

// True for the patch media types whose meaning for this object is a merge.
bool is_merge_patch(const std::string& content_type);

}  // namespace capstan::sim_serve
