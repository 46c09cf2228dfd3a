#include "adapters/cli/analyze_tune_command.hpp"

#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "adapters/cli/flags.hpp"
#include "domain/model/ekf_tuner.hpp"

namespace capstan::cli {
namespace {

struct TuneFlags {
  std::string input;
};

// A required number within [lo, hi] (tuner observations carry no default: a batch
// size left out would silently be one the server does not have).
double number_field(const nlohmann::json& j, const char* key, const std::string& where, double lo, double hi) {
  if (!j.contains(key)) throw UsageError(where + ": missing field \"" + key + "\"");
  const auto& v = j.at(key);
  if (!v.is_number()) throw UsageError(where + ": field \"" + key + "\" must be a number, got " + v.dump());
  const double x = v.get<double>();
  if (!(x >= lo && x <= hi))
    throw UsageError(where + ": field \"" + key + "\" must be in " + fmt_num(lo) + ".." + fmt_num(hi) + ", got " +
                     v.dump());
  return x;
}

TunerObservation parse_observation(const std::string& line, const std::string& where) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(where + ": not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw UsageError(where + ": expected a JSON object");
  TunerObservation o;
  o.ttft_ms = number_field(j, "ttft_ms", where, 0, kMaxMs);
  o.itl_ms = number_field(j, "itl_ms", where, 0, kMaxMs);
  o.input_tokens = number_field(j, "input_tokens", where, 0, kMaxTokens);
  o.output_tokens = number_field(j, "output_tokens", where, 0, kMaxTokens);
  o.arrival_rate_rps = number_field(j, "arrival_rate", where, 0, kMaxRate);
  const double batch = number_field(j, "max_batch", where, 1, 1 << 20);
  if (batch != static_cast<int>(batch)) throw UsageError(where + ": max_batch must be an integer");
  o.max_batch_size = static_cast<int>(batch);
  if (auto err = validate(o)) throw UsageError(where + ": " + err->message);
  return o;
}

void run_tune(const TuneFlags& f) {
  std::ifstream in(f.input);
  if (!in) throw UsageError("--input: cannot open " + f.input);
  const TunerConfig config;
  std::optional<TunerState> state;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = f.input + ":" + std::to_string(line_no);
    const TunerObservation obs = parse_observation(line, where);
    const nlohmann::json parsed = nlohmann::json::parse(line);

    nlohmann::json out;
    if (!state) {
      const TunerStart start = initial_state(obs, config);
      state = start.state;
      out = {{"nis", 0.0}, {"accepted", true}, {"source", to_string(start.source)}};
    } else {
      auto step = tune_step(*state, obs, config);
      if (!step) throw UsageError(where + ": " + step.error().message);
      state = step->state;
      out = {{"nis", step->nis}, {"accepted", step->accepted}, {"source", "ekf"}};
      if (!step->accepted) out["reason"] = step->reason;
    }
    out["alpha"] = state->params.alpha_ms;
    out["beta"] = state->params.beta_ms;
    out["gamma"] = state->params.gamma_ms;
    if (parsed.contains("time_s")) out["time_s"] = parsed.at("time_s");
    std::cout << out.dump() << "\n";
  }
  if (!state) throw UsageError("--input: " + f.input + " holds no observation");
}

}  // namespace

void add_analyze_tune_command(CLI::App& analyze) {
  auto flags = std::make_shared<TuneFlags>();
  CLI::App* cmd = analyze.add_subcommand("tune", "run the EKF tuner over observations (JSON lines)");
  cmd->add_option("--input", flags->input,
                  "JSON lines: ttft_ms, itl_ms, input_tokens, output_tokens, arrival_rate, max_batch")
      ->required();
  cmd->callback([flags] { run_tune(*flags); });
}

}  // namespace capstan::cli
