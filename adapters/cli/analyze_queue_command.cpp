#include "adapters/cli/analyze_queue_command.hpp"

#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "adapters/cli/flags.hpp"
#include "domain/model/queue_model.hpp"
#include "domain/model/slo.hpp"

namespace capstan::cli {
namespace {

struct QueueFlags {
  double alpha = NAN, beta = NAN, gamma = NAN;
  double input_tokens = NAN, output_tokens = NAN;
  int max_batch = 256, max_queue = 100;
  double target_ttft = NAN, target_itl = NAN, slo_multiplier = NAN, rate = NAN;
};

nlohmann::json metrics_json(const QueueMetrics& m) {
  return {{"rate", m.rate_rps},           {"throughput", m.throughput_rps},
          {"ttft_ms", m.ttft_ms},         {"itl_ms", m.itl_ms},
          {"wait_ms", m.avg_wait_ms},     {"prefill_ms", m.avg_prefill_ms},
          {"rho", m.rho},                 {"avg_in_service", m.avg_in_service}};
}

void run_queue(const QueueFlags& f, const CLI::App& cmd) {
  require_in(f.alpha, 0, kMaxMs, "--alpha", true);
  require_in(f.beta, 0, kMaxMs, "--beta");
  require_in(f.gamma, 0, kMaxMs, "--gamma");
  require_in(f.input_tokens, 0, kMaxTokens, "--input-tokens");
  require_in(f.output_tokens, 1, kMaxTokens, "--output-tokens");
  require_in(f.max_batch, 1, 1 << 20, "--max-batch");
  require_in(f.max_queue, 0, 1 << 24, "--max-queue");

  const bool has_ttft = cmd.count("--target-ttft") > 0, has_itl = cmd.count("--target-itl") > 0;
  const bool has_k = cmd.count("--slo-multiplier") > 0;
  if (has_ttft != has_itl) {
    throw UsageError(std::string(has_ttft ? "--target-itl" : "--target-ttft") +
                     " is required with " + (has_ttft ? "--target-ttft" : "--target-itl") +
                     ": give both targets or --slo-multiplier");
  }
  if (has_ttft && has_k) throw UsageError("--slo-multiplier cannot be combined with --target-ttft/--target-itl");
  if (!has_ttft && !has_k) throw UsageError("give --target-ttft and --target-itl, or --slo-multiplier");

  const ServiceParams params{f.alpha, f.beta, f.gamma};
  SloTargets targets;
  if (has_ttft) {
    require_in(f.target_ttft, 0, kMaxMs, "--target-ttft");
    require_in(f.target_itl, 0, kMaxMs, "--target-itl");
    targets = {f.target_ttft, f.target_itl};
  } else {
    if (auto err = validate(SloConfig{f.slo_multiplier, {}})) {
      throw UsageError("--slo-multiplier: " + err->message);
    }
    targets = derive_slo(params, f.slo_multiplier, f.input_tokens, f.output_tokens);
  }
  if (cmd.count("--rate") > 0) require_in(f.rate, 0, kMaxRate, "--rate", true);

  auto qa = QueueAnalyzer::create(params, {f.max_batch, f.max_queue}, {f.input_tokens, f.output_tokens});
  if (!qa) throw UsageError(qa.error().message);
  auto sized = qa->size(targets);
  if (!sized) throw UsageError(sized.error().message);

  const QueueMetrics& at = sized->at_lambda_star;
  nlohmann::json out = {
      {"lambda_star", sized->lambda_star_rps},
      {"throughput", at.throughput_rps},
      {"lambda_ttft", sized->lambda_ttft_rps},
      {"lambda_itl", sized->lambda_itl_rps},
      {"target_ttft_ms", targets.ttft_ms},
      {"target_itl_ms", targets.itl_ms},
      {"max_rate", qa->max_rate_rps()},
      {"at_lambda_star", {{"ttft_ms", at.ttft_ms}, {"itl_ms", at.itl_ms}, {"rho", at.rho}}},
  };
  if (cmd.count("--rate") > 0) {
    auto m = qa->analyze(f.rate);
    if (!m) throw UsageError("--rate: " + m.error().message);
    out["at_rate"] = metrics_json(*m);
  }
  std::cout << out.dump() << "\n";
}

}  // namespace

void add_analyze_queue_command(CLI::App& analyze) {
  auto flags = std::make_shared<QueueFlags>();
  CLI::App* cmd = analyze.add_subcommand("queue", "largest rate lambda* meeting TTFT/ITL targets");
  cmd->add_option("--alpha", flags->alpha, "iteration overhead, ms")->required();
  cmd->add_option("--beta", flags->beta, "compute time per token, ms")->required();
  cmd->add_option("--gamma", flags->gamma, "KV access time per cached token, ms")->required();
  cmd->add_option("--input-tokens", flags->input_tokens, "average input tokens")->required();
  cmd->add_option("--output-tokens", flags->output_tokens, "average output tokens")->required();
  cmd->add_option("--max-batch", flags->max_batch, "max batch size")->capture_default_str();
  cmd->add_option("--max-queue", flags->max_queue, "max queue size")->capture_default_str();
  cmd->add_option("--target-ttft", flags->target_ttft, "TTFT target, ms (0: no constraint)");
  cmd->add_option("--target-itl", flags->target_itl, "ITL target, ms (0: no constraint)");
  cmd->add_option("--slo-multiplier", flags->slo_multiplier, "derive targets with k (> 1)");
  cmd->add_option("--rate", flags->rate, "also evaluate the queue at this rate, req/s");
  cmd->callback([flags, cmd] { run_queue(*flags, *cmd); });
}

}  // namespace capstan::cli

namespace capstan::cli {
namespace {

struct SloFlags {
  double target_ttft = 0, target_itl = 0, slo_multiplier = 3.0;
  double alpha = NAN, beta = NAN, gamma = NAN;
  double input_tokens = 0, output_tokens = 0, observed_ttft = 0, observed_itl = 0;
};

void run_slo(const SloFlags& f, const CLI::App& cmd) {
  const SloConfig config{f.slo_multiplier, {f.target_ttft, f.target_itl}};
  require_in(f.slo_multiplier, 1, kMaxMs, "--slo-multiplier", true);
  require_in(f.target_ttft, 0, kMaxMs, "--target-ttft");
  require_in(f.target_itl, 0, kMaxMs, "--target-itl");
  if (auto err = validate(config)) {
    std::string flag = "--slo-multiplier";
    if (err->message.rfind("target TTFT", 0) == 0) {
      flag = "--target-ttft";
    } else if (err->message.rfind("target ITL", 0) == 0) {
      flag = "--target-itl";
    }
    throw UsageError(flag + ": " + err->message);
  }
  VariantSloInput v;
  const int params_given = static_cast<int>(cmd.count("--alpha") + cmd.count("--beta") + cmd.count("--gamma"));
  if (params_given != 0 && params_given != 3) throw UsageError("--alpha, --beta and --gamma go together");
  if (params_given == 3) {
    require_in(f.alpha, 0, kMaxMs, "--alpha", true);
    require_in(f.beta, 0, kMaxMs, "--beta");
    require_in(f.gamma, 0, kMaxMs, "--gamma");
    v.params = ServiceParams{f.alpha, f.beta, f.gamma};
  }
  require_in(f.input_tokens, 0, kMaxTokens, "--input-tokens");
  require_in(f.output_tokens, 0, kMaxTokens, "--output-tokens");
  require_in(f.observed_ttft, 0, kMaxMs, "--observed-ttft");
  require_in(f.observed_itl, 0, kMaxMs, "--observed-itl");
  v.avg_input_tokens = f.input_tokens;
  v.avg_output_tokens = f.output_tokens;
  v.observed_ttft_ms = f.observed_ttft;
  v.observed_itl_ms = f.observed_itl;
  auto resolved = resolve_slo(config, std::span<const VariantSloInput>(&v, 1));
  if (!resolved) throw UsageError(resolved.error().message);
  std::cout << nlohmann::json{{"target_ttft_ms", resolved->targets.ttft_ms},
                              {"target_itl_ms", resolved->targets.itl_ms},
                              {"path", to_string(resolved->path)}}
                   .dump()
            << "\n";
}

}  // namespace

void add_analyze_slo_command(CLI::App& analyze) {
  auto f = std::make_shared<SloFlags>();
  CLI::App* cmd = analyze.add_subcommand("slo", "resolve TTFT/ITL targets: explicit > derived > observed");
  cmd->add_option("--target-ttft", f->target_ttft, "explicit TTFT target, ms (0: not constrained; with ITL 0 too: derive)");
  cmd->add_option("--target-itl", f->target_itl, "explicit ITL target, ms (0: not constrained; with TTFT 0 too: derive)");
  cmd->add_option("--slo-multiplier", f->slo_multiplier, "k > 1 for derived targets")->capture_default_str();
  cmd->add_option("--alpha", f->alpha, "learned alpha, ms");
  cmd->add_option("--beta", f->beta, "learned beta, ms");
  cmd->add_option("--gamma", f->gamma, "learned gamma, ms");
  cmd->add_option("--input-tokens", f->input_tokens, "average input tokens");
  cmd->add_option("--output-tokens", f->output_tokens, "average output tokens");
  cmd->add_option("--observed-ttft", f->observed_ttft, "observed average TTFT, ms");
  cmd->add_option("--observed-itl", f->observed_itl, "observed average ITL, ms");
  cmd->callback([f, cmd] { run_slo(*f, *cmd); });
}

}  // namespace capstan::cli
