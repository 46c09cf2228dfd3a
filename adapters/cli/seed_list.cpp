// Parsing of --seeds; see seed_list.hpp.
#include "adapters/cli/seed_list.hpp"

#include <charconv>
#include <sstream>

#include "adapters/cli/usage_error.hpp"

namespace capstan::cli {
namespace {

std::uint64_t parse_seed(const std::string& text, const std::string& flag, const std::string& whole) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw UsageError(flag + " must be seeds like 1-8 or 1,3,5, got '" + whole + "'");
  return value;
}

}  // namespace

std::vector<std::uint64_t> parse_seed_list(const std::string& text, const std::string& flag) {
  std::vector<std::uint64_t> seeds;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    const auto dash = part.find('-');
    if (dash == std::string::npos) {
      seeds.push_back(parse_seed(part, flag, text));
      continue;
    }
    const std::uint64_t from = parse_seed(part.substr(0, dash), flag, text);
    const std::uint64_t to = parse_seed(part.substr(dash + 1), flag, text);
    if (to < from) throw UsageError(flag + ": range " + part + " runs backwards");
    if (to - from >= kMaxSeeds) throw UsageError(flag + ": at most " + std::to_string(kMaxSeeds) + " seeds");
    for (std::uint64_t s = from; s <= to; ++s) seeds.push_back(s);
    if (seeds.size() > kMaxSeeds) throw UsageError(flag + ": at most " + std::to_string(kMaxSeeds) + " seeds");
  }
  if (seeds.empty()) throw UsageError(flag + " must name at least one seed, got '" + text + "'");
  return seeds;
}

}  // namespace capstan::cli
