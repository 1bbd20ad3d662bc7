# NUTS's bulk ESS per second of wall time, temper against rstan, on a
# simulated logistic regression or on German credit: the same 4 chains on
# the machine's cores, each tool's default warm-up and 1,000 draws a
# chain, seeds interleaved, the whole run timed (warm-up and sampling;
# Stan's compilation not).
# Usage: Rscript compare.R [TEMPER] [ROUNDS] [N] [D]
#        Rscript compare.R [TEMPER] [ROUNDS] german
# (run from this folder; TEMPER is a built temper binary). The first
# simulates N rows of D features; the second reads
# ../../data/german_credit.csv, which temper's ../model.ppl names in its
# infer block. Stan runs its GLM form (glm.stan) on both. Debian's rstan
# compiles with Boost from libboost-dev, whose headers its r-cran-bh does
# not put where rstan looks: ln -s /usr/include
# /usr/lib/R/site-library/BH/include once.
suppressMessages({ library(rstan); library(posterior) })
args <- commandArgs(trailingOnly = TRUE)
temper <- if (length(args) >= 1) args[1] else "temper"
rounds <- if (length(args) >= 2) as.integer(args[2]) else 3
german <- length(args) >= 3 && args[3] == "german"
cores <- parallel::detectCores()
dir <- tempfile("compare")
dir.create(dir)

if (german) {
  credit <- read.csv("../../data/german_credit.csv", check.names = FALSE)
  y <- credit[[1]]
  X <- as.matrix(credit[, -1])
  n <- nrow(X)
  d <- ncol(X)
  temper_model <- c("../model.ppl")
} else {
  n <- if (length(args) >= 3) as.integer(args[3]) else 100000
  d <- if (length(args) >= 4) as.integer(args[4]) else 20
  set.seed(20261129)
  X <- matrix(rnorm(n * d), n, d)
  beta <- rnorm(d, 0, 0.5)
  y <- rbinom(n, 1, plogis(0.3 + X %*% beta))
  csv <- file.path(dir, "data.csv")
  colnames(X) <- paste0("X.", seq_len(d))
  write.csv(data.frame(X, y = y), csv, row.names = FALSE)
  writeLines(sprintf('{"N": %d, "D": %d}', n, d), file.path(dir, "dims.json"))
  temper_model <- c("model.ppl", "--data", csv, "--data", file.path(dir, "dims.json"))
}

model <- stan_model("glm.stan")
min_bulk <- function(draws) {
  s <- summarise_draws(subset_draws(draws, variable = c("alpha", "beta")), "ess_bulk")
  min(s$ess_bulk)
}
run_stan <- function(seed) {
  t <- system.time(fit <- sampling(model, data = list(N = n, D = d, X = X, y = y), chains = 4, cores = cores,
    iter = 2000, warmup = 1000, seed = seed, refresh = 0))[["elapsed"]]
  sp <- get_sampler_params(fit, inc_warmup = FALSE)
  steps <- mean(sapply(sp, function(p) mean(p[, "n_leapfrog__"])))
  c(seconds = t, ess = min_bulk(as_draws(fit)), steps = steps)
}
run_temper <- function(seed) {
  out <- file.path(dir, paste0("temper-", seed))
  t <- system.time(status <- system2(temper, c("run", temper_model,
    "--sampler", "nuts", "--chains", "4", "--iters", "1000", "--seed", seed, "--quiet", "--out", out)))[["elapsed"]]
  if (status != 0) stop("temper run failed")
  files <- file.path(out, sprintf("draws_%d.csv", 1:4))
  fit <- read_stan_csv(files)
  sp <- get_sampler_params(fit, inc_warmup = FALSE)
  steps <- mean(sapply(sp, function(p) mean(p[, "n_leapfrog__"])))
  c(seconds = t, ess = min_bulk(as_draws(fit)), steps = steps)
}
rows <- list()
for (seed in seq_len(rounds)) {
  s <- run_stan(seed)
  tp <- run_temper(seed)
  rows[[length(rows) + 1]] <- data.frame(seed = seed, tool = c("rstan", "temper"), seconds = c(s[["seconds"]], tp[["seconds"]]),
    min_bulk_ess = c(s[["ess"]], tp[["ess"]]), leapfrogs = c(s[["steps"]], tp[["steps"]]))
  print(rows[[length(rows)]], row.names = FALSE)
}
all <- do.call(rbind, rows)
all$ess_per_s <- all$min_bulk_ess / all$seconds
med <- aggregate(cbind(seconds, min_bulk_ess, ess_per_s, leapfrogs) ~ tool, all, median)
print(med, row.names = FALSE)
cat(sprintf("temper / rstan, bulk ESS per second (medians of %d): %.2f\n", rounds,
  med$ess_per_s[med$tool == "temper"] / med$ess_per_s[med$tool == "rstan"]))
