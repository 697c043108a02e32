"""The GRU (gated recurrent unit): initialisation, forward pass, and backpropagation through time.

The GRU of Cho et al. 2014 in PyTorch's (cuDNN's) variant: the update gate z keeps the old
state, as in Cho et al., PyTorch's ``nn.GRU`` and d2l, and the reset gate r scales W_hn h_{t-1}
after the product, as PyTorch and cuDNN do (Cho et al. and d2l put r before W_hn: see the end of
this docstring). The same conventions as the other cells (rnn_core.rnn): column
vectors in the maths, one row per sequence in the code. One step, for the input character x_t
(one-hot, (V,)) and the previous state h_{t-1} (H,):

    r_t = sigmoid(W_xr x_t + W_hr h_{t-1} + b_r)          reset gate: how much of h_{t-1} the candidate sees
    z_t = sigmoid(W_xz x_t + W_hz h_{t-1} + b_z)          update gate: how much of h_{t-1} to keep
    h_bar_t = W_hn h_{t-1}                                 the old state, as the candidate reads it
    n_t = tanh(W_xn x_t + r_t * h_bar_t + b_n)             candidate state
    h_t = z_t * h_{t-1} + (1 - z_t) * n_t                 hidden state, (H,)  (* is the elementwise product)
    o_t = W_yh h_t + b_o                                  the scores (logits), (V,); y_hat_t = softmax(o_t)
    L   = sum_t -log y_hat_t[y_t]                         cross-entropy in nats

    W_x (3H, V)   W_h (3H, H)   b (3H,)   W_yh (V, H)   b_o (V,)

The three gates' weights are stacked in the order r, z, n: rows 0:H of W_x, W_h and b belong
to the reset gate, H:2H to the update gate, 2H:3H to the candidate. The state is h alone: a
GRU has no separate cell; h_t itself is the memory, and z_t decides how much of it survives
each step. With B sequences at once every vector becomes a row: h_t is (B, H).

The backward pass, with dh_t everything reaching h_t (from o_t and from step t+1):

    dn_t     = dh_t * (1 - z_t)                   back through h_t = z h_{t-1} + (1 - z) n
    delta_z  = dh_t * (h_{t-1} - n_t) * z_t (1 - z_t)
    delta_n  = dn_t * (1 - n_t^2)                 back through the tanh
    dh_bar_t = delta_n * r_t                      back through r_t * h_bar_t, to h_bar_t = W_hn h_{t-1} ...
    delta_r  = delta_n * h_bar_t * r_t (1 - r_t)  ... and to r_t, then its sigmoid
    dh_{t-1} = dh_t * z_t + W_h^T [delta_r; delta_z; dh_bar_t]   the direct path, and through all three rows
    dW_x += [delta_r; delta_z; delta_n] x_t^T,  db += [delta_r; delta_z; delta_n],
    dW_h += [delta_r; delta_z; dh_bar_t] h_{t-1}^T

The direct path dh_{t-1} = dh_t * z_t has no weight matrix and no squashing derivative in it,
as the LSTM's cell path: while z_t stays near 1, the gradient reaches far back unchanged.

PyTorch's ``nn.GRU`` has two biases, b_ih and b_hh (3H each, stacked r, z, n):
r_t = sigmoid(W_ir x + b_ir + W_hr h + b_hr), z_t likewise, and
n_t = tanh(W_in x + b_in + r_t * (W_hn h + b_hn)). Here b is one bias per gate row: for r and
z only the sum matters (b_r = b_ir + b_hr, b_z = b_iz + b_hz); for n, b_hn sits inside
r_t * (...) and is not redundant, and this cell has none (b_n = b_in, b_hn = 0). So our weights
load into ``nn.GRU`` exactly as weight_ih_l0 = W_x, weight_hh_l0 = W_h, bias_ih_l0 = b,
bias_hh_l0 = 0 (tests/test_torch_oracle.py checks it against nn.GRU's stored outputs); a PyTorch GRU with
b_hn != 0 has H numbers this cell cannot hold. Cho et al. 2014 and d2l write the reset gate
inside the product, W_hn (r_t * h_{t-1}); PyTorch (and cuDNN) put it outside,
r_t * (W_hn h_{t-1}), as here. The two are different families of cells, not two spellings of one:
unit i's candidate reads sum_j W_ij r_j h_j in the first and r_i sum_j W_ij h_j in the second,
which agree when W_hn is diagonal (or the gates are equal across the units a row mixes), not in
general. The second lets all of W_h h_{t-1} be one (3H, H) product per step, computed before r_t
is known.

Every cell of rnn_core has the same sequence-level functions (see ``rnn_core.rnn``, which
also says how layers stack and where dropout goes); the GRU's state is h, with a layer axis in
front for a stack, whose layer k >= 1 has W_x_k (3H, H), W_h_k (3H, H) and b_k (3H,) (as
``nn.GRU(num_layers=L)``'s weight_ih_lk, weight_hh_lk and bias_ih_lk). ``step_forward`` and
``step_backward`` are the equations above; ``forward`` and the reference path of
``loss_and_grads`` (``fast=False``) loop over them, layer by layer. ``loss_and_grads`` and
``sequence_loss`` by default run the same equations fused for speed (``rnn_core._fast_gru``);
tests/test_fast_paths.py shows the two agree to 1e-12 in float64.
"""

from __future__ import annotations

import numpy as np

from . import _cell, _fast_gru
from ._fast import GatedEngine
from ._validation import check_bool
from .functions import sigmoid  # 1 / (1 + exp(-a)), computed as (1 + tanh(a/2)) / 2: never overflows

__all__ = [*_cell.INTERFACE, "GATES"]

PARAM_NAMES = ("W_x", "W_h", "b", "W_yh", "b_o")  # one layer's network
LAYER_NAMES = ("W_x", "W_h", "b")  # the arrays of one layer: layer k >= 1 adds W_x_k, W_h_k, b_k
STATE_NAMES = ("h",)  # the state the recurrence carries
GATES = ("r", "z", "n")  # the order of the three H-row blocks of W_x, W_h and b


# param_names, param_shapes, count_params, check_params and BLOCKS: as rnn_core.lstm's, over three gates
# (count_params: 3H*V + 3H*H + 3H + V*H + V, three quarters of an LSTM's, and 3H*(2H + 1) per further layer)
_NAMES = _cell.Names(PARAM_NAMES, LAYER_NAMES, GATES, "rnn_core.gru.init_params")
param_names, param_shapes, count_params = _NAMES.param_names, _NAMES.param_shapes, _NAMES.count_params
check_params, BLOCKS = _NAMES.check_params, _NAMES.blocks


def init_params(
    vocab_size, hidden_size, seed=0, dtype=np.float64, *, recurrent_scale=1.0, update_bias=0.0, num_layers=1
):
    """Random initial parameters, a dict with keys W_x, W_h, b, W_yh, b_o (and each further layer's).

    vocab_size, hidden_size, seed, dtype, recurrent_scale, num_layers: as for
    ``rnn_core.lstm.init_params``; update_bias: the initial bias of the update gate z.

    - W_x (3H, V): N(0, 0.3^2), as the other cells: a one-hot input moves each gate's
      pre-activation by about 0.3, inside the squashing functions' linear part.
    - W_h (3H, H): each gate's H x H block an independent random orthogonal matrix (times
      ``recurrent_scale``), as the LSTM's: an orthogonal map keeps the length of h_{t-1}, so no
      gate starts out dominated by the recurrence or deaf to it (Saxe, McClelland & Ganguli 2014).
    - b (3H,): zeros, except the update gate's block, ``update_bias`` (0 by default). At 0,
      z_t starts near 1/2: each step keeps about half of the old state and writes half of the
      candidate, and the gradient along the direct path shrinks like 0.5 per step until the
      network learns to open z where it must remember. A positive value (1 gives z = 0.73, the
      LSTM's forget-gate default) starts the cell remembering more; on the novel it made no
      consistent difference at equal steps (benchmarks/README.md), so the default is the
      common one (PyTorch and d2l start every bias near 0).
    - W_yh (V, H): N(0, 1/H), as in the other cells: predictions start close to uniform.
    - b_o (V,): zeros.
    - each further layer k: W_x_k (3H, H) from N(0, 1/H) (its input is the layer below's
      h_t); W_h_k and b_k as layer 0's. Drawn after the rest: layer 0 and W_yh are the same
      numbers whatever L.

    The numbers are drawn in float64 and then cast, so the same seed gives the same network in
    float32 and float64.
    """
    # every argument checked, then drawn; W_h: one orthogonal block per gate
    return _NAMES.draw(seed, vocab_size, hidden_size, num_layers, recurrent_scale, dtype, update_bias, "update_bias")


_SEQUENCES = _cell.Sequences(check_params, STATE_NAMES, LAYER_NAMES, param_names)


# -- one time step: the equations as written --------------------------------------------------------


def step_forward(params, x_t, h_prev):
    """One step of the GRU: the gates r and z, the candidate n, then h_t = z*h_{t-1} + (1-z)*n.

    x_t: a character index (int) or B indices, shape (B,); in a layer above the first, the
      layer below's h_t, (H,) or (B, H) (with that layer's arrays under these names).
    h_prev: h_{t-1}, (H,) or (B, H).
    Returns (h_t, cache): h_t shaped like h_prev; cache, a dict of what step_backward needs:
    x, h_prev, the gates r, z, the candidate n, and h_bar = W_hn h_{t-1} (notebook 09's h̄_t).
    """
    H = params["W_h"].shape[1]
    # W_x x_t + b, with one-hot x_t: column x_t of W_x, plus b; and W_h h_{t-1}: (B, H) @ (H, 3H) -> (B, 3H)
    a_x = _cell.input_term(params["W_x"], x_t) + params["b"]
    a_h = h_prev @ params["W_h"].T
    r = sigmoid(a_x[..., 0:H] + a_h[..., 0:H])
    z = sigmoid(a_x[..., H : 2 * H] + a_h[..., H : 2 * H])
    h_bar = a_h[..., 2 * H : 3 * H]  # W_hn h_{t-1}
    n = np.tanh(a_x[..., 2 * H : 3 * H] + r * h_bar)
    h = z * h_prev + (1.0 - z) * n
    cache = {"x": x_t, "h_prev": h_prev, "r": r, "z": z, "n": n, "h_bar": h_bar}
    return h, cache


def step_backward(params, dh_t, cache, *, return_dx=False):
    """Back through one step: from dL/dh_t to dL/dh_{t-1} and the step's gradients.

    dh_t: everything reaching h_t (from the logits, or the layer above, and from step t+1),
      (H,) or (B, H).
    cache: from step_forward.
    Returns (dh_prev, grads): dL/dh_{t-1} through this step, and this step's share of
    dW_x (3H, V), dW_h (3H, H) and db (3H,); with return_dx, (dh_prev, grads, dx_t), dx_t =
    W_x^T [delta_r; delta_z; delta_n], what reaches the input: in a stack, the layer below's h_t.
    """
    r, z, n, h_bar, h_prev = (cache[k] for k in ("r", "z", "n", "h_bar", "h_prev"))
    # back through h_t = z_t * h_{t-1} + (1 - z_t) * n_t
    dn = dh_t * (1.0 - z)
    dz = dh_t * (h_prev - n)
    # back through n_t = tanh(a_n), a_n = W_xn x_t + r_t * h_bar_t + b_n
    delta_n = dn * (1.0 - n**2)
    dh_bar = delta_n * r
    dr = delta_n * h_bar
    # back through the gates' sigmoids: sigmoid' = s (1 - s)
    delta_r, delta_z = dr * r * (1.0 - r), dz * z * (1.0 - z)
    delta = np.concatenate([delta_r, delta_z, delta_n], axis=-1)  # what reaches W_x x_t + b, (B, 3H)
    delta_h = np.concatenate([delta_r, delta_z, dh_bar], axis=-1)  # what reaches W_h h_{t-1}, (B, 3H)
    dx2, dh2, hp2 = np.atleast_2d(delta), np.atleast_2d(delta_h), np.atleast_2d(h_prev)
    dW_x = _cell.input_weight_grad(dx2.T, cache["x"], params["W_x"].shape[1])  # column x_t of W_x received delta
    grads = {"W_x": dW_x, "W_h": dh2.T @ hp2, "b": dx2.sum(axis=0)}  # delta_h h_{t-1}^T: (3H, B) @ (B, H)
    dh_prev = dh_t * z + delta_h @ params["W_h"]  # the direct path, and W_h^T delta_h as rows: (B, 3H) @ (3H, H)
    if return_dx:
        return dh_prev, grads, delta @ params["W_x"]  # W_x^T delta: (B, 3H) @ (3H, n_in)
    return dh_prev, grads


# The reference engine, one layer's window as a loop over step_forward and step_backward; and the
# fused loops of ``rnn_core._fast_gru``, the default.
REFERENCE = _cell.ReferenceEngine(step_forward, step_backward, STATE_NAMES, LAYER_NAMES)
FAST = GatedEngine(_fast_gru, STATE_NAMES)


def advance(params, x_t, state):
    """Read one character (the sampler's step): returns (the state after x_t, the top layer's h_t).
    For one layer both are h_t; for a stack the state is every layer's h_t, (L, H) or (L, B, H)."""
    return _cell.advance(REFERENCE, params, x_t, state)


# -- whole sequences, vectorised over the batch --------------------------------------------------


def forward(params, inputs, state0=None, *, dropout=0.0, seed=None, masks=None):
    """Run the GRU over a sequence (or a batch) and keep every intermediate: ``step_forward`` in a loop.

    inputs: int array (T,) or (B, T) of character indices.
    state0: None (zeros), or h0: (H,) for one sequence, (B, H) for a batch; (L, H) or (L, B, H)
      for a stack of L layers.
    dropout, seed, masks: as for ``loss_and_grads`` (none by default).
    Returns a dict of arrays, each (T, .) for one sequence or (B, T, .) for a batch, with a
    layer axis in front for a stack, except the logits and y_hat:
      r, z: the gates at every step, (.., H);  n: the candidate states, (.., H)
      h: the hidden states h_1..h_T, (.., H)
      logits: W_yh h_t + b_o, (.., V);  y_hat: softmax of the logits, (.., V)
      h0: the initial state used, shaped like state0
    """
    return _SEQUENCES.forward(REFERENCE, GATES, params, inputs, state0, dropout, seed, masks)


def loss_and_grads(
    params, inputs, targets, state0=None, return_dstate0=False, *, fast=True, dropout=0.0, seed=None, masks=None
):
    """Loss and its exact gradient over a window: the forward pass plus BPTT.

    params: dict with W_x (3H, V), W_h (3H, H), b (3H,), W_yh (V, H), b_o (V,), and for a
      stack each further layer's W_x_k (3H, H), W_h_k (3H, H), b_k (3H,); all float32 or all
      float64 (the computation runs in that dtype).
    inputs, targets: as for ``rnn_core.lstm.loss_and_grads``.
    state0: None (zeros), or h0 alone (the GRU has no cell state): (H,) or (B, H); (L, H) or
      (L, B, H) for a stack of L layers. return_dstate0: also return dL/dh0, shaped like h0.
    fast: True (default) for the fused loops of ``rnn_core._fast_gru``; False for the
      reference, ``step_forward`` and ``step_backward`` in loops: the same numbers, slower.
    dropout, seed, masks: dropout on the connections that do not recur, as for
      ``rnn_core.loss_and_grads`` (none by default).

    Returns (loss, grads, h_last), or with return_dstate0 (loss, grads, h_last, dh0):
      loss: total cross-entropy in nats, summed over all steps and rows, a float
      grads: dict with the same keys and shapes as params (dW_x etc.)
      h_last: the state after the last step, shaped like h0
    """
    engine = FAST if check_bool(fast, "fast") else REFERENCE
    return _SEQUENCES.loss_and_grads(engine, params, inputs, targets, state0, return_dstate0, dropout, seed, masks)


def sequence_loss(params, inputs, targets, state0=None, *, dropout=0.0, seed=None, masks=None):
    """Forward only, for evaluation: (total cross-entropy in nats, h_last), by the fused loops
    without what their backward pass needs. Same arguments and shapes as ``loss_and_grads``."""
    return _SEQUENCES.sequence_loss(FAST, params, inputs, targets, state0, dropout, seed, masks)
