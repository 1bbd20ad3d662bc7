# Reference values for reference_test.go, from the R package posterior
# (Debian: apt-get install r-cran-posterior; run: Rscript reference.R).
# Each line: rhat, ess_bulk, ess_tail, ess_mean, mcse_mean, mean, sd, q5,
# q50, q95 of a deterministic array, iterations in rows, chains in columns.
suppressMessages(library(posterior))
# chains m = 0..M-1 (columns), iterations i = 0..n-1 (rows)
mk <- function(M, n, f) { x <- matrix(0, n, M); for (m in 0:(M-1)) for (i in 0:(n-1)) x[i+1, m+1] <- f(m, i); x }
cases <- list(
  smooth = mk(4, 25, function(m, i) round(2^20 * (sin(0.9*i + 1.7*m) + 0.3*m + cos(0.37*i*m))) / 2^20),
  ties   = mk(3, 30, function(m, i) round(3*sin(0.5*i + m))),
  long   = mk(2, 301, function(m, i) sin(0.3*i^1.1 + m) + 0.5*cos(0.05*i)),
  heavy  = mk(3, 13, function(m, i) tan(1.1*i + 0.4*m + 0.2)),
  scale  = mk(4, 40, function(m, i) (1 + 2*(m == 3)) * sin(2.1*i + 0.3*m))
)
for (nm in names(cases)) {
  x <- cases[[nm]]
  v <- c(rhat(x), ess_bulk(x), ess_tail(x), ess_mean(x), mcse_mean(x), mean(x), sd(x), quantile(x, c(0.05,0.5,0.95), type=7))
  cat(nm, sprintf("%.17g", v), "\n")
}
