"""The encoder-decoder on the dates task, with and without attention, over three seeds.

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/seq2seq.py
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/seq2seq.py --steps 600 --attention none dot --seeds 0 1 2

For each attention (none, dot, additive) and seed: ``rnn_core.seq2seq`` trained by Adam with
global-norm clipping on fresh batches of ``rnn_core.dates.make_pairs`` (the training dates drawn with the
run's seed; the held-out ones with another, keeping only dates that no run trains on, in any written
form), then the exact-match accuracy of ``greedy_decode`` on the held-out dates, overall and by the
length of the written date, and the training speed (steps per second, and target tokens per second,
for the whole step: the forward and backward pass, the clipping and the update). Every run is
deterministic given its seed except for the speeds, which depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from rnn_core import adam_init, adam_update, clip_global_norm, dates
from rnn_core import seq2seq as s2s

HELD_OUT_SEED = 12345  # the held-out dates: never a training seed below it
LENGTH_BINS = ((8, 12), (13, 18), (19, 24), (25, 36))  # the written date's characters


def batches(n_steps, batch_size, seed):
    """Each step's (src, src_lengths, tgt, tgt_lengths), from fresh dates."""
    pairs = dates.make_pairs(n_steps * batch_size, seed=seed)
    for step in range(n_steps):
        chunk = pairs[step * batch_size : (step + 1) * batch_size]
        src, src_lengths = dates.encode_batch([w for w, _ in chunk], dates.SRC_VOCAB)
        tgt, tgt_lengths = dates.encode_batch([i for _, i in chunk], dates.TGT_VOCAB, add_eos=True)
        yield src, src_lengths, tgt, tgt_lengths


def unseen_dates(n, seeds, per_seed):
    """n held-out pairs whose date no training run sees in any written form: drawn with
    HELD_OUT_SEED, every date that a seed's per_seed training pairs hold left out."""
    seen = {iso for seed in seeds for _, iso in dates.make_pairs(per_seed, seed=seed)}
    drawn = dates.make_pairs(50 * n, seed=HELD_OUT_SEED)
    unseen = [pair for pair in drawn if pair[1] not in seen][:n]
    if len(unseen) < n:
        raise SystemExit(f"only {len(unseen)} of {50 * n} drawn dates are unseen: train fewer steps or hold out fewer")
    return unseen


def train(attention, seed, args):
    """One run: (params, the last 50 steps' mean loss, seconds of training, target tokens seen)."""
    params = s2s.init_params(
        len(dates.SRC_VOCAB),
        len(dates.TGT_VOCAB),
        args.hidden_size,
        cell=args.cell,
        attention=attention,
        embed_size=args.embed_size,
        seed=seed,
    )
    state, losses, tokens = adam_init(params), [], 0
    start = time.perf_counter()
    for batch in batches(args.steps, args.batch_size, seed):
        loss, grads = s2s.loss_and_grads(params, *batch)
        grads, _ = clip_global_norm(grads, 5.0)
        params, state = adam_update(params, grads, state, lr=args.lr)
        losses.append(loss)
        tokens += int(batch[3].sum())
    return params, float(np.mean(losses[-50:])), time.perf_counter() - start, tokens


def accuracy(params, pairs):
    """Exact-match accuracy of greedy decoding: overall, and per LENGTH_BINS of the written date."""
    src, src_lengths = dates.encode_batch([w for w, _ in pairs], dates.SRC_VOCAB)
    out = s2s.greedy_decode(params, src, src_lengths, max_len=12)
    right = np.array([dates.decode(seq, dates.TGT_VOCAB) == iso for seq, (_, iso) in zip(out, pairs)])
    by_length = []
    for lo, hi in LENGTH_BINS:
        inside = (src_lengths >= lo) & (src_lengths <= hi)
        by_length.append(float(right[inside].mean()) if inside.any() else float("nan"))
    return float(right.mean()), by_length


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--attention", nargs="+", default=["none", "dot", "additive"], choices=["none", "dot", "additive"]
    )
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--cell", default="gru", choices=list(s2s.CELLS))
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--hidden-size", type=int, default=64)
    parser.add_argument("--embed-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.005)
    parser.add_argument("--held-out", type=int, default=2000, help="held-out dates to decode")
    args = parser.parse_args(argv)
    if max(args.seeds) >= HELD_OUT_SEED:
        parser.error(f"seeds must be below {HELD_OUT_SEED}, the held-out dates' seed")
    held_out = unseen_dates(args.held_out, args.seeds, args.steps * args.batch_size)
    print(
        f"{args.cell}, H={args.hidden_size}, E={args.embed_size}, B={args.batch_size}, {args.steps} steps, "
        f"Adam lr={args.lr}, clip 5; {args.held_out} held-out dates, greedy decoding"
    )
    bins = "  ".join(f"{lo}-{hi} ch" for lo, hi in LENGTH_BINS)
    print(f"{'attention':9} seed  loss   exact   by length: {bins}   steps/s  tokens/s")
    for attention in args.attention:
        accs = []
        for seed in args.seeds:
            params, loss, seconds, tokens = train(None if attention == "none" else attention, seed, args)
            acc, by_length = accuracy(params, held_out)
            accs.append(acc)
            lengths = "  ".join(f"{a:8.3f}" for a in by_length)
            print(
                f"{attention:9} {seed:4}  {loss:.3f}  {acc:.3f}   {' ' * 11}{lengths}   "
                f"{args.steps / seconds:7.1f}  {tokens / seconds:8.0f}",
                flush=True,
            )
        spread = statistics.stdev(accs) if len(accs) > 1 else 0.0
        print(f"{attention:9} mean exact-match {statistics.mean(accs):.3f} (sd {spread:.3f} over {len(accs)} seeds)")


if __name__ == "__main__":
    main()
