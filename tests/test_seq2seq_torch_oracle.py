"""PyTorch's autograd as an external oracle for rnn_core.seq2seq, from stored answers: no PyTorch needed.

tests/data/seq2seq_torch_oracle.npz holds, for every cell x attention x direction, float64 parameters
under rnn_core.seq2seq's names, a batch of unequal lengths (random ids, some outside the vocabulary,
beyond the source lengths), and what PyTorch computed on them: the loss, the attention weights and
every gradient. tools/make_seq2seq_torch_fixtures.py made it with PyTorch's own layers (packed
sequences for the encoder, so PyTorch itself handles the lengths and the reverse direction) and says
how. rnn_core must give the same numbers to 1e-10 (measured: about 1e-15).
"""

import itertools
from pathlib import Path

import numpy as np
import pytest

from rnn_core import rel_error
from rnn_core import seq2seq as s2s

FIXTURES = Path(__file__).resolve().parent / "data" / "seq2seq_torch_oracle.npz"
TOL = 1e-10
KINDS = list(itertools.product(s2s.CELLS, ("none", "additive", "dot"), ("uni", "bi")))


@pytest.fixture(scope="module")
def oracle():
    with np.load(FIXTURES) as z:
        return {name: z[name] for name in z.files}


def _case(oracle, cell, attention, direction):
    prefix = f"{cell}/{attention}/{direction}/"
    return {k[len(prefix) :]: v for k, v in oracle.items() if k.startswith(prefix)}


def test_the_file_holds_every_model_in_float64(oracle):
    assert str(oracle["torch_version"]).startswith("2.")
    cases = {"/".join(key.split("/")[:3]) for key in oracle if "/" in key}
    assert cases == {"/".join(kind) for kind in KINDS}
    assert all(a.dtype == np.float64 for k, a in oracle.items() if "/param/" in k or "/grad/" in k)


@pytest.mark.parametrize("cell,attention,direction", KINDS)
def test_pytorch_computes_the_same_loss_attention_and_gradients(oracle, cell, attention, direction):
    case = _case(oracle, cell, attention, direction)
    params = {k[len("param/") :]: v.copy() for k, v in case.items() if k.startswith("param/")}
    kind = (cell, None if attention == "none" else attention, direction == "bi")
    assert set(params) == set(s2s.param_names(*kind))
    batch = case["src"], case["src_lengths"], case["tgt"], case["tgt_lengths"]
    for fast in (True, False):
        loss, grads = s2s.loss_and_grads(params, *batch, fast=fast)
        assert abs(loss - case["loss"]) < TOL * case["loss"]
        for name in params:
            assert rel_error(grads[name], case[f"grad/{name}"]) < TOL, name
    if kind[1] is not None:  # at the real target positions (beyond them the two decoders read different pads)
        real = np.arange(case["tgt"].shape[1]) < case["tgt_lengths"][:, None]
        assert np.max(np.abs(s2s.attention_weights(params, *batch) - case["alpha"])[real]) < TOL
