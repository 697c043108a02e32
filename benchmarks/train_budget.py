"""How good a model does a fixed time budget buy? Validation bits per character after S seconds.

    .venv/bin/python benchmarks/train_budget.py                    # 120 s, H=256, every other setting default
    .venv/bin/python benchmarks/train_budget.py --seconds 30 --hidden-size 128 --no-torch
    .venv/bin/python benchmarks/train_budget.py --cell lstm        # the LSTM only, beside nn.LSTM
    .venv/bin/python benchmarks/train_budget.py --cell both --seconds 10   # a quick check of all four runs

Prints, for the same text and the same split (first 90% train, last 10% validation):

- the baselines, for scale: uniform (log2 V: every character equally likely),
  unigram (each character's frequency in the training part) and bigram (the
  frequency of each character after the previous one), both with add-one
  smoothing, all measured on the validation part;
- rnn_core trained for the budget exactly as ``python -m rnn_core train
  --cell C --hidden-size H --max-seconds S`` does (TrainConfig defaults otherwise),
  for the vanilla RNN (``--cell rnn``, the default), the LSTM (``--cell lstm``) or
  both (``--cell both``);
- if PyTorch is importable (it is not a dependency of this project), a
  torch.nn.RNN run beside the vanilla one and a torch.nn.LSTM run beside the LSTM:
  the same network (one-hot inputs, the same cell, a linear read-out), the same
  streams and windows, batch 32, sequence 32, Adam at 5e-3 held constant,
  global-norm clipping at 5, float32: the best settings found for PyTorch at this
  budget. Its validation figure is computed the same way as rnn_core's
  (``--val-streams`` pieces, each from a zero state).

The two runs take turns on the machine, never at the same time. Timings
depend on the machine and on whatever else it is running: the steps/s
column says how many updates each run actually got.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import rnn_core
from rnn_core.data import StreamBatcher, split_train_val


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


def run_rnn_core(text, cell, hidden_size, seconds, seed, progress):
    config = rnn_core.TrainConfig(cell=cell, hidden_size=hidden_size, max_seconds=seconds, seed=seed)
    result = rnn_core.train(text, config, progress=progress)
    return result, config


def run_torch(torch, cell, train_ids, val_ids, V, hidden_size, seconds, seed, val_streams, batch=32, seq=32, lr=5e-3, clip=5.0):
    """Train torch.nn.RNN (cell "rnn") or torch.nn.LSTM (cell "lstm") for ``seconds``; returns (val_bpc, steps, elapsed)."""
    nn = torch.nn
    torch.manual_seed(seed)

    def zero_state(n):  # h, or the LSTM's (h, c): (layers=1, n, H) each
        h = torch.zeros(1, n, hidden_size)
        return (h, torch.zeros_like(h)) if cell == "lstm" else h

    def detach(state):  # truncated BPTT: the state is carried, its history is not
        return tuple(s.detach() for s in state) if cell == "lstm" else state.detach()

    class CharRNN(nn.Module):
        def __init__(self):
            super().__init__()
            if cell == "lstm":
                self.rnn = nn.LSTM(V, hidden_size, batch_first=True)
            else:
                self.rnn = nn.RNN(V, hidden_size, nonlinearity="tanh", batch_first=True)
            self.out = nn.Linear(hidden_size, V)

        def forward(self, x, h):
            z, h = self.rnn(nn.functional.one_hot(x, V).float(), h)
            return self.out(z), h

    model = CharRNN()
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    batcher = StreamBatcher(train_ids, batch, seq)
    h = zero_state(batch)
    step, window = 0, 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        X, Y = batcher.window(window)
        logits, h = model(torch.from_numpy(X), detach(h))
        loss = nn.functional.cross_entropy(logits.reshape(-1, V), torch.from_numpy(Y).reshape(-1))
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), clip)
        opt.step()
        step += 1
        window += 1
        if window == batcher.windows_per_pass:
            window, h = 0, zero_state(batch)
    elapsed = time.perf_counter() - t0
    # validation as rnn_core.bits_per_char does it: val_streams pieces, zero state, state carried
    n = min(val_streams, len(val_ids) - 1)
    L = (len(val_ids) - 1) // n
    X = torch.from_numpy(val_ids[: n * L].reshape(n, L))
    Y = torch.from_numpy(val_ids[1 : n * L + 1].reshape(n, L))
    total, h = 0.0, zero_state(n)
    with torch.no_grad():
        for s in range(0, L, 256):
            logits, h = model(X[:, s : s + 256], h)
            total += nn.functional.cross_entropy(logits.reshape(-1, V), Y[:, s : s + 256].reshape(-1), reduction="sum").item()
    return total / (n * L) / math.log(2), step, elapsed


def main(argv=None):
    parser = argparse.ArgumentParser(description="Validation bits per character after a fixed training time.")
    parser.add_argument("--seconds", type=float, default=120.0, help="training time budget per run (default: 120)")
    parser.add_argument("--hidden-size", type=int, default=256, help="hidden units (default: 256)")
    parser.add_argument(
        "--cell", choices=("rnn", "lstm", "both"), default="rnn", help="the vanilla RNN, the LSTM, or both (default: rnn)"
    )
    parser.add_argument("--text", help="text file (default: as rnn_core.load_text finds it)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    parser.add_argument("--no-torch", action="store_true", help="skip the PyTorch run even if torch is importable")
    parser.add_argument(
        "--torch-threads", type=int, help="threads for PyTorch (default: its own choice; 1 can be faster on a busy machine)"
    )
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    args = parser.parse_args(argv)

    text = rnn_core.load_text(args.text)
    vocab = rnn_core.Vocabulary.from_text(text)
    ids = vocab.encode(text)
    train_ids, val_ids = split_train_val(ids, rnn_core.TrainConfig().val_fraction)
    V = vocab.size
    print(f"text: {len(ids)} characters, V={V}; training on the first {len(train_ids)}, validating on the last {len(val_ids)}")
    uni, unigram, bigram = baselines(train_ids, val_ids, V)
    print(f"baselines (validation bpc): uniform log2(V) {uni:.4f}   unigram {unigram:.4f}   bigram {bigram:.4f}")

    torch = None
    if not args.no_torch:
        try:
            import torch
        except ImportError:
            print("torch: skipped (not importable)")
    if torch is not None and args.torch_threads:
        torch.set_num_threads(args.torch_threads)
    for cell in ("rnn", "lstm") if args.cell == "both" else (args.cell,):
        result, cfg = run_rnn_core(text, cell, args.hidden_size, args.seconds, args.seed, args.progress)
        print(
            f"rnn_core {cell:4s}  H={cfg.hidden_size} B={cfg.batch_size} T={cfg.seq_length} {cfg.optimizer} "
            f"lr {cfg.learning_rate:g} ({cfg.lr_schedule} schedule), clip {cfg.clip_norm:g}: val_bpc {result.val_bpc:.4f} "
            f"after {result.state.elapsed:.1f} s, {result.step} steps ({result.steps_per_second:.1f} steps/s)",
            flush=True,
        )
        if torch is None:
            continue
        bpc, steps, elapsed = run_torch(torch, cell, train_ids, val_ids, V, args.hidden_size, args.seconds, args.seed, cfg.val_streams)
        print(
            f"torch nn.{'LSTM' if cell == 'lstm' else 'RNN':4s}  H={args.hidden_size} B=32 T=32 adam lr 0.005 (constant), clip 5: "
            f"val_bpc {bpc:.4f} after {elapsed:.1f} s, {steps} steps ({steps / elapsed:.1f} steps/s; "
            f"torch {torch.__version__}, {torch.get_num_threads()} threads)",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
