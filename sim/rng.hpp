// The simulator's only source of randomness: a xoshiro256** generator seeded through
// splitmix64, so a run is a pure function of its seed (no std::random_device, no
// global state). Distributions are implemented here too, because the standard
// library's distributions are not guaranteed to give the same numbers across
// implementations.
#pragma once

#include <cstdint>

namespace capstan::sim {

// One step of splitmix64: used to expand a seed and to derive independent streams.
std::uint64_t splitmix64(std::uint64_t& state);

// Derives the seed of a named sub-stream (a replica, a trace option) from a run seed.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0);

  std::uint64_t next_u64();
  double uniform();                                   // [0, 1)
  double uniform_open();                              // (0, 1)
  double normal();                                    // mean 0, sd 1
  double exponential(double rate);                    // mean 1 / rate
  double gamma(double shape, double scale);           // mean shape * scale
  double weibull(double shape, double scale);         // mean scale * Gamma(1 + 1/shape)
  double lognormal_mean_cv(double mean, double cv);   // mean and coefficient of variation
  bool bernoulli(double p);

 private:
  std::uint64_t s_[4];
};

}  // namespace capstan::sim
