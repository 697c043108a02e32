"""Write tests/data/torch_oracle.npz: PyTorch's answers for stacked nn.RNN, nn.LSTM and nn.GRU, in float64.

The suite checks rnn_core against PyTorch's autograd (tests/test_torch_oracle.py) without PyTorch
installed: this script, run once where PyTorch is, stores the cases and PyTorch's answers, and the
test compares rnn_core with them. It imports numpy and torch only, never rnn_core, so the stored
numbers are PyTorch's alone, whatever rnn_core becomes:

    python3 -m venv /tmp/torchvenv && /tmp/torchvenv/bin/pip install torch==2.13.0 numpy==2.4.6
    /tmp/torchvenv/bin/python tools/make_torch_fixtures.py

(the versions that made the stored file, recorded in it as ``torch_version``).

For each cell (rnn, lstm, gru) and depth L (1, 2, 3), with V = 7 symbols, H = 5 units, B = 3 sequences
of T = 6 steps, one case: random parameters in PyTorch's own layout and names (``weight_ih_l{k}``,
``weight_hh_l{k}``, ``bias_ih_l{k}``; ``bias_hh_l{k}`` zero, because rnn_core has one bias per gate
row; the output layer ``head.weight`` (V, H) and ``head.bias`` (V,)), the inputs and targets (B, T),
the starting state (L, B, H) per state array (h; and c for the LSTM). PyTorch runs
``nn.<Cell>(V, H, num_layers=L, batch_first=True)`` on the one-hot inputs and an ``nn.Linear(H, V)``
on its output, and the loss is the cross-entropy summed over every position. Stored under
``{cell}/L{L}/``: ``param/<name>``, ``inputs``, ``targets``, ``state0/<h|c>``, and PyTorch's
``loss`` (a scalar), ``out`` (B, T, H: the top layer's h at every step), ``last/<h|c>`` (L, B, H),
``grad/<name>`` for every parameter and ``dstate0/<h|c>`` (L, B, H). ``torch_version`` records
the version that made the file.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "torch_oracle.npz"
CELLS = {"rnn": ("RNN", 1, ("h",)), "lstm": ("LSTM", 4, ("h", "c")), "gru": ("GRU", 3, ("h",))}
DEPTHS = (1, 2, 3)
V, H, B, T = 7, 5, 3, 6
STATE_SCALE = {"h": 0.9, "c": 2.0}  # h within tanh's range, the LSTM's c beyond it


def one_case(cell: str, L: int, seed: int) -> dict[str, np.ndarray]:
    """The arrays of one case, keyed by their names under ``{cell}/L{L}/`` (see the module docstring)."""
    kind, gates, state_names = CELLS[cell]
    rng = np.random.default_rng(seed)
    params = {}
    for k in range(L):
        fan_in = V if k == 0 else H
        params[f"weight_ih_l{k}"] = rng.uniform(-1.0, 1.0, (gates * H, fan_in)) / np.sqrt(fan_in)
        params[f"weight_hh_l{k}"] = rng.uniform(-1.0, 1.0, (gates * H, H)) / np.sqrt(H)
        params[f"bias_ih_l{k}"] = rng.standard_normal(gates * H) * 0.5
        params[f"bias_hh_l{k}"] = np.zeros(gates * H)
    params["head.weight"] = rng.uniform(-1.0, 1.0, (V, H)) / np.sqrt(H)
    params["head.bias"] = rng.standard_normal(V) * 0.5
    inputs, targets = rng.integers(0, V, (B, T)), rng.integers(0, V, (B, T))
    state0 = {name: rng.uniform(-1.0, 1.0, (L, B, H)) * STATE_SCALE[name] for name in state_names}

    net = getattr(torch.nn, kind)(V, H, num_layers=L, batch_first=True).double()
    head = torch.nn.Linear(H, V).double()
    tensors = {**{n: p for n, p in net.named_parameters()}, **{f"head.{n}": p for n, p in head.named_parameters()}}
    assert set(tensors) == set(params), sorted(set(tensors) ^ set(params))
    with torch.no_grad():
        for name, tensor in tensors.items():
            tensor.copy_(torch.from_numpy(params[name]))
    start = {name: torch.from_numpy(a).clone().requires_grad_(True) for name, a in state0.items()}
    one_hot = torch.nn.functional.one_hot(torch.from_numpy(inputs), V).double()
    out, last = net(one_hot, (start["h"], start["c"]) if cell == "lstm" else start["h"])
    last = dict(zip(state_names, last)) if cell == "lstm" else {"h": last}
    loss = torch.nn.functional.cross_entropy(
        head(out).reshape(-1, V), torch.from_numpy(targets).reshape(-1), reduction="sum"
    )
    loss.backward()

    arrays = {f"param/{n}": a for n, a in params.items()}
    arrays |= {"inputs": inputs, "targets": targets, "loss": np.array(loss.item()), "out": out.detach().numpy()}
    arrays |= {f"state0/{n}": a for n, a in state0.items()}
    arrays |= {f"last/{n}": a.detach().numpy() for n, a in last.items()}
    arrays |= {f"grad/{n}": t.grad.numpy() for n, t in tensors.items()}
    arrays |= {f"dstate0/{n}": t.grad.numpy() for n, t in start.items()}
    return arrays


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"the file to write (default: {OUT.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    torch.use_deterministic_algorithms(True)
    arrays = {"torch_version": np.array(torch.__version__)}
    for n, cell in enumerate(CELLS):
        for L in DEPTHS:
            case = one_case(cell, L, seed=100 * n + 30 + L)
            arrays |= {f"{cell}/L{L}/{key}": a for key, a in case.items()}
    np.savez_compressed(args.out, **arrays)
    print(f"{args.out}: {len(arrays)} arrays, {args.out.stat().st_size:,} bytes, torch {torch.__version__}")


if __name__ == "__main__":
    main()
