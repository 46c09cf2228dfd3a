// A replica's prefix cache, at the granularity of Mooncake's 512-token prefix blocks:
// an LRU set of block hashes. A request's hit is the run of its leading hash_ids that
// are cached (a prefix must match from the start, as in vLLM's automatic prefix
// caching); those tokens skip prefill compute. Capacity is counted in prefix blocks
// (the replica's KV tokens / 512). Simplification: the cache is kept beside the KV
// block pool, so cached prefixes do not take KV blocks away from running requests.
#pragma once

#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace capstan::sim {

class PrefixCache {
 public:
  explicit PrefixCache(std::size_t capacity_blocks) : capacity_(capacity_blocks) {}

  // Number of leading blocks of `hash_ids` present; touches them (most recently used).
  int lookup(const std::vector<std::uint64_t>& hash_ids);

  // Records the blocks of a request whose prompt has been computed.
  void insert(const std::vector<std::uint64_t>& hash_ids);

  std::size_t size() const { return map_.size(); }

 private:
  void touch(std::list<std::uint64_t>::iterator it);
  std::size_t capacity_;
  std::list<std::uint64_t> lru_;  // front = most recently used
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> map_;
};

}  // namespace capstan::sim
