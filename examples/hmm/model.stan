// The two-state Gaussian hidden Markov model of model.ppl, as a Stan user
// writes it: the forward algorithm over log probabilities, the states'
// means ordered so that their labels cannot swap.
data {
  int<lower=1> T;
  array[T] real y;
}
parameters {
  ordered[2] mu;
  real<lower=0> sigma;
  array[2] simplex[2] Gamma;  // Gamma[i]: the transition row from state i
}
model {
  vector[2] la;
  vector[2] next;
  vector[2] acc;
  mu ~ normal(0, 5);
  sigma ~ normal(0, 2);
  for (k in 1:2)
    la[k] = log(0.5) + normal_lpdf(y[1] | mu[k], sigma);
  for (t in 2:T) {
    for (k in 1:2) {
      for (j in 1:2)
        acc[j] = la[j] + log(Gamma[j, k]);
      next[k] = log_sum_exp(acc) + normal_lpdf(y[t] | mu[k], sigma);
    }
    la = next;
  }
  target += log_sum_exp(la);
}
