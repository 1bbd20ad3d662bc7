#!/usr/bin/env python3
"""Peer of `temper bench --net cnn`: SGLD on examples/mnist/cnn.ppl's
Bayesian CNN (MNIST or Fashion-MNIST), PyTorch CPU.

Network (cnn.ppl's; PyTorch's NCHW here, channels last in temper)
  h = max_pool2d(relu(conv2d(x, W1, b1, padding 1)), 2)      1 -> 16 channels, 28 -> 14
  r = conv2d(relu(conv2d(h, W2, b2, padding 1)), W3, b3, padding 1)
  z = layer_norm(relu(h + r), g, be)       over each pixel's 16 channels, eps 1e-5
  logits = flatten(max_pool2d(z, 2)) D + d   14 -> 7; flattened channels last
                                             (row, column, channel), as temper's
                                             flatten of [7, 7, 16]
  3 x 3 filters; W1 [16, 1, 3, 3], W2 and W3 [16, 16, 3, 3] (temper's
  [3, 3, C, 16] permuted), D [784, 10].
  Prior N(0, prior_std^2) on W1, W2, W3 and D; none on the biases, g and be.

The rest (N/B-scaled likelihood, SGLD update, start, timing, RESULT line) is
sgld_peer.py's.

--impl picks how the P replicas are computed:
  loop (default): a Python loop over the replicas, each a plain NCHW
      network of torch.nn.functional (conv2d through oneDNN), the
      replicas' parameters separate tensors.
  grouped: every replica at once, the replicas as groups of one
      convolution (groups = P; replica p's images are channel p of the
      input), a layer norm over each replica's channels, one baddbmm for
      the dense layers.
The loop is the faster on the 2-core development machine: in a micro-
benchmark of forward + backward on one thread (under a load average of
about 5), 41 ms per step at P = 1 and 243 ms at P = 8 (loop) against
82 ms and 2.6 s (grouped): torch 1.13's CPU grouped convolution is slow
on these shapes. Channels-last tensors in the loop were slower too
(129 ms at P = 1).
"""
import torch
import torch.nn.functional as nnf

import sgld_peer


def build(args):
    C, K = 16, 10

    def make(P, gen, dev):
        u = lambda shape, fan_in: sgld_peer.uniform((P,) + shape, fan_in, gen, dev)
        # temper bench's draw: each weight +-1/sqrt(KH*KW*C or its rows), a bias with its weight;
        # the layer norm's gain 1 and bias 0.
        W1, b1 = u((C, 1, 3, 3), 9), u((C,), 9)
        W2, b2 = u((C, C, 3, 3), 9 * C), u((C,), 9 * C)
        W3, b3 = u((C, C, 3, 3), 9 * C), u((C,), 9 * C)
        g, be = torch.ones(P, C, device=dev), torch.zeros(P, C, device=dev)
        D, d = u((7 * 7 * C, K), 7 * 7 * C), u((K,), 7 * 7 * C)
        per = args.impl == "loop"
        W1, b1, W2, b2, W3, b3, g, be, D, d = (sgld_peer.leaves(t, per) for t in (W1, b1, W2, b2, W3, b3, g, be, D, d))
        params = W1 + b1 + W2 + b2 + W3 + b3 + g + be + D + d
        weights = W1 + W2 + W3 + D
        if per:
            def forward(x):
                M, out = x.shape[1], []
                for p in range(P):
                    h = nnf.max_pool2d(nnf.relu(nnf.conv2d(x[p].unsqueeze(1), W1[p], b1[p], padding=1)), 2)
                    r = nnf.conv2d(nnf.relu(nnf.conv2d(h, W2[p], b2[p], padding=1)), W3[p], b3[p], padding=1)
                    z = nnf.layer_norm(nnf.relu(h + r).permute(0, 2, 3, 1), (C,), g[p], be[p])  # [M, 14, 14, C]
                    q = nnf.max_pool2d(z.permute(0, 3, 1, 2), 2).permute(0, 2, 3, 1)  # [M, 7, 7, C]
                    out.append(torch.addmm(d[p], q.reshape(M, 7 * 7 * C), D[p]))
                return torch.stack(out)
            return params, weights, forward
        W1, b1, W2, b2, W3, b3, g, be, D, d = (t[0] for t in (W1, b1, W2, b2, W3, b3, g, be, D, d))

        def forward(x):
            M = x.shape[1]
            conv = lambda v, w, bias: nnf.conv2d(v, w.reshape(P * C, -1, 3, 3), bias.reshape(-1), padding=1, groups=P)
            h = nnf.max_pool2d(nnf.relu(conv(x.transpose(0, 1), W1, b1)), 2)  # [M, P*C, 14, 14]
            r = conv(nnf.relu(conv(h, W2, b2)), W3, b3)
            z = nnf.relu(h + r).view(M, P, C, 14, 14).permute(0, 1, 3, 4, 2)  # [M, P, 14, 14, C]
            z = nnf.layer_norm(z, (C,)) * g.view(1, P, 1, 1, C) + be.view(1, P, 1, 1, C)
            q = nnf.max_pool2d(z.permute(0, 1, 4, 2, 3).reshape(M, P * C, 14, 14), 2)  # [M, P*C, 7, 7]
            q = q.view(M, P, C, 7, 7).permute(1, 0, 3, 4, 2).reshape(P, M, 7 * 7 * C)
            return torch.baddbmm(d.unsqueeze(1), q, D)
        return params, weights, forward
    return make


def main():
    ap = sgld_peer.parser(__doc__)
    ap.add_argument("--impl", choices=("loop", "grouped"), default="loop", help="how the replicas are computed (see above)")
    args = ap.parse_args()
    sgld_peer.run("torch_sgld_cnn", args, build(args), {"impl": args.impl})


if __name__ == "__main__":
    main()
