// LRU prefix-block cache; see prefix_cache.hpp.
#include "sim/prefix_cache.hpp"

namespace capstan::sim {

void PrefixCache::touch(std::list<std::uint64_t>::iterator it) {
  lru_.splice(lru_.begin(), lru_, it);
}

int PrefixCache::lookup(const std::vector<std::uint64_t>& hash_ids) {
  int hits = 0;
  for (auto h : hash_ids) {
    auto it = map_.find(h);
    if (it == map_.end()) break;
    touch(it->second);
    ++hits;
  }
  return hits;
}

void PrefixCache::insert(const std::vector<std::uint64_t>& hash_ids) {
  if (capacity_ == 0) return;
  for (auto h : hash_ids) {
    auto it = map_.find(h);
    if (it != map_.end()) {
      touch(it->second);
      continue;
    }
    lru_.push_front(h);
    map_[h] = lru_.begin();
    if (map_.size() > capacity_) {
      map_.erase(lru_.back());
      lru_.pop_back();
    }
  }
}

}  // namespace capstan::sim
