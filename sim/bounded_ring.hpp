// A fixed-capacity FIFO that keeps the newest `capacity` items and drops the oldest:
// the recent forward passes of a replica, between two observations, without memory
// that grows with the length of the observation window.
#pragma once

#include <cstddef>
#include <vector>

namespace capstan::sim {

template <class T>
class BoundedRing {
 public:
  explicit BoundedRing(std::size_t capacity) : items_(capacity) {}

  void push(const T& item) {
    if (items_.empty()) return;
    items_[(head_ + size_) % items_.size()] = item;
    if (size_ < items_.size()) {
      ++size_;
    } else {
      head_ = (head_ + 1) % items_.size();
      ++dropped_;
    }
  }

  // Oldest first; empties the ring.
  std::vector<T> drain() {
    std::vector<T> out;
    out.reserve(size_);
    for (std::size_t i = 0; i < size_; ++i) out.push_back(items_[(head_ + i) % items_.size()]);
    head_ = 0;
    size_ = 0;
    return out;
  }

  std::size_t size() const { return size_; }
  std::size_t capacity() const { return items_.size(); }
  std::size_t dropped() const { return dropped_; }  // overwritten since construction

 private:
  std::vector<T> items_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::size_t dropped_ = 0;
};

}  // namespace capstan::sim
