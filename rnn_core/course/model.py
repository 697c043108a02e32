"""What an exercise of ``rnn_core.practice`` is made of: cases, a model with named steps, mistakes (private).

An exercise is compared with rnn_core's function of its name (``Exercise.reference``) on cases drawn
from a ``numpy.random.Generator`` (``Exercise.cases``). To recognise mistakes it also has a *model*:
a plain implementation written as a few named steps (``Exercise.steps``: "slope", "back", "b_o",
...). A mistake is a small named function that replaces one step (or, for the step "answer", the
whole function): registered with ``Mistakes``, it carries its name, its explanation and its rows
of the errata table as data. Mistakes that replace different steps combine, so that an answer with
two mistakes is recognised as those two; ``check`` names a combination only when the model with
those steps replaced gives every output of the reader's answer, on every case the answer ran.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Case", "Mistake", "Mistakes", "Steps", "Exercise", "ANSWER"]

ANSWER = "answer"  # the step a mistake replaces when it is a whole (wrong) function


@dataclass(frozen=True)
class Case:
    """One set of arguments for the reader's function, and what it is, for the messages."""

    about: str  # what this case is: "one step with H = 4, V = 5, x_t = 3, h_prev ≠ 0, non-zero biases"
    args: tuple  # the arguments, in order
    square: bool = False  # a square network (H = V), run only to explain an answer that fails on H != V
    extra: dict = field(default_factory=dict)  # what a mistake's model needs besides the arguments
    long: bool = False  # a long case, to check with only: mistakes are recognised on the others (then tried here)
    group: str = ""  # cases that differ in one respect only, as "passed" names them together ("" for none)
    large: bool = False  # a size beyond every published case: its calls get run.LARGE times the time limit


@dataclass(frozen=True)
class Mistake:
    """A mistake ``check`` recognises: a function that replaces one step of the exercise's model."""

    id: str  # "no-shift": unique in its exercise; prose points at it as <!-- practice:mistake softmax/no-shift -->
    name: str  # what the message calls it: "no shift by the largest score"
    why: str  # one or two sentences: what the mistake does, about the outputs it changes only
    rows: tuple  # its rows in the errata table; () for a common slip that is not in the table
    step: str  # the step of the model it replaces (ANSWER: the whole function)
    fn: Callable  # the replacement, with the step's arguments


class Mistakes(list):
    """The mistakes of one exercise, in order. Register one with the decorator

        @SOFTMAX_MISTAKES("answer", "−softmax", "a minus sign in front: ...", rows=(11,))
        def minus_softmax(o):
            return -softmax(o)

    whose function name, with "-" for "_", is the mistake's id.
    """

    def __call__(self, step, name, why, rows=()):
        def register(fn):
            self.add(fn.__name__.replace("_", "-"), name, why, rows, step, fn)
            return fn

        return register

    def add(self, id, name, why, rows, step, fn):
        if any(m.id == id for m in self):
            raise ValueError(f"two mistakes with the id {id!r}")
        self.append(Mistake(id, name, why, tuple(rows), step, fn))


class Steps:
    """The steps of a model: the defaults, with some replaced by mistakes (``s.slope(h, h_prev)``)."""

    def __init__(self, defaults, replaced=None):
        self._steps = {**defaults, **(replaced or {})}

    def __getattr__(self, name):
        try:
            return self.__dict__["_steps"][name]
        except KeyError:
            raise AttributeError(f"the model has no step {name!r}") from None


@dataclass(frozen=True)
class Exercise:
    """One exercise: the rnn_core function it is checked against, its cases, model and mistakes."""

    name: str  # "lstm.step_backward"
    notebook: str  # the notebook that asks for it
    reference: Callable  # the checker's private copy of the rnn_core function, called with a case's arguments
    args: tuple  # argument names, in order
    outputs: tuple  # names of the returned values, in order (one name: a single value)
    cases: Callable  # rng -> list of Case
    hint: str
    meaning: dict  # output name (or key) -> what it is, for the messages: "∇o L, the gradient of the loss ..."
    model: Callable | None = None  # (args, Steps, case) -> outputs in the reference's form
    steps: dict = field(default_factory=dict)  # step name -> default function
    mistakes: tuple = ()  # Mistake, in the order they are tried
    by_key: tuple = ()  # outputs that are dicts, compared and named key by key (gradients, parameters)
    optional: tuple = ()  # further outputs the reader may return, and which are then checked too
    watch: frozenset = frozenset()  # (module, qualified name) of rnn_core's own versions of it
    public: tuple = ()  # where rnn_core holds it: ("rnn_core.softmax", "rnn_core.functions.softmax")
    diagnostics: tuple = ()  # (case, got, want) -> sentence or None: plain remarks for an unrecognised answer
    where: str = ""  # where the notebook derives it, for an unrecognised answer: "notebook 02, section 4"
    varied: tuple = ()  # arguments any same-shaped entries suit (o, dh_t, grads): changed in place between two calls
    derived: Callable | None = None  # args -> None: recompute in place what follows from the varied (h_t, a cache)

    @property
    def reference_name(self):
        return f"rnn_core.{self.name}"

    def outputs_of(self, case, replaced=None):
        """The outputs of the model on ``case`` with the steps in ``replaced`` ({step: function}) swapped in."""
        if replaced and ANSWER in replaced:
            return replaced[ANSWER](*case.args)
        return self.model(case.args, Steps(self.steps, replaced), case)
