// The birth-death chain of a QueueAnalyzer (queue_model.hpp), solved at one rate or at
// two at once: its running sums over the in-service states and the queued ones, and the
// metrics they give. queue_model.cpp validates, sizes and remembers; every question it
// answers ends in this loop, most of a hybrid tick's time.
#include <algorithm>

#include "domain/model/queue_model.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace capstan {
namespace {

constexpr double kRescaleAbove = 1e250;      // keep the unnormalised chain finite
constexpr double kRescaleBy = 1e-250;
constexpr int kFillStates = 32;              // 1/mu(n) entries filled at a time (inv_mu_up_to)

}  // namespace

// Unnormalised p[k] = prod_{j<=k} lambda / mu(min(j, N)), with p[0] = 1. We keep only
// the running sums the statistics need: total mass, first moment, and both restricted
// to the in-service states k <= N.
//
// Each state asks one of two questions, by its ratio: below 1 the term shrank, so it
// cannot need rescaling (the term before it was at most kRescaleAbove once checked,
// and a product with a factor below 1 rounds to at most the larger factor), and only
// the cut is checked; else only the rescale is (the cut needs a ratio below 1). That is
// exactly the two checks every state made before, with the one that cannot hold left
// out: the same sums, in the same order, so the same bits, for fewer instructions in
// the loop that is a fifth of a hybrid tick's. k also counts as a double (exact), not
// converted each state.
QueueMetrics QueueAnalyzer::solve(double lambda) const {
  Chain c;
  serve(lambda, c);
  queue(lambda, c);
  return metrics(lambda, c);
}

void QueueAnalyzer::serve(double lambda, Chain& c) const {
  const int n_max = config_.max_batch_size;
  if (c.ended || c.k > n_max) return;
  double p = c.p, mass = c.mass, moment = c.moment, k_real = c.k_real;
  int k = c.k;
  bool cut = false;
  while (k <= n_max && !cut) {
    // The table as far as the next kFillStates states, filled as the chain reaches them.
    const int fill_end = std::min(n_max, std::max(inv_mu_filled_, k + kFillStates - 1));
    const double* inv_mu = inv_mu_up_to(fill_end);
    for (; k <= fill_end; ++k, k_real += 1) {
      const double ratio = lambda * inv_mu[k - 1];
      p *= ratio;
      mass += p;
      moment += k_real * p;
      if (ratio < 1) {
        // The ratio falls with k (mu grows with the batch), so once it is below 1 the
        // remaining terms only shrink: stop when they cannot move a sum by 1e-18.
        if (p < mass * 1e-18) { p = 0; cut = true; break; }
      } else if (p > kRescaleAbove) {
        p *= kRescaleBy; mass *= kRescaleBy; moment *= kRescaleBy;
      }
    }
  }
  c = {p, mass, moment, mass, moment, k_real, k, cut};
}

void QueueAnalyzer::queue(double lambda, Chain& c) const {
  const int n_max = config_.max_batch_size;
  const int k_max = n_max + config_.max_queue_size;
  if (c.ended || c.k <= n_max) return;
  double p = c.p, mass = c.mass, moment = c.moment, mass_served = c.mass_served, moment_served = c.moment_served;
  double k_real = c.k_real;
  int k = c.k;
  // One ratio for every queued state: a loop for each of its two cases.
  const double ratio = lambda * inv_mu_last_;
  bool cut = false;
  if (ratio < 1) {
    for (; k <= k_max; ++k, k_real += 1) {
      p *= ratio;
      mass += p;
      moment += k_real * p;
      if (p < mass * 1e-18) { p = 0; cut = true; break; }
    }
  } else {
    for (; k <= k_max; ++k, k_real += 1) {
      p *= ratio;
      mass += p;
      moment += k_real * p;
      if (p > kRescaleAbove) {
        p *= kRescaleBy; mass *= kRescaleBy; moment *= kRescaleBy;
        mass_served *= kRescaleBy; moment_served *= kRescaleBy;
      }
    }
  }
  c = {p, mass, moment, mass_served, moment_served, k_real, k, cut || k > k_max};
}

// Two chains at once, one in each half of an SSE2 register: each half's multiplies and
// adds are those of its chain alone (IEEE operations per lane, and no FMA in the
// baseline x86-64 build), so each chain's sums are the bits solve() gives. A chain is a
// sequence of dependent multiplies and adds, as long as the latency of each; two of
// them take about the time of one. Both stop at the first state where either is cut;
// the other goes on alone (serve, queue).
#if defined(__SSE2__)
namespace {
// A pair's three sums as two lanes each (p, mass, moment), for the scalar work per lane.
void store_lanes(double (&lanes)[3][2], __m128d p, __m128d mass, __m128d moment) {
  _mm_store_pd(lanes[0], p);
  _mm_store_pd(lanes[1], mass);
  _mm_store_pd(lanes[2], moment);
}
}  // namespace

void QueueAnalyzer::serve_pair(double lambda_a, double lambda_b, Chain& ca, Chain& cb) const {
  const int n_max = config_.max_batch_size;
  const __m128d lambda = _mm_set_pd(lambda_b, lambda_a);
  const __m128d one = _mm_set1_pd(1.0), tiny = _mm_set1_pd(1e-18), rescale_above = _mm_set1_pd(kRescaleAbove);
  __m128d p = one, mass = one, moment = _mm_setzero_pd();
  double k_real = 1;
  int k = 1;
  int cut_lanes = 0;
  while (k <= n_max && cut_lanes == 0) {
    const int fill_end = std::min(n_max, std::max(inv_mu_filled_, k + kFillStates - 1));
    const double* inv_mu = inv_mu_up_to(fill_end);
    for (; k <= fill_end; ++k, k_real += 1) {
      const __m128d ratio = _mm_mul_pd(lambda, _mm_set1_pd(inv_mu[k - 1]));
      p = _mm_mul_pd(p, ratio);
      mass = _mm_add_pd(mass, p);
      moment = _mm_add_pd(moment, _mm_mul_pd(_mm_set1_pd(k_real), p));
      const __m128d below = _mm_cmplt_pd(ratio, one);
      const __m128d cut = _mm_and_pd(below, _mm_cmplt_pd(p, _mm_mul_pd(mass, tiny)));
      const __m128d rescale = _mm_andnot_pd(below, _mm_cmpgt_pd(p, rescale_above));
      if (_mm_movemask_pd(_mm_or_pd(cut, rescale)) == 0) [[likely]] continue;
      // A lane to cut or rescale: as solve() does to its chain at this state.
      alignas(16) double lanes[3][2];
      store_lanes(lanes, p, mass, moment);
      const int rescale_lanes = _mm_movemask_pd(rescale);
      for (int lane = 0; lane < 2; ++lane) {
        if (rescale_lanes & (1 << lane)) {
          for (auto& sum : lanes) sum[lane] *= kRescaleBy;
        }
      }
      cut_lanes = _mm_movemask_pd(cut);
      for (int lane = 0; lane < 2; ++lane) {
        if (cut_lanes & (1 << lane)) lanes[0][lane] = 0;
      }
      p = _mm_load_pd(lanes[0]);
      mass = _mm_load_pd(lanes[1]);
      moment = _mm_load_pd(lanes[2]);
      if (cut_lanes != 0) break;
    }
  }
  alignas(16) double lanes[3][2];
  store_lanes(lanes, p, mass, moment);
  for (int lane = 0; lane < 2; ++lane) {
    Chain& c = lane == 0 ? ca : cb;
    const bool cut = (cut_lanes & (1 << lane)) != 0;
    // A lane not cut has finished state k when the other was cut there: it goes on
    // from the next.
    const bool past = cut_lanes != 0 && !cut;
    c = {lanes[0][lane], lanes[1][lane], lanes[2][lane], lanes[1][lane], lanes[2][lane],
         past ? k_real + 1 : k_real, past ? k + 1 : k, cut};
  }
}

void QueueAnalyzer::queue_pair(double lambda_a, double lambda_b, Chain& ca, Chain& cb) const {
  const int n_max = config_.max_batch_size;
  const int k_max = n_max + config_.max_queue_size;
  // Only two chains that both reach the queued states together with ratios below 1 (the
  // searches' chains near their roots); else each goes alone.
  if (ca.ended || cb.ended || ca.k != n_max + 1 || cb.k != n_max + 1) return;
  const double ratio_a = lambda_a * inv_mu_last_, ratio_b = lambda_b * inv_mu_last_;
  if (!(ratio_a < 1) || !(ratio_b < 1)) return;
  const __m128d ratio = _mm_set_pd(ratio_b, ratio_a), tiny = _mm_set1_pd(1e-18);
  __m128d p = _mm_set_pd(cb.p, ca.p), mass = _mm_set_pd(cb.mass, ca.mass), moment = _mm_set_pd(cb.moment, ca.moment);
  double k_real = ca.k_real;
  int k = ca.k;
  int cut_lanes = 0;
  for (; k <= k_max; ++k, k_real += 1) {
    p = _mm_mul_pd(p, ratio);
    mass = _mm_add_pd(mass, p);
    moment = _mm_add_pd(moment, _mm_mul_pd(_mm_set1_pd(k_real), p));
    cut_lanes = _mm_movemask_pd(_mm_cmplt_pd(p, _mm_mul_pd(mass, tiny)));
    if (cut_lanes != 0) [[unlikely]] break;
  }
  alignas(16) double lanes[3][2];
  store_lanes(lanes, p, mass, moment);
  for (int lane = 0; lane < 2; ++lane) {
    Chain& c = lane == 0 ? ca : cb;
    const bool cut = (cut_lanes & (1 << lane)) != 0;
    const bool past = cut_lanes != 0 && !cut;
    c.p = cut ? 0.0 : lanes[0][lane];
    c.mass = lanes[1][lane];
    c.moment = lanes[2][lane];
    c.k = past ? k + 1 : k;
    c.k_real = past ? k_real + 1 : k_real;
    c.ended = cut || c.k > k_max;
  }
}
#else
void QueueAnalyzer::serve_pair(double, double, Chain&, Chain&) const {}
void QueueAnalyzer::queue_pair(double, double, Chain&, Chain&) const {}
#endif

QueueMetrics QueueAnalyzer::metrics(double lambda, const Chain& c) const {
  const int n_max = config_.max_batch_size;
  const int k_max = n_max + config_.max_queue_size;
  // p now holds p[K] unnormalised (0 if the tail was cut as negligible).
  const double p_full = (c.k > k_max) ? c.p / c.mass : 0.0;
  const double in_system = c.moment / c.mass;
  const double in_service = (c.moment_served + n_max * (c.mass - c.mass_served)) / c.mass;

  QueueMetrics m;
  m.rate_rps = lambda * 1000.0;
  const double throughput = lambda * (1 - p_full);
  m.throughput_rps = throughput * 1000.0;
  m.avg_resp_ms = in_system / throughput;
  const double service_ms = in_service / throughput;
  m.avg_wait_ms = std::max(0.0, m.avg_resp_ms - service_ms);
  m.avg_in_service = in_service;
  m.avg_prefill_ms = prefill_time_ms(in_service);
  m.itl_ms = (service_ms - m.avg_prefill_ms) / size_.output_tokens;
  m.ttft_ms = m.avg_wait_ms + m.avg_prefill_ms + m.itl_ms;
  m.rho = std::clamp(in_service / n_max, 0.0, 1.0);
  return m;
}

}  // namespace capstan
