"""rnn_core.seq2seq and rnn_core.dates: gradients against finite differences, the masks, decoding, bad input.

The gradient check runs every cell x attention x direction on a tiny batch of unequal lengths in
float64; the decoders are checked against each other (beam_size 1 is greedy) and against the exact
arg max, found by enumerating every output of a tiny problem.
"""

import datetime
import itertools

import numpy as np
import pytest

from rnn_core import adam_init, adam_update, dates, rel_error
from rnn_core import seq2seq as s2s
from rnn_core.gradcheck import GRADCHECK_TOL, numerical_gradient

KINDS = list(itertools.product(s2s.CELLS, s2s.ATTENTIONS, (False, True)))
IDS = [f"{c}-{a}-{'bi' if b else 'uni'}" for c, a, b in KINDS]
V_SRC, V_TGT, H, E = 6, 5, 3, 2


def tiny_batch(seed=0):
    """B = 3 rows of unequal lengths, real ids >= 3 (never PAD, BOS or EOS), each target ending in EOS."""
    rng = np.random.default_rng(seed)
    src_lengths, tgt_lengths = np.array([4, 2, 3]), np.array([2, 3, 1])
    src = rng.integers(3, V_SRC, (3, 4))
    tgt = rng.integers(3, V_TGT, (3, 3))
    tgt[np.arange(3), tgt_lengths - 1] = s2s.EOS
    src[np.arange(4) >= src_lengths[:, None]] = s2s.PAD
    tgt[np.arange(3) >= tgt_lengths[:, None]] = s2s.PAD
    return src, src_lengths, tgt, tgt_lengths


def params_of(kind, seed=1):
    cell, attention, bidirectional = kind
    return s2s.init_params(
        V_SRC, V_TGT, H, cell=cell, attention=attention, bidirectional=bidirectional, embed_size=E, seed=seed
    )


def well_conditioned(params):
    """The parameters at a point where no gradient is near zero, so that central differences
    (whose roundoff is about 1e-16 |L| / eps) can judge every array: at the initial point the
    additive score's W_q gets a gradient of norm ~1e-7 (the keys barely differ, and W_q h_t is
    added to every one of them, so only their differences count), which roundoff swamps. Larger
    embeddings and key weights spread the keys apart."""
    params = {k: a.copy() for k, a in params.items()}
    params["E_src"] *= 3
    params["E_tgt"] *= 3
    if "W_k" in params:
        params["W_k"] *= 6 if "v" in params else 12
    if "v" in params:
        params["v"] *= 3
    return params


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_every_gradient_matches_finite_differences(kind):
    """Central differences in float64 (eps 1e-5) on every entry of every parameter, each array's
    rel_error (the house's: one number per array) below GRADCHECK_TOL, 1e-7. The largest measured
    over the 18 models: 5.6e-8 (lstm, dot, bidirectional: W_k); most are below 1e-8."""
    params, batch = well_conditioned(params_of(kind)), tiny_batch()
    loss, grads = s2s.loss_and_grads(params, *batch)
    assert list(grads) == list(s2s.param_names(*kind)) == list(params)
    errors = {}
    for name in params:
        numeric = numerical_gradient(lambda: s2s.forward(params, *batch)["loss"], params[name])
        errors[name] = rel_error(grads[name], numeric)
    worst = max(errors, key=errors.get)
    print(f"{'-'.join(map(str, kind))}: max rel_error {errors[worst]:.1e} ({worst})")
    assert errors[worst] < GRADCHECK_TOL, errors


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_fast_engines_give_the_reference_loops_numbers(kind):
    params, batch = params_of(kind), tiny_batch()
    loss, grads = s2s.loss_and_grads(params, *batch)
    loss_ref, grads_ref = s2s.loss_and_grads(params, *batch, fast=False)
    assert abs(loss - loss_ref) < 1e-14
    for name in grads:
        assert np.max(np.abs(grads[name] - grads_ref[name])) < 1e-13, name


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_pads_change_nothing_and_get_no_gradient(kind):
    """Random ids (even outside the vocabulary) beyond the lengths: the same loss and gradients, bit
    for bit; and the PAD rows of both embeddings, read only at pads here, get exactly zero."""
    params, (src, sl, tgt, tl) = params_of(kind), tiny_batch()
    loss, grads = s2s.loss_and_grads(params, src, sl, tgt, tl)
    rng = np.random.default_rng(5)
    src2, tgt2 = src.copy(), tgt.copy()
    src_pads, tgt_pads = np.arange(4) >= sl[:, None], np.arange(3) >= tl[:, None]
    src2[src_pads] = rng.integers(-50, 50, src_pads.sum())
    tgt2[tgt_pads] = rng.integers(-50, 50, tgt_pads.sum())
    loss2, grads2 = s2s.loss_and_grads(params, src2, sl, tgt2, tl)
    assert loss2 == loss
    for name in grads:
        assert np.array_equal(grads[name], grads2[name]), name
    assert not grads["E_src"][s2s.PAD].any() and not grads["E_tgt"][s2s.PAD].any()


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_the_loss_is_the_mean_over_real_tokens_of_minus_log_p(kind):
    """Row by row, each alone and unpadded: the batch's loss is the token-weighted mean of theirs."""
    params, (src, sl, tgt, tl) = params_of(kind), tiny_batch()
    loss, _ = s2s.loss_and_grads(params, src, sl, tgt, tl)
    total = 0.0
    for b in range(3):
        row_loss, _ = s2s.loss_and_grads(
            params, src[b : b + 1, : sl[b]], sl[b : b + 1], tgt[b : b + 1, : tl[b]], tl[b : b + 1]
        )
        total += row_loss * tl[b]
    assert abs(loss - total / tl.sum()) < 1e-14
    log_p = s2s.sequence_log_probs(params, src, sl, tgt, tl)
    assert abs(-log_p.sum() / tl.sum() - loss) < 1e-14


@pytest.mark.parametrize("kind", [k for k in KINDS if k[1]], ids=[i for k, i in zip(KINDS, IDS) if k[1]])
def test_attention_rows_sum_to_one_and_are_zero_at_pads(kind):
    params, (src, sl, tgt, tl) = params_of(kind), tiny_batch()
    alpha = s2s.attention_weights(params, src, sl, tgt, tl)
    assert alpha.shape == (3, 3, 4)
    assert np.allclose(alpha.sum(axis=-1), 1.0, atol=1e-15, rtol=0)
    pads = np.broadcast_to((np.arange(4) >= sl[:, None])[:, None, :], alpha.shape)
    assert np.all(alpha[pads] == 0.0) and np.all(alpha[~pads] > 0.0)


def test_attention_weights_need_attention():
    with pytest.raises(ValueError, match="no attention"):
        s2s.attention_weights(params_of(("gru", None, False)), *tiny_batch()[:3])


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_beam_of_one_is_greedy_and_a_wider_beam_is_no_worse_here(kind):
    """beam_size 1 gives greedy_decode's output and log P; beam 4 finds one at least as probable on
    these seeds (not a theorem: a beam can lose the greedy path; over these cases it never does)."""
    params, (src, sl, _, _) = params_of(kind, seed=3), tiny_batch(1)
    params["W_yh"] = params["W_yh"] * 4  # sharper, less uniform outputs
    greedy = s2s.greedy_decode(params, src, sl, max_len=6)
    for b in range(3):
        row = src[b, : sl[b]]
        seq, log_p = s2s.beam_search(params, row, beam_size=1, max_len=6)
        assert seq == greedy[b]
        assert seq[-1] == s2s.EOS or len(seq) == 6
        assert abs(log_p - s2s.sequence_log_probs(params, row[None], [len(row)], [seq])[0]) < 1e-12
        _, log_p4 = s2s.beam_search(params, row, beam_size=4, max_len=6)
        assert log_p4 >= log_p - 1e-12


def every_output(V, max_len):
    """Every complete output of at most max_len tokens: ending in EOS, or max_len long without it."""
    words = [t for t in range(V) if t not in (s2s.EOS, s2s.PAD, s2s.BOS)]  # the markers are never output
    for n in range(max_len):
        for head in itertools.product(words, repeat=n):
            yield [*head, s2s.EOS]
    yield from (list(w) for w in itertools.product(words, repeat=max_len))


@pytest.mark.parametrize("cell,attention", [("gru", "additive"), ("lstm", "dot"), ("rnn", None)])
@pytest.mark.parametrize("length_penalty", [0.0, 1.0])
def test_a_wide_beam_finds_the_exact_arg_max(cell, attention, length_penalty):
    """V_tgt = 6 (three tokens besides PAD, BOS and EOS) and max_len 3: every output enumerated, the
    best by log P / |y| ** length_penalty found exhaustively, and a beam of 6 ** 3 equals it."""
    V, max_len = 6, 3
    params = s2s.init_params(5, V, 4, cell=cell, attention=attention, seed=7)
    params["W_yh"] *= 3  # sharper distributions, so that the arg max is not a near tie
    row = np.array([3, 4, 3, 4])
    outputs = list(every_output(V, max_len))
    width = max(map(len, outputs))
    tgt = np.array([y + [s2s.PAD] * (width - len(y)) for y in outputs])
    src = np.repeat(row[None], len(outputs), axis=0)
    log_p = s2s.sequence_log_probs(params, src, np.full(len(outputs), 4), tgt, np.array([len(y) for y in outputs]))
    assert np.exp(log_p).sum() <= 1.0  # the rest is the model's mass on PAD and BOS, never output
    scores = log_p / np.array([len(y) for y in outputs]) ** length_penalty
    best = int(np.argmax(scores))
    seq, got = s2s.beam_search(params, row, beam_size=V**max_len, max_len=max_len, length_penalty=length_penalty)
    assert seq == outputs[best] and abs(got - log_p[best]) < 1e-12


def test_greedy_decode_stops_each_row_at_its_eos():
    params, (src, sl, _, _) = params_of(("gru", "dot", True)), tiny_batch()
    for seq in s2s.greedy_decode(params, src, sl, max_len=5):
        assert 1 <= len(seq) <= 5 and s2s.EOS not in seq[:-1]


# -- bad input -----------------------------------------------------------------------------------


def test_bad_arguments_raise_errors_that_name_them():
    params, (src, sl, tgt, tl) = params_of(("lstm", "additive", True)), tiny_batch()
    without_W_q = {k: a for k, a in params.items() if k != "W_q"}
    bad_src = src.copy()
    bad_src[0, 0] = 6
    cases = [
        (ValueError, "src_lengths holds 5", lambda: s2s.loss_and_grads(params, src, [5, 2, 3], tgt, tl)),
        (ValueError, "tgt_lengths holds 4", lambda: s2s.loss_and_grads(params, src, sl, tgt, [4, 1, 1])),
        (ValueError, "empty sequence", lambda: s2s.loss_and_grads(params, src, [4, 0, 3], tgt, tl)),
        (ValueError, "empty sequence", lambda: s2s.loss_and_grads(params, src, sl, tgt, [0, 1, 1])),
        (ValueError, "src holds id 6 at row 0, position 0", lambda: s2s.loss_and_grads(params, bad_src, sl, tgt, tl)),
        (ValueError, "tgt holds id -1", lambda: s2s.loss_and_grads(params, src, sl, np.where(tgt == 2, -1, tgt), tl)),
        (TypeError, "src must be an integer array", lambda: s2s.loss_and_grads(params, src * 1.0, sl, tgt, tl)),
        (TypeError, "src_lengths must be an integer", lambda: s2s.loss_and_grads(params, src, sl * 1.0, tgt, tl)),
        (ValueError, r"src_lengths must have shape \(3,\)", lambda: s2s.loss_and_grads(params, src, sl[:2], tgt, tl)),
        (ValueError, r"src must have shape \(B, S\)", lambda: s2s.loss_and_grads(params, src[0], sl, tgt, tl)),
        (ValueError, "same number of rows", lambda: s2s.loss_and_grads(params, src, sl, tgt[:2], tl[:2])),
        (ValueError, "beam_size must be a positive integer", lambda: s2s.beam_search(params, src[0], 0, 5)),
        (TypeError, "beam_size must be an integer", lambda: s2s.beam_search(params, src[0], 2.0, 5)),
        (ValueError, "max_len must be a positive integer", lambda: s2s.greedy_decode(params, src, sl, 0)),
        (ValueError, "length_penalty must be >= 0", lambda: s2s.beam_search(params, src[0], 2, 5, -1.0)),
        (ValueError, r"src_row must have shape \(S,\)", lambda: s2s.beam_search(params, src, 2, 5)),
        (ValueError, "src_row holds id 9", lambda: s2s.beam_search(params, np.array([3, 9]), 2, 5)),
        (ValueError, "cell must be one of", lambda: s2s.init_params(5, 5, 4, cell="transformer")),
        (
            ValueError,
            "attention must be None, 'additive' or 'dot'",
            lambda: s2s.init_params(5, 5, 4, attention="luong"),
        ),
        (TypeError, "bidirectional must be True or False", lambda: s2s.init_params(5, 5, 4, bidirectional="yes")),
        (ValueError, "hidden_size must be a positive integer", lambda: s2s.init_params(5, 5, 0)),
        (ValueError, "params is missing W_q", lambda: s2s.loss_and_grads(without_W_q, src, sl, tgt, tl)),
        (
            ValueError,
            "W_c has shape",
            lambda: s2s.loss_and_grads(params | {"W_c": params["W_c"][:, 1:]}, src, sl, tgt, tl),
        ),
        (TypeError, "params must be a dict", lambda: s2s.loss_and_grads([1], src, sl, tgt, tl)),
        (ValueError, "src_row is empty", lambda: s2s.beam_search(params, [], 2, 5)),
        (ValueError, "seed must be >= 0", lambda: s2s.init_params(5, 5, 4, seed=-1)),
        (TypeError, "seed must be an integer", lambda: dates.make_pairs(3, seed=1.5)),
    ]
    for kind, message, call in cases:
        with pytest.raises(kind, match=message):
            call()


def test_lengths_beyond_the_arrays_and_ids_at_pads():
    """Pads may hold any id, even one outside the vocabulary; a real position may not."""
    params, (src, sl, tgt, tl) = params_of(("gru", None, False)), tiny_batch()
    src = src.copy()
    src[1, 3] = 99  # beyond src_lengths[1] = 2
    s2s.loss_and_grads(params, src, sl, tgt, tl)
    with pytest.raises(ValueError, match="src holds id 99 at row 1, position 3"):
        s2s.loss_and_grads(params, src, [4, 4, 3], tgt, tl)


# -- the dates task --------------------------------------------------------------------------------


def test_dates_are_deterministic_from_the_seed_and_right():
    pairs = dates.make_pairs(500, seed=3)
    assert pairs == dates.make_pairs(500, seed=3) and pairs != dates.make_pairs(500, seed=4)
    forms = set()
    for written, iso in pairs:
        date = datetime.date.fromisoformat(iso)
        assert dates.FIRST_YEAR <= date.year <= dates.LAST_YEAR
        matching = [f for f in dates.FORMS if dates.written(date, f) == written]
        assert matching, written
        forms.update(matching)
    assert forms == set(dates.FORMS)


def test_dates_spot_checks():
    d = datetime.date(1812, 3, 3)
    assert d.strftime("%A") == "Tuesday"
    assert [dates.written(d, f) for f in dates.FORMS] == [
        "the 3rd of March, 1812",
        "3 March 1812",
        "March 3rd, 1812",
        "Tuesday the 3rd of March 1812",
        "Mar 3, 1812",
        "3/3/1812",
    ]
    assert dates.iso(d) == "1812-03-03"
    assert [dates._ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 31)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "31st"
    ]  # fmt: skip
    for written, iso in dates.make_pairs(50, seed=0):  # each against datetime's own reading where it has one
        for form, fmt in (("day_month", "%d %B %Y"), ("numeric", "%d/%m/%Y")):
            try:
                parsed = datetime.datetime.strptime(written, fmt).date()
            except ValueError:
                continue
            assert parsed.isoformat() == iso, (written, form)


def test_dates_encode_and_decode_round_trip():
    pairs = dates.make_pairs(20, seed=1)
    src, sl = dates.encode_batch([w for w, _ in pairs], dates.SRC_VOCAB)
    tgt, tl = dates.encode_batch([i for _, i in pairs], dates.TGT_VOCAB, add_eos=True)
    assert src.shape == (20, sl.max()) and tgt.shape == (20, 11) and (tl == 11).all()
    assert (tgt[:, -1] == s2s.EOS).all() and (src[np.arange(src.shape[1]) >= sl[:, None]] == s2s.PAD).all()
    assert [dates.decode(r, dates.SRC_VOCAB) for r in src] == [w for w, _ in pairs]
    assert [dates.decode(r, dates.TGT_VOCAB) for r in tgt] == [i for _, i in pairs]
    assert dates.SRC_VOCAB[:3] == dates.TGT_VOCAB[:3] == ("<pad>", "<s>", "</s>")
    with pytest.raises(ValueError, match="outside the vocabulary"):
        dates.encode_batch(["1812-03-03!"], dates.TGT_VOCAB)
    with pytest.raises(TypeError, match="list of strings"):
        dates.encode_batch("1812", dates.TGT_VOCAB)


def test_training_on_dates_lowers_the_loss():
    """Adam, 150 steps of 32 dates, H = 16: the loss falls well below its start (a sanity check;
    accuracy is measured in benchmarks/seq2seq.py)."""
    pairs = dates.make_pairs(32 * 150, seed=0)
    params = s2s.init_params(len(dates.SRC_VOCAB), len(dates.TGT_VOCAB), 16, cell="gru", attention="dot", seed=0)
    state, losses = adam_init(params), []
    for step in range(150):
        chunk = pairs[32 * step : 32 * (step + 1)]
        src, sl = dates.encode_batch([w for w, _ in chunk], dates.SRC_VOCAB)
        tgt, tl = dates.encode_batch([i for _, i in chunk], dates.TGT_VOCAB, add_eos=True)
        loss, grads = s2s.loss_and_grads(params, src, sl, tgt, tl)
        params, state = adam_update(params, grads, state, lr=0.01)
        losses.append(loss)
    assert losses[0] > np.log(len(dates.TGT_VOCAB)) * 0.8
    assert np.mean(losses[-10:]) < 0.5 * losses[0]


def test_pad_and_bos_are_markers_never_tokens():
    """Within the lengths PAD and BOS are refused (a length that counts pads would put them in the
    loss: huggingface/transformers issue 2759); the decoders never emit them, and dates.decode
    refuses an output that holds one."""
    params, (src, sl, tgt, tl) = params_of(("gru", "dot", False)), tiny_batch()
    padded = np.where(np.arange(tgt.shape[1]) < tl[:, None], tgt, s2s.PAD)
    with pytest.raises(ValueError, match="tgt holds PAD"):
        s2s.loss_and_grads(params, src, sl, padded, np.full(len(tgt), tgt.shape[1]))
    with_bos = np.concatenate([np.full((len(tgt), 1), s2s.BOS), tgt], axis=1)
    with pytest.raises(ValueError, match="tgt holds BOS"):
        s2s.loss_and_grads(params, src, sl, with_bos, tl + 1)
    with pytest.raises(ValueError, match="src_row holds PAD"):
        s2s.beam_search(params, np.array([3, 4, s2s.PAD]), 2, 5)
    params["b_o"][[s2s.PAD, s2s.BOS]] = 50.0  # the model all but insists on the markers
    for seq in s2s.greedy_decode(params, src, sl, max_len=6) + [s2s.beam_search(params, src[0, :4], 3, 6)[0]]:
        assert s2s.PAD not in seq and s2s.BOS not in seq
    with pytest.raises(ValueError, match="ids holds 1 at position 1"):
        dates.decode([4, s2s.BOS, 5, s2s.EOS], dates.TGT_VOCAB)
    assert dates.decode([4, 5, s2s.EOS, s2s.PAD], dates.TGT_VOCAB) == dates.decode([4, 5], dates.TGT_VOCAB)


# -- the pieces notebook 11 derives: the masked loss and one step of beam search ---------------------


def test_masked_loss_and_grad_matches_finite_differences_and_ignores_the_pads():
    rng = np.random.default_rng(3)
    o = rng.standard_normal((3, 5, 6))
    y = rng.integers(0, 6, (3, 5))
    lengths = np.array([5, 1, 3])
    loss, do = s2s.masked_loss_and_grad(o, y, lengths)
    numeric = numerical_gradient(lambda: s2s.masked_loss_and_grad(o, y, lengths)[0], o)
    assert rel_error(do, numeric) < GRADCHECK_TOL
    pads = np.arange(5) >= lengths[:, None]
    assert np.all(do[pads] == 0)
    other = np.where(pads, rng.integers(0, 6, (3, 5)), y)
    o_other = np.where(pads[..., None], 50 * rng.standard_normal(o.shape), o)
    assert s2s.masked_loss_and_grad(o_other, other, lengths)[0] == loss
    real = ~pads  # the mean over the real tokens of -log softmax(o)[y]
    log_p = o - np.log(np.exp(o).sum(axis=-1, keepdims=True))
    assert np.isclose(loss, -np.take_along_axis(log_p, y[..., None], -1)[..., 0][real].mean())


def test_beam_step_keeps_the_most_probable_extensions_in_order():
    rng = np.random.default_rng(4)
    log_p = np.array([-0.5, -1.0, -4.0])
    log_probs = np.log(rng.dirichlet(np.ones(5), size=3))
    log_probs[:, :2] = -np.inf
    rows, tokens, scores = s2s.beam_step(log_p, log_probs, 4)
    every = sorted(((log_p[k] + log_probs[k, v], -k, -v) for k in range(3) for v in range(5)), reverse=True)[:4]
    assert [(-k, -v) for _, k, v in every] == list(zip(rows.tolist(), tokens.tolist()))
    assert np.allclose(scores, [s for s, _, _ in every])
    assert np.all(np.diff(scores) <= 0)
    rows, tokens, _ = s2s.beam_step(np.zeros(2), np.zeros((2, 3)), 10)  # all tied, fewer than asked
    assert rows.tolist() == [0, 0, 0, 1, 1, 1] and tokens.tolist() == [0, 1, 2, 0, 1, 2]
