// Stan functions the .ppl has under another form: each translation is
// compared with the value it must have (functions_test.go).
data {
  int<lower=1> N;
}
parameters {
  real<lower=0, upper=1> p;
  real x;
}
generated quantities {
  real r_inv = inv(p);
  real r_inv_sqrt = inv_sqrt(p);
  real r_inv_square = inv_square(p);
  real r_log1m = log1m(p);
  real r_log1m_inv_logit = log1m_inv_logit(x);
  real r_Phi = Phi(x);
  real r_Phi_approx = Phi_approx(x);
  real r_logit = logit(p);
  real r_log2 = log2(p);
  real r_log10 = log10(p);
  real r_e = e();
  real r_step = step(x);
  real r_fmax = fmax(x, p);
  real r_fmin = fmin(x, p);
  real r_lse = log_sum_exp(x, p);
  real r_dot_self = dot_self([x, p]');
  real r_cond = x > p ? x : p;
  matrix[3, 2] r_rep_matrix = rep_matrix([x, p], 3);
  row_vector[4] r_append_col = append_col([x, p], [p, x]);
  matrix[2, 2] r_append_row = append_row([x, p], [p, x]);
  matrix[2, 2] r_tcrossprod = tcrossprod([[x, p], [p, 1]]);
  real r_min = min([x, p]');
  real r_minus = -x^2;
}
