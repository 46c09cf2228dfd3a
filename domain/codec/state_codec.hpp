// The recorded form of a fleet's states under one policy (domain/tick/tick_state.hpp):
// what `Policy::save_state` returns, what a snapshot stores and what a restart reads.
//
//   {"schema": 3, "policy": "hybrid",
//    "variants": [{"ns", "model_id", "variant", "memory": {...}}, ...],   key order
//    "models":   [{"ns", "model_id", "finisher": {...}, "policy": {"kind", ...}}, ...],
//    "fleet": {}}
//
// A model's policy memory is tagged with the policy that keeps it ("none" for one that
// keeps nothing); a document of another policy, of an unknown schema version or with a
// malformed field is refused with the field's path, and nothing is half-restored: the
// decoder builds a whole new value or none.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "domain/core/result.hpp"
#include "domain/tick/tick_driver.hpp"

namespace capstan {

// 2: forecasters, and throughput's queue model parameters, as arrays of numbers (issue 19:
// a variant's state within 2 KiB).
// 3: hybrid's correction of learned capacities by measured latency (issue 22); a state of
// schema 2 is read as one with no correction.
// 4: the forward-pass regression's window by column, its per-request decode lengths as
// request counts and prefill_per_iter as where the samples' prefill column starts
// (forward_pass_regression.hpp's record; issue 19); states of schema 2 and 3 are read too.
inline constexpr int kStateSchema = 4;
inline constexpr int kOldestStateSchema = 2;

nlohmann::json encode_fleet_memory(const std::string& policy, const FleetMemory& memory);
Result<FleetMemory> decode_fleet_memory(const std::string& policy, const nlohmann::json& json);

// The parts, for the daemon's per-actor snapshots.
nlohmann::json encode_variant_memory(const VariantMemory& memory);
nlohmann::json encode_model_state(const ModelState& state);
class FieldReader;
VariantMemory read_variant_memory(const FieldReader& r);
// `policy`: the policy whose memory the state must hold (or none).
ModelState read_model_state(const FieldReader& r, const std::string& policy);

// A tuner's covariance (row-major 3x3) as recorded: its upper triangle (6 numbers) when
// it is symmetric bit for bit, as the filter keeps it, else all 9; and back.
std::vector<double> covariance_record(const std::array<double, 9>& covariance);
// Empty unless `recorded` holds 6 or 9 numbers.
std::optional<std::array<double, 9>> covariance_from_record(std::span<const double> recorded);

// The name a PolicyMemory alternative is recorded under.
const char* memory_kind(const PolicyMemory& memory);

}  // namespace capstan
