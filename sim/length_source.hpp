// Where a generated arrival gets its prompt and answer lengths (ServeGen rate windows
// and the synthetic generators carry no lengths): fixed, log-normal by mean and CV,
// or drawn uniformly from the lengths of another trace (e.g. the Azure conversation
// trace), read once up to a sample limit.
#pragma once

#include <memory>
#include <vector>

#include "domain/core/result.hpp"
#include "sim/rng.hpp"
#include "sim/trace_source.hpp"

namespace capstan::sim {

struct TokenLengths {
  int input_tokens = 0;
  int output_tokens = 0;
};

class LengthSource {
 public:
  virtual ~LengthSource() = default;
  virtual TokenLengths draw(Rng& rng) const = 0;
};

std::shared_ptr<LengthSource> fixed_lengths(int input_tokens, int output_tokens);
// Prompts drawn longer than max_input (> 0) are cut to it, as a client cuts a prompt to
// the model's context (vLLM refuses one over max_model_len).
std::shared_ptr<LengthSource> lognormal_lengths(double mean_input, double cv_input, double mean_output,
                                                double cv_output, double max_input = 0);
std::shared_ptr<LengthSource> empirical_lengths(std::vector<TokenLengths> samples);
// Reads up to max_samples requests of `trace` and draws from their lengths.
Result<std::shared_ptr<LengthSource>> lengths_from_trace(TraceSource& trace,
                                                         std::size_t max_samples = 100000);

}  // namespace capstan::sim
