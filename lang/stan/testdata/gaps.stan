// Constructs without a counterpart in the .ppl (Stan's old ODE interface
// among them): each is listed with its line:col, and the translation
// keeps a TODO comment in its place.
functions {
  array[] real sir(real t, array[] real y, array[] real theta,
                   array[] real x_r, array[] int x_i) {
    return {-theta[1] * y[1] * y[2], theta[1] * y[1] * y[2]};
  }
}
data {
  int<lower=1> T;
  array[T] real ts;
  array[2] real y0;
  array[T] real<lower=0> cases;
}
transformed data {
  array[0] real x_r;
  array[0] int x_i;
}
parameters {
  real<lower=0> beta;
  real<lower=0> sigma;
}
transformed parameters {
  array[T, 2] real y = integrate_ode_rk45(sir, y0, 0, ts, {beta}, x_r, x_i);
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
