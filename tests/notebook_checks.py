"""What the notebooks' trained networks must achieve, checked where nbval runs them, not in the notebooks.

A notebook shows what a reader needs; a guard that protects one of its claims from regressions
("the main run ends well below the bigram baseline") is a test, and lives here. nbval runs every
notebook in full (``pytest notebooks``, its kernels under another CPU's BLAS kernels: conftest.py, and
with every long run afresh in the long-runs pass: tests/test_long_runs.py);
each check below runs in that same kernel, as one more test item right after the cell it names
(``after``: the first characters of that cell's source, which must start exactly one code cell;
empty: after the notebook's last cell). So it sees the notebook's variables as they are at that
point, costs no second run, and fails with its claim in the test's name:

    notebooks/07-what-the-network-learned.ipynb::Check: the main run ends well below the bigram baseline

A check's code is plain Python with asserts, as the notebook's own cells would have it. The browser
test's quick runs (tests/browser/quick_parameters.py) never run these checks.

To move an ``if CHECK_QUALITY:`` block out of a notebook: add a Check with the block's asserts
and the first characters of its cell as ``after``, delete the block from the cell, and run
``pytest notebooks/NN-....ipynb`` (the check shows as its own item).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    claim: str  # what the notebook's prose says, which the check protects
    code: str  # asserts on the notebook's variables
    after: str = ""  # the first characters of the code cell it runs after ("" = the last one)


NOTEBOOKS_DIR_NAME = "notebooks"

CHECKS: dict[str, list[Check]] = {
    "11-one-sequence-into-another.ipynb": [
        Check(
            "beam search's output is never less probable than greedy decoding's, at every seed",
            "assert set(beam_lower) == set(SEEDS) and all(n == 0 for n in beam_lower.values())",
            after="def log_p_of(",
        ),
        Check(
            "a beam wide enough finds the exact arg max in every case, and greedy decoding misses some",
            "assert found[64] == SMALL_CASES and found[1] < found[2] <= SMALL_CASES",
            after="SMALL_LEN = 5",
        ),
        Check(
            "short runs learn almost no date whole; the year is nearly always right, the day near chance",
            "assert max(exact.values()) < 0.02\n"
            "assert min(f[0] for f in fields_of.values()) > 0.95\n"
            "assert max(f[2] for f in fields_of.values()) < 0.06",
            after="src, src_lengths, _, _ = encode_pairs(held_out)",
        ),
        Check(
            "the long runs get nearly every held-out date whole at two seeds of three, short dates too",
            'assert sorted(long["exact"].values())[1] > 0.95\n'
            'assert sorted(long["by_bin"][str(s)][0] for s in SEEDS)[1] > 0.9',
            after="def run_the_bottleneck",
        ),
        Check(
            "no bin's mean exact match differs from another's by more than the seeds' largest spread",
            "means, spreads = by_bin.mean(axis=0), np.ptp(by_bin, axis=0)\nassert np.ptp(means) <= spreads.max()",
            after="def run_the_bottleneck",
        ),
        Check(
            "the long runs, run afresh (the long-runs pass), follow the stored loss curves for 1000 steps",
            'kept = stored.load("11-bottleneck")["results"]["loss"]\n'
            'assert sorted(kept) == sorted(long["loss"])\n'
            'assert max(abs(a - b) for s in kept for a, b in zip(kept[s][:10], long["loss"][s][:10])) < 0.02',
            after="def run_the_bottleneck",
        ),
    ],
    "06-training-on-pride-and-prejudice.ipynb": [
        Check(
            "the toy file keeps only its story",
            'assert body == "It was a dark and quiet evening.\\n"',
            after="VAL_FRACTION = 0.1",
        ),
        Check(
            "the text has no Gutenberg header or footer, and the vocabulary encodes it both ways",
            'assert "*** START OF" not in text and "*** END OF" not in text\n'
            "assert vocab.decode(vocab.encode(text)) == text",
            after="text = rnn_core.load_text()",
        ),
        Check(
            "the counts cover the text, and every character of the vocabulary occurs",
            "assert counts.sum() == len(text) and np.all(counts > 0)",
            after="counts = np.bincount(",
        ),
        Check(
            "the split is the first 90% and the last 10%, and the validation text has no new character",
            "assert len(train_ids) + len(val_ids) == len(ids)\n"
            "assert len(val_ids) == len(ids) - int(len(ids) * (1 - VAL_FRACTION))\n"
            "assert set(np.unique(val_ids)) <= set(np.unique(train_ids))",
            after="ids = vocab.encode(text)",
        ),
        Check("the divergence is never negative", "assert kl >= 0", after="uniform_bpc = np.log2(V)"),
        Check(
            "the bigram rows are distributions, and the baselines fall: uniform, unigram, bigram",
            "assert np.allclose(bigram.sum(axis=1), 1)\nassert uniform_bpc > unigram_bpc > bigram_bpc",
            after="pairs = np.ones((V, V))",
        ),
        Check(
            "the settings are TrainConfig's defaults but for the steps",
            "assert config == TrainConfig(steps=MAIN_STEPS)",
            after="config = TrainConfig(",
        ),
        Check(
            "the targets are the inputs one character later, and the next window continues the stream",
            "assert np.array_equal(Y0[:, :-1], X0[:, 1:])\nassert np.array_equal(Y0[:, -1], X1[:, 0])",
            after="batcher = StreamBatcher(",
        ),
        Check(
            "the untrained network scores a little worse than the uniform guess",
            "assert uniform_bpc < untrained_bpc < uniform_bpc + 0.5",
            after="# where training starts",
        ),
        Check(
            "window 0's gradient at the untrained weights is under the threshold: not clipped",
            "assert rnn_core.global_norm(grads0) < config.clip_norm",
            after="def window_gradient(",
        ),
        Check(
            "the reader's small run with the template: every piece rnn_core's, the loss far below the uniform guess",
            'assert list(yours.used.values()) == ["rnn_core"] * 5\n'
            "assert len(yours.losses) == YOURS_STEPS and len(yours.sample) == 200\n"
            "assert yours.losses[:100].mean() < math.log(V_chapter) - 1\n"
            "assert yours.losses[-100:].mean() < yours.losses[:100].mean() - 0.5",
            after="# chapters I to III",
        ),
        Check(
            "Adam's first update moves a weight with a clear gradient by η; uncorrected, by (1 - β1)/√(1 - β2) η",
            "assert np.allclose(moved[big], 1, atol=1e-3)\n"
            "assert np.allclose(uncorrected[big], 0.1 / math.sqrt(0.001), rtol=1e-3)",
            after="def flat(arrays):",
        ),
        Check(
            "Adam moves a steady weight by about η per step whatever its gradient, a flipping one far less",
            "assert np.allclose(travel[:2], 1, atol=1e-3) and travel[2] < 0.1",
            after="# 100 updates of three weights",
        ),
        Check(
            "every run of the race ran its steps and ended finite; SGD's largest rate ends far worse than its best",
            "assert all(steps == COMPARE_STEPS for steps in race_results['steps'])\n"
            "assert np.isfinite(list(grid['sgd'].values()) + [b for bs in by_seed.values() for b in bs]).all()\n"
            'assert grid["sgd"][RATES["sgd"][-1]] > min(grid["sgd"].values()) + 0.3',
            after="def run_the_race(",
        ),
        Check(
            "the race run afresh (LONG_RUNS) starts as the stored one did: the first 5 steps of every run "
            "(the unstable rates' runs part ways after a few more: float32 rounding, amplified)",
            "kept = stored.load('06-race')['results']['curves']\n"
            "firsts = [(a[:5], b[:5]) for r in RATES for a, b in zip(race_results['curves'][r], kept[r])]\n"
            "assert len(firsts) == 9 and max(np.abs(np.subtract(a, b)).max() for a, b in firsts) < 0.01",
            after="def run_the_race(",
        ),
        Check(
            "at every seed, SGD with momentum ends below SGD and Adam below SGD with momentum",
            "assert momentum_gap > 0 and adam_gap > 0",
            after="# each rule's worst seed",
        ),
        Check(
            "by the series' rule, Adam ends below momentum and below SGD by more than the larger spread",
            "ptp = {rule: np.ptp(by_seed[rule]) for rule in RATES}\n"
            "assert adam_gap > max(ptp['momentum'], ptp['adam'])\n"
            "assert min(by_seed['sgd']) - max(by_seed['adam']) > max(ptp['sgd'], ptp['adam'])",
            after="# each rule's worst seed",
        ),
        Check(
            "the defaults' schedule is linear from the first step, without warm-up",
            'assert config.lr_schedule == "linear" and config.decay_fraction == 1 and config.warmup_steps == 0',
            after="def learning_rate(",
        ),
        Check(
            "at τ = 0 the hand-trained network soon repeats itself: its text ends in a loop",
            "written = sample_by_hand(hand_params, vocab, 'Elizabeth', 160, 0.0)\n"
            "assert any(written[-n:] == written[-2 * n : -n] == written[-3 * n : -2 * n] for n in range(1, 40))",
            after="for temperature in (0.0, 0.5, 1.0):",
        ),
        Check(
            "the long run ran all its steps, with a finite validation figure",
            'assert result.stopped == "steps", result.message\n'
            "assert result.step == len(result.history) == MAIN_STEPS\n"
            "assert result.vocab == vocab and np.isfinite(result.val_bpc)",
            after="# the long run",
        ),
        Check(
            "the long run ends far below the bigram baseline, with training and validation close",
            "assert result.val_bpc < untrained_bpc and result.val_bpc < bigram_bpc - 0.5\n"
            "assert abs(result.val_bpc - result.train_bpc) < 0.3",
            after="curve = result.history.arrays()",
        ),
        Check(
            "the unigram line is crossed within a dozen or so steps, the bigram line several times later",
            'assert crossed["unigram"][0] < 20\nassert 2 * crossed["unigram"][0] < crossed["bigram"][0] < FIRST_STEPS',
            after="FIRST_STEPS = 200",
        ),
        Check(
            "one sample per step of SAMPLE_AT, each of its length",
            "assert sorted(progress_samples) == list(SAMPLE_AT)\n"
            "assert all(len(written) == PROGRESS_LENGTH for _, written in progress_samples.values())",
            after="if result.step not in progress_samples",
        ),
        Check(
            "the samples: the novel's characters; from τ = 0.5 up cooler text less surprising, more real words; "
            "τ = 0 ends in a loop",
            "assert all(len(s) == SAMPLE_LENGTH and set(s) <= set(vocab.chars) for s in samples.values())\n"
            "assert surprise[0.5] < surprise[1.0] < surprise[1.5]\n"
            "assert real_words(samples[0.5]) > real_words(samples[1.5]) + 0.2\n"
            "assert cycle > 0",
            after="surprise, samples = {}, {}",
        ),
        Check(
            "the network is roughly calibrated on real text",
            "assert abs(cross_entropy_val - entropy_val_contexts) < 0.3",
            after="own_surprise, own_entropy",
        ),
        Check(
            "teacher-forced guesses are right far more often, and free running pays over a bit more per true character",
            "assert np.mean(guess_forced == truth) > 2 * np.mean(own == truth)\n"
            "assert bits_of_truth(y_hat_free) > bits_of_truth(y_hat_forced) + 1",
            after="def bits_of_truth(",
        ),
        Check(
            "a higher temperature flattens the next-character distribution and changes the text",
            "for view in (cool, hot):\n"
            "    assert np.isclose(view['probs'].sum(), 1) and set(view['continuation']) <= set(vocab.chars)\n"
            "assert hot['probs'].max() < cool['probs'].max()\n"
            "assert entropy_bits(hot['probs']) > entropy_bits(cool['probs'])\n"
            "assert cool['continuation'] != hot['continuation']",
            after="hot = sample_view(",
        ),
        Check(
            "a priming text the network cannot read gets a message, not a traceback",
            "assert bad['error']\nassert sample_view(result.params, vocab, 0.8, '', 100)['error']",
            after="for bad_prime in",
        ),
    ],
    "07-what-the-network-learned.ipynb": [
        Check(
            "the baselines fall: uniform, unigram, bigram",
            'assert BASELINES["uniform"] > BASELINES["unigram"] > BASELINES["bigram"]',
            after="# Pride and Prejudice, without",
        ),
        Check(
            "the main run ends well below the bigram baseline",
            'assert result.val_bpc < BASELINES["bigram"] - 0.5',
            after="result = rnn_core.train(text, config)",
        ),
        Check(
            "the main run ran all its steps",
            'assert result.stopped == "steps" and result.step == MAIN_STEPS and np.isfinite(result.val_bpc)',
            after="result = rnn_core.train(text, config)",
        ),
        Check(
            "every doubling of H helps, a lot over the range, and buys a fraction of the last one per added parameter",
            "assert all(run['step'] == SWEEP_STEPS and np.isfinite(run['val_bpc']) for run in sweep.values())\n"
            "assert np.all(gains > 0) and val_by_size[-1] < val_by_size[0] - 0.5\n"
            "assert np.all(per_1000[1:] < 0.6 * per_1000[:-1])",
            after="def fingerprint(",
        ),
        Check(
            "the sweep run afresh (LONG_RUNS) ends near the stored one at every H",
            "kept = stored.load('07-sweep')['results']\n"
            "assert max(abs(sweep[int(H)]['val_bpc'] - run['val_bpc']) for H, run in kept.items()) < 0.1",
            after="def fingerprint(",
        ),
        Check(
            "beside the sweep: three seeds at H = 64 spread far less than the smallest gain; ÷10 lags far; "
            "×10 ends ahead of all three by more than their spread; "
            "×60 climbs past the uniform guess, ends far behind; T = 8 behind",
            "bpc = {name: run['val_bpc'] for name, run in variants.items()}\n"
            "ref = sweep[64]['val_bpc']\n"
            "assert all(run['step'] == SWEEP_STEPS and np.isfinite(run['val_bpc']) for run in variants.values())\n"
            'three = [ref] + [bpc[f"H = 64 from seed {s}"] for s in (1, 2)]\n'
            "assert np.ptp(three) < 0.5 * gains.min()\n"
            'assert bpc["learning rate ÷ 10 (0.0005)"] > ref + 0.5\n'
            'assert bpc["learning rate × 10 (0.05)"] < min(three) - np.ptp(three)\n'
            'wild = variants["learning rate × 60 (0.3)"]\n'
            'assert wild["highest"] > 2 * BASELINES["uniform"]\n'
            "assert wild['val_bpc'] > ref + 1\n"
            'assert bpc["windows of T = 8"] > ref',
            after="VARIANTS = {",
        ),
        Check(
            "the runs beside the sweep, run afresh (LONG_RUNS), end near the stored ones (all but the wild rate)",
            "kept = stored.load('07-variants')['results']\n"
            "near = [abs(variants[n]['val_bpc'] - run['val_bpc']) for n, run in kept.items() if '× 60' not in n]\n"
            "assert len(near) == len(VARIANTS) - 1 and max(near) < 0.15",
            after="VARIANTS = {",
        ),
        Check(
            "the counts of parameters and multiply-adds: the formula, the crossing at 4V/3, 40-50 times from 16 to 256",
            "assert all(rnn_core.count_params(V, H) == H * V + H * H + V * H + H + V for H in SWEEP_SIZES)\n"
            "assert np.isclose(multiply_adds_per_char(4 * V / 3, V), 6 * (4 * V / 3) ** 2)\n"
            "assert 40 < growth < 50",
            after="def multiply_adds_per_char(",
        ),
        Check(
            "the probes' states: one row per character, one column per unit",
            "assert all(h.shape == (PROBE_LENGTH, config.hidden_size) for h in states.values())",
            after="untrained = rnn_core.init_params(",
        ),
        Check(
            "correlations lie in [-1, 1]",
            "for q in QUESTIONS:\n"
            "    for name in ('trained', 'untrained'):\n"
            "        assert np.all(np.abs(correlations(states[name, 'fit'], labels['fit'][q])) <= 1 + 1e-9)",
            after="def correlations(",
        ),
        Check(
            "the passage's states, and one button: the unit that best follows where in the word",
            "assert passage_h.shape == (PASSAGE_LENGTH, config.hidden_size)\n"
            'assert worth_a_look == {"where in the word": best_unit["where in the word"]}',
            after="# the questions whose best unit",
        ),
        Check(
            "the probe: the word, trained > untrained > current character > majority, far beyond one unit; "
            "line and quotation near the majority",
            "word, line, quote = (accuracy[q] for q in QUESTIONS)\n"
            'ranked = [word[p] for p in ("trained network", "untrained network", "current character", "majority")]\n'
            "assert ranked == sorted(ranked, reverse=True) and len(set(ranked)) == 4\n"
            'assert word["trained network"] > word["best single unit"] + 0.3\n'
            'assert word["untrained network"] > (word["majority"] + word["trained network"]) / 2\n'
            "for acc in (line, quote):\n"
            '    assert acc["trained network"] < acc["majority"] + 0.05\n'
            'assert line["untrained network"] > line["trained network"] + 0.03',
            after="accuracy = {q: accuracies(q)",
        ),
        Check(
            "the norm keeps its level, clipping at 5 hardly ever acts, and the recorded rates follow the schedule",
            "assert 0.5 < np.median(late) / np.median(early) < 2 and clipped.mean() < 0.01\n"
            "assert len(norms) == result.step and np.all(np.isfinite(norms))\n"
            'assert np.all(hist["lr"] <= config.learning_rate) and np.isclose(hist["lr"][0], config.learning_rate)',
            after="early, late = norms[",
        ),
        Check(
            "the windows' gradients agree at the untrained weights, and mostly not at the trained ones",
            'assert ratio["untrained"] > 0.8 > 0.5 > ratio["trained"]',
            after="K = 32",
        ),
        Check(
            "spikes are rare and small, on windows that cost about what their neighbours cost",
            "assert running_median.shape == norms.shape == running_bpc.shape\n"
            "assert spikes.mean() < 0.01 and norms[later].max() < 10 * np.median(norms[later])\n"
            "assert not spikes.any() or abs(bpc[spikes].mean() - running_bpc[spikes].mean()) < 0.5",
            after="SPIKE = ",
        ),
        Check(
            "ρ = 4 blows the gradient up; Adam's steps stay bounded; unclipped SGD's weights fly far and saturate",
            "assert all(run.step == CLIP_STEPS and run.stopped == 'steps' for run in clip_results.values())\n"
            "n1, n4 = (np.median(clip_results[f'Adam, ρ = {r}, clipped'].history.grad_norm) for r in (1, 4))\n"
            "assert n4 > 10_000 * n1\n"
            "assert all(np.all(clip_results[f'Adam, ρ = 4, {c}'].history.arrays()['grad_norm'] > 5)"
            " for c in ('clipped', 'not clipped'))\n"
            "assert np.argmax(clip_results['SGD, ρ = 4, not clipped'].history.grad_norm) == 0\n"
            "assert clip_results['Adam, ρ = 1, clipped'].val_bpc < BASELINES['bigram']\n"
            "adam4 = [run for k, run in clip_results.items() if k.startswith('Adam, ρ = 4')]\n"
            "assert all(run.val_bpc > BASELINES['unigram'] for run in adam4)\n"
            "assert moved['Adam, ρ = 4, not clipped'] < 2 * moved['Adam, ρ = 4, clipped']\n"
            "assert moved['SGD, ρ = 4, not clipped'] > 100 * moved['SGD, ρ = 4, clipped']\n"
            "assert moved['SGD, ρ = 4, clipped'] < 3 * min(v for k, v in moved.items() if k.startswith('Adam'))\n"
            "assert saturated['SGD, ρ = 4, not clipped'] > 0.95 and saturated['Adam, ρ = 1, clipped'] < 0.2\n"
            "assert at_start[4.0] > 0.3 > 0.1 > at_start[1.0]",
            after="clip_results, moved, saturated",
        ),
    ],
    "00-start-here.ipynb": [
        Check(
            "after an l the right guess is l the first time and o the second",
            'assert asked["l"] == ["l", "o"]',
            after='TEXT = "hello"',
        ),
        Check(
            "64 boxes without memory, none gets all four guesses right",
            "assert len(right_counts) == 64 and best == 3 and right_counts.count(best) == 2",
            after="seen_chars = sorted(set(inputs))",
        ),
        Check(
            "with the previous character as memory, four different questions, all four right",
            "assert len(set(questions)) == len(questions) == 4 and right == 4",
            after="# the summary each box receives",
        ),
        Check(
            "the two l's of 'hell' are the same one-hot vector",
            'assert vocab.chars == "ehlo" and x.shape == (4, 4) and np.array_equal(x[2], x[3])',
            after="from rnn_core import Vocabulary",
        ),
    ],
    "01-softmax-and-its-derivative.ipynb": [
        Check(
            "softmax of section 2's scores: a distribution, in the scores' order, log-odds = score gaps",
            "assert np.all(y_hat > 0) and np.isclose(y_hat.sum(), 1.0) and np.all(np.diff(y_hat) < 0)\n"
            "assert np.isclose(log_odds, o[0] - o[1]) and np.allclose(shifted, y_hat)",
            after="def softmax_naive(o):",
        ),
        Check(
            "the formula as written gives nan for scores near 1000 and near -1000",
            "assert np.isnan(y_big).all() and np.isnan(y_neg).all()",
            after="def run_and_report(f, o):",
        ),
        Check(
            "shifting by the largest score: [1000, 999, 998] and [-1000, -1001, -1002] behave like [2, 1, 0]",
            "expected = softmax_naive(np.array([2.0, 1.0, 0.0]))\n"
            "assert np.allclose(rnn_core.softmax(big), expected)\n"
            "assert np.allclose(rnn_core.softmax(very_negative), expected)\n"
            "assert np.allclose(rnn_core.softmax(o), softmax_naive(o))",
            after="for scores in (big, very_negative, o):",
        ),
        Check(
            "log(softmax) gives -inf where log_softmax gives -800",
            "assert np.isneginf(log_naive[1]) and np.isclose(rnn_core.log_softmax(far_apart)[1], -800.0)",
            after="far_apart = np.array([0.0, -800.0])",
        ),
        Check(
            "a higher temperature flattens, the order never changes, tau = 0.1 nearly one-hot, tau = 10 nearly flat",
            "largest = [rows[tau].max() for tau in TEMPERATURES]\n"
            "assert all(a > b for a, b in zip(largest, largest[1:]))\n"
            "assert all((np.argsort(rows[tau]) == np.argsort(o)).all() for tau in TEMPERATURES)\n"
            "assert largest[0] > 0.999 and np.ptp(rows[10.0]) < 0.1 and same",
            after="# settings for this section",
        ),
        Check(
            "the relative error: scale-free, 1 for a flipped sign, unmoved by a tiny entry",
            "assert rel_error(a, b) < 1e-12 and np.isclose(entrywise, 0.5)\n"
            "assert np.isclose(rel_error(1000 * a, 1000 * b), rel_error(a, b)) and rel_error(a, -a) == 1.0",
            after="def rel_error(a, b):",
        ),
        Check(
            "the step sweep: Taylor error falls 100-fold per tenfold step, best near 1e-5, roundoff at 1e-13",
            'assert 50 < err["1e-01"] / err["1e-02"] < 200 and 50 < err["1e-02"] / err["1e-03"] < 200\n'
            'assert err["1e-05"] < 1e-9 and 5e-7 < steps[np.argmin(errors)] < 5e-4\n'
            'assert err["1e-13"] > 1e-5 and err["1e-13"] > 100 * err["1e-05"]',
            after="def logsumexp(o):",
        ),
        Check(
            "the Jacobian's three properties hold",
            "assert all(checks.values())",
            after="checks = {",
        ),
        Check(
            "the Jacobian is positive semidefinite, its trace 1 - sum y_hat^2",
            "assert all(checks_psd.values())",
            after="# eigvalsh: the eigenvalues",
        ),
        Check(
            "largest |J|: at tau = 0.7 for section 2's scores (almost gone at 0.1), growing to 0.1 for close ones",
            "spread = [largest_J['largest |J|, scores of section 2', tau] for tau in TAUS]\n"
            "near = [largest_J['largest |J|, close scores', tau] for tau in TAUS]\n"
            "assert TAUS[np.argmax(spread)] == 0.7 and spread[-1] < 1e-3\n"
            "assert all(a < b for a, b in zip(near, near[1:]))",
            after="close = np.array([0.3, 0.2, 0.1, 0.0])",
        ),
    ],
    "02-cross-entropy.ipynb": [
        Check(
            "Gibbs' inequality on the four models",
            "assert all(cross_entropy_between(truth, m) >= entropy - 1e-12 for m in models.values())",
            after="def cross_entropy_between(target, y_hat):",
        ),
        Check(
            "Gibbs' inequality on 1000 random models",
            "assert gibbs",
            after="# Gibbs' inequality on many random",
        ),
        Check(
            "H(target, y_hat), -log y_hat[y], the loss from the scores and rnn_core's agree",
            "assert np.isclose(cross_entropy_between(target, y_hat), -np.log(y_hat[y]))\n"
            "assert np.isclose(loss_from_scores(o, y), -np.log(y_hat[y]))\n"
            "assert np.isclose(rnn_core.cross_entropy(o, y), loss_from_scores(o, y))",
            after="def loss_from_scores(o, y):",
        ),
        Check(
            "scores far apart: -log softmax is inf, the loss from the scores 800",
            "assert np.isinf(naive) and np.isclose(loss_from_scores(far, 1), 800.0)\n"
            "assert np.isclose(rnn_core.cross_entropy(far, 1), 800.0)",
            after="# scores far apart",
        ),
        Check(
            "the uniform model: log V nats, perplexity V",
            "for V_try in (4, 26, 64, 100):\n"
            "    nats = cross_entropy_between(rnn_core.one_hot(0, V_try), np.full(V_try, 1 / V_try))\n"
            "    assert np.isclose(nats, np.log(V_try))\n"
            "    assert np.isclose(rnn_core.perplexity(nats / np.log(2)), V_try)",
            after="print(f\"{'V':>4s}",
        ),
        Check(
            "the gradient for y = 2 sums to 0, negative at the target, positive elsewhere",
            "g = rnn_core.cross_entropy_grad(o, 2)\n"
            "assert np.isclose(g.sum(), 0) and g[2] < 0 and np.all(np.delete(g, 2) > 0)",
            after="o = rng.standard_normal(6)",
        ),
        Check(
            "the gradient of a stack is softmax minus the one-hot rows",
            "assert G.shape == scores.shape and np.allclose(G, softmax(scores) - rnn_core.one_hot(ys, 6))",
            after="scores = rng.standard_normal((4, 6))",
        ),
        Check(
            "confidently wrong: softmax barely moves, the gradient is almost -1, about 1 nat per unit",
            "assert at[-6.0][3] < 1e-3 and at[-6.0][2] < -0.999 and abs(rise - 1) < 0.01\n"
            "assert at[6.0][1] < 0.02 and abs(at[6.0][2]) < 0.02",
            after='print(" o_y   y_hat_y',
        ),
        Check(
            "the running example: vocabulary, inputs, targets and rnn_core's y_hat",
            'assert vocab.chars == "ehlo" and inputs.tolist() == [1, 0, 2, 2]\n'
            "assert targets.tolist() == [0, 2, 2, 3] and o_hello.shape == (4, V)\n"
            'assert np.allclose(y_hello, out["y_hat"])',
            after="vocab = rnn_core.Vocabulary.from_text(TEXT)",
        ),
        Check(
            "the untrained network: top guess h every step, every loss above log V, 6.7% above the baseline",
            'assert vocab.decode(y_hello.argmax(axis=1)) == "hhhh"\n'
            "assert np.all(losses > np.log(V)) and f'{100 * (total / baseline - 1):.1f}' == '6.7'\n"
            "assert not np.allclose(y_hello[2], y_hello[3])  # the two l's are told apart",
            after='print("step  reads  target',
        ),
        Check(
            "rnn_core's loss and bits per character are the table's; scores within 0.2, y_hat within 0.06 of 1/V",
            "assert np.isclose(total, rnn_core.cross_entropy(o_hello, targets))\n"
            "assert np.isclose(total, rnn_core.sequence_loss(params, inputs, targets)[0])\n"
            "assert np.isclose(total / 4 / np.log(2), rnn_core.bits_per_char(params, ids))\n"
            "assert largest_score < 0.2 and largest_gap < 0.06",
            after="# the same numbers from rnn_core",
        ),
        Check(
            "y_hat - target is rnn_core's gradient, rows sum to 0, and a step on the scores lowers the loss",
            "assert same and np.allclose(dL_do.sum(axis=1), 0) and np.all(dL_do[np.arange(4), targets] < 0)\n"
            "assert after < total",
            after="targets_one_hot = rnn_core.one_hot(targets, V)",
        ),
        Check(
            "the likelihood: the 256 continuations sum to 1, and -log P('ello' | 'h') is the summed loss",
            "assert abs(P.sum() - 1) < 1e-12 and np.isclose(P[ello], p_steps.prod())\n"
            "assert np.isclose(-np.log(P[ello]), total) and P[ello] < 1 / 256 < P.max()",
            after="# every continuation of four characters",
        ),
        Check(
            "the right gradients agree with finite differences, (a), (b) and (d) are off by O(1), (c) is reversed",
            'assert worst["right: y_hat - y (J^T dL/dy_hat)"] < GRADCHECK_TOL\n'
            'assert worst["right: through log-softmax, A^T (-y)"] < GRADCHECK_TOL\n'
            'assert worst["(d) J instead of J^T (softmax route)"] < GRADCHECK_TOL\n'
            'for name in ("(a) target dropped (blog post)", "(b) J = -y_hat y_hat^T (README)",\n'
            '             "(d) A instead of A^T (log-softmax route)"):\n'
            "    assert worst[name] > 0.1, name\n"
            'assert abs(worst["(c) loss without its minus (blog post)"] - 1) < 1e-6',
            after="worst = dict.fromkeys(candidates",
        ),
        Check(
            "the losses of (a) and (c): another number, and minus the loss",
            "assert np.isclose(loss_true, total) and not np.isclose(loss_dropped, total)\n"
            "assert np.isclose(loss_no_minus, -total)",
            after="loss_true = ",
        ),
        Check(
            "each slip's code computes the formula worked out for it",
            "assert all(np.allclose(slip(o_case, y_case), formula) for slip, formula in worked_out.values())",
            after="# the formulas worked out above",
        ),
    ],
    "03-the-forward-pass.ipynb": [
        Check(
            "count_params is HV + H² + VH + H + V",
            "assert all(count_params(V, H) == H * V + H * H + V * H + H + V "
            "for V, H in [(4, 3), (65, 100), (80, 512)])",
            after="for V, H in [(4, 3), (65, 100), (80, 512)]:",
        ),
        Check(
            "W_hh holds more weights than W_xh and W_yh together exactly when H > 2V",
            "assert all((H_ ** 2 > 2 * H_ * 65) == (H_ > 130) for H_ in (65, 130, 131, 260, 512))",
            after="V_typical = 65",
        ),
        Check(
            "W_xh e_i is column i of W_xh, exactly",
            "assert all(np.array_equal(W_xh @ one_hot(i, vocab.size), W_xh[:, i]) for i in range(vocab.size))",
            after='vocab = Vocabulary.from_text("hello")',
        ),
        Check(
            "tanh is bounded, even for huge inputs",
            "assert np.all(np.abs(np.tanh([-50.0, -5.0, 5.0, 50.0])) <= 1)",
            after="z = np.linspace(-4, 4, 401)",
        ),
        Check(
            "init_params: the scales, an orthogonal W_hh, zero biases",
            'assert abs(big["W_xh"].std() - 0.3) < 0.01 and abs(big["W_yh"].std() - 0.1) < 0.005\n'
            'assert np.allclose(big["W_hh"].T @ big["W_hh"], np.eye(100))\n'
            'assert not big["b_h"].any() and not big["b_o"].any()',
            after="# V = 65, H = 100",
        ),
        Check(
            "W_hh keeps the length of every vector",
            'assert all(np.isclose(np.linalg.norm(params["W_hh"] @ v), np.linalg.norm(v))\n'
            "           for v in np.random.default_rng(1).standard_normal((5, H)))",
            after="rng = np.random.default_rng(SEED)",
        ),
        Check(
            "recurrent_scale is the size of every eigenvalue, and 50 products scale a unit vector by it^50",
            "for scale in (0.5, 1.0, 1.5):\n"
            '    W = init_params(V, H, seed=SEED, recurrent_scale=scale)["W_hh"]\n'
            "    assert np.allclose(np.abs(np.linalg.eigvals(W)), scale)\n"
            "    assert np.isclose(np.linalg.norm(np.linalg.matrix_power(W, 50) @ unit), scale**50)",
            after="unit = np.ones(H) / np.sqrt(H)",
        ),
        Check(
            "the slow-motion step: no memory term at step 1, shapes, y_hat sums to 1",
            "assert np.all(from_memory == 0) and h_1.shape == (H,) and o_1.shape == (V,)\n"
            "assert np.isclose(y_hat_1.sum(), 1.0)",
            after="W_xh, W_hh, W_yh, b_h, b_o = (params[name] for name in PARAM_NAMES)",
        ),
        Check(
            "the loop's first step is the slow-motion step; shapes (T, H), (T, V), (T, V)",
            "assert np.allclose(hs[0], h_1)\n"
            "assert hs.shape == (T, H) and os.shape == (T, V) and y_hats.shape == (T, V)",
            after="def run_by_hand(params, inputs, h0=None):",
        ),
        Check(
            "'hell': total 5.9164 nats, 6.7% above the baseline, top guess h at every step",
            "assert round(total, 4) == 5.9164 and round(100 * above, 1) == 6.7 and top_guesses == 'hhhh'",
            after="total = losses.sum()",
        ),
        Check(
            "W_hh keeps the length of h_{t-1}; the full step does not",
            "for t in range(1, T + 1):\n"
            "    h_prev = h_prev_all[t - 1]\n"
            '    assert np.isclose(np.linalg.norm(params["W_hh"] @ h_prev), np.linalg.norm(h_prev))\n'
            "    assert not np.isclose(np.linalg.norm(hs[t - 1]), np.linalg.norm(h_prev))",
            after="h_prev_all = np.vstack",
        ),
        Check(
            "the batch: shapes (B, T, H) and (B, T, V), each row equal to its own run",
            "assert hs_batch.shape == (B, T, H) and y_hats_batch.shape == (B, T, V)\n"
            "for b in range(B):\n"
            "    hs_one, _, y_hats_one = run_by_hand(params, X[b])\n"
            "    assert np.allclose(hs_batch[b], hs_one) and np.allclose(y_hats_batch[b], y_hats_one)",
            after="hs_batch, y_hats_batch = run_batch_by_hand(params, X)",
        ),
        Check(
            "rnn_core's forward, loss_and_grads, sequence_loss and step_forward agree with the hand loops",
            "assert all(same.values())",
            after="# one sequence: h, logits",
        ),
        Check(
            "the weight scale is W_hh's spectral radius; none saturated at 0.1, most at 5",
            'assert all(np.isclose(r["rho"], s) for s, r in views.items())\n'
            'assert views[0.1]["saturated"] == 0 and views[5.0]["saturated"] > 0.5',
            after='print(" weight scale s',
        ),
    ],
    "04-backpropagation-through-time.ipynb": [
        Check(
            "section 1's network is notebook 03's: 5.9164 nats",
            "assert round(loss_03, 4) == 5.9164",
            after='vocab = Vocabulary.from_text("hello")',
        ),
        Check(
            "the network with every term switched on keeps notebook 03's weights",
            'assert all(np.array_equal(params[n], untrained[n]) for n in ("W_xh", "W_hh", "W_yh"))',
            after="rng = np.random.default_rng(SEED)",
        ),
        Check(
            "∇W_yh L and ∇b_o L have the shapes of W_yh and b_o",
            "assert dW_yh.shape == W_yh.shape and db_o.shape == b_o.shape",
            after="do = y_hat - one_hot(targets, V)",
        ),
        Check(
            "step 1's share of ∇W_hh L counts, because h_0 is not zero",
            "assert np.linalg.norm(dW_hh_terms[0]) > 0.01",
            after="# δ_t h_{t-1}ᵀ for t = 1..T",
        ),
        Check(
            "the slow-motion step is section 2's recursion at t = 3",
            "assert np.allclose(dh_t, dh[t]) and np.allclose(delta_t, delta[t])",
            after="# step 4, in short",
        ),
        Check(
            "rnn_core.loss_and_grads's loss is the forward pass's",
            "assert np.isclose(core_loss, sequence_loss(params, inputs, targets, h0)[0])",
            after="numeric = numerical_grads(params, inputs, targets, h0)",
        ),
        Check(
            "rnn_core.step_backward at t = 3 and the loop over it give section 2's numbers",
            "assert np.allclose(dh_prev_3, W_hh.T @ delta[3])\n"
            'assert np.allclose(shares_3["W_hh"], dW_hh_terms[2]) and np.allclose(shares_3["b_h"], delta[3])\n'
            'assert np.allclose(shares_3["W_xh"][:, inputs[2]], delta[3])\n'
            "assert same and np.allclose(loop_dh0, dh0)",
            after="# one step back at t = 3",
        ),
        Check(
            "a batch's loss and gradients are the sums of its rows'",
            "assert np.isclose(batch_loss, rows_loss) and same",
            after="X = np.stack([inputs, inputs[::-1], np.roll(inputs, 1)])",
        ),
        Check(
            "trained by hand: 'ello' within ten updates, then a loss far below its start",
            'assert greedy(trained, "hell") == "ello" and first_ello <= 10\n'
            "assert losses[-1] < 0.01 * losses[0] and np.all(right > 0.95)",
            after="trained, losses, said, first_ello = train_by_hand(",
        ),
        Check(
            "the two l's: the same input, two memories, two states, two answers",
            "for t in (3, 4):\n"
            "    assert np.allclose(hs_trained[t], np.tanh(trained['W_hh'] @ hs_trained[t - 1] + same_part))\n"
            "assert not np.allclose(hs_trained[2], hs_trained[3])\n"
            "assert not np.allclose(hs_trained[3], hs_trained[4])\n"
            'assert vocab.decode(y_hat_trained[2:].argmax(axis=1)) == "lo"',
            after="out_trained = forward(trained, inputs)",
        ),
        Check(
            "up to η = 1 larger steps need fewer updates; η = 5 overshoots; η = 3 gets there by a detour",
            "firsts = [outcomes[lr][0] for lr in (0.01, 0.03, 0.1, 0.3, 1.0)]\n"
            "assert firsts == sorted(firsts, reverse=True)\n"
            "assert outcomes[5.0][0] is None and outcomes[5.0][1].max() > 5 * outcomes[5.0][1][0]\n"
            "assert outcomes[3.0][0] is not None and outcomes[3.0][1].max() > 4 * outcomes[3.0][1][0]",
            after="# the same start with one weight changed in its seventh decimal",
        ),
        Check(
            "at η = 2 a change in the seventh decimal makes a difference in the first",
            "assert apart > 0.1",
            after="_, nudged_losses, _, _ = train_by_hand(nudged, 2.0)",
        ),
    ],
    "05-bptt-in-practice.ipynb": [
        Check(
            "init_params(4, 3, seed=0) is notebook 04's network: 5.9164 nats",
            "assert round(plain_loss, 4) == 5.9164",
            after="vocab = Vocabulary.from_text(TEXT)",
        ),
        Check(
            "backward without a slip is rnn_core.loss_and_grads, ∇h0 L included",
            "assert same and np.allclose(right_dh0, core_dh0)",
            after="out = forward(params, inputs, h0)",
        ),
        Check(
            "H ≠ V: numpy refuses exactly the two slips of the wrong shape; 14 slips, 15 rows",
            'assert refused == ["W_xh in place of W_hh", "x_t in place of h_{t-1}"] and len(covered) == 15',
            after="full = worst_errors(inputs, targets)",
        ),
        Check(
            "on one step, six slips pass a check of the parameters, three a check with ∇h0 L",
            "assert missed_by_params == [\n"
            '    "∇h_{t+1} L from o_{t+1} only", "no contribution from h_{t+1}", "tanh\' after W_hhᵀ",\n'
            '    "W_xh in place of W_hh", "b_o without Σ_t", "W_hh not transposed",\n'
            "]\n"
            "assert missed_with_h0 == [\n"
            '    "∇h_{t+1} L from o_{t+1} only", "no contribution from h_{t+1}", "b_o without Σ_t",\n'
            "]\n"
            'assert one_step["W_xh in place of W_hh"][1] is None  # at T = 1: a ∇h0 L of the wrong size',
            after="def let_through(results, column):",
        ),
        Check(
            "the truncated sum by hand is rnn_core's bptt_truncate, keeps ∇W_yh L and ∇b_o L, and is full at k = T - 1",
            "for k in (0, 1, 5, 20, TB_T - 1):\n"
            "    ours = truncated_bptt_by_hand(tb_params, tb_inputs, tb_targets, k, tb_h0)\n"
            "    _, core, _ = loss_and_grads(tb_params, tb_inputs, tb_targets, bptt_truncate=k)\n"
            "    assert all(np.allclose(ours[n], core[n]) for n in PARAM_NAMES)\n"
            '    assert all(np.allclose(ours[n], full_grads[n]) for n in ("W_yh", "b_o"))\n'
            "    assert all(np.allclose(ours[n], full_grads[n]) for n in PARAM_NAMES) == (k >= TB_T - 1)",
            after="tb_params = init_params(tb_vocab.size, TB_H, seed=SEED)",
        ),
        Check(
            "slips 5 and 4 are truncation at k = 0 and k = 1",
            "assert same",
            after="for slip, k in [",
        ),
        Check(
            "the truncation error: below 1e-6 at k = 20 and roundoff at k = 40 for ρ = 0.5, slow at ρ = 1, "
            "most of the gradient for ρ ≥ 1.5",
            "assert truncation_error[0.5][20] < 1e-6 and truncation_error[0.5][40] < 1e-12\n"
            "assert 1e-9 < truncation_error[1.0][40] < 1e-2\n"
            "assert truncation_error[1.5][40] > 0.3 and truncation_error[2.5][40] > 0.9\n"
            "assert np.isclose(radius, TB_SCALES[-1]) and np.isclose(norm2, TB_SCALES[-1])",
            after="def through_time(grads):",
        ),
        Check(
            "the truncation figure cuts no curve off",
            "import matplotlib.pyplot as plt\n"
            'fig = plots.plot_truncation_error(TB_KS, truncation_error, "check")\n'
            "low, high = fig.axes[0].get_ylim()\n"
            "plt.close(fig)\n"
            "shown = np.concatenate(list(truncation_error.values()))\n"
            "assert low < shown.min() and shown.max() < high",
            after="plots.plot_truncation_error(",
        ),
        Check(
            "carried windows give the whole text's loss, restarted ones do not; ∇W_yh L and ∇b_o L agree",
            "assert np.isclose(carried_loss, full_loss) and not np.isclose(reset_loss, full_loss)\nassert output_same",
            after="full_loss, full_grads, _ = loss_and_grads(tb_params, tb_inputs, tb_targets)",
        ),
        Check(
            "ρ = 0.5: the figure holds every curve and the bound; the gradient has vanished after 60 steps",
            "low, high = ax.get_ylim()\n"
            "assert low <= min(flows.min(), (0.5**lags * flows[0, 0]).min())\n"
            "assert max(flows.max(), (0.5**lags * flows[0, 0]).max()) <= high\n"
            "assert np.median(flows[:, FLOW_T] / flows[:, 0]) < 1e-15",
            after="flows, ax = show_gradient_flow(0.5, 32)",
        ),
        Check(
            "ρ = 1: the figure holds every curve and the bound",
            "low, high = ax.get_ylim()\nassert low <= flows.min() and max(flows.max(), flows[0, 0]) <= high",
            after="flows, ax = show_gradient_flow(1.0, 32)",
        ),
        Check(
            "ρ = 2: the figure holds every curve and the bound",
            "low, high = ax.get_ylim()\n"
            "assert low <= flows.min() and max(flows.max(), (2.0**lags * flows[0, 0]).max()) <= high",
            after="flows, ax = show_gradient_flow(2.0, 32)",
        ),
        Check(
            "where the three initialisations start: spectral radii 0.16, 0.6 and 1, in that order of gradient",
            "radii = [np.abs(np.linalg.eigvals(W)).max() for W in starts.values()]\n"
            "assert radii[0] < 0.2 and 0.5 < radii[1] < 0.7 and np.isclose(radii[2], 1.0)\n"
            "assert list(ratios.values()) == sorted(ratios.values())\n"
            "assert 0.08 < minchar_100 < 0.12",
            after="INIT_H = 256",
        ),
        Check(
            "in two dimensions global-norm clipping keeps the direction and elementwise clipping turns it",
            "assert angle_deg(g2, by_norm) < 1e-6 < angle_deg(g2, by_entry)",
            after="g2 = np.array([6.0, 1.5])",
        ),
        Check(
            "a real exploding gradient: global-norm clipping keeps its direction, elementwise turns it",
            "assert np.isclose(norm_before, rnn_core.global_norm(g_raw)) and norm_before > MAX_NORM\n"
            "assert np.isclose(rnn_core.global_norm(g_norm), MAX_NORM)\n"
            "assert cosine(flatten(g_norm), flatten(g_raw)) > 1 - 1e-12\n"
            "assert np.abs(flatten(g_entry)).max() <= CLIP_VALUE\n"
            "assert cosine(flatten(g_entry), flatten(g_raw)) < 0.999",
            after="boom = init_params(tb_vocab.size, 32, seed=SEED, recurrent_scale=2.0)",
        ),
    ],
    "10-deeper-networks-and-overfitting.ipynb": [
        Check(
            "without dropout, validation bpc climbs from its lowest point while training bpc falls, at every seed",
            "assert min(risen) > 0.2 and min(fallen) > 0.3",
            after="def report(runs):",
        ),
        Check(
            "dropout ends lower, with a smaller gap, than no dropout, by more than the seeds' spread",
            "assert margin(end_dropped, end_plain) > largest and margin(gap_dropped, gap_plain) > largest",
            after="def spread(values):",
        ),
        Check(
            "patience stops the run without dropout early, a third of its steps or more before the end",
            'assert stopped.stopped == "patience" and stopped.step <= 2 * full.step // 3',
            after="with tempfile.TemporaryDirectory() as folder:",
        ),
        Check(
            "early stopping beats running on, and dropout with early stopping beats early stopping alone",
            "assert early_helps and both_help",
            after="endings = {",
        ),
        Check(
            "two layers win at equal steps, one layer at γ = 1.7, by more than the seeds' spread",
            'assert verdicts[RATIOS[0]][0] == "two layers" and verdicts[RATIOS[-1]][0] == "one layer"',
            after="deep, *wide = race.values()",
        ),
        Check(
            "with the template's stubs every piece is rnn_core's, trained once, and its loss falls well below "
            "its start",
            "assert set(yours.used.values()) == {'rnn_core'}\n"
            "assert yours.losses[-100:].mean() < yours.losses[:10].mean() - 1.0",
            after="mine = practice.my_rnn()",
        ),
    ],
    "08-gated-cells-lstm.ipynb": [
        Check(
            "the untrained vanilla RNN's product of Jacobians never grows (its W_hh is orthogonal)",
            "assert all(b <= a * (1 + 1e-12) for a, b in zip(product_norms[1:], product_norms[2:]))",
            after="task_inputs, task_targets = recall_batch(",
        ),
        Check(
            "the vanilla RNN recalls at lag 5 with every seed and guesses from lag 20 on with every seed; "
            "most updates are clipped",
            "assert (vanilla_acc[:, 0] >= SOLVED).all()\n"
            "assert (vanilla_acc[:, LAGS.index(20) :] < CHANCE + 0.1).all()\n"
            "assert min(clipped) > 0.5",
            after="def accuracies(runs):",
        ),
        Check(
            "the LSTM recalls where the vanilla RNN guessed: a seed at 0.95 or more, a mean of 0.75 or more",
            "guessed = vanilla_acc.mean(axis=0) < CHANCE + 0.1\n"
            "assert guessed.sum() >= 2\n"
            "assert (lstm_acc[:, guessed].max(axis=0) >= 0.95).all()\n"
            "assert (lstm_acc[:, guessed].mean(axis=0) >= 0.75).all()",
            after="lstm_acc = accuracies(lstm_runs)",
        ),
        Check(
            "the recall runs' other seeds, run afresh (LONG_RUNS), recall or guess where the stored ones did: "
            "the vanilla RNN's at lags 5, 20 and 40, the LSTM's at lag 5 (its longer lags may stop on a plateau)",
            "for key, runs, lags in (('vanilla', vanilla_runs, (5, 20, 40)), ('lstm', lstm_runs, (5,))):\n"
            "    kept = stored.load(f'08-recall-{key}')['results']\n"
            "    for lag in lags:\n"
            "        fresh = [run[1] >= 0.9 for run in runs[lag][1:]]\n"
            "        assert fresh == [acc >= 0.9 for acc, _, _ in kept[str(lag)]], (key, lag)",
            after="lstm_acc = accuracies(lstm_runs)",
        ),
        Check(
            "with rnn_core's steps (the template's stubs), your_cell is rnn_core.lstm and trains the same run",
            "assert your_lstm is lstm and (your_acc, your_updates) == (acc, updates)",
            after="# your steps, where they pass their checks",
        ),
        Check(
            "the control at lag 20: a vanilla RNN as large as the LSTM guesses, or with at most one seed gets "
            "part of the signals; an LSTM as small as the vanilla RNN recalls with every seed",
            "big = control_runs[f'vanilla RNN, H = {big_vanilla_H}']\n"
            "small = control_runs[f'LSTM, H = {small_lstm_H}']\n"
            "n = task_vocab.size\n"
            "assert rnn_core.count_params(n, big_vanilla_H) >= lstm.count_params(n, TASK_H)\n"
            "assert lstm.count_params(n, small_lstm_H) <= rnn_core.count_params(n, TASK_H)\n"
            "assert sum(acc > CHANCE + 0.1 for acc, _ in big[20]) <= 1\n"
            "assert all(acc < 0.9 for acc, _ in big[20])\n"
            "assert all(acc >= 0.9 for acc, _ in small[20])",
            after="controls = {",
        ),
        Check(
            "the controls run afresh (LONG_RUNS) recall as the stored ones did, seed by seed",
            "kept = stored.load('08-controls')['results']\n"
            "pairs = [(a, k) for n in kept for g, s in zip(control_runs[n].values(), kept[n].values())\n"
            "         for (a, _), (k, _) in zip(g, s)]\n"
            "assert len(pairs) == 6 and all((a >= 0.9) == (k >= 0.9) for a, k in pairs)",
            after="controls = {",
        ),
        Check(
            "with the mean clipped no update is clipped and fewer seeds recall at lag 40; the gradient's "
            "norm falls tenfold early and later swings by ten or more",
            "assert all(max(n) <= CLIP for _, _, n in mean_clipped)\n"
            "solved = sum(acc >= 0.95 for acc, _, _ in mean_clipped)\n"
            "assert solved < sum(run[1] >= 0.95 for run in lstm_runs[LAGS[-1]])\n"
            "assert norms[0] > 10 * np.median(norms[20:50])\n"
            "assert later.max() > 10 * later.min()",
            after="def run_the_mean_clipped(",
        ),
        Check(
            "the runs with the mean clipped, run afresh (LONG_RUNS), start as the stored ones did, seed by seed",
            "kept = stored.load('08-mean-clipped')['results']\n"
            "firsts = [(n[0], k[0]) for (_, _, n), (_, _, k) in zip(mean_clipped, kept)]\n"
            "assert len(firsts) == len(SEEDS) and all(abs(a - b) < 1e-3 * b for a, b in firsts)",
            after="def run_the_mean_clipped(",
        ),
        Check(
            "after training the LSTM's gradient reaches the signal, the vanilla RNN's does not",
            "far = LAGS[-1]\n"
            "assert flows['LSTM (trained)'][far] > 1e6 * flows['vanilla (trained)'][far]\n"
            "assert flows['LSTM (trained)'][far] > 0.01 * flows['LSTM (trained)'][1]\n"
            "assert flows['vanilla (trained)'][far] < flows['vanilla (init)'][far]\n"
            "assert slopes['trained'] < slopes['init']",
            after="# the first seed's networks, trained at the longest lag",
        ),
        Check(
            "the trained LSTM holds the signal on units whose forget gates stay near 1; no fresh unit does",
            "assert len(holders) >= 1 and (f_mean >= 0.95).all() and accuracy >= 0.95\n"
            "assert kept['fresh'].max() < 1e-3",
            after="test_inputs, test_targets = recall_batch(",
        ),
        Check(
            "more forget-gate bias carries more gradient up to 3, and less at 5 than at 3",
            "assert all(a < b for a, b in zip(at_signal[:3], at_signal[1:4]))\nassert at_signal[4] < at_signal[3]",
            after="# the slider's function at five biases",
        ),
        Check(
            "on the novel, by notebook 06's rule: update for update the LSTM is ahead; at equal multiply-adds "
            "it is behind, and the gap narrows along the race",
            "assert max(end['LSTM'].max(), end['vanilla RNN'].max()) < 3.0\n"
            "def holds(a, b):  # notebook 06's rule: the worst seed ahead against the other's best\n"
            "    ahead, behind = sorted((a, b), key=np.mean)\n"
            "    return behind.min() - ahead.max() > max(np.ptp(a), np.ptp(b))\n"
            "assert end['LSTM'].mean() < same.mean() and holds(end['LSTM'], same)\n"
            "assert end['LSTM'].mean() > end['vanilla RNN'].mean() and holds(end['LSTM'], end['vanilla RNN'])\n"
            "assert gaps[-1] < gaps[0]",
            after="end = {name: bpc_at(",
        ),
    ],
    "09-gated-cells-gru.ipynb": [
        Check(
            "across 40 steps the fresh GRU carries less gradient to the signal than the fresh vanilla RNN, "
            "and the fresh LSTM the most",
            "far = LAGS[-1]\n"
            "assert fresh['GRU (init)'][far] < fresh['vanilla RNN (init)'][far] < fresh['LSTM (init)'][far]",
            after="fresh = {",
        ),
        Check(
            "both gated cells recall where the vanilla RNN guessed (every vanilla seed at chance from lag 20 "
            "on); by the median of the seeds the GRU needs fewer updates than the LSTM from lag 10 on",
            "guessed = [k for k, lag in enumerate(LAGS) if lag >= 20]\n"
            "assert guessed and (accuracy['vanilla RNN'][:, guessed] < CHANCE + 0.1).all()\n"
            "for name in ('LSTM', 'GRU'):\n"
            "    assert (accuracy[name][:, guessed].mean(axis=0) >= 0.75).all()\n"
            "    assert (accuracy[name][:, guessed].max(axis=0) >= 0.95).all()\n"
            "from_10 = [k for k, lag in enumerate(LAGS) if lag >= 10]\n"
            "assert (np.median(updates['GRU'][from_10], axis=1) < np.median(updates['LSTM'][from_10], axis=1)).all()",
            after="accuracy = {",
        ),
        Check(
            "the recall runs run afresh (LONG_RUNS): as many as the stored ones, the shortest lag's as accurate",
            "kept = stored.load('09-recall')['results']\n"
            "assert all(len(runs[n][lag]) == len(kept[n][str(lag)]) for n in CELLS for lag in LAGS)\n"
            "pairs = [(a, b) for n in CELLS for (a, _), (b, _) in zip(runs[n][LAGS[0]], kept[n][str(LAGS[0])])]\n"
            "assert max(abs(a - b) for a, b in pairs) < 0.02",
            after="snapshots = {}",
        ),
        Check(
            "with rnn_core's steps (the template's stubs), your_cell is rnn_core.gru and trains the same run",
            "assert your_gru is gru and (your_acc, your_updates) == (acc, made)",
            after="# your steps, where they pass their checks",
        ),
        Check(
            "within its first updates the GRU's gradient at the signal grows ten-thousandfold as some unit's "
            "update gate opens from about 0.6 to above 0.9; the vanilla RNN's falls and stays low",
            "gru_norm = np.median(at_signal['GRU'], axis=0)\n"
            "assert gru_norm[-3:].max() > 1e4 * gru_norm[0]\n"
            "gru_z = np.median(most_kept['GRU'], axis=0)\n"
            "assert gru_z[0] < 0.7 and gru_z[-1] > 0.9\n"
            "vanilla = np.median(at_signal['vanilla RNN'], axis=0)\n"
            "assert (vanilla[1:] < 1e-3 * vanilla[0]).all()",
            after='print(\n    f"lag {LAGS[-1]}: the gradient of L_T at the signal',
        ),
        Check(
            "on the novel at equal multiply-adds, by notebook 06's rule: the GRU ahead of the other two, "
            "the LSTM behind the vanilla RNN",
            "assert max(b.max() for b in end.values()) < 3.5\n"
            "def holds(a, b):  # notebook 06's rule: the worst seed ahead against the other's best\n"
            "    ahead, behind = sorted((a, b), key=np.mean)\n"
            "    return behind.min() - ahead.max() > max(np.ptp(a), np.ptp(b))\n"
            "assert end['GRU'].mean() < min(end['vanilla RNN'].mean(), end['LSTM'].mean())\n"
            "assert holds(end['GRU'], end['vanilla RNN']) and holds(end['GRU'], end['LSTM'])\n"
            "assert end['LSTM'].mean() > end['vanilla RNN'].mean() and holds(end['LSTM'], end['vanilla RNN'])",
            after="def compare(a, b):",
        ),
        Check(
            "the race run afresh (LONG_RUNS) ends near the stored one, cell by cell and seed by seed",
            "kept = stored.load('09-race')['results']\n"
            "ends = [(c[-1][2], k[-1][2]) for n in race for (*_, c), (*_, k) in zip(race[n], kept[n])]\n"
            "assert len(ends) == 9 and max(abs(a - b) for a, b in ends) < 0.1",
            after="pp_updates = {",
        ),
    ],
    "12-attention.ipynb": [
        Check(
            "with attention nearly every held-out date is right at every seed and length; without, almost none",
            "assert with_att.min() > 0.95 and without.max() < 0.05 and (gap > spread).all()",
            after='labels = {"dot"',
        ),
        Check(
            "the year's digits look near the end of the input, the month's in the middle, the day's near the start",
            "year, month, day = share[:, :4].mean(), share[:, 5:7].mean(), share[:, 8:10].mean()\n"
            "assert year > 0.85 and 0.4 < month < 0.8 and day < 0.4",
            after="of_form = ",
        ),
        Check(
            "without attention the year's last digits are mostly right, the month's and day's last near chance",
            "assert shares[:, 2:4].min() >= 0.7 and shares[:, [6, 9]].max() < 0.2",
            after="def right_by_position",
        ),
        Check(
            "the Addons step passes only the check that the pads change nothing; the unmasked step fails all three",
            "assert check_step(memory_zeroed_only) == (False, True, False) and not any(check_step(no_mask))",
            after="def check_step",
        ),
        Check(
            "with the template's stubs every piece is rnn_core's, and the cell trains nothing again",
            "assert pieces == {}",
            after="PIECES = {",
        ),
    ],
}


def insert_checks(items: list, registry: dict[str, list[Check]] | None = None) -> None:
    """Put each notebook's checks among nbval's items (``items``, changed in place), each right after
    the item of the cell it follows, in the notebook's own kernel."""
    from nbformat.v4 import new_code_cell
    from nbval.plugin import IPyNbCell

    registry = CHECKS if registry is None else registry
    for notebook, checks in registry.items():
        cells = [it for it in items if isinstance(it, IPyNbCell) and it.path.name == notebook and not _is_check(it)]
        if not cells:
            continue  # not collected in this run
        for check in checks:
            if check.after:
                found = [it for it in cells if it.cell.source.lstrip().startswith(check.after)]
            else:
                found = cells[-1:]
            code = check.code
            if len(found) != 1:
                problem = f"tests/notebook_checks.py: {len(found)} code cells of {notebook} start with {check.after!r}"
                code = f"raise AssertionError({problem + ', expected one: the check cannot find its place'!r})"
                found = cells[-1:]
            place = found[0]
            options = defaultdict(bool, {"check": False})  # nothing to compare: it prints nothing
            name, cell = f"Check: {check.claim}", new_code_cell(code)
            item = _check_item_class().from_parent(
                place.parent, name=name, cell_num=place.cell_num, cell=cell, options=options
            )
            items.insert(items.index(place) + 1 + sum(1 for _ in _checks_after(items, place)), item)


_CHECK_ITEM = None


def _check_item_class():
    """nbval's cell item, reported under the check's name (not as the cell it follows)."""
    global _CHECK_ITEM
    if _CHECK_ITEM is None:
        from nbval.plugin import IPyNbCell

        class NotebookCheck(IPyNbCell):
            def reportinfo(self):
                return self.path, 0, f"{self.path.name}::{self.name}"

        _CHECK_ITEM = NotebookCheck
    return _CHECK_ITEM


def _is_check(item) -> bool:
    return item.name.startswith("Check: ")


def _checks_after(items, place):
    """The check items already inserted right after ``place`` (so that checks keep their order)."""
    i = items.index(place) + 1
    while i < len(items) and _is_check(items[i]) and items[i].parent is place.parent:
        yield items[i]
        i += 1
