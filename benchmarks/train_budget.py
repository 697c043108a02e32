"""The race: validation bits per character after S seconds of training, rnn_core against PyTorch.

    .venv/bin/python benchmarks/train_budget.py                        # 120 s a run, all three cells, both engines
    .venv/bin/python benchmarks/train_budget.py --seconds 3            # a quick check that everything runs
    .venv/bin/python benchmarks/train_budget.py --cells gru --rates 5e-3 1e-2
    .venv/bin/python benchmarks/train_budget.py --sweep-seconds 30     # sweep at 30 s, race the winners at 120 s
    .venv/bin/python benchmarks/train_budget.py --cells lstm gru --layers 2 --dropout 0.2   # two-layer stacks
    .venv/bin/python benchmarks/train_budget.py --cells lstm gru --seeds 0 1  # each best rate again at a 2nd seed

For each cell (the vanilla RNN, the LSTM, the GRU) and each depth (``--layers``: one layer, or a
stack of L) it trains rnn_core's cell and PyTorch's (``nn.RNN``, ``nn.LSTM``, ``nn.GRU`` with
``num_layers=L``) with one recipe, and prints one table. What the race holds equal, for both engines:

- the wall-clock budget (``--seconds``), from the call that starts a run to the end of its last
  step; the runs take turns on the machine, never at the same time;
- the data: the same text, the same split (first 90% train, last 10% validation), the same B
  streams read in windows of T characters, the state carried from window to window and reset
  at the end of a pass;
- the model's size (H, L) and form: one-hot input, the cell (L layers of it, each reading the
  hidden state of the one below), a linear read-out, cross-entropy;
- dropout (``--dropout``, one value per depth): on each layer's hidden state where it leaves the
  layer, into the next layer (``nn.LSTM``'s ``dropout``) and into the read-out (``nn.Dropout``
  before ``nn.Linear``), never along the recurrence, in training only (Zaremba et al. 2014);
- the optimiser: Adam (betas 0.9, 0.999, eps 1e-8) on the mean loss per character, global-norm
  clipping at 5, float32;
- the schedule: the peak rate decays linearly to 2% of it over the wall budget
  (``rnn_core.learning_rate_at`` computes both engines' rates);
- the rate: each engine's best peak rate from the same small sweep (``--rates``), picked by the
  validation figure the table reports (for both engines alike), at the first of ``--seeds``;
- the seeds: each engine's best rate is run again at every further seed of ``--seeds`` (the initial
  weights and, for rnn_core, the dropout masks; PyTorch's with ``torch.manual_seed``), and the table
  reports the mean and each seed's figure;
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


def race_config(cell, lr, args, num_layers=1, dropout=0.0, seed=None):
    """The TrainConfig both engines follow: rnn_core trains with it, PyTorch reads its schedule and sizes."""
    return rnn_core.TrainConfig(
        cell=cell,
        hidden_size=args.hidden_size,
        num_layers=num_layers,
        dropout=dropout,
        batch_size=args.batch_size,
        seq_length=args.seq_length,
        learning_rate=lr,
        steps=NO_STEP_LIMIT,
        max_seconds=args.seconds,
        eval_every=0,
        checkpoint_every=0,
        seed=args.seeds[0] if seed is None else seed,
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
    nn, H, L, cell = torch.nn, config.hidden_size, config.num_layers, config.cell
    t0 = time.perf_counter()  # the budget counts from here, as rnn_core's from its call
    torch.manual_seed(config.seed)
    # dropout between the layers (nn.LSTM's own, which needs a second layer) and before the read-out
    layer = getattr(nn, TORCH_LAYERS[cell])(
        V, H, num_layers=L, dropout=config.dropout if L > 1 else 0.0, batch_first=True
    )
    drop, head = nn.Dropout(config.dropout), nn.Linear(H, V)
    if init == "rnn_core":
        _load_rnn_core_init(torch, layer, head, config, V)
    parameters = [*layer.parameters(), *head.parameters()]
    opt = torch.optim.Adam(parameters, lr=config.learning_rate)

    def zero_state(n):  # h, or the LSTM's (h, c): (L, n, H) each
        h = torch.zeros(L, n, H)
        return (h, torch.zeros_like(h)) if cell == "lstm" else h

    def detach(state):  # truncated BPTT: the state is carried, its history is not
        return tuple(s.detach() for s in state) if cell == "lstm" else state.detach()

    def logits_of(x, state):
        z, state = layer(nn.functional.one_hot(x, V).float(), state)
        return head(drop(z)), state

    batcher = StreamBatcher(train_ids, config.batch_size, config.seq_length)
    state, step, window = zero_state(config.batch_size), 0, 0
    layer.train(), drop.train()  # dropout on
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
    layer.eval(), drop.eval()  # validation never drops
    # validation as rnn_core.bits_per_char does it: val_streams pieces, zero state, carried across windows
    n = min(config.val_streams, len(val_ids) - 1)
    piece = (len(val_ids) - 1) // n  # characters per stream
    X = torch.from_numpy(val_ids[: n * piece].reshape(n, piece))
    Y = torch.from_numpy(val_ids[1 : n * piece + 1].reshape(n, piece))
    total, state, w = 0.0, zero_state(n), rnn_core.BPC_WINDOW
    with torch.no_grad():
        for s in range(0, piece, w):
            logits, state = logits_of(X[:, s : s + w], state)
            y = Y[:, s : s + w].reshape(-1)
            total += nn.functional.cross_entropy(logits.reshape(-1, V), y, reduction="sum").item()
    return total / (n * piece) / math.log(2), step, elapsed


def _load_rnn_core_init(torch, layer, head, config, V):
    """rnn_core's initial weights, every layer's, into PyTorch's cell and read-out (its second bias at zero)."""
    module = rnn_core.CELLS[config.cell]
    start = module.init_params(
        V,
        config.hidden_size,
        seed=config.seed,
        dtype=np.float32,
        recurrent_scale=config.recurrent_scale,
        num_layers=config.num_layers,
    )
    with torch.no_grad():
        for k in range(config.num_layers):
            suffix = "" if k == 0 else f"_{k}"
            for ours, theirs in zip(module.LAYER_NAMES, ("weight_ih", "weight_hh", "bias_ih")):
                getattr(layer, f"{theirs}_l{k}").copy_(torch.from_numpy(start[ours + suffix]))
            getattr(layer, f"bias_hh_l{k}").zero_()
        head.weight.copy_(torch.from_numpy(start["W_yh"]))
        head.bias.copy_(torch.from_numpy(start["b_o"]))


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
    parser.add_argument(
        "--layers",
        type=int,
        nargs="+",
        default=[1],
        help="depths to race: 1 for one layer, 2 for a stack of two, ... (default: 1)",
    )
    parser.add_argument(
        "--dropout",
        type=float,
        nargs="+",
        default=[0.0],
        help="dropout for each depth of --layers, in order (one value: for every depth; default: 0)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        nargs="+",
        default=[0],
        help="random seeds: the sweep runs at the first, each engine's best rate again at the others (default: 0)",
    )
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
    if len(args.dropout) not in (1, len(args.layers)):
        parser.error(f"--dropout takes one value, or one per depth of --layers ({len(args.layers)})")
    dropouts = args.dropout * len(args.layers) if len(args.dropout) == 1 else args.dropout

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

    def run(engine, race, lr, seconds, seed):
        cell, L, rate = race
        config = race_config(cell, lr, args, num_layers=L, dropout=rate, seed=seed)
        config = rnn_core.TrainConfig(**{**config.to_dict(), "max_seconds": seconds})
        with limit():
            if engine == "rnn_core":
                result = run_rnn_core(text, config)
            else:
                result = run_torch(torch, config, train_ids, val_ids, V, args.torch_init)
        print(
            f"{engine:8s} {_label(race):16s} lr {lr:g} seed {seed}: val_bpc {result[0]:.4f}, {result[1]:,} steps "
            f"in {result[2]:.1f} s",
            flush=True,
        )
        return result

    rows = []
    for cell in args.cells:
        for race in ((cell, L, rate) for L, rate in zip(args.layers, dropouts)):
            for engine in engines:
                first, *more = args.seeds
                sweep = {lr: run(engine, race, lr, args.sweep_seconds or args.seconds, first) for lr in args.rates}
                best = min(sweep, key=lambda lr: sweep[lr][0])
                finals = [sweep[best] if args.sweep_seconds is None else run(engine, race, best, args.seconds, first)]
                finals += [run(engine, race, best, args.seconds, seed) for seed in more]
                rows.append((race, engine, best, finals, sweep))

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


def _label(race):
    """'lstm', or 'lstm L=2 dropout=0.2' for a stack (and dropout)."""
    cell, L, rate = race
    return cell + ("" if L == 1 else f" L={L}") + ("" if rate == 0 else f" dropout={rate:g}")


def _table(rows, args, torch):
    """The race as a Markdown table, and what it holds equal."""
    name = {"rnn_core": "`rnn_core`", "torch": "PyTorch"}
    seeds = ", ".join(map(str, args.seeds))
    lines = [
        f"Validation bits per character after {args.seconds:g} s (H = {args.hidden_size}, B = {args.batch_size}, "
        f"T = {args.seq_length}; lower is better; seeds {seeds}: the mean, and each)",
        "",
        "| cell | layers | dropout | engine | best peak rate | val bpc | each seed | steps | steps/s "
        "| the sweep: val bpc at each rate |",
        "|---|---:|---:|---|---:|---:|---|---:|---:|---|",
    ]
    for (cell, L, rate), engine, best, finals, sweep in rows:
        label = f"`{cell}`" if engine == "rnn_core" else f"`nn.{TORCH_LAYERS[cell]}`"
        swept = ", ".join(f"{lr:g}: {result[0]:.3f}" for lr, result in sweep.items())
        bpc, each = np.mean([f[0] for f in finals]), ", ".join(f"{f[0]:.4f}" for f in finals)
        steps, seconds = finals[0][1], finals[0][2]
        lines.append(
            f"| {label} | {L} | {rate:g} | {name[engine]} | {best:g} | {bpc:.4f} | {each} | {steps:,} | "
            f"{steps / seconds:.1f} | {swept} |"
        )
    best = min(rows, key=lambda row: np.mean([f[0] for f in row[3]]))
    lines += [
        "",
        f"Best: {name[best[1]]} {_label(best[0])} at {np.mean([f[0] for f in best[3]]):.4f}.",
        "Held equal: the wall budget per run (runs take turns), the text and split, B streams in windows of T with the "
        "state carried, H and the number of layers, dropout between the layers and before the read-out, Adam on the "
        "mean loss with global-norm clipping at 5 in float32, the peak rate decaying "
        "linearly to 2% over the wall budget, each engine's best peak rate from the same sweep"
        + (f" at {args.sweep_seconds:g} s" if args.sweep_seconds else "")
        + f" (at seed {args.seeds[0]}), the seeds, and the validation figure (rnn_core.bits_per_char's definition).",
        f"Differs: the initial weights ({'rnn_core' if args.torch_init == 'rnn_core' else 'each engine'}'s "
        f"initialisation), each engine's own dropout masks, PyTorch's second bias (b_hh), each engine's kernels; "
        "threads: "
        + (f"{args.threads} for both." if args.threads else "each engine's default.")
        + (f" PyTorch {torch.__version__}, {torch.get_num_threads()} threads." if torch is not None else ""),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
