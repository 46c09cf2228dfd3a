// A short history kept between ticks, oldest first: the last few capacity figures,
// request rates, ITL windows, start times. A std::vector with std::deque's pop_front,
// because these histories hold ten or twenty entries and a model's state is copied at
// every plan: libstdc++'s std::deque allocates a 512-byte block and its map (576+ bytes)
// even when empty, and a moved-from one allocates them again, where a vector holds its
// entries in one allocation of their own size and a moved-from one holds nothing. At
// these sizes pop_front's shift of the rest costs less than a deque's block walk.
// Serialised as the array it is (nlohmann_json and the MessagePack codec alike).
#pragma once

#include <vector>

namespace capstan {

template <class T>
struct History : std::vector<T> {
  using std::vector<T>::vector;

  // Drops the oldest entry; the history must not be empty.
  void pop_front() { this->erase(this->begin()); }
};

}  // namespace capstan
