"""The race: validation bits per character after S seconds of training, rnn_core against PyTorch.

    .venv/bin/python benchmarks/train_budget.py                        # 120 s a run, all three cells, both engines
    .venv/bin/python benchmarks/train_budget.py --seconds 3            # a quick check that everything runs
    .venv/bin/python benchmarks/train_budget.py --cells gru --rates 5e-3 1e-2
    .venv/bin/python benchmarks/train_budget.py --sweep-seconds 30     # sweep at 30 s, race the winners at 120 s

For each cell (the vanilla RNN, the LSTM, the GRU) it trains rnn_core's cell and PyTorch's
(``nn.RNN``, ``nn.LSTM``, ``nn.GRU``) with one recipe, and prints one table. What the race
holds equal, for both engines:

- the wall-clock budget (``--seconds``), from the call that starts a run to the end of its last
  step; the runs take turns on the machine, never at the same time;
- the data: the same text, the same split (first 90% train, last 10% validation), the same B
  streams read in windows of T characters, the state carried from window to window and reset
  at the end of a pass;
- the model's size (H) and form: one-hot input, the cell, a linear read-out, cross-entropy;
- the optimiser: Adam (betas 0.9, 0.999, eps 1e-8) on the mean loss per character, global-norm
  clipping at 5, float32;
- the schedule: the peak rate decays linearly to 2% of it over the wall budget
  (``rnn_core.learning_rate_at`` computes both engines' rates);
- the rate: each engine's best peak rate from the same small sweep (``--rates``), picked by the
  validation figure the table reports (for both engines alike);
- the validation figure: ``rnn_core.bits_per_char``'s definition (the held-out text cut into
  ``val_streams`` pieces read side by side from a zero state, carried in windows of BPC_WINDOW).

What differs: each engine initialises its weights its own way (rnn_core: orthogonal recurrent
blocks, notebook 03 and 08; PyTorch: uniform in +-1/sqrt(H)), unless ``--torch-init rnn_core``
gives PyTorch rnn_core's initial weights; PyTorch's cells have a second bias vector (b_hh), which
adds nothing for the vanilla RNN and the LSTM and, for the GRU, H numbers inside the reset
gate's product; each engine runs its own kernels with its own threads (``--threads`` sets both).

Also printed, for scale: the uniform, unigram and bigram baselines on the same validation text.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import rnn_core
from rnn_core.data import StreamBatcher, split_train_val

TORCH_LAYERS = {"rnn": "RNN", "lstm": "LSTM", "gru": "GRU"}
RATES = (2e-3, 5e-3, 1e-2)  # the default sweep of peak learning rates
NO_STEP_LIMIT = 10**9  # the race is for a time budget: no run comes near this many steps


def baselines(train_ids, val_ids, V):
    """Validation bpc of the uniform, unigram and bigram models (add-one smoothing)."""
    uniform = math.log2(V)
    counts = np.bincount(train_ids, minlength=V) + 1.0
    unigram = float(-np.mean(np.log2(counts[val_ids] / counts.sum())))
    pairs = np.ones((V, V))
    np.add.at(pairs, (train_ids[:-1], train_ids[1:]), 1.0)
    cond = pairs / pairs.sum(axis=1, keepdims=True)  # P(next | previous)
    bigram = float(-np.mean(np.log2(cond[val_ids[:-1], val_ids[1:]])))
    return uniform, unigram, bigram


def race_config(cell, lr, args):
    """The TrainConfig both engines follow: rnn_core trains with it, PyTorch reads its schedule and sizes."""
    return rnn_core.TrainConfig(
        cell=cell,
        hidden_size=args.hidden_size,
        batch_size=args.batch_size,
        seq_length=args.seq_length,
        learning_rate=lr,
        steps=NO_STEP_LIMIT,
        max_seconds=args.seconds,
        eval_every=0,
        checkpoint_every=0,
        seed=args.seed,
    )


def run_rnn_core(text, config):
    """Train rnn_core for the config's budget, validating only at the end; returns (val_bpc, steps, seconds)."""
    result = rnn_core.train(text, config, progress=False)
    return result.val_bpc, result.step, result.state.elapsed


def run_torch(torch, config, train_ids, val_ids, V, init):
    """Train PyTorch's cell with the same recipe for the config's budget; returns (val_bpc, steps, seconds).

    The budget is config.max_seconds, or config.steps when max_seconds is None (benchmarks/levers.py).

    init: "default" (PyTorch's own initialisation) or "rnn_core" (the weights rnn_core starts from,
    PyTorch's second bias at zero).
    """
    nn, H, cell = torch.nn, config.hidden_size, config.cell
    t0 = time.perf_counter()  # the budget counts from here, as rnn_core's from its call
    torch.manual_seed(config.seed)
    layer = getattr(nn, TORCH_LAYERS[cell])(V, H, batch_first=True)
    head = nn.Linear(H, V)
    if init == "rnn_core":
        start = rnn_core.CELLS[cell].init_params(
            V, H, seed=config.seed, dtype=np.float32, recurrent_scale=config.recurrent_scale
        )
        names = ("W_xh", "W_hh", "b_h") if cell == "rnn" else ("W_x", "W_h", "b")
        with torch.no_grad():
            for ours, theirs in zip(names, (layer.weight_ih_l0, layer.weight_hh_l0, layer.bias_ih_l0)):
                theirs.copy_(torch.from_numpy(start[ours]))
            layer.bias_hh_l0.zero_()
            head.weight.copy_(torch.from_numpy(start["W_yh"]))
            head.bias.copy_(torch.from_numpy(start["b_o"]))
    parameters = [*layer.parameters(), *head.parameters()]
    opt = torch.optim.Adam(parameters, lr=config.learning_rate)

    def zero_state(n):  # h, or the LSTM's (h, c): (layers=1, n, H) each
        h = torch.zeros(1, n, H)
        return (h, torch.zeros_like(h)) if cell == "lstm" else h

    def detach(state):  # truncated BPTT: the state is carried, its history is not
        return tuple(s.detach() for s in state) if cell == "lstm" else state.detach()

    def logits_of(x, state):
        z, state = layer(nn.functional.one_hot(x, V).float(), state)
        return head(z), state

    batcher = StreamBatcher(train_ids, config.batch_size, config.seq_length)
    state, step, window = zero_state(config.batch_size), 0, 0
    while step < config.steps:
        seconds = time.perf_counter() - t0
        if config.max_seconds is not None and seconds >= config.max_seconds:
            break
        for group in opt.param_groups:
            group["lr"] = rnn_core.learning_rate_at(config, step, seconds)
        X, Y = batcher.window(window)
        logits, state = logits_of(torch.from_numpy(X), detach(state))
        loss = nn.functional.cross_entropy(logits.reshape(-1, V), torch.from_numpy(Y).reshape(-1))  # the mean
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(parameters, config.clip_norm)
        opt.step()
        step, window = step + 1, window + 1
        if window == batcher.windows_per_pass:
            window, state = 0, zero_state(config.batch_size)
    elapsed = time.perf_counter() - t0
    # validation as rnn_core.bits_per_char does it: val_streams pieces, zero state, carried across windows
    n = min(config.val_streams, len(val_ids) - 1)
    L = (len(val_ids) - 1) // n
    X = torch.from_numpy(val_ids[: n * L].reshape(n, L))
    Y = torch.from_numpy(val_ids[1 : n * L + 1].reshape(n, L))
    total, state, w = 0.0, zero_state(n), rnn_core.BPC_WINDOW
    with torch.no_grad():
        for s in range(0, L, w):
            logits, state = logits_of(X[:, s : s + w], state)
            y = Y[:, s : s + w].reshape(-1)
            total += nn.functional.cross_entropy(logits.reshape(-1, V), y, reduction="sum").item()
    return total / (n * L) / math.log(2), step, elapsed


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Validation bits per character after a fixed training time, rnn_core against PyTorch."
    )
    parser.add_argument("--seconds", type=float, default=120.0, help="training budget per run (default: 120)")
    parser.add_argument(
        "--cells",
        nargs="+",
        choices=list(TORCH_LAYERS),
        default=list(TORCH_LAYERS),
        help="cells to race (default: all)",
    )
    parser.add_argument(
        "--rates",
        type=float,
        nargs="+",
        default=list(RATES),
        help=f"peak learning rates to sweep (default: {' '.join(map(str, RATES))})",
    )
    parser.add_argument(
        "--sweep-seconds",
        type=float,
        help="sweep the rates at this budget, then race each engine's best at --seconds "
        "(default: sweep at --seconds, each run a race entry)",
    )
    parser.add_argument("--hidden-size", type=int, default=256, help="H (default: 256)")
    parser.add_argument("--batch-size", type=int, default=32, help="B (default: 32)")
    parser.add_argument("--seq-length", type=int, default=32, help="T (default: 32)")
    parser.add_argument("--text", help="text file (default: as rnn_core.load_text finds it)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument("--no-torch", action="store_true", help="race rnn_core alone, even if torch is importable")
    parser.add_argument(
        "--torch-init",
        choices=("default", "rnn_core"),
        default="default",
        help="PyTorch's initial weights: its own (default) or rnn_core's",
    )
    parser.add_argument(
        "--threads", type=int, help="threads for PyTorch and numpy's BLAS alike (default: each its own)"
    )
    args = parser.parse_args(argv)

    text = rnn_core.load_text(args.text)
    vocab = rnn_core.Vocabulary.from_text(text)
    ids = vocab.encode(text)
    train_ids, val_ids = split_train_val(ids, rnn_core.TrainConfig().val_fraction)
    V = vocab.size
    print(
        f"text: {len(ids)} characters, V={V}; training on the first {len(train_ids)}, "
        f"validating on the last {len(val_ids)}"
    )
    uniform, unigram, bigram = baselines(train_ids, val_ids, V)
    print(f"baselines (validation bpc): uniform log2(V) {uniform:.4f}   unigram {unigram:.4f}   bigram {bigram:.4f}")

    torch = None
    if not args.no_torch:
        try:
            import torch
        except ImportError:
            print("torch: not importable, rnn_core races alone")
    limit = _limit_threads(torch, args.threads)
    engines = ["rnn_core"] + (["torch"] if torch is not None else [])

    def run(engine, cell, lr, seconds):
        config = rnn_core.TrainConfig(**{**race_config(cell, lr, args).to_dict(), "max_seconds": seconds})
        with limit():
            if engine == "rnn_core":
                return run_rnn_core(text, config)
            return run_torch(torch, config, train_ids, val_ids, V, args.torch_init)

    rows = []
    for cell in args.cells:
        for engine in engines:
            sweep_seconds = args.sweep_seconds or args.seconds
            sweep = {}
            for lr in args.rates:
                sweep[lr] = run(engine, cell, lr, sweep_seconds)
                print(
                    f"{engine:8s} {cell:4s} lr {lr:g}: val_bpc {sweep[lr][0]:.4f}, {sweep[lr][1]:,} steps in "
                    f"{sweep[lr][2]:.1f} s",
                    flush=True,
                )
            best = min(sweep, key=lambda lr: sweep[lr][0])
            final = sweep[best] if args.sweep_seconds is None else run(engine, cell, best, args.seconds)
            rows.append((cell, engine, best, final, sweep))

    print()
    print(_table(rows, args, torch))
    return 0


def _limit_threads(torch, threads):
    """A context manager holding numpy's BLAS (and PyTorch) to ``threads`` threads, or doing nothing."""
    import contextlib

    if threads is None:
        return contextlib.nullcontext
    if torch is not None:
        torch.set_num_threads(threads)
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        print(
            f"threadpoolctl is not installed: numpy's BLAS is not held to {threads} thread(s) "
            f"(set OPENBLAS_NUM_THREADS={threads} instead)"
        )
        return contextlib.nullcontext
    controller = ThreadpoolController()
    return lambda: controller.limit(limits=threads, user_api="blas")


def _table(rows, args, torch):
    """The race as a Markdown table, and what it holds equal."""
    name = {"rnn_core": "`rnn_core`", "torch": "PyTorch"}
    lines = [
        f"Validation bits per character after {args.seconds:g} s (H = {args.hidden_size}, B = {args.batch_size}, "
        f"T = {args.seq_length}; lower is better)",
        "",
        "| cell | engine | best peak rate | val bpc | steps | steps/s | the sweep: val bpc at each rate |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for cell, engine, best, (bpc, steps, seconds), sweep in rows:
        label = f"`{cell}`" if engine == "rnn_core" else f"`nn.{TORCH_LAYERS[cell]}`"
        swept = ", ".join(f"{lr:g}: {result[0]:.3f}" for lr, result in sweep.items())
        rate = steps / seconds
        lines.append(f"| {label} | {name[engine]} | {best:g} | {bpc:.4f} | {steps:,} | {rate:.1f} | {swept} |")
    best = min(rows, key=lambda row: row[3][0])
    lines += [
        "",
        f"Best: {name[best[1]]} {best[0]} at {best[3][0]:.4f}.",
        "Held equal: the wall budget per run (runs take turns), the text and split, B streams in windows of T with the "
        "state carried, H, Adam on the mean loss with global-norm clipping at 5 in float32, the peak rate decaying "
        "linearly to 2% over the wall budget, each engine's best peak rate from the same sweep"
        + (f" at {args.sweep_seconds:g} s" if args.sweep_seconds else "")
        + ", and the validation figure (rnn_core.bits_per_char's definition).",
        f"Differs: the initial weights ({'rnn_core' if args.torch_init == 'rnn_core' else 'each engine'}'s "
        f"initialisation), PyTorch's second bias (b_hh), each engine's kernels; threads: "
        + (f"{args.threads} for both." if args.threads else "each engine's default.")
        + (f" PyTorch {torch.__version__}, {torch.get_num_threads()} threads." if torch is not None else ""),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
