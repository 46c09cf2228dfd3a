// JSON forms of the domain's own values (nlohmann_json ADL hooks). Doubles are written
// with round-trip precision, so a persisted state restores bit for bit.
#pragma once

#include <nlohmann/json.hpp>

#include "domain/model/ekf_tuner.hpp"
#include "domain/model/queueing_analyzer.hpp"
#include "domain/core/types.hpp"

namespace capstan {

void to_json(nlohmann::json& j, const ServiceParams& p);
void from_json(const nlohmann::json& j, ServiceParams& p);
void to_json(nlohmann::json& j, const TunerState& s);
void from_json(const nlohmann::json& j, TunerState& s);
void to_json(nlohmann::json& j, const VariantCapacity& c);
void to_json(nlohmann::json& j, const ModelAnalysis& a);

// Readers of input documents: absent keys keep their defaults, a present key of the
// wrong type or range throws std::invalid_argument naming the key and the value.
void from_json(const nlohmann::json& j, PodMetrics& p);
void to_json(nlohmann::json& j, const PodMetrics& p);
void from_json(const nlohmann::json& j, VariantSpec& v);
void to_json(nlohmann::json& j, const VariantSpec& v);

}  // namespace capstan
