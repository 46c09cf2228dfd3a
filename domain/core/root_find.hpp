// Root finding for monotone functions on a bracket, used where a rate is sized to a
// target (lambda* for an SLO). Brent's method: the bracket guarantees convergence like
// bisection, inverse quadratic interpolation gets there in a handful of evaluations.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace capstan {

struct RootResult {
  double x = 0;
  double fx = 0;  // f(x) - target
  int evaluations = 0;
};

// Brent's method one evaluation at a time, for a caller that interleaves several
// searches (QueueAnalyzer::size solves two chains at once): next() gives the point to
// evaluate, or nothing once the search has ended; evaluated() takes f there. Driven to
// the end it is brent_root, step for step and bit for bit (brent_root is this loop).
class BrentSteps {
 public:
  BrentSteps(double lo, double hi, double f_lo, double f_hi, double target, double rel_tol, int max_iter = 100)
      : a_(lo), b_(hi), fa_(f_lo - target), fb_(f_hi - target), target_(target),
        tol_y_(rel_tol * std::fabs(target)), max_iter_(max_iter) {
    if (std::fabs(fa_) < std::fabs(fb_)) {
      std::swap(a_, b_);
      std::swap(fa_, fb_);
    }
    c_ = a_;
    fc_ = fa_;
    d_ = b_ - a_;
    e_ = d_;
  }

  std::optional<double> next() {
    if (ended_ || iter_ >= max_iter_ || std::fabs(fb_) <= tol_y_) {
      ended_ = true;
      return std::nullopt;
    }
    if ((fb_ > 0) == (fc_ > 0)) {  // keep the root between b and c
      c_ = a_;
      fc_ = fa_;
      d_ = e_ = b_ - a_;
    }
    if (std::fabs(fc_) < std::fabs(fb_)) {
      a_ = b_; b_ = c_; c_ = a_;
      fa_ = fb_; fb_ = fc_; fc_ = fa_;
    }
    const double tol_x = 4.0 * 2.2e-16 * std::fabs(b_);
    const double m = 0.5 * (c_ - b_);
    if (std::fabs(m) <= tol_x) {
      ended_ = true;
      return std::nullopt;
    }
    if (std::fabs(e_) >= tol_x && std::fabs(fa_) > std::fabs(fb_)) {
      double p, q;
      const double s = fb_ / fa_;
      if (a_ == c_) {  // secant
        p = 2.0 * m * s;
        q = 1.0 - s;
      } else {       // inverse quadratic interpolation
        const double qa = fa_ / fc_, rb = fb_ / fc_;
        p = s * (2.0 * m * qa * (qa - rb) - (b_ - a_) * (rb - 1.0));
        q = (qa - 1.0) * (rb - 1.0) * (s - 1.0);
      }
      if (p > 0) q = -q; else p = -p;
      if (2.0 * p < std::min(3.0 * m * q - std::fabs(tol_x * q), std::fabs(e_ * q))) {
        e_ = d_;
        d_ = p / q;
      } else {
        d_ = e_ = m;
      }
    } else {
      d_ = e_ = m;
    }
    a_ = b_;
    fa_ = fb_;
    b_ += (std::fabs(d_) > tol_x) ? d_ : (m > 0 ? tol_x : -tol_x);
    return b_;
  }

  // f at the point next() gave.
  void evaluated(double f) {
    fb_ = f - target_;
    ++evaluations_;
    ++iter_;
  }

  RootResult result() const { return {b_, fb_, evaluations_}; }

 private:
  double a_, b_, fa_, fb_, target_, tol_y_;
  double c_ = 0, fc_ = 0, d_ = 0, e_ = 0;
  int max_iter_;
  int iter_ = 0, evaluations_ = 0;
  bool ended_ = false;
};

// Finds x in [lo, hi] with |f(x) - target| <= rel_tol * |target|, given that
// f(lo) - target and f(hi) - target have opposite signs (f_lo, f_hi are f(lo), f(hi),
// already evaluated). Stops after max_iter evaluations with the best point so far.
template <class F>
RootResult brent_root(F&& f, double lo, double hi, double f_lo, double f_hi, double target,
                      double rel_tol, int max_iter = 100) {
  BrentSteps steps(lo, hi, f_lo, f_hi, target, rel_tol, max_iter);
  while (const std::optional<double> x = steps.next()) steps.evaluated(f(*x));
  return steps.result();
}

}  // namespace capstan
