"""The answers to the exercises: one text each, as the folded Answer in its notebook and ``practice.solution``.

Each ``Solution`` is the code of a plain answer (notebook-style: one sequence, column vectors, a
loop over time where the maths has one; not rnn_core's vectorised engine) and the notes that follow
it in the notebook's folded *Answer*: the usual slips, each of which ``practice.check`` names.
``tools/answers.py`` writes every exercise's answer cell from this module, and
``practice.solution(name)`` prints the same text (``plain_text``): one source, so the two cannot
drift; tests/test_answers.py holds them together.

The code uses ``np`` (numpy, imported as in every notebook) and, where it says so in ``uses``, names
the notebook has defined by then (``step_forward``, ``softmax``, ``PARAM_NAMES``, ``one_hot`` from
rnn_core in notebook 04; in my_rnn.py, the reader's own). In the notes, an HTML comment
``<!-- practice:mistake NAME/ID -->`` after a slip points at the mistake model of
``rnn_core.course.exercises`` that recognises it: the notes are Markdown in a notebook, where the
comment is invisible, and tests/test_practice.py asserts that the check names every mistake so
marked, in any notebook.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Solution", "SOLUTIONS", "plain_text", "MARKER"]

# may run over two lines, which in a notebook's blockquoted answer start with "> "
MARKER = re.compile(r"<!--[\s>]+practice:mistake[\s>]+([\w.]+)/([\w-]+)[\s>]+-->")


@dataclass(frozen=True)
class Solution:
    """An exercise's answer: its code, and the notes that follow it."""

    code: str  # the function (and any helper it needs), as a cell would hold it
    notes: str  # Markdown: the usual slips, with a marker after each that check names
    uses: tuple = ()  # names the code takes from the notebook besides np


# The LaTeX of the notes, as plain text: the few commands they use (a test holds the list complete).
_LATEX = (
    (r"\hat y", "ŷ"),
    (r"\hat m", "m̂"),
    (r"\hat v", "v̂"),
    (r"\bar h", "h̄"),
    (r"\mathbf{y}", "𝐲"),
    (r"\mathrm{softmax}", "softmax"),
    (r"\tanh", "tanh"),
    (r"\log", "log"),
    (r"\odot", "⊙"),
    (r"^\top", "ᵀ"),
    (r"^{(n)}", "⁽ⁿ⁾"),
    (r"^2", "²"),
    (r"^0", "⁰"),
    (r"\sum", "Σ"),
    (r"\delta", "δ"),
    (r"\lVert", "‖"),
    (r"\rVert", "‖"),
    (r"\beta", "β"),
    (r"\partial", "∂"),
    (r"\sigma", "σ"),
    (r"\ne", "≠"),
    (" - ", " − "),
    ("$-", "$−"),
)


def _plain_maths(maths):
    """One $...$ of the notes as plain text: "\\nabla_{W_{hh}} L" -> "∇W_hh L"."""
    maths = " ".join(maths.split())  # one line
    for latex, text in _LATEX:
        maths = maths.replace(latex, text)
    maths = re.sub(r"_\{([A-Za-z]+)\}", r"_\1", maths)  # W_{hh} -> W_hh
    maths = re.sub(r"\\nabla_\{(.*?)\}(?= )", r"∇\1", maths)  # ∇ with what it is taken with respect to
    maths = re.sub(r"\\nabla_?", "∇", maths)
    return re.sub(r"_\{([^{}]*)\}", lambda m: "_{" + m.group(1).replace("-", "−") + "}", maths)


def plain_text(solution):
    """The answer as ``practice.solution`` prints it: the code, then the notes, their markers left out and
    their maths as plain text."""
    notes = re.sub(r"[ \t]*" + MARKER.pattern, "", solution.notes)
    notes = re.sub(r"\$([^$]*)\$", lambda m: _plain_maths("$" + m.group(1))[1:], notes)
    return solution.code.strip("\n") + "\n\n" + notes.strip()


SOLUTIONS = {
    "one_hot": Solution(
        """
def one_hot(y, num_classes):
    y = np.asarray(y)  # indices (T,), or one index: an int becomes an array of shape ()
    rows = np.zeros((y.size, num_classes))  # one row per index, num_classes columns
    rows[np.arange(y.size), y.ravel()] = 1.0  # in row t, a 1 in column y[t]
    return rows.reshape(y.shape + (num_classes,))  # (T, V); for one index, (V,)
""",
        r"""
The usual slips, each named by the check: an array the wrong way round, $(V, T)$, with one column per index<!--
practice:mistake one_hot/one-column-per-index -->; a single vector with a 1 at every index at once<!--
practice:mistake one_hot/one-vector-for-all-the-indices -->; `rows[:, y] = 1`, which sets every column that `y`
names in every row<!-- practice:mistake one_hot/every-row-gets-every-index -->; and the width read off the data,
`max(y) + 1`, where `num_classes` belongs<!-- practice:mistake one_hot/width-from-the-data -->; and, for one index,
a row of shape $(1, V)$ where the vector itself, $(V,)$, belongs<!-- practice:mistake one_hot/a-row-for-one-index
-->. The series calls `one_hot(targets[t], V)` with one index from notebook 02 on, so the check tries an int and a
numpy integer as well as arrays. `practice.hint("one_hot")` gives a nudge in words, and
`practice.solution("one_hot")` prints this answer. The answer puts a 1 into each row of an array of zeros;
`np.eye(num_classes)[y]` does the same in one line, for an array or an int, since row $i$ of the identity matrix
is $e_i$.
""",
    ),
    "softmax": Solution(
        """
def softmax(o):
    z = o - np.max(o)  # every exponent is now <= 0, the largest exactly 0
    e = np.exp(z)
    return e / e.sum()  # the sum is >= 1: no overflow, no 0/0
""",
        r"""
The usual slips, each named by the check: no shift (then `exp` overflows near 1000 and the result is `nan`)<!--
practice:mistake softmax/no-shift -->; exponentials not divided by their sum<!-- practice:mistake
softmax/exp-without-the-sum -->; a minus sign in front, as one of the write-ups has it (errata row 11)<!--
practice:mistake softmax/minus-softmax -->; and the log-probabilities $\log \hat y$<!-- practice:mistake
softmax/log-softmax -->. A shift by something other than the largest score, such as the mean<!-- practice:mistake
softmax/shift-by-the-mean --> or the smallest score, still overflows when scores near 1000 and near $-1000$
come together, and the check tries that too.
`practice.hint("softmax")` gives a nudge in words, and `practice.solution("softmax")` prints this answer.
""",
    ),
    "softmax_jacobian": Solution(
        """
def softmax_jacobian(y_hat):
    # J[i, k] = y_hat_i ([i == k] - y_hat_k)
    return np.diag(y_hat) - np.outer(y_hat, y_hat)
""",
        r"""
The usual slips, each named by the check: $-\hat y \hat y^\top$ alone, the case $i \ne k$ used on the diagonal too
(the README of the companion code of "Introduction to Recurrent Neural Networks (RNNs)", one of the write-ups this
series grew from, takes $\partial \sigma / \partial o$ as $-\sigma\sigma$ in exactly this way: row 3 of the series'
[errata table](13-appendix-errata.ipynb#The-errata-table))<!-- practice:mistake
softmax_jacobian/minus-outer-product-alone -->; only the diagonal<!-- practice:mistake
softmax_jacobian/only-the-diagonal -->, or the diagonal as a vector<!-- practice:mistake
softmax_jacobian/the-diagonal-as-a-vector -->; the sign of the outer product flipped<!-- practice:mistake
softmax_jacobian/plus-outer-product -->; `y_hat @ y_hat.T`, which for a 1-D array is the number $\sum_k \hat y_k^2$,
not the matrix $\hat y \hat y^\top$<!-- practice:mistake softmax_jacobian/inner-product-for-the-outer -->; and
softmax applied once more to an argument that is already the probabilities<!-- practice:mistake
softmax_jacobian/softmax-taken-again -->. `practice.hint("softmax_jacobian")` gives a nudge, and
`practice.solution("softmax_jacobian")` prints this answer.
""",
    ),
    "cross_entropy_grad": Solution(
        """
def cross_entropy_grad(o, y):
    e = np.exp(o - np.max(o))  # shifted by the largest score: no overflow (notebook 01)
    do = e / e.sum()  # y_hat
    do[y] -= 1.0  # minus the one-hot target
    return do
""",
        r"""
The usual slips, each named by the check: $\mathrm{softmax}(o)$ alone, the target forgotten (errata row 3)<!--
practice:mistake cross_entropy_grad/softmax-as-the-gradient -->; $\mathbf{y} - \hat y$, the gradient of the loss
written without its minus (row 10)<!-- practice:mistake cross_entropy_grad/target-minus-probabilities -->; $V \hat
y - 1$, from the loss with the target dropped (row 13)<!-- practice:mistake cross_entropy_grad/target-dropped -->;
$-\mathbf{y} / \hat y$, the gradient with respect to the probabilities instead of the scores<!-- practice:mistake
cross_entropy_grad/gradient-with-respect-to-the-probabilities -->; the index `y` itself subtracted instead of its
one-hot vector<!-- practice:mistake cross_entropy_grad/index-subtracted -->; and no shift, which gives `nan` on
large scores<!-- practice:mistake cross_entropy_grad/no-shift-in-the-gradient -->. Section 7 meets the first three
in published derivations. `practice.hint("cross_entropy_grad")` gives a nudge, and
`practice.solution("cross_entropy_grad")` prints this answer.
""",
    ),
    "step_forward": Solution(
        """
def step_forward(params, x_t, h_prev):
    W_xh, W_hh, b_h = params["W_xh"], params["W_hh"], params["b_h"]
    return np.tanh(W_hh @ h_prev + W_xh[:, x_t] + b_h)  # W_xh x_t is column x_t of W_xh
""",
        r"""
The usual slips, each of which the check recognises and names: row `W_xh[x_t]` where the column `W_xh[:, x_t]`
belongs (with $H \ne V$ the shapes do not even fit)<!-- practice:mistake step_forward/row-of-W-xh -->; `W_hh.T @
h_prev` for `W_hh @ h_prev`<!-- practice:mistake step_forward/W-hh-transposed -->; the bias left out (invisible
while $b_h = 0$, which is why the check uses nonzero biases)<!-- practice:mistake step_forward/no-bias -->; and no
$\tanh$<!-- practice:mistake step_forward/no-tanh -->. `practice.solution("step_forward")` prints this answer. The
next section runs this step number by number, and section 5 shows that `rnn_core.step_forward` is the same function.
""",
    ),
    "step_backward": Solution(
        """
def step_backward(params, dh_t, h_t, h_prev, x_t):
    delta = (1 - h_t**2) * dh_t  # δ_t: back through the tanh of this step (R3)
    dW_xh = np.zeros_like(params["W_xh"])
    dW_xh[:, x_t] = delta  # δ_t x_tᵀ: x_t is one-hot, so only column x_t (R2)
    # W_hh's is δ_t h_{t-1}ᵀ (R2)
    grads = {"W_xh": dW_xh, "W_hh": np.outer(delta, h_prev), "b_h": delta}
    return params["W_hh"].T @ delta, grads  # what reaches h_{t-1} (R1)
""",
        r"""
The slips the check knows, several of them from published write-ups: the slope $1 - h^2$ of $h_{t-1}$ instead of
$h_t$ (errata row 28) <!-- practice:mistake step_backward/tanh-slope-at-the-wrong-step -->, or applied after going
back through $W_{hh}^\top$ (rows 16 and 20) <!-- practice:mistake step_backward/tanh-slope-after-W-hh -->; $W_{hh}$
without its transpose (row 27) <!-- practice:mistake step_backward/W-hh-not-transposed -->; $x_t$ where $h_{t-1}$
belongs in $\nabla_{W_{hh}} L$ (row 23) <!-- practice:mistake step_backward/x-t-for-h-prev -->, or $h_t$ where
$h_{t-1}$ belongs <!-- practice:mistake step_backward/h-t-for-h-prev -->; the slope alone, without `dh_t`, for
$W_{xh}$ and $b_h$ (row 22) <!-- practice:mistake step_backward/no-upstream-gradient -->; and the sigmoid's slope
$h(1 - h)$ for $\tanh$'s (row 21) <!-- practice:mistake step_backward/sigmoid-slope -->.
`practice.solution("step_backward")` prints this answer. Section 3 runs this step number by number.
""",
    ),
    "loss_and_grads": Solution(
        """
def loss_and_grads(params, inputs, targets, h0):
    # loss, gradients and last state of one sequence, by backpropagation through time
    # params: W_xh (H, V), W_hh (H, H), W_yh (V, H), b_h (H,), b_o (V,)
    # inputs, targets: indices, (T,); h0: h_0, (H,)
    # returns (loss, grads, h_last), and ∇_{h_0} L as a fourth value if you like
    W_xh, W_hh, W_yh, b_h, b_o = (params[name] for name in PARAM_NAMES)
    V, T = W_yh.shape[0], len(inputs)
    hs, y_hat = [h0], []  # hs[t] is h_t (h_0 first); y_hat[t - 1] is ŷ_t
    for t in range(1, T + 1):  # notebook 03's forward pass, one step at a time
        hs.append(step_forward(params, inputs[t - 1], hs[t - 1]))
        y_hat.append(softmax(W_yh @ hs[t] + b_o))  # ŷ_t = softmax(W_yh h_t + b_o)
    loss = -sum(np.log(y_hat[t - 1][targets[t - 1]]) for t in range(1, T + 1))
    grads = {name: np.zeros_like(params[name]) for name in PARAM_NAMES}
    delta_next = np.zeros_like(h0)  # δ_{T+1} = 0: nothing comes after the last step
    for t in range(T, 0, -1):  # from t = T down to 1
        do = y_hat[t - 1] - one_hot(targets[t - 1], V)  # ∇_{o_t} L = ŷ_t - 𝐲_t
        grads["W_yh"] += np.outer(do, hs[t])  # ∇_{o_t} L h_tᵀ
        grads["b_o"] += do
        dh = W_yh.T @ do + W_hh.T @ delta_next  # the two routes: from o_t and h_{t+1}
        delta = (1 - hs[t] ** 2) * dh  # δ_t: the slope of step t's tanh
        grads["W_hh"] += np.outer(delta, hs[t - 1])  # δ_t h_{t-1}ᵀ: the state before t
        grads["W_xh"][:, inputs[t - 1]] += delta
        grads["b_h"] += delta
        delta_next = delta
    return loss, grads, hs[T], W_hh.T @ delta_next  # optional: ∇_{h_0} L = W_hhᵀ δ_1
""",
        r"""
This is the stub with every `____` filled in. Its forward loop calls `step_forward` and `softmax`: in this
notebook `rnn_core`'s, and in your `my_rnn.py` your own, so that a network trained with this `loss_and_grads`
(notebooks 06 and 10) runs your forward pass too. The places where a first attempt usually goes wrong: `hs[t]` against
`hs[t - 1]` (with $h_0$ stored at index 0, $h_t$ is `hs[t]`), as in the slope of $h_{t-1}$ for $h_t$'s (errata row
28) <!-- practice:mistake loss_and_grads/tanh-slope-at-the-wrong-step -->, $h_t$, not $h_{t-1}$, in the $W_{hh}$
term <!-- practice:mistake loss_and_grads/h-t-for-h-prev -->, or $h_{t-1}$ in the $W_{yh}$ term <!--
practice:mistake loss_and_grads/h-prev-for-h-in-W-yh -->; the transposes, of $W_{hh}$ (row 27) <!-- practice:mistake
loss_and_grads/W-hh-not-transposed --> and of $W_{yh}$ <!-- practice:mistake loss_and_grads/W-yh-not-transposed -->;
a dropped route into $h_t$, the one from $h_{t+1}$ (row 5) <!-- practice:mistake
loss_and_grads/no-contribution-from-h-next --> or the one from $o_t$ <!-- practice:mistake
loss_and_grads/no-contribution-from-o -->; and `=` where `+=` belongs, which leaves a gradient from one step only,
not the sum over steps (row 24, for $b_o$) <!-- practice:mistake loss_and_grads/b-o-of-step-1-only --> <!--
practice:mistake loss_and_grads/W-hh-of-step-1-only --> <!-- practice:mistake loss_and_grads/W-xh-of-step-1-only
--> <!-- practice:mistake loss_and_grads/W-yh-of-step-1-only --> <!-- practice:mistake
loss_and_grads/b-h-of-step-1-only -->. The check recognises each of these. `practice.solution("loss_and_grads")`
prints this answer.
""",
        uses=("step_forward", "softmax", "PARAM_NAMES", "one_hot"),
    ),
    "global_norm": Solution(
        """
def global_norm(grads):
    return float(np.sqrt(sum(np.sum(g * g) for g in grads.values())))
""",
        r"""
The usual slips, each named by the check: adding the arrays' own norms, $\sum_W \lVert \nabla_W L \rVert$, which is
larger (the square root comes once, at the end, over everything) <!-- practice:mistake
global_norm/sum-of-the-arrays-norms -->; the sum of squares without its square root, which is the squared norm <!--
practice:mistake global_norm/sum-of-squares -->; and the norm of one array only, from a total overwritten in the
loop <!-- practice:mistake global_norm/last-array-only -->. `practice.hint("global_norm")` gives a nudge, and
`practice.solution("global_norm")` prints this answer.
""",
    ),
    "clip_global_norm": Solution(
        """
def clip_global_norm(grads, max_norm):
    # yours, from the exercise above: one norm for all the arrays
    norm = global_norm(grads)
    scale = max_norm / norm if norm > max_norm else 1.0
    # new arrays; the norm before clipping
    return {name: g * scale for name, g in grads.items()}, norm
""",
        r"""
The usual mistakes, each named by the check: clipping each array by its own norm (every array ends up no longer than
`max_norm`, but the arrays are scaled by different factors, so the gradient turns) <!-- practice:mistake
clip_global_norm/each-array-by-its-own-norm -->; clipping each entry, as min-char-rnn does <!-- practice:mistake
clip_global_norm/elementwise-clipping -->; returning the norm after clipping <!-- practice:mistake
clip_global_norm/norm-after-clipping -->; scaling gradients that are already short enough <!-- practice:mistake
clip_global_norm/rescaled-when-short -->; and `g *= scale`, which changes the caller's arrays (errata row 7).
`practice.hint("clip_global_norm")` gives a nudge, and `practice.solution("clip_global_norm")` prints this answer.
""",
        uses=("global_norm",),
    ),
    "adam_update": Solution(
        """
def adam_update(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    k = state["t"] + 1  # this is update number k
    m = {name: beta1 * state["m"][name] + (1 - beta1) * grads[name] for name in params}
    v = {
        name: beta2 * state["v"][name] + (1 - beta2) * grads[name] ** 2
        for name in params
    }
    new = {}
    for name in params:
        m_hat = m[name] / (1 - beta1**k)  # bias correction: m and v started at zero
        v_hat = v[name] / (1 - beta2**k)
        new[name] = params[name] - lr * m_hat / (np.sqrt(v_hat) + eps)
    return new, {"t": k, "m": m, "v": v}
""",
        r"""
The usual slips, each named by the check: correcting with the old count $k - 1$ (at the first update that divides by
$1 - \beta^0 = 0$) <!-- practice:mistake adam_update/bias-correction-with-the-old-t -->, or not at all <!--
practice:mistake adam_update/no-bias-correction -->; storing $\hat m$ and $\hat v$ in the state instead of $m$ and
$v$ (the next update then corrects them a second time) <!-- practice:mistake adam_update/corrected-averages-kept
-->; $g$ where $v$ needs $g^2$ <!-- practice:mistake adam_update/g-for-g-squared -->; and changing the arrays you
were given (`params[name] -= ...`), which changes the caller's parameters too (errata row 7).
`practice.hint("adam_update")` gives a nudge in words, and `practice.solution("adam_update")` prints this answer.
""",
    ),
    "lstm.step_forward": Solution(
        """
def sigmoid(a):
    return 1 / (1 + np.exp(-a))


def lstm_step_forward(params, x_t, h_prev, c_prev):
    H = h_prev.shape[0]
    # (4H,): W_x x_t is column x_t
    a = params["W_x"][:, x_t] + params["W_h"] @ h_prev + params["b"]
    i, f = sigmoid(a[0:H]), sigmoid(a[H : 2 * H])
    g, q = np.tanh(a[2 * H : 3 * H]), sigmoid(a[3 * H : 4 * H])  # q: the output gate
    c = f * c_prev + i * g  # keep some of the old cell, write some of the candidate
    h = q * np.tanh(c)  # show some of the cell
    cache = {"x": x_t, "h_prev": h_prev, "c_prev": c_prev}
    cache |= {"i": i, "f": f, "g": g, "q": q, "c": c}
    return h, c, cache
""",
        r"""
The usual mistakes, each named by the check: reading the gates from the wrong rows (the order is i, f, g, q) <!--
practice:mistake lstm.step_forward/blocks-stacked-figq --> <!-- practice:mistake
lstm.step_forward/blocks-stacked-ifqg -->; a sigmoid for the candidate $g$ (it must be able to write negative
values) <!-- practice:mistake lstm.step_forward/sigmoid-candidate -->; and $h_t = q_t \odot c_t$ without the
tanh <!-- practice:mistake lstm.step_forward/no-tanh-of-the-cell -->. `practice.hint("lstm.step_forward")` gives a
nudge in words; `practice.solution("lstm.step_forward")` prints this answer.
""",
    ),
    "lstm.step_backward": Solution(
        """
def lstm_step_backward(params, dh_t, dc_t, cache):
    i, f, g, q, c = (cache[name] for name in ("i", "f", "g", "q", "c"))
    tanh_c = np.tanh(c)
    dq = dh_t * tanh_c  # 3. to the output gate ...
    # ... and into the cell, besides the cell path
    dc = dc_t + dh_t * q * (1 - tanh_c**2)
    # 4. through c_t = f * c_{t-1} + i * g
    di, df, dg = dc * g, dc * cache["c_prev"], dc * i
    # 5. back through each gate's squashing function
    delta = np.concatenate(
        [di * i * (1 - i), df * f * (1 - f), dg * (1 - g**2), dq * q * (1 - q)]
    )
    dW_x = np.zeros_like(params["W_x"])
    dW_x[:, cache["x"]] = delta  # 6. delta_t x_t^T: only column x_t
    grads = {"W_x": dW_x, "W_h": np.outer(delta, cache["h_prev"]), "b": delta}
    # to h_{t-1}, to c_{t-1}, this step's gradients
    return params["W_h"].T @ delta, dc * f, grads
""",
        r"""
The usual mistakes, each named by the check: forgetting that the cell is reached through $h_t$ too (step 3's first
term) <!-- practice:mistake lstm.step_backward/no-path-into-the-cell -->, or sending back to $c_{t-1}$ only what
came along the cell path <!-- practice:mistake lstm.step_backward/previous-cell-from-the-cell-path-only -->; the
sigmoid's slope for $g$ <!-- practice:mistake lstm.step_backward/sigmoid-slope-for-the-candidate -->; and the four
blocks of $\delta_t$ in another order than i, f, g, q <!-- practice:mistake lstm.step_backward/blocks-stacked-figq
-->. `practice.hint("lstm.step_backward")` gives a nudge; `practice.solution("lstm.step_backward")` prints this
answer.
""",
    ),
    "gru.step_forward": Solution(
        """
def sigmoid(a):
    return 1 / (1 + np.exp(-a))


def gru_step_forward(params, x_t, h_prev):
    H = h_prev.shape[0]
    # (3H,): W_x x_t + b, W_x x_t being column x_t
    a_x = params["W_x"][:, x_t] + params["b"]
    a_h = params["W_h"] @ h_prev  # (3H,): W_h h_{t-1}, all three blocks at once
    r = sigmoid(a_x[0:H] + a_h[0:H])
    z = sigmoid(a_x[H : 2 * H] + a_h[H : 2 * H])
    h_bar = a_h[2 * H : 3 * H]  # W_hn h_{t-1}
    n = np.tanh(a_x[2 * H : 3 * H] + r * h_bar)  # the reset gate scales h_bar after the product
    h = z * h_prev + (1 - z) * n  # z keeps the old state
    return h, {"x": x_t, "h_prev": h_prev, "r": r, "z": z, "n": n, "h_bar": h_bar}
""",
        r"""
The usual mistakes, each named by the check: $z$ and $1 - z$ swapped, the other papers' convention <!--
practice:mistake gru.step_forward/z-and-one-minus-z-swapped -->; the reset gate applied before $W_{hn}$, Cho et
al.'s and d2l's cell <!-- practice:mistake gru.step_forward/reset-before-W-hn -->; and the blocks read in another
order than r, z, n <!-- practice:mistake gru.step_forward/blocks-stacked-zrn -->.
`practice.hint("gru.step_forward")` gives a nudge; `practice.solution("gru.step_forward")` prints this answer.
""",
    ),
    "gru.step_backward": Solution(
        """
def gru_step_backward(params, dh_t, cache):
    r, z, n, h_bar, h_prev = (cache[name] for name in ("r", "z", "n", "h_bar", "h_prev"))
    # 3. to the candidate and to the update gate
    dn, dz = dh_t * (1 - z), dh_t * (h_prev - n)
    delta_n = dn * (1 - n**2)  # 4. through the tanh
    dh_bar, dr = delta_n * r, delta_n * h_bar  # 5. through r * h_bar
    delta_r, delta_z = dr * r * (1 - r), dz * z * (1 - z)  # 6. through the sigmoids
    delta = np.concatenate([delta_r, delta_z, delta_n])  # 7. what the input side sees
    delta_h = np.concatenate([delta_r, delta_z, dh_bar])  # ... and the recurrent side
    dW_x = np.zeros_like(params["W_x"])
    dW_x[:, cache["x"]] = delta  # only column x_t
    grads = {"W_x": dW_x, "W_h": np.outer(delta_h, h_prev), "b": delta}
    # the direct path, and through W_h
    return z * dh_t + params["W_h"].T @ delta_h, grads
""",
        r"""
The usual mistakes, each named by the check: leaving out the direct path $z_t \odot \nabla_{h_t} L$ <!--
practice:mistake gru.step_backward/no-direct-path -->; $\delta^{(n)}_t$ where $W_h$'s third block needs
$\nabla_{\bar h_t} L = \delta^{(n)}_t \odot r_t$ <!-- practice:mistake gru.step_backward/delta-n-for-dh-bar -->;
$h_{t-1} - n_t$ the wrong way round <!-- practice:mistake gru.step_backward/update-gate-sign-flipped -->; and the
other papers' conventions <!-- practice:mistake gru.step_backward/z-and-one-minus-z-swapped --> <!-- practice:mistake
gru.step_backward/reset-before-W-hn -->. `practice.hint("gru.step_backward")` gives a nudge;
`practice.solution("gru.step_backward")` prints this answer.
""",
    ),
    "dropout_backward": Solution(
        """
def dropout_backward(d_out, keep, rate):
    # the forward pass sent h * keep / (1 - rate) on:
    # the same mask, the same scale, going back
    return d_out * keep / (1 - rate)
""",
        r"""
The usual slips, each named by the check: the scaling forgotten, `d_out * keep` alone (the kept units were scaled
up on the way forward, so their gradient is too) <!-- practice:mistake dropout_backward/no-rescaling -->;
`* (1 - rate)` where the forward pass divided by it <!-- practice:mistake
dropout_backward/times-the-keep-probability -->; `/ rate` for `/ (1 - rate)` <!-- practice:mistake
dropout_backward/divided-by-the-rate -->; the mask turned around, `~keep` <!-- practice:mistake
dropout_backward/dropped-units-get-the-gradient -->; and no mask at all, the gradient passed to every unit <!--
practice:mistake dropout_backward/no-mask -->. A gradient sent back through a mask drawn again is wrong too, and
the check then says how many of the dropped units it reaches and how many kept ones it misses.
`practice.hint("dropout_backward")` gives a nudge, and `practice.solution("dropout_backward")` prints this answer.
""",
    ),
    "seq2seq.masked_loss_and_grad": Solution(
        """
def seq2seq_masked_loss_and_grad(o, y, lengths):
    # m[b, t]: True at the real tokens, t < lengths[b]; N of them
    B, T, V = o.shape
    m = np.arange(T) < np.asarray(lengths)[:, None]
    N = m.sum()
    y_real = np.where(m, y, 0)  # whatever a pad holds is never read
    shifted = o - o.max(axis=-1, keepdims=True)  # no overflow (notebook 01)
    log_y_hat = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    ell = -np.take_along_axis(log_y_hat, y_real[..., None], axis=-1)[..., 0]  # (B, T)
    do = np.exp(log_y_hat)  # y_hat, (B, T, V)
    do[np.arange(B)[:, None], np.arange(T), y_real] -= 1.0  # y_hat - onehot(y)
    do *= m[..., None] / N  # 1 / N at the real tokens, exactly 0 at the pads
    return (m * ell).sum() / N, do
""",
        r"""
The mistakes the check names: a loss over the pads too, the mean over every position with the pads' labels as
targets, which an ignore index that the labels' pad value does not match (`huggingface/transformers#2759`) and
a mean taken before the mask (`jingyaogong/minimind#51`) both produce <!-- practice:mistake
seq2seq.masked_loss_and_grad/pads-in-the-loss -->, with the pads' own ids as labels or with PAD put there
first <!-- practice:mistake seq2seq.masked_loss_and_grad/pads-labelled-pad-in-the-loss -->; each row averaged
over the padded length $T$ and then divided
by $N$ too, d2l's `MaskedSoftmaxCELoss` (`d2l-ai/d2l-en#2076`) <!-- practice:mistake
seq2seq.masked_loss_and_grad/mean-over-the-padded-length-too -->; the sum without the division by $N$ <!--
practice:mistake seq2seq.masked_loss_and_grad/sum-not-mean -->, or divided by the number of rows <!--
practice:mistake seq2seq.masked_loss_and_grad/divided-by-the-number-of-rows --> or by every position <!--
practice:mistake seq2seq.masked_loss_and_grad/divided-by-every-position -->; the mean of each row's mean <!--
practice:mistake seq2seq.masked_loss_and_grad/mean-of-row-means -->; and a gradient left without the $1/N$ that the
loss has <!-- practice:mistake seq2seq.masked_loss_and_grad/gradient-not-divided -->.
`practice.hint("seq2seq.masked_loss_and_grad")` gives a nudge, and `practice.solution("seq2seq.masked_loss_and_grad")`
prints this answer.
""",
    ),
    "seq2seq.beam_step": Solution(
        """
def seq2seq_beam_step(log_p, log_probs, beam_size):
    # log P of every extension (k, j): the prefix's log P plus the new token's log y_hat
    R, V = log_probs.shape
    total = (log_p[:, None] + log_probs).ravel()  # (R * V,), index k * V + j
    # highest first; ties in (k, j) order
    best = np.argsort(-total, kind="stable")[:beam_size]
    return best // V, best % V, total[best]
""",
        r"""
The mistakes the check names: ranking by the new token's $\log \hat y$ alone, forgetting the prefix's
$\log P$ <!-- practice:mistake seq2seq.beam_step/the-new-token-alone -->; the two log-probabilities multiplied
where they add <!-- practice:mistake seq2seq.beam_step/log-probabilities-multiplied -->; the sort the wrong way
round, keeping the least probable <!-- practice:mistake seq2seq.beam_step/ascending -->; the flat index divided by
$R$ where it is $kV + j$ <!-- practice:mistake seq2seq.beam_step/split-by-the-number-of-prefixes -->; each prefix
extended by its own best token only <!-- practice:mistake seq2seq.beam_step/one-extension-per-prefix -->; and the
new token's $\log \hat y$ returned as the score <!-- practice:mistake seq2seq.beam_step/score-of-the-token-alone
-->. `practice.hint("seq2seq.beam_step")` gives a nudge, and `practice.solution("seq2seq.beam_step")` prints this
answer.
""",
    ),
    "attention_forward": Solution(
        """
def attention_forward(h, u, mask):
    scores = np.einsum("bh,bsh->bs", h, u)  # h . u_s for every row and position, (B, S)
    scores = np.where(mask, scores, -np.inf)  # the mask, before the softmax
    e = np.exp(scores - scores.max(axis=1, keepdims=True))  # exp(-inf) = 0 at the pads
    alpha = e / e.sum(axis=1, keepdims=True)  # softmax over the positions (notebook 01)
    context = np.einsum("bs,bsh->bh", alpha, u)  # sum_s alpha_s u_s, (B, H)
    return alpha, context
""",
        r"""
The mistakes the check names: no mask at all, the softmax over the pads too, as TensorFlow's first
seq2seq attention had it <!-- practice:mistake attention_forward/softmax-over-the-pads -->; the memory
zeroed at the pads but the scores left unmasked, as TensorFlow Addons' `AttentionMechanism` did before its
fix <!-- practice:mistake attention_forward/memory-zeroed-scores-unmasked -->; the scores multiplied by
the mask, so that a pad scores 0 rather than `-np.inf` <!-- practice:mistake
attention_forward/pads-scored-zero -->; and the mask applied to the weights after a softmax over every
position <!-- practice:mistake attention_forward/mask-after-the-softmax -->. A softmax without the shift
by the largest score overflows on the case with very large scores. `practice.hint("attention_forward")`
gives a nudge; `practice.solution("attention_forward")` prints this answer.
""",
    ),
    "attention_backward": Solution(
        """
def attention_backward(dcontext, h, u, alpha):
    dalpha = np.einsum("bsh,bh->bs", u, dcontext)  # the context: dcontext . u_s
    weighted = (alpha * dalpha).sum(axis=1, keepdims=True)  # sum_s' alpha_s' dalpha_s'
    dscores = alpha * (dalpha - weighted)  # back through the softmax (notebook 01)
    dh = np.einsum("bs,bsh->bh", dscores, u)  # the score h . u_s, to h
    du = alpha[:, :, None] * dcontext[:, None, :]  # the context, to u_s
    du = du + dscores[:, :, None] * h[:, None, :]  # ... and the score, to u_s
    return dh, du
""",
        r"""
The mistakes the check names: the softmax's Jacobian cut to its diagonal, `alpha * dalpha` <!--
practice:mistake attention_backward/jacobian-diagonal-only -->; no step back through the softmax at
all <!-- practice:mistake attention_backward/no-softmax-step -->; and the memory's gradient with one of
its two paths, through the context only <!-- practice:mistake
attention_backward/memory-through-the-context-only --> or through the scores only <!--
practice:mistake attention_backward/memory-through-the-scores-only -->.
`practice.hint("attention_backward")` gives a nudge; `practice.solution("attention_backward")` prints
this answer.
""",
    ),
}
