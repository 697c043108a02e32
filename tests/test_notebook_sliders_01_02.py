"""What the sliders of notebooks 01 and 02 show is the truth, checked without a browser.

Each slider draws what one function of its notebook computes: 01's ``softmax_with_jacobian`` (the
probabilities and the Jacobian of softmax(o / tau)) and 02's ``one_prediction`` (one prediction's
probabilities, loss and gradient). These tests run the notebook's own code cells, in order, up to the
one that defines the function, and check the function at several slider positions against finite
differences in float64. tests/test_widgets.py checks the wiring of the sliders, the browser test
(tests/browser) the page; the notebooks themselves print only what their prose needs.
"""

from __future__ import annotations

import numpy as np
import pytest
from notebook_code import run_up_to  # tests/notebook_code.py; it draws with matplotlib's Agg backend

import rnn_core
from rnn_core import GRADCHECK_TOL, numerical_gradient, rel_error

# -- 01 · the scores-and-temperature sliders ---------------------------------------------------------


@pytest.fixture(scope="module")
def softmax_with_jacobian():
    return run_up_to("01-softmax-and-its-derivative.ipynb", "softmax_with_jacobian")["softmax_with_jacobian"]


@pytest.mark.parametrize(
    "scores, tau",
    [
        ([2.0, 1.0, 0.1, -1.0], 1.0),  # the sliders' first position
        ([2.0, 1.0, 0.1, -1.0], 0.1),  # the smallest temperature: saturated
        ([2.0, 1.0, 0.1, -1.0], 10.0),  # the largest: nearly uniform
        ([0.0, 0.0, 0.0, 0.0], 3.0),
        ([1.0, 1.0, -2.0, 0.5], 0.5),
        ([-5.0, 5.0, 0.3, 0.3], 10.0),  # the ends of the score sliders (at a low temperature they saturate: see below)
    ],
)
def test_01_sliders_show_softmax_and_its_true_jacobian(softmax_with_jacobian, scores, tau):
    y_hat, J = softmax_with_jacobian(scores, tau)
    o = np.array(scores)
    J_fd = np.stack([numerical_gradient(lambda i=i: rnn_core.softmax(o / tau)[i], o) for i in range(len(o))])
    assert rel_error(J, J_fd) < GRADCHECK_TOL  # the Jacobian shown, the factor 1/tau included, is the derivative
    assert np.allclose(y_hat, rnn_core.softmax(o, temperature=tau)) and np.isclose(y_hat.sum(), 1.0)
    assert np.allclose(J, J.T) and np.allclose(J.sum(axis=0), 0)


def test_01_sliders_equal_scores_are_uniform_and_a_far_score_saturates(softmax_with_jacobian):
    assert np.allclose(softmax_with_jacobian([0, 0, 0, 0], 3.0)[0], 0.25)  # at any temperature
    y_hat, J = softmax_with_jacobian([1.0, 1.0, 0.1, -1.0], 1.0)
    assert y_hat[0] == pytest.approx(y_hat[1]) and J[0, 0] == pytest.approx(J[1, 1])  # two equal scores
    # one score far above the rest: the whole Jacobian fades towards 0 (no finite differences here: their
    # roundoff, about 1e-16 / 1e-5 = 1e-11, is too large next to entries of 1e-4)
    assert np.abs(softmax_with_jacobian([5, -5, -5, -5], 1.0)[1]).max() < 1e-3


# -- 02 · the target-score slider -------------------------------------------------------------------


@pytest.fixture(scope="module")
def notebook_02():
    return run_up_to("02-cross-entropy.ipynb", "one_prediction")


@pytest.mark.parametrize("o_y", [-6.0, -2.0, 0.0, 2.0, 6.0])
def test_02_slider_shows_the_true_loss_and_gradient(notebook_02, o_y):
    one_prediction, others = notebook_02["one_prediction"], notebook_02["OTHER_SCORES"]
    y_hat, loss, grad = one_prediction(o_y)
    o = np.concatenate([[o_y], others])  # the target is class 0
    assert loss == pytest.approx(rnn_core.cross_entropy(o, 0)) and loss == pytest.approx(-np.log(y_hat[0]))
    assert rel_error(grad, numerical_gradient(lambda: rnn_core.cross_entropy(o, 0), o)) < GRADCHECK_TOL
    assert np.allclose(y_hat, rnn_core.softmax(o)) and np.isclose(grad.sum(), 0)


def test_02_slider_curves_are_the_function_over_the_slider_range(notebook_02):
    one_prediction, grid, curves = notebook_02["one_prediction"], notebook_02["O_GRID"], notebook_02["curves"]
    loss, grad, slope = curves.values()
    assert grid.min() == -6 and grid.max() == 6
    for k in (0, 40, 60, 120):
        y_hat, loss_k, grad_k = one_prediction(grid[k])
        assert (loss[k], grad[k], slope[k]) == pytest.approx((loss_k, grad_k[0], y_hat[0] * (1 - y_hat[0])))
