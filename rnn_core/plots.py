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


def plot_tanh(z, h, slope):
    """Notebook 03, section 2: tanh and its derivative against z.

    z, h, slope: arrays of the same shape (N,), with h = tanh(z) and slope = 1 - h**2 as the
    notebook computed them.
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3))
    ax.plot(z, h, label=r"$\tanh z$")
    ax.plot(z, slope, label=r"$\tanh' z = 1 - \tanh^2 z$")
    for level in (-1, 1):
        ax.axhline(level, color="grey", lw=0.5, ls="--")
    ax.set_xlabel("z")
    ax.legend()
    plt.show()


def _shown(ch):
    """A visible stand-in for the space character on axis labels."""
    return "␣" if ch == " " else ch


def hidden_state_heatmaps(h, y_hat, inputs, targets, chars):
    """Notebook 03, section 6: hidden states and predictions of one run, as two heatmaps.

    h: hidden states h_1..h_T, (T, H), in [-1, 1]; y_hat: predicted probabilities, (T, V);
    inputs, targets: character indices, (T,) each; chars: the vocabulary's characters, length V.
    Left: each hidden unit (rows) after each input character (columns). Right: the probability
    given to every character, with a dot on the one that really comes next. Both use
    HEATMAP_CMAP on [-1, 1] (white is 0, full red is 1), the series' one heatmap convention.
    """
    plt = _plt()
    h, y_hat = np.asarray(h), np.asarray(y_hat)
    T, H = h.shape
    fig, (ax_h, ax_p) = plt.subplots(1, 2, figsize=(12, 3.6))
    im = ax_h.imshow(h.T, aspect="auto", cmap=HEATMAP_CMAP, vmin=-1, vmax=1, interpolation="nearest")
    ax_h.set_title(f"hidden states h_t (H = {H})")
    ax_h.set_ylabel("hidden unit")
    fig.colorbar(im, ax=ax_h)
    im = ax_p.imshow(y_hat.T, aspect="auto", cmap=HEATMAP_CMAP, vmin=-1, vmax=1, interpolation="nearest")
    ax_p.plot(np.arange(T), targets, "o", color="black", ms=3)
    ax_p.set_title("ŷ_t: probability of each next character (dot: the true one)")
    ax_p.set_yticks(np.arange(len(chars)), [_shown(c) for c in chars], fontsize=7)
    fig.colorbar(im, ax=ax_p).ax.set_ylim(0, 1)  # probabilities: only the white-to-red half
    for ax in (ax_h, ax_p):
        ax.set_xticks(np.arange(T), [_shown(chars[i]) for i in inputs], fontsize=7)
        ax.set_xlabel("input character")
    fig.tight_layout()
    plt.show()


# -- 04 · backpropagation through time, 05 · BPTT in practice ---------------------------------------


def plot_training_loss(losses, first_right=None, baseline=None):
    """Notebook 04, section 4: the loss of the hand-trained network against the number of updates.

    losses: (N,) positive, losses[k] the loss after k updates, drawn on a log scale.
    first_right: the number of updates after which greedy decoding first gave the right text,
    marked by a vertical line (None: it never did). baseline: the loss of a uniform guess,
    T log V, drawn as a dashed line (None: not drawn).
    """
    plt = _plt()
    losses = np.asarray(losses)
    fig, ax = plt.subplots(figsize=(7, 3.2))
    ax.semilogy(np.arange(len(losses)), losses, label="loss L")
    if baseline is not None:
        ax.axhline(baseline, color="grey", ls="--", lw=0.8, label="uniform guess, T log V")
    if first_right is not None:
        ax.axvline(first_right, color="C1", ls=":", label=f"greedy decoding first right (update {first_right})")
    ax.set_xlabel("updates")
    ax.set_ylabel("loss in nats (log scale)")
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    plt.show()


# The helpers notebook 05 uses.
def _log_limits(values, margin=10**0.5):
    """(low, high) for a log axis holding every value in ``values`` (all must be > 0), with a margin."""
    values = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in values])
    if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError("a log axis needs finite values > 0; drop or floor the zeros and non-finite values first")
    return values.min() / margin, values.max() * margin


def truncation_error_figure(ks, errors, title):
    """Notebook 05, section 2: relative error of truncated BPTT against the full gradient, one curve per scale.

    ks: truncation lengths k, shape (n,); errors: {recurrent_scale: array (n,) of relative errors > 0};
    title: the axes' title. The y-axis holds every value (nothing is cut). Returns the Axes.
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for scale, errs in errors.items():
        ax.semilogy(ks, errs, label=f"recurrent_scale ρ = {scale:g}")
    ax.set_ylim(*_log_limits(errors.values()))
    ax.set_xlabel("truncation length k (steps each loss reaches back)")
    ax.set_ylabel("relative error vs full gradient")
    ax.set_title(title)
    ax.legend(fontsize=8)
    return ax


def gradient_flow_figure(lags, flows, bound, recurrent_scale, hidden_size):
    """Notebook 05, section 3: ‖∂L_T/∂h_t‖ against the lag T − t, one thin line per seed, and the bound.

    lags: (n,) lags 0..T; flows: (S, n), row s the norms for seed s; bound: (n,) the bound
    ρ^lag ‖∂L_T/∂h_T‖ of seed 0. The y-axis is chosen to hold every plotted value, however small or
    large (the notebook asserts it). Returns the Axes.
    """
    plt = _plt()
    flows = np.atleast_2d(flows)
    fig, ax = plt.subplots(figsize=(7, 3.6))
    for s, flow in enumerate(flows):
        ax.semilogy(lags, flow, color="C0", lw=1, alpha=0.7, label=f"measured, {len(flows)} seeds" if s == 0 else None)
    ax.semilogy(lags, bound, "--", color="grey", label="bound ρ^(T−t)·‖∂L_T/∂h_T‖ (seed 0)")
    ax.set_ylim(*_log_limits([flows, bound]))
    ax.set_xlabel("lag T − t (steps back from the last loss)")
    ax.set_ylabel("‖∂L_T/∂h_t‖")
    ax.set_title(f"recurrent_scale ρ = {recurrent_scale:.2f}, H = {hidden_size}")
    ax.legend(loc="best", fontsize=8)
    return ax


def clipping_figure(g, by_entry, by_norm, limit):
    """Notebook 05, section 3: a 2-D gradient, its elementwise clip (box) and its global-norm clip (circle).

    g, by_entry, by_norm: arrays of shape (2,); limit: the clipping threshold c. Returns the Axes.
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5, 2.8))
    for vec, label, color in [(g, "gradient", "black"), (by_entry, "elementwise clip", "C1"),
                              (by_norm, "global-norm clip", "C0")]:
        ax.annotate("", xy=tuple(vec), xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=color, lw=2))
        ax.plot([], [], color=color, label=label)
    ax.add_patch(plt.Rectangle((-limit, -limit), 2 * limit, 2 * limit, fill=False, ls=":", color="C1"))
    ax.add_patch(plt.Circle((0, 0), limit, fill=False, ls=":", color="C0"))
    xs, ys = zip((0.0, 0.0), tuple(g), tuple(by_entry), tuple(by_norm))
    pad = 0.1 * float(np.linalg.norm(g))
    ax.set_xlim(min(xs) - pad, max(xs) + pad)
    ax.set_ylim(min(ys) - pad, max(max(ys), limit) + pad)
    ax.set_aspect("equal")
    ax.legend(loc="upper right", fontsize=8)
    return ax


# -- 06 · training on Pride and Prejudice, 07 · what the network learned ---------------------------



# -- 08 · gated cells: the LSTM ------------------------------------------------------------------
