// One-compartment pharmacokinetics with first-order absorption, as an ODE
// solved by ode_rk45, in the form of Stan's ODE case studies: the Stan
// counterpart of model.ppl.
functions {
  vector one_cpt(real t, vector y, real ka, real ke) {
    vector[2] dydt;
    dydt[1] = -ka * y[1];               // gut
    dydt[2] = ka * y[1] - ke * y[2];    // central
    return dydt;
  }
}
data {
  int<lower=1> N;
  array[N] real ts;       // hours after the dose
  vector<lower=0>[N] conc;  // mg/L
  real<lower=0> dose;     // mg, at t = 0
  real<lower=0> V;        // L, known
}
parameters {
  real<lower=0> ka;
  real<lower=0> ke;
  real<lower=0> sigma;
}
model {
  array[N] vector[2] amounts = ode_rk45(one_cpt, [dose, 0]', 0, ts, ka, ke);
  ka ~ lognormal(0, 1);
  ke ~ lognormal(-1.5, 1);
  sigma ~ normal(0, 1);
  conc ~ lognormal(log(to_vector(amounts[:, 2]) / V), sigma);
}
