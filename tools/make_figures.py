"""Draw the series' diagrams, the same bytes on every run: SVG into img/, PNG into the notebooks.

    python tools/make_figures.py                 # write img/*.svg and the notebooks' figure cells
    python tools/make_figures.py --out DIR --notebooks DIR2
                                                 # write both somewhere else (the test does this)
    python tools/make_figures.py --png DIR       # also write the PNGs as files into DIR (not committed)

Every notebook stands alone: a figure it shows is not a link to ../img/ (which breaks as soon
as the notebook is opened anywhere but in a clone of the repository) but an image stored in the
notebook, in a Markdown cell of its own, a *figure cell*:

    <!-- figure rnn-unrolled.png, drawn by tools/make_figures.py -->
    ![alt text](data:image/png;base64,iVBORw0KGgo...)

The first line names the figure (HTML comments show nowhere); this script draws it with the same
code as ``img/NAME.svg`` and writes it, as a PNG at 144 dpi, base64-encoded, as the image's data
URL. A data URL, not a cell attachment (``attachment:NAME.png``): JupyterLab puts a Markdown cell's
HTML on the page before it swaps an attachment's address for its data, so the browser first tries
to load ``attachment:NAME.png`` and logs an error on every opening (ERR_UNKNOWN_URL_SCHEME); a
data URL loads at once, in JupyterLab, VS Code, GitHub, Colab and the site alike. PNG, not SVG:
VS Code's and the site's Markdown (markdown-it) accept only bitmap data URLs. A cell of its own, so
that editing the prose around a figure never shows its 100 to 200 KB of base64.

To add a figure to a notebook, write ``![alt text](attachment:NAME.png)`` on a line of its own in
a Markdown cell and run the script: it splits the cell there into the prose before, the figure
cell and the prose after (``ID``, ``ID-figure``, ``ID-after`` for a cell of id ``ID``), and drops
every cell attachment. A figure cell already written is only brought up to date; nothing else in a
notebook changes, and a notebook already up to date is not rewritten.

The figures (names used by the notebooks):

    rnn-4-black-boxes.svg             four boxes turn "hell" into "ello", one character each
    rnn-4-black-boxes-connected.svg   the same boxes, connected by a hidden state h
    rnn-multi-sequences.svg           sequences of different lengths: "ca" -> "at", "hell" -> "ello"
    rnn-unrolled.svg                  the network folded and unrolled in time, W_xh, W_hh, W_yh labelled
    char-level-language-model.svg     the character-level language model reading "hell", predicting "ello", with numbers
    lstm-cell.svg                     one LSTM step: four gates, the cell path c_{t-1} -> c_t (notebook 08)
    gru-cell.svg                      one GRU step: two gates, the candidate, the direct path h_{t-1} -> h_t (09)
    bptt-two-routes.svg               the backward pass at step t: the two routes into h_t, from the output at t
                                      (through o_t) and from h_{t+1} (through a_{t+1}) (notebook 04)
    lstm-gradient-paths.svg           the LSTM's backward pass over three steps: the cell path through f, the path
                                      through h (08)
    gru-gradient-paths.svg            the GRU's backward pass over three steps: the direct path through z, the rest (09)

The numbers in the last figure are those of the series' running example, computed here
with rnn_core exactly as notebook 02 computes them: the sorted vocabulary of "hello"
(``rnn_core.Vocabulary.from_text("hello")``, e h l o), the untrained network
``rnn_core.init_params(4, 3, seed=0)``, and ``rnn_core.forward`` on "hell" from h0 = 0.

Reproducible output: fixed figure sizes (no tight bounding boxes), glyphs drawn as
paths from matplotlib's bundled DejaVu fonts, ``svg.hashsalt`` fixed so element ids do
not change, and no date in the metadata.
"""

from __future__ import annotations

import argparse
import base64
import io
import re
import sys
from pathlib import Path

import matplotlib
import nbformat

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.patches import Circle, FancyArrowPatch, FancyBboxPatch  # noqa: E402
from matplotlib.path import Path as MplPath  # noqa: E402

import rnn_core  # noqa: E402
from notebook_files import dumps, notebook_paths, reads, source  # noqa: E402  (tools/, this script's folder)

ROOT = Path(__file__).resolve().parent.parent
ATTACHMENT_RE = re.compile(r"\(attachment:([^)\s]+)\)")  # ![alt](attachment:NAME.png)
# a figure as an author writes it: an attachment reference on a line of its own
FIGURE_LINE_RE = re.compile(r"^!\[([^\]]*)\]\(attachment:([^)\s]+)\)[ \t]*$", re.MULTILINE)
# a figure cell as this script writes it
FIGURE_CELL_RE = re.compile(
    r"\A<!-- figure (?P<name>\S+), drawn by tools/make_figures\.py -->\n"
    r"!\[(?P<alt>[^\]]*)\]\(data:image/png;base64,[A-Za-z0-9+/=]*\)\n?\Z"
)
PNG_MIME = "image/png"
PNG_DPI = 144  # pixels per inch of the notebooks' PNGs: sharp on high-density screens
SCALE = 0.55  # inches per data unit: every figure is drawn in data units with equal aspect

# one colour per kind of quantity, the same in every figure
INK = "#1f2933"
MUTED = "#616e7c"
BOX = "#2d3748"  # the black boxes
X_FILL, X_EDGE = "#dbeafe", "#1d4ed8"  # inputs x
H_FILL, H_EDGE = "#dcfce7", "#15803d"  # hidden state h
O_FILL, O_EDGE = "#ffedd5", "#c2410c"  # outputs o, y_hat
GOOD_FILL, GOOD_EDGE = "#bbf7d0", "#15803d"  # the target's score
NOTE = "#b91c1c"

# the running example of the last figure (notebooks 02, 03 and 04 use the same network)
HELLO_TEXT = "hello"
HELLO_SEED = 0
HELLO_HIDDEN = 3

STYLE = {
    "svg.hashsalt": "rnn-from-scratch",  # fixed ids for clip paths and glyphs
    "svg.fonttype": "path",  # glyphs as paths: looks the same in every viewer
    "font.family": "DejaVu Sans",
    "mathtext.fontset": "dejavusans",
    "font.size": 12,
    "path.simplify": False,
}
SVG_METADATA = {"Date": None, "Creator": "rnn-from-scratch tools/make_figures.py"}


# -- drawing helpers ------------------------------------------------------------------


def new_figure(xmin, xmax, ymin, ymax):
    """A figure whose axes fill it exactly and show [xmin, xmax] x [ymin, ymax] at equal scale."""
    fig = plt.figure(figsize=((xmax - xmin) * SCALE, (ymax - ymin) * SCALE))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(ymin, ymax)
    ax.set_axis_off()
    return fig, ax


def box(ax, cx, cy, w, h, fill, edge, lw=1.6, rounding=0.15, **kw):
    ax.add_patch(
        FancyBboxPatch(
            (cx - w / 2, cy - h / 2),
            w,
            h,
            boxstyle=f"round,pad=0,rounding_size={rounding}",
            facecolor=fill,
            edgecolor=edge,
            linewidth=lw,
            **kw,
        )
    )


def node(ax, cx, cy, label, fill, edge, r=0.5, size=15):
    ax.add_patch(Circle((cx, cy), r, facecolor=fill, edgecolor=edge, linewidth=1.8))
    ax.text(cx, cy, label, ha="center", va="center", fontsize=size, color=INK)


def arrow(ax, start, end, color=INK, lw=1.6, style="-|>", rad=0.0, **kw):
    ax.add_patch(
        FancyArrowPatch(
            start,
            end,
            arrowstyle=style,
            mutation_scale=14,
            color=color,
            linewidth=lw,
            shrinkA=0,
            shrinkB=0,
            connectionstyle=f"arc3,rad={rad}",
            **kw,
        )
    )


def char_token(ax, cx, cy, ch, fill, edge, size=0.8):
    """A character in a small rounded square, monospace, as typed."""
    box(ax, cx, cy, size, size, fill, edge, lw=1.4, rounding=0.12)
    ax.text(
        cx, cy, ch, ha="center", va="center_baseline", fontsize=17, family="DejaVu Sans Mono", weight="bold", color=INK
    )


def black_box(ax, cx, cy, w=1.3, h=1.0):
    box(ax, cx, cy, w, h, BOX, BOX, rounding=0.12)
    ax.text(cx, cy, "$f$", ha="center", va="center", fontsize=20, color="white")


def minus(v, fmt=".2f"):
    """A number with a typographic minus sign."""
    return format(v, fmt).replace("-", "\u2212")


def title(ax, x, y, text, size=13):
    ax.text(x, y, text, ha="center", va="center", fontsize=size, color=INK)


# -- the story of the boxes -----------------------------------------------------------------


def boxes_row(ax, x0, y, inputs, outputs, connected, spacing=2.2, h_first=0):
    """One row of black boxes: input characters below, output characters above, h between (if connected)."""
    xs = [x0 + spacing * i for i in range(len(inputs))]
    for i, (x, cin, cout) in enumerate(zip(xs, inputs, outputs)):
        char_token(ax, x, y - 1.9, cin, X_FILL, X_EDGE)
        char_token(ax, x, y + 1.9, cout, O_FILL, O_EDGE)
        arrow(ax, (x, y - 1.5), (x, y - 0.5))
        arrow(ax, (x, y + 0.5), (x, y + 1.5))
        black_box(ax, x, y)
        if connected:
            start = x - spacing + 0.65 if i else x - 1.55
            arrow(ax, (start, y), (x - 0.65, y), color=H_EDGE, lw=2.2)
            label_x = (start + x - 0.65) / 2
            ax.text(label_x, y + 0.3, f"$h_{h_first + i}$", ha="center", va="center", fontsize=14, color=H_EDGE)
    return xs


def side_labels(ax, x, y):
    ax.text(x, y + 1.9, "output", ha="right", va="center", fontsize=11, color=MUTED)
    ax.text(x, y - 1.9, "input", ha="right", va="center", fontsize=11, color=MUTED)


def fig_black_boxes():
    fig, ax = new_figure(-2.4, 9.0, -4.1, 3.6)
    title(ax, 3.3, 3.1, "$f$(\u201chell\u201d) = \u201cello\u201d with four boxes, one character each")
    xs = boxes_row(ax, 0, 0, "hell", "ello", connected=False)
    side_labels(ax, -0.95, 0)
    # the puzzle: boxes 3 and 4 see the same input but must answer differently
    ax.plot([xs[2] - 0.45, xs[2] - 0.45, xs[3] + 0.45, xs[3] + 0.45], [-2.55, -2.75, -2.75, -2.55], color=NOTE, lw=1.5)
    ax.text(
        (xs[2] + xs[3]) / 2,
        -3.2,
        "same input \u2018l\u2019, but outputs \u2018l\u2019 and \u2018o\u2019:",
        ha="center",
        va="center",
        fontsize=11,
        color=NOTE,
    )
    ax.text(
        (xs[2] + xs[3]) / 2,
        -3.7,
        "one character alone cannot decide",
        ha="center",
        va="center",
        fontsize=11,
        color=NOTE,
    )
    return fig


def fig_black_boxes_connected():
    fig, ax = new_figure(-2.4, 9.0, -4.1, 3.6)
    title(ax, 3.3, 3.1, "each box also receives $h$, a summary of what came before")
    xs = boxes_row(ax, 0, 0, "hell", "ello", connected=True)
    side_labels(ax, -0.95, 0)
    ax.text(
        (xs[2] + xs[3]) / 2,
        -3.05,
        "$f($\u2018l\u2019$,\\, h_2)$ = \u2018l\u2019      $f($\u2018l\u2019$,\\, h_3)$ = \u2018o\u2019",
        ha="center",
        va="center",
        fontsize=12,
        color=H_EDGE,
    )
    ax.text(
        (xs[2] + xs[3]) / 2,
        -3.65,
        "same character, told apart by $h$",
        ha="center",
        va="center",
        fontsize=11,
        color=H_EDGE,
    )
    return fig


def fig_multi_sequences():
    fig, ax = new_figure(-4.2, 8.6, -8.8, 3.7)
    title(ax, 2.2, 3.2, "one $f$ for every length: $T$ characters in, $T$ steps")
    boxes_row(ax, 0, 0, "ca", "at", connected=True)
    boxes_row(ax, 0, -5.4, "hell", "ello", connected=True)
    for y, name in ((0, "\u201cca\u201d \u2192 \u201cat\u201d"), (-5.4, "\u201chell\u201d \u2192 \u201cello\u201d")):
        ax.text(
            -2.0,
            y + 0.25,
            f"$T = {2 if y == 0 else 4}$",
            ha="right",
            va="center",
            fontsize=14,
            weight="bold",
            color=INK,
        )
        ax.text(-2.0, y - 0.35, name, ha="right", va="center", fontsize=10, color=MUTED)
    ax.text(6.0, 0.35, "the same weights", ha="center", va="center", fontsize=11, color=MUTED)
    ax.text(
        6.0, -0.25, "$W_{xh}$, $W_{hh}$, $W_{yh}$ at every step", ha="center", va="center", fontsize=11, color=MUTED
    )
    ax.plot([-4.0, 8.4], [-2.85, -2.85], color="#cbd2d9", lw=1.0, ls=(0, (4, 3)))
    return fig


# -- the network itself ------------------------------------------------------------------------


def fig_unrolled():
    fig, ax = new_figure(-1.9, 15.4, -2.8, 7.5)
    yx, yh, yo, yy = 0.0, 2.3, 4.6, 6.5
    r = 0.55
    label = dict(fontsize=12, va="center")

    def column(x, s):
        """x_s -> h_s -> o_s -> y_hat_s, with the weights on the arrows."""
        node(ax, x, yx, f"$x_{{{s}}}$", X_FILL, X_EDGE, r=r, size=14)
        node(ax, x, yh, f"$h_{{{s}}}$", H_FILL, H_EDGE, r=r, size=14)
        node(ax, x, yo, f"$o_{{{s}}}$", O_FILL, O_EDGE, r=r, size=14)
        node(ax, x, yy, f"$\\hat{{y}}_{{{s}}}$", O_FILL, O_EDGE, r=0.5, size=14)
        arrow(ax, (x, yx + r), (x, yh - r))
        arrow(ax, (x, yh + r), (x, yo - r))
        arrow(ax, (x, yo + r), (x, yy - 0.5), color=MUTED, lw=1.3)
        ax.text(x - 0.15, (yx + yh) / 2, "$W_{xh}$", ha="right", **label)
        ax.text(x - 0.15, (yh + yo) / 2, "$W_{yh}$", ha="right", **label)
        ax.text(x + 0.12, (yo + yy) / 2 + 0.02, "softmax", ha="left", fontsize=9, va="center", color=MUTED)

    # folded: one cell whose state loops back into itself
    column(0.0, "t")
    c, s_ = np.cos(np.radians(35)) * r, np.sin(np.radians(35)) * r
    loop = MplPath(
        [(c, yh + s_), (1.7, yh + 1.3), (1.7, yh - 1.3), (c, yh - s_)],
        [MplPath.MOVETO, MplPath.CURVE4, MplPath.CURVE4, MplPath.CURVE4],
    )
    ax.add_patch(FancyArrowPatch(path=loop, arrowstyle="-|>", mutation_scale=14, color=H_EDGE, linewidth=2.0))
    ax.text(1.6, yh, "$W_{hh}$", ha="left", color=H_EDGE, **label)
    ax.text(0.0, -1.1, "folded", ha="center", va="center", fontsize=11, color=MUTED)

    # the unrolling arrow
    ax.add_patch(
        FancyArrowPatch(
            (2.75, yh),
            (3.85, yh),
            arrowstyle="simple,head_width=0.9,head_length=0.7",
            mutation_scale=18,
            color="#cbd2d9",
            linewidth=0,
        )
    )
    ax.text(3.3, yh + 0.65, "unroll", ha="center", va="center", fontsize=11, color=MUTED)

    # unrolled: three steps, the state passed along by W_hh
    xs = [7.0, 9.8, 12.6]
    for x, s in zip(xs, ["t-1", "t", "t+1"]):
        column(x, s)
    ends = [xs[0] - 2.3] + xs + [xs[-1] + 2.3]
    for a, b in zip(ends[:-1], ends[1:]):
        a0 = a + r if a in xs else a + 0.3
        b0 = b - r if b in xs else b - 0.3
        arrow(ax, (a0, yh), (b0, yh), color=H_EDGE, lw=2.0)
        ax.text((a0 + b0) / 2, yh + 0.32, "$W_{hh}$", ha="center", color=H_EDGE, **label)
    ax.text(ends[0], yh, "\u22ef", ha="center", va="center", fontsize=16, color=H_EDGE)
    ax.text(ends[-1], yh, "\u22ef", ha="center", va="center", fontsize=16, color=H_EDGE)
    ax.text(xs[1], -1.1, "unrolled: the same weights at every step", ha="center", va="center", fontsize=11, color=MUTED)

    eq = (
        "$h_t = \\tanh(W_{hh}\\,h_{t-1} + W_{xh}\\,x_t + b_h)$        $o_t = W_{yh}\\,h_t + b_o$"
        "        $\\hat{y}_t = \\mathrm{softmax}(o_t)$"
    )
    ax.text(6.6, -2.1, eq, ha="center", va="center", fontsize=13, color=INK)
    return fig


def hello_example():
    """The running example's numbers: vocabulary, inputs, targets, hidden states (4, 3) and scores (4, 4)."""
    vocab = rnn_core.Vocabulary.from_text(HELLO_TEXT)  # sorted: 'ehlo'
    ids = vocab.encode(HELLO_TEXT)
    inputs, targets = ids[:-1], ids[1:]  # "hell" -> "ello"
    params = rnn_core.init_params(vocab.size, HELLO_HIDDEN, seed=HELLO_SEED)
    out = rnn_core.forward(params, inputs)  # h0 = 0
    return vocab.chars, inputs, targets, out["h"], out["logits"]


def vector(ax, cx, top, values, fill, edge, highlight=None, hl_fill=None, hl_edge=None, fmt=minus, bold_hl=True):
    """A column vector drawn as stacked cells, first entry on top; returns the cells' centre heights."""
    cw, ch = 1.05, 0.5
    ys = [top - ch / 2 - ch * k for k in range(len(values))]
    for k, (v, y) in enumerate(zip(values, ys)):
        hl = k == highlight
        ax.add_patch(
            FancyBboxPatch(
                (cx - cw / 2, y - ch / 2),
                cw,
                ch,
                boxstyle="square,pad=0",
                facecolor=hl_fill if hl else fill,
                edgecolor=hl_edge if hl else edge,
                linewidth=2.2 if hl else 1.2,
                zorder=3 if hl else 2,
            )
        )
        ax.text(
            cx,
            y,
            fmt(v),
            ha="center",
            va="center",
            fontsize=11,
            color=INK,
            weight="bold" if hl and bold_hl else "normal",
            zorder=4,
        )
    return ys


def fig_char_language_model():
    chars, inputs, targets, h, o = hello_example()
    V, H = len(chars), h.shape[1]
    fig, ax = new_figure(-4.9, 9.2, -2.75, 10.3)
    xs = [0.0, 2.7, 5.4, 8.1]
    in_top, h_top, o_top = 2.0, 4.85, 8.05
    o_bottom = o_top - 0.5 * V
    for t, x in enumerate(xs):
        char_token(ax, x, -0.9, chars[inputs[t]], X_FILL, X_EDGE, size=0.75)
        arrow(ax, (x, -0.5), (x, -0.05), color=MUTED, lw=1.2)
        one_hot = np.eye(V, dtype=int)[inputs[t]]
        vector(ax, x, in_top, one_hot, "white", X_EDGE, highlight=inputs[t], hl_fill=X_FILL, hl_edge=X_EDGE, fmt=str)
        vector(ax, x, h_top, h[t], H_FILL, H_EDGE, fmt=minus)
        vector(ax, x, o_top, o[t], "white", O_EDGE, highlight=targets[t], hl_fill=GOOD_FILL, hl_edge=GOOD_EDGE)
        char_token(ax, x, o_top + 1.0, chars[targets[t]], GOOD_FILL, GOOD_EDGE, size=0.75)
        arrow(ax, (x, in_top + 0.05), (x, h_top - 0.5 * H - 0.05))
        arrow(ax, (x, h_top + 0.05), (x, o_bottom - 0.05))
        ax.text(x - 0.13, (in_top + h_top - 0.5 * H) / 2, "$W_{xh}$", ha="right", va="center", fontsize=11)
        ax.text(x - 0.13, (h_top + o_bottom) / 2, "$W_{yh}$", ha="right", va="center", fontsize=11)
        if t:
            hy = h_top - 0.25 * H
            arrow(ax, (xs[t - 1] + 0.56, hy), (x - 0.56, hy), color=H_EDGE, lw=2.0)
            ax.text((xs[t - 1] + x) / 2, hy + 0.3, "$W_{hh}$", ha="center", va="center", fontsize=11, color=H_EDGE)
    # the vocabulary beside the first column's one-hot and score vectors
    for top in (in_top, o_top):
        for k, c in enumerate(chars):
            ax.text(
                xs[0] - 0.68,
                top - 0.25 - 0.5 * k,
                c,
                ha="center",
                va="center",
                fontsize=11,
                family="DejaVu Sans Mono",
                color=MUTED,
            )
    # row names on the left
    names = [
        (-0.9, "input characters"),
        (in_top - 0.25 * V, "input layer\none-hot $x_t$"),
        (h_top - 0.25 * H, "hidden layer $h_t$"),
        (o_top - 0.25 * V, "output layer\nscores $o_t$"),
        (o_top + 1.0, "targets"),
    ]
    for y, name in names:
        ax.text(-1.15, y, name, ha="right", va="center", fontsize=11, color=INK, linespacing=1.3)
    ax.text(
        4.05,
        -2.0,
        "green: the score of the character that should come next;\ntraining pushes it up and the other scores down",
        ha="center",
        va="center",
        fontsize=10.5,
        color=GOOD_EDGE,
        linespacing=1.4,
    )
    ax.text(
        2.15,
        9.75,
        "a character-level language model reads \u201chell\u201d and predicts \u201cello\u201d",
        ha="center",
        va="center",
        fontsize=12.5,
        color=INK,
    )
    return fig


# -- the backward pass (notebook 04) ---------------------------------------------------------


GRAD = NOTE  # the backward pass: gradients flowing back, drawn in the notes' red
FORWARD = "#9aa5b1"  # the forward pass, drawn faintly behind it


def fig_bptt_two_routes():
    fig, ax = new_figure(-1.6, 15.0, -2.5, 9.6)
    yx, yh, yo, yl = 0.6, 3.4, 6.0, 8.3
    xs = {"h_prev": 0.0, "a_t": 2.6, "h_t": 5.4, "a_next": 8.4, "h_next": 11.2}
    r = 0.55

    def a_box(x, label):
        box(ax, x, yh, 1.15, 0.8, "white", MUTED, lw=1.4, rounding=0.12)
        ax.text(x, yh, label, ha="center", va="center", fontsize=13, color=INK)

    def loss_box(x, label):
        box(ax, x, yl, 1.2, 0.75, O_FILL, O_EDGE, lw=1.4, rounding=0.12)
        ax.text(x, yl, label, ha="center", va="center", fontsize=13, color=INK)

    # the forward pass, faint: h_{t-1} -> a_t -> h_t -> a_{t+1} -> h_{t+1}, inputs below, outputs above
    node(ax, xs["h_prev"], yh, "$h_{t-1}$", H_FILL, H_EDGE, r=r, size=13)
    node(ax, xs["h_t"], yh, "$h_t$", H_FILL, H_EDGE, r=r, size=14)
    node(ax, xs["h_next"], yh, "$h_{t+1}$", H_FILL, H_EDGE, r=r, size=13)
    a_box(xs["a_t"], "$a_t$")
    a_box(xs["a_next"], "$a_{t+1}$")
    for x, s in ((xs["a_t"], "t"), (xs["a_next"], "t+1")):
        node(ax, x, yx, f"$x_{{{s}}}$", X_FILL, X_EDGE, r=0.48, size=12)
        arrow(ax, (x, yx + 0.48), (x, yh - 0.4), color=FORWARD, lw=1.3)
    for x, s in ((xs["h_t"], "t"), (xs["h_next"], "t+1")):
        node(ax, x, yo, f"$o_{{{s}}}$", O_FILL, O_EDGE, r=r, size=13)
        loss_box(x, f"$L_{{{s}}}$")
        arrow(ax, (x, yh + r), (x, yo - r), color=FORWARD, lw=1.3)
        arrow(ax, (x, yo + r), (x, yl - 0.375), color=FORWARD, lw=1.3)
    chain = [("h_prev", r), ("a_t", 0.575), ("h_t", r), ("a_next", 0.575), ("h_next", r)]
    for (a, ra), (b, rb) in zip(chain[:-1], chain[1:]):
        arrow(ax, (xs[a] + ra, yh), (xs[b] - rb, yh), color=FORWARD, lw=1.3)
    arrow(ax, (xs["h_next"] + r, yh), (xs["h_next"] + 1.6, yh), color=FORWARD, lw=1.3)
    ax.text(xs["h_next"] + 2.0, yh, "\u22ef", ha="center", va="center", fontsize=16, color=FORWARD)

    # the backward pass: curved arrows running against the forward ones
    grad = dict(color=GRAD, lw=2.2)
    label = dict(fontsize=12, color=GRAD, va="center")
    # route 1: from the output at t, through o_t
    arrow(ax, (xs["h_t"] - 0.25, yl - 0.375), (xs["h_t"] - 0.25, yo + r - 0.05), rad=0.35, **grad)
    arrow(ax, (xs["h_t"] - 0.25, yo - r + 0.05), (xs["h_t"] - 0.25, yh + r - 0.05), rad=0.35, **grad)
    ax.text(xs["h_t"] - 0.75, (yo + yl) / 2, "$\\nabla_{o_t} L = \\hat{y}_t - \\mathbf{y}_t$", ha="right", **label)
    ax.text(xs["h_t"] - 0.75, (yh + yo) / 2 + 0.1, "route 1, from the output at $t$:", ha="right", **label)
    ax.text(xs["h_t"] - 0.75, (yh + yo) / 2 - 0.45, "$W_{yh}^\\top\\, \\nabla_{o_t} L$", ha="right", **label)
    # route 2: from h_{t+1}, through a_{t+1}
    arrow(ax, (xs["h_next"] - r + 0.05, yh - 0.2), (xs["a_next"] + 0.575, yh - 0.2), rad=-0.45, **grad)
    arrow(ax, (xs["a_next"] - 0.575, yh - 0.2), (xs["h_t"] + r - 0.05, yh - 0.2), rad=-0.45, **grad)
    ax.text((xs["a_next"] + xs["h_next"]) / 2, yh - 1.25, "$\\delta_{t+1}$", ha="center", **label)
    ax.text((xs["h_t"] + xs["a_next"]) / 2, yh - 1.3, "$W_{hh}^\\top\\, \\delta_{t+1}$", ha="center", **label)
    ax.text((xs["h_t"] + xs["a_next"]) / 2, yh - 1.85, "route 2, from $h_{t+1}$", ha="center", **label)
    # everything later reaches h_{t+1} first: its own output, and h_{t+2}
    faint = dict(color=GRAD, lw=1.4, alpha=0.45)
    arrow(ax, (xs["h_next"] + 0.25, yo - r + 0.05), (xs["h_next"] + 0.25, yh + r - 0.05), rad=-0.35, **faint)
    arrow(ax, (xs["h_next"] + 1.6, yh - 0.2), (xs["h_next"] + r - 0.05, yh - 0.2), rad=-0.45, **faint)
    ax.text(xs["h_next"] + 1.05, yh - 1.25, "from $h_{t+2}$", ha="left", fontsize=10.5, color=GRAD, alpha=0.7)
    # the two add up at h_t; then back through the tanh of step t, and on to h_{t-1}
    ax.text(xs["h_t"] + 0.55, yh + 0.95, "$\\nabla_{h_t} L$ = route 1 + route 2", ha="left", **label)
    arrow(ax, (xs["h_t"] - r + 0.05, yh - 0.2), (xs["a_t"] + 0.575, yh - 0.2), rad=-0.45, **grad)
    arrow(ax, (xs["a_t"] - 0.575, yh - 0.2), (xs["h_prev"] + r - 0.05, yh - 0.2), rad=-0.45, **faint)
    ax.text((xs["a_t"] + xs["h_t"]) / 2, yh - 1.25, "$\\delta_t$", ha="center", **label)
    ax.text((xs["h_prev"] + xs["a_t"]) / 2, yh - 1.25, "$W_{hh}^\\top \\delta_t$", ha="center", fontsize=11, color=GRAD)
    ax.text((xs["h_prev"] + xs["a_t"]) / 2, yh - 1.8, "on to step $t-1$", ha="center", fontsize=10.5, color=GRAD)

    title(ax, 6.6, 9.25, "the backward pass at step $t$: two routes into $h_t$", size=13)
    eq = (
        "$\\nabla_{h_t} L = W_{yh}^\\top \\nabla_{o_t} L + W_{hh}^\\top \\delta_{t+1}$"
        "        $\\delta_t = (1 - h_t^2) \\odot \\nabla_{h_t} L$"
    )
    ax.text(6.6, -1.05, eq, ha="center", va="center", fontsize=13, color=INK)
    ax.text(
        6.6,
        -2.0,
        "grey: the forward pass;  red: the gradient, flowing back against it",
        ha="center",
        va="center",
        fontsize=10.5,
        color=MUTED,
    )
    return fig


# -- the LSTM cell (notebook 08) -------------------------------------------------------------


C_EDGE = "#7c3aed"  # the cell state c and its path


def op(ax, cx, cy, symbol, edge=INK, r=0.32):
    """A pointwise operation: a small circle with x or + in it."""
    ax.add_patch(Circle((cx, cy), r, facecolor="white", edgecolor=edge, linewidth=1.6))
    ax.text(cx, cy, symbol, ha="center", va="center", fontsize=14, color=edge)


def fig_lstm_cell():
    fig, ax = new_figure(-0.6, 14.6, -2.1, 7.8)
    yc, yg, ybus, yh = 6.6, 3.4, 1.9, 0.6
    # the cell path along the top: c_{t-1} -> x f_t -> + i_t g_t -> c_t
    ax.text(-0.4, yc, "$c_{t-1}$", ha="left", va="center", fontsize=14, color=C_EDGE)
    xf, xp, xt = 4.0, 7.2, 11.2
    arrow(ax, (0.8, yc), (xf - 0.32, yc), color=C_EDGE, lw=2.6)
    op(ax, xf, yc, "\u00d7", C_EDGE)
    arrow(ax, (xf + 0.32, yc), (xp - 0.32, yc), color=C_EDGE, lw=2.6)
    op(ax, xp, yc, "+", C_EDGE)
    arrow(ax, (xp + 0.32, yc), (13.4, yc), color=C_EDGE, lw=2.6)
    ax.text(13.5, yc, "$c_t$", ha="left", va="center", fontsize=14, color=C_EDGE)
    ax.text(
        5.6,
        yc + 0.75,
        "the cell path: one product by $f_t$ and one addition per step",
        ha="center",
        va="center",
        fontsize=10,
        color=C_EDGE,
    )
    # the four gates, all reading [h_{t-1}, x_t]
    gates = [(xf, "$f_t$", "\u03c3"), (6.3, "$i_t$", "\u03c3"), (8.1, "$g_t$", "tanh"), (10.0, "$q_t$", "\u03c3")]
    for x, name, fn in gates:
        box(ax, x, yg, 1.15, 0.8, O_FILL, O_EDGE, rounding=0.12)
        ax.text(x, yg, fn, ha="center", va="center", fontsize=12, color=INK)
        ax.text(x + 0.66, yg + 0.62, name, ha="left", va="center", fontsize=12, color=O_EDGE)
        arrow(ax, (x, ybus), (x, yg - 0.4), color=MUTED, lw=1.3)
    ax.plot([1.4, 10.0], [ybus, ybus], color=MUTED, lw=1.3)
    # h_{t-1} and x_t join on the bus
    ax.text(-0.4, yh, "$h_{t-1}$", ha="left", va="center", fontsize=14, color=H_EDGE)
    ax.plot([0.8, 1.4, 1.4], [yh, yh, ybus], color=H_EDGE, lw=2.0)
    node(ax, 2.6, -0.35, "$x_t$", X_FILL, X_EDGE, r=0.45, size=13)
    ax.plot([2.6, 2.6], [0.1, ybus], color=X_EDGE, lw=1.6)
    ax.text(4.3, ybus - 0.4, "$a_t = W_x x_t + W_h h_{t-1} + b$", ha="left", va="center", fontsize=10, color=MUTED)
    # f_t scales the old cell; i_t * g_t is added
    arrow(ax, (xf, yg + 0.4), (xf, yc - 0.32))
    xig, yig = 7.2, 4.9
    op(ax, xig, yig, "\u00d7")
    arrow(ax, (6.3, yg + 0.4), (xig - 0.25, yig - 0.2))
    arrow(ax, (8.1, yg + 0.4), (xig + 0.25, yig - 0.2))
    arrow(ax, (xig, yig + 0.32), (xp, yc - 0.32))
    # h_t = q_t * tanh(c_t): q_t, the output gate (PyTorch's o_t; o_t is the scores here)
    box(ax, xt, 5.0, 1.0, 0.6, "white", C_EDGE, lw=1.4, rounding=0.1)
    ax.text(xt, 5.0, "tanh", ha="center", va="center", fontsize=11, color=INK)
    arrow(ax, (xt, yc), (xt, 5.3), color=C_EDGE, lw=1.6)
    xo, yo = xt, yg
    op(ax, xo, yo, "\u00d7")
    arrow(ax, (xt, 4.7), (xo, yo + 0.32))
    arrow(ax, (10.0 + 0.58, yg), (xo - 0.32, yo))
    ax.plot([xo, xo], [yo - 0.32, yh], color=H_EDGE, lw=2.0)
    arrow(ax, (xo, yh), (13.4, yh), color=H_EDGE, lw=2.0)
    ax.text(13.5, yh, "$h_t$", ha="left", va="center", fontsize=14, color=H_EDGE)
    eq = (
        "$c_t = f_t \\odot c_{t-1} + i_t \\odot g_t$        $h_t = q_t \\odot \\tanh(c_t)$"
        "        $\\partial c_t / \\partial c_{t-1} = \\mathrm{diag}(f_t)$"
    )
    ax.text(7.0, -1.6, eq, ha="center", va="center", fontsize=12, color=INK)
    return fig


def fig_gru_cell():
    fig, ax = new_figure(-0.6, 14.6, -2.1, 7.8)
    ytop, yg, ybus = 6.6, 3.4, 1.9
    xz, xr, xn, xm, xp = 4.0, 5.8, 7.8, 10.0, 7.8
    # the direct path along the top: h_{t-1} -> x z_t -> + (1 - z_t) n_t -> h_t
    ax.text(-0.4, ytop, "$h_{t-1}$", ha="left", va="center", fontsize=14, color=H_EDGE)
    arrow(ax, (0.8, ytop), (xz - 0.32, ytop), color=H_EDGE, lw=2.6)
    op(ax, xz, ytop, "\u00d7", H_EDGE)
    arrow(ax, (xz + 0.32, ytop), (xp - 0.32, ytop), color=H_EDGE, lw=2.6)
    op(ax, xp, ytop, "+", H_EDGE)
    arrow(ax, (xp + 0.32, ytop), (13.4, ytop), color=H_EDGE, lw=2.6)
    ax.text(13.5, ytop, "$h_t$", ha="left", va="center", fontsize=14, color=H_EDGE)
    ax.text(
        5.9,
        ytop + 0.75,
        "the direct path: one product by $z_t$ and one addition per step",
        ha="center",
        va="center",
        fontsize=10,
        color=H_EDGE,
    )
    # h_{t-1} also feeds the gates: down to the bus, where x_t joins it
    ax.plot([1.4, 1.4], [ytop, ybus], color=H_EDGE, lw=2.0)
    ax.plot([1.4, xm], [ybus, ybus], color=MUTED, lw=1.3)
    node(ax, 2.6, 0.2, "$x_t$", X_FILL, X_EDGE, r=0.45, size=13)
    ax.plot([2.6, 2.6], [0.65, ybus], color=X_EDGE, lw=1.6)
    ax.text(
        3.3,
        ybus - 0.45,
        "$W_x x_t + W_h h_{t-1} + b$, in blocks r, z, n",
        ha="left",
        va="center",
        fontsize=10,
        color=MUTED,
    )
    # the two gates
    for x, name, lx in ((xz, "$z_t$", xz - 0.66), (xr, "$r_t$", xr + 0.66)):
        box(ax, x, yg, 1.15, 0.8, O_FILL, O_EDGE, rounding=0.12)
        ax.text(x, yg, "\u03c3", ha="center", va="center", fontsize=12, color=INK)
        ax.text(lx, yg + 0.62, name, ha="right" if lx < x else "left", va="center", fontsize=12, color=O_EDGE)
        arrow(ax, (x, ybus), (x, yg - 0.4), color=MUTED, lw=1.3)
    # z_t keeps the old state; 1 - z_t lets the candidate in
    arrow(ax, (xz, yg + 0.4), (xz, ytop - 0.32))
    x1, y1 = 5.9, 5.3
    box(ax, x1, y1, 0.9, 0.55, "white", INK, lw=1.3, rounding=0.1)
    ax.text(x1, y1, "1 \u2212", ha="center", va="center", fontsize=11, color=INK)
    ax.plot([xz, x1 - 0.45], [y1, y1], color=INK, lw=1.6)
    op(ax, xn, y1, "\u00d7")
    arrow(ax, (x1 + 0.45, y1), (xn - 0.32, y1))
    arrow(ax, (xn, y1 + 0.32), (xp, ytop - 0.32))
    # the candidate: r_t scales W_hn h_{t-1}, then tanh
    box(ax, xm, yg, 1.7, 0.7, "white", MUTED, lw=1.3, rounding=0.1)
    ax.text(xm, yg, "$W_{hn} h_{t-1}$", ha="center", va="center", fontsize=11, color=INK)
    ax.text(xm + 0.95, yg + 0.55, "$\\bar h_t$", ha="left", va="center", fontsize=12, color=MUTED)
    arrow(ax, (xm, ybus), (xm, yg - 0.35), color=MUTED, lw=1.3)
    op(ax, xn, yg, "\u00d7")
    arrow(ax, (xr + 0.58, yg), (xn - 0.32, yg))
    arrow(ax, (xm - 0.85, yg), (xn + 0.32, yg))
    box(ax, xn, 4.35, 1.0, 0.55, O_FILL, O_EDGE, rounding=0.1)
    ax.text(xn, 4.35, "tanh", ha="center", va="center", fontsize=11, color=INK)
    ax.text(xn + 0.6, 4.6, "$n_t$", ha="left", va="center", fontsize=12, color=O_EDGE)
    ax.text(xn - 0.6, 4.35, "$W_{xn} x_t + b_n\\, +$", ha="right", va="center", fontsize=10, color=MUTED)
    arrow(ax, (xn, yg + 0.32), (xn, 4.35 - 0.275))
    arrow(ax, (xn, 4.35 + 0.275), (xn, y1 - 0.32))
    eq = (
        "$h_t = z_t \\odot h_{t-1} + (1 - z_t) \\odot n_t$      "
        "$n_t = \\tanh(W_{xn} x_t + r_t \\odot \\bar h_t + b_n)$      direct path: $\\mathrm{diag}(z_t)$"
    )
    ax.text(7.0, -1.6, eq, ha="center", va="center", fontsize=12, color=INK)
    return fig


# -- the gated cells' gradient paths (notebooks 08 and 09) ---------------------------------------------------------


def grad_node(ax, cx, cy, label, fill, edge, w=1.5, h=0.75, size=13):
    """A gradient, backward pass: a rounded box with its symbol (nabla of the state it belongs to)."""
    box(ax, cx, cy, w, h, fill, edge, lw=1.8, rounding=0.15)
    ax.text(cx, cy, label, ha="center", va="center", fontsize=size, color=INK)


def gated_path(ax, xs, y, gate, color):
    """A gated cell's straight path backwards at height y through the steps at xs (and one step
    beyond either end): between neighbours, a product by the gate of the later step."""
    ends = [xs[0] - 2.9] + xs + [xs[-1] + 2.9]
    for a, b, s in zip(ends[1:], ends[:-1], ["t-1", "t", "t+1", "t+2"]):
        start = a - 0.75 if a in xs else a
        stop = b + 0.75 if b in xs else b
        mid = (start + stop) / 2
        arrow(ax, (start, y), (mid + 0.32, y), color=color, lw=2.8, style="-")
        op(ax, mid, y, "\u00d7", color)
        arrow(ax, (mid - 0.32, y), (stop, y), color=color, lw=2.8)
        ax.text(mid, y + 0.6, f"${gate}_{{{s}}}$", ha="center", va="center", fontsize=12, color=color)


def fig_lstm_gradient_paths():
    """Three steps of the LSTM's backward pass: the cell path (one product by f per step) along the
    top, the path through h (a matrix and the gates' slopes per step) below it."""
    fig, ax = new_figure(-0.9, 16.3, -2.3, 8.0)
    yc, yd, yh, yl = 6.0, 3.55, 1.1, -0.6
    xs, steps = [3.0, 8.0, 13.0], ["t-1", "t", "t+1"]
    ax.text(7.7, 7.5, "the backward pass: gradients flow from right to left", ha="center", fontsize=12, color=MUTED)
    for x, s in zip(xs, steps):
        grad_node(ax, x, yc, f"$\\nabla_{{c_{{{s}}}}} L$", "#ede9fe", C_EDGE)
        grad_node(ax, x, yh, f"$\\nabla_{{h_{{{s}}}}} L$", H_FILL, H_EDGE)
        # from h_k into c_k, through h_k = q_k tanh(c_k)
        arrow(ax, (x, yh + 0.375), (x, yc - 0.375), color=H_EDGE, lw=1.6)
        label = f"$\\times\\, q_{{{s}}}(1 - \\tanh^2 c_{{{s}}})$"
        ax.text(x + 0.12, (yc + yh) / 2 + 0.75, label, ha="left", va="center", fontsize=10, color=H_EDGE)
        # the loss of step k reaches h_k through the output layer
        arrow(ax, (x, yl), (x, yh - 0.375), color=MUTED, lw=1.3)
        loss = f"from $L_{{{s}}}$: $W_{{yh}}^\\top(\\hat y - \\mathbf{{y}})$"
        ax.text(x, yl - 0.35, loss, ha="center", fontsize=10, color=MUTED)
    # the cell path: c_k -> c_{k-1}, one product by f_k
    gated_path(ax, xs, yc, "f", C_EDGE)
    # the path through h: c_k and h_k -> delta_k (the four gates' slopes) -> W_h^T -> h_{k-1}
    for x, s in zip(xs, steps):
        xd = x - 2.5
        box(ax, xd, yd, 1.3, 0.7, O_FILL, O_EDGE, rounding=0.12)
        ax.text(xd, yd, f"$\\delta_{{{s}}}$", ha="center", va="center", fontsize=12, color=INK)
        arrow(ax, (x - 0.45, yc - 0.38), (xd + 0.45, yd + 0.35), color=O_EDGE, lw=1.3)
        arrow(ax, (x - 0.45, yh + 0.38), (xd + 0.45, yd - 0.35), color=O_EDGE, lw=1.3)
        if x > xs[0]:
            end = (x - 5.0 + 0.55, yh + 0.38)
            arrow(ax, (xd - 0.35, yd - 0.35), end, color=H_EDGE, lw=2.0)
            ax.text((xd + end[0]) / 2 - 0.3, (yd + yh) / 2 - 0.1, "$W_h^\\top$", ha="right", fontsize=11, color=H_EDGE)
        else:
            arrow(ax, (xd - 0.35, yd - 0.35), (-0.6, yh + 0.4), color=H_EDGE, lw=2.0)
            ax.text(-0.6, yh - 0.05, "to $h_{t-2}$", ha="left", va="center", fontsize=10, color=H_EDGE)
    # what step t+2 sends back to h_{t+1}
    arrow(ax, (16.1, yd - 0.1), (xs[-1] + 0.55, yh + 0.38), color=H_EDGE, lw=2.0)
    ax.text(xs[-1] + 0.85, yh - 0.45, "$W_h^\\top \\delta_{t+2}$", ha="left", va="center", fontsize=10, color=H_EDGE)
    eq = (
        "cell path: $\\partial c_t / \\partial c_{t-1} = \\mathrm{diag}(f_t)$, no matrix, no slope        "
        "path through $h$: $W_h^\\top$ and the gates\u2019 slopes in $\\delta$, at every step"
    )
    ax.text(7.7, -1.85, eq, ha="center", va="center", fontsize=11, color=INK)
    return fig


def fig_gru_gradient_paths():
    """Three steps of the GRU's backward pass: the direct path (one product by z per step) along the
    top, the rest (through the candidate and the gates, a matrix per step) below it."""
    fig, ax = new_figure(-0.9, 16.3, -2.3, 8.0)
    yh, yd, yl = 4.4, 1.6, 7.0
    xs, steps = [3.0, 8.0, 13.0], ["t-1", "t", "t+1"]
    ax.text(7.7, -0.55, "the backward pass: gradients flow from right to left", ha="center", fontsize=12, color=MUTED)
    for x, s in zip(xs, steps):
        grad_node(ax, x, yh, f"$\\nabla_{{h_{{{s}}}}} L$", H_FILL, H_EDGE)
        arrow(ax, (x, yl - 0.3), (x, yh + 0.375), color=MUTED, lw=1.3)
        loss = f"from $L_{{{s}}}$: $W_{{yh}}^\\top(\\hat y - \\mathbf{{y}})$"
        ax.text(x, yl, loss, ha="center", fontsize=10, color=MUTED)
    # the direct path: h_k -> h_{k-1}, one product by z_k
    gated_path(ax, xs, yh, "z", H_EDGE)
    # the rest: h_k -> delta^h_k (through n, z and r, with their slopes) -> W_h^T -> h_{k-1}
    for x, s in zip(xs, steps):
        xd = x - 2.5
        box(ax, xd, yd, 1.3, 0.7, O_FILL, O_EDGE, rounding=0.12)
        ax.text(xd, yd, f"$\\delta^h_{{{s}}}$", ha="center", va="center", fontsize=12, color=INK)
        arrow(ax, (x - 0.3, yh - 0.38), (xd + 0.45, yd + 0.35), color=O_EDGE, lw=1.3)
        if x > xs[0]:
            end = (x - 5.0 + 0.3, yh - 0.38)
            arrow(ax, (xd - 0.45, yd + 0.35), end, color=O_EDGE, lw=2.0)
            ax.text((xd + end[0]) / 2 - 0.3, (yd + yh) / 2 - 0.2, "$W_h^\\top$", ha="right", fontsize=11, color=O_EDGE)
        else:
            arrow(ax, (xd - 0.45, yd + 0.35), (-0.6, yh - 0.5), color=O_EDGE, lw=2.0)
            ax.text(-0.15, yh - 1.05, "to $h_{t-2}$", ha="left", va="center", fontsize=10, color=O_EDGE)
    # what step t+2 sends back to h_{t+1} through its candidate and gates
    arrow(ax, (16.1, yd + 0.1), (xs[-1] + 0.3, yh - 0.38), color=O_EDGE, lw=2.0)
    ax.text(16.1, yd - 0.3, "$W_h^\\top \\delta^h_{t+2}$", ha="right", va="center", fontsize=10, color=O_EDGE)
    eq = (
        "direct path: $\\mathrm{diag}(z_t)$, a term of $\\partial h_t / \\partial h_{t-1}$ "
        "with no matrix, no slope      "
        "the rest: $W_h^\\top$ and the slopes of $n$, $z$, $r$ in $\\delta^h$"
    )
    ax.text(7.7, -1.6, eq, ha="center", va="center", fontsize=11, color=INK)
    return fig


FIGURES = {
    "rnn-4-black-boxes": fig_black_boxes,
    "rnn-4-black-boxes-connected": fig_black_boxes_connected,
    "rnn-multi-sequences": fig_multi_sequences,
    "rnn-unrolled": fig_unrolled,
    "char-level-language-model": fig_char_language_model,
    "lstm-cell": fig_lstm_cell,
    "gru-cell": fig_gru_cell,
    "bptt-two-routes": fig_bptt_two_routes,
    "lstm-gradient-paths": fig_lstm_gradient_paths,
    "gru-gradient-paths": fig_gru_gradient_paths,
}


def draw_all():
    """Every figure drawn once, as ({"NAME.svg": SVG bytes}, {"NAME.png": PNG bytes})."""
    svgs, pngs = {}, {}
    with plt.rc_context(STYLE):
        for name, draw in FIGURES.items():
            fig = draw()
            for fmt, store, options in (
                ("svg", svgs, {"metadata": SVG_METADATA}),
                ("png", pngs, {"dpi": PNG_DPI, "metadata": {"Software": None}}),
            ):
                buffer = io.BytesIO()
                fig.savefig(buffer, format=fmt, **options)
                store[f"{name}.{fmt}"] = buffer.getvalue()
            plt.close(fig)
    return svgs, pngs


def write_files(images, out_dir):
    """Write each image {"NAME.ext": bytes} as out_dir/NAME.ext; returns the paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for filename, data in images.items():
        path = out_dir / filename
        path.write_bytes(data)
        written.append(path)
    return written


def figure_cell_source(name, alt, png):
    """The source of the figure cell showing ``png`` (bytes), the figure ``name``."""
    data = base64.b64encode(png).decode("ascii")
    return f"<!-- figure {name}, drawn by tools/make_figures.py -->\n![{alt}](data:image/png;base64,{data})"


def _markdown_cell(cell_id, text):
    cell = nbformat.v4.new_markdown_cell(text)
    if cell_id is None:
        del cell["id"]  # as before: the cell's id is given where the figure has one
    else:
        cell.id = cell_id
    return cell


def embedded_notebook(nb, pngs, name="notebook"):
    """`nb` (a dict, changed in place) with its figures in figure cells, from pngs {"NAME.png": bytes}:
    each figure cell brought up to date, each ``![alt](attachment:NAME.png)`` line made a figure cell
    of its own (its cell split there), no cell attachments left; returns the names of the figures it
    shows, in order. Raises ValueError naming an unknown figure, or an attachment reference inside a
    line of prose."""
    held, cells = [], []
    for index, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "markdown":
            cells.append(cell)
            continue
        cell.pop("attachments", None)
        text = source(cell)
        refs = ATTACHMENT_RE.findall(text)
        figure = FIGURE_CELL_RE.match(text)
        wanted = refs + ([figure["name"]] if figure else [])
        unknown = [w for w in wanted if w not in pngs]
        if unknown:
            raise ValueError(
                f"{name}, cell {index}: figure {unknown[0]} names no figure of tools/make_figures.py "
                f"(it draws {', '.join(sorted(pngs))}); fix the name or add the figure to FIGURES"
            )
        if figure:
            cell["source"] = figure_cell_source(figure["name"], figure["alt"], pngs[figure["name"]])
            cells.append(cell)
            held.append(figure["name"])
            continue
        lines = FIGURE_LINE_RE.findall(text)
        if len(lines) != len(refs):
            raise ValueError(
                f"{name}, cell {index}: write each attachment:NAME.png reference as an image on a line of "
                "its own (![alt text](attachment:NAME.png)), so that it can become a figure cell"
            )
        if not refs:
            cells.append(cell)
            continue
        base = cell.get("id")
        pieces = FIGURE_LINE_RE.split(text)  # prose, alt, name, prose, alt, name, ..., prose
        before = pieces[0].strip("\n")
        if before:
            cells.append({**cell, "source": before})
        for k in range(1, len(pieces), 3):
            alt, fig, after = pieces[k], pieces[k + 1], pieces[k + 2].strip("\n")
            suffix = "" if len(refs) == 1 else f"-{(k + 2) // 3}"
            fig_id = None if base is None else (f"{base}-figure{suffix}" if before or k > 1 else base)
            cells.append(_markdown_cell(fig_id, figure_cell_source(fig, alt, pngs[fig])))
            held.append(fig)
            if after:
                cells.append(_markdown_cell(None if base is None else f"{base}-after{suffix}", after))
    nb["cells"] = cells
    return held


def embed_in_notebooks(pngs, notebooks_dir):
    """Write the figures into every notebook's attachments; returns the paths of the notebooks rewritten."""
    written = []
    for path in notebook_paths(notebooks_dir):
        text = path.read_text(encoding="utf-8")
        nb = reads(text)
        embedded_notebook(nb, pngs, path.name)
        new = dumps(nb)
        if new != text:
            path.write_text(new, encoding="utf-8")
            written.append(path)
    return written


def make_all(out_dir, png_dir=None, notebooks_dir=None):
    """Write every figure as out_dir/NAME.svg (and png_dir/NAME.png if given), and into the
    attachments of the notebooks in notebooks_dir if given; returns the SVG paths."""
    svgs, pngs = draw_all()
    if notebooks_dir is not None:
        embed_in_notebooks(pngs, notebooks_dir)
    if png_dir is not None:
        write_files(pngs, png_dir)
    return write_files(svgs, out_dir)


def main(argv=None):
    parser = argparse.ArgumentParser(description="Draw the series' figures: SVG into img/, PNG into the notebooks.")
    parser.add_argument("--out", default=str(ROOT / "img"), help="directory for the SVG files (default: img/)")
    parser.add_argument(
        "--notebooks",
        default=str(ROOT / "notebooks"),
        help="directory of the NN-*.ipynb notebooks whose attachments to write (default: notebooks/)",
    )
    parser.add_argument("--png", default=None, help="also write the notebooks' PNGs as files into this directory")
    args = parser.parse_args(argv)
    svgs, pngs = draw_all()
    try:
        rewritten = embed_in_notebooks(pngs, args.notebooks)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for path in write_files(svgs, args.out):
        print(path.name)
    if args.png is not None:
        write_files(pngs, args.png)
    for path in rewritten:
        print(f"rewrote the figures of {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
