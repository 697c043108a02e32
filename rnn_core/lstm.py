"""The LSTM: initialisation, forward pass, and backpropagation through time.

The same convention as the vanilla RNN (rnn_core.rnn): column vectors in the
maths, one row per sequence in the code. One step, for the input character x_t
(one-hot, (V,)) and the previous state (h_{t-1}, c_{t-1}), each (H,):

    a_t = W_x x_t + W_h h_{t-1} + b      pre-activations of the four gates, (4H,)
    i_t = sigmoid(a_t[0:H])              input gate: how much of the candidate to write
    f_t = sigmoid(a_t[H:2H])             forget gate: how much of the old cell to keep
    g_t = tanh(a_t[2H:3H])               candidate: what to write
    q_t = sigmoid(a_t[3H:4H])            output gate: how much of the cell to show
    c_t = f_t * c_{t-1} + i_t * g_t      cell state, (H,)  (* is the elementwise product)
    h_t = q_t * tanh(c_t)                hidden state, (H,)
    o_t = W_yh h_t + b_o                 the scores (logits), (V,); y_hat_t = softmax(o_t)
    L   = sum_t -log y_hat_t[y_t]        cross-entropy in nats

    W_x (4H, V)   W_h (4H, H)   b (4H,)   W_yh (V, H)   b_o (V,)

The four gates' weights are stacked in the order i, f, g, q (PyTorch's i, f, g, o: the
same order): rows 0:H of W_x, W_h and b belong to the input gate, H:2H to the forget
gate, 2H:3H to the candidate, 3H:4H to the output gate. The output gate is q, as
Goodfellow, Bengio & Courville, Deep Learning (2016), section 10.10.1 write it:
PyTorch's documentation and many papers call it o_t, but in rnn_core o_t names the
scores, as in every cell. With B sequences at once every vector becomes a row: a_t is
(B, 4H) and h_t, c_t are (B, H).

The backward pass, derived in notebooks/08-gated-cells-lstm.ipynb: with dh_t,
everything reaching h_t (from o_t and from step t+1), and dc_t, what
reaches c_t from step t+1,

    dc_t     += dh_t * q_t * (1 - tanh(c_t)^2)     the cell also reaches the loss through h_t
    delta_q   = dh_t * tanh(c_t) * q_t (1 - q_t)   back through h_t = q_t tanh(c_t), then the sigmoid
    delta_i   = dc_t * g_t * i_t (1 - i_t)         back through c_t = ... + i_t g_t
    delta_g   = dc_t * i_t * (1 - g_t^2)
    delta_f   = dc_t * c_{t-1} * f_t (1 - f_t)     back through c_t = f_t c_{t-1} + ...
    dc_{t-1}  = dc_t * f_t                         the cell path: one elementwise product per step
    dh_{t-1}  = W_h^T delta_t                      the hidden path: through all four gates
    dW_x += delta_t x_t^T,  dW_h += delta_t h_{t-1}^T,  db += delta_t

The cell path dc_{t-1} = f_t * dc_t has no weight matrix and no squashing
derivative in it: while the forget gate stays near 1, the gradient reaches far
back in time unchanged. That is what the vanilla RNN lacks.

Every cell of rnn_core has the same sequence-level functions (see ``rnn_core.rnn``, which
also says how layers stack and where dropout goes); the LSTM's state is the pair (h, c), each
with a layer axis in front for a stack, whose layer k >= 1 has W_x_k (4H, H), W_h_k (4H, H) and
b_k (4H,). ``step_forward`` and ``step_backward`` are the equations above, as notebook 08
derives them; ``forward`` and the reference path of ``loss_and_grads`` (``fast=False``) loop
over them, layer by layer. ``loss_and_grads`` and ``sequence_loss`` by default run the same
equations fused for speed (``rnn_core._fast_lstm``: a column layout, the sigmoid gates' inputs
halved so that one tanh serves all four gates, constants folded into W_h, reused arrays);
tests/test_fast_paths.py shows the two agree to 1e-12 in float64.
"""

from __future__ import annotations

import numpy as np

from . import _cell, _fast_lstm
from ._fast import GatedEngine
from ._validation import check_bool
from .functions import sigmoid

__all__ = [*_cell.INTERFACE, "GATES"]

PARAM_NAMES = ("W_x", "W_h", "b", "W_yh", "b_o")  # one layer's network
LAYER_NAMES = ("W_x", "W_h", "b")  # the arrays of one layer: layer k >= 1 adds W_x_k, W_h_k, b_k
STATE_NAMES = ("h", "c")  # the state the recurrence carries: the hidden state and the cell
GATES = ("i", "f", "g", "q")  # the order of the four H-row blocks of W_x, W_h and b


# param_names(num_layers=1): PARAM_NAMES, then each further layer's names; param_shapes(vocab_size,
# hidden_size, num_layers=1): {name: shape} for every one of them
# count_params(vocab_size, hidden_size, num_layers=1): the number of trainable numbers,
# 4H*V + 4H*H + 4H + V*H + V, about four vanilla RNNs' worth, and 4H*(2H + 1) for each further layer;
# check_params(params): the dict checked at the door (keys, every layer's; one float dtype; finite
# values; shapes that agree), so that a bad one is a clear error, never an IndexError deep inside
_NAMES = _cell.Names(PARAM_NAMES, LAYER_NAMES, GATES, "rnn_core.lstm.init_params")
param_names, param_shapes = _NAMES.param_names, _NAMES.param_shapes
count_params, check_params = _NAMES.count_params, _NAMES.check_params
BLOCKS = _NAMES.blocks  # the number of H-row blocks in a layer's weights, one per gate


def init_params(
    vocab_size, hidden_size, seed=0, dtype=np.float64, *, forget_bias=1.0, recurrent_scale=1.0, num_layers=1
):
    """Random initial parameters, a dict with keys W_x, W_h, b, W_yh, b_o (and each further layer's).

    vocab_size V >= 1, hidden_size H >= 1; seed: for np.random.default_rng;
    dtype: np.float64 (default, for gradient checks) or np.float32 (training);
    forget_bias: the initial bias of the forget gate; recurrent_scale: the
    spectral radius of each gate's block of W_h (1: orthogonal; as in
    rnn_core.init_params, and TrainConfig.recurrent_scale sets it); num_layers: L >= 1.

    - W_x (4H, V): N(0, 0.3^2), as the vanilla RNN's W_xh: a one-hot input moves
      each gate's pre-activation by about 0.3, inside the squashing functions'
      linear part.
    - W_h (4H, H): each gate's H x H block an independent random orthogonal
      matrix (times ``recurrent_scale``). An orthogonal map keeps the length of h_{t-1}, so no gate starts
      out dominated by the recurrence or deaf to it (Saxe, McClelland & Ganguli
      2014; the common LSTM default).
    - b (4H,): zeros, except the forget gate's block, ``forget_bias`` (1.0):
      f_t = sigmoid(1) = 0.73 from the start, so the cell keeps most of its
      content and the gradient along the cell path, a product of forget gates,
      shrinks slowly (0.73 per step rather than 0.5 with a zero bias). A network
      that starts out forgetting must first learn to remember before it can
      learn anything long-range (Gers, Schmidhuber & Cummins 2000; Jozefowicz,
      Zaremba & Sutskever 2015 found this one change closes most of the gap
      between the LSTM and the best architectures they searched).
    - W_yh (V, H): N(0, 1/H), as in the vanilla RNN: predictions start close to
      uniform.
    - b_o (V,): zeros.
    - each further layer k: W_x_k (4H, H) from N(0, 1/H) (its input is the layer below's
      h_t); W_h_k and b_k as layer 0's. Drawn after the rest: layer 0 and W_yh are the same
      numbers whatever L.

    The numbers are drawn in float64 and then cast, so the same seed gives the
    same network in float32 and float64.
    """
    # every argument checked, then drawn; W_h: one orthogonal block per gate
    return _NAMES.draw(seed, vocab_size, hidden_size, num_layers, recurrent_scale, dtype, forget_bias, "forget_bias")


_SEQUENCES = _cell.Sequences(check_params, STATE_NAMES, LAYER_NAMES, param_names)


# -- one time step: the equations as written --------------------------------------------------------


def step_forward(params, x_t, h_prev, c_prev):
    """One step of the LSTM: the gates, then c_t = f*c_{t-1} + i*g and h_t = q*tanh(c_t).

    x_t: a character index (int) or B indices, shape (B,); in a layer above the first, the
      layer below's h_t, (H,) or (B, H) (with that layer's arrays under these names).
    h_prev, c_prev: h_{t-1} and c_{t-1}, each (H,) or (B, H).
    Returns (h_t, c_t, cache): h_t and c_t shaped like h_prev; cache, a dict of
    what step_backward needs: x, h_prev, c_prev, the gates i, f, g, q, and c.
    """
    H = params["W_h"].shape[1]
    # a_t = W_x x_t + W_h h_{t-1} + b; with one-hot x_t, W_x x_t is column x_t of W_x
    a = _cell.input_term(params["W_x"], x_t) + h_prev @ params["W_h"].T + params["b"]  # (B, H) @ (H, 4H) -> (B, 4H)
    i = sigmoid(a[..., 0:H])
    f = sigmoid(a[..., H : 2 * H])
    g = np.tanh(a[..., 2 * H : 3 * H])
    q = sigmoid(a[..., 3 * H : 4 * H])  # the output gate
    c = f * c_prev + i * g
    h = q * np.tanh(c)
    cache = {"x": x_t, "h_prev": h_prev, "c_prev": c_prev, "i": i, "f": f, "g": g, "q": q, "c": c}
    return h, c, cache


def step_backward(params, dh_t, dc_t, cache, *, return_dx=False):
    """Back through one step: from dL/dh_t and dL/dc_t to the previous state and the step's gradients.

    dh_t: everything reaching h_t (from the logits, or the layer above, and from step t+1), (H,)
      or (B, H).
    dc_t: what reaches c_t from step t+1 (dc_{t+1} * f_{t+1}; zeros at the last
      step), same shape. The path from c_t through h_t is added here.
    cache: from step_forward.
    Returns (dh_prev, dc_prev, grads): dL/dh_{t-1} and dL/dc_{t-1} through this
    step, and this step's share of dW_x (4H, V), dW_h (4H, H) and db (4H,); with return_dx,
    (dh_prev, dc_prev, grads, dx_t), dx_t = W_x^T delta_t, what reaches the input: in a stack,
    the layer below's h_t.
    """
    i, f, g, q, c = (cache[k] for k in ("i", "f", "g", "q", "c"))
    tanh_c = np.tanh(c)
    # back through h_t = q_t * tanh(c_t): to the output gate, and on into the cell
    dq = dh_t * tanh_c
    dc = dc_t + dh_t * q * (1.0 - tanh_c**2)
    # back through c_t = f_t * c_{t-1} + i_t * g_t
    di, df, dg = dc * g, dc * cache["c_prev"], dc * i
    dc_prev = dc * f
    # back through the squashing functions: sigmoid' = s (1 - s), tanh' = 1 - tanh^2
    delta = np.concatenate([di * i * (1 - i), df * f * (1 - f), dg * (1 - g**2), dq * q * (1 - q)], axis=-1)  # (B, 4H)
    delta2, hp2 = np.atleast_2d(delta), np.atleast_2d(cache["h_prev"])
    dW_x = _cell.input_weight_grad(delta2.T, cache["x"], params["W_x"].shape[1])  # column x_t of W_x received delta_t
    grads = {"W_x": dW_x, "W_h": delta2.T @ hp2, "b": delta2.sum(axis=0)}  # delta_t h_{t-1}^T: (4H, B) @ (B, H)
    dh_prev = delta @ params["W_h"]  # W_h^T delta_t as rows: (B, 4H) @ (4H, H) -> (B, H)
    if return_dx:
        return dh_prev, dc_prev, grads, delta @ params["W_x"]  # W_x^T delta_t: (B, 4H) @ (4H, n_in)
    return dh_prev, dc_prev, grads


# The reference engine, one layer's window as a loop over step_forward and step_backward; and the
# fused loops of ``rnn_core._fast_lstm``, the default.
REFERENCE = _cell.ReferenceEngine(step_forward, step_backward, STATE_NAMES, LAYER_NAMES)
FAST = GatedEngine(_fast_lstm, STATE_NAMES)


def advance(params, x_t, state):
    """Read one character (the sampler's step): returns (the state (h_t, c_t) after x_t, the top layer's h_t)."""
    return _cell.advance(REFERENCE, params, x_t, state)


# -- whole sequences, vectorised over the batch --------------------------------------------------


def forward(params, inputs, state0=None, *, dropout=0.0, seed=None, masks=None):
    """Run the LSTM over a sequence (or a batch) and keep every intermediate: ``step_forward`` in a loop.

    inputs: int array (T,) or (B, T) of character indices.
    state0: None (zeros) or a pair (h0, c0), each (H,) for one sequence or
      (B, H) for a batch; (L, H) or (L, B, H) each for a stack of L layers.
    dropout, seed, masks: as for ``loss_and_grads`` (none by default).
    Returns a dict of arrays, each (T, .) for one sequence or (B, T, .) for a batch, with a
    layer axis in front for a stack, except the logits and y_hat:
      i, f, g, q: the gates at every step, (.., H) (q: the output gate)
      c, h: the cell and hidden states c_1..c_T, h_1..h_T, (.., H)
      logits: W_yh h_t + b_o, (.., V);  y_hat: softmax of the logits, (.., V)
      h0, c0: the initial state used, shaped like state0
    """
    return _SEQUENCES.forward(REFERENCE, (*GATES, "c"), params, inputs, state0, dropout, seed, masks)


def loss_and_grads(
    params, inputs, targets, state0=None, return_dstate0=False, *, fast=True, dropout=0.0, seed=None, masks=None
):
    """Loss and its exact gradient over a window: the forward pass plus BPTT.

    params: dict with W_x (4H, V), W_h (4H, H), b (4H,), W_yh (V, H), b_o (V,), and for a
      stack each further layer's W_x_k (4H, H), W_h_k (4H, H), b_k (4H,); all float32 or all
      float64 (the computation runs in that dtype).
    inputs, targets: int arrays of shape (T,) for one sequence or (B, T) for a
      batch; targets[..., t] is the character that should follow inputs[..., t].
    state0: None (zeros) or a pair (h0, c0), each (H,) or (B, H); (L, H) or (L, B, H) for a
      stack of L layers.
    return_dstate0: also return (dL/dh0, dL/dc0), shaped like h0 and c0.
    fast: True (default) for the fused loops of ``rnn_core._fast_lstm``; False for the
      reference, ``step_forward`` and ``step_backward`` in loops: the same numbers, slower.
    dropout, seed, masks: dropout on the connections that do not recur, as for
      ``rnn_core.loss_and_grads`` (none by default).

    Returns (loss, grads, (h_last, c_last)), or with return_dstate0
    (loss, grads, (h_last, c_last), (dh0, dc0)):
      loss: total cross-entropy in nats, summed over all steps and rows, a float
      grads: dict with the same keys and shapes as params (dW_x etc.)
      h_last, c_last: the state after the last step, shaped like h0 and c0
    """
    engine = FAST if check_bool(fast, "fast") else REFERENCE
    return _SEQUENCES.loss_and_grads(engine, params, inputs, targets, state0, return_dstate0, dropout, seed, masks)


def sequence_loss(params, inputs, targets, state0=None, *, dropout=0.0, seed=None, masks=None):
    """Forward only, for evaluation: (total cross-entropy in nats, (h_last, c_last)), by the fused
    loops without what their backward pass needs. Same arguments and shapes as ``loss_and_grads``."""
    return _SEQUENCES.sequence_loss(FAST, params, inputs, targets, state0, dropout, seed, masks)
