#include "replay/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace capstan {

ForEachModel parallel_for_each(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  return [threads](std::size_t count, const std::function<void(std::size_t)>& body) {
    if (count == 0) return;
    // Batches small enough to even out models of unequal cost, large enough that the
    // counter is not contended.
    const std::size_t batch = std::max<std::size_t>(1, count / (16 * threads));
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    const auto work = [&] {
      try {
        for (std::size_t begin; (begin = next.fetch_add(batch)) < count;) {
          for (std::size_t i = begin; i < std::min(count, begin + batch); ++i) body(i);
        }
      } catch (...) {
        const std::lock_guard lock(failure_mutex);
        if (!failure) failure = std::current_exception();
        next = count;  // the others stop at their next batch
      }
    };
    const unsigned helpers = static_cast<unsigned>(std::min<std::size_t>(threads, (count + batch - 1) / batch)) - 1;
    std::vector<std::jthread> pool;
    pool.reserve(helpers);
    for (unsigned t = 0; t < helpers; ++t) pool.emplace_back(work);
    work();
    pool.clear();  // joins
    if (failure) std::rethrow_exception(failure);
  };
}

}  // namespace capstan
