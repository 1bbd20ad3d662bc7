"""The machinery the PyTorch peers of temper bench share.

A peer defines its network (parameters, which of them carry the prior, and a
forward pass over P batched replicas); this module reads MNIST, parses the
flags every peer takes (those of ../shared/peers/torch_sgld_mlp.py, plus
--limit-train and --limit-test as temper bench has them), starts the
parameters, runs SGLD and prints the summary and the final RESULT {json} line.

Model, as temper's examples/mnist/*.ppl write it
  Prior: each weight ~ N(0, prior_std^2) independently; biases (and a layer
  norm's gain and bias) have none (flat), as in lstm.ppl and cnn.ppl.
  Potential (negative log posterior, up to a constant), minibatch estimate:
      U(theta) = (N/B) * sum_{i in batch} CE(f(x_i; theta), y_i) + ||weights||^2 / (2 prior_std^2)

SGLD (constant step size lr, temperature T):
      theta <- theta - lr * grad U(theta) + sqrt(2 * lr * T) * xi,   xi ~ N(0, I)

Start: PyTorch's nn.Linear / nn.Conv2d initialisation as temper bench draws
it: each weight uniform in +-1/sqrt(fan_in), fan_in the product of its
dimensions but the output one (a dense layer's inputs, a filter's KH*KW*C),
each bias with its weight's fan-in; a layer norm's gain 1 and bias 0.

Each of the P replicas draws its own minibatch indices (a permutation per
epoch) and its own noise. Timing, burn-in, thinning and the posterior-mean
predictive are the MLP peer's: steps/s over the update steps only (minibatch
gather, forward, backward, SGLD update) after --warmup-steps steps.
"""
import argparse
import gzip
import json
import math
import os
import time

import numpy as np
import torch


def read_idx(path):
    """Read an IDX file (MNIST format), raw or .gz."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        buf = f.read()
    magic = int.from_bytes(buf[0:4], "big")
    n = int.from_bytes(buf[4:8], "big")
    if magic == 2051:
        rows = int.from_bytes(buf[8:12], "big")
        cols = int.from_bytes(buf[12:16], "big")
        return np.frombuffer(buf, np.uint8, offset=16).reshape(n, rows * cols)
    if magic == 2049:
        return np.frombuffer(buf, np.uint8, offset=8)
    raise ValueError("%s: bad IDX magic %d" % (path, magic))


def find(data_dir, stem):
    for cand in (stem, stem + ".gz"):
        p = os.path.join(data_dir, cand)
        if os.path.exists(p):
            return p
    raise FileNotFoundError("no %s[.gz] in %s" % (stem, data_dir))


def load_mnist(data_dir, limit_train=0, limit_test=0):
    """The training and test images (pixels / 255, float32) and labels,
    the first limit_* of each when given (0: all), as temper bench's
    --limit-train and --limit-test."""
    def part(images, labels, limit):
        x, y = read_idx(find(data_dir, images)), read_idx(find(data_dir, labels))
        if limit > 0:
            x, y = x[:limit], y[:limit]
        return torch.from_numpy(x.astype(np.float32) / 255.0), torch.from_numpy(y.astype(np.int64))
    xtr, ytr = part("train-images-idx3-ubyte", "train-labels-idx1-ubyte", limit_train)
    xte, yte = part("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", limit_test)
    return xtr, ytr, xte, yte


def parser(doc):
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", required=True, help="folder holding the four MNIST IDX files (raw or .gz)")
    ap.add_argument("--epochs", type=int, default=10, help="E: number of passes over the training set")
    ap.add_argument("--chains", type=int, default=1, help="P: independent replicas, batched")
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-5, help="SGLD step size (on the N/B-scaled potential)")
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--prior-std", type=float, default=1.0)
    ap.add_argument("--burnin-epochs", type=float, default=None, help="default: E/2")
    ap.add_argument("--thin", type=int, default=100, help="collect a sample every THIN steps after burn-in")
    ap.add_argument("--warmup-steps", type=int, default=50, help="steps excluded from steps/s")
    ap.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit-train", type=int, default=0, help="use only the first N training images (0: all)")
    ap.add_argument("--limit-test", type=int, default=0, help="use only the first N test images (0: all)")
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    return ap


def uniform(shape, fan_in, gen, dev):
    """PyTorch's nn.Linear start: uniform in +-1/sqrt(fan_in)."""
    bound = 1.0 / math.sqrt(fan_in)
    return (torch.rand(shape, generator=gen, device=dev) * 2 - 1) * bound


def leaves(stacked, per_replica):
    """The parameters to differentiate: the P replicas' values stacked
    [P, ...] as one tensor, or, per_replica, as P tensors (so that a loop
    over the replicas indexes no stacked tensor, whose backward would write
    a zero-filled copy of the whole stack for each replica)."""
    if per_replica:
        return [t.clone().requires_grad_() for t in stacked.unbind(0)]
    return [stacked.requires_grad_()]


def potential(forward, weights, x, y, scale, inv_var):
    """U summed over the replicas: scale times the cross-entropy of each
    replica's images x [P, M, 28, 28] and labels y [P, M], plus the prior's
    ||weights||^2 / (2 prior_std^2). The replicas' terms are apart, so each
    replica's gradient is its own U's."""
    logits = forward(x)
    P, M, K = logits.shape
    nll = torch.nn.functional.cross_entropy(logits.reshape(P * M, K), y.reshape(P * M), reduction="sum")
    return scale * nll + 0.5 * inv_var * sum((w * w).sum() for w in weights)


def run(name, args, build, extra=None):
    """Run SGLD on the network build makes and print the results.

    build(P, gen, dev) returns (params, weights, forward): params the list
    of leaf tensors to update, weights those with the prior, and forward(x)
    the logits [P, M, 10] of x [P, M, 28, 28] (each replica's own images,
    pixels / 255, an image as its 28 rows) for every replica.
    """
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    dev = torch.device(args.device)
    gen = torch.Generator(device=dev).manual_seed(args.seed + 1)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)

    t0 = time.perf_counter()
    xtr, ytr, xte, yte = (t.to(dev) for t in load_mnist(args.data, args.limit_train, args.limit_test))
    load_s = time.perf_counter() - t0
    N = xtr.shape[0]
    K = 10
    B = args.batch
    P = args.chains
    steps_per_epoch = N // B  # drop the last partial batch
    burnin_epochs = args.epochs / 2.0 if args.burnin_epochs is None else args.burnin_epochs
    burnin_steps = int(round(burnin_epochs * steps_per_epoch))

    params, weights, forward = build(P, gen, dev)
    n_params = sum(p.numel() for p in params) // P
    xtr, xte = xtr.view(-1, 28, 28), xte.view(-1, 28, 28)

    scale = float(N) / B
    inv_var = 1.0 / (args.prior_std ** 2)
    lr = args.lr
    noise_std = math.sqrt(2.0 * lr * args.temperature)

    # Test-time accumulators; the test set goes through in chunks so that
    # the activations of P replicas stay small.
    prob_sum = torch.zeros(P, xte.shape[0], K, device=dev)
    n_samples = 0
    chunk = 500

    def predict_into(out, fn):
        with torch.no_grad():
            for s in range(0, xte.shape[0], chunk):
                xs = xte[s:s + chunk]
                out[:, s:s + chunk] += fn(forward(xs.unsqueeze(0).expand(P, *xs.shape)))

    def collect():
        nonlocal n_samples
        predict_into(prob_sum, lambda logits: torch.softmax(logits, dim=-1))
        n_samples += 1

    step = 0
    timed_steps = 0
    timed_s = 0.0
    eval_s = 0.0
    epoch_s = []
    U = torch.zeros(())
    for epoch in range(args.epochs):
        perms = torch.stack([torch.randperm(N, generator=gen, device=dev) for _ in range(P)])  # [P, N]
        ep_s = 0.0
        for it in range(steps_per_epoch):
            ts = time.perf_counter()
            idx = perms[:, it * B:(it + 1) * B]  # [P, B]
            x = xtr[idx]  # [P, B, 28, 28]
            y = ytr[idx]  # [P, B]
            U = potential(forward, weights, x, y, scale, inv_var)
            for p in params:
                p.grad = None
            U.backward()
            with torch.no_grad():
                for p in params:
                    p.add_(p.grad, alpha=-lr)
                    p.add_(torch.randn(p.shape, generator=gen, device=dev), alpha=noise_std)
            sync()
            te = time.perf_counter()
            ep_s += te - ts
            step += 1
            if step > args.warmup_steps:
                timed_s += te - ts
                timed_steps += 1
            if step > burnin_steps and (step - burnin_steps) % args.thin == 0:
                te0 = time.perf_counter()
                collect()
                eval_s += time.perf_counter() - te0
        epoch_s.append(ep_s)
        print("epoch %d/%d  update-time %.3fs  U/chain(last batch) %.1f" % (epoch + 1, args.epochs, ep_s, U.item() / P), flush=True)

    if n_samples == 0:  # always predict with something
        collect()
    pred_chain = prob_sum.argmax(-1)  # [P, Ntest]
    acc_chain = (pred_chain == yte.unsqueeze(0)).float().mean(1).tolist()
    acc_pooled = (prob_sum.sum(0).argmax(-1) == yte).float().mean().item()
    last = torch.zeros(P, xte.shape[0], K, device=dev)
    predict_into(last, lambda logits: logits)  # the last sample alone (chain 0)
    acc_last = (last[0].argmax(-1) == yte).float().mean().item()

    steps_per_s = timed_steps / timed_s if timed_s > 0 else float("nan")
    res = {
        "peer": name,
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "chains": P,
        "epochs": args.epochs,
        "batch": B,
        "train_rows": N,
        "test_rows": xte.shape[0],
        "n_params_per_chain": n_params,
        "lr": lr,
        "temperature": args.temperature,
        "prior_std": args.prior_std,
        "steps_per_epoch": steps_per_epoch,
        "burnin_steps": burnin_steps,
        "thin": args.thin,
        "warmup_steps": min(args.warmup_steps, step),
        "timed_steps": timed_steps,
        "samples_per_chain": n_samples,
        "data_load_s": round(load_s, 3),
        "steps_per_s": steps_per_s,
        "chain_steps_per_s": steps_per_s * P,
        "ms_per_step": 1000.0 / steps_per_s,
        "epoch_s": [round(e, 4) for e in epoch_s],
        "epoch_s_median": float(np.median(epoch_s)),
        "eval_s_total": round(eval_s, 3),
        "test_acc_posterior_mean_per_chain": acc_chain,
        "test_acc_posterior_mean_chain0": acc_chain[0],
        "test_acc_posterior_mean_pooled": acc_pooled,
        "test_acc_last_sample_chain0": acc_last,
    }
    res.update(extra or {})
    print("steps/s %.1f (chain-steps/s %.1f), median epoch %.3fs, posterior-mean test acc chain0 %.4f pooled %.4f (%d samples/chain)"
          % (steps_per_s, steps_per_s * P, res["epoch_s_median"], acc_chain[0], acc_pooled, n_samples))
    print("RESULT " + json.dumps(res), flush=True)
