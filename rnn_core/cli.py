"""The command line: ``python -m rnn_core train ...`` and ``python -m rnn_core sample ...``.

For instructors, two more subcommands: ``student-edition`` (``rnn_core.course.edition``) and
``grade`` (``rnn_core.course.grade``); each module is imported only when its subcommand runs, so that the engine's
command line does not load them.

    python -m rnn_core train --max-seconds 120           # train, save checkpoints/rnn.npz
    python -m rnn_core train --steps 40000 --resume      # continue the same run to 40000 steps
    python -m rnn_core train --cell lstm --max-seconds 120   # the LSTM, saved in checkpoints/lstm.npz
    python -m rnn_core train --cell gru --max-seconds 120    # the GRU, saved in checkpoints/gru.npz
    python -m rnn_core train --cell lstm --num-layers 2 --dropout 0.2 --checkpoint checkpoints/lstm2.npz
    python -m rnn_core sample --prime "Elizabeth" --length 300 --temperature 0.7
    python -m rnn_core sample --checkpoint checkpoints/rnn.best.npz   # the best validation's parameters

Every flag is described by ``--help``. Bad input (a missing or too short
text, a non-positive size, a negative learning rate, an unknown prime
character, a corrupt checkpoint, ...) prints one line on stderr and exits
with status 2 (a flag's value) or 1 (anything else), never a traceback.
Ctrl-C during training saves the checkpoint, prints the summary and exits
with status 130.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

from . import __version__
from ._validation import check_checkpoint_path, check_int, check_number, int_requirement, number_requirement
from .cells import CELLS
from .checkpoint import CheckpointError, load_checkpoint
from .config import TrainConfig
from .course.settings import EXERCISE_TIMEOUT, MARKER, MEMORY_MB
from .data import CACHE_ENV, TEXT_ENV, TextMismatchWarning, load_text
from .generate import sample
from .optim import OPTIMIZERS
from .trainer import best_checkpoint_path, train

__all__ = ["main", "build_parser"]

DEFAULT_FOLDER = Path("checkpoints")  # train saves CELL.npz there: rnn.npz, lstm.npz or gru.npz
EXAMPLE_CHECKPOINT = DEFAULT_FOLDER / "rnn.npz"  # the vanilla cell's default, the help's example
_DEFAULTS = TrainConfig()


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr (and exit status 2)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _integer(minimum):
    """An argparse type: an integer >= minimum, refused as ``check_int`` refuses it and in its words."""

    def integer(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        try:
            return check_int(value, "value", minimum)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {int_requirement(minimum)}, got {value!r}") from None

    return integer


def _number(low, high=None, *, include_low=False, include_high=True):
    """An argparse type: a finite number within the bounds, refused as ``check_number`` refuses it."""
    bounds = {"include_low": include_low, "include_high": include_high}

    def number(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        try:
            return check_number(value, "value", low, high, **bounds)
        except ValueError:
            wanted = number_requirement(low, high, **bounds)
            raise argparse.ArgumentTypeError(f"must be a number {wanted}, got {value!r}") from None

    return number


_POSITIVE = _integer(1)  # sizes and counts: hidden units, layers, batch, window, steps, top-k
_COUNT = _integer(0)  # where 0 means none or never: seeds, --eval-every, --patience, --length
_POSITIVE_NUMBER = _number(0)  # learning rate, seconds, clipping threshold
_RATE = _number(0, 1, include_low=True, include_high=False)  # a probability in [0, 1): dropout


def build_parser():
    """The argparse parser for every subcommand."""
    parser = _Parser(
        prog="python -m rnn_core",
        description="Train a character-level vanilla RNN, LSTM or GRU (plain numpy) on a text, "
        "or sample from a trained one; for instructors, write the notebooks' student edition or grade submissions.",
    )
    parser.add_argument("--version", action="version", version=f"rnn_core {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="{train,sample,student-edition,grade}", parser_class=_Parser)
    sub.required = True
    _add_train_arguments(sub)
    _add_sample_arguments(sub)
    _add_edition_arguments(sub)  # the instructors' commands (args.run), whose modules load only when run
    _add_grade_arguments(sub)
    return parser


def _add_train_arguments(sub):
    d = _DEFAULTS
    t = sub.add_parser(
        "train",
        help="train a model and save a checkpoint",
        description=(
            "Train a character-level RNN in float32, with the optimizer of --optimizer and the gradient clipping "
            "of --clip-norm. The first 90% "
            "of the text is for training, the last 10% for validation. Ends with one summary line holding "
            "val_bpc, the validation bits per character, and the best val_bpc seen. Two checkpoints: the last "
            "(--checkpoint) and, beside it, the best (NAME.best.npz: the step with the lowest val_bpc). With "
            "--resume, flags not given take the values stored in the checkpoint."
        ),
    )
    t.add_argument(
        "--text",
        metavar="PATH",
        help=f"UTF-8 text file to train on (default: ${TEXT_ENV} if set, else Pride and Prejudice from the cache "
        f"folder, downloaded from Project Gutenberg on first use; ${CACHE_ENV} moves the cache)",
    )
    t.add_argument(
        "--cell",
        choices=list(CELLS),
        help=f"the recurrent cell: the vanilla RNN, the LSTM or the GRU (default: {d.cell})",
    )
    t.add_argument(
        "--hidden-size", type=_POSITIVE, metavar="H", help=f"hidden units, in each layer (default: {d.hidden_size})"
    )
    t.add_argument(
        "--num-layers",
        type=_POSITIVE,
        metavar="L",
        help=f"layers stacked, each reading the hidden state of the one below (default: {d.num_layers})",
    )
    t.add_argument(
        "--dropout",
        type=_RATE,
        metavar="P",
        help="drop each unit of a layer's hidden state with probability P where it goes up (into the next layer "
        f"or the output layer, never along the recurrence), in training only (default: {d.dropout:g})",
    )
    t.add_argument(
        "--batch-size", type=_POSITIVE, metavar="B", help=f"parallel streams per batch (default: {d.batch_size})"
    )
    t.add_argument(
        "--seq-length",
        type=_POSITIVE,
        metavar="T",
        help=f"characters per window, the BPTT length (default: {d.seq_length})",
    )
    t.add_argument(
        "--learning-rate",
        type=_POSITIVE_NUMBER,
        metavar="LR",
        help=f"peak learning rate (default: {d.learning_rate:g})",
    )
    t.add_argument(
        "--steps",
        type=_POSITIVE,
        metavar="N",
        help=f"total optimizer steps, counting those done before a resume (default: {d.steps})",
    )
    t.add_argument(
        "--max-seconds",
        type=_POSITIVE_NUMBER,
        metavar="S",
        help="wall-clock budget in seconds; the learning rate decays over whichever budget runs out first "
        "(default: no limit)",
    )
    t.add_argument(
        "--seed",
        type=_COUNT,
        metavar="K",
        help=f"random seed for the initial weights and the dropout masks (default: {d.seed})",
    )
    t.add_argument(
        "--checkpoint",
        metavar="PATH",
        help=f"checkpoint file, saved every {d.checkpoint_every} steps and at the end; its folder must exist, except "
        f"the default folder, which is created (default: {DEFAULT_FOLDER}/CELL.npz, e.g. {EXAMPLE_CHECKPOINT})",
    )
    t.add_argument(
        "--resume",
        action="store_true",
        help="continue training from --checkpoint instead of starting afresh (without --checkpoint: the "
        "checkpoint train saved last, or CELL.npz with --cell)",
    )
    t.add_argument("--optimizer", choices=sorted(OPTIMIZERS), help=f"optimizer (default: {d.optimizer})")
    t.add_argument(
        "--clip-norm",
        type=_POSITIVE_NUMBER,
        metavar="X",
        help=f"clip the gradient's global norm to X (default: {d.clip_norm:g})",
    )
    t.add_argument(
        "--eval-every",
        type=_COUNT,
        metavar="N",
        help=f"steps between validations, 0 for only at the end (default: {d.eval_every})",
    )
    t.add_argument(
        "--patience",
        type=_COUNT,
        metavar="N",
        help=f"stop early after N validations in a row without a new best val_bpc, 0 for never (default: {d.patience})",
    )
    t.add_argument("--no-progress", action="store_true", help="no progress bar")


def _add_sample_arguments(sub):
    s = sub.add_parser(
        "sample", help="generate text from a checkpoint", description="Print text generated by a trained model."
    )
    s.add_argument(
        "--checkpoint",
        metavar="PATH",
        help=f"checkpoint to read (default: the latest that train saved in {DEFAULT_FOLDER}/, CELL.npz)",
    )
    s.add_argument(
        "--prime",
        metavar="TEXT",
        help="text the model reads before generating; printed before the generated text "
        "(default: a newline, not printed)",
    )
    s.add_argument("--length", type=_COUNT, default=500, metavar="N", help="characters to generate (default: 500)")
    s.add_argument(
        "--temperature",
        type=_number(0, include_low=True),
        default=0.8,
        metavar="T",
        help="below 1: safer and more repetitive; above 1: more surprising; 0: always the most likely character "
        "(default: 0.8)",
    )
    s.add_argument(
        "--top-k", type=_POSITIVE, metavar="K", help="draw only among the K most likely characters (default: all)"
    )
    s.add_argument("--seed", type=_COUNT, default=0, metavar="K", help="random seed (default: 0)")


def _add_edition_arguments(sub):
    p = sub.add_parser(
        "student-edition",
        help="write the notebooks without their answers, for a class",
        description=(
            "Write the series' notebooks to OUTDIR without their answers: no folded Answer, in any cell; "
            "everything else (code, outputs, figures, links between notebooks) as it is. practice.solution "
            f"withholds the solutions when run from OUTDIR or a folder below it (the marker file {MARKER} "
            "written there tells it). The exercises keep their tags, which the grader (python -m rnn_core "
            "grade) reads."
        ),
    )
    p.add_argument("outdir", metavar="OUTDIR", help="folder to write the edition to: new or empty")
    p.add_argument(
        "--from",
        dest="source",
        metavar="NOTEBOOKS_DIR",
        help="folder holding the series' notebooks (default: the repository's notebooks/ beside the package, "
        "when rnn_core is installed from a checkout)",
    )
    p.add_argument("--force", action="store_true", help="replace OUTDIR if it holds a student edition written before")
    p.add_argument(
        "--wheel",
        action="store_true",
        help="also build rnn_core's wheel without the answers in OUTDIR, for students to pip install (pip fetches "
        "setuptools to build it)",
    )
    p.set_defaults(run=_cmd_edition)


def _points_item(text):
    """An argparse type for grade's --points: NAME=K as (NAME, K)."""
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected NAME=POINTS (e.g. softmax=2), got {text!r}")
    try:
        number = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of points after '=', got {text!r}") from None
    return name.strip(), number


def _add_grade_arguments(sub):
    p = sub.add_parser(
        "grade",
        help="score submitted notebooks' exercises on hidden cases (Gradescope's results.json, CSV)",
        description=(
            "Grade the exercises of submitted notebooks. Each exercise's cell (tagged exercise:<name>) runs alone in "
            "a child process with numpy and the standard library, under time and memory limits, with only the "
            "earlier cells tagged helper and the notebook's earlier exercise cells; the grader sends it the hidden "
            "cases, drawn from --seed and the exercise's name (never from the submission), and compares its outputs "
            "itself. A function that passes scores its points, anything else zero, with the checker's message as "
            "feedback; calling rnn_core's own version of the exercise scores zero."
        ),
    )
    p.add_argument(
        "submissions",
        nargs="+",
        metavar="SUBMISSION",
        help="a notebook, or a folder of one student's notebooks (e.g. nbgrader's submitted/STUDENT/ASSIGNMENT)",
    )
    p.add_argument(
        "--json",
        metavar="PATH",
        help="write Gradescope's results.json here (several submissions: each one's results under its name)",
    )
    p.add_argument(
        "--csv", metavar="PATH", help="write one row per submission here: total, points and status per exercise"
    )
    p.add_argument(
        "--seed",
        type=_COUNT,
        default=None,
        metavar="N",
        help="your secret seed of the hidden cases; keep it to yourself (default: one drawn and recorded in the "
        "results, so that the same cases can be drawn again)",
    )
    p.add_argument(
        "--points",
        type=_points_item,
        nargs="+",
        action="extend",
        default=[],
        metavar="NAME=K",
        help="points of an exercise, e.g. softmax=2 loss_and_grads=3 (default: 1 each); an exercise given points "
        "is graded in every submission, scoring zero where it is missing",
    )
    p.add_argument(
        "--exercises",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="grade only these exercises (names, or notebook numbers such as 01), scoring a submission that "
        "lacks one zero for it (default: every exercise any submission holds)",
    )
    p.add_argument(
        "--exercise-timeout",
        type=_POSITIVE_NUMBER,
        default=EXERCISE_TIMEOUT,
        metavar="S",
        help=f"seconds for one exercise, its cells and every call of the check (default: {EXERCISE_TIMEOUT:g}; "
        "19 exercises then take at most 380 s, inside Gradescope's 10 minutes)",
    )
    p.add_argument(
        "--memory",
        type=_POSITIVE,
        default=MEMORY_MB,
        metavar="MB",
        help=f"megabytes of address space for one exercise's process (default: {MEMORY_MB})",
    )
    p.add_argument("--jobs", type=_POSITIVE, default=1, metavar="N", help="exercises graded at once (default: 1)")
    p.set_defaults(run=_cmd_grade)


def _cmd_edition(args, out, err):
    from .course import edition  # the edition writer, loaded only for this command

    return edition.run_command(args, out, err)


def _cmd_grade(args, out, err):
    from .course import grade  # the grader, loaded only for this command

    return grade.run_command(args, out, err)


# the TrainConfig fields that have a flag of the same name (--hidden-size sets hidden_size)
_TRAIN_FLAGS = (
    "cell",
    "hidden_size",
    "num_layers",
    "dropout",
    "batch_size",
    "seq_length",
    "learning_rate",
    "steps",
    "max_seconds",
    "seed",
    "optimizer",
    "clip_norm",
    "eval_every",
    "patience",
)


def _flag_values(args):
    """The TrainConfig fields train's flags give (those not given are left out)."""
    return {name: getattr(args, name) for name in _TRAIN_FLAGS if getattr(args, name) is not None}


def _cmd_train(args, out, err, started, given):
    if args.checkpoint is None and args.resume and "cell" not in given:
        path = _default_sample_checkpoint()  # the run train saved last, whatever its cell
    elif args.checkpoint is None:
        path = DEFAULT_FOLDER / f"{given.get('cell', _DEFAULTS.cell)}.npz"
        if not args.resume:
            path.parent.mkdir(parents=True, exist_ok=True)
    else:
        path = Path(args.checkpoint)
    if args.resume:  # first: with no file there, "nothing to resume" says more than a missing folder
        config = _resumed_config(path, given)
    check_checkpoint_path(path, "--checkpoint")  # before anything slow happens
    if not args.resume:
        config = TrainConfig(**given)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", TextMismatchWarning)
        text = load_text(args.text)
    for w in caught:  # one plain line each (a different edition of the novel), not a source-line dump
        print(f"warning: {_one_line(w.message)}", file=err, flush=True)
    result = train(text, config, checkpoint=path, resume=args.resume, progress=not args.no_progress, started=started)
    cell = "" if config.cell == "rnn" else f"{config.cell} "  # the vanilla RNN, the default, goes unsaid
    layers = "" if config.num_layers == 1 else f"L={config.num_layers} "
    dropout = "" if config.dropout == 0 else f" dropout {config.dropout:g}"
    settings = (
        f"{cell}{layers}H={config.hidden_size} B={config.batch_size} T={config.seq_length} "
        f"{config.optimizer} lr {config.learning_rate:g}{dropout}"
    )
    saved = f"checkpoint: {path} (last, step {result.step})"
    if result.best_step is not None:
        saved += f", {best_checkpoint_path(path)} (best, step {result.best_step})"
    print(f"{result.summary()}  ({settings})  {saved}", file=out, flush=True)
    if result.stopped == "non-finite":
        print(f"error: {result.message}", file=err)
        return 1
    if result.stopped == "interrupted":
        return 130
    return 0


def _resumed_config(path, given):
    """The checkpoint's training configuration, with the flags given on top."""
    if not path.is_file():
        raise FileNotFoundError(
            f"checkpoint {path} does not exist, so there is nothing to resume (drop --resume to start afresh)"
        )
    stored = load_checkpoint(path).config
    if not stored:
        raise ValueError(f"checkpoint {path} holds no training configuration, so it cannot be resumed")
    given = {"max_seconds": None, **given}  # a time budget belongs to one run, not to the checkpoint
    try:
        return TrainConfig.from_dict({**stored, **given})
    except (TypeError, ValueError) as e:  # the flags were checked: the stored part is bad
        raise CheckpointError(f"checkpoint {path} holds an unusable training configuration: {e}") from None


def _default_sample_checkpoint():
    """The checkpoint train saved last in the default folder (rnn.npz, lstm.npz or gru.npz): what sample
    reads, and train --resume continues, when no --checkpoint (or, for --resume, no --cell) is given."""
    saved = [DEFAULT_FOLDER / f"{cell}.npz" for cell in CELLS]
    saved = [path for path in saved if path.is_file()]
    if not saved:
        raise FileNotFoundError(
            f"no checkpoint in {DEFAULT_FOLDER}/ (train saves one there), so there is nothing to sample from or "
            "resume: train first, or name a file with --checkpoint"
        )
    return max(saved, key=lambda path: path.stat().st_mtime_ns)


def _cmd_sample(args, out, err):
    ck = load_checkpoint(args.checkpoint or _default_sample_checkpoint())
    prime = args.prime
    show_prime = prime is not None
    if prime is None:
        prime = "\n" if "\n" in ck.vocab.chars else ck.vocab.chars[0]
    if prime == "":
        raise ValueError("--prime must not be empty: the model needs at least one character to start from")
    unknown = sorted(set(prime) - set(ck.vocab.chars))
    if unknown:
        shown = ", ".join(repr(c) for c in unknown[:10])
        raise ValueError(
            f"--prime holds character(s) the model never saw: {shown}; use only characters of its vocabulary"
        )
    settings = {"temperature": args.temperature, "top_k": args.top_k, "seed": args.seed}
    text = sample(ck.params, ck.vocab, prime, args.length, **settings, cell=ck.cell)  # the cell the file records
    out.write((prime if show_prime else "") + text + "\n")
    out.flush()
    return 0


def main(argv=None, out=None, err=None):
    """Run the command line with ``argv`` (default: sys.argv[1:]); returns the exit status."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    started = time.perf_counter()  # --max-seconds counts from here: reading the text is part of the run
    parser = build_parser()
    try:
        args = parser.parse_args(argv)  # each flag's value is checked by its type: a usage error if bad
    except SystemExit as e:  # --help, --version, or a usage error already printed
        return e.code if isinstance(e.code, int) else 2
    try:
        if hasattr(args, "run"):  # student-edition and grade: their own modules run them
            return args.run(args, out, err)
        if args.command == "train":
            return _cmd_train(args, out, err, started, _flag_values(args))
        return _cmd_sample(args, out, err)
    except KeyboardInterrupt:
        print("interrupted", file=err)
        return 130
    except (ValueError, OSError) as e:  # bad input: a text, a checkpoint, a prime
        print(f"error: {_one_line(e)}", file=err)
        return 1


def _one_line(e):
    msg = str(e) or type(e).__name__
    if isinstance(e, OSError) and e.filename and str(e.filename) not in msg:
        msg = f"{msg}: {e.filename}"
    return " ".join(msg.split())
