#!/usr/bin/env python3
"""The potential and gradient of a peer's network at a point given in
temper's layout, for cmd/temper's test that the peers and temper's models
are the same model (TestBenchPeersMatchTemper).

Reads JSON on stdin: {"net": "lstm" | "cnn", "hidden": H, "theta": [...],
"shapes": [[...], ...] (temper's parameter shapes, in its order), "images":
[M * 784 pixels in [0, 1]], "labels": [M digits 0-9]}. Prints JSON:
{"energy": U at scale 1 (the cross-entropy summed over the M images plus
the prior's quadratic), "prior_terms": the number of values with the
prior, "grad": dU/dtheta in temper's layout}.

Convolution filters are temper's [KH, KW, C, F], PyTorch's [F, C, KH, KW];
every other parameter has the same shape and row-major order in both.
"""
import argparse
import json
import sys

import torch

import sgld_peer
import torch_sgld_cnn
import torch_sgld_lstm


def main():
    req = json.load(sys.stdin)
    torch.set_num_threads(1)
    module = {"lstm": torch_sgld_lstm, "cnn": torch_sgld_cnn}[req["net"]]
    args = argparse.Namespace(impl="loop", hidden=req.get("hidden", 0))
    params, weights, forward = module.build(args)(1, torch.Generator().manual_seed(0), torch.device("cpu"))
    theta = torch.tensor(req["theta"], dtype=torch.float32)
    if len(params) != len(req["shapes"]):
        sys.exit("the peer has %d parameters, temper %d" % (len(params), len(req["shapes"])))
    at = 0
    for p, shape in zip(params, req["shapes"]):
        n = 1
        for s in shape:
            n *= s
        v = theta[at:at + n].reshape(shape)
        at += n
        if len(shape) == 4:
            v = v.permute(3, 2, 0, 1)
        if tuple(v.shape) != tuple(p.shape):
            sys.exit("temper's %s is %s in PyTorch's layout, the peer's parameter %s" % (shape, list(v.shape), list(p.shape)))
        with torch.no_grad():
            p.copy_(v)
    x = torch.tensor(req["images"], dtype=torch.float32).view(1, -1, 28, 28)
    y = torch.tensor(req["labels"], dtype=torch.int64).view(1, -1)
    U = sgld_peer.potential(forward, weights, x, y, 1.0, 1.0)
    U.backward()
    grad = []
    for p in params:
        g = p.grad
        if g.dim() == 4:
            g = g.permute(2, 3, 1, 0)
        grad.extend(g.reshape(-1).tolist())
    print(json.dumps({"energy": U.item(), "prior_terms": sum(w.numel() for w in weights), "grad": grad}))


if __name__ == "__main__":
    main()
