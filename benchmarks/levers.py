"""What could let the series' best cell win the two-minute race: each lever measured as load cannot distort it.

    .venv/bin/python benchmarks/levers.py cost                     # seconds per training step, as ratios in one run
    .venv/bin/python benchmarks/levers.py quality --steps 7000     # validation bpc after a fixed number of steps
    .venv/bin/python benchmarks/levers.py quality --steps 7000 --runs gru:update_bias=1 gru:batch_size=64

Two measurements, because a wall-clock race on a shared machine measures the machine's load as
much as the engine:

- ``cost``: the time of one training step (``loss_and_grads``, clipping and Adam, as the trainer
  takes it) for each cell and each (B, T) asked for, timed in alternating blocks in one process
  and reported relative to the first: ratios, which the load shifts far less than absolute speeds.
- ``quality``: the validation bits per character after a fixed number of steps, the learning rate
  decaying over those steps as the race's decays over its seconds: deterministic, whatever the load.

A cell written ``torch:gru`` (``torch:rnn``, ``torch:lstm``) is PyTorch's, trained by
train_budget.py's recipe.
  A run is ``cell`` or ``cell:field=value,...`` with TrainConfig fields (``steps`` among them, to
  give a run its own count), plus ``update_bias`` (GRU) or ``forget_bias`` (LSTM) for the initial
  gate biases.

Together: a lever that makes a step cheaper buys steps in proportion (``cost``), and what those
steps are worth is read off ``quality`` at the step count the race's budget would then allow.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import rnn_core
from rnn_core.cells import zero_state
from rnn_core.data import StreamBatcher, split_train_val

INIT_OPTIONS = ("update_bias", "forget_bias")  # init_params arguments a run may set


def cost(args):
    """Seconds per training step of each (cell, B, T), timed in alternating blocks; printed relative to the first."""
    text = rnn_core.load_text(args.text)
    vocab = rnn_core.Vocabulary.from_text(text)
    train_ids = split_train_val(vocab.encode(text), 0.1)[0]
    steps = {}
    for cell in args.cells:
        for shape in args.shapes:
            B, T = (int(n) for n in shape.split("x"))
            steps[(cell, B, T)] = _one_step(cell, vocab.size, args.hidden_size, B, T, train_ids)
    times = {key: [] for key in steps}
    for fn in steps.values():  # warm-up
        fn()
    for _ in range(args.rounds):
        for key, fn in steps.items():
            time.sleep(0.2)  # BLAS threads spinning after one block are not charged to the next
            for _ in range(args.calls):
                t0 = time.perf_counter()
                fn()
                times[key].append(time.perf_counter() - t0)
    median = {key: statistics.median(ts) for key, ts in times.items()}
    first = next(iter(median.values()))
    print(f"H={args.hidden_size}, float32, {args.rounds} rounds of {args.calls} steps; relative to the first row")
    print("| cell | B | T | ms per step | steps per second relative | characters per second relative |")
    print("|---|---:|---:|---:|---:|---:|")
    base_chars = next(iter(steps))[1] * next(iter(steps))[2] / first
    for (cell, B, T), seconds in median.items():
        chars = B * T / seconds / base_chars
        print(f"| {cell} | {B} | {T} | {seconds * 1e3:.2f} | {first / seconds:.2f} | {chars:.2f} |")


def _one_step(cell, V, H, B, T, train_ids):
    """A closure taking one training step of ``cell`` at (B, T), as the trainer does, on the first window."""
    if cell.startswith("torch:"):
        return _one_torch_step(cell.split(":")[1], V, H, B, T, train_ids)
    module = rnn_core.CELLS[cell]
    params = module.init_params(V, H, seed=0, dtype=np.float32)
    opt = rnn_core.adam_init(params)
    X, Y = StreamBatcher(train_ids, B, T).window(0)
    state0 = zero_state(params, cell, (B,))

    def step():
        _, grads, _ = module.loss_and_grads(params, X, Y, state0)
        for g in grads.values():
            g *= np.float32(1.0 / X.size)
        grads, _ = rnn_core.clip_global_norm(grads, 5.0)
        rnn_core.adam_update(params, grads, opt, 5e-3)

    return step


def _one_torch_step(cell, V, H, B, T, train_ids):
    """The same for PyTorch's cell: forward, backward, clipping and Adam."""
    import torch

    from train_budget import TORCH_LAYERS

    layer, head = getattr(torch.nn, TORCH_LAYERS[cell])(V, H, batch_first=True), torch.nn.Linear(H, V)
    parameters = [*layer.parameters(), *head.parameters()]
    opt = torch.optim.Adam(parameters, lr=5e-3)
    X, Y = (torch.from_numpy(np.ascontiguousarray(a)) for a in StreamBatcher(train_ids, B, T).window(0))
    x = torch.nn.functional.one_hot(X, V).float()

    def step():
        z, _ = layer(x)
        loss = torch.nn.functional.cross_entropy(head(z).reshape(-1, V), Y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(parameters, 5.0)
        opt.step()

    return step


def quality(args):
    """Validation bpc after --steps steps for each run of --runs, the rate decaying over the steps."""
    text = rnn_core.load_text(args.text)
    print(f"{args.steps} steps each, H={args.hidden_size}; the learning rate decays linearly over the steps")
    print("| run | val bpc | seconds (for scale only) |")
    print("|---|---:|---:|")
    for spec in args.runs:
        torch_prefix = "torch:" if spec.startswith("torch:") else ""
        cell, _, options = spec[len(torch_prefix) :].partition(":")
        cell = torch_prefix + cell
        fields = dict(kv.split("=") for kv in options.split(",")) if options else {}
        init = {k: float(fields.pop(k)) for k in INIT_OPTIONS if k in fields}
        settings = {"hidden_size": args.hidden_size, "steps": args.steps, **{k: _number(v) for k, v in fields.items()}}
        if cell.startswith("torch:"):
            config = rnn_core.TrainConfig(cell=cell.split(":")[1], eval_every=0, checkpoint_every=0, **settings)
            bpc, _, seconds = _train_torch(text, config)
        else:
            config = rnn_core.TrainConfig(cell=cell, eval_every=0, checkpoint_every=0, **settings)
            result = _train(text, config, init)
            bpc, seconds = result.val_bpc, result.state.elapsed
        print(f"| {spec} | {bpc:.4f} | {seconds:.0f} |", flush=True)


def _train_torch(text, config):
    """PyTorch's cell trained by train_budget.py's recipe for config.steps steps."""
    import torch

    from train_budget import run_torch

    vocab = rnn_core.Vocabulary.from_text(text)
    train_ids, val_ids = split_train_val(vocab.encode(text), config.val_fraction)
    return run_torch(torch, config, train_ids, val_ids, vocab.size, "default")


def _train(text, config, init):
    """rnn_core.train, with the cell's initial gate biases set by ``init`` (update_bias, forget_bias)."""
    if not init:
        return rnn_core.train(text, config, progress=False)
    module = rnn_core.CELLS[config.cell]
    original = module.init_params
    module.init_params = lambda *a, **kw: original(*a, **kw, **init)  # the trainer calls it through the registry
    try:
        return rnn_core.train(text, config, progress=False)
    finally:
        module.init_params = original


def _number(s):
    try:
        return int(s)
    except ValueError:
        return float(s)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("cost", help="seconds per training step, as ratios in one run")
    c.add_argument("--cells", nargs="+", default=list(rnn_core.CELLS), help="rnn, lstm, gru, torch:lstm, ...")
    c.add_argument("--shapes", nargs="+", default=["32x32"], help="BxT, e.g. 32x32 64x32 (default: 32x32)")
    c.add_argument("--rounds", type=int, default=5)
    c.add_argument("--calls", type=int, default=10)
    q = sub.add_parser("quality", help="validation bpc after a fixed number of steps")
    q.add_argument("--steps", type=int, default=2000)
    q.add_argument("--runs", nargs="+", default=list(rnn_core.CELLS), help="cell or cell:field=value,...")
    for p in (c, q):
        p.add_argument("--hidden-size", type=int, default=256)
        p.add_argument("--text", help="text file (default: as rnn_core.load_text finds it)")
    args = ap.parse_args(argv)
    (cost if args.command == "cost" else quality)(args)


if __name__ == "__main__":
    main()
