"""What notebook 08's sliders show is what its functions compute, checked without a browser.

The recall report (section 1's slider over the lags) and the forget-bias flow (section 4's slider)
each print what one function of the notebook computes. These tests run the notebook's own code
cells, in order, up to the cell that defines the first (section 1 trains the vanilla RNN at every lag
and seed on the way, a few seconds), and only the functions the second needs, and check both at every
slider position.
nbval compares what the notebook itself prints; tests/browser moves the sliders in JupyterLab.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout

import numpy as np
import pytest
from notebook_code import define_functions, run_up_to  # tests/notebook_code.py (matplotlib's Agg backend)

NOTEBOOK = "08-gated-cells-lstm.ipynb"


@pytest.fixture(scope="module")
def section_1():
    return run_up_to(NOTEBOOK, "show_vanilla_recall")


def test_the_recall_report_at_every_lag_of_the_slider(section_1):
    ns = section_1
    for lag in ns["LAGS"]:
        text, guess, answer = ns["recall_report"](ns["vanilla_runs"], lag, "vanilla RNN", ns["rnn_core"])
        assert text.startswith(f"lag: {lag}\n") and guess in "abcd" and answer in "abcd"
        for run in ns["vanilla_runs"][lag]:  # every seed's test accuracy is printed
            assert f"{run[1]:.3f}" in text.splitlines()[-1]
        probabilities = [float(p) for p in text.splitlines()[2].split("->")[0].split()[5::2]]
        assert len(probabilities) == 4 and 0 < sum(probabilities) <= 1.0 + 1e-2
        shown = io.StringIO()
        with redirect_stdout(shown):
            ns["show_vanilla_recall"](lag)
        assert shown.getvalue() == text + "\n"  # the slider prints the report, nothing else
    # the shortest lag is learned with every seed: its example is recalled
    _, guess, answer = ns["recall_report"](ns["vanilla_runs"], ns["LAGS"][0], "vanilla RNN", ns["rnn_core"])
    assert guess == answer


def test_the_forget_bias_slider_s_function_at_every_position():
    # section 1's task and its one sequence, then only the two functions the slider calls
    ns = define_functions(run_up_to(NOTEBOOK, "task_inputs"), NOTEBOOK, "lstm_flow", "forget_bias_flow")
    far, previous = ns["LAGS"][-1], None
    for bias in np.arange(-2.0, 5.01, 0.5):
        norms, mean_f = ns["forget_bias_flow"](bias)
        params = ns["lstm"].init_params(ns["task_vocab"].size, ns["TASK_H"], seed=ns["SEED"], forget_bias=bias)
        assert np.isclose(mean_f, ns["lstm"].forward(params, ns["task_inputs"])["f"].mean())
        assert len(norms) == far + 2 and np.all(np.isfinite(norms)) and np.all(norms >= 0)
        if previous is not None:
            assert mean_f > previous  # a larger bias opens the forget gates
        previous = mean_f
