"""What the notebooks' trained networks must achieve, checked where nbval runs them, not in the notebooks.

A notebook shows what a reader needs; a guard that protects one of its claims from regressions
("the main run ends well below the bigram baseline") is a test, and lives here. nbval runs every
notebook in full (``pytest notebooks``, also under another CPU's BLAS kernels: tests/test_other_cpu.py);
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
            "Adam's first update moves a weight with a clear gradient by α; uncorrected, by (1 - β1)/√(1 - β2) α",
            "assert np.allclose(moved[big], 1, atol=1e-3)\n"
            "assert np.allclose(uncorrected[big], 0.1 / math.sqrt(0.001), rtol=1e-3)",
            after="def flat(arrays):",
        ),
        Check(
            "Adam moves a steady weight by about α per step whatever its gradient, a flipping one far less",
            "assert np.allclose(travel[:2], 1, atol=1e-3) and travel[2] < 0.1",
            after="# 100 updates of three weights",
        ),
        Check(
            "every run of the race ran its steps and ended finite; SGD's largest rate ends far worse than its best",
            "assert all(run.step == COMPARE_STEPS and np.isfinite(run.val_bpc) for run in races.values())\n"
            'assert grid["sgd"][RATES["sgd"][-1]] > min(grid["sgd"].values()) + 0.3',
            after="races = {}",
        ),
        Check(
            "at every seed, SGD with momentum ends below SGD and Adam below SGD with momentum",
            "assert momentum_gap > 0 and adam_gap > 0",
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
            "the samples: the novel's characters; cooler text less surprising, more real words; τ = 0 ends in a loop",
            "assert all(len(s) == SAMPLE_LENGTH and set(s) <= set(vocab.chars) for s in samples.values())\n"
            "assert surprise[0.0] < surprise[0.5] < surprise[1.0] < surprise[1.5]\n"
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
            "assert all(run.step == SWEEP_STEPS and np.isfinite(run.val_bpc) for run in sweep.values())\n"
            "assert np.all(gains > 0) and val_by_size[-1] < val_by_size[0] - 0.5\n"
            "assert np.all(per_1000[1:] < 0.6 * per_1000[:-1])",
            after="sweep = {",
        ),
        Check(
            "beside the sweep: another seed lands close; ÷10 lags far; ×60 climbs past the uniform guess, ends far "
            "behind; T = 8 behind",
            "ref = sweep[64].val_bpc\n"
            "assert all(run.step == SWEEP_STEPS and np.isfinite(run.val_bpc) for run in variants.values())\n"
            'assert abs(variants["H = 64 from seed 1"].val_bpc - ref) < 0.5 * gains.min()\n'
            'assert variants["learning rate ÷ 10 (0.0005)"].val_bpc > ref + 0.5\n'
            'wild = variants["learning rate × 60 (0.3)"]\n'
            'assert wild.history.arrays()["train_bpc"].max() > 2 * BASELINES["uniform"]\n'
            "assert wild.val_bpc > ref + 1\n"
            'assert variants["windows of T = 8"].val_bpc > ref',
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
            "spikes are rare and small, and come from harder windows",
            "assert running_median.shape == norms.shape\n"
            "assert spikes.mean() < 0.01 and norms[later].max() < 10 * np.median(norms[later])\n"
            "assert not spikes.any() or bpc[spikes].mean() > np.median(bpc[later])",
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
            "assert saturated['SGD, ρ = 4, not clipped'] > 0.95 and saturated['Adam, ρ = 1, clipped'] < 0.2\n"
            "assert at_start[4.0] > 0.3 > 0.1 > at_start[1.0]",
            after="clip_results, moved, saturated",
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
