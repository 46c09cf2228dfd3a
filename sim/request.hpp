// One inference request as the simulator sees it: when it arrives, how long its
// prompt and its answer are, and (for prefix caching) the anonymised IDs of its
// 512-token prompt-prefix blocks, as Mooncake traces carry them.
#pragma once

#include <cstdint>
#include <vector>

namespace capstan::sim {

// Tokens per prefix block in Mooncake's hash_ids.
inline constexpr int kPrefixBlockTokens = 512;

// The largest prompt or answer a trace may hold (ten times today's longest contexts),
// and the latest arrival (about three years): beyond them a row is an error, not a
// request that overflows an int or keeps the simulator ticking for ever.
inline constexpr long long kMaxRequestTokens = 10'000'000;
inline constexpr double kMaxArrivalS = 1e8;

struct Request {
  std::uint64_t id = 0;
  double arrival_s = 0;
  int input_tokens = 0;
  int output_tokens = 0;
  std::vector<std::uint64_t> hash_ids;  // empty when the trace has no prefix information
};

}  // namespace capstan::sim
