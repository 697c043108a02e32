"""rnn_core.seq2seq's ``pieces=``: training and decoding with given functions (a reader's exercises).

Right pieces, written plainly (tests/practice_answers.py, one row and one step at a time), give the
numbers of rnn_core's own code up to rounding: the loss, every gradient, greedy decoding and beam
search. A wrong piece changes them, so the hook is not bypassed; bad pieces are clear errors.
"""

import numpy as np
import pytest
from practice_answers import PLAIN

from rnn_core import adam_init, adam_update, clip_global_norm, dates, rel_error
from rnn_core import seq2seq as s2s
from rnn_core.gradcheck import GRADCHECK_TOL, numerical_gradient

ALL = {
    name: PLAIN[key]
    for name, key in zip(
        s2s.PIECES, ("seq2seq.masked_loss_and_grad", "attention_forward", "attention_backward", "seq2seq.beam_step")
    )
}
TRAINING = {k: ALL[k] for k in ("masked_loss_and_grad", "attention_forward", "attention_backward")}


def batch(n=5, seed=0):
    pairs = dates.make_pairs(n, seed=seed)
    src, src_lengths = dates.encode_batch([w for w, _ in pairs], dates.SRC_VOCAB)
    tgt, tgt_lengths = dates.encode_batch([i for _, i in pairs], dates.TGT_VOCAB, add_eos=True)
    return src, src_lengths, tgt, tgt_lengths


def model(cell="gru", attention="dot", bidirectional=False, H=6, seed=3):
    return s2s.init_params(
        len(dates.SRC_VOCAB), len(dates.TGT_VOCAB), H, cell=cell, attention=attention,
        bidirectional=bidirectional, embed_size=4, seed=seed,
    )  # fmt: skip


@pytest.mark.parametrize("cell", list(s2s.CELLS))
@pytest.mark.parametrize("names", [tuple(TRAINING), ("masked_loss_and_grad",), ("attention_backward",)])
def test_right_pieces_give_rnn_cores_loss_and_gradients(cell, names):
    params, data = model(cell), batch()
    loss, grads = s2s.loss_and_grads(params, *data)
    loss_p, grads_p = s2s.loss_and_grads(params, *data, pieces={k: TRAINING[k] for k in names})
    assert loss_p == pytest.approx(loss, rel=1e-13)
    assert max(rel_error(grads_p[k], grads[k]) for k in grads) < 1e-12


def test_the_pieces_gradient_against_finite_differences():
    params, data = model("rnn", H=3), batch(3)

    def loss():
        return s2s.loss_and_grads(params, *data, pieces=TRAINING)[0]

    _, grads = s2s.loss_and_grads(params, *data, pieces=TRAINING)
    assert max(rel_error(grads[k], numerical_gradient(loss, params[k])) for k in params) < GRADCHECK_TOL


def test_each_piece_is_called_and_a_wrong_one_changes_the_result():
    params, data = model(), batch()
    calls = dict.fromkeys(TRAINING, 0)

    def counted(name):
        def fn(*args):
            calls[name] += 1
            return TRAINING[name](*args)

        return fn

    s2s.loss_and_grads(params, *data, pieces={k: counted(k) for k in TRAINING})
    T = data[2].shape[1]
    assert calls == {"masked_loss_and_grad": 1, "attention_forward": T, "attention_backward": T}

    def no_softmax_step(dcontext, h, u, alpha):  # the Jacobian left out: a published mistake's kind
        dalpha = np.einsum("bsh,bh->bs", u, dcontext)
        return np.einsum("bs,bsh->bh", dalpha, u), alpha[..., None] * dcontext[:, None] + dalpha[..., None] * h[:, None]

    _, right = s2s.loss_and_grads(params, *data)
    _, wrong = s2s.loss_and_grads(params, *data, pieces={"attention_backward": no_softmax_step})
    assert rel_error(wrong["W_h_enc"], right["W_h_enc"]) > 1e-3


def test_decoding_with_right_pieces_gives_the_same_outputs():
    params, (src, src_lengths, _, _) = model(H=8), batch(6)
    greedy = s2s.greedy_decode(params, src, src_lengths, 12)
    assert (
        s2s.greedy_decode(params, src, src_lengths, 12, pieces={"attention_forward": ALL["attention_forward"]})
        == greedy
    )
    for b in range(3):
        row = src[b, : src_lengths[b]]
        seq, log_p = s2s.beam_search(params, row, 3, 12)
        seq_p, log_p_p = s2s.beam_search(params, row, 3, 12, pieces=ALL)
        assert seq_p == seq and log_p_p == pytest.approx(log_p, abs=1e-12)


def test_training_with_right_pieces_follows_rnn_cores_run():
    """20 steps of Adam from the same seed: the two loss curves differ by rounding only."""
    curves = []
    for pieces in (None, TRAINING):
        params = model(H=8)
        state, losses = adam_init(params), []
        for step in range(20):
            loss, grads = s2s.loss_and_grads(params, *batch(8, seed=step), pieces=pieces)
            grads, _ = clip_global_norm(grads, 5.0)
            params, state = adam_update(params, grads, state, lr=0.01)
            losses.append(loss)
        curves.append(np.array(losses))
    assert np.abs(curves[0] - curves[1]).max() < 1e-10


def test_bad_pieces_are_clear_errors():
    params, data = model(), batch(2)
    with pytest.raises(TypeError, match="pieces must be a dict"):
        s2s.loss_and_grads(params, *data, pieces=[ALL["beam_step"]])
    with pytest.raises(ValueError, match="no use for 'softmax'"):
        s2s.loss_and_grads(params, *data, pieces={"softmax": np.exp})
    with pytest.raises(TypeError, match=r"pieces\['beam_step'\] must be a function"):
        s2s.beam_search(params, data[0][0, : data[1][0]], 2, 5, pieces={"beam_step": 3})
    for kind in (dict(attention="additive"), dict(attention=None), dict(bidirectional=True)):
        with pytest.raises(ValueError, match="attention='dot' and bidirectional=False"):
            s2s.loss_and_grads(model(**kind), *data, pieces={"attention_forward": ALL["attention_forward"]})
    # the loss and beam pieces serve every kind of model
    s2s.loss_and_grads(
        model(attention="additive", bidirectional=True),
        *data,
        pieces={"masked_loss_and_grad": ALL["masked_loss_and_grad"]},
    )
