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


# -- 06 · training on Pride and Prejudice, 07 · what the network learned ---------------------------



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
