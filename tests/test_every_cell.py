"""What every cell (the vanilla RNN, the LSTM, the GRU) does the same way, one test each, parametrized
over CELLS: exact gradients, the step functions against the sequence functions, shapes, batches,
float32, carried state, reused arrays, initialisation, bad input, sampling.

What only one cell does is in tests/test_rnn.py, test_lstm.py and test_gru.py; stacks of layers and
dropout in tests/test_stacked.py; the fast paths against the reference loops in tests/test_fast_paths.py.
"""

import threading

import numpy as np
import pytest
from cases import random_case
from plain_references import gru_reference, lstm_reference, rnn_reference

import rnn_core
from rnn_core import CELLS, GRADCHECK_TOL, check_gradients, rel_error
from rnn_core.cells import state_arrays, state_from_arrays

SIZES = [(2, 1, 1), (5, 3, 4), (7, 6, 9), (4, 8, 3), (3, 5, 1)]  # (V, H, T): H < V, H > V, T = 1
TOL = 1e-12  # a path compared with its reference, in float64


def same_state(cell, a, b, exact=False):
    """Whether two states of ``cell`` agree: to TOL, or bit for bit."""
    a, b = state_arrays(cell, a), state_arrays(cell, b)
    if exact:
        return all(np.array_equal(a[k], b[k]) for k in a)
    return all(rel_error(a[k], b[k]) < TOL for k in a)


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("V, H, T", SIZES)
@pytest.mark.parametrize("batch", [None, 3])
def test_gradients_match_finite_differences(cell, V, H, T, batch):
    errors = check_gradients(*random_case(cell, V, H, T, batch, seed=V * 100 + H * 10 + T), cell=cell)
    assert set(errors) == {*CELLS[cell].PARAM_NAMES, *(f"{name}0" for name in CELLS[cell].STATE_NAMES)}
    assert max(errors.values()) < GRADCHECK_TOL, errors


# -- an independent reference: each cell written out plainly (tests/plain_references.py) ----------------

REFERENCES = {"rnn": rnn_reference, "lstm": lstm_reference, "gru": gru_reference}


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("batch", [None, 4])
@pytest.mark.parametrize("fast", [True, False])
def test_agrees_with_a_plain_per_step_reference(cell, batch, fast):
    module = CELLS[cell]
    params, inputs, targets, state0 = random_case(cell, 6, 5, 7, batch, seed=11)
    loss, grads, last, dstate0 = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True, fast=fast)
    arrays = state_arrays(cell, state0)
    rows = [(inputs, targets, *arrays.values())]
    if batch is not None:
        rows = [(inputs[b], targets[b], *(a[b] for a in arrays.values())) for b in range(batch)]
    refs = [REFERENCES[cell](params, *row) for row in rows]
    assert abs(loss - sum(r[0] for r in refs)) < TOL * loss
    for k in grads:
        assert rel_error(grads[k], sum(r[1][k] for r in refs)) < TOL, k
    for got, j in ((last, 2), (dstate0, 3)):
        for name, a in state_arrays(cell, got).items():
            want = np.stack([r[j][name] for r in refs])
            assert rel_error(a, want[0] if batch is None else want) < TOL, name


# -- the step functions, by hand, against the sequence functions -------------------------------------


def _forward_by_steps(cell, params, inputs, state0):
    """Each cell's step_forward in its own form, over inputs (T,) or (B, T): (the states h_1..h_T, the caches)."""
    module, hs, caches = CELLS[cell], [], []
    state = state_arrays(cell, state0)
    for t in range(inputs.shape[-1]):
        x_t = inputs[..., t]
        if cell == "rnn":
            h = module.step_forward(params, x_t, state["h"])
            caches.append((h, state["h"], x_t))
            state = {"h": h}
        elif cell == "lstm":
            h, c, cache = module.step_forward(params, x_t, state["h"], state["c"])
            caches.append(cache)
            state = {"h": h, "c": c}
        else:
            h, cache = module.step_forward(params, x_t, state["h"])
            caches.append(cache)
            state = {"h": h}
        hs.append(state["h"])
    return np.stack(hs, axis=-2), caches, state


def _backward_by_steps(cell, params, dh_out, caches):
    """Each cell's step_backward in its own form, from t = T down to 1: (summed grads, dL/dstate0 as named arrays)."""
    module = CELLS[cell]
    total = {k: np.zeros_like(params[k]) for k in module.LAYER_NAMES}
    dh_next = np.zeros_like(dh_out[..., 0, :])
    dc_next = np.zeros_like(dh_next)
    for t in reversed(range(dh_out.shape[-2])):
        dh = dh_out[..., t, :] + dh_next
        if cell == "rnn":
            dh_next, g = module.step_backward(params, dh, *caches[t])
        elif cell == "lstm":
            dh_next, dc_next, g = module.step_backward(params, dh, dc_next, caches[t])
        else:
            dh_next, g = module.step_backward(params, dh, caches[t])
        for k in g:
            total[k] += g[k]
    return total, {"h": dh_next, "c": dc_next}


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("batch", [None, 3])
def test_step_functions_agree_with_the_sequence_functions(cell, batch):
    module = CELLS[cell]
    params, inputs, targets, state0 = random_case(cell, 6, 4, 5, batch, seed=5)
    out = module.forward(params, inputs, state0)
    hs, caches, last = _forward_by_steps(cell, params, inputs, state0)
    assert rel_error(hs, out["h"]) < TOL
    for gate in getattr(module, "GATES", ()):
        assert rel_error(np.stack([c[gate] for c in caches], axis=-2), out[gate]) < TOL, gate
    loss, grads, state, dstate0 = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True)
    assert same_state(cell, state, state_from_arrays(cell, last))
    # backward one step at a time: the output layer's share first, then step_backward from t = T down to 1
    dlogits = out["y_hat"] - rnn_core.one_hot(targets, 6)
    total, dstate = _backward_by_steps(cell, params, dlogits @ params["W_yh"], caches)
    total["W_yh"] = dlogits.reshape(-1, 6).T @ out["h"].reshape(-1, 4)
    total["b_o"] = dlogits.reshape(-1, 6).sum(axis=0)
    for k in grads:
        assert rel_error(total[k], grads[k]) < TOL, k
    for name, d in state_arrays(cell, dstate0).items():
        assert rel_error(dstate[name], d) < TOL, f"d{name}0"


@pytest.mark.parametrize("cell", CELLS)
def test_step_functions_take_a_batch(cell):
    params, inputs, _, state0 = random_case(cell, 5, 3, 1, 4, seed=6)
    hs, caches, last = _forward_by_steps(cell, params, inputs, state0)
    out = CELLS[cell].forward(params, inputs, state0)
    assert hs.shape == (4, 1, 3) and np.array_equal(hs, out["h"])
    grads, dstate = _backward_by_steps(cell, params, np.ones((4, 1, 3)), caches)
    assert dstate["h"].shape == (4, 3)
    assert {k: v.shape for k, v in grads.items()} == {k: params[k].shape for k in CELLS[cell].LAYER_NAMES}


# -- the three entry points, shapes, dtypes, carried state ----------------------------------------


@pytest.mark.parametrize("cell", CELLS)
def test_forward_sequence_loss_and_loss_and_grads_agree(cell):
    module = CELLS[cell]
    params, inputs, targets, state0 = random_case(cell, 7, 5, 6, 3, seed=7)
    out = module.forward(params, inputs, state0)
    from_forward = -np.log(np.take_along_axis(out["y_hat"], targets[..., None], axis=-1)).sum()
    loss_a, last_a = module.sequence_loss(params, inputs, targets, state0)
    loss_b, _, last_b = module.loss_and_grads(params, inputs, targets, state0)
    assert abs(loss_a - from_forward) < TOL * loss_a and abs(loss_b - from_forward) < TOL * loss_b
    # the fused loss of the engine is rnn_core's cross-entropy of the logits
    assert np.isclose(loss_b, rnn_core.cross_entropy(out["logits"].reshape(-1, 7), targets.reshape(-1)))
    # forward loops over step_forward; the other two may run the fast loops: the same numbers up to rounding
    from_steps = state_from_arrays(cell, {k: out[k][:, -1] for k in module.STATE_NAMES})
    assert same_state(cell, last_a, from_steps) and same_state(cell, last_b, from_steps)


@pytest.mark.parametrize("cell", CELLS)
def test_shapes_and_types(cell):
    module = CELLS[cell]
    params = module.init_params(5, 4)
    loss, grads, last = module.loss_and_grads(params, np.array([0, 1, 2]), np.array([1, 2, 3]))
    assert isinstance(loss, float)
    assert all(a.shape == (4,) for a in state_arrays(cell, last).values())
    assert {k: g.shape for k, g in grads.items()} == {k: p.shape for k, p in params.items()}
    out = module.forward(params, np.zeros((2, 3), int))
    per_step = {k: (2, 3, 4) for k in (*getattr(module, "GATES", ()), *module.STATE_NAMES)}
    state0 = {f"{k}0": (2, 4) for k in module.STATE_NAMES}
    assert {k: v.shape for k, v in out.items()} == {**per_step, "logits": (2, 3, 5), "y_hat": (2, 3, 5), **state0}
    *_, dstate0 = module.loss_and_grads(params, np.zeros((2, 3), int), np.zeros((2, 3), int), return_dstate0=True)
    assert all(d.shape == (2, 4) for d in state_arrays(cell, dstate0).values())


@pytest.mark.parametrize("cell", CELLS)
def test_one_sequence_equals_a_batch_of_one(cell):
    module = CELLS[cell]
    params, inputs, targets, state0 = random_case(cell, 6, 5, 4, None, seed=8)
    as_batch = state_from_arrays(cell, {k: a[None] for k, a in state_arrays(cell, state0).items()})
    one = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True)
    batch = module.loss_and_grads(params, inputs[None], targets[None], as_batch, return_dstate0=True)
    assert one[0] == batch[0] and all(np.array_equal(one[1][k], batch[1][k]) for k in one[1])
    for a, b in ((one[2], batch[2]), (one[3], batch[3])):
        assert all(np.array_equal(x, state_arrays(cell, b)[k][0]) for k, x in state_arrays(cell, a).items())
    f1, f2 = module.forward(params, inputs, state0), module.forward(params, inputs[None], as_batch)
    assert all(np.array_equal(f1[k], f2[k][0]) for k in f1)


@pytest.mark.parametrize("cell", CELLS)
def test_batch_equals_separate_runs(cell):
    module = CELLS[cell]
    params, inputs, targets, state0 = random_case(cell, 6, 5, 7, 20, seed=9)
    loss, grads, last = module.loss_and_grads(params, inputs, targets, state0)
    arrays = state_arrays(cell, state0)
    rows = [state_from_arrays(cell, {k: a[b] for k, a in arrays.items()}) for b in range(20)]
    parts = [module.loss_and_grads(params, inputs[b], targets[b], rows[b]) for b in range(20)]
    assert np.isclose(loss, sum(p[0] for p in parts))
    for k in grads:
        assert np.allclose(grads[k], sum(p[1][k] for p in parts))
    for k, a in state_arrays(cell, last).items():
        assert np.allclose(a, np.stack([state_arrays(cell, p[2])[k] for p in parts]))


@pytest.mark.parametrize("cell", CELLS)
def test_float32_works_and_agrees_with_float64(cell):
    module = CELLS[cell]
    p64, inputs, targets, state0 = random_case(cell, 9, 8, 6, 4, seed=10)
    p32 = {k: v.astype(np.float32) for k, v in p64.items()}
    same_draws = module.init_params(9, 8, seed=3, dtype=np.float32)
    assert all(np.array_equal(module.init_params(9, 8, seed=3)[k].astype(np.float32), same_draws[k]) for k in p64)
    s32 = state_from_arrays(cell, {k: a.astype(np.float32) for k, a in state_arrays(cell, state0).items()})
    l64, g64, last64 = module.loss_and_grads(p64, inputs, targets, state0)
    l32, g32, last32 = module.loss_and_grads(p32, inputs, targets, s32)
    assert isinstance(l32, float) and all(g.dtype == np.float32 for g in g32.values())
    assert np.isclose(l32, l64, rtol=1e-5)
    assert all(rel_error(g32[k], g64[k]) < 1e-5 for k in g64)
    for k, a in state_arrays(cell, last32).items():
        assert a.dtype == np.float32 and rel_error(a, state_arrays(cell, last64)[k]) < 1e-6


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("L", [1, 2])
def test_state_carried_across_two_windows_equals_one_long_window(cell, L):
    module = CELLS[cell]
    params, inputs, targets, state0 = random_case(cell, 5, 4, 10, 3, seed=12, num_layers=L)
    loss, last = module.sequence_loss(params, inputs, targets, state0)
    loss1, mid = module.sequence_loss(params, inputs[:, :6], targets[:, :6], state0)
    loss2, last2 = module.sequence_loss(params, inputs[:, 6:], targets[:, 6:], mid)
    assert abs(loss - loss1 - loss2) < TOL * loss and same_state(cell, last, last2)
    # and the gradient's loss and final state agree with the same split
    l1, _, mid_g = module.loss_and_grads(params, inputs[:, :6], targets[:, :6], state0)
    l2, _, last3 = module.loss_and_grads(params, inputs[:, 6:], targets[:, 6:], mid_g)
    assert abs(loss - l1 - l2) < TOL * loss and same_state(cell, last, last3)


@pytest.mark.parametrize("cell", CELLS)
def test_results_are_new_arrays_not_reused_buffers(cell):
    module = CELLS[cell]
    params, inputs, targets, state0 = random_case(cell, 5, 4, 6, 2, seed=13)
    out = module.forward(params, inputs, state0)
    first = module.loss_and_grads(params, inputs, targets, state0, return_dstate0=True)
    kept = [{k: v.copy() for k, v in out.items()}, {k: v.copy() for k, v in first[1].items()}]
    kept += [{k: a.copy() for k, a in state_arrays(cell, s).items()} for s in first[2:]]
    other = random_case(cell, 5, 4, 6, 2, seed=14)  # the same shapes: the same reused arrays, if any
    module.forward(other[0], other[1], other[3])
    module.loss_and_grads(*other, return_dstate0=True)
    module.sequence_loss(*other)
    now = [out, first[1], *(state_arrays(cell, s) for s in first[2:])]
    assert all(np.array_equal(a[k], b[k]) for a, b in zip(now, kept) for k in a)


@pytest.mark.parametrize("cell", CELLS)
def test_the_reused_workspace_changes_no_result(cell):
    """loss_and_grads may keep its loop arrays between calls: a repeat, a call between of another
    shape, and two threads at once all give the first call's numbers exactly."""
    module = CELLS[cell]
    # two of one shape, big enough that numpy lets other threads run during its loops; one of another
    cases = [random_case(cell, 20, 64, 40, 8, seed=20), random_case(cell, 20, 64, 40, 8, seed=21)]
    cases.append(random_case(cell, 6, 5, 4, 2, seed=22))

    def run(case):
        loss, grads, last, dstate0 = module.loss_and_grads(*case, return_dstate0=True)
        return loss, grads, [*state_arrays(cell, last).values(), *state_arrays(cell, dstate0).values()]

    def same(a, b):
        return (
            a[0] == b[0]
            and all(np.array_equal(a[1][k], b[1][k]) for k in a[1])
            and all(np.array_equal(x, y) for x, y in zip(a[2], b[2]))
        )

    first = [run(case) for case in cases]
    assert same(run(cases[0]), first[0])  # the workspace holds the other shape's arrays now
    assert same(run(cases[1]), first[1])  # the same shape again: the arrays are reused
    results = [None] * 4

    def worker(k):
        results[k] = [run(cases[k % 2]) for _ in range(10)]

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(len(results))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(same(r, first[k % 2]) for k, rs in enumerate(results) for r in rs)


# -- initialisation ------------------------------------------------------------------------------


@pytest.mark.parametrize("cell", CELLS)
def test_init_params_is_seeded_sized_and_orthogonal(cell):
    module, V, H = CELLS[cell], 7, 6
    a, b = module.init_params(V, H, seed=1), module.init_params(V, H, seed=1)
    assert all(np.array_equal(a[k], b[k]) for k in a) and tuple(a) == module.PARAM_NAMES
    W_x, W_h, bias = module.LAYER_NAMES
    assert not np.array_equal(a[W_h], module.init_params(V, H, seed=2)[W_h])
    assert {k: v.shape for k, v in a.items()} == module.param_shapes(V, H)
    gates = len(getattr(module, "GATES", "h"))
    assert module.count_params(V, H) == sum(v.size for v in a.values()) == gates * H * (V + H + 1) + V * H + V
    for k in range(gates):  # each gate's recurrent block is orthogonal
        block = a[W_h][k * H : (k + 1) * H]
        assert np.allclose(block @ block.T, np.eye(H))
    assert not a["b_o"].any()
    scaled = module.init_params(V, H, seed=1, recurrent_scale=0.5)
    assert np.allclose(scaled[W_h], 0.5 * a[W_h]) and all(np.array_equal(a[k], scaled[k]) for k in (W_x, bias, "W_yh"))


@pytest.mark.parametrize("cell", CELLS)
def test_bad_init_arguments(cell):
    module = CELLS[cell]
    with pytest.raises(ValueError, match="hidden_size must be a positive integer"):
        module.init_params(5, 0)
    with pytest.raises(TypeError, match="vocab_size"):
        module.init_params(5.0, 3)
    with pytest.raises(TypeError, match="dtype"):
        module.init_params(5, 3, dtype=np.int32)
    with pytest.raises(ValueError, match="num_layers must be a positive integer"):
        module.init_params(5, 3, num_layers=0)
    for scale in (0, -1.0, float("nan")):  # every cell's rule, the vanilla one's too
        with pytest.raises(ValueError, match=r"recurrent_scale must be > 0, got"):
            module.init_params(5, 3, recurrent_scale=scale)
    with pytest.raises(TypeError, match="recurrent_scale must be a number"):
        module.init_params(5, 3, recurrent_scale="1")


# -- bad input: every cell words a bad window or state the same way -------------------------------------

BAD_WINDOWS = [  # (inputs, targets, error, message): forward reads the inputs alone
    ([0, 5], [1, 1], ValueError, "outside the vocabulary"),
    ([0, 1], [1, -1], ValueError, "targets holds index -1, outside the vocabulary"),
    ([0, 1, 2], [1, 2], ValueError, "same shape"),
    (np.zeros(0, int), np.zeros(0, int), ValueError, "empty"),
    (np.zeros((2, 0), int), np.zeros((2, 0), int), ValueError, "empty"),
    ([0.0, 1.0], [1, 2], TypeError, "integer array"),
    (np.array(["a"]), [1], TypeError, "encode text first"),
    (np.zeros((1, 2, 3), int), np.zeros((1, 2, 3), int), ValueError, r"\(T,\) or \(B, T\)"),
]


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("inputs, targets, error, match", BAD_WINDOWS)
def test_a_bad_window_gets_a_clear_error(cell, inputs, targets, error, match):
    module = CELLS[cell]
    params = module.init_params(5, 4)
    inputs, targets = np.asarray(inputs), np.asarray(targets)
    for call in (module.loss_and_grads, module.sequence_loss):
        with pytest.raises(error, match=match):
            call(params, inputs, targets)
    if "targets" not in match and "same shape" not in match:
        with pytest.raises(error, match=match):
            module.forward(params, inputs)


@pytest.mark.parametrize("cell", CELLS)
def test_a_loss_without_targets_gets_a_clear_error(cell):
    module = CELLS[cell]
    params, inputs = module.init_params(5, 4), np.array([0, 1, 2])
    for call in (module.loss_and_grads, module.sequence_loss):
        with pytest.raises(TypeError, match=r"^targets must be an int array \(T,\) or \(B, T\), got None$"):
            call(params, inputs, None)
    assert module.forward(params, inputs)["y_hat"].shape == (3, 5)  # forward needs none


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("L", [1, 2])
def test_advance_checks_its_character(cell, L):
    module = CELLS[cell]
    params = module.init_params(5, 4, num_layers=L)
    state = rnn_core.cells.zero_state(params, cell)
    for good in (4, np.int64(0), np.array(3), np.array([0, 4])):
        module.advance(params, good, state)
    for bad in (5, -1, np.int32(7), np.array([0, 5]), np.array([-1, 2])):
        with pytest.raises(
            ValueError, match=r"^x_t holds index -?\d, outside the vocabulary of size V=5 \(valid: 0\.\.4\)"
        ):
            module.advance(params, bad, state)
    with pytest.raises(ValueError, match=r"^x_t must have shape \(\) or \(B,\), got \(2, 2\)"):  # a wrong value
        module.advance(params, np.zeros((2, 2), int), state)
    for bad in (2.0, True, np.array([0.0, 1.0])):  # a wrong type
        with pytest.raises(TypeError, match=r"^x_t must be an integer or an integer array of character indices"):
            module.advance(params, bad, state)


def _state(cell, h, c=None):
    return (h, np.zeros(4) if c is None else c) if cell == "lstm" else h


BAD_STATES = [
    (lambda cell: _state(cell, np.zeros(3)), ValueError, r"h0\)? must have shape \(4,\) for one sequence with H=4"),
    (lambda cell: _state(cell, np.array([0, 0, np.inf, 0])), ValueError, r"h0\)? contains NaN or infinity"),
    (lambda cell: _state(cell, np.zeros(4, int)), TypeError, r"h0\)? must be a float array"),
    (lambda cell: _state(cell, np.zeros((2, 4))), ValueError, r"h0\)? must have shape \(4,\)"),
]


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("make, error, match", BAD_STATES)
def test_a_bad_starting_state_gets_a_clear_error(cell, make, error, match):
    module = CELLS[cell]
    params = module.init_params(5, 4)
    for call in (module.loss_and_grads, module.sequence_loss):
        with pytest.raises(error, match=match):
            call(params, np.array([0, 1]), np.array([1, 2]), make(cell))
    with pytest.raises(error, match=match):
        module.forward(params, np.array([0, 1]), make(cell))
    with pytest.raises(ValueError, match=r"h0\)? must have shape \(2, 4\) for a batch of B=2"):
        module.loss_and_grads(params, np.zeros((2, 2), int), np.zeros((2, 2), int), _state(cell, np.zeros(4)))


@pytest.mark.parametrize("cell", CELLS)
def test_bad_parameters_get_a_clear_error(cell):
    module = CELLS[cell]
    W_x, W_h, b = module.LAYER_NAMES
    good = module.init_params(5, 4)
    inputs = np.array([0, 1])
    for params, error, match in (
        ({k: v for k, v in good.items() if k != W_h}, ValueError, f"missing {W_h}"),
        ([1, 2], TypeError, "must be a dict"),
        ({**good, "b_o": np.zeros(4)}, ValueError, "b_o has shape"),
        ({**good, "W_yh": np.zeros((4, 5))}, ValueError, r"W_yh .* must be \(5, 4\)"),
        ({**good, "W_yh": [[0.0]]}, TypeError, "numpy array"),
        ({**good, b: good[b].astype(np.float32)}, TypeError, "must all be float32 or all float64"),
        ({**good, W_h: np.full(good[W_h].shape, np.nan)}, ValueError, f"{W_h} contains NaN"),
    ):
        for call in (module.loss_and_grads, module.sequence_loss):
            with pytest.raises(error, match=match):
                call(params, inputs, inputs)


# -- using a trained network: sampling and bits per character ------------------------------------------


def _network_and_vocab(cell, seed=4, num_layers=1):
    vocab = rnn_core.Vocabulary("abcde")
    params, _, _, _ = random_case(cell, vocab.size, 6, 1, None, seed=seed, num_layers=num_layers)
    params["W_yh"] *= 4.0  # sharper predictions, so greedy sampling is far from ties
    return params, vocab


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("L", [1, 2])
def test_sampling_feeds_each_character_back_with_the_state_carried(cell, L):
    module = CELLS[cell]
    params, vocab = _network_and_vocab(cell, num_layers=L)
    prime = "abcae"
    out = module.forward(params, vocab.encode(prime))
    assert np.allclose(rnn_core.next_char_probs(params, vocab, prime, cell=cell), rnn_core.softmax(out["logits"][-1]))
    assert np.allclose(
        rnn_core.next_char_probs(params, vocab, prime, temperature=2.0, cell=cell),
        rnn_core.softmax(out["logits"][-1] / 2.0),
    )
    text = rnn_core.sample(params, vocab, "ab", 12, temperature=0, cell=cell)  # greedy: the most likely each time
    ids = list(vocab.encode("ab"))
    for _ in range(12):  # greedy by hand, rerunning the whole sequence each time
        ids.append(int(np.argmax(module.forward(params, np.array(ids))["logits"][-1])))
    assert text == vocab.decode(np.array(ids[2:]))
    assert rnn_core.sample(params, vocab, "ab", 40, seed=1, cell=cell) == rnn_core.sample(
        params, vocab, "ab", 40, seed=1, cell=cell
    )
    assert rnn_core.sample(params, vocab, "ab", 40, seed=1, cell=cell) != rnn_core.sample(
        params, vocab, "ab", 40, seed=2, cell=cell
    )


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("L", [1, 2])
def test_bits_per_char_carries_the_state_across_windows(cell, L):
    module = CELLS[cell]
    params, vocab = _network_and_vocab(cell, num_layers=L)
    ids = np.random.default_rng(5).integers(0, vocab.size, 301)
    whole = module.sequence_loss(params, ids[:-1], ids[1:])[0] / 300 / np.log(2)
    assert np.isclose(rnn_core.bits_per_char(params, ids, window=300, cell=cell), whole)
    assert np.isclose(rnn_core.bits_per_char(params, ids, window=7, cell=cell), whole)  # state carried: the same figure
    X, Y = ids[:300].reshape(3, 100), ids[1:301].reshape(3, 100)
    assert np.isclose(
        rnn_core.bits_per_char(params, ids, n_streams=3, window=9, cell=cell),
        module.sequence_loss(params, X, Y)[0] / 300 / np.log(2),
    )
