"""Figures and slider widgets for the notebooks: the drawing and widget plumbing, out of the reading path.

A notebook computes what it teaches in its own cells; the functions here only draw it (or wire
sliders to a function the notebook wrote), so that the cells a learner reads hold the maths and
not the matplotlib. Each function says which notebook uses it. matplotlib and ipywidgets are
imported on first use, so ``import rnn_core`` alone needs only numpy.

One colour convention for every heatmap of the series: ``HEATMAP_CMAP`` (blue for negative, red
for positive), centred on zero.
"""

from __future__ import annotations

import numpy as np

HEATMAP_CMAP = "RdBu_r"  # negative blue, positive red, white at zero


def _plt():
    import matplotlib.pyplot as plt

    return plt


# -- 01 · softmax and its derivative, 02 · cross-entropy ---------------------------------------



# -- 03 · the forward pass -----------------------------------------------------------------------



# -- 04 · backpropagation through time, 05 · BPTT in practice ---------------------------------------



# -- 06 · training on Pride and Prejudice, 07 · what the network learned ---------------------------



# -- 08 · gated cells: the LSTM ------------------------------------------------------------------
