"""PyTorch's autograd as an external oracle, from stored answers: no PyTorch needed to run it.

tests/data/torch_oracle.npz holds, for nn.RNN, nn.LSTM and nn.GRU with num_layers = 1, 2, 3, float64
cases in PyTorch's own names and layout and what PyTorch computed on them (the loss, the top layer's
output, the last state, every gradient and the starting state's gradient); tools/make_torch_fixtures.py
made it, and its docstring says how. Here rnn_core gets the same weights (weight_ih_lk = W_x_k,
weight_hh_lk = W_h_k, bias_ih_lk = b_k and bias_hh_lk = 0: one bias per gate row, as rnn_core's; gates
in PyTorch's order, which is rnn_core's) and must give the same numbers to 1e-12.
"""

from pathlib import Path

import numpy as np
import pytest

from rnn_core import CELLS, rel_error
from rnn_core.cells import state_arrays, state_from_arrays

FIXTURES = Path(__file__).resolve().parent / "data" / "torch_oracle.npz"
TOL = 1e-12


@pytest.fixture(scope="module")
def oracle():
    with np.load(FIXTURES) as z:
        return {name: z[name] for name in z.files}


def _case(oracle, cell, L):
    prefix = f"{cell}/L{L}/"
    return {k[len(prefix) :]: v for k, v in oracle.items() if k.startswith(prefix)}


def _names(cell, L):
    """(PyTorch's name, rnn_core's name) of every parameter rnn_core has."""
    W_x, W_h, b = CELLS[cell].LAYER_NAMES
    pairs = [("head.weight", "W_yh"), ("head.bias", "b_o")]
    for k in range(L):
        suffix = "" if k == 0 else f"_{k}"
        pairs += [(f"weight_ih_l{k}", W_x + suffix), (f"weight_hh_l{k}", W_h + suffix), (f"bias_ih_l{k}", b + suffix)]
    return pairs


def test_the_file_holds_every_cell_at_every_depth_in_float64(oracle):
    assert str(oracle["torch_version"]).startswith("2.")
    cases = {key.split("/")[0] + "/" + key.split("/")[1] for key in oracle if "/" in key}
    assert cases == {f"{cell}/L{L}" for cell in CELLS for L in (1, 2, 3)}
    assert all(a.dtype == np.float64 for k, a in oracle.items() if k.endswith(("loss", "out")) or "/param/" in k)


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("L", [1, 2, 3])
def test_pytorch_computes_the_same_network(oracle, cell, L):
    """The same loss, top-layer output, last state, every layer's gradients and the starting state's
    gradient as PyTorch's nn.RNN/LSTM/GRU(num_layers=L) with an nn.Linear head, to 1e-12."""
    case, module = _case(oracle, cell, L), CELLS[cell]
    for k in range(L):  # the premise of the mapping: PyTorch's second bias is zero
        assert not case[f"param/bias_hh_l{k}"].any()
    names = _names(cell, L)
    params = {ours: case[f"param/{theirs}"].copy() for theirs, ours in names}
    assert set(params) == set(module.param_names(L))
    # rnn_core holds a one-layer state without the layer axis, PyTorch always with it: (L, B, H)
    start = {name: case[f"state0/{name}"] for name in module.STATE_NAMES}
    state0 = state_from_arrays(cell, {n: a[0] if L == 1 else a for n, a in start.items()})
    inputs, targets = case["inputs"], case["targets"]

    loss, grads, last, dstate0 = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True)
    assert abs(loss - case["loss"]) < TOL * case["loss"]
    top = module.forward(params, inputs, state0)["h"]
    assert rel_error(top if L == 1 else top[-1], case["out"]) < TOL
    for name, a in state_arrays(cell, last).items():
        assert rel_error(a, case[f"last/{name}"].reshape(a.shape)) < TOL, name
    for name, d in state_arrays(cell, dstate0).items():
        assert rel_error(d, case[f"dstate0/{name}"].reshape(d.shape)) < TOL, f"d{name}0"
    assert set(grads) == set(params)
    for theirs, ours in names:
        assert rel_error(grads[ours], case[f"grad/{theirs}"]) < TOL, ours
