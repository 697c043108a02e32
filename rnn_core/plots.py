"""The notebooks' figures: matplotlib only, out of the reading path.

A notebook computes what it teaches in its own cells; the functions here only draw it, so that the
cells a learner reads hold the maths and not the matplotlib. The sliders, buttons and live displays
that call them are in ``rnn_core.widgets``.

One naming scheme: every drawing function is ``plot_<thing>(..., ax=None)`` (``axes=None`` when it
draws several panels) and returns its ``matplotlib.figure.Figure``. Given axes, it draws into them;
without, it makes a new figure and does **not** show it: a notebook cell shows the figure as its last
expression, or with ``IPython.display.display(fig)`` (the widgets do the latter). So the figure
appears exactly once, where the cell puts it. Besides them: ``visible_char`` and ``moving_average``,
two small helpers the notebooks also use, and ``HEATMAP_CMAP``.

One colour convention for every heatmap of the series: ``HEATMAP_CMAP`` (blue for negative, red
for positive), centred on zero. Each function says which notebook uses it.

**One look.** Importing this module sets matplotlib's defaults to the series' style,
``SERIES_STYLE``: the series' palette ``PALETTE`` as the colour cycle (so "C0", "C1"... and any
plain matplotlib call in a notebook cell draw in the series' colours) and its font sizes. Every
figure here is at most ``MAX_WIDTH`` inches wide: at matplotlib's 100 dpi that is 800 pixels, which
JupyterLab's output column (700 to 900 pixels) shows at or near full size, so that no text is
smaller than about 9 pixels on screen (tests/test_plots.py measures it). A figure with more to show
is taller, or split into panels one above the other. ``import rnn_core`` alone does not import this
module, nor matplotlib.
"""

from __future__ import annotations

import contextlib

import numpy as np

_EXTRA = 'pip install ".[notebooks]" (the notebooks\' extra: ipywidgets, matplotlib, IPython)'


@contextlib.contextmanager
def _needs_matplotlib():
    """Around an import of matplotlib: a kernel without the notebooks' extra is told what to install."""
    try:
        yield
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            f"rnn_core.plots draws with matplotlib, and {e.name} is not installed: in the series' folder, {_EXTRA}",
            name=e.name,
        ) from e


with _needs_matplotlib():
    import matplotlib

HEATMAP_CMAP = "RdBu_r"  # negative blue, positive red, white at zero
# the series' colours, in the order of matplotlib's "C0".."C7": blue, orange, green, red (as in
# matplotlib's own cycle, so that "C3" is red here too), then violet, teal, ochre and grey
PALETTE = ("#1d4ed8", "#c2410c", "#15803d", "#b91c1c", "#7c3aed", "#0e7490", "#a16207", "#616e7c")
MAX_WIDTH = 8.0  # inches: the widest figure, 800 pixels at 100 dpi
SERIES_STYLE = {
    "axes.prop_cycle": matplotlib.cycler(color=PALETTE),
    "figure.dpi": 100,  # the pixels per inch the sizes above assume (matplotlib's default)
    "figure.figsize": (7.0, 3.6),  # a plain plt.subplots() in a notebook cell: within MAX_WIDTH
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "xtick.labelsize": 9,
    "ytick.labelsize": 9,
    "legend.fontsize": 9,
    "figure.titlesize": 11,
}
matplotlib.rcParams.update(SERIES_STYLE)

__all__ = [
    "HEATMAP_CMAP",
    "MAX_WIDTH",
    "PALETTE",
    "SERIES_STYLE",
    "moving_average",
    "plot_accuracy_by_length",
    "plot_alignment",
    "plot_char_frequencies",
    "plot_clipping",
    "plot_first_steps",
    "plot_gate_products",
    "plot_grad_norms",
    "plot_gradient_flow",
    "plot_gradient_flow_bound",
    "plot_hidden_size_sweep",
    "plot_hidden_states",
    "plot_lag_accuracy",
    "plot_loss_curves",
    "plot_next_char_probs",
    "plot_probe_accuracies",
    "plot_race",
    "plot_signal_gradient",
    "plot_softmax",
    "plot_step_size_errors",
    "plot_tanh",
    "plot_target_score",
    "plot_temperature_bars",
    "plot_text_heatmap",
    "plot_training_curves",
    "plot_training_loss",
    "plot_training_runs",
    "plot_truncation_error",
    "plot_train_val",
    "visible_char",
]


def _plt():
    with _needs_matplotlib():
        import matplotlib.pyplot as plt
    return plt


def _subplots(given, nrows=1, ncols=1, **kw):
    """(figure, axes): the figure of the axes ``given``, or a new figure with an nrows x ncols grid.

    A new figure is closed in pyplot at once: the inline backend then does not show it at the end of
    the cell, and the caller shows the returned figure exactly once. ``given`` is one Axes for a
    single panel, else a sequence of nrows * ncols Axes.
    """
    n = nrows * ncols
    if given is not None:
        axes = [given] if n == 1 else list(given)
        if len(axes) != n:
            raise ValueError(f"this figure draws {n} panels: pass {n} Axes, got {len(axes)}")
        return axes[0].figure, (axes[0] if n == 1 else axes)
    plt = _plt()
    kw.setdefault("layout", "constrained")
    fig, axes = plt.subplots(nrows, ncols, **kw)
    plt.close(fig)
    return fig, (axes if n == 1 else list(np.ravel(axes)))


def _mosaic(given, layout, **kw):
    """(figure, axes) for panels laid out as ``layout`` (matplotlib's subplot_mosaic, e.g. "AB;CC"):
    the figure of the ``given`` Axes (one per panel, in the layout's reading order), or a new figure
    closed in pyplot as in ``_subplots``."""
    names = list(dict.fromkeys(ch for ch in layout if ch not in ";. \n"))
    if given is not None:
        axes = list(given)
        if len(axes) != len(names):
            raise ValueError(f"this figure draws {len(names)} panels: pass {len(names)} Axes, got {len(axes)}")
        return axes[0].figure, axes
    plt = _plt()
    kw.setdefault("layout", "constrained")
    fig = plt.figure(figsize=kw.pop("figsize"), layout=kw.pop("layout"))
    panels = fig.subplot_mosaic(layout, **kw)
    plt.close(fig)
    return fig, [panels[name] for name in names]


def _text_colour(rgba):
    """Black or white, whichever reads better on a background of colour ``rgba`` (by its luminance)."""
    r, g, b = rgba[:3]
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.5 else "white"


def _plain_log_ticks(axis, low, high):
    """Label a log axis with plain numbers (0.05, 0.1, 0.2, ..., 5), never "6×10⁰"."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    decades = np.log10(high / low) if low > 0 and high > low else 0.0
    subs = (1.0,) if decades > 3 else (1.0, 2.0, 5.0) if decades > 1 else (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)
    axis.set_major_locator(LogLocator(subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def visible_char(ch):
    """A character as it can be seen in a table or on an axis: space as ␣, line break as ↵ (notebooks 03, 06, 07)."""
    return {" ": "␣", "\n": "↵"}.get(ch, ch)


def moving_average(x, k):
    """The mean of each run of k consecutive values of x: len(x) - k + 1 values (for smoothed curves)."""
    return np.convolve(np.asarray(x, dtype=float), np.ones(k) / k, mode="valid")


# -- 01 · softmax and its derivative, 02 · cross-entropy ---------------------------------------


def plot_temperature_bars(o, probs_by_temperature, ax=None):
    """Grouped bars: softmax(o / tau) for several temperatures (notebook 01, section 4).

    o: (V,) scores; probs_by_temperature: {tau: (V,) probabilities}, computed by the notebook.
    """
    fig, ax = _subplots(ax, figsize=(8, 3))
    o = np.asarray(o)
    V, n = len(o), len(probs_by_temperature)
    width = 0.8 / n
    for k, (tau, probs) in enumerate(probs_by_temperature.items()):
        ax.bar(np.arange(V) + (k - (n - 1) / 2) * width, probs, width, label=f"τ = {tau:g}")
    ax.axhline(1 / V, color="gray", lw=0.8, ls="--")
    ax.set_xticks(np.arange(V), [f"$o_{i + 1}$ = {v:g}" for i, v in enumerate(o)])
    ax.set_ylabel("probability")
    ax.set_title(f"softmax(o / τ): the same scores at {n} temperatures (dashed: uniform 1/V)")
    ax.legend(ncols=n, fontsize=9, loc="upper right")
    return fig


def plot_step_size_errors(steps, errors, guides, chosen, tol, ax=None):
    """Log-log plot of a finite-difference check's relative error against the step eps (notebook 01, section 5).

    steps, errors: (N,) arrays; guides: {label: (N,) array}, the error models drawn dashed;
    chosen: the step the series uses; tol: the series' tolerance, drawn as a horizontal line.
    """
    fig, ax = _subplots(ax, figsize=(7, 3.6))
    ax.loglog(steps, errors, "o-", color="#1d4ed8", label="measured relative error")
    for (label, values), style in zip(guides.items(), ("--", ":", "-.")):
        ax.loglog(steps, values, style, color="gray", label=label)
    ax.axvline(chosen, color="#15803d", lw=1, label=f"ε = {chosen:g}, the series' step")
    ax.axhline(tol, color="#b91c1c", lw=1, label=f"tolerance {tol:g}")
    ax.set_ylim(min(np.min(errors), 1e-13) / 3, 1)
    ax.invert_xaxis()  # smaller steps to the right
    ax.set_xlabel("step ε (smaller to the right)")
    ax.set_ylabel("relative error")
    ax.set_title("central differences: the Taylor error falls as ε², roundoff grows as 1/ε")
    ax.legend(fontsize=9, loc="upper center")
    return fig


def plot_softmax(y_hat, J, temperature=1.0, axes=None):
    """y_hat as bars beside a heatmap of its Jacobian J, each entry written in its cell (notebook 01, sections 8, 10).

    y_hat: (V,) probabilities softmax(o / temperature); J: (V, V) their Jacobian with respect to o,
    both computed by the notebook. Colours: ``HEATMAP_CMAP``, limits +-1/(4 temperature), the largest
    an entry can be; each number is black on pale cells and white on dark ones. axes: two Axes.
    """
    fig, (ax_bars, ax_heat) = _subplots(axes, 1, 2, figsize=(8, 3.4), gridspec_kw={"width_ratios": [1, 1.15]})
    y_hat, J = np.asarray(y_hat), np.asarray(J)
    V = len(y_hat)
    names = [f"{k + 1}" for k in range(V)]
    ax_bars.bar(names, y_hat, color="#c2410c")
    ax_bars.axhline(1 / V, color="gray", lw=0.8, ls="--")
    ax_bars.set_ylim(0, 1)
    ax_bars.set_xlabel("class i")
    ax_bars.set_title(f"probabilities $\\hat{{y}}$ = softmax(o / {temperature:.2f})")
    limit = 0.25 / temperature  # y(1 - y) <= 1/4, times the chain-rule factor 1/tau
    im = ax_heat.imshow(J, cmap=HEATMAP_CMAP, vmin=-limit, vmax=limit)
    if V <= 8:
        for (i, k), val in np.ndenumerate(J):
            ax_heat.text(
                k,
                i,
                f"{val:.2f}".replace("-0.00", "0.00"),
                ha="center",
                va="center",
                fontsize=9,
                color=_text_colour(im.cmap(im.norm(val))),
            )
    ax_heat.set_xticks(range(V), names)
    ax_heat.set_yticks(range(V), names)
    ax_heat.set_xlabel("score k")
    ax_heat.set_ylabel("probability i")
    ax_heat.set_title(r"Jacobian $\partial \hat{y}_i \,/\, \partial o_k$")
    fig.colorbar(im, ax=ax_heat)
    return fig


def plot_target_score(o_y, y_hat, grad, o_grid, curves, y=0, axes=None):
    """One prediction's loss and gradient against the target's score, and class by class (notebook 02, section 4).

    o_y: the target's score; y_hat, grad: (V,) the probabilities and the gradient y_hat - y;
    o_grid: (N,) target scores; curves: {label: (N,) values over o_grid}, the first one (the loss)
    drawn on the left, the others (slopes, between -1 and 1) in the middle; all computed by the
    notebook. y: the target's index. The two curve panels side by side, the bars under them.
    axes: three Axes.
    """
    fig, (ax_loss, ax_grad, ax_bars) = _mosaic(axes, "AB;CC", figsize=(8, 5.6), height_ratios=[1.25, 1])
    y_hat, grad = np.asarray(y_hat), np.asarray(grad)
    colors = ("#c2410c", "#1d4ed8", "#616e7c", "#15803d")
    for k, ((label, values), color) in enumerate(zip(curves.items(), colors)):
        ax = ax_loss if k == 0 else ax_grad
        values = np.asarray(values)
        ax.plot(o_grid, values, color=color, ls="--" if k >= 2 else "-", label=label)
        ax.plot([o_y], [np.interp(o_y, o_grid, values)], "o", color=color)
    for ax in (ax_loss, ax_grad):
        ax.axvline(o_y, color="gray", lw=0.8)
        ax.axhline(0, color="black", lw=0.5)
        ax.set_xlabel("the target's score $o_y$")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=9, loc="upper right" if ax is ax_loss else "upper left")
    ax_loss.set_title("the loss")
    ax_grad.set_ylim(-1.05, 0.65)  # room above the slopes (at most 0.25) for the legend, clear of every curve
    ax_grad.set_title("slopes with respect to $o_y$")
    x = np.arange(len(y_hat))
    ax_bars.bar(x - 0.2, y_hat, 0.4, color="#c2410c", label=r"$\hat y$")
    ax_bars.bar(x + 0.2, grad, 0.4, color="#1d4ed8", label=r"$\hat y - \mathbf{y}$")
    ax_bars.axhline(0, color="black", lw=0.5)
    ax_bars.set_ylim(-1, 1)
    ax_bars.set_xticks(x, ["target" if i == y else f"class {i}" for i in x])
    ax_bars.set_title("class by class")
    ax_bars.legend(fontsize=9, loc="lower right")
    return fig


# -- 03 · the forward pass -----------------------------------------------------------------------


def plot_tanh(z, h, slope, ax=None):
    """tanh and its derivative against z (notebook 03, section 2).

    z, h, slope: arrays of the same shape (N,), with h = tanh(z) and slope = 1 - h**2 as the
    notebook computed them.
    """
    fig, ax = _subplots(ax, figsize=(6, 3))
    ax.plot(z, h, label=r"$\tanh z$")
    ax.plot(z, slope, label=r"$\tanh' z = 1 - \tanh^2 z$")
    for level in (-1, 1):
        ax.axhline(level, color="grey", lw=0.5, ls="--")
    ax.set_xlabel("z")
    ax.legend()
    return fig


def plot_hidden_states(h, y_hat, inputs, targets, chars, axes=None):
    """Hidden states and predictions of one run, as two heatmaps (notebook 03, section 6).

    h: hidden states h_1..h_T, (T, H), in [-1, 1]; y_hat: predicted probabilities, (T, V);
    inputs, targets: character indices, (T,) each; chars: the vocabulary's characters, length V.
    Left: each hidden unit (rows) after each input character (columns). Right: the probability
    given to every character, with a dot on the one that really comes next. Both use
    HEATMAP_CMAP on [-1, 1] (white is 0, full red is 1), the series' one heatmap convention. The
    hidden states above, the predictions below, each as wide as the figure. axes: two Axes.
    """
    from matplotlib.ticker import MaxNLocator

    V = len(chars)
    fig, (ax_h, ax_p) = _subplots(
        axes, 2, 1, figsize=(8, 3.2 + 0.18 * V), gridspec_kw={"height_ratios": [2.2, 0.18 * V + 0.6]}
    )
    h, y_hat = np.asarray(h), np.asarray(y_hat)
    T, H = h.shape
    im = ax_h.imshow(h.T, aspect="auto", cmap=HEATMAP_CMAP, vmin=-1, vmax=1, interpolation="nearest")
    ax_h.set_title(f"hidden states h_t (H = {H})")
    ax_h.set_ylabel("hidden unit")
    if H <= 16:  # units are numbered: a tick on each (at H = 1 a locator would label -0.5 .. 0.5)
        ax_h.set_yticks(np.arange(H))
    else:
        ax_h.yaxis.set_major_locator(MaxNLocator(integer=True))  # no "2.5"
    fig.colorbar(im, ax=ax_h)
    im = ax_p.imshow(y_hat.T, aspect="auto", cmap=HEATMAP_CMAP, vmin=-1, vmax=1, interpolation="nearest")
    ax_p.plot(np.arange(T), targets, "o", color="black", ms=3)
    ax_p.set_title("ŷ_t: probability of each next character (dot: the true one)")
    ax_p.set_yticks(np.arange(V), [visible_char(c) for c in chars])
    fig.colorbar(im, ax=ax_p).ax.set_ylim(0, 1)  # probabilities: only the white-to-red half
    for ax in (ax_h, ax_p):
        ax.set_xticks(np.arange(T), [visible_char(chars[i]) for i in inputs])
        ax.set_xlabel("input character")
    return fig


# -- 04 · backpropagation through time, 05 · BPTT in practice ---------------------------------------


def plot_training_loss(losses, first_right=None, baseline=None, ax=None):
    """The loss of the hand-trained network against the number of updates (notebook 04, section 4).

    losses: (N,) positive, losses[k] the loss after k updates, drawn on a log scale with plain tick
    labels. first_right: the number of updates after which greedy decoding first gave the right
    text, marked by a vertical line (None: it never did). baseline: the loss of a uniform guess,
    T log V, drawn as a dashed line (None: not drawn). The legend sits above the axes, off the curve.
    """
    fig, ax = _subplots(ax, figsize=(7, 3.2))
    losses = np.asarray(losses, dtype=float)
    ax.semilogy(np.arange(len(losses)), losses, label="loss L")
    shown = [losses.min(), losses.max()]
    if baseline is not None:
        ax.axhline(baseline, color="grey", ls="--", lw=0.8, label="uniform guess, T log V")
        shown.append(baseline)
    if first_right is not None:
        ax.axvline(first_right, color="C1", ls=":", label=f"greedy decoding first right (update {first_right})")
    _plain_log_ticks(ax.yaxis, min(shown), max(shown))
    ax.set_xlabel("updates")
    ax.set_ylabel("loss in nats (log scale)")
    ax.legend(
        loc="lower left",
        bbox_to_anchor=(0, 1.01),
        ncols=3,
        fontsize=9,
        frameon=False,
        borderaxespad=0,
        handlelength=1.5,
        columnspacing=1.2,
    )
    return fig


def _log_limits(values, margin=10**0.5):
    """(low, high) for a log axis holding every value in ``values`` (all must be > 0), with a margin."""
    values = np.concatenate([np.ravel(np.asarray(v, dtype=float)) for v in values])
    if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError("a log axis needs finite values > 0; drop or floor the zeros and non-finite values first")
    return values.min() / margin, values.max() * margin


def plot_truncation_error(ks, errors, title, ax=None):
    """Relative error of truncated BPTT against the full gradient, one curve per scale (notebook 05, section 2).

    ks: truncation lengths k, shape (n,); errors: {recurrent_scale: array (n,) of relative errors > 0};
    title: the axes' title. The y-axis holds every value (nothing is cut).
    """
    fig, ax = _subplots(ax, figsize=(7, 3.6))
    for scale, errs in errors.items():
        ax.semilogy(ks, errs, label=f"recurrent_scale ρ = {scale:g}")
    ax.set_ylim(*_log_limits(errors.values()))
    ax.set_xlabel("truncation length k (steps each loss reaches back)")
    ax.set_ylabel("relative error vs full gradient")
    ax.set_title(title)
    ax.legend(fontsize=9)
    return fig


def plot_gradient_flow_bound(lags, flows, bound, recurrent_scale, hidden_size, ax=None):
    """‖∇_{h_t} L_T‖ against the lag T − t, one thin line per seed, and its bound (notebook 05, section 3).

    lags: (n,) lags 0..T; flows: (S, n), row s the norms for seed s; bound: (n,) the bound
    ρ^lag ‖∇_{h_T} L_T‖ of seed 0. The y-axis is chosen to hold every plotted value, however small
    or large (the notebook asserts it).
    """
    fig, ax = _subplots(ax, figsize=(7, 3.6))
    flows = np.atleast_2d(flows)
    for s, flow in enumerate(flows):
        ax.semilogy(lags, flow, color="C0", lw=1, alpha=0.7, label=f"measured, {len(flows)} seeds" if s == 0 else None)
    ax.semilogy(lags, bound, "--", color="grey", label=r"bound $\rho^{T-t}\,\|\nabla_{h_T} L_T\|$ (seed 0)")
    ax.set_ylim(*_log_limits([flows, bound]))
    ax.set_xlabel("lag T − t (steps back from the last loss)")
    ax.set_ylabel(r"$\|\nabla_{h_t} L_T\|$")
    ax.set_title(f"recurrent_scale ρ = {recurrent_scale:.2f}, H = {hidden_size}")
    ax.legend(loc="best", fontsize=9)
    return fig


def plot_clipping(g, by_entry, by_norm, limit, ax=None):
    """A 2-D gradient, its elementwise clip (box) and its global-norm clip (circle) (notebook 05, section 3).

    g, by_entry, by_norm: arrays of shape (2,); limit: the clipping threshold c.
    """
    plt = _plt()
    fig, ax = _subplots(ax, figsize=(6.4, 2.8))
    for vec, label, color in [
        (g, "gradient", "black"),
        (by_entry, "elementwise clip", "C1"),
        (by_norm, "global-norm clip", "C0"),
    ]:
        ax.annotate("", xy=tuple(vec), xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=color, lw=2))
        ax.plot([], [], color=color, label=label)
    ax.add_patch(plt.Rectangle((-limit, -limit), 2 * limit, 2 * limit, fill=False, ls=":", color="C1"))
    ax.add_patch(plt.Circle((0, 0), limit, fill=False, ls=":", color="C0"))
    xs, ys = zip((0.0, 0.0), tuple(g), tuple(by_entry), tuple(by_norm))
    pad = 0.1 * float(np.linalg.norm(g))
    ax.set_xlim(min(xs) - pad, max(xs) + pad)
    ax.set_ylim(min(ys) - pad, max(max(ys), limit) + pad)
    ax.set_aspect("equal")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=9)  # beside the axes: over no arrow
    return fig


# -- 06 · training on Pride and Prejudice --------------------------------------------------------


def plot_char_frequencies(counts, chars, axes=None):
    """Bars of each character's share of a text, most frequent first, on a log scale (notebook 06, section 1).

    counts: (V,) occurrences of each character, computed by the notebook; chars: the V characters.
    The more frequent half in the upper panel, the rest below it, on the same scale: one row of V
    labels would be too small to read. axes: two Axes.
    """
    fig, panels = _subplots(axes, 2, 1, figsize=(8, 5.2))
    counts = np.asarray(counts)
    order = np.argsort(-counts, kind="stable")  # most frequent first
    V = len(counts)
    share = counts[order] / counts.sum()
    half = (V + 1) // 2
    low = max(float(share[share > 0].min()) / 2, 1e-12) if np.any(share > 0) else 1e-6
    for ax, rows in zip(panels, (np.arange(half), np.arange(half, V))):
        ax.bar(np.arange(len(rows)), share[rows], color="C0")
        ax.set_yscale("log")
        ax.set_ylim(low, 1)
        ax.set_xticks(np.arange(len(rows)), [visible_char(chars[i]) for i in order[rows]])
        ax.set_xlim(-0.7, half - 0.3)
        ax.set_ylabel("share of the text")
    panels[0].set_title(f"the {V} characters of the text, most frequent first (log scale)")
    panels[1].set_title(f"…continued: the {V - half} rarest", fontsize=10)
    return fig


def _baselines(ax, baselines, x_end):
    """Grey horizontal lines at the baselines' bpc, each labelled at the right end ``x_end``."""
    for (name, bpc), style in zip(baselines.items(), (":", "--", "-.")):
        ax.axhline(bpc, color="grey", lw=1, ls=style)
        ax.text(x_end, bpc, f" {name} {bpc:.2f}", va="center", fontsize=9, color="dimgrey")


def plot_training_curves(history, baselines, max_step, smooth=50, label="", color=None, ax=None):
    """Training bpc (each step faintly, and a moving average) and validation bpc against the step (notebook 06).

    history: a ``rnn_core.History``; baselines: {name: bpc}, drawn as grey lines (at most three);
    max_step: the right end of the axis; smooth: steps per moving average; label: put before the
    curves' legend labels; color: one colour for all curves (default: C0 training, C1 validation).
    """
    fig, ax = _subplots(ax, figsize=(8, 3.8))
    h = history.arrays()
    ax.plot(h["step"], h["train_bpc"], color=color or "C0", lw=0.5, alpha=0.3)  # every step, faint
    k = min(smooth, len(h["train_bpc"]))
    if k:
        ax.plot(
            h["step"][k - 1 :],
            moving_average(h["train_bpc"], k),
            color=color or "C0",
            label=f"{label}training (mean of {k} steps)",
        )
    if len(h["val_step"]):
        ax.plot(h["val_step"], h["val_bpc"], "o-", ms=4, color=color or "C1", label=f"{label}validation")
    _baselines(ax, baselines, max_step)
    ax.set_xlim(0, max_step)
    ax.set_ylim(1.0, 7.0)
    ax.set_xlabel("step")
    ax.set_ylabel("bits per character")
    if ax.get_legend_handles_labels()[0]:
        # under the uniform line (6.51 for the novel, near the top), where the curves are long past
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.89), fontsize=9)
    return fig


def plot_first_steps(history, baselines, n, ax=None):
    """The training bpc of each of the first n steps, unsmoothed, over the baselines (notebook 06, section 4)."""
    fig, ax = _subplots(ax, figsize=(8, 3.2))
    h = history.arrays()
    steps, bpc = h["step"][:n], h["train_bpc"][:n]
    ax.plot(steps, bpc, ".-", ms=3, lw=0.8, color="C0")
    _baselines(ax, baselines, n)
    ax.set_xlim(0, n)
    ax.set_xlabel("step")
    ax.set_ylabel("bits per character")
    # one curve, named in the title: a legend box sat on the uniform line and hid its label's end
    ax.set_title(f"the first {len(steps)} steps: the training bpc of each step's window")
    return fig


def plot_training_runs(runs, baselines, smooth=25, ax=None):
    """Smoothed training curves of several short runs on one axis (notebook 06, section 3: SGD, SGD with
    momentum and Adam).

    runs: {label: rnn_core.History, or the list of a run's training bpc at steps 1, 2, ...}. A label's
    rule sets its colour family: labels that mention "momentum" in greens, other labels starting with
    "sgd" in blues, the rest (Adam) in reds, darker for later runs of the family. The legend sits under
    the axis, off the curves.
    """
    plt = _plt()
    fig, ax = _subplots(ax, figsize=(8, 4.8))
    families = {"sgd": plt.get_cmap("Blues"), "momentum": plt.get_cmap("Greens"), "other": plt.get_cmap("Reds")}

    def family(label):
        label = label.lower()
        return "momentum" if "momentum" in label else "sgd" if label.startswith("sgd") else "other"

    size = {name: sum(family(label) == name for label in runs) for name in families}
    seen = dict.fromkeys(families, 0)
    max_step = 1
    for label, history in runs.items():
        if hasattr(history, "arrays"):  # a History
            h = history.arrays()
        else:  # a stored run's training bpc, step by step
            h = {"train_bpc": np.asarray(history, dtype=float), "step": np.arange(1, len(history) + 1)}
        name = family(label)
        color = families[name](0.45 + 0.5 * seen[name] / max(1, size[name] - 1))
        seen[name] += 1
        k = min(smooth, len(h["train_bpc"]))
        if k:
            ax.plot(h["step"][k - 1 :], moving_average(h["train_bpc"], k), color=color, label=label)
        max_step = max(max_step, int(h["step"][-1]) if len(h["step"]) else 1)
    _baselines(ax, baselines, max_step)
    ax.set_xlim(0, max_step)
    ax.set_ylim(1.5, 7.0)
    ax.set_xlabel("step")
    ax.set_ylabel(f"training bpc (mean of {smooth} steps)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncols=3, frameon=False)  # under the step axis
    return fig


def plot_next_char_probs(probs, chars, prime="", temperature=None, top=12, ax=None):
    """Bars of the ``top`` likeliest next characters after a priming text, likeliest on top (notebook 06, section 5).

    probs: (V,) the next-character probabilities (after the temperature); chars: the V characters,
    labelled as they look (␣ for a space, ↵ for a line break); prime, temperature: for the title.
    Characters whose probability rounds to 0.00 are left out (at τ = 0 only the likeliest is left).
    The probability axis ends just past the largest bar, never past 1, and each bar has its value
    written at its end (inside a bar too long for the text to fit after it).
    """
    fig, ax = _subplots(ax, figsize=(4.2, 4.0))
    probs = np.asarray(probs, dtype=float)
    order = np.argsort(-probs, kind="stable")[:top]  # the most likely first, ties in vocabulary order
    order = order[: max(1, int(np.sum(probs[order] >= 0.005)))]  # no bar that would read 0.00
    rows = np.arange(len(order))[::-1]  # ...drawn on top
    ax.barh(rows, probs[order], color="C0")
    ax.set_yticks(rows, [visible_char(chars[i]) for i in order], fontsize=13, family="DejaVu Sans Mono")
    high = max(float(probs[order].max()), 0.01)
    end = min(1.2 * high, 1.0)
    for row, p in zip(rows, probs[order]):
        if p + 0.15 * end <= end:  # after the bar
            ax.text(p + 0.01 * end, row, f"{p:.2f}", va="center", fontsize=9)
        else:  # inside its end, in white
            ax.text(p - 0.01 * end, row, f"{p:.2f}", va="center", ha="right", fontsize=9, color="white")
    ax.set_xlim(0, end)
    ax.set_ylim(len(order) - 0.5 - max(len(order), 4), len(order) - 0.5)  # a lone bar: on top, not a slab
    ax.set_xlabel("probability")
    ax.set_ylabel("next character")
    title = "the next character"
    if prime:
        end = prime[-20:].replace("\n", "↵")
        end = end.rstrip(" ") + "␣" * (len(end) - len(end.rstrip(" ")))  # a space at the end made visible
        title += f" after: {'…' if len(prime) > 20 else ''}{end}"
    if temperature is not None:
        title += f"\n(τ = {temperature:.2f})"
    ax.set_title(title, fontsize=10)
    return fig


# -- 07 · what the network learned ---------------------------------------------------------------


def plot_hidden_size_sweep(curves, val_bpc, n_params, baselines, highlight=None, axes=None):
    """What a fixed number of steps buys at each hidden size H (notebook 07, section 1).

    curves: {H: (steps, smoothed training bpc)}, the notebook's smoothed curves, one per run;
    val_bpc: {H: final validation bpc}; n_params: {H: parameter count}; baselines: {name: bpc},
    drawn as grey lines on every panel. highlight: None, or a dict with "label", "H", "val_bpc",
    "n_params" and "curve" (steps, smoothed bpc) for one more run, drawn in red over the sweep (the
    live-training widget's run). Above: the training curves; below, side by side: validation bpc
    against H, and what each doubling of H gained per 1,000 parameters it added (the sweep's runs
    only: n_params[H] for consecutive sizes, which the notebook's sizes double). One legend, under
    the panels, names every line. axes: three Axes.
    """
    plt = _plt()
    fig, (ax_curves, ax_size, ax_gain) = _mosaic(axes, "AA;BC", figsize=(8, 6.8), height_ratios=[1.2, 1])
    sizes = np.array(sorted(val_bpc))
    val = np.array([val_bpc[H] for H in sizes])
    counts = np.array([n_params[H] for H in sizes])
    shades = plt.get_cmap("Greys")(np.linspace(0.35, 0.9, len(sizes)))
    handles = []
    for H, shade in zip(sizes, shades):
        steps, bpc = curves[H]
        handles += ax_curves.plot(steps, bpc, color=shade, lw=1.2, label=f"H = {H}")
    ax_curves.set_xlabel("step")
    ax_curves.set_ylabel("training bpc (smoothed)")
    ax_size.semilogx(sizes, val, "o-", color="grey")
    ax_size.set_xlabel("hidden size H")
    ax_size.set_ylabel("validation bpc")
    ax_size.set_xticks(sizes, [str(H) for H in sizes])
    ax_size.minorticks_off()
    # what each doubling bought, per parameter it added: the gain falls faster than the bpc
    gain = 1000 * -np.diff(val) / np.diff(counts)
    ax_gain.plot(np.arange(len(gain)), gain, "o-", color="grey")
    ax_gain.axhline(0, color="grey", lw=0.8)
    ax_gain.set_xticks(np.arange(len(gain)), [f"{a}→{b}" for a, b in zip(sizes[:-1], sizes[1:])])
    ax_gain.set_xlim(-0.5, max(len(gain), 1) - 0.5)
    ax_gain.set_xlabel("doubling of H")
    ax_gain.set_ylabel("gain per 1,000 added\nparameters (bpc)")
    for (name, bpc), style in zip(baselines.items(), (":", "--", "-.")):
        for ax in (ax_curves, ax_size):
            line = ax.axhline(bpc, color="grey", lw=1, ls=style, label=f"{name} baseline {bpc:.2f}")
        handles.append(line)
    if highlight is not None:
        steps, bpc = highlight["curve"]
        handles += ax_curves.plot(steps, bpc, color="C3", lw=2, label=highlight["label"])
        ax_size.plot(highlight["H"], highlight["val_bpc"], "*", color="C3", ms=14)
    fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=10, frameon=False)
    return fig


def _break_line(line, width):
    """``line`` cut into pieces of at most ``width`` characters, after a space where one fits."""
    pieces = []
    while len(line) > width:
        cut = line.rfind(" ", 0, width) + 1 or width  # just after the last space that fits
        pieces.append(line[:cut])
        line = line[cut:]
    return pieces + [line]


def _text_positions(text, width):
    """(row, column) of each character of ``text`` laid out in lines: a new row after each line break
    (the break itself sits at the end of its line) and wherever ``_break_line`` cuts a long line."""
    positions, row = [], 0
    for line in text.split("\n"):
        for piece in _break_line(line, width):
            positions += [(row, col) for col in range(len(piece))]
            row += 1
        positions.append((row - 1, len(piece)))  # the line break after this line
    return positions[: len(text)]  # the last line has no break after it


def plot_text_heatmap(text, values, title="", label="value", vmax=None, width=76, ax=None):
    """A passage, each character on a cell coloured by a value (notebook 07, section 2; notebook 08, section 5).

    text: str of N characters; values: (N,) the value after reading each character (a hidden unit,
    a cell state); title; label: the colour bar's; vmax: the colour scale runs over [-vmax, vmax]
    (default: the largest |value|). Colours: the paler middle 60% of ``HEATMAP_CMAP`` (blue
    negative, white 0, red positive), so that black characters stay readable on every cell. Lines
    break where the text does (a line break is drawn as ↵) and, past ``width`` characters, at a space
    (76, the default, keeps the novel's lines, at most 73 characters, whole, and the figure within
    ``MAX_WIDTH``).
    """
    plt = _plt()
    from matplotlib.colors import ListedColormap, Normalize

    values = np.asarray(values, dtype=float)
    if len(text) != len(values):
        raise ValueError(f"text has {len(text)} characters but values has {len(values)}: give one value per character")
    positions = _text_positions(text, width)
    n_rows = max((r for r, _ in positions), default=0) + 1
    n_cols = max((c for _, c in positions), default=0) + 1
    grid = np.full((n_rows, n_cols), np.nan)
    for (r, c), v in zip(positions, values):
        grid[r, c] = v
    if vmax is None:
        vmax = float(np.nanmax(np.abs(values))) if len(values) else 1.0
    vmax = vmax or 1.0
    pale = ListedColormap(plt.get_cmap(HEATMAP_CMAP)(np.linspace(0.2, 0.8, 256)), name="pale " + HEATMAP_CMAP)
    fontsize = 11
    cell_w, cell_h = 0.6 * fontsize / 72, 1.5 * fontsize / 72  # inches: a monospace advance, a line height
    fig, ax = _subplots(ax, figsize=(n_cols * cell_w + 1.0, n_rows * cell_h + 0.9))  # + the colour bar, the title
    im = ax.imshow(grid, cmap=pale, norm=Normalize(-vmax, vmax), aspect="auto", interpolation="nearest")
    for (r, c), ch in zip(positions, text):
        shown, colour = ("↵", "dimgrey") if ch == "\n" else (ch, "black")
        ax.text(c, r, shown, ha="center", va="center", fontsize=fontsize, family="DejaVu Sans Mono", color=colour)
    ax.set_axis_off()
    if title:
        ax.set_title(title, fontsize=11, loc="left")
    fig.colorbar(im, ax=ax, label=label, fraction=0.04, pad=0.01, aspect=max(5, 8 * n_rows / 3))
    return fig


def plot_probe_accuracies(accuracies, ax=None):
    """Held-out accuracy of each predictor of each property, as grouped bars (notebook 07, section 2).

    accuracies: {property: {predictor: accuracy in [0, 1]}}, the same predictors in the same
    order for every property (the first is drawn as the baseline it is, in grey). The legend sits
    under the bars.
    """
    fig, ax = _subplots(ax, figsize=(8, 4.2))
    props = list(accuracies)
    predictors = list(accuracies[props[0]])
    width = 0.8 / len(predictors)
    colours = ["0.7"] + [f"C{i}" for i in range(len(predictors) - 1)]
    x = np.arange(len(props))
    for j, (name, colour) in enumerate(zip(predictors, colours)):
        heights = [accuracies[p][name] for p in props]
        ax.bar(x + (j - (len(predictors) - 1) / 2) * width, heights, width, color=colour, label=name)
    ax.set_xticks(x, props)
    ax.set_ylim(0, 1)
    ax.set_ylabel("held-out accuracy")
    # under the bars, never over them
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncols=2, frameon=False)
    return fig


def plot_grad_norms(step, grad_norm, lr, clip_norm, smooth=50, axes=None):
    """The global gradient norm ‖∇L‖ of every training step, and the learning rate (notebook 07, section 3).

    step, grad_norm, lr: (N,) from ``result.history.arrays()``; clip_norm: the clipping threshold,
    a dashed red line (None: not drawn); smooth: steps in the drawn running mean. axes: two Axes.
    """
    fig, (ax_g, ax_lr) = _subplots(axes, 2, 1, sharex=True, figsize=(8, 4.6), gridspec_kw={"height_ratios": [2, 1]})
    step, grad_norm = np.asarray(step), np.asarray(grad_norm, dtype=float)
    ax_g.plot(step, grad_norm, lw=0.5, alpha=0.4, color="C0", label="each step")
    k = min(smooth, len(grad_norm))
    if k:
        ax_g.plot(step[k - 1 :], moving_average(grad_norm, k), color="C0", label=f"mean of {k} steps")
    top = grad_norm.max() if len(grad_norm) else 1.0
    if clip_norm is not None:
        ax_g.axhline(clip_norm, color="C3", ls="--", lw=1, label=f"clipping threshold {clip_norm:g}")
        top = max(top, clip_norm)
    ax_g.set_ylim(0, 1.1 * top)
    ax_g.set_ylabel(r"gradient norm $\|\nabla L\|$")
    ax_g.legend(fontsize=9)
    ax_lr.plot(step, lr, color="grey")
    ax_lr.set_ylabel("learning rate")
    ax_lr.set_xlabel("step")
    return fig


# -- 08 · gated cells: the LSTM ------------------------------------------------------------------


def plot_lag_accuracy(lags, accuracies, chance, ax=None):
    """Recall accuracy on the long-lag task against the lag (notebooks 08 and 09).

    lags: (K,) the lags trained at. accuracies: dict label -> (K,) accuracies in [0, 1], one
    line per cell type; or (S, K), one row per seed: then the line is their mean and each seed a
    dot. chance: the accuracy of a guess (1 / number of signals), drawn dashed.
    """
    fig, ax = _subplots(ax, figsize=(8, 3))
    seeds = 0
    for k, (label, acc) in enumerate(accuracies.items()):
        acc = np.asarray(acc, dtype=float)
        rows = np.atleast_2d(acc)
        seeds = max(seeds, len(rows)) if acc.ndim == 2 else seeds
        # each line a little thinner than the one before, so that lines that coincide all stay visible
        ax.plot(
            lags, rows.mean(axis=0), "o-", color=f"C{k}", ms=max(8 - 2 * k, 3), lw=max(2.5 - 0.6 * k, 1.0), label=label
        )
        if acc.ndim == 2:  # every seed's run, shifted a little sideways so that equal ones stay apart
            spread = np.linspace(-0.04, 0.04, len(rows)) if len(rows) > 1 else np.zeros(1)
            for row, shift in zip(rows, spread):
                ax.plot(np.asarray(lags) * 10 ** (shift + 0.015 * (k - 1)), row, ".", color=f"C{k}", ms=5, alpha=0.6)
    ax.axhline(chance, color="grey", ls="--", lw=0.8, label=f"chance ({chance:.2f})")
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(lags, [str(lag) for lag in lags])
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("lag N (steps between the signal and the question)")
    ax.set_ylabel("recall accuracy")
    title = f"lines: the mean of {seeds} seeds;\ndots: each seed" if seeds > 1 else None
    # beside the axes: a line may run anywhere between chance and 1
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0), title=title, title_fontsize=9)
    return fig


def plot_gradient_flow(curves, title="", ax=None):
    """‖∇_{h_t} L_T‖ against the lag T - t, on a log scale, one line per network (notebook 08, section 4).

    curves: dict label -> (T+1,) norms, curves[label][k] the norm at lag k (k = 0 is the last step).
    One colour per cell, from the label's first word ("vanilla ...", "LSTM ..."); labels ending
    in "(init)" are drawn dashed, the others solid. A norm of exactly 0 is drawn at 1e-300.
    """
    fig, ax = _subplots(ax, figsize=(6.5, 3.2))
    colours = {}
    for label, norms in curves.items():
        norms = np.asarray(norms, dtype=float)
        colour = colours.setdefault(label.split()[0], f"C{len(colours)}")
        ls = "--" if label.endswith("(init)") else "-"
        ax.semilogy(np.arange(len(norms)), np.maximum(norms, 1e-300), ls=ls, color=colour, label=label)
    ax.set_xlabel("lag T − t")
    ax.set_ylabel(r"$\|\nabla_{h_t} L_T\|$")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=9)
    return fig


def plot_race(curves, ran_on="this computer", axes=None):
    """Validation bpc during a race between cells (notebooks 08 and 09), one line per cell: against the
    updates made, the multiply-adds spent and the seconds of training, in three panels.

    curves: dict label -> (updates (K,), multiply_adds (K,), seconds, bpc), the validation bpc
    measured after each of K checkpoints of that cell's run; seconds and bpc (K,) for one run, or
    (S, K) for S runs (seeds): then the line is their mean and a band spans the lowest and highest
    run. ran_on: where the seconds were measured, for the third panel's label ("where they ran"
    for runs stored elsewhere). Two panels above, the third and the legend below. axes: three Axes
    (then the legend is drawn in the first).
    """
    given = axes is not None
    fig, axes = _mosaic(axes, "AB;CD", figsize=(8, 5.6)) if not given else _mosaic(axes, "ABC")
    if not given:
        axes, legend_ax = axes[:3], axes[3]
    runs = 1
    for k, (label, (updates, multiply_adds, seconds, bpc)) in enumerate(curves.items()):
        bpc, seconds = np.atleast_2d(np.asarray(bpc, dtype=float)), np.atleast_2d(np.asarray(seconds, dtype=float))
        runs = max(runs, len(bpc))
        for ax, x in zip(axes, (updates, np.asarray(multiply_adds) / 1e9, seconds.mean(axis=0))):
            ax.plot(x, bpc.mean(axis=0), "o-", ms=3, color=f"C{k}", label=label)
            if len(bpc) > 1:
                ax.fill_between(x, bpc.min(axis=0), bpc.max(axis=0), color=f"C{k}", alpha=0.2, lw=0)
    for ax, xlabel in zip(axes, ("updates", "multiply-adds (billions)", f"seconds of training ({ran_on})")):
        ax.set_xlabel(xlabel)
        ax.set_ylabel("validation bpc" + (f", mean of {runs}" if runs > 1 else ""))
        ax.grid(alpha=0.3)
    if given:
        axes[0].legend(loc="upper right")
    else:
        legend_ax.axis("off")
        handles, labels = axes[0].get_legend_handles_labels()
        title = f"the band: lowest to highest of {runs} seeds" if runs > 1 else None
        legend_ax.legend(handles, labels, loc="center", frameon=False, fontsize=10, title=title, title_fontsize=9)
    return fig


def plot_loss_curves(curves, smooth=50, ax=None):
    """Training losses of runs meant to coincide, against the step (notebook 09, section 5: your
    network beside rnn_core's).

    curves: dict label -> (steps,) loss per step (nats per character); each drawn as its running
    mean over ``smooth`` steps, the first thick and the others thinner and dashed on top of it, so
    that curves that coincide all stay visible.
    """
    fig, ax = _subplots(ax, figsize=(6.5, 3.2))
    for k, (label, losses) in enumerate(curves.items()):
        losses = np.asarray(losses, dtype=float)
        n = min(smooth, len(losses))
        if n:
            style = {"lw": 3.0, "alpha": 0.6} if k == 0 else {"lw": 1.2, "ls": "--"}
            ax.plot(np.arange(n, len(losses) + 1), moving_average(losses, n), color=f"C{k}", label=label, **style)
    ax.set_xlabel("step")
    ax.set_ylabel(f"training loss, nats per character\n(mean of {smooth} steps)", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
    return fig


def plot_gate_products(products, threshold=0.5, ax=None):
    """What each unit keeps of its state across the distractors, as a product of gates (notebook 08).

    products: dict label -> (H,) each unit's product of its forget gates (or update gates) over the
    steps between the signal and the question, e.g. "fresh" and "trained"; drawn sorted from the
    largest, on a log scale from 1e-12 (smaller shares on the bottom edge), one line per label.
    threshold: drawn dashed (half of the state kept).
    """
    fig, ax = _subplots(ax, figsize=(6.5, 3.2))
    floor = 1e-12  # smaller shares are drawn on the bottom edge
    for k, (label, values) in enumerate(products.items()):
        values = np.sort(np.maximum(np.asarray(values, dtype=float), floor))[::-1]
        ax.semilogy(np.arange(1, len(values) + 1), values, "o-", ms=3, color=f"C{k}", label=label)
    ax.axhline(threshold, color="grey", ls="--", lw=0.8, label=f"half kept ({threshold:g})")
    ax.set_ylim(floor / 2, 2.0)
    ax.set_xlabel("units, from the one that keeps the most")
    ax.set_ylabel("share of the state kept\n(at most 1e-12 on the bottom edge)", fontsize=9)
    ax.legend(fontsize=9)
    return fig


def plot_signal_gradient(updates, curves, title="", ax=None):
    """The gradient that reaches the signal, as training goes on (notebook 09, section 3).

    updates: (K,) the updates after which it was measured (0: the fresh network). curves: dict
    label -> (K,) norms, or (S, K) for S seeds (the line: their median; a band from the lowest to
    the highest). Log scale; a norm of exactly 0 is drawn at 1e-300.
    """
    fig, ax = _subplots(ax, figsize=(6.5, 3.2))
    for k, (label, norms) in enumerate(curves.items()):
        rows = np.maximum(np.atleast_2d(np.asarray(norms, dtype=float)), 1e-300)
        ax.semilogy(updates, np.median(rows, axis=0), "o-", ms=3, color=f"C{k}", label=label)
        if len(rows) > 1:
            ax.fill_between(updates, rows.min(axis=0), rows.max(axis=0), color=f"C{k}", alpha=0.2, lw=0)
    ax.set_xlabel("updates")
    ax.set_ylabel(r"$\|\nabla_{h_t} L_T\|$ at the signal")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=9)
    return fig


def plot_train_val(panels, ax_label="bits per character", ylim=None, axes=None):
    """Training and validation bpc against the step, one line of each per seed, in panels stacked one
    above the other on a shared y-axis (notebook 10: a network that memorises a small text, and the same
    network with dropout).

    panels: {title: [run, ...]}, one run per seed, each a dict with "step" and "train" (the bpc of the
    training text, measured without dropout) and "val_step" and "val" (the validation bpc). Training in
    C0, validation in C1, each run's lowest validation point marked (the best checkpoint). ax_label: the
    y-axis label. ylim: (low, high) of the y-axis, e.g. the same at every position of a slider, so
    that moving it shows the curves move, not the axis (default: matplotlib's, from the data).
    axes: one Axes per panel.
    """
    fig, axes = _subplots(axes, nrows=len(panels), figsize=(8, 1.2 + 2.4 * len(panels)), sharex=True, sharey=True)
    axes = [axes] if len(panels) == 1 else axes
    for ax, (title, runs) in zip(axes, panels.items()):
        for k, run in enumerate(runs):
            first = k == 0  # one legend entry per kind of line
            ax.plot(run["step"], run["train"], color="C0", lw=1.2, label="training text" if first else None)
            ax.plot(run["val_step"], run["val"], color="C1", lw=1.2, label="validation text" if first else None)
            best = int(np.argmin(run["val"]))
            ax.plot(
                run["val_step"][best],
                run["val"][best],
                "o",
                ms=6,
                mfc="C1",
                mec="black",
                label="lowest validation bpc" if first else None,
            )
        ax.set_title(title, fontsize=10)
        ax.set_ylabel(ax_label)
        ax.grid(alpha=0.3)
    if ylim is not None:
        axes[0].set_ylim(*ylim)  # the axes share it
    axes[0].legend(loc="lower left", fontsize=9)
    axes[-1].set_xlabel("step")
    return fig


def plot_alignment(alpha, src_chars, tgt_chars, title="", ax=None):
    """Attention weights as a heatmap: one row per output character, one column per input character
    (notebook 12, section 4).

    alpha: (T, S) weights, each row summing to 1 over the real input; src_chars: the S input
    characters (spaces drawn as ␣); tgt_chars: the T output symbols, "</s>" for the end. White is 0,
    the darkest 1: a weight is a share, not a signed number, so the map is one colour.
    """
    alpha = np.asarray(alpha, dtype=float)
    T, S = alpha.shape
    if len(src_chars) != S or len(tgt_chars) != T:
        raise ValueError(f"alpha is {alpha.shape}: give {S} input characters and {T} output symbols")
    fig, ax = _subplots(ax, figsize=(min(MAX_WIDTH, 1.2 + 0.2 * S), 1.0 + 0.24 * T))
    ax.imshow(alpha, cmap="Blues", vmin=0.0, vmax=1.0, aspect="auto")
    ax.set_xticks(range(S), [visible_char(c) for c in src_chars], fontsize=9)
    ax.set_yticks(range(T), list(tgt_chars), fontsize=9)
    ax.tick_params(length=0)
    ax.set_xlabel("input character (the written date)")
    ax.set_ylabel("output")
    if title:
        ax.set_title(title)
    return fig


def plot_accuracy_by_length(lengths, curves, ax=None):
    """Exact-match accuracy against the input's length, one line per model, one point per seed's mean
    and a band from the lowest seed to the highest (notebook 12, section 5).

    lengths: the x labels, one per length bin ("8-12", ...); curves: dict label -> (seeds, bins)
    accuracies, each in [0, 1].
    """
    fig, ax = _subplots(ax, figsize=(6.5, 3.2))
    x = np.arange(len(lengths))
    for k, (label, acc) in enumerate(curves.items()):
        acc = np.asarray(acc, dtype=float)
        ax.plot(x, acc.mean(axis=0), marker="o", color=f"C{k}", label=f"{label} (mean of {len(acc)} seeds)")
        ax.fill_between(x, acc.min(axis=0), acc.max(axis=0), color=f"C{k}", alpha=0.2, lw=0)
    ax.set_xticks(x, list(lengths))
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("characters in the written date")
    ax.set_ylabel("exact-match accuracy")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=9)
    return fig
