"""The notebooks' figure and widget helpers (rnn_core.plots) draw without a display and without errors."""

import matplotlib

matplotlib.use("Agg")  # no display: draw into memory

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from rnn_core import plots  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# -- 01, 02 ----------------------------------------------------------------------------------------



# -- 03 --------------------------------------------------------------------------------------------



# -- 04, 05 ----------------------------------------------------------------------------------------



# -- 06, 07 ----------------------------------------------------------------------------------------



# -- 08 --------------------------------------------------------------------------------------------
