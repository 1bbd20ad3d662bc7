#!/usr/bin/env python3
"""Peer of `temper bench --net lstm`: SGLD on examples/mnist/lstm.ppl's
Bayesian LSTM (MNIST or Fashion-MNIST), PyTorch CPU.

Network
  An LSTM of H units (default 128) reads each 28 x 28 image as 28 steps of
  28 pixels (its rows) from zero states; its last hidden state goes through
  ReLU, a dense layer of 64 ReLU units and a dense layer to the 10 classes.
  W [28, 4H], U [H, 4H], b [4H] (one bias, as temper's lstm: PyTorch's
  bias_ih + bias_hh), gate blocks i, f, g, o (PyTorch's order and temper's):
      z = x_t W + h_{t-1} U + b,  i, f, o = sigmoid, g = tanh,
      c_t = f * c_{t-1} + i * g,  h_t = o * tanh(c_t).
  W1 [H, 64], b1 [64], W2 [64, 10], b2 [10].
  Prior N(0, prior_std^2) on W, U, W1 and W2; none on the biases (lstm.ppl's).

The rest (N/B-scaled likelihood, SGLD update, start, timing, RESULT line) is
sgld_peer.py's.

--impl picks how the P replicas are computed:
  loop (default): a Python loop over the replicas, each through torch.lstm
      (nn.LSTM's kernel: one addmm per step for the recurrent product, the
      input projection of all steps in one) and addmm for the dense layers;
      the replicas' parameters are separate tensors.
  bmm: every replica at once, parameters stacked [P, ...]: the input
      projection of all steps by one baddbmm, then per step one baddbmm
      h_{t-1} U of the P replicas and the gates on [P, B, 4H].
The loop is the faster on the 2-core development machine: in a micro-
benchmark of forward + backward on one thread (under a load average of
about 6), 44-52 ms per step at P = 1 for both, and 295 ms (loop) against
670-860 ms (bmm) at P = 8; torch 1.13's CPU bmm ran 128 x 128 x 512 in
0.68 ms against mm's 0.19. Whole runs at P = 1 on a quieter machine made
26-35 replica-steps/s with either.
"""
import torch

import sgld_peer


def build(args):
    H, T, D, G, F, K = args.hidden, 28, 28, 4 * args.hidden, 64, 10

    def make(P, gen, dev):
        u = lambda shape, fan_in: sgld_peer.uniform((P,) + shape, fan_in, gen, dev)
        # temper bench's draw: each weight +-1/sqrt(its rows), a bias with the weight before it.
        W, U, b = u((D, G), D), u((H, G), H), u((G,), H)
        W1, b1, W2, b2 = u((H, F), H), u((F,), H), u((F, K), F), u((K,), F)
        per = args.impl == "loop"
        W, U, b, W1, b1, W2, b2 = (sgld_peer.leaves(t, per) for t in (W, U, b, W1, b1, W2, b2))
        params = W + U + b + W1 + b1 + W2 + b2
        weights = W + U + W1 + W2
        if per:
            zero = torch.zeros(G, device=dev)  # the bias_hh that temper's lstm does not have
            # cuDNN's LSTM takes contiguous weights; on the CPU the views do.
            flat = (lambda w: w.contiguous()) if dev.type == "cuda" else (lambda w: w)

            def forward(x):
                M, out = x.shape[1], []
                for p in range(P):
                    h0 = torch.zeros(1, M, H, device=dev)
                    _, h, _ = torch.lstm(x[p], (h0, h0), [flat(W[p].t()), flat(U[p].t()), b[p], zero], True, 1, 0.0, True, False, True)
                    h1 = torch.relu(torch.addmm(b1[p], torch.relu(h[0]), W1[p]))
                    out.append(torch.addmm(b2[p], h1, W2[p]))
                return torch.stack(out)
            return params, weights, forward
        W, U, b, W1, b1, W2, b2 = W[0], U[0], b[0], W1[0], b1[0], W2[0], b2[0]

        def forward(x):
            M = x.shape[1]
            xw = torch.baddbmm(b.unsqueeze(1), x.transpose(1, 2).reshape(P, T * M, D), W).view(P, T, M, G).unbind(1)
            h = c = None
            for t in range(T):
                z = xw[t] if h is None else torch.baddbmm(xw[t], h, U)
                i, f, g, o = z.chunk(4, -1)
                i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
                c = i * g if c is None else f * c + i * g
                h = o * torch.tanh(c)
            h1 = torch.relu(torch.baddbmm(b1.unsqueeze(1), torch.relu(h), W1))
            return torch.baddbmm(b2.unsqueeze(1), h1, W2)
        return params, weights, forward
    return make


def main():
    ap = sgld_peer.parser(__doc__)
    ap.add_argument("--hidden", type=int, default=128, help="H: the LSTM's units")
    ap.add_argument("--impl", choices=("loop", "bmm"), default="loop", help="how the replicas are computed (see above)")
    args = ap.parse_args()
    sgld_peer.run("torch_sgld_lstm", args, build(args), {"hidden": args.hidden, "impl": args.impl})


if __name__ == "__main__":
    main()
