"""Dot-product attention for one decoder step over a batch, forward and backward.

Derived in notebooks/12-attention.ipynb, sections 2 and 3. For each row b of the batch, a
query h (H,) (the decoder's state h_t), a memory u_1 .. u_S (S, H) (the encoder's states) and
a mask, True at the S_b real positions and False at the pads (anywhere in the row):

    score_s = h . u_s                                   (S,)  Luong et al. 2015's dot score
    alpha   = softmax(score with -inf at the pads)      (S,)  sums to 1, exactly 0 at the pads
    context = sum_s alpha_s u_s                         (H,)

and back, from dcontext = dL/dcontext (the only way the loss reaches alpha in the model):

    dalpha_s = dcontext . u_s
    dscore_s = alpha_s (dalpha_s - sum_s' alpha_s' dalpha_s')      01's softmax Jacobian, J^T dalpha
    dh       = sum_s dscore_s u_s
    du_s     = alpha_s dcontext + dscore_s h                     through the context and the score

dscore is exactly 0 at the pads (alpha is), so nothing reaches a padded u_s. rnn_core.seq2seq
computes the same for every step at once (its ``attention="dot"``), with the additive score as
well; tests/test_attention.py compares their weights and contexts, tests/test_seq2seq_pieces.py
their gradients.
"""

from __future__ import annotations

import numpy as np

from .functions import softmax

__all__ = ["attention_forward", "attention_backward"]


def _check(h, u, mask=None):
    h, u = np.asarray(h), np.asarray(u)
    if h.ndim != 2 or u.ndim != 3 or u.shape[0] != h.shape[0] or u.shape[2] != h.shape[1]:
        raise ValueError(f"h must be (B, H) and u (B, S, H) with the same B and H, got {h.shape} and {u.shape}")
    if mask is not None:
        mask = np.asarray(mask)
        if mask.dtype != bool or mask.shape != u.shape[:2]:
            raise ValueError(f"mask must be booleans of shape {u.shape[:2]} (B, S), got {mask.dtype} {mask.shape}")
        if not mask.any(axis=1).all():
            raise ValueError("every row of mask needs at least one True: a row with no real position")
    return h, u, mask


def attention_forward(h, u, mask):
    """One step of dot-product attention: (alpha, context).

    h (B, H): the queries, the decoder's h_t of each row; u (B, S, H): the memory, the
    encoder's states; mask (B, S) booleans, True at the real positions (at least one per row).
    Returns alpha (B, S), the weights (each row sums to 1, exactly 0 where mask is False), and
    context (B, H) = sum_s alpha_s u_s. Derived in notebooks/12-attention.ipynb, sections 2 and 3 (the mask).
    """
    h, u, mask = _check(h, u, mask)
    scores = (u @ h[:, :, None])[..., 0]  # h . u_s: (B, S, H) @ (B, H, 1) -> (B, S)
    scores = np.where(mask, scores, -np.inf)  # the mask, before the softmax
    alpha = softmax(scores, axis=-1)  # exp(-inf) = 0: exactly 0 at the pads
    context = (alpha[:, None, :] @ u)[:, 0]  # sum_s alpha_s u_s: (B, 1, S) @ (B, S, H) -> (B, H)
    return alpha, context


def attention_backward(dcontext, h, u, alpha):
    """Back through ``attention_forward``: (dh, du).

    dcontext (B, H): dL/dcontext; h (B, H), u (B, S, H): the forward pass's inputs; alpha (B, S):
    its weights (0 at the pads). Returns dh (B, H) and du (B, S, H). Derived in
    notebooks/12-attention.ipynb, sections 2 and 3.
    """
    h, u, _ = _check(h, u)
    dalpha = (u @ dcontext[:, :, None])[..., 0]  # dcontext . u_s, (B, S)
    dscores = alpha * (dalpha - (alpha * dalpha).sum(axis=1, keepdims=True))  # back through softmax
    dh = (dscores[:, None, :] @ u)[:, 0]  # sum_s dscore_s u_s, (B, H)
    du = alpha[:, :, None] * dcontext[:, None, :] + dscores[:, :, None] * h[:, None, :]  # (B, S, H)
    return dh, du
