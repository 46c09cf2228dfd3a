// Parser of the Azure LLM inference trace 2023 (Azure/AzurePublicDataset, CC-BY-4.0;
// Patel et al., "Splitwise", ISCA 2024): CSV with header
// TIMESTAMP,ContextTokens,GeneratedTokens, timestamps "YYYY-MM-DD HH:MM:SS.fffffff".
// Arrivals are seconds since the first row.
#pragma once

#include <optional>
#include <string>

#include "sim/line_reader.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

class AzureTrace : public TraceSource {
 public:
  explicit AzureTrace(std::string path);
  Result<std::optional<Request>> next() override;

 private:
  LineReader reader_;
  std::optional<double> first_s_;
  double last_s_ = 0;
};

// Seconds since 1970-01-01 of a "YYYY-MM-DD HH:MM:SS[.fraction]" timestamp (no zone).
bool parse_azure_timestamp(const std::string& text, double& seconds);

}  // namespace capstan::sim
