"""Forward + BPTT throughput of rnn_core, its ablations and two references, measured in one run.

    python benchmarks/throughput.py                # every cell, at B=32 T=32 (the trainer's default), then B=64 T=64
    python benchmarks/throughput.py --cell rnn --batch-size 64 --seq-length 64 --rounds 10
    python benchmarks/throughput.py --cell gru --gated-threads 1

With --cell lstm or gru (or all, the default) it also times the gated cells against PyTorch's
nn.LSTM and nn.GRU: see gated_main below.

Prints characters per second (one character = one time step of one sequence, forward and
backward) at H=256, V=91, float32, for
  - rnn_core.loss_and_grads, the engine the notebooks and the trainer use (BLAS with its own
    threads);
  - "reference loop": the same call with fast=False, the loop over rnn.step_backward as notebook
    04 derives it: what the fast path (rnn_core._fast_rnn) buys;
  - two ablations (they need threadpoolctl, not a dependency of rnn_core: `pip install
    threadpoolctl`; without it the rows are skipped): "one BLAS thread", the same call with
    BLAS held to one thread; and "two halves", the batch cut into two halves run in two
    threads, BLAS limited to one thread each, the gradients added: the split rnn_core used to
    do inside loss_and_grads, rebuilt here around the public function;
  - PyTorch nn.RNN + nn.Linear + cross-entropy, forward and backward, when torch is
    importable (optional: the project never needs it);
  - a per-sequence, per-time-step loop in the style of the classic min-char-rnn (column
    vectors, one-hot inputs, one sequence at a time), written below for comparison;
and each one's speed relative to rnn_core, which is what this benchmark reports: absolute speeds
depend on the machine and on whatever else runs on it, ratios measured side by side much less.
The engines are timed in alternating blocks (``--rounds`` blocks of ``--calls`` calls each).

It also prints the time the same matrix products take alone (with the same BLAS settings): the
share of rnn_core's time they account for says how little is left to gain around them.

The windows are cut, as the trainer cuts them, by StreamBatcher from a random text of the
novel's length encoded by Vocabulary. That matters beyond realism: once a process has freed a
large block (encoding the text does), glibc's malloc keeps freed memory for reuse, and the
engine's intermediates cost little to allocate. A process that never freed a large block
hands them back to the system after every call instead, and each call starts on fresh pages,
which is slower (and not how the engine runs in training).

The last lines are a Markdown table for the README.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import rnn_core

try:
    from threadpoolctl import ThreadpoolController
except ImportError:  # the "two halves" and "one BLAS thread" rows need it
    ThreadpoolController = None

CONFIGS = ((32, 32), (64, 64))  # (B, T): the trainer's default, and a larger batch
TEXT_LENGTH = 704_000  # characters, about the length of Pride and Prejudice


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


def time_in_rounds(fns, rounds, calls, pause=0.3):
    """Median time per call of each function, timed in alternating blocks.

    Each round times every function for ``calls`` calls in a row, with a pause between
    blocks: thread pools (OpenBLAS's, PyTorch's OpenMP) keep spinning for a while after
    their work, and one engine's spinning threads must not be charged to the other.
    Alternating blocks spreads any change in the machine's load over all engines alike.
    """
    times = {name: [] for name in fns}
    for fn in fns.values():  # warm-up
        fn()
        fn()
    for _ in range(rounds):
        for name, fn in fns.items():
            time.sleep(pause)
            for _ in range(calls):
                t0 = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - t0)
    return {name: statistics.median(ts) for name, ts in times.items()}


# -- ablations: BLAS held to one thread; the batch in two halves, in two threads, one BLAS thread each


def blas_controller():
    """A threadpoolctl controller of the BLAS libraries numpy loaded, or None without threadpoolctl."""
    return None if ThreadpoolController is None else ThreadpoolController()


def one_blas_thread_fn(params, inputs, targets, h0):
    """A closure running loss_and_grads unchanged, with BLAS held to one thread, or None.

    Beside "two halves" it tells the split's own effect from that of BLAS's thread count: on a
    machine busy with other work, a BLAS that waits for its second thread at every small
    product can lose more than that thread brings.
    """
    controller = blas_controller()
    if controller is None:
        return None

    def step():
        with controller.limit(limits=1, user_api="blas"):
            return rnn_core.loss_and_grads(params, inputs, targets, h0)

    return step


def two_halves_fn(params, inputs, targets, h0):
    """A closure running loss_and_grads as two halves of the batch in two threads, or None.

    This is what rnn_core did inside loss_and_grads until the split was measured slower at
    the trainer's default: each thread runs its half with BLAS held to one thread (numpy
    releases the GIL inside its loops and BLAS calls), and the halves' gradients are added.
    """
    controller = blas_controller()
    if controller is None or (os.cpu_count() or 1) < 2 or len(inputs) < 2:
        return None
    m = len(inputs) // 2
    halves = [(inputs[:m], targets[:m], h0[:m]), (inputs[m:], targets[m:], h0[m:])]
    pool = ThreadPoolExecutor(max_workers=2)

    def step():
        with controller.limit(limits=1, user_api="blas"):
            (l1, g1, h1), (l2, g2, h2) = pool.map(lambda half: rnn_core.loss_and_grads(params, *half), halves)
        return l1 + l2, {k: g1[k] + g2[k] for k in g1}, np.concatenate([h1, h2])

    # same numbers first, so the comparison is of equal work
    loss, grads, h = step()
    ours = rnn_core.loss_and_grads(params, inputs, targets, h0)
    assert np.isclose(loss, ours[0], rtol=1e-5) and np.allclose(h, ours[2], atol=1e-6)
    assert all(np.allclose(grads[k], ours[1][k], rtol=1e-3, atol=1e-4) for k in grads)
    return step


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


def torch_layers(torch, layer, params, names):
    """PyTorch's recurrent ``layer`` and a Linear read-out holding our weights: ``names`` are the
    keys of W_ih, W_hh and the bias in ``params``; PyTorch's second bias is zero."""
    V, H = params["W_yh"].shape
    net, head = layer, torch.nn.Linear(H, V)
    with torch.no_grad():
        for ours, theirs in zip(names, (net.weight_ih_l0, net.weight_hh_l0, net.bias_ih_l0)):
            theirs.copy_(torch.from_numpy(params[ours]))
        net.bias_hh_l0.zero_()
        head.weight.copy_(torch.from_numpy(params["W_yh"]))
        head.bias.copy_(torch.from_numpy(params["b_o"]))
    return net, head


def torch_step_fn(params, inputs, targets, h0):
    """A closure running PyTorch nn.RNN forward + backward on the same work, or None."""
    try:
        import torch
    except ImportError:
        return None
    H, V = params["W_xh"].shape
    rnn, head = torch_layers(
        torch, torch.nn.RNN(V, H, nonlinearity="tanh", batch_first=True), params, ("W_xh", "W_hh", "b_h")
    )
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


# -- the matrix products alone -------------------------------------------------------------


def gemm_only_fn(H, B, T, V, dtype):
    """Every matrix product of one forward + backward call of rnn_core, with nothing around them."""
    rng = np.random.default_rng(0)
    W_hh = rng.standard_normal((H, H)).astype(dtype)
    W_yh = rng.standard_normal((V, H)).astype(dtype)
    h = rng.standard_normal((B, H)).astype(dtype)
    hs = rng.standard_normal((T * B, H)).astype(dtype)
    do = rng.standard_normal((T * B, V)).astype(dtype)
    onehot = np.eye(V, dtype=dtype)[rng.integers(0, V, T * B)]

    def run():
        for _ in range(T):  # forward recurrence: W_hh h_{t-1}, one column per sequence
            W_hh @ h.T
        hs @ W_yh.T  # logits
        do.T @ hs  # dW_yh
        do @ W_yh  # dL/dh from the outputs
        for _ in range(T):  # backward recurrence: W_hh^T da_t
            W_hh.T @ h.T
        hs.T @ hs  # dW_hh
        hs.T @ onehot  # dW_xh (as a dense product with one-hot rows)

    return run


# -- one configuration, and the report ---------------------------------------------------------


def random_text(V, n=TEXT_LENGTH, seed=0):
    """The training ids of a random text of n characters drawn from V code points, as train() encodes it."""
    chars = [chr(c) for c in range(32, 32 + V)]
    text = "".join(np.random.default_rng(seed).choice(chars, n))
    return rnn_core.Vocabulary.from_text(text).encode(text)


def measure(ids, H, B, T, V, rounds, calls, loop_sequences):
    """Characters per second of every engine at one (B, T); None for an engine not available."""
    dtype = np.float32
    params = rnn_core.init_params(V, H, seed=0, dtype=dtype)
    inputs, targets = (np.ascontiguousarray(a) for a in rnn_core.StreamBatcher(ids, B, T).window(0))
    h0 = np.zeros((B, H), dtype)
    fns = {
        "rnn_core": lambda: rnn_core.loss_and_grads(params, inputs, targets, h0),
        "reference": lambda: rnn_core.loss_and_grads(params, inputs, targets, h0, fast=False),
    }
    for name, make in (
        ("one BLAS thread", one_blas_thread_fn),
        ("two halves", two_halves_fn),
        ("torch", torch_step_fn),
    ):
        step = make(params, inputs, targets, h0)
        if step is not None:
            fns[name] = step
    fns["matmuls alone"] = gemm_only_fn(H, B, T, V, dtype)
    seconds = time_in_rounds(fns, rounds, calls)
    n = min(loop_sequences, B)
    seconds["loop"] = timeit(lambda: loop_loss_and_grads(params, inputs[:n], targets[:n], h0[:n]), 3, warmup=1) * B / n
    return {name: B * T / s for name, s in seconds.items()}


ROWS = (
    ("rnn_core", "**`rnn_core.loss_and_grads`** (BLAS with its own threads)"),
    ("reference", "ablation: the reference loop over `step_backward` (`fast=False`)"),
    ("one BLAS thread", "ablation: the same, BLAS held to one thread"),
    ("two halves", "ablation: the batch as two halves in two threads, one BLAS thread each (removed)"),
    ("torch", "PyTorch {torch} `nn.RNN` + `Linear` + cross-entropy, CPU, {threads} threads"),
    ("loop", "per-sequence, per-time-step loop (classic min-char-rnn style)"),
)


def report(results, torch_label):
    """The README's table: characters per second and speed relative to rnn_core, per configuration."""
    head = "| engine |" + "".join(f" B = {B}, T = {T}: chars/s | relative |" for B, T in results)
    lines = [head, "|---|" + "---:|---:|" * len(results)]
    for key, label in ROWS:
        cells = []
        for cps in results.values():
            if cps.get(key) is None:
                cells.append(" n/a | n/a |")
            else:
                cells.append(f" {cps[key]:,.0f} | {cps[key] / cps['rnn_core']:.2f} |")
        lines.append(f"| {label.format(**torch_label)} |" + "".join(cells))
    return "\n".join(lines)


# -- the gated cells (rnn_core.lstm, rnn_core.gru) beside PyTorch's nn.LSTM and nn.GRU ------------------
#
# Self-contained: run with --cell lstm, gru or all. At H=256, V=91, float32, for the trainer's default
# B=32, T=32 and for B=64, T=64, it times the cell's loss_and_grads (its fast path, and its reference loop
# over the step functions, fast=False) against PyTorch's layer + nn.Linear + cross-entropy, forward and
# backward, on the CPU, once per thread count of --gated-threads; PyTorch twice: as it runs by default (on
# x86 it hands a whole LSTM layer to oneDNN's fused kernels) and with oneDNN switched off (ATen's own cell,
# one operation at a time).

GATED_CONFIGS = ((32, 32), (64, 64))  # (B, T)
# both stack their gates as rnn_core does: i, f, g, q (PyTorch names the output gate o) and r, z, n
TORCH_LAYERS = {"lstm": "LSTM", "gru": "GRU"}


def gated_torch_step_fn(cell, params, inputs, targets, onednn=True):
    """A closure running PyTorch's nn.LSTM or nn.GRU forward + backward on the same work, or None."""
    try:
        import torch
    except ImportError:
        return None
    import warnings

    module = rnn_core.CELLS[cell]
    V, H = params["W_yh"].shape
    layer = getattr(torch.nn, TORCH_LAYERS[cell])(V, H, batch_first=True)
    net, head = torch_layers(torch, layer, params, ("W_x", "W_h", "b"))
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
    ours = module.loss_and_grads(params, inputs, targets)
    assert abs(step() - ours[0]) <= 1e-3 * abs(ours[0]), f"PyTorch and rnn_core.{cell} disagree on the loss"
    assert np.allclose(net.weight_hh_l0.grad.numpy(), ours[1]["W_h"], rtol=1e-2, atol=1e-2)
    return step


def gated_gemm_only_fn(gates, H, B, T, V, dtype):
    """Every matrix product of one forward + backward call of a cell with ``gates`` gate blocks, nothing else.

    The same products, shapes and layout as rnn_core's fast paths: inside their loops one column per sequence.
    """
    rng = np.random.default_rng(0)
    W_h = rng.standard_normal((gates * H, H)).astype(dtype)
    W_yh = rng.standard_normal((V, H)).astype(dtype)
    h = rng.standard_normal((H, B)).astype(dtype)
    a = rng.standard_normal((gates * H, B)).astype(dtype)
    hs = rng.standard_normal((T * B, H)).astype(dtype)
    das = rng.standard_normal((gates * H, T * B)).astype(dtype)
    dz = rng.standard_normal((T, B, V)).astype(dtype)
    onehot = np.eye(V, dtype=dtype)[rng.integers(0, V, T * B)]
    out_a, out_h = np.empty((gates * H, B), dtype), np.empty((H, B), dtype)

    def run():
        for _ in range(T):  # forward recurrence: W_h h_{t-1}, (kH, H) @ (H, B)
            np.matmul(W_h, h, out=out_a)
        hs @ W_yh.T  # logits
        dz.reshape(T * B, V).T @ hs  # dW_yh
        np.matmul(W_yh.T, dz.transpose(0, 2, 1))  # dL/dh from the logits, (H, V) @ (V, B) for each t
        for _ in range(T):  # backward recurrence: W_h^T da_t, (H, kH) @ (kH, B)
            np.matmul(W_h.T, a, out=out_h)
        das @ hs  # dW_h
        das @ onehot  # dW_x (a dense product with one-hot rows)

    return run


def gated_main(args, cells):
    """One table per gated cell and per thread count in --gated-threads (numpy's BLAS and PyTorch alike).

    PyTorch's own thread count is restored afterwards, for the vanilla table.
    """
    try:
        import torch

        default_threads = torch.get_num_threads()
    except ImportError:
        torch = None
    for n in args.gated_threads:
        controller = blas_controller()
        for cell in cells:
            if controller is None:  # optional: without it, BLAS picks its own thread count
                print(f"threadpoolctl is not installed: numpy's BLAS is not limited to {n} thread(s)")
                gated_table(args, cell, n)
            else:
                with controller.limit(limits=n, user_api="blas"):
                    gated_table(args, cell, n)
            print()
    if torch is not None:
        torch.set_num_threads(default_threads)


def gated_table(args, cell, threads):
    module = rnn_core.CELLS[cell]
    H, V, dtype = args.hidden_size, args.vocab_size, np.float32
    try:
        import torch

        torch.set_num_threads(threads)
        about_torch = f"torch {torch.__version__}"
    except ImportError:
        about_torch = None
    rows = []
    for B, T in GATED_CONFIGS:
        rng = np.random.default_rng(0)
        params = module.init_params(V, H, seed=0, dtype=dtype)
        inputs, targets = rng.integers(0, V, (B, T)), rng.integers(0, V, (B, T))
        chars = B * T
        print(f"{cell.upper()}  H={H} B={B} T={T} V={V} float32, {threads} thread(s), {chars} characters per call")
        fns = {  # partial, not lambda: each binds this configuration's arrays now
            "ours": functools.partial(module.loss_and_grads, params, inputs, targets),
            "reference": functools.partial(module.loss_and_grads, params, inputs, targets, fast=False),
        }
        for name, onednn in (("torch", True), ("torch_aten", False)):
            step = gated_torch_step_fn(cell, params, inputs, targets, onednn)
            if step is not None:
                fns[name] = step
        fns["matmul"] = gated_gemm_only_fn(len(module.GATES), H, B, T, V, dtype)
        t = time_in_rounds(fns, args.rounds, args.calls)
        label = {
            "ours": f"rnn_core.{cell}.loss_and_grads",
            "reference": "  its reference loop (fast=False)",
            "torch": f"PyTorch nn.{TORCH_LAYERS[cell]} (default)",
            "torch_aten": f"PyTorch nn.{TORCH_LAYERS[cell]} (no oneDNN)",
            "matmul": "its matrix products alone",
        }
        for name, seconds in t.items():
            print(
                f"  {label[name]:34s} {seconds * 1e3:8.2f} ms/call {chars / seconds:12,.0f} chars/s"
                f"  {t['ours'] / seconds:5.2f}x rnn_core.{cell}'s speed"
            )
        if about_torch is None:
            print(f"  PyTorch nn.{TORCH_LAYERS[cell]}: not importable, comparison skipped")
        print(f"  the matrix products alone take {t['matmul'] / t['ours']:.0%} of rnn_core.{cell}'s time")
        rows.append((B, T, t))
    print()
    print(
        f"| {cell.upper()}, H={H}, float32, {threads} thread(s) | rnn_core.{cell} | its reference loop | "
        f"PyTorch nn.{TORCH_LAYERS[cell]} | PyTorch, no oneDNN | matmul share |"
    )
    print("|---|---|---|---|---|---|")
    for B, T, t in rows:
        cells = [f"{B * T / t['ours']:,.0f} chars/s"]
        for name in ("reference", "torch", "torch_aten"):
            cells.append(f"{B * T / t[name]:,.0f} ({t[name] / t['ours']:.2f}x)" if name in t else "n/a")
        print(f"| B={B}, T={T} | " + " | ".join(cells) + f" | {t['matmul'] / t['ours']:.0%} |")
    if about_torch:
        print(
            f"({about_torch}, {threads} thread(s) for it and for numpy's BLAS; ratios are the other's time / "
            f"rnn_core.{cell}'s: above 1, rnn_core.{cell} is faster)"
        )


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hidden-size", type=int, default=256)
    ap.add_argument("--batch-size", type=int, help="run one configuration (default: B=32 T=32, then B=64 T=64)")
    ap.add_argument("--seq-length", type=int, help="with --batch-size")
    ap.add_argument("--vocab-size", type=int, default=91)
    ap.add_argument("--rounds", type=int, default=6, help="alternating blocks per engine (default: 6)")
    ap.add_argument("--calls", type=int, default=8, help="timed calls per block (default: 8; the median is used)")
    ap.add_argument("--loop-sequences", type=int, default=4, help="sequences the slow loop runs per call")
    ap.add_argument(
        "--gated-threads",
        type=int,
        nargs="+",
        default=[2, 1],
        help="thread counts for the LSTM's and GRU's tables (BLAS and PyTorch alike); "
        "1 is the fair one on a busy machine",
    )
    ap.add_argument(
        "--cell", choices=("rnn", "lstm", "gru", "all"), default="all", help="which cell to time (default: all)"
    )
    args = ap.parse_args(argv)
    gated = [cell for cell in TORCH_LAYERS if args.cell in (cell, "all")]
    if gated:
        gated_main(args, gated)
    if args.cell not in ("rnn", "all"):
        return
    H, V = args.hidden_size, args.vocab_size
    configs = CONFIGS if args.batch_size is None else ((args.batch_size, args.seq_length or args.batch_size),)
    torch_label = {"torch": "(not importable)", "threads": "-"}
    try:
        import torch

        torch_label = {"torch": torch.__version__.split("+")[0], "threads": torch.get_num_threads()}
    except ImportError:
        pass
    if ThreadpoolController is None:
        print("threadpoolctl is not installed: the ablation rows are skipped (pip install threadpoolctl)")
    print(f"H={H} V={V} float32; {os.cpu_count()} cores; {args.rounds} rounds of {args.calls} calls per engine")
    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)")

    ids = random_text(V)
    results = {}
    for B, T in configs:
        cps = results[(B, T)] = measure(ids, H, B, T, V, args.rounds, args.calls, args.loop_sequences)
        print(f"\nB={B} T={T}: {B * T} characters per call")
        for key, _ in ROWS:
            if cps.get(key) is not None:
                print(f"  {key:14s} {cps[key]:12,.0f} chars/s   {cps[key] / cps['rnn_core']:6.3f} x rnn_core")
        print(f"  the same matrix products alone take {cps['rnn_core'] / cps['matmuls alone']:.0%} of rnn_core's time")
        print(f"  rnn_core / per-sequence loop: {cps['rnn_core'] / cps['loop']:.1f}x")
    print(f"\nload average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())} (1, 5, 15 min)\n")
    print(report(results, torch_label))


if __name__ == "__main__":
    main()
