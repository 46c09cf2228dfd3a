// The queueing model of one replica that llm-d WVA's QueueAnalyzer runs
// (../shared/reference/wva.md; closed-form intuition in seed 000 section 9): a
// birth-death chain over K = max batch + max queue states whose service rate in
// state n comes from the per-request work at batch n. Given (alpha, beta, gamma) and
// request sizes it predicts TTFT, ITL, throughput and utilisation at an arrival rate,
// and sizes the largest rate lambda* at which both stay within SLO targets.
//
// Rates at this API are requests per second; the chain works per millisecond.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "domain/core/result.hpp"
#include "domain/core/root_find.hpp"
#include "domain/core/types.hpp"
#include "domain/model/slo_targets.hpp"

namespace capstan {

struct RequestSize {
  double input_tokens = 0;   // average prompt length, >= 0
  double output_tokens = 1;  // average generated length, >= 1
};

struct QueueConfig {
  int max_batch_size = 256;
  int max_queue_size = 100;
};

struct QueueMetrics {
  double rate_rps = 0;
  double throughput_rps = 0;   // rate x (1 - P[full])
  double avg_resp_ms = 0;      // R = L / X
  double avg_wait_ms = 0;      // W = max(0, R - S)
  double avg_in_service = 0;   // Ls
  double avg_prefill_ms = 0;   // P(Ls)
  double itl_ms = 0;           // (S - P(Ls)) / o
  double ttft_ms = 0;          // W + P(Ls) + ITL: the analyzer's TTFT
  double rho = 0;              // clamp(Ls / N, 0, 1)

  // The tuner's observation function leaves out the first decode step.
  double ttft_without_decode_ms() const { return avg_wait_ms + avg_prefill_ms; }
};

struct Sizing {
  double lambda_star_rps = 0;  // min(lambda_ttft, lambda_itl)
  double lambda_ttft_rps = 0;  // largest rate meeting the TTFT target (max rate if none)
  double lambda_itl_rps = 0;   // largest rate meeting the ITL target (max rate if none)
  QueueMetrics at_lambda_star;
  int evaluations = 0;         // chain solves spent, for benchmarks
};

// A target below what the lowest rate in range gives (ErrorCode::kTargetUnreachable),
// as figures: its text is rendered only when it is read. `hybrid` sizes a variant
// several times a tick and drops most such errors unread (19,800 of 54,200 sizings of a
// 200k-event replay), and rendering three numbers into a sentence for each cost about
// as much as a chain solve.
struct UnreachableTarget {
  const char* metric = "";  // "TTFT" or "ITL"
  double target_ms = 0;
  double min_rate_rps = 0;  // the lowest rate in range
  double at_min_rate_ms = 0;  // what the model predicts there

  // "target TTFT 300 ms is below the bounded region: even at the lowest rate ..."
  Error error() const;
};

// What QueueAnalyzer::size returns: a Sizing, or why there is none. Reads as a
// Result<Sizing> does; error() renders the message of an unreachable target when asked.
class SizingResult {
 public:
  SizingResult(Sizing value) : v_(std::move(value)) {}                // NOLINT(google-explicit-constructor)
  SizingResult(Error error) : v_(std::move(error)) {}                 // NOLINT(google-explicit-constructor)
  SizingResult(UnreachableTarget unreachable) : v_(unreachable) {}    // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<Sizing>(v_); }
  explicit operator bool() const { return ok(); }

  const Sizing& value() const { return std::get<Sizing>(v_); }
  const Sizing& operator*() const { return value(); }
  const Sizing* operator->() const { return &value(); }

  // The error's code without its message.
  ErrorCode error_code() const;
  // The error, its message rendered now for an unreachable target.
  Error error() const;

 private:
  std::variant<Sizing, Error, UnreachableTarget> v_;
};

class QueueAnalyzer {
  // Only create() makes an analyzer (in place, in its Result).
  class Made {
    friend class QueueAnalyzer;
    explicit Made() = default;
  };

 public:
  // Validates every input and names the offending one in the error.
  static Result<QueueAnalyzer> create(const ServiceParams& params, const QueueConfig& config,
                                      const RequestSize& size);

  // Errors for rate <= 0 or rate above max_rate_rps().
  Result<QueueMetrics> analyze(double rate_rps) const;

  // Largest rate meeting both targets; a 0 target does not bind (the rate of a
  // metric without a target is the maximum rate). Errors with kTargetUnreachable when
  // a target is below what the lowest rate in range achieves (UnreachableTarget).
  SizingResult size(const SloTargets& targets) const;

  // Another search over this analyzer's rates, in req/s, made beside size()'s: `steps`
  // gives its points (Brent's, root_find.hpp), `read` what it reads of analyze() there.
  struct RateSearch {
    BrentSteps& steps;
    const std::function<double(const Result<QueueMetrics>&)>& read;
  };
  // size(targets), the same Sizing bit for bit, with `beside`'s evaluations made together
  // with the sizing's (two chains at a time): as far as the sizing goes, which is not
  // always to the end of `beside` (an error, or no search of its own). The caller
  // finishes `beside` (its next() is empty once it has ended).
  SizingResult size(const SloTargets& targets, const RateSearch& beside) const;

  // analyze() at two rates at once: each as analyze() gives it, bit for bit.
  std::pair<Result<QueueMetrics>, Result<QueueMetrics>> analyze_pair(double rate_a_rps, double rate_b_rps) const;

  double min_rate_rps() const { return lambda_min_ * 1000.0; }
  double max_rate_rps() const { return lambda_max_ * 1000.0; }

  // Per-request timing at a (possibly fractional) batch size, in ms.
  double iteration_time_ms(double batch) const;
  double prefill_time_ms(double batch) const;
  double decode_time_ms(double batch) const;

  QueueAnalyzer(Made, const ServiceParams& params, const QueueConfig& config, const RequestSize& size);

 private:

  // The chain at lambda (per ms), solved once per analyzer: a plan sizes the same
  // analyzer several times (the mean, the TTFT tail, a tighter ITL target), and each
  // sizing starts at lambda_min and lambda_max and often ends where another did. A
  // solve is a pure function of lambda, so a remembered one is the same bits.
  QueueMetrics solved(double lambda_per_ms) const;
  // Two chains, as solved() gives each: solved together when neither is remembered.
  std::pair<QueueMetrics, QueueMetrics> solved_pair(double lambda_a_per_ms, double lambda_b_per_ms) const;
  const QueueMetrics* remembered(double lambda_per_ms) const;
  void remember(double lambda_per_ms, const QueueMetrics& m) const;
  SizingResult size(const SloTargets& targets, const RateSearch* beside) const;
  // analyze()'s refusal of a rate, if it refuses it.
  std::optional<Error> refused(double rate_rps) const;
  // Solves the chain at lambda (per ms); always defined for lambda > 0.
  QueueMetrics solve(double lambda_per_ms) const;

  // A chain solved as far as state k: its running sums (solve()). serve() takes it
  // through the in-service states, queue() through the queued ones, each from where it
  // is; the _pair forms take two chains at once as far as both go together.
  struct Chain {
    double p = 1, mass = 1, moment = 0;   // unnormalised p[k - 1] and the sums up to it
    double mass_served = 1, moment_served = 0;  // the sums over the in-service states
    double k_real = 1;
    int k = 1;           // the next state
    bool ended = false;  // cut, or past the last state
  };
  void serve(double lambda_per_ms, Chain& c) const;
  void queue(double lambda_per_ms, Chain& c) const;
  void serve_pair(double lambda_a_per_ms, double lambda_b_per_ms, Chain& a, Chain& b) const;
  void queue_pair(double lambda_a_per_ms, double lambda_b_per_ms, Chain& a, Chain& b) const;
  QueueMetrics metrics(double lambda_per_ms, const Chain& c) const;

  struct Solved {
    std::uint64_t lambda_bits;  // lambda per ms, compared as bits (0.0 and -0.0 differ)
    QueueMetrics metrics;
  };

  // The per-request times' terms 1 / mu(n) is made of, copied out of the analyzer.
  struct Terms {
    double alpha, beta, per_batch, prefill_extra, decode_extra, output_tokens;
    bool prefills;
  };
  Terms terms() const;
  // 1 / mu(n) in ms for batch n: the table's entries and the chain's ends alike.
  static double inv_mu_of(const Terms& t, int n);
  // inv_mu() filled up to state `n` (1-based): a solve at light load stops long before
  // the largest batch, and most analyzers are made for one solve (the tuner's), so the
  // table is filled as solves reach its states, not all of it when the analyzer is made.
  const double* inv_mu_up_to(int n) const;

  ServiceParams params_;
  QueueConfig config_;
  RequestSize size_;
  double* inv_mu() const {
    return inv_mu_heap_.empty() ? inv_mu_inline_.data() : inv_mu_heap_.data();
  }
  // The per-request times' terms that do not depend on the batch, for
  // iteration_time_ms, prefill_time_ms and decode_time_ms: made once, not per state.
  double per_batch_ms_ = 0;      // the iteration time's slope in the batch
  double prefill_extra_ms_ = 0;  // a prefill's time beyond an iteration
  double decode_extra_ms_ = 0;   // a decode step's gamma term beyond an iteration and beta
  double lambda_min_ = 0;       // per ms
  double lambda_max_ = 0;       // per ms
  double inv_mu_last_ = 0;      // 1 / mu(N), the rate of every queued state
  // The chains solved so far (solved()), the first kMemo of them; a cache, not state: an
  // analyzer is made and used by one caller, never shared between threads. Held in the
  // analyzer, not on the heap: a heap block per analyzer raised the 10,000-variant
  // bench's peak RSS by about 30 MiB (daemon_bench 40 10000x1, three runs each).
  // A hybrid plan's analyzer answers the mean sizing, the TTFT tail's search and the
  // ITL spread's sizing: 32 slots were full before its last searches on 1 solve in 15
  // of a 200k-event replay (11,000 chains solved twice).
  static constexpr std::size_t kMemo = 48;
  // A slot is left unmade until a solve fills it: zeroing all of them when an analyzer was
  // made cost more than making it (most analyzers solve once).
  union Slot {
    Slot() {}  // NOLINT(modernize-use-equals-default): = default would zero the metrics
    Solved solved;
  };
  mutable std::array<Slot, kMemo> solved_;
  mutable std::size_t solved_count_ = 0;
  // 1 / mu(n) for n = 1..N, in ms (inv_mu()): here up to kInlineStates (the default max
  // batch), on the heap beyond. A 2 KiB heap block per analyzer was the largest
  // allocation of a hybrid tick, which makes about seven analyzers per model. Filled
  // for n <= inv_mu_filled_ (inv_mu_up_to), a cache of inv_mu_of like solved_.
  static constexpr std::size_t kInlineStates = 256;
  mutable std::array<double, kInlineStates> inv_mu_inline_;
  mutable std::vector<double> inv_mu_heap_;
  mutable int inv_mu_filled_ = 0;
};

}  // namespace capstan
