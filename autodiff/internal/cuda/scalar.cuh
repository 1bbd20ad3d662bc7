// scalar.cuh: temper's elementwise functions on the device, by id.
//
// Every autodiff.ScalarFunc and autodiff.UnaryFunc that the generic
// elementwise kernel runs is one case of sf_value (f(x)) and sf_grad
// (dx[i] = ∂f/∂x_i given y = f(x)). The Go functions are the reference: each
// case repeats its Go function's branches, support checks and order of
// operations, so that on the host (where scalar_host_test.go compiles this
// file as C++) the results agree with the CPU to a few units in the last
// place. ScalarFuncs in scalar_ids.go maps the Go names to the ids below.
//
// Covered: autodiff/math.go, autodiff/logic.go, "broadcast", the five
// constraint transforms of stdlib/constraints.go, and every scalar density
// of stdlib's table. None is left out: von_mises needs only the series of
// stdlib/bessel.go. Besides exp, log, log1p, expm1, sqrt, fabs, sin, cos,
// tanh, lgamma, pow, floor and trunc, the table calls tan (digamma's
// reflection, as Go does) and erfc (skew_normal), which CUDA and <cmath>
// both have.
//
// Everything is double: the Go side passes float64 arguments for float32
// programs too. Under nvcc the math functions are built in; nvcc contracts
// a*b+c into fma by default (--fmad=true), which changes last bits against
// the CPU.

#ifndef TEMPER_SCALAR_CUH
#define TEMPER_SCALAR_CUH

// TEMPER_DEVICE is __device__ __forceinline__ under nvcc, inline on the host.
#ifndef TEMPER_DEVICE
#ifdef __CUDACC__
#define TEMPER_DEVICE __device__ __forceinline__
#else
#define TEMPER_DEVICE inline
#endif
#endif

#ifndef __CUDACC__
#include <cmath>
using std::isinf;
using std::isnan;
#endif

#ifndef INFINITY
#define INFINITY __builtin_huge_val()
#endif
#ifndef NAN
#define NAN __builtin_nan("")
#endif

// Function ids, dense from 0; scalar_ids.go holds the same table by name.
#define SF_ADD 0
#define SF_SUB 1
#define SF_MUL 2
#define SF_DIV 3
#define SF_POW 4
#define SF_NEG 5
#define SF_EXP 6
#define SF_LOG 7
#define SF_LOG1P 8
#define SF_EXPM1 9
#define SF_SQRT 10
#define SF_SQUARE 11
#define SF_ABS 12
#define SF_SIN 13
#define SF_COS 14
#define SF_TANH 15
#define SF_SIGMOID 16
#define SF_SOFTPLUS 17
#define SF_LOG_SIGMOID 18
#define SF_RELU 19
#define SF_LGAMMA 20
#define SF_DIGAMMA 21
#define SF_LESS 22
#define SF_LESS_EQUAL 23
#define SF_GREATER 24
#define SF_GREATER_EQUAL 25
#define SF_EQUAL 26
#define SF_NOT_EQUAL 27
#define SF_AND 28
#define SF_OR 29
#define SF_NOT 30
#define SF_IF_ELSE 31
#define SF_BROADCAST 32
#define SF_LOWER_BOUND 33
#define SF_UPPER_BOUND 34
#define SF_BOUND_LOG_JACOBIAN 35
#define SF_INTERVAL 36
#define SF_INTERVAL_LOG_JACOBIAN 37
#define SF_NORMAL 38
#define SF_STUDENT_T 39
#define SF_CAUCHY 40
#define SF_DOUBLE_EXPONENTIAL 41
#define SF_LOGISTIC 42
#define SF_EXPONENTIAL 43
#define SF_GAMMA 44
#define SF_INV_GAMMA 45
#define SF_BETA 46
#define SF_LOGNORMAL 47
#define SF_UNIFORM 48
#define SF_HALF_NORMAL 49
#define SF_HALF_CAUCHY 50
#define SF_BERNOULLI 51
#define SF_BERNOULLI_LOGIT 52
#define SF_BINOMIAL 53
#define SF_BINOMIAL_LOGIT 54
#define SF_POISSON 55
#define SF_POISSON_LOG 56
#define SF_WEIBULL 57
#define SF_NEG_BINOMIAL_2 58
#define SF_NEG_BINOMIAL_2_LOG 59
#define SF_BETA_BINOMIAL 60
#define SF_SKEW_NORMAL 61
#define SF_VON_MISES 62
#define SF_COUNT 63

// Constants as Go rounds them: Go folds constant expressions exactly and
// rounds once (log 2 - log √(2π) is not fl(log 2) - fl(log √(2π))), so each
// is the %.17g of the Go constant.
#define SF_PI 3.1415926535897931
#define SF_PI2 9.869604401089358         // math.Pi * math.Pi
#define SF_SQRT2 1.4142135623730951      // math.Sqrt2
#define SF_LN2 0.69314718055994529       // math.Ln2
#define SF_LN_SQRT_2PI 0.91893853320467278 // lnSqrt2Pi
#define SF_LN_PI 1.1447298858494002        // lnPi
#define SF_LN_2PI 1.8378770664093456       // lnTwoPi
#define SF_LN_HALF_NORM -0.22579135264472744 // lnHalfNorm
#define SF_LN_HALF_CAU -0.45158270528945488  // lnHalfCau

// ---- Special functions: autodiff.Sigmoid64, Softplus64, Digamma64,
// Trigamma64 (gonum's Hurwitz zeta at s = 2), and stdlib's helpers.

TEMPER_DEVICE double sf_sigmoid(double x) {
  if (x >= 0) {
    return 1 / (1 + exp(-x));
  }
  double e = exp(x);
  return e / (1 + e);
}

TEMPER_DEVICE double sf_softplus(double x) {
  if (x > 0) {
    return x + log1p(exp(-x));
  }
  return log1p(exp(x));
}

// sf_digamma is autodiff.Digamma64: recurrence to x ≥ 12, then the
// asymptotic series; below zero the reflection, taken first (Go recurses
// once on 1-x, which is then above 1).
TEMPER_DEVICE double sf_digamma(double x) {
  if (isnan(x) || (isinf(x) && x > 0)) {
    return x;
  }
  if (x <= 0 && x == floor(x)) {
    return NAN;  // a pole of Γ
  }
  double refl = 0;
  bool reflected = false;
  if (x < 0) {
    refl = SF_PI / tan(SF_PI * x);
    x = 1 - x;
    reflected = true;
  }
  double shift = 0.0;
  while (x < 12) {
    shift -= 1 / x;
    x++;
  }
  double x2 = 1 / (x * x);
  double series =
      x2 * (0.083333333333333329 -
            x2 * (0.0083333333333333332 -
                  x2 * (0.003968253968253968 -
                        x2 * (0.0041666666666666666 - x2 * (0.007575757575757576)))));
  double psi = shift + log(x) - 0.5 / x - series;
  return reflected ? psi - refl : psi;
}

// sf_zeta2 is gonum's mathext.Zeta(2, q) (cephes zeta.c) for q > 0, the
// Hurwitz zeta Σ_k (k+q)^-2: the direct sum to a > 9, then Euler-Maclaurin.
// Go's math.Pow(a, -2) is 1/(a*a), rounded the same way.
TEMPER_DEVICE double sf_zeta2(double q) {
  const double machEp = 1.1102230246251565e-16;  // 2^-53
  if (q > 1e8) {
    return (1 / (2.0 - 1) + 1 / (2 * q)) * (1 / q);
  }
  double s = 1 / (q * q);
  double a = q;
  int i = 0;
  double b = 0.0;
  while (i < 9 || a <= 9) {
    i++;
    a += 1.0;
    b = 1 / (a * a);
    s += b;
    if (fabs(b / s) < machEp) {
      return s;
    }
  }
  double w = a;
  s += b * w / (2.0 - 1);
  s -= 0.5 * b;
  a = 1.0;
  double k = 0.0;
  // (2k)!/B_2k, as gonum rounds them.
  const double coefs[12] = {
      12, -720, 30240, -1209600, 47900160, -1892437580.3183792,
      74724249600, -2950130727918.1641, 116467828143500.67, -4597978722407473,
      1.8152105401943546e+17, -7.1661652561756672e+18,
  };
  for (int j = 0; j < 12; j++) {
    a *= 2.0 + k;
    b /= w;
    double t = a * b / coefs[j];
    s = s + t;
    t = fabs(t / s);
    if (t < machEp) {
      return s;
    }
    k += 1.0;
    a *= 2.0 + k;
    b /= w;
    k += 1.0;
  }
  return s;
}

// sf_trigamma is autodiff.Trigamma64: ζ(2, x) above zero, the reflection
// below.
TEMPER_DEVICE double sf_trigamma(double x) {
  if (x > 0) {
    return sf_zeta2(x);
  }
  if (x == floor(x)) {
    return INFINITY;  // a pole of Γ
  }
  double s = sin(SF_PI * x);
  return SF_PI2 / (s * s) - sf_zeta2(1 - x);
}

// sf_lgamma is autodiff.Lgamma64, Go's math.Lgamma, whose special cases
// differ from C's at -Inf: Go gives -Inf, C +Inf.
TEMPER_DEVICE double sf_lgamma(double x) {
  if (isinf(x) && x < 0) {
    return x;
  }
  return lgamma(x);
}

// log(1 + z²), 2 log|z| beyond |z| = 1e8 (stdlib's log1pSq).
TEMPER_DEVICE double sf_log1p_sq(double z) {
  double a = fabs(z);
  if (a > 1e8) {
    return 2 * log(a);
  }
  return log1p(z * z);
}

// r = z/(1+z²), f = z²/(1+z²) in forms safe at any z (stdlib's cauchyRatios).
TEMPER_DEVICE void sf_cauchy_ratios(double z, double* r, double* f) {
  *r = 1 / (z + 1 / z);
  *f = 1 / (1 + 1 / (z * z));
}

// log C(n, k) (stdlib's lchoose).
TEMPER_DEVICE double sf_lchoose(double n, double k) {
  return sf_lgamma(n + 1) - sf_lgamma(k + 1) - sf_lgamma(n - k + 1);
}

TEMPER_DEVICE double sf_lbeta(double a, double b) {
  return sf_lgamma(a) + sf_lgamma(b) - sf_lgamma(a + b);
}

// log Γ(k+φ) - log k! - log Γ(φ) and ψ(k+φ) - ψ(φ) + log φ + 1 (stdlib's
// negBinomialTerms, negBinomialPhi).
TEMPER_DEVICE double sf_neg_binomial_terms(double k, double phi) {
  return sf_lgamma(k + phi) - sf_lgamma(k + 1) - sf_lgamma(phi);
}

TEMPER_DEVICE double sf_neg_binomial_phi(double k, double phi) {
  return sf_digamma(k + phi) - sf_digamma(phi) + log(phi) + 1;
}

TEMPER_DEVICE double sf_log_add_exp(double a, double b) {
  if (a < b) {
    double t = a;
    a = b;
    b = t;
  }
  return a + log1p(exp(b - a));
}

// log Φ(x) and φ(x)/Φ(x) (stdlib's logNormalCDF, millsRatio).
TEMPER_DEVICE double sf_log_normal_cdf(double x) {
  if (x > -20) {
    return log(0.5 * erfc(-x / SF_SQRT2));
  }
  double x2 = x * x;
  return -x2 / 2 - log(-x) - SF_LN_SQRT_2PI +
         log1p(-1 / x2 + 3 / (x2 * x2) - 15 / (x2 * x2 * x2));
}

TEMPER_DEVICE double sf_mills_ratio(double x) {
  return exp(-x * x / 2 - SF_LN_SQRT_2PI - sf_log_normal_cdf(x));
}

// log I₀(κ) - κ and I₁(κ)/I₀(κ) for κ > 0 (stdlib's logBesselI0): the power
// series below 25, the scaled asymptotic expansion above.
TEMPER_DEVICE void sf_log_bessel_i0(double kappa, double* logI0Scaled, double* ratio) {
  if (kappa < 25) {
    double q = kappa * kappa / 4;
    double s0 = 0.0, s1 = 1.0;
    double t0 = 1.0, t1 = 1.0;
    for (double m = 1.0;; m++) {
      t0 *= q / (m * m);
      t1 *= q / (m * (m + 1));
      s0 += t0;
      s1 += t1;
      if (t0 <= 1e-17 * s0 && t1 <= 1e-17 * s1) {
        break;
      }
    }
    *logI0Scaled = log1p(s0) - kappa;
    *ratio = kappa / 2 * s1 / (1 + s0);
    return;
  }
  double s0 = 1.0, s1 = 1.0;
  double t0 = 1.0, t1 = 1.0;
  for (double j = 1.0; fabs(t0) > 1e-17 * s0 || fabs(t1) > 1e-17 * s1; j++) {
    t0 *= (2 * j - 1) * (2 * j - 1) / (8 * j * kappa);
    t1 *= ((2 * j - 1) * (2 * j - 1) - 4) / (8 * j * kappa);
    s0 += t0;
    s1 += t1;
  }
  *logI0Scaled = log(s0) - 0.5 * log(2 * SF_PI * kappa);
  *ratio = s1 / s0;
}

// ---- The scalar densities of stdlib (densities.go, densities_more.go).
// Each has ok (finite arguments in the support), lp (the log density where
// ok holds) and grad (the partials of the real arguments where the density
// is finite; dx is zeroed before). sf_density_value and sf_density_grad wrap
// them as stdlib's density.value and density.partials do.

// Bit i set: argument i is an integer (count, label): non-integers are
// outside the support and it gets no partial.
TEMPER_DEVICE unsigned sf_density_ints(int f) {
  switch (f) {
    case SF_BERNOULLI:
    case SF_BERNOULLI_LOGIT:
    case SF_POISSON:
    case SF_POISSON_LOG:
    case SF_NEG_BINOMIAL_2:
    case SF_NEG_BINOMIAL_2_LOG:
      return 1u;
    case SF_BINOMIAL:
    case SF_BINOMIAL_LOGIT:
    case SF_BETA_BINOMIAL:
      return 3u;
  }
  return 0u;
}

// sf_arity is the number of arguments of function f, 0 for an unknown id.
TEMPER_DEVICE int sf_arity(int f) {
  switch (f) {
    case SF_NEG: case SF_EXP: case SF_LOG: case SF_LOG1P: case SF_EXPM1:
    case SF_SQRT: case SF_SQUARE: case SF_ABS: case SF_SIN: case SF_COS:
    case SF_TANH: case SF_SIGMOID: case SF_SOFTPLUS: case SF_LOG_SIGMOID:
    case SF_RELU: case SF_LGAMMA: case SF_DIGAMMA: case SF_NOT:
    case SF_BROADCAST:
      return 1;
    case SF_ADD: case SF_SUB: case SF_MUL: case SF_DIV: case SF_POW:
    case SF_LESS: case SF_LESS_EQUAL: case SF_GREATER: case SF_GREATER_EQUAL:
    case SF_EQUAL: case SF_NOT_EQUAL: case SF_AND: case SF_OR:
    case SF_LOWER_BOUND: case SF_UPPER_BOUND: case SF_BOUND_LOG_JACOBIAN:
    case SF_EXPONENTIAL: case SF_HALF_NORMAL: case SF_HALF_CAUCHY:
    case SF_BERNOULLI: case SF_BERNOULLI_LOGIT: case SF_POISSON:
    case SF_POISSON_LOG:
      return 2;
    case SF_IF_ELSE: case SF_INTERVAL: case SF_INTERVAL_LOG_JACOBIAN:
    case SF_NORMAL: case SF_CAUCHY: case SF_DOUBLE_EXPONENTIAL:
    case SF_LOGISTIC: case SF_GAMMA: case SF_INV_GAMMA: case SF_BETA:
    case SF_LOGNORMAL: case SF_UNIFORM: case SF_BINOMIAL:
    case SF_BINOMIAL_LOGIT: case SF_WEIBULL: case SF_NEG_BINOMIAL_2:
    case SF_NEG_BINOMIAL_2_LOG: case SF_VON_MISES:
      return 3;
    case SF_STUDENT_T: case SF_BETA_BINOMIAL: case SF_SKEW_NORMAL:
      return 4;
  }
  return 0;
}

TEMPER_DEVICE bool sf_density_ok(int f, const double* x) {
  switch (f) {
    case SF_NORMAL:
    case SF_CAUCHY:
    case SF_DOUBLE_EXPONENTIAL:
    case SF_LOGISTIC:
    case SF_VON_MISES:
    case SF_SKEW_NORMAL:
      return x[2] > 0;
    case SF_STUDENT_T:
      return x[1] > 0 && x[3] > 0;
    case SF_EXPONENTIAL:
    case SF_HALF_NORMAL:
    case SF_HALF_CAUCHY:
      return x[0] >= 0 && x[1] > 0;
    case SF_GAMMA:
    case SF_INV_GAMMA:
    case SF_WEIBULL:
      return x[0] > 0 && x[1] > 0 && x[2] > 0;
    case SF_BETA:
      return x[0] > 0 && x[0] < 1 && x[1] > 0 && x[2] > 0;
    case SF_LOGNORMAL:
      return x[0] > 0 && x[2] > 0;
    case SF_UNIFORM:
      return x[1] < x[2] && x[1] <= x[0] && x[0] <= x[2];
    case SF_BERNOULLI:
      return (x[0] == 0 || x[0] == 1) && x[1] >= 0 && x[1] <= 1;
    case SF_BERNOULLI_LOGIT:
      return x[0] == 0 || x[0] == 1;
    case SF_BINOMIAL:
      return 0 <= x[0] && x[0] <= x[1] && 0 <= x[2] && x[2] <= 1;
    case SF_BINOMIAL_LOGIT:
      return 0 <= x[0] && x[0] <= x[1];
    case SF_POISSON:
      return x[0] >= 0 && x[1] >= 0;
    case SF_POISSON_LOG:
      return x[0] >= 0;
    case SF_NEG_BINOMIAL_2:
      return x[0] >= 0 && x[1] > 0 && x[2] > 0;
    case SF_NEG_BINOMIAL_2_LOG:
      return x[0] >= 0 && x[2] > 0;
    case SF_BETA_BINOMIAL:
      return 0 <= x[0] && x[0] <= x[1] && x[2] > 0 && x[3] > 0;
  }
  return false;
}

TEMPER_DEVICE double sf_density_lp(int f, const double* x) {
  switch (f) {
    case SF_NORMAL: {
      double z = (x[0] - x[1]) / x[2];
      return -0.5 * z * z - log(x[2]) - SF_LN_SQRT_2PI;
    }
    case SF_STUDENT_T: {
      double nu = x[1], sigma = x[3];
      double a = (x[0] - x[2]) / (sigma * sqrt(nu));
      return sf_lgamma((nu + 1) / 2) - sf_lgamma(nu / 2) - 0.5 * (log(nu) + SF_LN_PI) -
             log(sigma) - (nu + 1) / 2 * sf_log1p_sq(a);
    }
    case SF_CAUCHY:
      return -SF_LN_PI - log(x[2]) - sf_log1p_sq((x[0] - x[1]) / x[2]);
    case SF_DOUBLE_EXPONENTIAL:
      return -SF_LN2 - log(x[2]) - fabs(x[0] - x[1]) / x[2];
    case SF_LOGISTIC: {
      // In |z|, so that e^-|z| cannot overflow.
      double z = fabs(x[0] - x[1]) / x[2];
      return -log(x[2]) - z - 2 * log1p(exp(-z));
    }
    case SF_EXPONENTIAL:
      return log(x[1]) - x[1] * x[0];
    case SF_GAMMA: {
      double y = x[0], a = x[1], b = x[2];
      return a * log(b) - sf_lgamma(a) + (a - 1) * log(y) - b * y;
    }
    case SF_INV_GAMMA: {
      double y = x[0], a = x[1], b = x[2];
      return a * log(b) - sf_lgamma(a) - (a + 1) * log(y) - b / y;
    }
    case SF_BETA: {
      double t = x[0], a = x[1], b = x[2];
      return sf_lgamma(a + b) - sf_lgamma(a) - sf_lgamma(b) + (a - 1) * log(t) +
             (b - 1) * log1p(-t);
    }
    case SF_LOGNORMAL: {
      double ly = log(x[0]);
      double z = (ly - x[1]) / x[2];
      return -0.5 * z * z - log(x[2]) - ly - SF_LN_SQRT_2PI;
    }
    case SF_UNIFORM:
      return -log(x[2] - x[1]);
    case SF_HALF_NORMAL: {
      double z = x[0] / x[1];
      return -0.5 * z * z - log(x[1]) + SF_LN_HALF_NORM;
    }
    case SF_HALF_CAUCHY:
      return SF_LN_HALF_CAU - log(x[1]) - sf_log1p_sq(x[0] / x[1]);
    case SF_BERNOULLI:
      if (x[0] == 1) {
        return log(x[1]);
      }
      return log1p(-x[1]);
    case SF_BERNOULLI_LOGIT:
      if (x[0] == 1) {
        return -sf_softplus(-x[1]);
      }
      return -sf_softplus(x[1]);
    case SF_BINOMIAL: {
      // A term with a zero count is left out, so θ = 0 or 1 is fine there.
      double k = x[0], n = x[1], t = x[2];
      double lp = sf_lchoose(n, k);
      if (k > 0) {
        lp += k * log(t);
      }
      if (n > k) {
        lp += (n - k) * log1p(-t);
      }
      return lp;
    }
    case SF_BINOMIAL_LOGIT: {
      double k = x[0], n = x[1], a = x[2];
      return sf_lchoose(n, k) - k * sf_softplus(-a) - (n - k) * sf_softplus(a);
    }
    case SF_POISSON: {
      double k = x[0], l = x[1];
      if (k == 0) {
        return -l;  // k log λ is 0 for k = 0, λ = 0
      }
      return k * log(l) - l - sf_lgamma(k + 1);
    }
    case SF_POISSON_LOG:
      return x[0] * x[1] - exp(x[1]) - sf_lgamma(x[0] + 1);
    case SF_WEIBULL: {
      double a = x[1], s = x[2];
      double lz = log(x[0] / s);
      return log(a) - log(s) + (a - 1) * lz - exp(a * lz);
    }
    case SF_NEG_BINOMIAL_2: {
      double k = x[0], m = x[1], p = x[2];
      return sf_neg_binomial_terms(k, p) + k * (log(m) - log(m + p)) +
             p * (log(p) - log(m + p));
    }
    case SF_NEG_BINOMIAL_2_LOG: {
      double k = x[0], eta = x[1], p = x[2];
      double lmp = sf_log_add_exp(eta, log(p));  // log(μ + φ)
      return sf_neg_binomial_terms(k, p) + k * (eta - lmp) + p * (log(p) - lmp);
    }
    case SF_BETA_BINOMIAL: {
      double k = x[0], n = x[1], a = x[2], b = x[3];
      return sf_lchoose(n, k) + sf_lbeta(k + a, n - k + b) - sf_lbeta(a, b);
    }
    case SF_SKEW_NORMAL: {
      double z = (x[0] - x[1]) / x[2];
      return SF_LN2 - log(x[2]) - SF_LN_SQRT_2PI - z * z / 2 +
             sf_log_normal_cdf(x[3] * z);
    }
    case SF_VON_MISES: {
      // κ(cos d - 1) as -2κ sin²(d/2), I₀ scaled by e^-κ: no cancellation.
      double logI0e, ratio;
      sf_log_bessel_i0(x[2], &logI0e, &ratio);
      double h = sin((x[0] - x[1]) / 2);
      return -2 * x[2] * h * h - SF_LN_2PI - logI0e;
    }
  }
  return NAN;
}

TEMPER_DEVICE void sf_density_partials(int f, double* dx, const double* x) {
  switch (f) {
    case SF_NORMAL: {
      double z = (x[0] - x[1]) / x[2];
      dx[0] = -z / x[2];
      dx[1] = z / x[2];
      dx[2] = (z * z - 1) / x[2];
      return;
    }
    case SF_STUDENT_T: {
      double nu = x[1], sigma = x[3];
      double sn = sqrt(nu);
      double a = (x[0] - x[2]) / (sigma * sn);
      double r, f2;
      sf_cauchy_ratios(a, &r, &f2);
      double dz = -(nu + 1) / sn * r;  // ∂/∂z with z = (y-μ)/σ
      dx[0] = dz / sigma;
      dx[2] = -dz / sigma;
      dx[3] = ((nu + 1) * f2 - 1) / sigma;
      dx[1] = 0.5 * (sf_digamma((nu + 1) / 2) - sf_digamma(nu / 2) - 1 / nu -
                     sf_log1p_sq(a) + (nu + 1) * f2 / nu);
      return;
    }
    case SF_CAUCHY: {
      double r, f2;
      sf_cauchy_ratios((x[0] - x[1]) / x[2], &r, &f2);
      dx[0] = -2 * r / x[2];
      dx[1] = 2 * r / x[2];
      dx[2] = (2 * f2 - 1) / x[2];
      return;
    }
    case SF_DOUBLE_EXPONENTIAL: {
      // The derivative of |·| at 0 is taken as 0.
      double d = x[0] - x[1], s = 0.0;
      if (d > 0) {
        s = 1;
      } else if (d < 0) {
        s = -1;
      }
      dx[0] = -s / x[2];
      dx[1] = s / x[2];
      dx[2] = (fabs(d) / x[2] - 1) / x[2];
      return;
    }
    case SF_LOGISTIC: {
      double z = (x[0] - x[1]) / x[2];
      double t = tanh(z / 2);
      dx[0] = -t / x[2];
      dx[1] = t / x[2];
      dx[2] = (z * t - 1) / x[2];
      return;
    }
    case SF_EXPONENTIAL:
      dx[0] = -x[1];
      dx[1] = 1 / x[1] - x[0];
      return;
    case SF_GAMMA: {
      double y = x[0], a = x[1], b = x[2];
      dx[0] = (a - 1) / y - b;
      dx[1] = log(b) - sf_digamma(a) + log(y);
      dx[2] = a / b - y;
      return;
    }
    case SF_INV_GAMMA: {
      double y = x[0], a = x[1], b = x[2];
      dx[0] = (b / y - (a + 1)) / y;
      dx[1] = log(b) - sf_digamma(a) - log(y);
      dx[2] = a / b - 1 / y;
      return;
    }
    case SF_BETA: {
      double t = x[0], a = x[1], b = x[2];
      double psiAB = sf_digamma(a + b);
      dx[0] = (a - 1) / t - (b - 1) / (1 - t);
      dx[1] = log(t) + psiAB - sf_digamma(a);
      dx[2] = log1p(-t) + psiAB - sf_digamma(b);
      return;
    }
    case SF_LOGNORMAL: {
      double z = (log(x[0]) - x[1]) / x[2];
      dx[0] = -(1 + z / x[2]) / x[0];
      dx[1] = z / x[2];
      dx[2] = (z * z - 1) / x[2];
      return;
    }
    case SF_UNIFORM: {
      double w = x[2] - x[1];
      dx[1] = 1 / w;
      dx[2] = -1 / w;
      return;
    }
    case SF_HALF_NORMAL: {
      double z = x[0] / x[1];
      dx[0] = -z / x[1];
      dx[1] = (z * z - 1) / x[1];
      return;
    }
    case SF_HALF_CAUCHY: {
      double r, f2;
      sf_cauchy_ratios(x[0] / x[1], &r, &f2);
      dx[0] = -2 * r / x[1];
      dx[1] = (2 * f2 - 1) / x[1];
      return;
    }
    case SF_BERNOULLI:
      if (x[0] == 1) {
        dx[1] = 1 / x[1];
      } else {
        dx[1] = -1 / (1 - x[1]);
      }
      return;
    case SF_BERNOULLI_LOGIT:
      if (x[0] == 1) {
        dx[1] = sf_sigmoid(-x[1]);
      } else {
        dx[1] = -sf_sigmoid(x[1]);
      }
      return;
    case SF_BINOMIAL: {
      double k = x[0], n = x[1], t = x[2];
      if (k > 0) {
        dx[2] += k / t;
      }
      if (n > k) {
        dx[2] -= (n - k) / (1 - t);
      }
      return;
    }
    case SF_BINOMIAL_LOGIT: {
      double k = x[0], n = x[1], a = x[2];
      dx[2] = k * sf_sigmoid(-a) - (n - k) * sf_sigmoid(a);
      return;
    }
    case SF_POISSON:
      dx[1] = -1;
      if (x[0] > 0) {
        dx[1] += x[0] / x[1];
      }
      return;
    case SF_POISSON_LOG:
      dx[1] = x[0] - exp(x[1]);
      return;
    case SF_WEIBULL: {
      double y = x[0], a = x[1], s = x[2];
      double lz = log(y / s);
      double za = exp(a * lz);
      dx[0] = (a - 1 - a * za) / y;
      dx[1] = 1 / a + lz - za * lz;
      dx[2] = a * (za - 1) / s;
      return;
    }
    case SF_NEG_BINOMIAL_2: {
      double k = x[0], m = x[1], p = x[2];
      dx[1] = k / m - (k + p) / (m + p);
      dx[2] = sf_neg_binomial_phi(k, p) - log(m + p) - (k + p) / (m + p);
      return;
    }
    case SF_NEG_BINOMIAL_2_LOG: {
      double k = x[0], eta = x[1], p = x[2];
      double lmp = sf_log_add_exp(eta, log(p));
      double w = exp(eta - lmp);  // μ/(μ+φ)
      dx[1] = k - (k + p) * w;
      dx[2] = sf_neg_binomial_phi(k, p) - lmp - (k + p) / exp(lmp);
      return;
    }
    case SF_BETA_BINOMIAL: {
      double k = x[0], n = x[1], a = x[2], b = x[3];
      double common = sf_digamma(a + b) - sf_digamma(n + a + b);
      dx[2] = sf_digamma(k + a) - sf_digamma(a) + common;
      dx[3] = sf_digamma(n - k + b) - sf_digamma(b) + common;
      return;
    }
    case SF_SKEW_NORMAL: {
      double w = x[2], a = x[3];
      double z = (x[0] - x[1]) / w;
      double r = sf_mills_ratio(a * z);  // φ(αz)/Φ(αz)
      dx[0] = (-z + a * r) / w;
      dx[1] = -dx[0];
      dx[2] = (-1 + z * z - a * z * r) / w;
      dx[3] = z * r;
      return;
    }
    case SF_VON_MISES: {
      double logI0e, ratio;
      sf_log_bessel_i0(x[2], &logI0e, &ratio);
      double s = x[2] * sin(x[0] - x[1]);
      dx[0] = -s;
      dx[1] = s;
      dx[2] = cos(x[0] - x[1]) - ratio;
      return;
    }
  }
}

// sf_density_value is density.value: -Inf for a non-finite argument, a
// non-integer count or a point outside the support, and -Inf rather than
// NaN where the formula overflows.
TEMPER_DEVICE double sf_density_value(int f, const double* x) {
  int n = sf_arity(f);
  unsigned ints = sf_density_ints(f);
  for (int i = 0; i < n; i++) {
    double v = x[i];
    if (isinf(v) || isnan(v) || (((ints >> i) & 1u) && v != trunc(v))) {
      return -INFINITY;
    }
  }
  if (!sf_density_ok(f, x)) {
    return -INFINITY;
  }
  double lp = sf_density_lp(f, x);
  if (!isnan(lp)) {
    return lp;
  }
  return -INFINITY;
}

// sf_density_grad is density.partials: the partials where the density is
// finite, 0 where it is -Inf.
TEMPER_DEVICE void sf_density_grad(int f, double* dx, const double* x, double y) {
  int n = sf_arity(f);
  for (int i = 0; i < n; i++) {
    dx[i] = 0;
  }
  if (!(isinf(y) && y < 0)) {
    sf_density_partials(f, dx, x);
  }
}

// ---- The table.

// sf_value returns f(x); x has the function's arity.
TEMPER_DEVICE double sf_value(int f, const double* x) {
  switch (f) {
    case SF_ADD: return x[0] + x[1];
    case SF_SUB: return x[0] - x[1];
    case SF_MUL: return x[0] * x[1];
    case SF_DIV: return x[0] / x[1];
    case SF_POW: return pow(x[0], x[1]);
    case SF_NEG: return -x[0];
    case SF_EXP: return exp(x[0]);
    case SF_LOG: return log(x[0]);
    case SF_LOG1P: return log1p(x[0]);
    case SF_EXPM1: return expm1(x[0]);
    case SF_SQRT: return sqrt(x[0]);
    case SF_SQUARE: return x[0] * x[0];
    case SF_ABS: return fabs(x[0]);
    case SF_SIN: return sin(x[0]);
    case SF_COS: return cos(x[0]);
    case SF_TANH: return tanh(x[0]);
    case SF_SIGMOID: return sf_sigmoid(x[0]);
    case SF_SOFTPLUS: return sf_softplus(x[0]);
    case SF_LOG_SIGMOID: return -sf_softplus(-x[0]);
    // Go's max propagates NaN, fmax would not.
    case SF_RELU: return isnan(x[0]) ? x[0] : (x[0] > 0 ? x[0] : 0.0);
    case SF_LGAMMA: return sf_lgamma(x[0]);
    case SF_DIGAMMA: return sf_digamma(x[0]);
    case SF_LESS: return x[0] < x[1] ? 1.0 : 0.0;
    case SF_LESS_EQUAL: return x[0] <= x[1] ? 1.0 : 0.0;
    case SF_GREATER: return x[0] > x[1] ? 1.0 : 0.0;
    case SF_GREATER_EQUAL: return x[0] >= x[1] ? 1.0 : 0.0;
    case SF_EQUAL: return x[0] == x[1] ? 1.0 : 0.0;
    case SF_NOT_EQUAL: return x[0] != x[1] ? 1.0 : 0.0;
    case SF_AND: return x[0] != 0 && x[1] != 0 ? 1.0 : 0.0;
    case SF_OR: return x[0] != 0 || x[1] != 0 ? 1.0 : 0.0;
    case SF_NOT: return x[0] == 0 ? 1.0 : 0.0;
    case SF_IF_ELSE: return x[0] != 0 ? x[1] : x[2];
    case SF_BROADCAST: return x[0];
    case SF_LOWER_BOUND: return x[1] + exp(x[0]);  // lb + e^u
    case SF_UPPER_BOUND: return x[1] - exp(x[0]);  // ub - e^u
    case SF_BOUND_LOG_JACOBIAN: return x[0];
    case SF_INTERVAL: return x[1] + (x[2] - x[1]) * sf_sigmoid(x[0]);
    case SF_INTERVAL_LOG_JACOBIAN:
      return log(x[2] - x[1]) - sf_softplus(-x[0]) - sf_softplus(x[0]);
  }
  if (sf_arity(f) == 0) {
    return NAN;  // not a function id
  }
  return sf_density_value(f, x);
}

// sf_grad sets dx[i] = ∂f/∂x_i at x given y = f(x); arguments that are not
// differentiable (counts, labels, conditions) get 0.
TEMPER_DEVICE void sf_grad(int f, double* dx, const double* x, double y) {
  switch (f) {
    case SF_ADD: dx[0] = 1; dx[1] = 1; return;
    case SF_SUB: dx[0] = 1; dx[1] = -1; return;
    case SF_MUL: dx[0] = x[1]; dx[1] = x[0]; return;
    case SF_DIV: dx[0] = 1 / x[1]; dx[1] = -y / x[1]; return;
    case SF_POW:
      // The exponent's partial x^y·log x is taken as 0 where x ≤ 0.
      dx[0] = x[1] * pow(x[0], x[1] - 1);
      dx[1] = 0;
      if (x[0] > 0) {
        dx[1] = y * log(x[0]);
      }
      return;
    case SF_NEG: dx[0] = -1; return;
    case SF_EXP: dx[0] = y; return;
    case SF_LOG: dx[0] = 1 / x[0]; return;
    case SF_LOG1P: dx[0] = 1 / (1 + x[0]); return;
    case SF_EXPM1: dx[0] = y + 1; return;
    case SF_SQRT: dx[0] = 0.5 / y; return;
    case SF_SQUARE: dx[0] = 2 * x[0]; return;
    case SF_ABS:  // a subgradient, 0, at 0
      dx[0] = x[0] > 0 ? 1.0 : (x[0] < 0 ? -1.0 : 0.0);
      return;
    case SF_SIN: dx[0] = cos(x[0]); return;
    case SF_COS: dx[0] = -sin(x[0]); return;
    case SF_TANH: dx[0] = 1 - y * y; return;
    case SF_SIGMOID: dx[0] = y * (1 - y); return;
    case SF_SOFTPLUS: dx[0] = sf_sigmoid(x[0]); return;
    case SF_LOG_SIGMOID: dx[0] = sf_sigmoid(-x[0]); return;
    case SF_RELU: dx[0] = x[0] > 0 ? 1.0 : 0.0; return;
    case SF_LGAMMA: dx[0] = sf_digamma(x[0]); return;
    case SF_DIGAMMA: dx[0] = sf_trigamma(x[0]); return;
    // Step functions: no gradient to either operand.
    case SF_LESS: case SF_LESS_EQUAL: case SF_GREATER: case SF_GREATER_EQUAL:
    case SF_EQUAL: case SF_NOT_EQUAL: case SF_AND: case SF_OR:
      dx[0] = 0; dx[1] = 0;
      return;
    case SF_NOT: dx[0] = 0; return;
    case SF_IF_ELSE: {
      // Only the chosen branch gets the gradient.
      double t = x[0] != 0 ? 1.0 : 0.0;
      dx[0] = 0; dx[1] = t; dx[2] = 1 - t;
      return;
    }
    case SF_BROADCAST: dx[0] = 1; return;
    case SF_LOWER_BOUND: dx[0] = exp(x[0]); dx[1] = 1; return;
    case SF_UPPER_BOUND: dx[0] = -exp(x[0]); dx[1] = 1; return;
    case SF_BOUND_LOG_JACOBIAN: dx[0] = 1; dx[1] = 0; return;
    case SF_INTERVAL: {
      double s = sf_sigmoid(x[0]);
      dx[0] = (x[2] - x[1]) * s * (1 - s);
      dx[1] = 1 - s;
      dx[2] = s;
      return;
    }
    case SF_INTERVAL_LOG_JACOBIAN:
      dx[0] = 1 - 2 * sf_sigmoid(x[0]);
      dx[1] = -1 / (x[2] - x[1]);
      dx[2] = 1 / (x[2] - x[1]);
      return;
  }
  sf_density_grad(f, dx, x, y);
}

#endif  // TEMPER_SCALAR_CUH
