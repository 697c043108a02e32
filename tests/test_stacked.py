"""Stacks of layers and dropout, for every cell: finite differences, what dropout touches and what it
leaves alone, the names and shapes of a stack, checkpoints. PyTorch's stacked cells as an oracle:
tests/test_torch_oracle.py."""

import numpy as np
import pytest
from cases import random_case

import rnn_core
from rnn_core import CELLS, GRADCHECK_TOL, check_gradients, dropout_masks
from rnn_core.cells import num_layers, state_arrays, state_from_arrays

# -- finite differences: every layer's arrays and the layered state, with and without dropout ----------


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("L", [2, 3])
@pytest.mark.parametrize("batch", [None, 2])
@pytest.mark.parametrize("p", [0.0, 0.4])
def test_gradients_of_a_stack_match_finite_differences(cell, L, batch, p):
    params, inputs, targets, state0 = random_case(cell, 5, 3, 4, batch, seed=7 * L, num_layers=L)
    errors = check_gradients(params, inputs, targets, state0, dropout=p, seed=3, cell=cell)
    module = CELLS[cell]
    assert set(errors) == {*module.param_names(L), *(f"{name}0" for name in module.STATE_NAMES)}
    assert {"W_yh", f"{module.LAYER_NAMES[0]}_{L - 1}"} <= set(errors)
    assert max(errors.values()) < GRADCHECK_TOL, errors


# -- dropout: only on the connections that do not recur, inverted, seeded, training only -----------------


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("L", [1, 2])
def test_dropout_0_is_no_dropout_bit_for_bit(cell, L):
    module = CELLS[cell]
    params, inputs, targets, state0 = random_case(cell, 6, 5, 7, 3, seed=1, num_layers=L)
    for fast in (True, False):
        plain = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True, fast=fast)
        for kwargs in (
            {"dropout": 0.0},
            {"dropout": 0, "seed": 5},
            {"masks": np.ones_like(module.forward(params, inputs)["h"])},
        ):
            same = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True, fast=fast, **kwargs)
            assert same[0] == plain[0] and all(np.array_equal(same[1][k], plain[1][k]) for k in plain[1])
            for a, b in zip(same[2:], plain[2:]):
                assert all(np.array_equal(x, state_arrays(cell, b)[k]) for k, x in state_arrays(cell, a).items())


def test_masks_are_inverted_seeded_and_shaped_like_forwards_h():
    params = rnn_core.lstm.init_params(5, 50, num_layers=2, dtype=np.float32)
    inputs = np.zeros((8, 40), int)
    masks = dropout_masks(params, inputs, 0.3, seed=1, cell="lstm")
    assert masks.shape == rnn_core.lstm.forward(params, inputs)["h"].shape == (2, 8, 40, 50)
    assert masks.dtype == np.float32 and set(np.unique(masks)) == {0.0, np.float32(1 / 0.7)}
    assert abs((masks == 0).mean() - 0.3) < 0.01 and abs(masks.mean() - 1.0) < 0.02  # inverted: the mean kept
    assert np.array_equal(masks, dropout_masks(params, inputs, 0.3, seed=1, cell="lstm"))
    assert not np.array_equal(masks, dropout_masks(params, inputs, 0.3, seed=2, cell="lstm"))
    rng = np.random.default_rng(1)
    assert np.array_equal(dropout_masks(params, inputs, 0.3, rng, cell="lstm"), masks)  # a Generator draws the same ...
    assert not np.array_equal(dropout_masks(params, inputs, 0.3, rng, cell="lstm"), masks)  # ... and moves on
    one = rnn_core.init_params(5, 4)
    assert dropout_masks(one, np.zeros(6, int), 0.5, seed=0).shape == (6, 4)  # one layer, one sequence
    pair = dropout_masks(one, np.zeros(6, int), 0.5, seed=[3, 7])  # as train seeds each step: [seed, step]
    assert np.array_equal(pair, dropout_masks(one, np.zeros(6, int), 0.5, seed=(3, 7)))
    assert not np.array_equal(pair, dropout_masks(one, np.zeros(6, int), 0.5, seed=[3, 8]))
    with pytest.raises(TypeError, match="needs seed=, an int, a sequence of ints or a np.random.Generator"):
        dropout_masks(one, np.zeros(6, int), 0.5, seed=None)
    with pytest.raises(TypeError, match="needs seed="):
        check_gradients(one, np.zeros(6, int), np.zeros(6, int), dropout=0.5)


@pytest.mark.parametrize("cell", CELLS)
def test_a_seed_draws_the_masks_dropout_masks_draws(cell):
    module = CELLS[cell]
    params, inputs, targets, state0 = random_case(cell, 6, 5, 7, 3, seed=2, num_layers=2)
    masks = dropout_masks(params, inputs, 0.25, seed=9, cell=cell)
    by_seed = module.loss_and_grads(params, inputs, targets, state0, dropout=0.25, seed=9)
    by_masks = module.loss_and_grads(params, inputs, targets, state0, masks=masks)
    assert by_seed[0] == by_masks[0] and all(np.array_equal(by_seed[1][k], by_masks[1][k]) for k in by_seed[1])
    assert (
        module.sequence_loss(params, inputs, targets, state0, dropout=0.25, seed=9)[0]
        == module.sequence_loss(params, inputs, targets, state0, masks=masks)[0]
    )
    assert by_seed[0] != module.loss_and_grads(params, inputs, targets, state0)[0]


@pytest.mark.parametrize("cell", CELLS)
def test_dropout_never_touches_the_recurrence(cell):
    """A mask multiplies h_t where it leaves its layer: the layer's own states are those of no dropout;
    the layer above reads the dropped h_t, and so does the output layer."""
    module = CELLS[cell]
    params, inputs, _, state0 = random_case(cell, 6, 5, 7, 3, seed=3, num_layers=2)
    masks = dropout_masks(params, inputs, 0.5, seed=4, cell=cell)
    plain, dropped = module.forward(params, inputs, state0), module.forward(params, inputs, state0, masks=masks)
    assert np.array_equal(plain["h"][0], dropped["h"][0])  # layer 0's recurrence: untouched
    assert not np.allclose(plain["h"][1], dropped["h"][1])  # layer 1 reads layer 0's h_t through a mask
    only_top = masks.copy()
    only_top[0] = 1.0  # the mask before the output layer alone: every state as without dropout
    top = module.forward(params, inputs, state0, masks=only_top)
    assert np.array_equal(top["h"], plain["h"]) and not np.allclose(top["logits"], plain["logits"])
    kept = only_top[1] > 0  # where nothing is dropped, the logits see h_t scaled by 1 / (1 - p)
    expected = rnn_core.output_logits(params, plain["h"][1] * only_top[1])
    assert np.allclose(top["logits"], expected) and kept.any() and (~kept).any()


def test_sampling_and_validation_never_drop():
    vocab = rnn_core.Vocabulary("abcde")
    params = rnn_core.gru.init_params(vocab.size, 6, seed=1, num_layers=2)
    ids = np.random.default_rng(0).integers(0, 5, 50)
    loss = rnn_core.gru.sequence_loss(params, ids[:-1], ids[1:])[0]
    assert rnn_core.bits_per_char(params, ids, cell="gru") == loss / 49 / np.log(2)
    sampled = rnn_core.sample(params, vocab, "ab", 30, seed=1, cell="gru")
    assert sampled == rnn_core.sample(params, vocab, "ab", 30, seed=1, cell="gru")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"dropout": 0.5}, TypeError, r"dropout=0.5 needs seed="),
        ({"dropout": 1.0, "seed": 0}, ValueError, r"dropout must be >= 0 and < 1, got 1.0"),
        ({"dropout": -0.1, "seed": 0}, ValueError, "dropout must be"),
        ({"dropout": "0.1", "seed": 0}, TypeError, "dropout must be a number"),
        ({"dropout": 0.2, "seed": 0, "masks": np.ones((2, 3, 4))}, TypeError, "dropout .* or masks, not both"),
        (
            {"masks": np.ones((3, 4))},
            ValueError,
            r"masks must have the shape of forward's h, \(2, 3, 4\) \(2 layers first\)",
        ),
        ({"masks": np.full((2, 3, 4), np.nan)}, ValueError, "masks must hold finite numbers"),
        ({"masks": np.full((2, 3, 4), "1")}, TypeError, "masks must hold numbers, .* got <U1"),
    ],
)
def test_bad_dropout_gets_a_clear_error(kwargs, error, match):
    params = rnn_core.init_params(5, 4, num_layers=2)
    inputs = np.array([0, 1, 2])
    for call in (rnn_core.loss_and_grads, rnn_core.sequence_loss):
        with pytest.raises(error, match=match):
            call(params, inputs, inputs, **kwargs)


# -- a stack's parameters, state and checks -----------------------------------------------------------


@pytest.mark.parametrize("cell", CELLS)
def test_a_stack_is_named_shaped_and_drawn_as_documented(cell):
    module, V, H = CELLS[cell], 7, 4
    gates = len(getattr(module, "GATES", "h"))
    one, three = module.init_params(V, H, seed=1), module.init_params(V, H, seed=1, num_layers=3)
    W_x, W_h, b = module.LAYER_NAMES
    assert (
        tuple(three)
        == module.param_names(3)
        == (*module.PARAM_NAMES, f"{W_x}_1", f"{W_h}_1", f"{b}_1", f"{W_x}_2", f"{W_h}_2", f"{b}_2")
    )
    assert {k: v.shape for k, v in three.items()} == module.param_shapes(V, H, 3)
    assert three[f"{W_x}_2"].shape == (gates * H, H) and three[f"{W_h}_1"].shape == (gates * H, H)
    assert (
        module.count_params(V, H, 3)
        == sum(v.size for v in three.values())
        == module.count_params(V, H) + 2 * gates * H * (2 * H + 1)
    )
    assert all(np.array_equal(one[k], three[k]) for k in one)  # layer 0 and the output: the same draws
    assert not np.array_equal(three[f"{W_h}_1"], three[f"{W_h}_2"]) and num_layers(three, cell) == 3
    for k in range(gates):  # each further layer's recurrent blocks are orthogonal too
        block = three[f"{W_h}_1"][k * H : (k + 1) * H]
        assert np.allclose(block @ block.T, np.eye(H))
    assert abs(three[f"{W_x}_1"].std() * np.sqrt(H) - 1) < 0.5  # N(0, 1/H): the layer below's h_t has H entries


@pytest.mark.parametrize("cell", CELLS)
def test_a_stack_checks_every_layer_and_its_state(cell):
    module = CELLS[cell]
    params = module.init_params(5, 4, num_layers=2)
    W_x, W_h, _ = module.LAYER_NAMES
    inputs = np.array([0, 1])
    for bad, error, match in (
        ({k: v for k, v in params.items() if k != f"{W_h}_1"}, ValueError, f"params is missing {W_h}_1"),
        (
            {**params, f"{W_x}_1": np.zeros((params[W_x].shape[0], 5))},
            ValueError,
            rf"{W_x}_1 has shape .* 2 layers, so {W_x}_1 must be",
        ),
        ({**params, f"{W_h}_1": params[W_h].astype(np.float32)}, TypeError, "must all be float32 or all float64"),
    ):
        with pytest.raises(error, match=match):
            module.loss_and_grads(bad, inputs, inputs)
    zeros = {name: np.zeros(4) for name in module.STATE_NAMES}
    with pytest.raises(
        ValueError, match=r"h0\)? must have shape \(2, 4\) for one sequence with H=4 and 2 layers, got \(4,\)"
    ):
        module.loss_and_grads(params, inputs, inputs, state_from_arrays(cell, zeros))


@pytest.mark.parametrize("cell", CELLS)
def test_a_stack_round_trips_through_a_checkpoint(cell, tmp_path):
    vocab = rnn_core.Vocabulary("abcdef")
    params = CELLS[cell].init_params(vocab.size, 5, seed=3, dtype=np.float32, num_layers=2)
    h = np.full((2, 3, 5), 0.5, np.float32)
    path = rnn_core.save_checkpoint(tmp_path / "m.npz", params, vocab, cell=cell, h=h, c=h if cell == "lstm" else None)
    ck = rnn_core.load_checkpoint(path)
    assert ck.cell == cell and ck.num_layers == 2 and "L=2" in repr(ck)
    assert list(ck.params) == list(params) and all(np.array_equal(ck.params[k], params[k]) for k in params)
    assert all(np.array_equal(a, h) for a in ck.carried.values())
    expected = rnn_core.sample(params, vocab, "abc", 30, seed=4, cell=cell)
    assert rnn_core.sample(ck.params, ck.vocab, "abc", 30, seed=4, cell=ck.cell) == expected
    np.savez(tmp_path / "bad.npz", **{k: v for k, v in np.load(path).items() if k != "h"}, h=h[0])
    with pytest.raises(rnn_core.CheckpointError, match=r"hidden state 'h' has shape \(3, 5\).*expected \(2, B, 5\)"):
        rnn_core.load_checkpoint(tmp_path / "bad.npz")
