// The --seeds flag of `simulate` and `scenarios run`: "1-8", "1,3,5" or "4" (ranges and
// single seeds, comma-separated). Every seed is run and each figure is reported as its
// median and its worst over the seeds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace capstan::cli {

// Throws UsageError naming `flag` on an empty, malformed, reversed or too long list
// (more than kMaxSeeds seeds).
std::vector<std::uint64_t> parse_seed_list(const std::string& text, const std::string& flag);

inline constexpr std::size_t kMaxSeeds = 1000;

}  // namespace capstan::cli
