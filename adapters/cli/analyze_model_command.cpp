#include "adapters/cli/analyze_model_command.hpp"

#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "adapters/cli/usage_error.hpp"
#include "domain/codec/json.hpp"
#include "domain/model/queueing_analyzer.hpp"

namespace capstan::cli {
namespace {

struct ModelFlags {
  std::string input;
};

struct Snapshot {
  ModelKey model;
  QueueingAnalyzerConfig config;
  std::vector<VariantInput> variants;
};

Snapshot parse_snapshot(const nlohmann::json& j, const std::map<std::string, TunerState>& stored) {
  if (!j.is_object()) throw std::invalid_argument("a snapshot must be a JSON object");
  Snapshot s;
  const auto model = j.value("model", nlohmann::json::object());
  s.model.ns = model.value("namespace", "default");
  s.model.model_id = model.value("model_id", "");
  const auto slo = j.value("slo", nlohmann::json::object());
  s.config.slo.slo_multiplier = slo.value("slo_multiplier", 3.0);
  s.config.slo.targets.ttft_ms = slo.value("target_ttft_ms", 0.0);
  s.config.slo.targets.itl_ms = slo.value("target_itl_ms", 0.0);
  if (!j.contains("variants") || !j.at("variants").is_array() || j.at("variants").empty()) {
    throw std::invalid_argument("variants must be a non-empty array");
  }
  size_t index = 0;
  for (const auto& jv : j.at("variants")) {
    const std::string where = "variants[" + std::to_string(index++) + "]";
    try {
      VariantInput v;
      v.spec = jv.at("spec").get<VariantSpec>();
      if (v.spec.name.empty()) throw std::invalid_argument("spec.name is required");
      v.current_replicas = jv.value("current_replicas", 0);
      v.pending_replicas = jv.value("pending_replicas", 0);
      if (v.current_replicas < 0 || v.pending_replicas < 0) {
        throw std::invalid_argument("current_replicas and pending_replicas must be >= 0");
      }
      size_t pod_index = 0;
      for (const auto& jp : jv.value("pods", nlohmann::json::array())) {
        try {
          v.pods.push_back(jp.get<PodMetrics>());
        } catch (const std::exception& e) {
          throw std::invalid_argument("pods[" + std::to_string(pod_index) + "]." + e.what());
        }
        ++pod_index;
      }
      if (jv.contains("tuner")) {
        v.tuner = jv.at("tuner").get<TunerState>();
      } else if (auto it = stored.find(v.spec.name); it != stored.end()) {
        v.tuner = it->second;
      }
      s.variants.push_back(std::move(v));
    } catch (const std::exception& e) {
      throw std::invalid_argument(where + "." + e.what());
    }
  }
  return s;
}

void run_model(const ModelFlags& f) {
  std::ifstream in(f.input);
  if (!in) throw UsageError("--input: cannot open " + f.input);
  // One document, or one snapshot per line.
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::pair<int, nlohmann::json>> docs;
  try {
    docs.emplace_back(1, nlohmann::json::parse(text));
  } catch (const nlohmann::json::parse_error&) {
    std::istringstream lines(text);
    std::string line;
    int line_no = 0;
    while (std::getline(lines, line)) {
      ++line_no;
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        docs.emplace_back(line_no, nlohmann::json::parse(line));
      } catch (const nlohmann::json::parse_error& e) {
        throw UsageError(f.input + ":" + std::to_string(line_no) + ": not valid JSON (" + e.what() + ")");
      }
    }
  }
  if (docs.empty()) throw UsageError("--input: " + f.input + " holds no snapshot");

  std::map<std::string, TunerState> stored;
  for (const auto& [line_no, doc] : docs) {
    const std::string where = f.input + ":" + std::to_string(line_no);
    Snapshot s;
    try {
      s = parse_snapshot(doc, stored);
    } catch (const std::exception& e) {
      throw UsageError(where + ": " + e.what());
    }
    auto analysis = analyze_model(s.model, s.variants, s.config);
    if (!analysis) throw UsageError(where + ": " + analysis.error().message);
    for (const VariantAnalysis& v : analysis->variants) {
      if (v.tuner) stored[v.capacity.variant] = *v.tuner;
    }
    std::cout << nlohmann::json(*analysis).dump() << "\n";
  }
}

}  // namespace

void add_analyze_model_command(CLI::App& analyze) {
  auto flags = std::make_shared<ModelFlags>();
  CLI::App* cmd = analyze.add_subcommand(
      "model", "queueing-model analyzer of one model over snapshots of its pods' metrics");
  cmd->add_option("--input", flags->input, "snapshot JSON, or JSON lines of snapshots")->required();
  cmd->callback([flags] { run_model(*flags); });
}

}  // namespace capstan::cli
