// More constructs without a counterpart: void and _lp functions, complex
// and int parameter types, target(), a call as a statement, a loop over a
// container, a distribution the .ppl lacks.
functions {
  void check(real x);
  void check(real x) { if (x < 0) reject("neg"); }
  real f_lp(real x) { target += x; return x; }
}
data {
  int N; int M;
  array[N, M] real y;
  complex z;
  cov_matrix[M] S;
}
transformed data {
  array[N] int idx;
  for (n in 1:N) idx[n] = n;
}
parameters {
  vector[M] mu;
  real<lower=0> sigma;
  int k;
}
model {
  profile("lik") {
    for (i in 1:N) {
      for (j in 1:M) {
        y[i, j] ~ normal(mu[j], sigma);
      }
    }
  }
  increment_log_prob(-sigma);
  target += get_lp();
  mu ~ multi_normal(rep_vector(0, M), S);
  check(sigma);
  for (x in mu) target += x;
  mu[1:2] ~ normal(0, 1);
  sigma ~ foo(1);
}
