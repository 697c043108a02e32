"""Forward + BPTT throughput of rnn_core, against two references measured in the same run.

    python benchmarks/throughput.py            # H=256, B=64, T=64, V=91, float32
    python benchmarks/throughput.py --repeats 20 --hidden-size 128

With --cell lstm (or both, the default) it also times rnn_core.lstm against PyTorch nn.LSTM: see
lstm_main below.

Prints characters per second (one character = one time step of one sequence, forward and
backward) for
  - rnn_core.loss_and_grads (batched, the engine the notebooks and the trainer use);
  - a per-sequence, per-time-step loop in the style of the classic min-char-rnn (column
    vectors, one-hot inputs, one sequence at a time), written below for comparison;
  - PyTorch nn.RNN + nn.Linear + cross-entropy, forward and backward, when torch is
    importable (optional: the project never needs it);
and the ratios between them, which are what this benchmark reports: absolute speeds depend on
the machine and on whatever else runs on it, ratios measured side by side much less.

It also prints the share of the machine's limit: FLOPs per character, about
6 (H^2 + V H) for the matrix products of forward plus backward, times characters per second,
divided by the FLOP rate numpy's matrix product reaches on exactly the products one training
step performs, timed alone in the same run on one core and multiplied by the number of cores
(at most two, the split rnn_core uses).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
from threadpoolctl import threadpool_limits

import rnn_core


def timeit(fn, repeats, warmup=2):
    """Median wall time of fn() over ``repeats`` calls, after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def time_in_rounds(fns, repeats, rounds=3, pause=0.5):
    """Median time per call of each function, timed in alternating blocks.

    Each round times every function for ``repeats // rounds`` calls in a row, with a
    pause between blocks: thread pools (OpenBLAS's, PyTorch's OpenMP) keep spinning
    for a while after their work, and one engine's spinning threads must not be
    charged to the other. Alternating blocks spreads any change in the machine's
    load over all engines alike.
    """
    times = {name: [] for name in fns}
    for name, fn in fns.items():  # warm-up
        fn()
        fn()
    for _ in range(rounds):
        for name, fn in fns.items():
            time.sleep(pause)
            for _ in range(max(1, repeats // rounds)):
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


# -- reference: the classic per-sequence, per-time-step loop ----------------------------


def loop_loss_and_grads(params, inputs, targets, h0):
    """One sequence at a time, one time step at a time, column vectors and one-hot inputs.

    inputs, targets: (B, T) ints; h0: (B, H). Same maths as rnn_core.loss_and_grads.
    """
    W_xh, W_hh, W_yh, b_h, b_o = (params[k] for k in rnn_core.PARAM_NAMES)
    H, V = W_xh.shape
    dtype = W_xh.dtype
    grads = {k: np.zeros_like(v) for k, v in params.items()}
    bh, bo = b_h[:, None], b_o[:, None]
    loss = 0.0
    for b in range(inputs.shape[0]):
        xs, hs, ps = {}, {-1: h0[b][:, None]}, {}
        for t in range(inputs.shape[1]):
            xs[t] = np.zeros((V, 1), dtype)
            xs[t][inputs[b, t]] = 1
            hs[t] = np.tanh(W_xh @ xs[t] + W_hh @ hs[t - 1] + bh)
            o = W_yh @ hs[t] + bo
            e = np.exp(o - o.max())
            ps[t] = e / e.sum()
            loss -= float(np.log(ps[t][targets[b, t], 0]))
        dh_next = np.zeros((H, 1), dtype)
        for t in reversed(range(inputs.shape[1])):
            do = ps[t].copy()
            do[targets[b, t]] -= 1
            grads["W_yh"] += do @ hs[t].T
            grads["b_o"] += do[:, 0]
            dh = W_yh.T @ do + dh_next
            da = (1 - hs[t] * hs[t]) * dh
            grads["b_h"] += da[:, 0]
            grads["W_xh"] += da @ xs[t].T
            grads["W_hh"] += da @ hs[t - 1].T
            dh_next = W_hh.T @ da
    return loss, grads


# -- reference: PyTorch ------------------------------------------------------------------


def torch_step_fn(params, inputs, targets, h0):
    """A closure running PyTorch nn.RNN forward + backward on the same work, or None."""
    try:
        import torch
    except ImportError:
        return None
    H, V = params["W_xh"].shape
    rnn = torch.nn.RNN(V, H, nonlinearity="tanh", batch_first=True)
    head = torch.nn.Linear(H, V)
    with torch.no_grad():
        rnn.weight_ih_l0.copy_(torch.from_numpy(params["W_xh"]))
        rnn.weight_hh_l0.copy_(torch.from_numpy(params["W_hh"]))
        rnn.bias_ih_l0.copy_(torch.from_numpy(params["b_h"]))
        rnn.bias_hh_l0.zero_()
        head.weight.copy_(torch.from_numpy(params["W_yh"]))
        head.bias.copy_(torch.from_numpy(params["b_o"]))
    x = torch.nn.functional.one_hot(torch.from_numpy(inputs), V).float()
    y = torch.from_numpy(targets).reshape(-1)
    h = torch.from_numpy(h0)[None]

    def step():
        rnn.zero_grad(set_to_none=True)
        head.zero_grad(set_to_none=True)
        out, _ = rnn(x, h)
        loss = torch.nn.functional.cross_entropy(head(out).reshape(-1, V), y, reduction="sum")
        loss.backward()
        return loss.item()

    # same numbers first, so the comparison is of equal work
    ours = rnn_core.loss_and_grads(params, inputs, targets, h0)
    assert abs(step() - ours[0]) <= 1e-3 * abs(ours[0]), "PyTorch and rnn_core disagree on the loss"
    assert np.allclose(rnn.weight_hh_l0.grad.numpy(), ours[1]["W_hh"], rtol=1e-2, atol=1e-2)
    return step


# -- the machine's limit: the same matrix products, timed alone -------------------------


def gemm_only_fn(H, B, T, V, dtype):
    """Every matrix product of one forward + backward step, with nothing else around them."""
    rng = np.random.default_rng(0)
    W_hh = rng.standard_normal((H, H)).astype(dtype)
    W_yh = rng.standard_normal((V, H)).astype(dtype)
    h = rng.standard_normal((B, H)).astype(dtype)
    hs = rng.standard_normal((T * B, H)).astype(dtype)
    do = rng.standard_normal((T * B, V)).astype(dtype)
    onehot = np.eye(V, dtype=dtype)[rng.integers(0, V, T * B)]
    out = np.empty((B, H), dtype)

    def run():
        for _ in range(T):  # forward recurrence: h W_hh^T
            np.matmul(h, W_hh.T, out=out)
        hs @ W_yh.T  # logits
        do.T @ hs  # dW_yh
        do @ W_yh  # dL/dh from the outputs
        for _ in range(T):  # backward recurrence: da W_hh
            np.matmul(h, W_hh, out=out)
        hs.T @ hs  # dW_hh
        hs.T @ onehot  # dW_xh (as a dense product with one-hot rows)

    flops = 2 * (2 * T * B * H * H + 3 * T * B * H * V + T * B * H * H + T * B * H * V)
    return run, flops


# -- the LSTM (rnn_core.lstm) beside PyTorch's nn.LSTM ---------------------------------------------
#
# Self-contained: run with --cell lstm (or both). At H=256, V=91, float32, for the trainer's
# default B=32, T=32 and for B=64, T=64, it times rnn_core.lstm.loss_and_grads against PyTorch's
# nn.LSTM + nn.Linear + cross-entropy, forward and backward, on the CPU, with 2 threads and with 1 (--lstm-threads); each twice:
# as PyTorch runs it by default (on x86 it hands the whole LSTM layer to oneDNN's fused
# kernels) and with oneDNN switched off (ATen's own LSTM cell, one operation at a time).

LSTM_CONFIGS = ((32, 32), (64, 64))  # (B, T)


def lstm_torch_step_fn(params, inputs, targets, onednn=True):
    """A closure running PyTorch nn.LSTM forward + backward on the same work, or None."""
    try:
        import torch
    except ImportError:
        return None
    import warnings

    from rnn_core import lstm

    V, H = params["W_yh"].shape
    net = torch.nn.LSTM(V, H, batch_first=True)  # its gates are stacked i, f, g, o, as ours
    head = torch.nn.Linear(H, V)
    with torch.no_grad():
        net.weight_ih_l0.copy_(torch.from_numpy(params["W_x"]))
        net.weight_hh_l0.copy_(torch.from_numpy(params["W_h"]))
        net.bias_ih_l0.copy_(torch.from_numpy(params["b"]))
        net.bias_hh_l0.zero_()
        head.weight.copy_(torch.from_numpy(params["W_yh"]))
        head.bias.copy_(torch.from_numpy(params["b_o"]))
    x = torch.nn.functional.one_hot(torch.from_numpy(inputs), V).float()
    y = torch.from_numpy(targets).reshape(-1)
    def step():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # setting the flag prints a notice about GPUs
            with torch.backends.mkldnn.flags(enabled=onednn):
                net.zero_grad(set_to_none=True)
                head.zero_grad(set_to_none=True)
                out, _ = net(x)
                loss = torch.nn.functional.cross_entropy(head(out).reshape(-1, V), y, reduction="sum")
                loss.backward()
        return loss.item()

    # same numbers first, so the comparison is of equal work
    ours = lstm.loss_and_grads(params, inputs, targets)
    assert abs(step() - ours[0]) <= 1e-3 * abs(ours[0]), "PyTorch and rnn_core.lstm disagree on the loss"
    assert np.allclose(net.weight_hh_l0.grad.numpy(), ours[1]["W_h"], rtol=1e-2, atol=1e-2)
    return step


def lstm_gemm_only_fn(H, B, T, V, dtype):
    """Every matrix product of one LSTM forward + backward step, with nothing else around them."""
    rng = np.random.default_rng(0)
    W_h = rng.standard_normal((4 * H, H)).astype(dtype)
    W_hT = np.ascontiguousarray(W_h.T)
    W_yh = rng.standard_normal((V, H)).astype(dtype)
    h = rng.standard_normal((B, H)).astype(dtype)
    a = rng.standard_normal((B, 4 * H)).astype(dtype)
    hs = rng.standard_normal((T * B, H)).astype(dtype)
    das = rng.standard_normal((T * B, 4 * H)).astype(dtype)
    dz = rng.standard_normal((T * B, V)).astype(dtype)
    onehot = np.eye(V, dtype=dtype)[rng.integers(0, V, T * B)]
    out_a, out_h = np.empty((B, 4 * H), dtype), np.empty((B, H), dtype)

    def run():
        for _ in range(T):  # forward recurrence: h W_h^T, (B, H) @ (H, 4H)
            np.matmul(h, W_hT, out=out_a)
        hs @ W_yh.T  # logits
        dz.T @ hs  # dW_yh
        dz @ W_yh  # dL/dh from the logits
        for _ in range(T):  # backward recurrence: da W_h, (B, 4H) @ (4H, H)
            np.matmul(a, W_h, out=out_h)
        das.T @ hs  # dW_h
        das.T @ onehot  # dW_x (a dense product with one-hot rows)

    return run


def lstm_main(args):
    """The LSTM table, once per thread count in --lstm-threads (numpy's BLAS and PyTorch alike)."""
    for n in args.lstm_threads:
        with threadpool_limits(n, user_api="blas"):
            lstm_table(args, n)
        print()


def lstm_table(args, threads):
    from rnn_core import lstm

    H, V, dtype = args.hidden_size, args.vocab_size, np.float32
    try:
        import torch

        torch.set_num_threads(threads)
        about_torch = f"torch {torch.__version__}"
    except ImportError:
        about_torch = None
    rows = []
    for B, T in LSTM_CONFIGS:
        rng = np.random.default_rng(0)
        params = lstm.init_params(V, H, seed=0, dtype=dtype)
        inputs, targets = rng.integers(0, V, (B, T)), rng.integers(0, V, (B, T))
        chars = B * T
        print(f"LSTM  H={H} B={B} T={T} V={V} float32, {threads} thread(s), {chars} characters per call")
        fns = {"ours": lambda: lstm.loss_and_grads(params, inputs, targets)}
        for name, onednn in (("torch", True), ("torch_aten", False)):
            step = lstm_torch_step_fn(params, inputs, targets, onednn)
            if step is not None:
                fns[name] = step
        fns["matmul"] = lstm_gemm_only_fn(H, B, T, V, dtype)
        t = time_in_rounds(fns, args.repeats * 2, rounds=6)
        label = {
            "ours": "rnn_core.lstm.loss_and_grads",
            "torch": "PyTorch nn.LSTM (oneDNN)",
            "torch_aten": "PyTorch nn.LSTM (no oneDNN)",
            "matmul": "its matrix products alone",
        }
        for name, seconds in t.items():
            print(f"  {label[name]:30s} {seconds * 1e3:8.2f} ms/call {chars / seconds:12,.0f} chars/s"
                  f"  {t['ours'] / seconds:5.2f}x rnn_core.lstm's speed")
        if about_torch is None:
            print("  PyTorch nn.LSTM: not importable, comparison skipped")
        print(f"  the matrix products alone take {t['matmul'] / t['ours']:.0%} of rnn_core.lstm's time")
        rows.append((B, T, t))
    print()
    print(f"| LSTM, H={H}, float32, {threads} thread(s) | rnn_core.lstm | PyTorch nn.LSTM | PyTorch, no oneDNN | matmul share |")
    print("|---|---|---|---|---|")
    for B, T, t in rows:
        cells = [f"{B * T / t['ours']:,.0f} chars/s"]
        for name in ("torch", "torch_aten"):
            cells.append(f"{B * T / t[name]:,.0f} ({t[name] / t['ours']:.2f}x)" if name in t else "n/a")
        print(f"| B={B}, T={T} | " + " | ".join(cells) + f" | {t['matmul'] / t['ours']:.0%} |")
    if about_torch:
        print(f"({about_torch}, {threads} thread(s) for it and for numpy's BLAS; ratios are PyTorch's time / rnn_core.lstm's: above 1, rnn_core.lstm is faster)")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hidden-size", type=int, default=256)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--seq-length", type=int, default=64)
    ap.add_argument("--vocab-size", type=int, default=91)
    ap.add_argument("--repeats", type=int, default=15, help="timed calls per engine (the median is used)")
    ap.add_argument("--loop-sequences", type=int, default=4, help="sequences the slow loop runs per call")
    ap.add_argument("--lstm-threads", type=int, nargs="+", default=[2, 1],
                    help="thread counts for the LSTM table (BLAS and PyTorch alike); 1 is the fair one on a busy machine")
    ap.add_argument("--cell", choices=("rnn", "lstm", "both"), default="both", help="which engine to time")
    args = ap.parse_args(argv)
    if args.cell in ("lstm", "both"):
        lstm_main(args)
        if args.cell == "lstm":
            return
        print()
    H, B, T, V = args.hidden_size, args.batch_size, args.seq_length, args.vocab_size
    dtype = np.float32
    rng = np.random.default_rng(0)
    params = rnn_core.init_params(V, H, seed=0, dtype=dtype)
    inputs = rng.integers(0, V, (B, T))
    targets = rng.integers(0, V, (B, T))
    h0 = np.zeros((B, H), dtype)
    chars = B * T
    print(f"H={H} B={B} T={T} V={V} float32, {chars} characters per call")

    nb = args.loop_sequences
    fns = {"ours": lambda: rnn_core.loss_and_grads(params, inputs, targets, h0)}
    step = torch_step_fn(params, inputs, targets, h0)
    if step is not None:
        fns["torch"] = step
    t = time_in_rounds(fns, args.repeats)
    t_ours = t["ours"]
    cps_ours = chars / t_ours
    print(f"rnn_core.loss_and_grads  {t_ours * 1e3:9.2f} ms/call  {cps_ours:12,.0f} chars/s")

    t_loop = timeit(lambda: loop_loss_and_grads(params, inputs[:nb], targets[:nb], h0[:nb]), 3, warmup=1)
    cps_loop = nb * T / t_loop
    print(f"per-sequence step loop   {t_loop * B / nb * 1e3:9.2f} ms/call  {cps_loop:12,.0f} chars/s"
          f"  (timed on {nb} sequences, scaled)")

    cps_torch = None
    if step is not None:
        import torch

        t_torch = t["torch"]
        cps_torch = chars / t_torch
        print(f"PyTorch nn.RNN ({torch.get_num_threads()} threads) {t_torch * 1e3:7.2f} ms/call  {cps_torch:12,.0f} chars/s"
              f"  (torch {torch.__version__})")
    else:
        print("PyTorch nn.RNN           not importable: comparison skipped")

    # The limit: the FLOP rate of the same products on one core (BLAS held to one thread,
    # where small products run best), times the cores available, at most two: what a
    # perfect two-way split of the work could reach.
    run, flops = gemm_only_fn(H, B, T, V, dtype)
    with threadpool_limits(1, user_api="blas"):
        t_gemm = timeit(run, args.repeats)
    cores = min(2, os.cpu_count() or 1)
    gemm_rate = flops / t_gemm * cores
    flops_per_char = 6 * (H * H + V * H)
    achieved = flops_per_char * cps_ours
    print(f"numpy matmul on the same products: {gemm_rate / cores / 1e9:.1f} GFLOP/s on one core,"
          f" {gemm_rate / 1e9:.1f} on {cores};"
          f" rnn_core achieves {achieved / 1e9:.1f} GFLOP/s ({flops_per_char:,} FLOPs/char)")
    print()
    print(f"ratio rnn_core / per-sequence loop: {cps_ours / cps_loop:6.1f}x")
    if cps_torch is not None:
        print(f"ratio rnn_core / PyTorch nn.RNN:    {cps_ours / cps_torch:6.2f}x")
    print(f"share of the matmul limit:          {achieved / gemm_rate:6.1%}")


if __name__ == "__main__":
    main()
