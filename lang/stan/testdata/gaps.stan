// Constructs without a counterpart in the .ppl: each is listed with its
// line:col, and the translation keeps a TODO comment in its place.
functions {
  vector sir(real t, vector y, real beta) {
    vector[2] dydt;
    dydt[1] = -beta * y[1] * y[2];
    dydt[2] = beta * y[1] * y[2];
    return dydt;
  }
}
data {
  int<lower=1> T;
  array[T] real ts;
  vector[2] y0;
  array[T] real<lower=0> cases;
}
parameters {
  real<lower=0> beta;
  real<lower=0> sigma;
}
transformed parameters {
  array[T] vector[2] y = ode_rk45(sir, y0, 0, ts, beta);
}
model {
  int k = 0;
  while (k < 3) k += 1;
  beta ~ normal(0, 1) T[0, ];
  sigma ~ std_normal();
  for (t in 1:T) cases[t] ~ lognormal(log(y[t, 2]), sigma);
  print("beta = ", beta);
  if (T % 2 == 0) reject("an even number of days");
}
