#include "domain/core/types.hpp"

namespace capstan {

const char* to_string(Role role) {
  switch (role) {
    case Role::kBoth: return "both";
    case Role::kPrefill: return "prefill";
    case Role::kDecode: return "decode";
  }
  return "both";
}

bool parse_role(const std::string& text, Role& out) {
  if (text == "both" || text.empty()) {
    out = Role::kBoth;
  } else if (text == "prefill") {
    out = Role::kPrefill;
  } else if (text == "decode") {
    out = Role::kDecode;
  } else {
    return false;
  }
  return true;
}

const char* to_string(CapacityStatus status) {
  switch (status) {
    case CapacityStatus::kOk: return "ok";
    case CapacityStatus::kNoMetrics: return "no_metrics";
    case CapacityStatus::kNoTraffic: return "no_traffic";
    case CapacityStatus::kNoParameters: return "no_parameters";
    case CapacityStatus::kModelError: return "model_error";
  }
  return "ok";
}

}  // namespace capstan
