// A small timing harness: runs a body in batches until a time budget is spent and
// reports the median per-call time over the batches, so one noisy batch on a shared
// machine does not move the figure.
#pragma once

#include <sys/resource.h>

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

template <class Body>
double median_ns_per_call(Body&& body, int calls_per_batch, double budget_s = 1.0) {
  using clock = std::chrono::steady_clock;
  std::vector<double> per_call;
  const auto start = clock::now();
  while (per_call.size() < 5 || std::chrono::duration<double>(clock::now() - start).count() < budget_s) {
    const auto t0 = clock::now();
    for (int i = 0; i < calls_per_batch; ++i) body(i);
    const auto t1 = clock::now();
    per_call.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls_per_batch);
    if (per_call.size() >= 1000) break;
  }
  std::nth_element(per_call.begin(), per_call.begin() + per_call.size() / 2, per_call.end());
  return per_call[per_call.size() / 2];
}

// Keeps the optimiser from deleting a computation whose result is unused.
template <class T>
void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

}  // namespace capstan::bench
