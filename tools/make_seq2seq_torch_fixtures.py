"""Write tests/data/seq2seq_torch_oracle.npz: PyTorch's answers for the encoder-decoder of rnn_core.seq2seq, in float64.

As tools/make_torch_fixtures.py does for the cells: this script imports numpy and torch only, never
rnn_core, builds the model with PyTorch's own layers and operations from random parameters stored
under rnn_core.seq2seq's names and layout, and stores the loss and every gradient;
tests/test_seq2seq_torch_oracle.py compares rnn_core with them, without torch:

    /work/torchvenv/bin/python tools/make_seq2seq_torch_fixtures.py

The model in PyTorch, for each cell (rnn, lstm, gru) x attention (none, additive, dot) x direction:

- the embeddings: ``E[ids]``;
- the encoder: ``nn.RNN/LSTM/GRU(E, H, batch_first=True, bidirectional=...)`` on
  ``pack_padded_sequence`` of the source, so PyTorch itself stops each row at its length, runs the
  reverse direction over each row's real tokens, and returns h_n at each row's last real token
  (weights: weight_ih = W_x, weight_hh = W_h, bias_ih = b, bias_hh = 0, gates in rnn_core's order,
  as tools/make_torch_fixtures.py maps them); the memory is ``pad_packed_sequence``'s output;
- the decoder's start: the encoder's h_n (unidirectional) or tanh(W_b [h_n forward; h_n backward] + b_b),
  and c_0 = 0 for the LSTM; then the same kind of layer over the embeddings of BOS, y_1 .. y_{T-1};
- attention written with torch operations: scores h_t . m_s (dot; h_t . W_k m_s, bidirectional) or
  v . tanh(W_q h_t + W_k m_s) (additive), ``masked_fill`` with -inf at the padded source positions,
  ``torch.softmax``, the context, h~_t = tanh(W_c [c_t; h_t] + b_c), logits W_yh h~_t + b_o;
- the loss: ``cross_entropy(..., ignore_index=PAD)``, the mean over the real target tokens.

Stored under ``{cell}/{attention}/{uni|bi}/``: ``param/<name>`` (rnn_core's names), ``src``,
``src_lengths``, ``tgt``, ``tgt_lengths`` (the pads holding random ids, PAD in the targets so that
ignore_index finds them), ``loss``, ``alpha`` (B, T, S) with attention, and ``grad/<name>``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "seq2seq_torch_oracle.npz"
PAD, BOS, EOS = 0, 1, 2
CELLS = {
    "rnn": ("RNN", 1, ("W_xh", "W_hh", "b_h")),
    "lstm": ("LSTM", 4, ("W_x", "W_h", "b")),
    "gru": ("GRU", 3, ("W_x", "W_h", "b")),
}
ATTENTIONS = ("none", "additive", "dot")
V_SRC, V_TGT, H, E, B, S, T = 7, 6, 4, 3, 3, 5, 4
SRC_LENGTHS, TGT_LENGTHS = np.array([5, 2, 3]), np.array([2, 4, 1])


def shapes(cell, attention, bi):
    """rnn_core.seq2seq's names and shapes for this model (its param_shapes, written out again)."""
    _, g, layer = CELLS[cell]
    M = 2 * H if bi else H
    out = {"E_src": (V_SRC, E)}
    for part in ("enc", "rev", "dec") if bi else ("enc", "dec"):
        if part == "dec":
            out["E_tgt"] = (V_TGT, E)
        out.update(zip((f"{n}_{part}" for n in layer), ((g * H, E), (g * H, H), (g * H,))))
        if part == "rev":
            out.update(W_b=(H, 2 * H), b_b=(H,))
    if attention == "additive":
        out.update(W_q=(H, H), W_k=(H, M), v=(H,))
    elif attention == "dot" and bi:
        out.update(W_k=(H, M))
    if attention != "none":
        out.update(W_c=(H, M + H), b_c=(H,))
    out.update(W_yh=(V_TGT, H), b_o=(V_TGT,))
    return out


def one_case(cell, attention, bi, seed):
    rng = np.random.default_rng(seed)
    params = {
        n: rng.uniform(-1.0, 1.0, s) * (1.5 if n.startswith(("E_", "W_k")) else 0.8)
        for n, s in shapes(cell, attention, bi).items()
    }
    src = rng.integers(3, V_SRC, (B, S))
    tgt = rng.integers(3, V_TGT, (B, T))
    tgt[np.arange(B), TGT_LENGTHS - 1] = EOS
    src[np.arange(S) >= SRC_LENGTHS[:, None]] = rng.integers(0, 50, (np.arange(S) >= SRC_LENGTHS[:, None]).sum())
    tgt[np.arange(T) >= TGT_LENGTHS[:, None]] = PAD

    kind, _, (W_x, W_h, b) = CELLS[cell]
    p = {
        n: torch.from_numpy(a).clone().requires_grad_(True)
        for n, a in params.items()
        if n[-4:] not in ("_enc", "_rev", "_dec")
    }

    def layer(parts):
        """PyTorch's layer with our weights copied in; its tensors join p under our names."""
        net = getattr(torch.nn, kind)(E, H, batch_first=True, bidirectional=len(parts) == 2).double()
        with torch.no_grad():
            for suffix, part in zip(("", "_reverse"), parts):
                for theirs, ours in (("weight_ih", W_x), ("weight_hh", W_h), ("bias_ih", b)):
                    tensor = getattr(net, f"{theirs}_l0{suffix}")
                    tensor.copy_(torch.from_numpy(params[f"{ours}_{part}"]))
                    p[f"{ours}_{part}"] = tensor
                getattr(net, f"bias_hh_l0{suffix}").zero_()  # one bias per gate row, as rnn_core's
        return net

    src_ids = torch.from_numpy(np.where(np.arange(S) < SRC_LENGTHS[:, None], src, PAD))
    lengths = torch.from_numpy(SRC_LENGTHS)
    packed = pack_padded_sequence(p["E_src"][src_ids], lengths, batch_first=True, enforce_sorted=False)
    out, state = layer(("enc", "rev") if bi else ("enc",))(packed)
    memory, _ = pad_packed_sequence(out, batch_first=True, total_length=S)  # (B, S, M)
    h_n = state[0] if cell == "lstm" else state  # (directions, B, H)
    h0 = torch.tanh(torch.cat([h_n[0], h_n[1]], -1) @ p["W_b"].T + p["b_b"]) if bi else h_n[0]
    start = (h0[None], torch.zeros_like(h0)[None]) if cell == "lstm" else h0[None]
    tgt_t = torch.from_numpy(tgt)
    dec_in = torch.cat([torch.full((B, 1), BOS), tgt_t[:, :-1]], 1)
    h, _ = layer(("dec",))(p["E_tgt"][dec_in], start)  # (B, T, H)
    arrays = {}
    if attention == "none":
        top = h
    else:
        if attention == "dot":
            keys = memory @ p["W_k"].T if bi else memory
            scores = torch.einsum("bth,bsh->bts", h, keys)
        else:
            u = torch.tanh((h @ p["W_q"].T)[:, :, None, :] + (memory @ p["W_k"].T)[:, None, :, :])
            scores = u @ p["v"]
        pads = torch.from_numpy(np.arange(S) >= SRC_LENGTHS[:, None])[:, None, :]
        alpha = torch.softmax(scores.masked_fill(pads, float("-inf")), dim=-1)
        context = alpha @ memory
        top = torch.tanh(torch.cat([context, h], -1) @ p["W_c"].T + p["b_c"])
        arrays["alpha"] = alpha.detach().numpy()
    logits = top @ p["W_yh"].T + p["b_o"]
    loss = torch.nn.functional.cross_entropy(logits.reshape(-1, V_TGT), tgt_t.reshape(-1), ignore_index=PAD)
    loss.backward()
    arrays |= {f"param/{n}": a for n, a in params.items()}
    arrays |= {
        "src": src,
        "src_lengths": SRC_LENGTHS,
        "tgt": tgt,
        "tgt_lengths": TGT_LENGTHS,
        "loss": np.array(loss.item()),
    }
    assert set(p) == set(params), sorted(set(p) ^ set(params))
    arrays |= {f"grad/{n}": p[n].grad.numpy() for n in params}
    return arrays


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"the file to write (default: {OUT.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    torch.use_deterministic_algorithms(True)
    arrays = {"torch_version": np.array(torch.__version__)}
    for n, cell in enumerate(CELLS):
        for m, attention in enumerate(ATTENTIONS):
            for bi in (False, True):
                case = one_case(cell, attention, bi, seed=1000 + 100 * n + 10 * m + bi)
                prefix = f"{cell}/{attention}/{'bi' if bi else 'uni'}/"
                arrays |= {prefix + key: a for key, a in case.items()}
    np.savez_compressed(args.out, **arrays)
    print(f"{args.out}: {len(arrays)} arrays, {args.out.stat().st_size:,} bytes, torch {torch.__version__}")


if __name__ == "__main__":
    main()
