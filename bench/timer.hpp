// A small timing harness: runs a body in batches until a time budget is spent and
// reports the median per-call time over the batches, so one noisy batch on a shared
// machine does not move the figure.
#pragma once

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace capstan::bench {

// User + system CPU time of the process so far, s: steadier than wall time on a shared
// machine.
inline double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Nanoseconds of CPU time this thread has used: unlike wall time, it does not count the
// time the thread waited for a core that others were using.
inline double thread_cpu_ns() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e9 + static_cast<double>(now.tv_nsec);
}

inline double wall_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The median over batches of one call's cost as `now` measures it (ns). The budget is
// wall time, so a busy machine does not make the run longer.
template <class Body, class Now>
double median_per_call(Body&& body, int calls_per_batch, double budget_s, Now&& now) {
  std::vector<double> per_call;
  const double start = wall_ns();
  while (per_call.size() < 5 || (wall_ns() - start) / 1e9 < budget_s) {
    const double t0 = now();
    for (int i = 0; i < calls_per_batch; ++i) body(i);
    per_call.push_back((now() - t0) / calls_per_batch);
    if (per_call.size() >= 1000) break;
  }
  std::nth_element(per_call.begin(), per_call.begin() + per_call.size() / 2, per_call.end());
  return per_call[per_call.size() / 2];
}

template <class Body>
double median_ns_per_call(Body&& body, int calls_per_batch, double budget_s = 1.0) {
  return median_per_call(body, calls_per_batch, budget_s, wall_ns);
}

// As median_ns_per_call, in the calling thread's CPU time: the steadier figure on a
// shared machine for single-threaded work.
template <class Body>
double median_cpu_ns_per_call(Body&& body, int calls_per_batch, double budget_s = 1.0) {
  return median_per_call(body, calls_per_batch, budget_s, thread_cpu_ns);
}

// Keeps the optimiser from deleting a computation whose result is unused.
template <class T>
void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

}  // namespace capstan::bench
