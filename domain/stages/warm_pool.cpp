#include "domain/stages/warm_pool.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "domain/model/erlang.hpp"
#include "domain/core/format.hpp"

namespace capstan {
namespace {

std::optional<Error> validate(const WarmPoolInputs& in) {
  auto bad = [](const char* field, const std::string& rule, double v) {
    return invalid_argument(std::string(field) + " must be " + rule + ", got " + fmt_num(v));
  };
  if (!std::isfinite(in.arrival_rate_rps) || in.arrival_rate_rps < 0)
    return bad("arrival_rate_rps", "a finite number >= 0", in.arrival_rate_rps);
  if (!std::isfinite(in.service_rate_rps) || in.service_rate_rps <= 0)
    return bad("service_rate_rps", "a finite number > 0", in.service_rate_rps);
  if (!std::isfinite(in.sla_s) || in.sla_s < 0) return bad("sla_s", "a finite number >= 0", in.sla_s);
  if (!std::isfinite(in.cost_per_gpu_hour) || in.cost_per_gpu_hour < 0)
    return bad("cost_per_gpu_hour", "a finite number >= 0", in.cost_per_gpu_hour);
  if (!std::isfinite(in.sla_penalty_per_hour) || in.sla_penalty_per_hour < 0)
    return bad("sla_penalty_per_hour", "a finite number >= 0", in.sla_penalty_per_hour);
  if (in.gpus_per_replica < 1) return bad("gpus_per_replica", ">= 1", in.gpus_per_replica);
  if (in.min_replicas < 0) return bad("min_replicas", ">= 0", in.min_replicas);
  if (in.max_replicas < std::max(1, in.min_replicas))
    return bad("max_replicas", ">= max(1, min_replicas)", in.max_replicas);
  return std::nullopt;
}

struct Point {
  double gpu = 0, penalty = 0, p = 1;
  double total() const { return gpu + penalty; }
};

Point evaluate(const WarmPoolInputs& in, int k, double p_violation) {
  Point pt;
  pt.p = p_violation;
  pt.gpu = in.cost_per_gpu_hour * in.gpus_per_replica * k;
  pt.penalty = in.sla_penalty_per_hour * p_violation;
  return pt;
}

// P(wait > sla) at k, with B(k) carried by the caller across an upward scan.
double p_violation_at(const WarmPoolInputs& in, int k, double b_k) {
  const double a = in.arrival_rate_rps / in.service_rate_rps;
  const MmcQueue q{in.arrival_rate_rps, in.service_rate_rps, k};
  return erlang_tail(q, erlang_c_from_b(a, k, b_k), in.sla_s);
}

std::string describe(const WarmPoolInputs& in, int k, const Point& pt) {
  return std::to_string(k) + " replicas cost " + fmt_num(pt.total()) + "/h (GPU " +
         fmt_num(pt.gpu) + "/h + SLA penalty " + fmt_num(pt.penalty) + "/h at P(wait > " +
         fmt_num(in.sla_s) + " s) = " + fmt_num(pt.p) + ")";
}

}  // namespace

Result<double> warm_pool_cost_per_hour(const WarmPoolInputs& in, int replicas) {
  if (auto err = validate(in)) return *err;
  if (replicas < 1) return invalid_argument("replicas must be >= 1, got " + std::to_string(replicas));
  const double a = in.arrival_rate_rps / in.service_rate_rps;
  return evaluate(in, replicas, p_violation_at(in, replicas, erlang_b(a, replicas))).total();
}

Result<WarmPoolChoice> optimize_warm_pool(const WarmPoolInputs& in) {
  if (auto err = validate(in)) return *err;
  const double a = in.arrival_rate_rps / in.service_rate_rps;
  WarmPoolChoice out;
  out.stable_min_replicas = stable_min_servers(a);
  const int start = std::max({out.stable_min_replicas, in.min_replicas, 1});

  if (start > in.max_replicas) {
    const int k = in.max_replicas;
    const Point pt = evaluate(in, k, p_violation_at(in, k, erlang_b(a, k)));
    out.replicas = k;
    out.cost_per_hour = pt.total();
    out.gpu_cost_per_hour = pt.gpu;
    out.penalty_per_hour = pt.penalty;
    out.p_violation = pt.p;
    out.capped = true;
    out.reason = "held at max_replicas " + std::to_string(k) + ", below the stable minimum " +
                 std::to_string(start) + ": " + describe(in, k, pt);
    return out;
  }

  double b = erlang_b(a, start);
  Point best;
  int best_k = start;
  double best_total = std::numeric_limits<double>::infinity();
  std::optional<std::pair<int, Point>> upturn;
  for (int k = start; k <= in.max_replicas; ++k) {
    if (k > start) b = erlang_b_next(a, k, b);
    const Point pt = evaluate(in, k, p_violation_at(in, k, b));
    if (pt.total() < best_total) {
      best_total = pt.total();
      best = pt;
      best_k = k;
    } else if (pt.total() > best_total) {
      upturn = {k, pt};  // past the bottom of the valley
      break;
    }
  }

  out.replicas = best_k;
  out.cost_per_hour = best.total();
  out.gpu_cost_per_hour = best.gpu;
  out.penalty_per_hour = best.penalty;
  out.p_violation = best.p;
  out.capped = !upturn.has_value();
  out.reason = describe(in, best_k, best);
  if (upturn) {
    out.reason = "keep " + out.reason + ", the valley of J: " +
                 std::to_string(upturn->first) + " would cost " +
                 fmt_num(upturn->second.total()) + "/h";
  } else {
    out.reason = "keep " + out.reason + ", max_replicas " + std::to_string(in.max_replicas) +
                 " reached before J turned up";
  }
  out.reason += "; stable minimum " + std::to_string(out.stable_min_replicas);
  return out;
}

}  // namespace capstan
