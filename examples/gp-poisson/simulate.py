"""Simulates data.json: 30 counts of a latent Gaussian process, the truth
alpha = 1, rho = 1.5, on points evenly spaced in [0, 10]; seeded, standard
library only. Run: python3 simulate.py > data.json"""
import json
import math
import random

random.seed(35)
N, alpha, rho = 30, 1.0, 1.5
x = [10 * i / (N - 1) for i in range(N)]
K = [[alpha**2 * math.exp(-((a - b) ** 2) / (2 * rho**2)) + (1e-9 if i == j else 0)
      for j, b in enumerate(x)] for i, a in enumerate(x)]
L = [[0.0] * N for _ in range(N)]
for i in range(N):  # Cholesky, K = L L^T
    for j in range(i + 1):
        s = K[i][j] - sum(L[i][p] * L[j][p] for p in range(j))
        L[i][j] = math.sqrt(s) if i == j else s / L[j][j]
eta = [random.gauss(0, 1) for _ in range(N)]
f = [sum(L[i][p] * eta[p] for p in range(i + 1)) for i in range(N)]


def poisson(lam):  # Knuth's method: lam is at most e^4 here
    limit, k, p = math.exp(-lam), 0, random.random()
    while p > limit:
        k += 1
        p *= random.random()
    return k


y = [poisson(math.exp(v)) for v in f]
print(json.dumps({"N": N, "x": [round(v, 6) for v in x], "y": y}))
