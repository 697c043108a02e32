"""One sequence into another: the encoder-decoder (Sutskever et al. 2014; Cho et al. 2014), with
attention (Bahdanau et al. 2015's score, Luong et al. 2015's dot score and placement).

The same conventions as the cells (rnn_core.rnn): column vectors in the maths, one row per
sequence in the code. A batch of B source sequences x (B, S) of ids, each row real up to its
length and padded after it, and B target sequences y (B, T), y_1 .. y_{T_b} ending in EOS:

    x~_s    = E_src[x_s]                              embedding: 03's one-hot product, a lookup: a row of E_src
    U_s     = h_s of the encoder over x~_1 .. x~_S        the memory, (H,)  (the cell's own recurrence)
    bidirectional: U_s = [h->_s; h<-_s]                   (2H,): h<- runs over each row's real tokens reversed
    h_0     = U_{S_b} (the state after the last real token; an LSTM's cell c_0 = 0)
    bidirectional: h_0 = tanh(W_b [h->_{S_b}; h<-_1] + b_b)     the bridge (the notebooks' W_br, b_br)
    y~_t-1  = E_tgt[y_{t-1}],  y_0 = BOS                   teacher forcing: the decoder reads the targets
    h_t     = the decoder's step from h_{t-1} and y~_t-1   (H,)  (the cell's own recurrence, from h_0)
  without attention:
    o_t     = W_yh h_t + b_o                               logits, (V_tgt,)
  with attention (Luong's placement: the recurrent step first, then attention over the memory):
    omega_ts = h_t . U_s                                   "dot" (Luong 2015); bidirectional: h_t . (W_k U_s),
                                                           Luong's "general" score (U_s is 2H wide)
    omega_ts = w . tanh(W_q h_t + W_k U_s)                 "additive" (Bahdanau 2015's score; w is ``v``)
    alpha_t = softmax(omega_t with -inf at the padded s)   (S,): sums to 1, exactly 0 at the pads
    psi_t   = sum_s alpha_ts U_s                           the context, (H,) or (2H,)
    phi_t   = tanh(W_phi [psi_t; h_t] + b_phi)             the attentional state (Luong 2015, eq. 5), (H,);
                                                           W_phi, b_phi are ``W_c``, ``b_c``
    o_t     = W_yh phi_t + b_o                             logits
    y_hat_t = softmax(o_t)
    L       = (1 / N) sum_b sum_t m_bt (-log y_hat_bt[y_bt])   m_bt = 1 for t <= T_b, else 0; N = sum_b T_b:
                                                           the mean over the real tokens (masked_loss_and_grad)

The symbols are the notebooks' (tools/notation.toml): U the memory, omega the scores, alpha the
weights, psi the context, phi the attentional state.

Why this shape. Every recurrence runs through a cell's per-layer engine (rnn_core.cells: the
reference loops over the step functions, or the fast ones), one window each for the encoder, its
reverse pass and the decoder, with the embeddings as vector inputs (T, B, E). An engine's window
takes its whole input before it starts, so nothing computed after a step may feed the next step:
attention must not feed back into the recurrence. That is Luong's placement (h_t first, then
attention with h_t as the query), not Bahdanau's (whose query is h_{t-1} and whose context enters
the step). The additive score keeps Bahdanau's function at Luong's placement. The output reads
[psi_t; h_t] through Luong's attentional layer phi_t, so W_yh stays (V_tgt, H) with or without
attention and the output layer is the cells' own.

Choices, each said once:
- the attention size (the rows of W_q, W_k and v) is H;
- a bidirectional memory is 2H wide, so attention="dot" projects it, W_k (H, 2H), to meet h_t: with a
  bidirectional encoder it is Luong et al.'s "general" score, h_t . (W_k U_s), not their dot score;
- an LSTM decoder starts from c_0 = 0: an engine's backward pass takes what reaches h_t from above
  at every step but what reaches c only at its window's start, so the encoder's c at a row's last
  real token (before the pads) is not a state the gradient could reach through the engine;
- the bidirectional encoder's reverse pass reads each row's real tokens reversed, pads left at the
  end, so both passes start from the zero state on real tokens; their gradients meet in E_src;
- entries beyond the lengths may hold any id (they are replaced by PAD before anything reads
  them); real entries must be ids of the vocabulary. Since the decoder and the forward encoder
  read the pads after the real tokens, and the mask gives the pads zero weight in the loss and in
  attention, nothing real depends on them: their gradient is exactly zero.
- PAD = 0, BOS = 1, EOS = 2 in both vocabularies (rnn_core.dates builds them so).

Given functions (``pieces=``). ``loss_and_grads``, ``greedy_decode`` and ``beam_search`` take a
dict of the exercises' functions (``PIECES``: a reader's, saved in my_rnn.py) to use in place of
their own code: ``masked_loss_and_grad`` for the output layer's loss; ``attention_forward`` and
``attention_backward`` (rnn_core.attention's interface: one decoder step of dot attention over a
memory of width H) called once per output step t, which needs a model with attention="dot" and
a one-way encoder (M = H, the keys the memory itself); ``beam_step`` at each step of beam search.
A piece not given is rnn_core's own code. Right pieces give the same numbers, up to rounding.

Decoding (``greedy_decode``, ``beam_search``) returns token ids with the EOS that ended the
sequence included (as ``tgt`` holds it); a sequence cut at ``max_len`` has no EOS.

Parameters: a dict keyed by ``param_names(cell, attention, bidirectional)``; each recurrence's
arrays carry the cell's names with a suffix: _enc (the encoder), _rev (its reverse pass), _dec
(the decoder), e.g. W_x_enc, W_h_enc, b_enc for a GRU or an LSTM, W_xh_enc, W_hh_enc, b_h_enc for
the vanilla cell. Notebook 11 (notebooks/11-one-sequence-into-another.ipynb) derives the
encoder-decoder, the masked loss and beam search, notebook 12 (notebooks/12-attention.ipynb) the
attention; it is checked against finite differences (tests/test_seq2seq.py) and
PyTorch (tests/test_seq2seq_torch_oracle.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from ._cell import check_dtype, input_weight_grad, output_backward, output_logits
from ._validation import check_bool, check_indices, check_int, check_number, check_param_arrays, check_shapes
from .cells import CELLS, cell_module  # the cells by name, as the language model names them
from .functions import cross_entropy_and_grad, log_softmax, softmax

__all__ = [
    "PAD",
    "BOS",
    "EOS",
    "CELLS",
    "ATTENTIONS",
    "PIECES",
    "Config",
    "param_names",
    "param_shapes",
    "init_params",
    "check_params",
    "encode",
    "forward",
    "masked_loss_and_grad",
    "loss_and_grads",
    "sequence_log_probs",
    "attention_weights",
    "greedy_decode",
    "beam_step",
    "beam_search",
]

PAD, BOS, EOS = 0, 1, 2  # the special ids, the same in both vocabularies
ATTENTIONS = (None, "additive", "dot")
# the exercises' functions that training and decoding can take in place of their own code (``pieces=``)
PIECES = ("masked_loss_and_grad", "attention_forward", "attention_backward", "beam_step")
_SLOTS = {"enc": 1, "rev": 2, "dec": 3}  # each recurrence's own arrays in a fast engine's workspace


class Config(NamedTuple):
    """What a parameter dict is: its cell, attention, direction and sizes (``check_params`` reads it)."""

    cell: str
    attention: str | None
    bidirectional: bool
    src_vocab_size: int
    tgt_vocab_size: int
    hidden_size: int
    embed_size: int

    @property
    def memory_size(self):
        """The width of U_s: H, or 2H for a bidirectional encoder."""
        return 2 * self.hidden_size if self.bidirectional else self.hidden_size


# -- parameters -----------------------------------------------------------------------------------


def _check_kind(cell, attention, bidirectional):
    """The cell's module (``cells.cell_module`` checks the name), once attention and bidirectional are checked."""
    module = cell_module(cell)
    if attention not in ATTENTIONS:
        kind = TypeError if not isinstance(attention, str) else ValueError  # (None is among them)
        raise kind(f"attention must be None, 'additive' or 'dot', got {attention!r}")
    check_bool(bidirectional, "bidirectional")
    return module


def _parts(bidirectional):
    return ("enc", "rev", "dec") if bidirectional else ("enc", "dec")


def param_names(cell="gru", attention=None, bidirectional=False):
    """The names of every array, in order: E_src, the encoder's arrays (_enc); with a bidirectional
    encoder, its reverse pass's (_rev) and the bridge W_b, b_b; E_tgt, the decoder's arrays (_dec); the
    attention's W_q, W_k, v, W_c, b_c (those it has); W_yh, b_o."""
    layer = _check_kind(cell, attention, bidirectional).LAYER_NAMES
    names = ["E_src", *(f"{n}_enc" for n in layer)]
    if bidirectional:
        names += [*(f"{n}_rev" for n in layer), "W_b", "b_b"]
    names += ["E_tgt", *(f"{n}_dec" for n in layer)]
    if attention == "additive":
        names += ["W_q", "W_k", "v"]
    elif attention == "dot" and bidirectional:
        names += ["W_k"]
    if attention is not None:
        names += ["W_c", "b_c"]
    return tuple(names + ["W_yh", "b_o"])


def param_shapes(
    src_vocab_size, tgt_vocab_size, hidden_size, *, cell="gru", attention=None, bidirectional=False, embed_size=None
):
    """{name: shape} for every array (``param_names``' order). V_src, V_tgt, H, E = embed_size (None: H).

    E_src (V_src, E), E_tgt (V_tgt, E); each recurrence: input weights (gH, E), recurrent (gH, H),
    bias (gH,), g its blocks (1, LSTM 4, GRU 3); W_b (H, 2H), b_b (H,); W_q (H, H), W_k (H, M),
    v (H,) (additive; M = H or 2H, the memory's width); W_k (H, 2H) (dot, bidirectional: Luong's "general" score);
    W_c (H, M + H), b_c (H,); W_yh (V_tgt, H), b_o (V_tgt,).
    """
    Vs, Vt = check_int(src_vocab_size, "src_vocab_size"), check_int(tgt_vocab_size, "tgt_vocab_size")
    H = check_int(hidden_size, "hidden_size")
    E = H if embed_size is None else check_int(embed_size, "embed_size")
    module = _check_kind(cell, attention, bidirectional)
    g, M = module.BLOCKS, (2 * H if bidirectional else H)
    shapes = {"E_src": (Vs, E), "E_tgt": (Vt, E), "W_b": (H, 2 * H), "b_b": (H,)}
    for part in _parts(bidirectional):
        shapes.update(zip((f"{n}_{part}" for n in module.LAYER_NAMES), ((g * H, E), (g * H, H), (g * H,))))
    shapes.update(W_q=(H, H), W_k=(H, M), v=(H,), W_c=(H, M + H), b_c=(H,), W_yh=(Vt, H), b_o=(Vt,))
    return {name: shapes[name] for name in param_names(cell, attention, bidirectional)}


def init_params(
    src_vocab_size,
    tgt_vocab_size,
    hidden_size,
    *,
    cell="gru",
    attention=None,
    bidirectional=False,
    embed_size=None,
    seed=0,
    dtype=np.float64,
):
    """Random initial parameters, a dict keyed by ``param_names`` (shapes: ``param_shapes``).

    - E_src, E_tgt: N(0, 1/E), so that each row has a length of about 1, as the one-hot vector
      it stands for; each recurrence's arrays are then the cell's own initialisation
      (``rnn_core.<cell>.init_params(E, H)``: input weights N(0, 0.3^2), orthogonal recurrent blocks,
      the LSTM's forget bias 1), drawn with seeds taken from ``seed``;
    - W_b, W_q, W_k, v, W_c, W_yh: N(0, 1/fan_in), fan_in their number of columns (v: H);
      the biases b_b, b_c, b_o: zeros.
    dtype: np.float64 (default, for gradient checks) or np.float32. Drawn in float64, then cast.
    """
    shapes = param_shapes(
        src_vocab_size,
        tgt_vocab_size,
        hidden_size,
        cell=cell,
        attention=attention,
        bidirectional=bidirectional,
        embed_size=embed_size,
    )
    dtype = check_dtype(dtype)
    H, E = check_int(hidden_size, "hidden_size"), shapes["E_src"][1]
    rng = np.random.default_rng(check_int(seed, "seed", 0))
    module, params = CELLS[cell], {}
    for name in ("E_src", "E_tgt"):
        params[name] = rng.standard_normal(shapes[name]) / np.sqrt(E)
    for part in _parts(bidirectional):
        layer = module.init_params(E, H, seed=int(rng.integers(2**31)))
        params.update((f"{n}_{part}", layer[n]) for n in module.LAYER_NAMES)
    for name, shape in shapes.items():
        if name not in params:
            fan_in = shape[-1] if len(shape) == 2 else H
            drawn = rng.standard_normal(shape) / np.sqrt(fan_in)
            params[name] = drawn if name.startswith(("W_", "v")) else np.zeros(shape)
    return {name: np.ascontiguousarray(params[name], dtype=dtype) for name in shapes}


def check_params(params):
    """Check a parameter dict and say what it is: its ``Config`` (cell, attention, direction, sizes).

    The cell is read from the names (W_xh_enc: the vanilla cell) and W_x_enc's rows (4H: LSTM, 3H:
    GRU, with H from W_yh); the attention from v (additive) or W_c alone (dot); the direction from
    the _rev arrays. Raises TypeError or ValueError naming the problem.
    """
    if not isinstance(params, Mapping):
        raise TypeError(
            f"params must be a dict of arrays (see rnn_core.seq2seq.init_params), got {type(params).__name__}"
        )
    check_param_arrays(params, ("E_src", "E_tgt", "W_yh"), "rnn_core.seq2seq.init_params")
    H = params["W_yh"].shape[1] if params["W_yh"].ndim == 2 else 0
    if "W_xh_enc" in params:
        cell = "rnn"
    elif "W_x_enc" in params and H and params["W_x_enc"].ndim == 2 and params["W_x_enc"].shape[0] in (3 * H, 4 * H):
        cell = "lstm" if params["W_x_enc"].shape[0] == 4 * H else "gru"
    else:
        raise ValueError("params hold no encoder: W_xh_enc (rnn) or W_x_enc with 4H (lstm) or 3H (gru) rows")
    attention = "additive" if "v" in params else "dot" if "W_c" in params else None
    bidirectional = f"{CELLS[cell].LAYER_NAMES[0]}_rev" in params
    names = param_names(cell, attention, bidirectional)
    check_param_arrays(params, names, "rnn_core.seq2seq.init_params")
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise ValueError(f"params has arrays no {cell} model of this kind has: {', '.join(unknown)}")
    (Vs, E), Vt = params["E_src"].shape, params["W_yh"].shape[0]
    kind = dict(cell=cell, attention=attention, bidirectional=bidirectional, embed_size=E)
    implied = (
        f"E_src {params['E_src'].shape} and W_yh {params['W_yh'].shape} imply V_src={Vs}, E={E}, V_tgt={Vt}, H={H}"
    )
    check_shapes(params, param_shapes(Vs, Vt, H, **kind), implied)
    return Config(cell, attention, bool(bidirectional), Vs, Vt, H, E)


def _layer(params, cell, part):
    """One recurrence's arrays under the cell's layer-0 names, as its engine reads them."""
    return {n: params[f"{n}_{part}"] for n in CELLS[cell].LAYER_NAMES}


def _check_pieces(pieces, cfg):
    """The given functions as a dict (empty for None), checked against the model they are used with."""
    if pieces is None:
        return {}
    if not isinstance(pieces, Mapping):
        raise TypeError(f"pieces must be a dict {{name: function}} or None, got {type(pieces).__name__}")
    unknown = sorted(set(pieces) - set(PIECES))
    if unknown:
        raise ValueError(f"pieces has no use for {', '.join(map(repr, unknown))}: the pieces are {', '.join(PIECES)}")
    for name, fn in pieces.items():
        if not callable(fn):
            raise TypeError(f"pieces[{name!r}] must be a function, got {type(fn).__name__}")
    attention = sorted({"attention_forward", "attention_backward"} & set(pieces))
    if attention and (cfg.attention != "dot" or cfg.bidirectional):
        raise ValueError(
            f"{' and '.join(attention)}: dot attention over a memory of width H, for a model with "
            f"attention='dot' and bidirectional=False; these params have attention={cfg.attention!r}, "
            f"bidirectional={cfg.bidirectional}"
        )
    return dict(pieces)


# -- input checks ----------------------------------------------------------------------------------


def _check_ids(ids, name, lengths, lengths_name, vocab_size):
    """(ids with PAD beyond the lengths, as intp (B, S); lengths (B,); mask (B, S), True at real entries).

    The type, shape and emptiness by ``_validation.check_indices``; the ids' range here, within the
    lengths only (entries beyond them may hold anything)."""
    a = check_indices(ids, name, None, ndim=(2,), what="token ids", shape="(B, S), one row per sequence")
    B, S = a.shape
    one_each = f"({B},), one length per row of {name}"
    n = check_indices(lengths, lengths_name, None, ndim=(1,), min_size=0, what="lengths", shape=one_each)
    if n.shape != (B,):
        raise ValueError(f"{lengths_name} must have shape {one_each}, got {n.shape}")
    if n.min() < 1:
        raise ValueError(f"{lengths_name} holds {n.min()}: an empty sequence; every row needs at least one token")
    if n.max() > S:
        raise ValueError(
            f"{lengths_name} holds {n.max()}, longer than {name}'s {S} columns; pad {name} or fix the length"
        )
    mask = np.arange(S) < n[:, None]
    bad = mask & ((a < 0) | (a >= vocab_size))
    if bad.any():
        b, s = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} holds id {a[b, s]} at row {b}, position {s} (within {lengths_name}), outside the vocabulary "
            f"of size {vocab_size} (valid: 0..{vocab_size - 1}); entries beyond the lengths may hold anything"
        )
    for special, what in ((PAD, "PAD"), (BOS, "BOS")):  # markers, never a real token of either side
        bad = mask & (a == special)
        if bad.any():
            b, s = np.argwhere(bad)[0]
            why = "a row's length counts its real tokens only" if special == PAD else "the decoder adds BOS itself"
            where = f"at row {b}, position {s}, within {lengths_name}"
            raise ValueError(f"{name} holds {what} (id {special}) {where}: {why}")
    return np.where(mask, a, PAD).astype(np.intp), n.astype(np.intp), mask


class _Batch(NamedTuple):
    """A checked batch, time-major where the recurrences read it."""

    src: np.ndarray  # (S, B) ids, PAD beyond the lengths
    src_lengths: np.ndarray  # (B,)
    src_mask: np.ndarray  # (B, S), True at real entries
    dec_in: np.ndarray | None  # (T, B): BOS, y_1 .. y_{T-1}; PAD beyond the lengths
    tgt: np.ndarray | None  # (T, B): y_1 .. y_T, PAD beyond the lengths
    tgt_mask: np.ndarray | None  # (T, B)


def _batch(cfg, src, src_lengths, tgt=None, tgt_lengths=None, *, name="src"):
    src, src_lengths, src_mask = _check_ids(src, name, src_lengths, f"{name}_lengths", cfg.src_vocab_size)
    if tgt is None:
        return _Batch(np.ascontiguousarray(src.T), src_lengths, src_mask, None, None, None)
    if tgt_lengths is None:
        tgt_lengths = np.full(np.shape(tgt)[0] if np.ndim(tgt) == 2 else 0, np.shape(tgt)[-1], dtype=np.intp)
    tgt, tgt_lengths, tgt_mask = _check_ids(tgt, "tgt", tgt_lengths, "tgt_lengths", cfg.tgt_vocab_size)
    if len(tgt) != len(src):
        raise ValueError(f"src and tgt must have the same number of rows (B), got {len(src)} and {len(tgt)}")
    dec_in = np.concatenate([np.full((len(tgt), 1), BOS, np.intp), tgt[:, :-1]], axis=1)  # teacher forcing
    dec_in[~tgt_mask] = PAD
    src, dec_in, tgt, tgt_mask = (np.ascontiguousarray(a.T) for a in (src, dec_in, tgt, tgt_mask))  # time-major
    return _Batch(src, src_lengths, src_mask, dec_in, tgt, tgt_mask)


# -- the recurrences, through the cells' engines --------------------------------------------------


def _engine(cell, fast):
    """The per-layer engine: the cell's fast engine, or (fast False) its reference loop over its steps."""
    module = CELLS[cell]
    return module.FAST if check_bool(fast, "fast") else module.REFERENCE


def _run(engine, layer_params, x, state0, part, for_backward=True):
    """One recurrence over its window: (its engine's record, h_1..h_T as rows (T, B, H): for an engine of rows the
    record's own array, so not to be written into; for one of columns a transposed copy).
    x (T, B, E): the embeddings it reads; state0: a tuple of (B, H) arrays."""
    if engine.columns:  # one column per sequence inside: (T, E, B)
        x = np.ascontiguousarray(x.transpose(0, 2, 1))
    record = engine.forward(layer_params, x, state0, layer=_SLOTS[part], for_backward=for_backward)
    h = record.h
    return record, np.ascontiguousarray(h.transpose(0, 2, 1) if engine.columns else h)


def _back(engine, record, dh):
    """Back through one recurrence: (grads under the cell's names, dx (T, B, E), dstate0 tuple).
    dh (T, B, H): what reaches each h_t from above."""
    if engine.columns:
        grads, dx, dstate0 = engine.backward(record, np.ascontiguousarray(dh.transpose(0, 2, 1)))
        return grads, dx.transpose(0, 2, 1), dstate0
    return engine.backward(record, dh)


def _reversal(lengths, S):
    """(S, B) positions: row b's first lengths[b] positions reversed, the pads left in place. Its own inverse."""
    s = np.arange(S)[:, None]
    return np.where(s < lengths, lengths - 1 - s, s)


class _Encoded(NamedTuple):
    memory: np.ndarray  # (S, B, M): U_s
    state0: tuple  # the decoder's starting state, (h0,) or (h0, c0), each (B, H)
    records: dict  # the engines' records: "enc", and "rev" (bidirectional)
    bridge_in: np.ndarray | None  # [h->_{S_b}; h<-_1], (B, 2H) (bidirectional)
    reversal: np.ndarray | None  # _reversal's positions (bidirectional)


def _encode(params, cfg, batch, engine, for_backward=True):
    S, B = batch.src.shape
    cols, last = np.arange(B), batch.src_lengths - 1
    zeros = tuple(np.zeros((B, cfg.hidden_size), params["W_yh"].dtype) for _ in CELLS[cfg.cell].STATE_NAMES)
    x = params["E_src"][batch.src]  # x~_s = E_src[x_s]: the one-hot product as a row lookup, (S, B, E)
    rec, h_f = _run(engine, _layer(params, cfg.cell, "enc"), x, zeros, "enc", for_backward)
    records, bridge_in, rev = {"enc": rec}, None, None
    if cfg.bidirectional:
        rev = _reversal(batch.src_lengths, S)
        x_rev = params["E_src"][batch.src[rev, cols]]  # each row's real tokens reversed
        records["rev"], h_r = _run(engine, _layer(params, cfg.cell, "rev"), x_rev, zeros, "rev", for_backward)
        h_r = h_r[rev, cols]  # h<-_s back at the position it read
        memory = np.concatenate([h_f, h_r], axis=-1)  # U_s = [h->_s; h<-_s], (S, B, 2H)
        bridge_in = np.concatenate([h_f[last, cols], h_r[0]], axis=-1)  # [h->_{S_b}; h<-_1], (B, 2H)
        h0 = np.tanh(bridge_in @ params["W_b"].T + params["b_b"])  # the bridge: (B, 2H) @ (2H, H)
    else:
        memory, h0 = h_f, h_f[last, cols]  # the state after each row's last real token
    state0 = (h0,) + tuple(np.zeros_like(h0) for _ in zeros[1:])  # an LSTM's c_0 = 0
    return _Encoded(memory, state0, records, bridge_in, rev)


# -- attention, batch-first: queries (B, T, H), memory (B, S, M) -----------------------------------


def _keys(params, cfg, memory_b):
    """What the scores read from the memory: U_s (dot), W_k U_s (dot, bidirectional; additive)."""
    if cfg.attention == "dot" and not cfg.bidirectional:
        return memory_b
    return memory_b @ params["W_k"].T  # (B, S, M) @ (M, H) -> (B, S, H)


def _attend(params, cfg, queries, memory_b, keys, src_mask, pieces=None):
    """alpha (B, T, S), the context psi (B, T, M), phi (B, T, H) and the additive score's tanh zeta, Z (B, T, S, H).
    pieces: with an "attention_forward", alpha and psi come from it, one step t at a time (dot, M = H)."""
    Z = None
    if pieces and "attention_forward" in pieces:
        steps = [pieces["attention_forward"](queries[:, t], memory_b, src_mask) for t in range(queries.shape[1])]
        alpha = np.stack([np.asarray(a, dtype=memory_b.dtype) for a, _ in steps], axis=1)  # (B, T, S)
        context = np.stack([np.asarray(c, dtype=memory_b.dtype) for _, c in steps], axis=1)  # (B, T, H)
        h_tilde = np.tanh(np.concatenate([context, queries], axis=-1) @ params["W_c"].T + params["b_c"])
        return alpha, context, h_tilde, Z
    if cfg.attention == "dot":
        scores = queries @ keys.transpose(0, 2, 1)  # h_t . k_s: (B, T, H) @ (B, H, S) -> (B, T, S)
    else:
        q = queries @ params["W_q"].T  # W_q h_t, (B, T, H)
        Z = np.tanh(q[:, :, None, :] + keys[:, None, :, :])  # tanh(W_q h_t + W_k U_s), (B, T, S, H)
        scores = Z @ params["v"]  # w . zeta_ts, (B, T, S)
    scores = np.where(src_mask[:, None, :], scores, -np.inf)  # the mask, before the softmax
    alpha = softmax(scores, axis=-1)  # exp(-inf) = 0: exactly 0 at the pads
    context = alpha @ memory_b  # psi_t = sum_s alpha_ts U_s: (B, T, S) @ (B, S, M) -> (B, T, M)
    h_tilde = np.tanh(np.concatenate([context, queries], axis=-1) @ params["W_c"].T + params["b_c"])
    return alpha, context, h_tilde, Z


def _attend_backward(params, cfg, dh_tilde, queries, memory_b, keys, cache, pieces=None):
    """Back through the attentional layer and attention: (grads, dqueries (B, T, H), dmemory (B, S, M)).
    pieces: with an "attention_backward", dqueries and dmemory come from it, one step t at a time (dot, M = H)."""
    alpha, context, h_tilde, Z = cache
    M, grads = memory_b.shape[-1], {}
    delta = dh_tilde * (1.0 - h_tilde**2)  # back through tanh: (B, T, H)
    z = np.concatenate([context, queries], axis=-1)  # [psi_t; h_t]
    grads["W_c"] = delta.reshape(-1, delta.shape[-1]).T @ z.reshape(-1, z.shape[-1])  # (H, B·T) @ (B·T, M + H)
    grads["b_c"] = delta.sum(axis=(0, 1))
    dz = delta @ params["W_c"]  # (B, T, H) @ (H, M + H)
    dcontext, dqueries = dz[..., :M], dz[..., M:].copy()
    if pieces and "attention_backward" in pieces:  # dot attention, keys = memory: the step's (dh_t, dU)
        dmemory = np.zeros_like(memory_b)
        for t in range(queries.shape[1]):
            dh_t, du_t = pieces["attention_backward"](dcontext[:, t], queries[:, t], memory_b, alpha[:, t])
            dqueries[:, t] += np.asarray(dh_t)
            dmemory += np.asarray(du_t)
        return grads, dqueries, dmemory
    dmemory = alpha.transpose(0, 2, 1) @ dcontext  # psi_t = sum_s alpha_ts U_s: (B, S, T) @ (B, T, M)
    dalpha = dcontext @ memory_b.transpose(0, 2, 1)  # dpsi_t . U_s, (B, T, S)
    dscores = alpha * (dalpha - (alpha * dalpha).sum(axis=-1, keepdims=True))  # back through softmax; 0 at pads
    if cfg.attention == "dot":
        dqueries += dscores @ keys  # (B, T, S) @ (B, S, H)
        dkeys = dscores.transpose(0, 2, 1) @ queries  # (B, S, T) @ (B, T, H)
    else:
        dZ = dscores[..., None] * params["v"] * (1.0 - Z**2)  # back through v . tanh(.), (B, T, S, H)
        grads["v"] = np.einsum("btsa,bts->a", Z, dscores)
        dq = dZ.sum(axis=2)  # W_q h_t meets every s: (B, T, H)
        dkeys = dZ.sum(axis=1)  # W_k U_s meets every t: (B, S, H)
        grads["W_q"] = dq.reshape(-1, dq.shape[-1]).T @ queries.reshape(-1, queries.shape[-1])
        dqueries += dq @ params["W_q"]
    if cfg.attention == "dot" and not cfg.bidirectional:
        dmemory += dkeys
    else:
        grads["W_k"] = dkeys.reshape(-1, dkeys.shape[-1]).T @ memory_b.reshape(-1, M)  # (H, B*S) @ (B*S, M)
        dmemory += dkeys @ params["W_k"]
    return grads, dqueries, dmemory


# -- the whole model ------------------------------------------------------------------------------


def _forward(params, cfg, batch, engine, for_backward=True, pieces=None):
    """Encoder, decoder and output for a checked batch; returns the pieces the backward pass needs."""
    enc = _encode(params, cfg, batch, engine, for_backward)
    y_emb = params["E_tgt"][batch.dec_in]  # y~_{t-1} = E_tgt[y_{t-1}], (T, B, E)
    rec_dec, h = _run(engine, _layer(params, cfg.cell, "dec"), y_emb, enc.state0, "dec", for_backward)
    queries = np.ascontiguousarray(h.transpose(1, 0, 2))  # h_t, batch-first (B, T, H)
    memory_b = np.ascontiguousarray(enc.memory.transpose(1, 0, 2))  # (B, S, M)
    out = {"enc": enc, "rec_dec": rec_dec, "queries": queries, "memory_b": memory_b, "top": queries}
    if cfg.attention is not None:
        out["keys"] = _keys(params, cfg, memory_b)
        out["attn"] = _attend(params, cfg, queries, memory_b, out["keys"], batch.src_mask, pieces)
        out["top"] = out["attn"][2]  # phi_t
    out["logits"] = output_logits(params, out["top"])  # o_t = W_yh phi_t + b_o, (B, T, V_tgt)
    return out


def _token_losses(logits, batch):
    """-log y_hat_t[y_t] at every (b, t), (B, T): 0 beyond the lengths."""
    logp = log_softmax(logits)
    y = batch.tgt.T
    nll = -np.take_along_axis(logp, y[..., None], axis=-1)[..., 0]
    return np.where(batch.tgt_mask.T, nll, 0.0)


def masked_loss_and_grad(o, y, lengths):
    """The mean cross-entropy over the real target tokens of a padded batch, and its gradient.

    o (B, T, V): logits; y (B, T) int: targets, row b real up to lengths[b] (B,), any id after;
    the real ones in 0..V-1. With m_bt = 1 for t < lengths[b], else 0 (t counts from 0 here; the notebooks
    count from 1 and write t <= T_b), and N = sum_b lengths[b]:

        L = (1 / N) sum_b sum_t m_bt (-log softmax(o_bt)[y_bt])
        dL/do_bt = m_bt (softmax(o_bt) - onehot(y_bt)) / N        exactly 0 at the pads

    Returns (loss, do): a float and an array of o's shape and dtype. Derived in
    notebooks/11-one-sequence-into-another.ipynb, section 3.
    """
    o = np.asarray(o)
    B, T, V = o.shape
    mask = np.arange(T) < np.asarray(lengths)[:, None]  # (B, T): True at real tokens
    N = int(mask.sum())
    real = np.where(mask, y, 0)[mask]  # the real targets, (N,) (whatever sits at the pads is never read)
    total, do_real = cross_entropy_and_grad(o[mask].copy(), real)  # sum of -log y_hat, (N, V)
    do = np.zeros_like(o)
    do[mask] = do_real / N  # the pads' rows stay 0
    return total / N, do


def loss_and_grads(params, src, src_lengths, tgt, tgt_lengths, *, fast=True, pieces=None):
    """The mean of -log P(y_t | y_<t, x) over the real target tokens, and its exact gradient.

    params: from ``init_params`` (float32 or float64, computed in that dtype).
    src (B, S) int: source ids, row b real up to src_lengths[b] (B,), anything after.
    tgt (B, T) int: y_1 .. y_{T_b} (ending in EOS), real up to tgt_lengths[b]; the decoder reads
      BOS, y_1 .. y_{T_b - 1} (teacher forcing).
    fast: the cells' fast engines (default) or their reference loops: the same numbers.
    pieces: None, or a dict of functions to use instead of rnn_core's (``PIECES``: here
      masked_loss_and_grad, attention_forward, attention_backward; see the module's docstring).
    Returns (loss, grads): loss = (1/N) sum over the N real target tokens of -log y_hat_t[y_t], a
    float; grads a dict keyed like params. Entries beyond the lengths change neither.
    """
    cfg = check_params(params)
    pieces = _check_pieces(pieces, cfg)
    batch = _batch(cfg, src, src_lengths, tgt, tgt_lengths)
    engine = _engine(cfg.cell, fast)
    out = _forward(params, cfg, batch, engine, pieces=pieces)
    B, T, Vt = out["logits"].shape
    # dL/do_t = (y_hat_t - onehot(y_t)) / N at the real tokens, exactly 0 at the pads
    loss_and_grad = pieces.get("masked_loss_and_grad", masked_loss_and_grad)
    loss, do = loss_and_grad(out["logits"], batch.tgt.T, batch.tgt_mask.sum(axis=0))
    loss, do = float(loss), np.asarray(do, dtype=out["logits"].dtype)
    do = do.reshape(-1, Vt)
    top = out["top"].reshape(-1, out["top"].shape[-1])
    dW_yh, db_o, dtop = output_backward(params, top, do)  # over all B·T positions, pads included
    grads, dtop = {"W_yh": dW_yh, "b_o": db_o}, dtop.reshape(B, T, -1)  # W_yh^T do_t, (B, T, H)
    memory_b = out["memory_b"]
    if cfg.attention is None:
        dqueries, dmemory = dtop, np.zeros_like(memory_b)
    else:
        g, dqueries, dmemory = _attend_backward(
            params, cfg, dtop, out["queries"], memory_b, out["keys"], out["attn"], pieces
        )
        grads.update(g)
    # the decoder, and the embeddings it read
    g, dy_emb, dstate0 = _back(engine, out["rec_dec"], np.ascontiguousarray(dqueries.transpose(1, 0, 2)))
    grads.update((f"{n}_dec", a) for n, a in g.items())
    E = params["E_tgt"].shape[1]
    grads["E_tgt"] = input_weight_grad(dy_emb.reshape(-1, E).T, batch.dec_in, cfg.tgt_vocab_size).T  # row y gets dy~
    # the encoder: what reaches U_s from attention, and its last state from the decoder's start
    enc, H = out["enc"], cfg.hidden_size
    cols, last = np.arange(B), batch.src_lengths - 1
    dmemory = dmemory.transpose(1, 0, 2)  # (S, B, M)
    dh_f = np.ascontiguousarray(dmemory[..., :H])
    dh0 = dstate0[0]  # an LSTM's dc_0 goes nowhere: c_0 = 0 is a constant
    if cfg.bidirectional:
        delta = dh0 * (1.0 - enc.state0[0] ** 2)  # back through the bridge's tanh, (B, H)
        grads["W_b"], grads["b_b"] = delta.T @ enc.bridge_in, delta.sum(axis=0)
        dbridge = delta @ params["W_b"]  # (B, 2H)
        dh_f[last, cols] += dbridge[:, :H]
        dh_r = np.ascontiguousarray(dmemory[..., H:])
        dh_r[0] += dbridge[:, H:]
        dh_r = dh_r[enc.reversal, cols]  # back into the reverse pass's order (the reversal is its own inverse)
        g, dx_r, _ = _back(engine, enc.records["rev"], dh_r)
        grads.update((f"{n}_rev", a) for n, a in g.items())
    else:
        dh_f[last, cols] += dh0
    g, dx, _ = _back(engine, enc.records["enc"], dh_f)
    grads.update((f"{n}_enc", a) for n, a in g.items())
    E = params["E_src"].shape[1]
    dE_src = input_weight_grad(dx.reshape(-1, E).T, batch.src, cfg.src_vocab_size)  # (E, V_src)
    if cfg.bidirectional:  # the two passes' gradients meet in the shared embedding
        src_rev = batch.src[enc.reversal, cols]
        dE_src += input_weight_grad(dx_r.reshape(-1, E).T, src_rev, cfg.src_vocab_size)
    grads["E_src"] = dE_src.T
    return loss, {name: grads[name] for name in param_names(cfg.cell, cfg.attention, cfg.bidirectional)}


def forward(params, src, src_lengths, tgt, tgt_lengths=None, *, fast=True):
    """The teacher-forced forward pass, every intermediate batch-first, as a dict:

    memory (B, S, M): U_s; h (B, T, H): the decoder's h_t; with attention, alpha (B, T, S),
    context (B, T, M) and h_tilde (B, T, H); logits and y_hat (B, T, V_tgt); token_loss (B, T),
    -log y_hat_t[y_t] (0 beyond the lengths); loss, their mean over the real tokens.
    tgt_lengths None: every entry of tgt is real.
    """
    cfg = check_params(params)
    batch = _batch(cfg, src, src_lengths, tgt, tgt_lengths)
    out = _forward(params, cfg, batch, _engine(cfg.cell, fast), for_backward=False)
    result = {"memory": out["memory_b"], "h": out["queries"], "logits": out["logits"]}
    if cfg.attention is not None:
        result.update(zip(("alpha", "context", "h_tilde"), out["attn"][:3]))
    result["y_hat"] = softmax(out["logits"])
    result["token_loss"] = _token_losses(out["logits"], batch)
    result["loss"] = float(result["token_loss"].sum() / batch.tgt_mask.sum())
    return result


def sequence_log_probs(params, src, src_lengths, tgt, tgt_lengths=None):
    """log P(y | x) of each row, (B,): the sum of log y_hat_t[y_t] over its real target tokens."""
    return -forward(params, src, src_lengths, tgt, tgt_lengths)["token_loss"].sum(axis=1)


def attention_weights(params, src, src_lengths, tgt, tgt_lengths=None):
    """The attention weights alpha (B, T, S) of the teacher-forced decoder reading BOS, tgt[:, :-1]:
    each row alpha[b, t] sums to 1 and is exactly 0 at the padded source positions."""
    if check_params(params).attention is None:
        raise ValueError("params have no attention: build them with init_params(..., attention='additive' or 'dot')")
    return forward(params, src, src_lengths, tgt, tgt_lengths)["alpha"]


def encode(params, src, src_lengths):
    """The encoder alone: {"memory": (B, S, M), "h0": the decoder's starting h (B, H)} (and "c0" for an LSTM)."""
    cfg = check_params(params)
    enc = _encode(params, cfg, _batch(cfg, src, src_lengths), _engine(cfg.cell, True), for_backward=False)
    out = {"memory": np.ascontiguousarray(enc.memory.transpose(1, 0, 2)), "h0": enc.state0[0]}
    if cfg.cell == "lstm":
        out["c0"] = enc.state0[1]
    return out


# -- decoding: one step of the decoder at a time ------------------------------------------------


class _Source(NamedTuple):
    """What every decoding step reads from the encoder, batch-first: R rows, one per sequence being decoded."""

    memory: np.ndarray  # (R, S, M)
    keys: np.ndarray | None  # (R, S, H)
    mask: np.ndarray  # (R, S)

    def take(self, rows):
        return _Source(self.memory[rows], None if self.keys is None else self.keys[rows], self.mask[rows])


def _decoder_step(params, cfg, source, y_prev, state, pieces=None):
    """Read y_prev (R,) from ``state``: (log y_hat (R, V_tgt), the new state). The cell's own step.
    R rows, one per sequence being decoded (a source's in greedy decoding, a live prefix's in a beam).
    PAD and BOS get log y_hat = -inf: the markers are never an output (the other tokens keep the
    model's own log-probabilities, as ``sequence_log_probs`` gives them)."""
    engine = CELLS[cfg.cell].REFERENCE
    state, _ = engine.step(_layer(params, cfg.cell, "dec"), params["E_tgt"][y_prev], state)
    top = state[0]
    if cfg.attention is not None:
        q = top[:, None, :]  # one query per row, (R, 1, H)
        top = _attend(params, cfg, q, source.memory, source.keys, source.mask, pieces)[2][:, 0]
    log_y_hat = log_softmax(output_logits(params, top))
    log_y_hat[:, [PAD, BOS]] = -np.inf
    return log_y_hat, state


def _start(params, cfg, src, src_lengths, name="src"):
    batch = _batch(cfg, src, src_lengths, name=name)
    enc = _encode(params, cfg, batch, _engine(cfg.cell, True), for_backward=False)
    memory = np.ascontiguousarray(enc.memory.transpose(1, 0, 2))
    keys = None if cfg.attention is None else _keys(params, cfg, memory)
    return _Source(memory, keys, batch.src_mask), enc.state0


def greedy_decode(params, src, src_lengths, max_len, *, pieces=None):
    """The most probable next token at each step, from BOS, until EOS or ``max_len`` tokens.

    src (B, S), src_lengths (B,): as for ``loss_and_grads``. Returns a list of B lists of ids, each
    ending in the EOS that stopped it (included), or max_len ids long without EOS if none came.
    pieces: None, or a dict of functions to use instead of rnn_core's (here attention_forward).
    """
    cfg = check_params(params)
    pieces = _check_pieces(pieces, cfg)
    max_len = check_int(max_len, "max_len")
    source, state = _start(params, cfg, src, src_lengths)
    B = len(source.mask)
    y, done, out = np.full(B, BOS), np.zeros(B, bool), [[] for _ in range(B)]
    for _ in range(max_len):
        logp, state = _decoder_step(params, cfg, source, y, state, pieces)
        y = logp.argmax(axis=1)  # the first of equal maxima, as beam_search ranks them
        for b in np.flatnonzero(~done):
            out[b].append(int(y[b]))
        done |= y == EOS
        if done.all():
            break
    return out


def beam_step(log_p, log_probs, beam_size):
    """One step of beam search: the beam_size most probable one-token extensions of the live prefixes.

    log_p (R,): log P(y_<t | x) of each of the R live prefixes; log_probs (R, V): log y_hat_t, the
    decoder's log-probabilities of every next token after each prefix (-inf allowed: a token that
    is never an output). Every extension (k, j) has

        log P(y_<t, j | x) = log_p[k] + log_probs[k, j]

    and the R * V of them are ranked by it, highest first (ties: the earlier prefix, then the lower
    token id). Returns (rows, tokens, scores), three arrays of min(beam_size, R * V) entries in
    that order: the prefix each extends (ints in 0..R-1), its new token (ints in 0..V-1), and its
    log P. Derived in notebooks/11-one-sequence-into-another.ipynb, section 6 (where K is the beam
    size and R <= K the live prefixes' count).
    """
    log_probs = np.asarray(log_probs)
    R, V = log_probs.shape
    cand = (np.asarray(log_p)[:, None] + log_probs).ravel()  # (R * V,): every extension's log P
    best = np.argsort(-cand, kind="stable")[:beam_size]  # stable: equal scores keep (k, j) order
    rows, tokens = np.divmod(best, V)
    return rows, tokens, cand[best]


def beam_search(params, src_row, beam_size, max_len, length_penalty=0.0, *, pieces=None):
    """An approximate arg max over outputs y of log P(y | x), with length normalisation.

    log P(y | x) = sum_t log y_hat_t[y_t] falls with every token, so ranking raw log-probabilities
    favours short outputs; a finished hypothesis y (its EOS counted in |y|) is ranked by

        score(y) = log P(y | x) / |y| ** length_penalty

    (0: raw log P; 1: the mean per token). The search keeps the ``beam_size`` best prefixes by
    log P: at each step every prefix is extended by every token, and of the R * V_tgt candidates (R <=
    beam_size live prefixes) the beam_size most probable are kept (ties: the earlier prefix, then the
    lower id); those ending in EOS, or reaching ``max_len`` tokens, are finished and leave the beam,
    and those of log P -inf (a token the decoder never outputs) are dropped. It stops
    when the beam is empty, after max_len tokens, or (length_penalty 0) when no live prefix is more
    probable than the best finished output, since extending a prefix only lowers its log P. With
    beam_size 1 it is ``greedy_decode``; with a beam wide enough to keep every prefix it is the exact
    arg max of the score over every output of at most max_len tokens.

    src_row (S,): one source sequence, every entry real. Returns (sequence, log_prob): the ids
    (EOS included, as greedy_decode) of the best finished output by score, and its log P(y | x).
    pieces: None, or a dict of functions to use instead of rnn_core's (beam_step, attention_forward).
    """
    cfg = check_params(params)
    pieces = _check_pieces(pieces, cfg)
    step = pieces.get("beam_step", beam_step)
    row = check_indices(src_row, "src_row", None, ndim=(1,), what="token ids", shape="(S,), one source sequence")
    beam_size = check_int(beam_size, "beam_size")
    max_len = check_int(max_len, "max_len")
    nu = check_number(length_penalty, "length_penalty", 0, include_low=True)
    source, state = _start(params, cfg, row[None, :], np.array([row.size]), "src_row")
    seqs, logps, finished = [[]], np.zeros(1), []  # the live prefixes and their log P; finished (score, log P, y)
    for t in range(max_len):
        y_prev = np.array([s[-1] if s else BOS for s in seqs])
        logp, state = _decoder_step(params, cfg, source.take(np.zeros(len(seqs), np.intp)), y_prev, state, pieces)
        # the beam_size most probable extensions
        rows, tokens, scores = (np.asarray(a) for a in step(logps, logp, beam_size))
        live, live_seqs = [], []
        for k, y, score in zip(rows.tolist(), tokens.tolist(), scores.tolist()):
            if score == -np.inf:  # an impossible output (PAD or BOS next, at -inf): not kept, not stepped
                continue
            seq = seqs[k] + [y]
            if y == EOS or t == max_len - 1:
                finished.append((score / len(seq) ** nu, score, seq))
            else:
                live.append((k, score))
                live_seqs.append(seq)
        if not live:
            break
        if nu == 0 and max(f[1] for f in finished or [(0, -np.inf)]) >= live[0][1]:
            break  # nothing live can overtake the best finished output: log P only falls
        state = tuple(s[np.array([k for k, _ in live])] for s in state)
        seqs, logps = live_seqs, np.array([score for _, score in live])
    best = max(finished, key=lambda f: f[0])  # the first found among equal scores
    return best[2], best[1]
