"""The registry of cells (rnn_core.cells) and the interface every cell's module shares."""

import inspect
import re

import numpy as np
import pytest

import rnn_core
from rnn_core import CELLS, gru, lstm, rnn
from rnn_core.cells import (
    INTERFACE,
    cell_module,
    check_cell_params,
    num_layers,
    state_arrays,
    state_from_arrays,
    zero_state,
)

# The sequence-level functions: the same parameters in every cell (the vanilla cell's loss_and_grads
# also takes bptt_truncate, before return_dstate0).
SHARED = {
    "param_names": "(num_layers=1)",
    "param_shapes": "(vocab_size, hidden_size, num_layers=1)",
    "count_params": "(vocab_size, hidden_size, num_layers=1)",
    "check_params": "(params)",
    "forward": "(params, inputs, state0=None, *, dropout=0.0, seed=None, masks=None)",
    "loss_and_grads": "(params, inputs, targets, state0=None, return_dstate0=False, *, fast=True, dropout=0.0, "
    "seed=None, masks=None)",
    "sequence_loss": "(params, inputs, targets, state0=None, *, dropout=0.0, seed=None, masks=None)",
    "advance": "(params, x_t, state)",
}

# The step functions keep the form each notebook derives (rnn_core.cells says so): the vanilla cell's
# step_forward is its explicit equation, h_t from h_{t-1}, with no cache; the gated cells return a cache.
STEPS = {
    "rnn": ("(params, x_t, h_prev)", "(params, dh_t, h_t, h_prev, x_t, *, return_dx=False)"),
    "lstm": ("(params, x_t, h_prev, c_prev)", "(params, dh_t, dc_t, cache, *, return_dx=False)"),
    "gru": ("(params, x_t, h_prev)", "(params, dh_t, cache, *, return_dx=False)"),
}


def test_the_registry_names_the_three_cells():
    assert CELLS == {"rnn": rnn, "lstm": lstm, "gru": gru}
    assert rnn_core.cells.CELLS is CELLS
    assert [module.STATE_NAMES for module in CELLS.values()] == [("h",), ("h", "c"), ("h",)]
    with pytest.raises(ValueError, match="cell must be one of 'rnn', 'lstm', 'gru', got 'tree'"):
        cell_module("tree")


@pytest.mark.parametrize("cell", CELLS)
def test_every_cell_has_the_same_interface(cell):
    module = CELLS[cell]
    assert set(INTERFACE) <= set(module.__all__)
    for name, signature in SHARED.items():
        got = str(inspect.signature(getattr(module, name)))
        if cell == "rnn" and name == "loss_and_grads":  # and truncated BPTT, keyword-only
            signature = signature.replace("*, fast", "*, bptt_truncate=None, fast")
        assert got == signature, name
    init = inspect.signature(module.init_params).parameters
    assert list(init)[:4] == ["vocab_size", "hidden_size", "seed", "dtype"] and "recurrent_scale" in init
    assert init["num_layers"].kind == inspect.Parameter.KEYWORD_ONLY
    params = module.init_params(6, 4, seed=1, dtype=np.float32, recurrent_scale=0.9)
    assert tuple(params) == module.PARAM_NAMES == module.param_names() and set(module.LAYER_NAMES) < set(params)
    assert all(p.dtype == np.float32 for p in params.values())
    assert {k: v.shape for k, v in params.items()} == module.param_shapes(6, 4)
    assert module.count_params(6, 4) == sum(p.size for p in params.values())
    assert module.check_params(params) is params
    inputs = np.array([[0, 1, 2], [3, 4, 5]])
    out = module.forward(params, inputs)
    assert {"h", "logits", "y_hat", *(f"{name}0" for name in module.STATE_NAMES)} <= set(out)
    assert out["h"].shape == (2, 3, 4) and out["logits"].shape == out["y_hat"].shape == (2, 3, 6)
    loss, grads, state = module.loss_and_grads(params, inputs, inputs)
    assert isinstance(loss, float) and set(grads) == set(params)
    *_, dstate0 = module.loss_and_grads(params, inputs, inputs, state, return_dstate0=True)
    for arrays in (state_arrays(cell, state), state_arrays(cell, dstate0)):
        assert list(arrays) == list(module.STATE_NAMES) and all(a.shape == (2, 4) for a in arrays.values())
    loss_only, state_only = module.sequence_loss(params, inputs, inputs)
    assert np.isclose(loss_only, loss, rtol=1e-6)
    assert all(np.allclose(state_arrays(cell, state_only)[k], a) for k, a in state_arrays(cell, state).items())


@pytest.mark.parametrize("cell", CELLS)
def test_the_step_functions_take_and_return_what_their_notebook_derives(cell):
    """Not one interface: each cell's step functions, as documented in rnn_core.cells, called for real."""
    module = CELLS[cell]
    forward_signature, backward_signature = STEPS[cell]
    assert str(inspect.signature(module.step_forward)) == forward_signature
    assert str(inspect.signature(module.step_backward)) == backward_signature
    params, x_t = module.init_params(6, 4, seed=2), np.array([1, 5, 1])
    h_prev = np.random.default_rng(3).uniform(-1, 1, (3, 4))
    if cell == "rnn":
        h = module.step_forward(params, x_t, h_prev)
        assert isinstance(h, np.ndarray) and h.shape == (3, 4)  # h_t alone: the exception
        back = (np.ones((3, 4)), h, h_prev, x_t)
    elif cell == "lstm":
        h, c, cache = module.step_forward(params, x_t, h_prev, h_prev)
        assert h.shape == c.shape == (3, 4) and set(cache) == {"x", "h_prev", "c_prev", *module.GATES, "c"}
        back = (np.ones((3, 4)), np.zeros((3, 4)), cache)
    else:
        h, cache = module.step_forward(params, x_t, h_prev)
        assert h.shape == (3, 4) and set(cache) == {"x", "h_prev", *module.GATES, "h_bar"}
        back = (np.ones((3, 4)), cache)
    out = module.step_backward(params, *back)
    grads = out[-1]
    assert len(out) == (3 if cell == "lstm" else 2) and all(a.shape == (3, 4) for a in out[:-1])
    assert {k: g.shape for k, g in grads.items()} == {k: params[k].shape for k in module.LAYER_NAMES}
    *same, dx = module.step_backward(params, *back, return_dx=True)
    assert len(same) == len(out) and all(np.array_equal(a, b) for a, b in zip(same[:-1], out[:-1]))
    assert dx.shape == (3, 6)  # what reaches the input: here the one-hot x_t, (B, V)
    # a layer above the first reads the layer below's h_t, a vector, where layer 0 reads a character
    upper = {k: v for k, v in CELLS[cell].init_params(6, 4, num_layers=2).items() if k.endswith("_1")}
    upper = {k[: -len("_1")]: v for k, v in upper.items()}
    h_below = np.random.default_rng(4).uniform(-1, 1, (3, 4))
    state = module.step_forward(upper, h_below, *(h_prev,) * len(module.STATE_NAMES))
    assert (state if cell == "rnn" else state[0]).shape == (3, 4)


@pytest.mark.parametrize("cell", CELLS)
def test_advance_is_one_step_as_the_sampler_takes_it(cell):
    module = CELLS[cell]
    params = module.init_params(5, 3, seed=2)
    ids = np.array([0, 3, 1, 4])
    state = zero_state(params, cell)
    assert all(a.shape == (3,) and not a.any() for a in state_arrays(cell, state).values())
    for x in ids:
        state, h = module.advance(params, int(x), state)
    out = module.forward(params, ids)
    assert np.allclose(h, out["h"][-1]) and np.allclose(state_arrays(cell, state)["h"], h)
    assert all(a.shape == (7, 3) for a in state_arrays(cell, zero_state(params, cell, (7,))).values())


@pytest.mark.parametrize("cell", CELLS)
def test_advance_takes_a_list_as_loss_and_grads_does_and_names_a_wrong_state(cell):
    module = CELLS[cell]
    params = module.init_params(5, 3, seed=2)
    state = state_arrays(cell, zero_state(params, cell))
    as_list = [state[name] for name in module.STATE_NAMES]
    _, h = module.advance(params, 1, as_list if cell == "lstm" else as_list[0])
    assert h.shape == (3,)
    wrong_size = [np.zeros(4)] + as_list[1:]
    with pytest.raises(ValueError, match=re.escape("state's h must have shape (H,) or (B, H) with H=3, L=1")):
        module.advance(params, 1, wrong_size if cell == "lstm" else wrong_size[0])
    rows = [np.zeros((3, 3)) for _ in as_list]  # three rows for two characters
    with pytest.raises(ValueError, match=re.escape("with H=3, L=1, B=2, got (3, 3)")):
        module.advance(params, np.array([1, 2]), rows if cell == "lstm" else rows[0])
    with pytest.raises(TypeError, match="state must be"):
        module.advance(params, 1, as_list[0] if cell == "lstm" else [list(as_list[0])])


@pytest.mark.parametrize("cell", CELLS)
def test_a_stack_has_a_layer_axis_in_its_state(cell):
    params = CELLS[cell].init_params(5, 3, seed=2, num_layers=3)
    assert num_layers(params, cell) == 3 and num_layers(CELLS[cell].init_params(5, 3), cell) == 1
    assert all(a.shape == (3, 3) and not a.any() for a in state_arrays(cell, zero_state(params, cell)).values())
    assert all(a.shape == (3, 7, 3) for a in state_arrays(cell, zero_state(params, cell, (7,))).values())
    state = zero_state(params, cell)
    for x in (0, 4, 1):
        state, h = CELLS[cell].advance(params, x, state)
    out = CELLS[cell].forward(params, np.array([0, 4, 1]))
    assert np.allclose(h, out["h"][-1, -1]) and np.allclose(state_arrays(cell, state)["h"], out["h"][:, -1])


@pytest.mark.parametrize("cell", CELLS)
def test_a_state_as_named_arrays_and_back(cell):
    arrays = {name: np.full((2, 3), float(k)) for k, name in enumerate(CELLS[cell].STATE_NAMES)}
    state = state_from_arrays(cell, arrays)
    assert isinstance(state, np.ndarray) == (len(arrays) == 1)
    assert all(state_arrays(cell, state)[k] is a for k, a in arrays.items())


def test_the_cell_is_named_never_worked_out_from_the_arrays():
    for cell, module in CELLS.items():
        assert check_cell_params(module.init_params(5, 3), cell) == cell
    # the default "rnn" refuses a gated cell's parameters, and says which cell to name
    for cell in ("lstm", "gru"):
        with pytest.raises(ValueError, match=rf"these are the {cell}'s parameters: name the cell, cell='{cell}'"):
            rnn_core.sample(CELLS[cell].init_params(5, 3), rnn_core.Vocabulary("abcde"), "a", 3)
    # the LSTM and the GRU share their names: W_x's 12 rows are the GRU's for H = 4, the LSTM's for H = 3
    with pytest.raises(ValueError, match=r"W_x \(12, 5\) implies H=3.*cell='gru'"):
        check_cell_params(gru.init_params(5, 4), "lstm")
    # a dict that passes no cell's check gets the named cell's complaint alone
    broken_gru = {**gru.init_params(5, 3), "W_h": np.zeros((9, 2))}
    with pytest.raises(
        ValueError, match=r"W_h has shape \(9, 2\) but W_x \(9, 5\) implies H=3, V=5, so W_h must be \(9, 3\)$"
    ):
        check_cell_params(broken_gru, "gru")
    with pytest.raises(TypeError, match="params must be a dict"):
        check_cell_params([1, 2], "rnn")
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'cell'"):
        check_cell_params(rnn_core.init_params(5, 3))


@pytest.mark.parametrize("cell", CELLS)
def test_sampling_bits_per_char_and_checkpoints_take_every_cell(cell, tmp_path):
    vocab = rnn_core.Vocabulary("abcdef")
    params = CELLS[cell].init_params(vocab.size, 5, seed=3, dtype=np.float32)
    text = rnn_core.sample(params, vocab, "abc", 30, seed=4, cell=cell)
    assert len(text) == 30 and set(text) <= set(vocab.chars)
    assert np.isclose(rnn_core.next_char_probs(params, vocab, "abc", cell=cell).sum(), 1.0)
    ids = vocab.encode("abcdefedcba" * 5)
    assert 0 < rnn_core.bits_per_char(params, ids, n_streams=2, window=7, cell=cell) < 2 * np.log2(vocab.size)
    path = rnn_core.save_checkpoint(tmp_path / "m.npz", params, vocab, cell=cell)
    ck = rnn_core.load_checkpoint(path)
    assert ck.cell == cell and all(np.array_equal(ck.params[k], params[k]) for k in params)
    assert rnn_core.sample(ck.params, ck.vocab, "abc", 30, seed=4, cell=ck.cell) == text


def test_a_cell_name_is_checked_at_the_door():
    """A wrong kind of name is a TypeError, a name no cell has a ValueError; params of another cell are
    refused even when the cell is named (num_layers, zero_state: a code review found them trusted)."""
    from rnn_core import cells

    with pytest.raises(TypeError, match="cell must be one of 'rnn', 'lstm', 'gru', got 3"):
        cells.cell_module(3)
    with pytest.raises(TypeError, match=r"got \['rnn'\]"):
        cells.cell_module(["rnn"])
    with pytest.raises(ValueError, match="got 'transformer'"):
        cells.cell_module("transformer")
    params = rnn_core.init_params(5, 4, seed=0)
    for wrong in ("gru", "lstm"):
        with pytest.raises(ValueError):
            cells.num_layers(params, wrong)
        with pytest.raises(ValueError):
            cells.zero_state(params, wrong)
    assert cells.num_layers(params, "rnn") == 1 and cells.zero_state(params, "rnn").shape == (4,)


def test_each_cell_module_says_its_blocks_and_engines_once_and_seq2seq_reads_them():
    """BLOCKS, REFERENCE and FAST are each cell's (rnn's FAST built once, truncation its parameter);
    seq2seq keeps no table of its own (a code review found one), and checks a cell name, the index
    arrays and fast= as the cells do: TypeError for a wrong kind, ValueError for a wrong value."""
    from rnn_core import _fast_rnn
    from rnn_core import seq2seq as s2s

    assert {name: module.BLOCKS for name, module in CELLS.items()} == {"rnn": 1, "lstm": 4, "gru": 3}
    assert isinstance(rnn.FAST, _fast_rnn.VanillaEngine) and rnn.FAST.truncate is None
    assert rnn.FAST.truncated(None) is rnn.FAST and rnn.FAST.truncated(3) is rnn.FAST.truncated(3)
    assert rnn.FAST.truncated(3).truncate == 3 and rnn.FAST.truncated(3).reference is rnn.REFERENCE
    for name, module in CELLS.items():
        shapes = s2s.param_shapes(5, 6, 4, cell=name, embed_size=3)
        W_in = f"{module.LAYER_NAMES[0]}_enc"
        assert shapes[W_in] == (module.BLOCKS * 4, 3)
        assert s2s._engine(name, True) is module.FAST and s2s._engine(name, False) is module.REFERENCE
    params = s2s.init_params(9, 7, 4, cell="rnn", seed=0)
    src, lengths = np.array([[3, 4, 5]]), np.array([3])
    cases = [
        (TypeError, "cell must be one of 'rnn', 'lstm', 'gru', got 3", lambda: s2s.param_names(3)),
        (TypeError, "fast must be True or False, got 'no'", lambda: s2s.forward(params, src, lengths, src, fast="no")),
        (TypeError, "fast must be True or False, got 1", lambda: rnn.loss_and_grads(tiny("rnn"), [0], [1], fast=1)),
        (TypeError, "fast must be True or False", lambda: gru.loss_and_grads(tiny("gru"), [0], [1], fast=None)),
        (TypeError, "src_row must be an integer array of token ids, got dtype float64", lambda: beam(np.zeros(0))),
        (ValueError, r"src_row is empty \(shape \(0,\)\)", lambda: beam([])),
        (ValueError, r"src_row must have shape \(S,\), one source sequence, got \(1, 3\)", lambda: beam(src)),
        (TypeError, "src_lengths must be an integer array of lengths", lambda: s2s.encode(params, src, [3.0])),
        (ValueError, r"src_lengths must have shape \(1,\), one length", lambda: s2s.encode(params, src, [[3]])),
    ]

    def beam(row):
        return s2s.beam_search(params, row, 2, 4)

    for kind, message, call in cases:
        with pytest.raises(kind, match=message):
            call()


def tiny(cell):
    return CELLS[cell].init_params(3, 4, seed=0)
