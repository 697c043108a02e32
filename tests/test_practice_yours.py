"""Your own network (issue 26): my_rnn.py, practice.save, check_all, use_yours and train_yours.

The reader's complete answers are tests/plain_my_rnn.py, written independently of rnn_core; a partly
written file and wrong pieces are built from it here. Every file these tests write is in pytest's
tmp_path, named by $RNN_CORE_MY_RNN: nothing is written into notebooks/.
"""

import ast
import os
from pathlib import Path

import nbformat
import numpy as np
import plain_my_rnn  # tests/plain_my_rnn.py
import pytest
from practice_answers import quietly, use_my_rnn_file  # tests/practice_answers.py

import rnn_core
from rnn_core import practice
from rnn_core.course.yours import PIECES, TEMPLATE, file_name

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
TEXT = (
    "It is a truth universally acknowledged, that a single man in possession of a good fortune, "
    "must be in want of a wife. However little known the feelings or views of such a man may be. "
) * 12
SESSION_MY_RNN = os.environ.get("RNN_CORE_MY_RNN")  # as conftest.py set it for the whole test run
RUN = dict(hidden_size=16, steps=120, seed=3, batch_size=4, sample_length=60)  # small and quick


@pytest.fixture(autouse=True)
def my_rnn_file(tmp_path, monkeypatch):
    """$RNN_CORE_MY_RNN names a file in tmp_path (not made yet); the current folder is tmp_path too."""
    path = use_my_rnn_file(tmp_path / "answers" / "my_rnn.py", monkeypatch)
    monkeypatch.chdir(tmp_path)
    return path


def plain_functions(*names):
    """{file name: the plain implementation} for the exercises named (all if none)."""
    names = names or tuple(practice.EXERCISES)
    return {file_name(n): getattr(plain_my_rnn, file_name(n)) for n in names}


def adam_without_bias_correction(params, grads, state, lr, beta1=0.9, beta2=0.999, eps=1e-8):
    t = state["t"] + 1
    m = {k: beta1 * state["m"][k] + (1 - beta1) * grads[k] for k in params}
    v = {k: beta2 * state["v"][k] + (1 - beta2) * grads[k] ** 2 for k in params}
    new = {k: params[k] - lr * m[k] / (np.sqrt(v[k]) + eps) for k in params}
    return new, {"t": t, "m": m, "v": v}


def rnn_core_loop(text, hidden_size, steps, seed, batch_size, seq_length=25, lr=1e-2, clip_norm=5.0):
    """train_yours' loop written with rnn_core's functions: (losses, params)."""
    vocab = rnn_core.Vocabulary.from_text(text)
    batcher = rnn_core.StreamBatcher(vocab.encode(text), batch_size, seq_length)
    params = rnn_core.init_params(vocab.size, hidden_size, seed=seed)
    state = rnn_core.adam_init(params)
    chars = batch_size * seq_length
    losses = []
    for step in range(steps):
        k = step % batcher.windows_per_pass
        if k == 0:
            h = np.zeros((batch_size, hidden_size))
        X, Y = batcher.window(k)
        loss = 0.0
        grads = {name: np.zeros_like(p) for name, p in params.items()}
        for b in range(batch_size):
            row_loss, row_grads, h[b] = rnn_core.loss_and_grads(params, X[b], Y[b], h[b])
            loss += row_loss
            grads = {name: grads[name] + row_grads[name] for name in grads}
        grads = {name: g * (1.0 / chars) for name, g in grads.items()}
        grads, _ = rnn_core.clip_global_norm(grads, clip_norm)
        params, state = rnn_core.adam_update(params, grads, state, lr)
        losses.append(loss / chars)
    return np.array(losses), params


# -- my_rnn.py and its template ----------------------------------------------------------------------


def test_my_rnn_makes_the_template_once_and_says_where(my_rnn_file):
    mine, printed = quietly(practice.my_rnn)
    # named by its folder and name, as the default file is: no trace of the variable in what a notebook shows
    assert printed.startswith("Made answers/my_rnn.py from the template")
    assert my_rnn_file.read_text(encoding="utf-8") == TEMPLATE
    assert Path(mine.__file__) == my_rnn_file
    _, printed = quietly(practice.my_rnn)
    assert printed == "Your file: answers/my_rnn.py.\n"
    assert [p.name for p in my_rnn_file.parent.iterdir()] == ["my_rnn.py"]  # no temporary file left


def test_without_the_variable_my_rnn_is_in_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(practice.MY_RNN_ENV)
    _, printed = quietly(practice.my_rnn)
    assert (tmp_path / "my_rnn.py").read_text(encoding="utf-8") == TEMPLATE
    assert printed.startswith(f"Made {tmp_path.name}/my_rnn.py from the template")
    assert oct((tmp_path / "my_rnn.py").stat().st_mode & 0o777) != "0o600"  # a file like any other, not mkstemp's


def test_stored_outputs_name_the_file_as_a_reader_sees_it():
    """What the notebooks show is what a reader sees at home: notebooks/my_rnn.py, no variable of the tests."""
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in nbformat.read(notebook, as_version=4)["cells"]:
            for output in cell.get("outputs", []):
                text = output.get("text", "") + output.get("data", {}).get("text/plain", "")
                assert practice.MY_RNN_ENV not in text, (notebook.name, cell.get("id"), text[:200])
                for line in text.splitlines():
                    if line.startswith(("Your file: ", "Made ")) and "my_rnn.py" in line:
                        assert line.startswith(("Your file: notebooks/my_rnn.py.", "Made notebooks/my_rnn.py ")), line


def test_the_template_has_one_stub_per_exercise_with_the_notebooks_signature():
    tree = ast.parse(TEMPLATE)
    defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert list(defs) == [file_name(n) for n in practice.EXERCISES]
    asked = notebook_stubs()
    for name, node in defs.items():
        assert ast.get_docstring(node), name
        assert ast.unparse(node.args) == ast.unparse(asked[name].args), name
    assert max(len(line) for line in TEMPLATE.splitlines()) <= 88  # the notebooks' line length


def notebook_stubs():
    """{name: the FunctionDef} of every exercise stub in the notebooks (a def whose body raises NotImplementedError)."""
    stubs = {}
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        for cell in nbformat.read(notebook, as_version=4)["cells"]:
            source = cell["source"]
            if cell["cell_type"] != "code" or "NotImplementedError" not in source:
                continue
            for node in ast.parse(source).body:
                if isinstance(node, ast.FunctionDef) and node.name in {file_name(n) for n in practice.EXERCISES}:
                    stubs[node.name] = node
    return stubs


def test_the_template_through_check_all_is_not_attempted_everywhere():
    mine, _ = quietly(practice.my_rnn)
    results, printed = quietly(practice.check_all, mine)
    assert list(results) == list(practice.EXERCISES)
    assert {r.status for r in results.values()} == {"not attempted"}
    lines = printed.splitlines()
    assert lines[0].split() == ["piece", "status", "notebook"]
    for line, (name, notebook) in zip(lines[1:], practice.EXERCISES.items()):
        assert line.split() == [name, "not", "attempted", notebook.removesuffix(".ipynb")]
    assert lines[-1] == f"0 of {len(practice.EXERCISES)} pieces pass their checks."
    assert quietly(practice.check_all, mine)[1] == printed  # the same table every time


def test_a_file_that_does_not_run_is_named_with_its_line(my_rnn_file):
    my_rnn_file.write_text("import numpy as np\n\ndef softmax(o)\n    return o\n", encoding="utf-8")
    with pytest.raises(ImportError, match=r"answers/my_rnn.py does not run \(line 3\): SyntaxError"):
        practice.my_rnn()


# -- check_all -------------------------------------------------------------------------------------------


def test_the_plain_answers_pass_check_all_as_a_module_and_as_a_dict():
    for functions in (plain_my_rnn, plain_functions()):
        results, printed = quietly(practice.check_all, functions)
        assert {name: r.status for name, r in results.items()} == dict.fromkeys(practice.EXERCISES, "passed")
        n = len(practice.EXERCISES)
        assert printed.splitlines()[-1] == f"{n} of {n} pieces pass their checks."


def test_check_all_marks_missing_wrong_and_rnn_core_own_pieces():
    functions = {
        "softmax": plain_my_rnn.softmax,
        "lstm.step_forward": plain_my_rnn.lstm_step_forward,  # the exercise's name works as a key too
        "adam_update": adam_without_bias_correction,
        "global_norm": rnn_core.global_norm,  # the package's own: not the reader's
    }
    results, printed = quietly(practice.check_all, functions)
    assert {n: r.status for n, r in results.items()} == {
        "softmax": "passed",
        "adam_update": "wrong",
        "lstm.step_forward": "passed",
    }
    rows = {line.split()[0]: line for line in printed.splitlines()[1:-2]}
    assert "rnn_core's own" in rows["global_norm"] and "missing" in rows["one_hot"]
    assert printed.splitlines()[-2:] == [
        f"2 of {len(practice.EXERCISES)} pieces pass their checks.",
        'practice.check("name", your_function) says what is wrong with a piece.',
    ]


def test_check_all_refuses_what_is_neither_a_module_nor_a_dict():
    with pytest.raises(TypeError, match="module .* or a dict"):
        practice.check_all([plain_my_rnn.softmax])


# -- save ------------------------------------------------------------------------------------------------


def test_save_writes_a_passing_answer_in_place_of_its_stub(my_rnn_file):
    def softmax(o):  # indented here: saved without its indentation
        z = np.exp(o - np.max(o))
        return z / z.sum()

    quietly(practice.my_rnn)
    before = my_rnn_file.read_text(encoding="utf-8")
    result, printed = quietly(practice.save, softmax)
    assert result.status == "passed"
    assert printed == (  # no check message: it passes
        "Saved softmax into answers/my_rnn.py, in place of its stub (it passes its check).\n"
    )
    after = my_rnn_file.read_text(encoding="utf-8")
    stub_start = before.index("def softmax(o):")
    stub = "raise NotImplementedError  # your code here"
    stub_end = before.index(stub, stub_start) + len(stub)
    saved = "def softmax(o):  # indented here: saved without its indentation\n    z = np.exp(o - np.max(o))\n"
    assert after == before[:stub_start] + saved + "    return z / z.sum()" + before[stub_end:]
    results, _ = quietly(practice.check_all, quietly(practice.my_rnn)[0])
    assert results["softmax"].status == "passed" and results["one_hot"].status == "not attempted"
    assert [p.name for p in my_rnn_file.parent.iterdir()] == ["my_rnn.py"]


def test_save_makes_the_file_first_and_replaces_an_earlier_answer(my_rnn_file):
    _, printed = quietly(practice.save, plain_my_rnn.global_norm)
    assert printed.count("Made answers/my_rnn.py") == 1 and "in place of its stub" in printed
    _, printed = quietly(practice.save, plain_my_rnn.global_norm)
    assert "in place of your earlier one" in printed
    text = my_rnn_file.read_text(encoding="utf-8")
    assert text.count("def global_norm(") == 1 and text.count("def ") == len(practice.EXERCISES)


def test_save_refuses_a_wrong_answer_unless_forced(my_rnn_file):
    quietly(practice.my_rnn)
    result, printed = quietly(practice.save, adam_without_bias_correction, "adam_update")
    assert result.status == "wrong"
    assert printed.startswith(result.message + "\n")  # what is wrong, as practice.check says it
    assert "Not saved: your adam_update does not pass its check (wrong)" in printed
    assert my_rnn_file.read_text(encoding="utf-8") == TEMPLATE
    result, printed = quietly(practice.save, adam_without_bias_correction, "adam_update", force=True)
    assert printed.endswith("in place of its stub, though it does not pass its check.\n")
    text = my_rnn_file.read_text(encoding="utf-8")
    assert "def adam_update(params, grads, state, lr" in text  # renamed to the file's name
    assert "adam_without_bias_correction" not in text


def test_save_warns_about_names_my_rnn_lacks_or_has_only_as_stubs(my_rnn_file):
    def norm_of(g):
        return np.sqrt(np.sum(g * g))

    def global_norm(grads):
        return float(np.sqrt(sum(norm_of(g) ** 2 for g in grads.values())))

    result, printed = quietly(practice.save, global_norm)  # norm_of is no global: it cannot go into the file
    assert result.status == "error" and "NameError: name 'norm_of' is not defined" in printed
    assert "Not saved: your global_norm passes its check here, but not inside answers/my_rnn.py" in printed
    assert "Warning: global_norm uses norm_of, which answers/my_rnn.py does not define" in printed
    assert 'def global_norm(grads):\n    """' in my_rnn_file.read_text(encoding="utf-8")  # still the stub
    assert "Warning" not in quietly(practice.save, plain_my_rnn.softmax)[1]  # np and nothing else
    _, printed = quietly(practice.save, plain_my_rnn.loss_and_grads)
    notes = [line.split()[3].rstrip(",") for line in printed.splitlines() if line.startswith("Note:")]
    assert sorted(notes) == ["step_backward", "step_forward"]  # softmax is saved already


def test_save_imports_what_a_notebook_imported_and_names_a_piece_that_means_otherwise(my_rnn_file):
    """A passing answer written with the notebook's names (02's rnn_core.one_hot, 11's log_softmax) is
    saved with their imports; one that fails in the file because a name there is the reader's own
    piece (12's batch softmax against 01's one-vector softmax) is told so (a learner lost time on each)."""
    cell = notebook_cell(
        my_rnn_file.parent.parent,
        "import numpy as np\nimport rnn_core\nfrom rnn_core import softmax  # rows of a batch\n\n\n"
        "def cross_entropy_grad(o, y):\n    return softmax(o) - rnn_core.one_hot(y, len(o))\n\n\n"
        "def attention_forward(h, u, mask):\n"
        "    alpha = softmax(np.where(mask, np.einsum('bh,bsh->bs', h, u), -np.inf))\n"
        "    return alpha, np.einsum('bs,bsh->bh', alpha, u)\n",
    )
    quietly(practice.my_rnn)
    result, printed = quietly(practice.save, cell.cross_entropy_grad)
    assert result.status == "passed" and "Added import rnn_core at the top of answers/my_rnn.py" in printed
    assert "\nimport rnn_core\n" in my_rnn_file.read_text(encoding="utf-8")
    quietly(practice.save, plain_my_rnn.softmax)  # 01's answer: one vector
    result, printed = quietly(practice.save, cell.attention_forward)
    assert result.status == "wrong" and "Not saved" in printed
    assert "attention_forward calls the file's own softmax, not rnn_core.softmax as it does here" in printed


def notebook_cell(folder, source):
    """A notebook's cell as a module (save reads a function's source from its file)."""
    import importlib.util

    path = folder / "notebook_cell.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("notebook_cell", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_save_refuses_what_it_cannot_save(my_rnn_file):
    with pytest.raises(ValueError, match="no exercise's name in my_rnn.py"):
        practice.save(adam_without_bias_correction)
    with pytest.raises(ValueError, match="no exercise named 'adam'"):
        practice.save(plain_my_rnn.adam_update, "adam")
    with pytest.raises(ValueError, match="written with def"):
        practice.save(lambda o: o, "softmax")
    with pytest.raises(TypeError, match="your function itself"):
        practice.save(plain_my_rnn.softmax(np.zeros(3)), "softmax")
    my_rnn_file.write_text("def softmax(o):\n    return o\n\ndef softmax(o)\n", encoding="utf-8")
    with pytest.raises(ValueError, match="does not parse .*nothing was written"):
        quietly(practice.save, plain_my_rnn.softmax)
    assert my_rnn_file.read_text(encoding="utf-8") == "def softmax(o):\n    return o\n\ndef softmax(o)\n"


# -- use_yours -------------------------------------------------------------------------------------------


def test_use_yours_takes_a_passing_answer_and_otherwise_says_why_not():
    chosen, printed = quietly(practice.use_yours, "loss_and_grads", plain_my_rnn.loss_and_grads)
    assert chosen is plain_my_rnn.loss_and_grads
    assert printed == "Using your loss_and_grads: it passes its check.\n"
    stub = quietly(practice.my_rnn)[0].loss_and_grads
    chosen, printed = quietly(practice.use_yours, "loss_and_grads", stub)
    assert chosen is rnn_core.loss_and_grads
    assert printed == "Your loss_and_grads is still a stub: using rnn_core's loss_and_grads.\n"
    chosen, printed = quietly(practice.use_yours, "adam_update", adam_without_bias_correction)
    assert chosen is rnn_core.adam_update
    assert printed == (
        "Your adam_update fails its check (wrong): using rnn_core's adam_update. "
        'practice.check("adam_update", adam_without_bias_correction) says why.\n'
    )


# -- train_yours -----------------------------------------------------------------------------------------


def test_with_rnn_core_pieces_train_yours_is_rnn_cores_loop():
    """The template (every piece falls back): the losses and parameters of the loop written with
    rnn_core's functions, bit for bit, and the sample rnn_core.sample draws."""
    mine, _ = quietly(practice.my_rnn)
    run, printed = quietly(practice.train_yours, mine, TEXT, **RUN)
    assert run.used == dict.fromkeys(PIECES, "rnn_core")
    assert printed.splitlines() == [
        f"Your {piece} is still a stub: training uses rnn_core's {piece}." for piece in PIECES
    ]
    losses, params = rnn_core_loop(TEXT, 16, 120, 3, 4)
    assert np.array_equal(run.losses, losses)
    assert all(np.array_equal(run.params[k], params[k]) for k in params)
    vocab = rnn_core.Vocabulary.from_text(TEXT)
    assert run.sample == rnn_core.sample(params, vocab, TEXT[0], 60, seed=3)


def test_the_plain_answers_train_and_match_rnn_cores_curve():
    run, printed = quietly(practice.train_yours, plain_my_rnn, TEXT, **RUN)
    assert printed == ""  # nothing replaced
    assert run.used == dict.fromkeys(PIECES, "yours")
    assert run.losses.shape == (120,)
    assert run.losses[-20:].mean() < run.losses[0] - 1.5  # from about ln V = 3.3 nats to well below
    ours, _ = quietly(practice.train_yours, {}, TEXT, **RUN)
    np.testing.assert_allclose(run.losses, ours.losses, rtol=1e-10, atol=0)  # float64: the same curve
    assert len(run.sample) == 60 and set(run.sample) <= set(TEXT)
    again, _ = quietly(practice.train_yours, plain_my_rnn, TEXT, **RUN)
    assert np.array_equal(again.losses, run.losses) and again.sample == run.sample  # seeded


def test_a_partly_written_file_falls_back_piece_by_piece_and_says_so(my_rnn_file):
    quietly(practice.save, plain_my_rnn.softmax)
    quietly(practice.save, plain_my_rnn.clip_global_norm)
    quietly(practice.save, plain_my_rnn.global_norm)  # clip_global_norm calls it
    mine, _ = quietly(practice.my_rnn)
    run, printed = quietly(practice.train_yours, mine, TEXT, **RUN)
    assert run.used == {
        "loss_and_grads": "rnn_core",
        "clip_global_norm": "yours",
        "adam_update": "rnn_core",
        "step_forward": "rnn_core",
        "softmax": "yours",
    }
    assert printed.splitlines() == [
        f"Your {piece} is still a stub: training uses rnn_core's {piece}."
        for piece in ("loss_and_grads", "adam_update", "step_forward")
    ]
    partial, printed = quietly(
        practice.train_yours, plain_functions("loss_and_grads", "softmax", "adam_update"), TEXT, **RUN
    )
    assert printed.splitlines() == [
        f"There is no {piece} in your functions: training uses rnn_core's {piece}."
        for piece in ("clip_global_norm", "step_forward")
    ]
    assert [k for k, v in partial.used.items() if v == "yours"] == ["loss_and_grads", "adam_update", "softmax"]


def test_a_wrong_piece_is_not_trained_with_and_the_message_names_it():
    functions = {**plain_functions(*PIECES), "adam_update": adam_without_bias_correction}
    run, printed = quietly(practice.train_yours, functions, TEXT, **RUN)
    assert run.used["adam_update"] == "rnn_core"
    assert printed == (
        "Your adam_update fails its check (wrong): training uses rnn_core's adam_update. "
        'practice.check("adam_update", adam_without_bias_correction) says why.\n'
    )
    others = [piece for piece in PIECES if piece != "adam_update"]
    with_ours, _ = quietly(practice.train_yours, plain_functions(*others), TEXT, **RUN)
    assert np.array_equal(run.losses, with_ours.losses)  # rnn_core's Adam, not the wrong one, took every step
    functions["softmax"] = rnn_core.softmax
    _, printed = quietly(practice.train_yours, functions, TEXT, **{**RUN, "steps": 1})
    assert "Your softmax is rnn_core's own function, not yours: training uses rnn_core's softmax." in printed


def test_without_functions_train_yours_is_rnn_cores_quietly():
    run, printed = quietly(practice.train_yours, None, TEXT, **{**RUN, "steps": 30})
    assert printed == "" and set(run.used.values()) == {"rnn_core"}
    assert np.array_equal(run.losses, rnn_core_loop(TEXT, 16, 30, 3, 4)[0])


def test_train_yours_prints_the_loss_when_asked():
    run, printed = quietly(practice.train_yours, plain_my_rnn, TEXT, **{**RUN, "steps": 40, "print_every": 20})
    assert printed.splitlines() == [
        f"steps 1-20: mean loss {run.losses[:20].mean():.3f} nats per character",
        f"steps 21-40: mean loss {run.losses[20:].mean():.3f} nats per character",
    ]
    assert repr(run).startswith("YourRun(steps=40, loss ")


def test_train_yours_takes_the_trainers_step(monkeypatch):
    """Each step is rnn_core.trainer's optimizer_step with the reader's pieces (a code review found the
    mean, clipping, update, finite check and reset written again); a non-finite step is named with its
    step number and the advice."""
    from rnn_core import trainer
    from rnn_core.course import yours

    calls = []

    def counted(batcher, window, *args):
        calls.append(window)
        if len(calls) == 7:
            raise trainer.NonFinite("the loss is nan")
        return trainer.optimizer_step(batcher, window, *args)

    monkeypatch.setattr(yours, "optimizer_step", counted)
    run, _ = quietly(practice.train_yours, plain_my_rnn, TEXT, **{**RUN, "steps": 6})
    windows = rnn_core.StreamBatcher(rnn_core.Vocabulary.from_text(TEXT).encode(TEXT), 4, 25).windows_per_pass
    assert calls == [step % windows for step in range(6)] and run.losses.shape == (6,)
    calls.clear()
    calls.extend(range(6))
    with pytest.raises(FloatingPointError, match=r"^the loss is nan at step 1: training diverged; lower learning_rate"):
        quietly(practice.train_yours, plain_my_rnn, TEXT, **{**RUN, "steps": 6})


@pytest.mark.parametrize(
    "change, error, match",
    [
        (dict(functions=[1]), TypeError, "module .* or a dict"),
        (dict(text=b"bytes"), TypeError, "text must be a str"),
        (dict(text="too short"), ValueError, "too short"),
        (dict(hidden_size=0), ValueError, "hidden_size must be a positive integer"),
        (dict(learning_rate=-1.0), ValueError, "learning_rate must be > 0"),
        (dict(prime="€"), ValueError, "not in the vocabulary"),
    ],
)
def test_train_yours_names_a_bad_argument(change, error, match):
    kwargs = {"functions": plain_my_rnn, "text": TEXT, **RUN, **change}
    with pytest.raises(error, match=match):
        quietly(practice.train_yours, **kwargs)


def test_the_test_session_gives_notebooks_a_template_of_their_own():
    """conftest.py points $RNN_CORE_MY_RNN of the whole run (nbval's kernels too) at a fresh template."""
    path = SESSION_MY_RNN
    assert path and Path(path).read_text(encoding="utf-8") == TEMPLATE
    assert not str(Path(path).resolve()).startswith(str(NOTEBOOKS))


# -- your_cell -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["lstm", "gru"])
def test_your_cell_runs_rnn_cores_interface_with_your_steps(name):
    module = getattr(rnn_core, name)
    cell, printed = quietly(practice.your_cell, name, plain_my_rnn)
    assert printed == f"Using your {name}.step_forward and {name}.step_backward: they pass their checks.\n"
    assert cell.init_params is module.init_params and cell.STATE_NAMES == module.STATE_NAMES
    params = module.init_params(7, 5, seed=1)
    rng = np.random.default_rng(2)
    X, Y = rng.integers(0, 7, (3, 6)), rng.integers(0, 7, (3, 6))
    H = 5
    state0 = tuple(rng.standard_normal((3, H)) for _ in module.STATE_NAMES)
    state0 = state0 if len(state0) > 1 else state0[0]
    for args in [(X, Y), (X, Y, state0), (X[1], Y[1])]:
        loss, grads, last = cell.loss_and_grads(params, *args)
        want_loss, want_grads, want_last = module.loss_and_grads(params, *args)
        assert loss == pytest.approx(want_loss, rel=1e-12)
        for k in want_grads:
            np.testing.assert_allclose(grads[k], want_grads[k], rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(np.asarray(last), np.asarray(want_last), rtol=1e-12, atol=1e-14)
        assert cell.sequence_loss(params, *args)[0] == pytest.approx(want_loss, rel=1e-12)
    out, want = cell.forward(params, X), module.forward(params, X)
    for k in out:
        np.testing.assert_allclose(out[k], want[k], rtol=1e-12, atol=1e-14)
    assert set(out) == set(want)
    # the module's keywords too: dropout with its seed, and dL/dstate0
    mine = cell.loss_and_grads(params, X, Y, state0, True, dropout=0.3, seed=4)
    theirs = module.loss_and_grads(params, X, Y, state0, True, dropout=0.3, seed=4)
    assert mine[0] == pytest.approx(theirs[0], rel=1e-12)
    for k in theirs[1]:
        np.testing.assert_allclose(mine[1][k], theirs[1][k], rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(np.asarray(mine[3]), np.asarray(theirs[3]), rtol=1e-10, atol=1e-13)
    with pytest.raises(ValueError, match="your step functions run one layer"):
        cell.forward(module.init_params(7, 5, num_layers=2), X)


def test_your_cell_mixes_your_steps_with_rnn_cores_and_is_rnn_cores_module_without_yours():
    cell, printed = quietly(practice.your_cell, "gru", {"gru_step_forward": plain_my_rnn.gru_step_forward})
    assert printed.splitlines() == [
        "There is no gru.step_backward in your functions: using rnn_core's gru.step_backward.",
        "Using your gru.step_forward: it passes its check.",
    ]
    assert cell.step_backward is rnn_core.gru.step_backward
    template, _ = quietly(practice.my_rnn)
    cell, printed = quietly(practice.your_cell, "lstm", template)
    assert cell is rnn_core.lstm  # what the notebooks' code ran before: the same numbers, as fast
    assert printed.splitlines() == [
        f"Your lstm.step_{way} is still a stub: using rnn_core's lstm.step_{way}." for way in ("forward", "backward")
    ]
    with pytest.raises(ValueError, match="name must be one of 'lstm', 'gru'"):
        practice.your_cell("rnn", template)
    cell, _ = quietly(practice.your_cell, "lstm", plain_my_rnn)
    params = rnn_core.lstm.init_params(4, 3)
    with pytest.raises(ValueError, match="inputs holds index 9"):
        cell.loss_and_grads(params, np.array([1, 9]), np.array([1, 2]))
    with pytest.raises(TypeError, match=r"state0 must be None or a pair \(h0, c0\)"):  # as lstm.forward says
        cell.forward(params, np.array([1, 2]), np.zeros(3))
    with pytest.raises(ValueError, match=r"h0\)? must have shape"):
        cell.forward(params, np.array([1, 2]), (np.zeros(4), np.zeros(3)))
