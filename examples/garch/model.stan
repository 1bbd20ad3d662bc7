// GARCH(1,1), in the Stan User's Guide's form ("Time-series models"),
// with the old array syntax: the Stan counterpart of model.ppl.
data {
  int<lower=0> T;
  real y[T];
}
parameters {
  real mu;
  real<lower=0> omega;
  real<lower=0, upper=1> alpha;
  real<lower=0, upper=(1 - alpha)> beta;
}
model {
  real sigma[T];
  mu ~ normal(0, 1);
  omega ~ normal(0, 1);
  sigma[1] = sqrt(omega / (1 - alpha - beta));
  for (t in 2:T)
    sigma[t] = sqrt(omega
                    + alpha * pow(y[t - 1] - mu, 2)
                    + beta * pow(sigma[t - 1], 2));
  y ~ normal(mu, sigma);
}
