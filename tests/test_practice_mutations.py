"""Property-based: a random mutation of a reference solution is never "passed" unless it computes the same.

Each exercise's solution (rnn_core/course/solutions.py) is parsed, and hypothesis picks one
mutation of its function: a sign flipped (``+`` for ``-`` or a minus in front), a transpose added,
an index shifted in time (``t`` for ``t - 1``...), a term or factor dropped (``a + b`` -> ``a``), or
an argument replaced by a constant. The mutant is checked on the public cases. Whenever it passes,
it must be numerically the same function: it is compared directly with the solution, away from the
checker, on cases drawn from fresh seeds. A mutant the checker passes but that differs anywhere
would be a wrong answer passing.
"""

from __future__ import annotations

import ast
import copy
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from practice_answers import cases, check

import rnn_core
from rnn_core import practice
from rnn_core.course.solutions import SOLUTIONS

KINDS = ("sign", "transpose", "time", "drop", "constant")
FRESH_SEEDS = range(101, 107)


def _function(name):
    """(the module's AST, the exercise's function node, its argument names)."""
    tree = ast.parse(SOLUTIONS[name].code)
    fn = [n for n in tree.body if isinstance(n, ast.FunctionDef)][-1]
    return tree, fn, [a.arg for a in fn.args.args]


def _expressions(fn):
    """Every expression node read in the function's body (not a target of an assignment)."""
    targets = {
        id(t)
        for n in ast.walk(fn)
        if isinstance(n, (ast.Assign, ast.AugAssign))
        for t in ast.walk(n.targets[0] if isinstance(n, ast.Assign) else n.target)
    }
    return [
        n
        for n in ast.walk(fn)
        if isinstance(n, (ast.Name, ast.Call, ast.BinOp, ast.Subscript, ast.Attribute))
        and id(n) not in targets
        and not (isinstance(n, ast.Name) and n.id in ("np", "range", "len", "float", "sum", "zip"))
        and isinstance(getattr(n, "ctx", ast.Load()), ast.Load)
    ]


def _sites(name, kind):
    """How many places the mutation ``kind`` can go in the solution of ``name``."""
    return len(_places(name, kind))


def _places(name, kind):
    _, fn, args = _function(name)
    if kind == "sign":
        return [n for n in _expressions(fn)] + [
            n for n in ast.walk(fn) if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub))
        ]
    if kind == "transpose":
        return [n for n in _expressions(fn) if not isinstance(n, ast.Attribute)]
    if kind == "time":
        return [
            n
            for n in ast.walk(fn)
            if isinstance(n, ast.Subscript) and any(isinstance(x, ast.Name) and x.id == "t" for x in ast.walk(n.slice))
        ]
    if kind == "drop":
        return [n for n in ast.walk(fn) if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub, ast.Mult))]
    if kind == "constant":
        return [n for n in ast.walk(fn) if isinstance(n, ast.Name) and n.id in args and isinstance(n.ctx, ast.Load)]
    raise ValueError(kind)


def mutant(name, kind, index, variant):
    """The solution of ``name`` with mutation ``kind`` at place ``index`` (variant picks among its forms)."""
    tree, fn, args = _function(name)
    place = _places(name, kind)[index]
    target_dump = ast.dump(place, include_attributes=True)
    tree = copy.deepcopy(tree)
    (node,) = [n for n in ast.walk(tree) if ast.dump(n, include_attributes=True) == target_dump][:1] or [None]
    if node is None:
        return None, "?"
    if kind == "sign":
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)) and variant % 2:
            new = ast.BinOp(node.left, ast.Sub() if isinstance(node.op, ast.Add) else ast.Add(), node.right)
        else:
            new = ast.UnaryOp(ast.USub(), node)
    elif kind == "transpose":
        new = ast.Attribute(node, "T", ast.Load())
    elif kind == "time":
        shift = (-1, 1)[variant % 2]

        class Shift(ast.NodeTransformer):
            def visit_Name(self, n):
                return ast.BinOp(n, ast.Add(), ast.Constant(shift)) if n.id == "t" else n

        new = Shift().visit(node)
    elif kind == "drop":
        new = (node.left, node.right)[variant % 2]
    else:
        new = ast.Constant((0.0, 1.0, 0.5, 2.0)[variant % 4])

    class Replace(ast.NodeTransformer):
        def visit(self, n):
            return new if n is node else super().visit(n)

    tree = ast.fix_missing_locations(Replace().visit(tree))
    return tree, ast.unparse(new)


def define(name, tree):
    namespace = {"np": np, **{n: getattr(rnn_core, n) for n in SOLUTIONS[name].uses}}
    with warnings.catch_warnings():  # "'float' object is not subscriptable": a mutant, not this test
        warnings.simplefilter("ignore", SyntaxWarning)
        exec(compile(tree, f"<mutant of {name}>", "exec"), namespace)
    return namespace[re.findall(r"^def (\w+)", SOLUTIONS[name].code, re.MULTILINE)[-1]]


def _leaves(value):
    if isinstance(value, dict):
        return [x for k in sorted(value, key=str) for x in _leaves(value[k])]
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _leaves(v)]
    return [value]


def same_function(name, fn, reference):
    """True if fn gives what the reference solution gives, on the cases of several fresh seeds."""
    for seed in FRESH_SEEDS:
        for case in cases(name, seed):
            if case.square:
                continue
            try:
                with np.errstate(all="ignore"):
                    got = _leaves(fn(*copy.deepcopy(case.args)))
                    want = _leaves(reference(*copy.deepcopy(case.args)))
            except Exception:
                return False
            if len(got) != len(want):
                return False
            for g, w in zip(got, want):
                try:
                    g, w = np.asarray(g, dtype=float), np.asarray(w, dtype=float)
                except (TypeError, ValueError):
                    return False
                finite = np.isfinite(w)  # beam_step's -inf scores: the same there, exactly
                if g.shape != w.shape or not np.array_equal(g[~finite], w[~finite], equal_nan=True):
                    return False
                g, w = g[finite], w[finite]
                if not np.all(np.abs(g - w) <= 1e-6 * max(float(np.max(np.abs(w), initial=0)), 1e-12)):
                    return False
    return True


def test_every_kind_of_mutation_has_places_to_go():
    kinds = {name: {kind for kind in KINDS if _sites(name, kind)} for name in practice.EXERCISES}
    assert all({"sign", "transpose", "constant"} <= k for k in kinds.values()), kinds
    assert all("drop" in k for name, k in kinds.items() if name != "one_hot"), kinds  # one_hot has no sum
    assert "time" in kinds["loss_and_grads"]


@pytest.mark.parametrize("name", list(practice.EXERCISES))
@settings(max_examples=30, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_a_mutated_solution_passes_only_if_it_computes_the_same(name, data):
    kind = data.draw(st.sampled_from([k for k in KINDS if _sites(name, k)]), label="kind")
    index = data.draw(st.integers(0, _sites(name, kind) - 1), label="place")
    variant = data.draw(st.integers(0, 3), label="variant")
    tree, what = mutant(name, kind, index, variant)
    if tree is None:
        return
    try:
        fn = define(name, tree)
    except Exception:  # a mutant that does not even compile or define: nothing to check
        return
    result, _ = check(name, fn)
    if result.status == "passed":
        reference = define(name, _function(name)[0])
        assert same_function(name, fn, reference), f"{kind} at {what!r} passed the check but computes otherwise"
