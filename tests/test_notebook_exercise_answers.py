"""The numbers that the folded answers of notebooks 01, 05, 08, 10 and 13 quote, computed by the notebooks' own code.

A check that prints an exercise's answer cannot sit in the notebook, even folded: GitHub and other
viewers ignore the folding and show its code and output right under the question. So the checks live
here. Each test runs the notebook's own code cells, in order, up to the cell that defines what it
needs (or, for 08, only the cells and functions the check calls, so no network is trained), then
computes what the answer says. Every check is float64 arithmetic, the same on every CPU.
"""

from __future__ import annotations

import contextlib
import io
import re

import nbformat
import numpy as np
from notebook_code import (
    NOTEBOOKS,
    code_cells,
    define_functions,
    run_code,
    run_up_to,
)  # tests/notebook_code.py, Agg backend

import rnn_core

# -- 01 · exercise 5 ----------------------------------------------------------------------------------


def test_01_exercise_5_one_sided_differences():
    """One-sided differences on log-sum-exp, at the step sizes of section 5's sweep, for several random scores."""
    nb = run_up_to("01-softmax-and-its-derivative.ipynb", "logsumexp")
    logsumexp, rel_error, rnn_core = nb["logsumexp"], nb["rel_error"], nb["rnn_core"]
    softmax, tol = rnn_core.softmax, rnn_core.GRADCHECK_TOL  # the notebook goes on with rnn_core's, not the stub
    steps = 10.0 ** -np.arange(1, 14)  # section 5's steps, 1e-1 to 1e-13

    def errors(o, one_sided):
        basis = np.eye(len(o))
        if one_sided:
            grads = [[(logsumexp(o + eps * e) - logsumexp(o)) / eps for e in basis] for eps in steps]
        else:
            grads = [[(logsumexp(o + eps * e) - logsumexp(o - eps * e)) / (2 * eps) for e in basis] for eps in steps]
        return np.array([rel_error(np.array(g), softmax(o)) for g in grads])

    for seed in range(8):
        o = np.random.default_rng(seed).standard_normal(5)
        one, central = errors(o, True), errors(o, False)
        at_1e5, best = one[4], np.argmin(one)
        assert 3 * tol < at_1e5 < 1e-5  # "of order 1e-6, far above the tolerance"
        assert steps[best] in (1e-7, 1e-8) and 1e-9 < one[best] < 1e-7  # "1e-7 or 1e-8, of order 1e-8"
        assert one[best] > 200 * central[4]  # "hundreds of times larger than the central difference's"


# -- 05 · exercises 1, 3 and 4 -------------------------------------------------------------------------


def test_05_answers_numbers():
    nb = run_up_to("05-bptt-in-practice.ipynb", "worst_errors", "verdict", "FLOW_IDS", "tb_vocab")
    worst_errors, inputs, targets = nb["worst_errors"], nb["inputs"], nb["targets"]
    row4 = "∇h_{t+1} L from o_{t+1} only"
    errors = {length: worst_errors(inputs[:length], targets[:length])[row4][1] for length in (1, 2, 3, 4)}
    # exercise 1: the mistake passes on one and two steps (roundoff), and is caught from three on, at 0.8
    assert errors[1] < 1e-9 and errors[2] < 1e-9 and nb["verdict"](errors[2]) == "agrees"
    assert round(errors[3], 1) == 0.8 and errors[4] > nb["GRADCHECK_TOL"]

    n = nb["rnn_core"].count_params(80, 100)  # exercise 3: the largest norm elementwise clipping at 5 leaves
    assert n == 26_180 and round(5 * np.sqrt(n)) == 809

    slope = {}  # exercise 4: the mean tanh slope at two recurrent scales
    for recurrent_scale in (0.5, 2.0):
        params = nb["init_params"](nb["tb_vocab"].size, 32, seed=nb["SEED"], recurrent_scale=recurrent_scale)
        states = nb["forward"](params, nb["FLOW_IDS"][:-1])["h"]
        slope[recurrent_scale] = np.mean(1 - states**2)
    assert round(slope[0.5], 3) == 0.900 and round(slope[2.0], 3) == 0.459


# -- 08 · exercise 1 -----------------------------------------------------------------------------------

NB08 = "08-gated-cells-lstm.ipynb"


def _memory_with(nb, w_hh):
    """The answer's network, with its recurrent weights w_hh times the identity."""
    params = nb["rnn_core"].init_params(nb["task_vocab"].size, 4, seed=nb["SEED"])
    params["W_xh"][:] = 0.0
    params["W_xh"][np.arange(4), nb["SIGNALS"]] = 3.0
    params["W_hh"] = w_hh * np.eye(4)
    params["W_yh"][:] = 0.0
    params["W_yh"][nb["SIGNALS"], np.arange(4)] = 5.0
    return params


def test_08_exercise_1_check_accepts_the_answer_and_rejects_a_fading_trace(capsys):
    nb = run_up_to(NB08, "recall_batch", "SEED")  # the imports and the task; no training
    check_memory = define_functions(nb, NB08, "recall_accuracy", "check_memory", "build_memory")["check_memory"]
    assert check_memory(nb["build_memory"]) == "not attempted"  # the stub, as the stored output shows

    assert check_memory(lambda: _memory_with(nb, 2.0)) == "passed"  # W_hh = 2I: the answer
    assert check_memory(lambda: _memory_with(nb, 0.5)) == "wrong"  # W_hh = I/2: recalls, but from a trace
    kept = [float(k) for k in re.findall(r"keeps at least ([0-9.e+-]+)", capsys.readouterr().out)]
    assert len(kept) == 2 and kept[0] > 0.9 and 1e-16 < kept[1] < 1e-14  # "about 1e-15 by lag 50"


def test_08_exercise_1_answer_is_the_network_that_passes():
    """The answer's code block builds the network the check accepts."""
    cells = nbformat.read(NOTEBOOKS / NB08, as_version=4)["cells"]
    answers = [c["source"] for c in cells if c["cell_type"] == "markdown" and "def build_memory():" in c["source"]]
    assert len(answers) == 1
    unquoted = re.sub(r"(?m)^> ?", "", answers[0])  # the fold is a blockquote
    code = re.search(r"```python\n(.*?)```", unquoted, re.DOTALL).group(1)
    nb = run_up_to(NB08, "recall_batch", "SEED")
    define_functions(nb, NB08, "recall_accuracy", "check_memory")
    run_code(nb, code, "<08, the answer of exercise 1>")
    with contextlib.redirect_stdout(io.StringIO()):
        assert nb["check_memory"](nb["build_memory"]) == "passed"


# -- 10 · exercises 1 and 3 ----------------------------------------------------------------------------


def test_10_answers_numbers():
    survive = {k: 0.7**k for k in (10, 32)}  # exercise 1: what a unit keeps through k masks at κ = 0.3
    assert round(survive[10], 3) == 0.028 and f"{survive[32]:.1e}" == "1.1e-05"
    # exercise 3: the one-layer width with the parameters of section 5's two layers (no run needed)
    source = "\n".join(source for _, source in code_cells("10-deeper-networks-and-overfitting.ipynb"))
    H2 = int(re.search(r"^DEPTH_H = (\d+)", source, re.MULTILINE).group(1))
    V = rnn_core.Vocabulary.from_text(rnn_core.load_text()).size
    c = 3 * H2**2 + (2 * V + 2) * H2
    H1 = (-(2 * V + 1) + ((2 * V + 1) ** 2 + 4 * c) ** 0.5) / 2
    assert (V, H2) == (91, 64) and round(H1, 1) == 88.6
    assert rnn_core.count_params(V, H2, 2) == c + V and rnn_core.count_params(V, 89) == 89**2 + (2 * V + 1) * 89 + V
    assert abs(rnn_core.count_params(V, 89) - (c + V)) < abs(rnn_core.count_params(V, 88) - (c + V))


# -- 13 · exercises 1 and 2 ----------------------------------------------------------------------------


def test_11_answers_numbers():
    nb = run_up_to("13-appendix-errata.ipynb", "flatten", "unflatten", "params", "h0")
    loss_and_grads, flatten, unflatten = nb["loss_and_grads"], nb["flatten"], nb["unflatten"]
    inputs, targets, h0, params = nb["inputs"], nb["targets"], nb["h0"], nb["params"]
    clip_global_norm, global_norm = nb["rnn_core"].clip_global_norm, nb["rnn_core"].global_norm

    def clipped_field(theta):  # exercise 1's answer
        grads = loss_and_grads(unflatten(theta), inputs, targets, h0)[1]
        return flatten(clip_global_norm(grads, 0.1)[0])

    theta, eps = flatten(params), 1e-5
    J_clip = np.stack(
        [(clipped_field(theta + step) - clipped_field(theta - step)) / (2 * eps) for step in eps * np.eye(theta.size)],
        axis=1,
    )
    asym = np.linalg.norm(J_clip - J_clip.T) / np.linalg.norm(J_clip)
    norm = global_norm(loss_and_grads(params, inputs, targets, h0)[1])
    assert round(norm, 3) == 2.338 and round(asym, 2) == 0.28  # the clip is active, and the field not symmetric

    walks, once = 116 * 117 // 2, 116  # exercise 2: one walk back per loss, against one walk for all
    assert walks == sum(range(1, 117)) == 6786 and round(walks / once, 1) == 58.5
