// Root finding for monotone functions on a bracket, used where a rate is sized to a
// target (lambda* for an SLO). Brent's method: the bracket guarantees convergence like
// bisection, inverse quadratic interpolation gets there in a handful of evaluations.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>

namespace capstan {

struct RootResult {
  double x = 0;
  double fx = 0;  // f(x) - target
  int evaluations = 0;
};

// Finds x in [lo, hi] with |f(x) - target| <= rel_tol * |target|, given that
// f(lo) - target and f(hi) - target have opposite signs (f_lo, f_hi are f(lo), f(hi),
// already evaluated). Stops after max_iter evaluations with the best point so far.
template <class F>
RootResult brent_root(F&& f, double lo, double hi, double f_lo, double f_hi, double target,
                      double rel_tol, int max_iter = 100) {
  double a = lo, b = hi, fa = f_lo - target, fb = f_hi - target;
  const double tol_y = rel_tol * std::fabs(target);
  if (std::fabs(fa) < std::fabs(fb)) {
    std::swap(a, b);
    std::swap(fa, fb);
  }
  double c = a, fc = fa, d = b - a, e = d;
  RootResult r{b, fb, 0};
  for (int i = 0; i < max_iter; ++i) {
    if (std::fabs(fb) <= tol_y) break;
    if ((fb > 0) == (fc > 0)) {  // keep the root between b and c
      c = a;
      fc = fa;
      d = e = b - a;
    }
    if (std::fabs(fc) < std::fabs(fb)) {
      a = b; b = c; c = a;
      fa = fb; fb = fc; fc = fa;
    }
    const double tol_x = 4.0 * 2.2e-16 * std::fabs(b);
    const double m = 0.5 * (c - b);
    if (std::fabs(m) <= tol_x) break;
    if (std::fabs(e) >= tol_x && std::fabs(fa) > std::fabs(fb)) {
      double p, q;
      const double s = fb / fa;
      if (a == c) {  // secant
        p = 2.0 * m * s;
        q = 1.0 - s;
      } else {       // inverse quadratic interpolation
        const double qa = fa / fc, rb = fb / fc;
        p = s * (2.0 * m * qa * (qa - rb) - (b - a) * (rb - 1.0));
        q = (qa - 1.0) * (rb - 1.0) * (s - 1.0);
      }
      if (p > 0) q = -q; else p = -p;
      if (2.0 * p < std::min(3.0 * m * q - std::fabs(tol_x * q), std::fabs(e * q))) {
        e = d;
        d = p / q;
      } else {
        d = e = m;
      }
    } else {
      d = e = m;
    }
    a = b;
    fa = fb;
    b += (std::fabs(d) > tol_x) ? d : (m > 0 ? tol_x : -tol_x);
    fb = f(b) - target;
    ++r.evaluations;
  }
  r.x = b;
  r.fx = fb;
  return r;
}

}  // namespace capstan
