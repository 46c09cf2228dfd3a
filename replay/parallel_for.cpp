#include "replay/parallel_for.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace capstan {
namespace {

// One call's indices, taken in batches off a shared counter by every thread of the pool.
struct Job {
  std::size_t count = 0, batch = 1;
  const std::function<void(std::size_t)>* body = nullptr;
  std::atomic<std::size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;

  void work() {
    try {
      for (std::size_t begin; (begin = next.fetch_add(batch)) < count;) {
        for (std::size_t i = begin; i < std::min(count, begin + batch); ++i) (*body)(i);
      }
    } catch (...) {
      const std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      next = count;  // the others stop at their next batch
    }
  }
};

// The helper threads, started once and kept while the ForEachModel (or a copy) lives: a
// replay calls it twice a tick, and starting and joining threads at each call left a
// core idle while they did. Calls run one at a time; a body must not call the same
// ForEachModel again.
class Pool {
 public:
  explicit Pool(unsigned helpers) {
    threads_.reserve(helpers);
    for (unsigned t = 0; t < helpers; ++t) threads_.emplace_back([this] { serve(); });
  }
  ~Pool() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    threads_.clear();  // joins
  }

  void run(std::size_t count, std::size_t batch, const std::function<void(std::size_t)>& body) {
    const std::lock_guard one_call(calls_);
    Job job;
    job.count = count;
    job.batch = batch;
    job.body = &body;
    {
      const std::lock_guard lock(mutex_);
      job_ = &job;
      ++round_;
      busy_ = threads_.size();
    }
    wake_.notify_all();
    job.work();
    {
      std::unique_lock lock(mutex_);
      done_.wait(lock, [&] { return busy_ == 0; });
      job_ = nullptr;
    }
    if (job.failure) std::rethrow_exception(job.failure);
  }

 private:
  void serve() {
    std::uint64_t seen = 0;
    for (;;) {
      Job* job = nullptr;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || round_ != seen; });
        if (stopping_) return;
        seen = round_;
        job = job_;
      }
      job->work();
      {
        const std::lock_guard lock(mutex_);
        if (--busy_ == 0) done_.notify_one();
      }
    }
  }

  std::mutex calls_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  Job* job_ = nullptr;
  std::uint64_t round_ = 0;   // a call's number: each helper works on each call once
  std::size_t busy_ = 0;      // helpers still on the current call
  bool stopping_ = false;
  std::vector<std::jthread> threads_;  // last: joined before the rest goes
};

}  // namespace

ForEachModel parallel_for_each(unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  auto pool = std::make_shared<Pool>(threads - 1);
  return [threads, pool](std::size_t count, const std::function<void(std::size_t)>& body) {
    if (count == 0) return;
    // Batches small enough to even out models of unequal cost, large enough that the
    // counter is not contended.
    pool->run(count, std::max<std::size_t>(1, count / (16 * threads)), body);
  };
}

}  // namespace capstan
