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

def temperature_bars(o, probs_by_temperature):
    """Grouped bars: softmax(o / tau) for several temperatures (notebook 01, section 4).

    o: (V,) scores; probs_by_temperature: {tau: (V,) probabilities}, computed by the notebook.
    """
    plt = _plt()
    o = np.asarray(o)
    V, n = len(o), len(probs_by_temperature)
    fig, ax = plt.subplots(figsize=(8, 3))
    width = 0.8 / n
    for k, (tau, probs) in enumerate(probs_by_temperature.items()):
        ax.bar(np.arange(V) + (k - (n - 1) / 2) * width, probs, width, label=f"τ = {tau:g}")
    ax.axhline(1 / V, color="gray", lw=0.8, ls="--")
    ax.set_xticks(np.arange(V), [f"$o_{i + 1}$ = {v:g}" for i, v in enumerate(o)])
    ax.set_ylabel("probability")
    ax.set_title(f"softmax(o / τ): the same scores at {n} temperatures (dashed: uniform 1/V)")
    ax.legend(ncols=n, fontsize=8, loc="upper right")
    plt.show()


def step_size_errors(steps, errors, guides, chosen, tol):
    """Log-log plot of a finite-difference check's relative error against the step eps (notebook 01, section 5).

    steps, errors: (N,) arrays; guides: {label: (N,) array}, the error models drawn dashed;
    chosen: the step the series uses; tol: the series' tolerance, drawn as a horizontal line.
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 3.6))
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
    ax.legend(fontsize=8, loc="upper center")
    plt.show()


def show_softmax(y_hat, J, temperature=1.0):
    """Print y_hat, then draw it as bars beside a heatmap of the Jacobian J (notebook 01, sections 8 and 10).

    y_hat: (V,) probabilities softmax(o / temperature); J: (V, V) their Jacobian with respect to o,
    both computed by the notebook. Colours: ``HEATMAP_CMAP``, limits +-1/(4 temperature), the largest
    an entry can be.
    """
    plt = _plt()
    y_hat, J = np.asarray(y_hat), np.asarray(J)
    V = len(y_hat)
    names = [f"{k + 1}" for k in range(V)]
    print(f"temperature {temperature:.2f}   y_hat = " + "  ".join(f"{p:.4f}" for p in y_hat))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6), gridspec_kw={"width_ratios": [1, 1.15]})
    ax1.bar(names, y_hat, color="#c2410c")
    ax1.axhline(1 / V, color="gray", lw=0.8, ls="--")
    ax1.set_ylim(0, 1)
    ax1.set_xlabel("class i")
    ax1.set_title(f"probabilities $\\hat{{y}}$ = softmax(o / {temperature:.2f})")
    limit = 0.25 / temperature  # y(1 - y) <= 1/4, times the chain-rule factor 1/tau
    im = ax2.imshow(J, cmap=HEATMAP_CMAP, vmin=-limit, vmax=limit)
    if V <= 8:
        for (i, k), val in np.ndenumerate(J):
            ax2.text(k, i, f"{val:.2f}".replace("-0.00", "0.00"), ha="center", va="center", fontsize=8)
    ax2.set_xticks(range(V), names)
    ax2.set_yticks(range(V), names)
    ax2.set_xlabel("score k")
    ax2.set_ylabel("probability i")
    ax2.set_title(r"Jacobian $\partial \hat{y}_i \,/\, \partial o_k$")
    fig.colorbar(im, ax=ax2)
    plt.show()


def softmax_sliders(compute, scores=(2.0, 1.0, 0.1, -1.0), temperature=1.0):
    """Sliders for four scores and the temperature, redrawing ``show_softmax`` (notebook 01, section 10).

    compute(o, temperature) -> (y_hat, J) is the notebook's function. Returns the
    ``ipywidgets.interactive`` box (display it).
    """
    import ipywidgets as widgets

    if len(scores) != 4:
        raise ValueError(f"softmax_sliders draws four score sliders; got {len(scores)} scores")
    score = dict(min=-5.0, max=5.0, step=0.1, continuous_update=False, style={"description_width": "initial"})

    def update(o_1, o_2, o_3, o_4, temperature):
        y_hat, J = compute([o_1, o_2, o_3, o_4], temperature)
        show_softmax(y_hat, J, temperature)

    return widgets.interactive(
        update,
        **{f"o_{k + 1}": widgets.FloatSlider(value=v, description=f"o_{k + 1}", **score) for k, v in enumerate(scores)},
        temperature=widgets.FloatLogSlider(value=temperature, base=10, min=-1, max=1, step=0.05,
                                           description="temperature", continuous_update=False, style={"description_width": "initial"}),
    )


def show_target_score(o_y, y_hat, loss, grad, o_grid, curves, y=0):
    """Print one prediction's loss and gradient, and draw them against the target's score (notebook 02, section 4).

    o_y: the target's score; y_hat, grad: (V,) the probabilities and the gradient y_hat - y;
    loss: -log y_hat[y]; o_grid: (N,) target scores; curves: {label: (N,) values over o_grid}, the
    first one (the loss) drawn on the left, the others (slopes, between -1 and 1) in the middle;
    all computed by the notebook. y: the target's index.
    """
    plt = _plt()
    y_hat, grad = np.asarray(y_hat), np.asarray(grad)
    print(f"target score o_y: {o_y:.2f}   y_hat_y: {y_hat[y]:.4f}   loss -log y_hat_y: {loss:.4f}   "
          f"gradient y_hat_y - 1: {grad[y]:.4f}")
    fig, (ax_loss, ax_grad, ax_bars) = plt.subplots(1, 3, figsize=(12, 3.4))
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
            ax.legend(fontsize=8, loc="upper right" if ax is ax_loss else "center left")
    ax_loss.set_title("the loss")
    ax_grad.set_ylim(-1.05, 0.5)
    ax_grad.set_title("slopes with respect to $o_y$")
    V = len(y_hat)
    x = np.arange(V)
    ax_bars.bar(x - 0.2, y_hat, 0.4, color="#c2410c", label=r"$\hat y$")
    ax_bars.bar(x + 0.2, grad, 0.4, color="#1d4ed8", label=r"$\hat y - \mathbf{y}$")
    ax_bars.axhline(0, color="black", lw=0.5)
    ax_bars.set_ylim(-1, 1)
    ax_bars.set_xticks(x, ["target" if i == y else f"class {i}" for i in x])
    ax_bars.set_title("class by class")
    ax_bars.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    plt.show()


def target_score_slider(compute, o_grid, curves, value=0.0, y=0):
    """A slider for the target's score, redrawing ``show_target_score`` (notebook 02, section 4).

    compute(o_y) -> (y_hat, loss, grad) is the notebook's function; o_grid and curves as for
    ``show_target_score``. Returns the ``ipywidgets.interactive`` box (display it).
    """
    import ipywidgets as widgets

    def update(o_y):
        y_hat, loss, grad = compute(o_y)
        show_target_score(o_y, y_hat, loss, grad, o_grid, curves, y=y)

    slider = widgets.FloatSlider(value=value, min=float(np.min(o_grid)), max=float(np.max(o_grid)), step=0.1,
                                 description="target score o_y", continuous_update=False, style={"description_width": "initial"})
    return widgets.interactive(update, o_y=slider)



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


# -- 06 · training on Pride and Prejudice --------------------------------------------------------

def visible_char(ch):
    """A character as it can be seen in a table or an axis label: space as ␣, line break as ↵ (notebook 06)."""
    return {" ": "␣", "\n": "↵"}.get(ch, ch)


def plot_char_frequencies(counts, chars):
    """Bars of each character's share of a text, most frequent first, on a log scale (notebook 06, section 1).

    counts: (V,) occurrences of each character, computed by the notebook; chars: the V characters.
    """
    plt = _plt()
    counts = np.asarray(counts)
    order = np.argsort(-counts, kind="stable")  # most frequent first
    V = len(counts)
    fig, ax = plt.subplots(figsize=(12, 3.2))
    ax.bar(np.arange(V), counts[order] / counts.sum(), color="C0")
    ax.set_yscale("log")
    ax.set_xticks(np.arange(V), [visible_char(chars[i]) for i in order], fontsize=7)
    ax.set_xlim(-0.7, V - 0.3)
    ax.set_ylabel("share of the text")
    ax.set_title(f"the {V} characters of the text, most frequent first (log scale)")
    plt.show()


def moving_average(x, k):
    """The mean of each run of k consecutive values of x: len(x) - k + 1 values (for smoothed curves)."""
    return np.convolve(np.asarray(x, dtype=float), np.ones(k) / k, mode="valid")


def _baselines(ax, baselines, x_end):
    for (name, bpc), style in zip(baselines.items(), (":", "--", "-.")):
        ax.axhline(bpc, color="grey", lw=1, ls=style)
        ax.text(x_end, bpc, f" {name} {bpc:.2f}", va="center", fontsize=8, color="grey")


def draw_training_curves(ax, history, baselines, max_step, smooth=50, label="", color=None):
    """Training bpc (each step faintly, and a moving average) and validation bpc against the step (notebook 06).

    history: a ``rnn_core.History``; baselines: {name: bpc}, drawn as grey lines (at most three);
    max_step: the right end of the axis; smooth: steps per moving average.
    """
    h = history.arrays()
    ax.plot(h["step"], h["train_bpc"], color=color or "C0", lw=0.5, alpha=0.3)  # every step, faint
    k = min(smooth, len(h["train_bpc"]))
    if k:
        ax.plot(h["step"][k - 1 :], moving_average(h["train_bpc"], k), color=color or "C0",
                label=f"{label}training (mean of {k} steps)")
    if len(h["val_step"]):
        ax.plot(h["val_step"], h["val_bpc"], "o-", ms=4, color=color or "C1", label=f"{label}validation")
    _baselines(ax, baselines, max_step)
    ax.set_xlim(0, max_step)
    ax.set_ylim(1.0, 7.0)
    ax.set_xlabel("step")
    ax.set_ylabel("bits per character")


class LivePlot:
    """A progress bar and the training curves, updated in place while ``rnn_core.train`` runs (notebook 06).

    Pass it (or a function that calls it) as train's ``callback``: each call with a snapshot of the
    run (a ``TrainResult``) moves the bar, and every ``plot_every`` steps, and at ``max_step``,
    redraws ``draw_training_curves``. It returns None, so training goes on. Call it once more with
    the final result to draw the end of a run that stopped early.
    """

    def __init__(self, baselines, max_step, plot_every=250, smooth=50):
        import ipywidgets as widgets

        plt = _plt()
        self.baselines, self.max_step, self.plot_every, self.smooth = baselines, max_step, plot_every, smooth
        self.bar = widgets.IntProgress(value=0, min=0, max=max_step)
        self.status = widgets.Label()
        self.row = widgets.HBox([self.bar, self.status])
        self.fig, self.ax = plt.subplots(figsize=(9, 4))
        plt.close(self.fig)  # shown through a display handle, not by the inline backend at the end of the cell
        self.handle = None

    def __call__(self, snapshot):
        from IPython.display import display

        self.bar.value = min(snapshot.step, self.max_step)
        val = f"{snapshot.val_bpc:.2f}" if snapshot.val_bpc is not None else "-"
        train = f"{snapshot.train_bpc:.2f}" if snapshot.train_bpc is not None else "-"
        self.status.value = (f"step {snapshot.step:,} of {self.max_step:,}   training bpc {train}   "
                             f"validation bpc {val}")
        if self.handle is not None and snapshot.step % self.plot_every and snapshot.step < self.max_step:
            return None
        self.ax.clear()
        draw_training_curves(self.ax, snapshot.history, self.baselines, self.max_step, smooth=self.smooth)
        self.ax.set_title(f"step {snapshot.step:,} of {self.max_step:,}")
        if self.ax.get_legend_handles_labels()[0]:
            self.ax.legend(loc="upper center")
        if self.handle is None:  # the first call: show the bar and the figure, updated in place from now on
            display(self.row)
            self.handle = display(self.fig, display_id=True)
        else:
            self.handle.update(self.fig)
        return None


def plot_first_steps(history, baselines, n):
    """The training bpc of each of the first n steps, unsmoothed, over the baselines (notebook 06, section 4)."""
    plt = _plt()
    h = history.arrays()
    steps, bpc = h["step"][:n], h["train_bpc"][:n]
    fig, ax = plt.subplots(figsize=(9, 3.2))
    ax.plot(steps, bpc, ".-", ms=3, lw=0.8, color="C0", label="training bpc of each step's window")
    _baselines(ax, baselines, n)
    ax.set_xlim(0, n)
    ax.set_xlabel("step")
    ax.set_ylabel("bits per character")
    ax.set_title(f"the first {len(steps)} steps, one point per step")
    ax.legend(loc="upper right", fontsize=8)
    plt.show()


def plot_training_runs(runs, baselines, smooth=25):
    """Smoothed training curves of several short runs on one axis (notebook 06, section 3: SGD against Adam).

    runs: {label: rnn_core.History}; labels starting with "sgd" are drawn in blues, others in reds.
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(9, 3.8))
    blues, reds = plt.get_cmap("Blues"), plt.get_cmap("Reds")
    n_sgd = sum(label.startswith("sgd") for label in runs)
    i_sgd = i_other = 0
    max_step = 1
    for label, history in runs.items():
        h = history.arrays()
        if label.startswith("sgd"):
            color, i_sgd = blues(0.45 + 0.5 * i_sgd / max(1, n_sgd - 1)), i_sgd + 1
        else:
            color, i_other = reds(0.45 + 0.5 * i_other / max(1, len(runs) - n_sgd - 1)), i_other + 1
        k = min(smooth, len(h["train_bpc"]))
        if k:
            ax.plot(h["step"][k - 1 :], moving_average(h["train_bpc"], k), color=color, label=label)
        max_step = max(max_step, int(h["step"][-1]) if len(h["step"]) else 1)
    _baselines(ax, baselines, max_step)
    ax.set_xlim(0, max_step)
    ax.set_ylim(1.5, 7.0)
    ax.set_xlabel("step")
    ax.set_ylabel(f"training bpc (mean of {smooth} steps)")
    ax.legend(fontsize=8, ncols=2, loc="upper right")
    plt.show()


def print_sample(view):
    """Print a sample as the sampling widget shows it (notebook 06, section 5).

    view: the notebook's ``sample_view`` result, a dict with "error" (None or a message), and else
    "temperature", "prime", "continuation".
    """
    if view["error"]:
        print(f"cannot sample: {view['error']}")
        return
    print(f"temperature: {view['temperature']:.2f}")
    print(view["prime"] + view["continuation"])


def plot_next_char_probs(view):
    """Bars of the most likely next characters after the priming text (notebook 06, section 5).

    view: the notebook's ``sample_view`` result: "probs" (V,), "top" (indices, most likely first),
    "chars", "prime", "temperature"; nothing is drawn for a view with an error.
    """
    if view["error"]:
        return
    plt = _plt()
    top = view["top"]
    rows = np.arange(len(top))[::-1]  # the most likely character on top
    fig, ax = plt.subplots(figsize=(3.6, 4.2))
    ax.barh(rows, view["probs"][top], color="C0")
    ax.set_yticks(rows, [repr(view["chars"][i]) for i in top])
    ax.set_xlim(0, 1)
    ax.set_xlabel("probability")
    ax.set_title(f"next character after\n{view['prime'][-16:]!r}, τ = {view['temperature']:.2f}", fontsize=10)
    fig.tight_layout()
    plt.show()


def show_sample_view(view):
    """``print_sample`` and then ``plot_next_char_probs`` below it (notebook 06, section 5)."""
    print_sample(view)
    plot_next_char_probs(view)


def sampling_widget(view_fn, prime, temperature=0.8, length=300):
    """Sliders for the temperature and the length and a box for the priming text, showing the sample
    beside its next-character chart (notebook 06, section 5).

    view_fn(temperature, prime, length) -> a view dict (the notebook's ``sample_view``). Returns the
    widget box (display it).
    """
    import ipywidgets as widgets
    from IPython.display import clear_output

    style = {"description_width": "initial"}
    temperature_slider = widgets.FloatSlider(value=temperature, min=0.0, max=2.0, step=0.05, description="temperature",
                                             continuous_update=False, style=style)
    length_slider = widgets.IntSlider(value=length, min=20, max=1000, step=20, description="length",
                                      continuous_update=False, style=style)
    prime_box = widgets.Text(value=prime, description="priming text", continuous_update=False, style=style)
    text_pane = widgets.Output(layout=widgets.Layout(width="62%"))
    chart_pane = widgets.Output(layout=widgets.Layout(width="38%"))

    def update(temperature, prime, length):
        view = view_fn(temperature, prime, length)
        with text_pane:
            clear_output(wait=True)
            print_sample(view)
        with chart_pane:
            clear_output(wait=True)
            plot_next_char_probs(view)

    wiring = widgets.interactive_output(update, {"temperature": temperature_slider, "prime": prime_box,
                                                 "length": length_slider})
    return widgets.VBox([widgets.HBox([temperature_slider, length_slider, prime_box]),
                         widgets.HBox([text_pane, chart_pane]), wiring])



# -- 07 · what the network learned ---------------------------------------------------------------


def plot_hidden_size_sweep(curves, val_bpc, n_params, baselines, highlight=None):
    """Notebook 07, section 1: what a fixed number of steps buys at each hidden size H.

    curves: {H: (steps, smoothed training bpc)}, the notebook's smoothed curves, one per run;
    val_bpc: {H: final validation bpc}; n_params: {H: parameter count}; baselines: {name: bpc},
    drawn as grey lines (the bigram one is labelled). highlight: None, or a dict with "label",
    "H", "val_bpc", "n_params" and "curve" (steps, smoothed bpc) for one more run, drawn in red
    over the sweep (the live-training slider's run).
    Left: the training curves; middle: validation bpc against H; right: against the parameter count.
    """
    plt = _plt()
    sizes = np.array(sorted(val_bpc))
    val = np.array([val_bpc[H] for H in sizes])
    counts = np.array([n_params[H] for H in sizes])
    fig, (ax_curves, ax_size, ax_params) = plt.subplots(1, 3, figsize=(13, 3.6))
    shades = plt.get_cmap("Greys")(np.linspace(0.35, 0.9, len(sizes)))
    for H, shade in zip(sizes, shades):
        steps, bpc = curves[H]
        ax_curves.plot(steps, bpc, color=shade, lw=1.2, label=f"H = {H}")
    ax_curves.set_xlabel("step")
    ax_curves.set_ylabel("training bpc (smoothed)")
    for ax, x, xlabel in ((ax_size, sizes, "hidden size H"), (ax_params, counts, "parameters")):
        ax.semilogx(x, val, "o-", color="grey")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("validation bpc")
    ax_size.set_xticks(sizes, [str(H) for H in sizes])
    ax_size.minorticks_off()
    for ax in (ax_curves, ax_size, ax_params):
        for (name, bpc), style in zip(baselines.items(), (":", "--", "-.")):
            ax.axhline(bpc, color="grey", lw=1, ls=style)
    for name, bpc in baselines.items():
        ax_size.text(sizes[0], bpc, f" {name}", va="bottom", fontsize=8, color="grey")
    if highlight is not None:
        steps, bpc = highlight["curve"]
        ax_curves.plot(steps, bpc, color="C3", lw=2, label=highlight["label"])
        ax_size.plot(highlight["H"], highlight["val_bpc"], "*", color="C3", ms=14)
        ax_params.plot(highlight["n_params"], highlight["val_bpc"], "*", color="C3", ms=14)
        ax_size.set_title(highlight["label"], fontsize=10)
    ax_curves.legend(fontsize=8)
    fig.tight_layout()
    plt.show()


def live_training_widget(run_fn, hidden_size=32, learning_rate=5e-3, seq_length=32):
    """Sliders for the hidden size, the learning rate and the sequence length, wired to ``run_fn``
    (notebook 07, section 1: "Train one yourself").

    run_fn(hidden_size, learning_rate, seq_length) trains and draws (the notebook's
    ``show_live_training``); it runs again each time a slider is released. Returns the widget box.
    """
    import ipywidgets as widgets

    style = {"description_width": "initial"}
    size_slider = widgets.IntSlider(value=hidden_size, min=8, max=256, step=8, description="hidden size",
                                    continuous_update=False, style=style)
    lr_slider = widgets.FloatLogSlider(value=learning_rate, base=10, min=-4, max=-1, step=0.1,
                                       description="learning rate", readout_format=".1e",
                                       continuous_update=False, style=style)
    seq_slider = widgets.IntSlider(value=seq_length, min=4, max=128, step=4, description="sequence length",
                                   continuous_update=False, style=style)
    out = widgets.interactive_output(run_fn, {"hidden_size": size_slider, "learning_rate": lr_slider,
                                              "seq_length": seq_slider})
    return widgets.VBox([widgets.HBox([size_slider, lr_slider, seq_slider]), out])


def unit_html(values, chars):
    """Notebook 07, section 2: text as HTML, each character on a background coloured by a value in [-1, 1].

    values: (N,) one hidden unit's activation after each character; chars: the N characters.
    HEATMAP_CMAP (blue negative, white 0, red positive), only its paler middle 60% so that black
    text stays readable; characters HTML-escaped, a line break shown as ↵ before it.
    """
    import html

    from matplotlib.colors import to_hex

    cmap = _plt().get_cmap(HEATMAP_CMAP)
    spans = []
    for value, ch in zip(np.asarray(values, dtype=float), chars):
        colour = to_hex(cmap(0.5 + 0.3 * float(np.clip(value, -1, 1))))
        shown = "↵\n" if ch == "\n" else html.escape(ch)
        spans.append(f'<span style="background-color:{colour}">{shown}</span>')
    return ('<div style="font-family:monospace; white-space:pre-wrap; line-height:1.6">'
            + "".join(spans) + "</div>")


def show_unit(values, chars, caption):
    """Print ``caption``, then show ``unit_html(values, chars)`` (notebook 07, section 2)."""
    from IPython.display import HTML, display

    print(caption)
    display(HTML(unit_html(values, chars)))


def unit_widget(show_fn, unit, n_units):
    """A "hidden unit" slider (0 .. n_units - 1) wired to show_fn(unit) (notebook 07, section 2).

    show_fn is the notebook's function that colours one unit over the passage. Returns the widget box.
    """
    import ipywidgets as widgets

    slider = widgets.IntSlider(value=unit, min=0, max=n_units - 1, step=1, description="hidden unit",
                               continuous_update=False, style={"description_width": "initial"})
    return widgets.VBox([slider, widgets.interactive_output(show_fn, {"unit": slider})])


def plot_probe_accuracies(accuracies):
    """Notebook 07, section 2: held-out accuracy of each predictor of each property, as grouped bars.

    accuracies: {property: {predictor: accuracy in [0, 1]}}, the same predictors in the same
    order for every property (the first is drawn as the baseline it is, in grey).
    """
    plt = _plt()
    props = list(accuracies)
    predictors = list(accuracies[props[0]])
    width = 0.8 / len(predictors)
    colours = ["0.7"] + [f"C{i}" for i in range(len(predictors) - 1)]
    fig, ax = plt.subplots(figsize=(11, 3.4))
    x = np.arange(len(props))
    for j, (name, colour) in enumerate(zip(predictors, colours)):
        heights = [accuracies[p][name] for p in props]
        ax.bar(x + (j - (len(predictors) - 1) / 2) * width, heights, width, color=colour, label=name)
    ax.set_xticks(x, props)
    ax.set_ylim(0, 1)
    ax.set_ylabel("held-out accuracy")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # beside the bars, never over them
    fig.tight_layout()
    plt.show()


def plot_grad_norms(step, grad_norm, lr, clip_norm, smooth=50):
    """Notebook 07, section 3: the global gradient norm of every training step, and the learning rate.

    step, grad_norm, lr: (N,) from ``result.history.arrays()``; clip_norm: the clipping threshold,
    a dashed red line (None: not drawn); smooth: steps in the drawn running mean.
    """
    plt = _plt()
    step, grad_norm = np.asarray(step), np.asarray(grad_norm, dtype=float)
    fig, (ax_g, ax_lr) = plt.subplots(2, 1, sharex=True, figsize=(9, 4.6), gridspec_kw={"height_ratios": [2, 1]})
    ax_g.plot(step, grad_norm, lw=0.5, alpha=0.4, color="C0", label="each step")
    k = min(smooth, len(grad_norm))
    if k:
        mean = np.convolve(grad_norm, np.ones(k) / k, mode="valid")
        ax_g.plot(step[k - 1 :], mean, color="C0", label=f"mean of {k} steps")
    top = grad_norm.max() if len(grad_norm) else 1.0
    if clip_norm is not None:
        ax_g.axhline(clip_norm, color="C3", ls="--", lw=1, label=f"clipping threshold {clip_norm:g}")
        top = max(top, clip_norm)
    ax_g.set_ylim(0, 1.1 * top)
    ax_g.set_ylabel("gradient norm")
    ax_g.legend(fontsize=8)
    ax_lr.plot(step, lr, color="grey")
    ax_lr.set_ylabel("learning rate")
    ax_lr.set_xlabel("step")
    fig.tight_layout()
    plt.show()


# -- 08 · gated cells: the LSTM ------------------------------------------------------------------


def plot_lag_accuracy(lags, accuracies, chance):
    """Notebook 08, sections 1 and 3: recall accuracy on the long-lag task against the lag.

    lags: (K,) the lags trained at. accuracies: dict label -> (K,) accuracies in [0, 1], one
    line per cell type. chance: the accuracy of a guess (1 / number of signals), drawn dashed.
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3))
    for k, (label, acc) in enumerate(accuracies.items()):
        ax.plot(lags, acc, "o-", color=f"C{k}", label=label)
    ax.axhline(chance, color="grey", ls="--", lw=0.8, label=f"chance ({chance:.2f})")
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(lags)
    ax.set_xticklabels([str(lag) for lag in lags])
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("lag N (steps between the signal and the question)")
    ax.set_ylabel("recall accuracy")
    ax.legend(fontsize=8, loc="lower left")
    fig.tight_layout()
    plt.show()


def plot_gradient_flow(curves, title=""):
    """Notebook 08, section 4: the norm of dL_T/dh_t against the lag T - t, on a log scale.

    curves: dict label -> (T+1,) norms, curves[label][k] the norm at lag k (k = 0 is the last step).
    One colour per cell, from the label's first word ("vanilla ...", "LSTM ..."); labels ending
    in "(init)" are drawn dashed, the others solid.
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.5, 3.2))
    colours = {}
    for label, norms in curves.items():
        norms = np.asarray(norms, dtype=float)
        colour = colours.setdefault(label.split()[0], f"C{len(colours)}")
        ls = "--" if label.endswith("(init)") else "-"
        ax.semilogy(np.arange(len(norms)), np.maximum(norms, 1e-300), ls=ls, color=colour, label=label)
    ax.set_xlabel("lag T - t")
    ax.set_ylabel(r"$\|\partial L_T / \partial h_t\|$")
    if title:
        ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8)
    fig.tight_layout()
    plt.show()


def unit_trace(text, values, label):
    """Notebook 08, section 5: one hidden unit's value under each character of a passage.

    text: str of N characters; values: (N,) the unit's value after reading each character;
    label: the title. Characters are drawn on a heatmap coloured by the value (HEATMAP_CMAP,
    centred on 0), wrapped at newlines.
    """
    plt = _plt()
    values = np.asarray(values, dtype=float)
    if len(text) != len(values):
        raise ValueError(f"text has {len(text)} characters but values has {len(values)}")
    row, col, pos = 0, 0, []
    for ch in text:
        pos.append((row, col))
        if ch == "\n":
            row, col = row + 1, 0
        else:
            col += 1
    n_rows, n_cols = row + 1, max(c for _, c in pos) + 1
    grid = np.full((n_rows, n_cols), np.nan)
    for (r, c), v in zip(pos, values):
        grid[r, c] = v
    vmax = float(np.nanmax(np.abs(values))) or 1.0
    fig, ax = plt.subplots(figsize=(min(0.11 * n_cols + 0.5, 10), 0.22 * n_rows + 0.6))
    ax.imshow(grid, cmap=HEATMAP_CMAP, vmin=-vmax, vmax=vmax, aspect="auto")
    for (r, c), ch in zip(pos, text):
        if ch != "\n":
            ax.text(c, r, ch, ha="center", va="center", fontsize=7, family="monospace")
    ax.set_axis_off()
    ax.set_title(label, fontsize=9)
    fig.tight_layout()
    plt.show()
