"""Lesson 9 tests: your version check and your history rewrite against PyTorch and the reference
engine's recordings, and your predictions against the recording of ``program()``.

The recording tests run the same program twice - once with your function, once with minigrad's -
and compare the two recordings with ``mg.trace.diff`` (the ``same_events`` fixture): a failure names
the first event where your run did something else.

Run one task with ``pytest -m lesson9_task1`` (``lesson9_task2``, ``lesson9_task3``).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

import numpy as np
import pytest
import torch

import minigrad as mg
from minigrad.autograd.tensor_wrapper import TensorWrapper
from minigrad.dispatch import views as dispatch_views
from minigrad.tracing.replay import stale_saved


@contextmanager
def engine_uses(current, replacement, owner=None, attr=""):
    """Run the engine with ``replacement`` wherever it now uses ``current`` (a method when ``owner`` is given)."""
    undo = []
    if owner is not None:
        undo.append((owner, attr, owner.__dict__[attr]))
        setattr(owner, attr, replacement)
    else:
        for name, mod in list(sys.modules.items()):
            if mod is not None and (name == "minigrad" or name.startswith("minigrad.")):
                for key, value in list(vars(mod).items()):
                    if value is current:
                        undo.append((mod, key, value))
                        setattr(mod, key, replacement)
    try:
        yield
    finally:
        for obj, key, value in reversed(undo):
            setattr(obj, key, value)


def refusal(run, *args):
    """The RuntimeError ``run(*args)`` raises, or None (a hole's NotImplementedError passes through)."""
    try:
        run(*args)
    except NotImplementedError:
        raise
    except RuntimeError as err:
        return err
    return None


def graph_nodes(*tensors):
    """Every grad node reachable from ``tensors``, each once."""
    seen, stack = {}, [t.grad_fn for t in tensors if t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(edge[0] for edge in node.next_functions if edge[0] is not None)
    return list(seen.values())


# -- Task 9.1: the version check ------------------------------------------------------------------


def changed_directly(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * 2
    a = h.sin()          # saves h
    h.add_(1)
    return a


def changed_through_a_view(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * 2
    a = h.sin()
    h[1:].mul_(3)        # the view shares h's counter
    return a


def changed_through_detach(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * 2
    a = h * h            # saves h twice
    h.detach().zero_()   # detach() shares the counter too
    return a


def saved_output_changed(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    b = x.exp()          # exp saves its output
    b.add_(1)
    return b


def changed_twice(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * 2
    a = h.cos()
    h.add_(1)
    h.mul_(2)
    return a


def changed_through_data(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * 2
    a = h.sin()
    h.data.add_(1)       # .data has a counter of its own: nothing is refused (the gradient is silently off)
    return a


def changed_but_not_saved(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * 2
    a = h + 1            # add saves nothing
    h.add_(1)
    return a


def changed_after_backward_read_it(lib):
    x = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * 2
    a = h.sin()
    a.sum().backward(retain_graph=True)
    h.add_(1)            # too late for the first backward, not for the next one
    return a


#: Each builds a graph, changes something in place and returns the tensor whose sum backward runs from.
PROGRAMS = [changed_directly, changed_through_a_view, changed_through_detach, saved_output_changed, changed_twice,
            changed_through_data, changed_but_not_saved, changed_after_backward_read_it]


def backward_of(program, lib):
    program(lib).sum().backward()


@pytest.mark.lesson9_task1
def test_a_fresh_saved_tensor_passes_your_check():
    x = mg.tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x * 2
    loss = (h.sin() * h.exp()).sum()
    nodes = graph_nodes(loss)
    checked = 0
    for node in nodes:
        for w in node.wrappers:
            if w is not None:
                w.check_version(node)  # versions equal: it must return
                checked += 1
    assert checked >= 3


@pytest.mark.lesson9_task1
def test_refused_exactly_where_pytorch_refuses():
    for program in PROGRAMS:
        ours, theirs = refusal(backward_of, program, mg), refusal(backward_of, program, torch)
        assert (ours is None) == (theirs is None), (
            f"{program.__name__}: PyTorch {'refuses' if theirs else 'accepts'} its backward, your check "
            f"{'refuses' if ours else 'accepts'} it" + (f" ({ours})" if ours else ""))


def _said(error):
    """What a check did, in words: returned, or raised this class with this message."""
    return "returned (no error)" if error is None else f"{type(error).__name__}: {error}"


@pytest.mark.lesson9_task1
@pytest.mark.parametrize("program", [changed_directly, changed_through_detach, changed_twice, saved_output_changed],
                         ids=lambda p: p.__name__)
def test_your_check_words_it_as_the_engine(reference, compare, program):
    """Each saved tensor of the graph before backward: your check and minigrad's agree, to the letter."""
    ref = reference("minigrad.autograd.tensor_wrapper", "TensorWrapper.check_version")
    stale = 0
    for node in graph_nodes(program(mg)):
        for w in node.wrappers:
            if w is None:
                continue
            want = refusal(ref, w, node)
            got = refusal(w.check_version, node)
            compare(_said(got), _said(want), f"the check of {node.display_name}'s saved t{w.tensor_id}")
            stale += want is not None
    assert stale


@pytest.mark.lesson9_task1
@pytest.mark.parametrize("program", [changed_through_a_view, saved_output_changed], ids=lambda p: p.__name__)
def test_the_refused_backward_stops_where_the_reference_stops(reference, same_events, program):
    ref = reference("minigrad.autograd.tensor_wrapper", "TensorWrapper.check_version")

    def record():
        with mg.trace(values=True) as tr:
            error = refusal(backward_of, program, mg)
        return tr, error

    with engine_uses(None, ref, TensorWrapper, "check_version"):
        want, want_error = record()
    got, got_error = record()
    same_events(got, want, what=f"{program.__name__}: forward and backward")
    assert want_error is not None and got_error is not None


# -- Task 9.2: the history rewrite of an in-place change through a view -----------------------------


VIEWS = {
    "row": lambda h: h[1],
    "column": lambda h: h[:, 0],
    "strided": lambda h: h[0, ::2],
    "transposed": lambda h: h.t()[2],
    "view of a view": lambda h: h[1:][0, 1:],
    "diagonal": lambda h: h.diagonal(),
}

LOSSES = {
    "the base": lambda h, v, w: (h * h).sum(),
    "the changed view": lambda h, v, w: (v * v).sum(),
    "another view": lambda h, v, w: w.tanh().sum(),
    "all three": lambda h, v, w: (h * h).sum() + (v * v).sum() + w.tanh().sum(),
}


def change_through_a_view(lib, view, loss=None):
    """``h = x * 2``, another view ``w`` of ``h``, then ``view(h).mul_(s)``; backward of ``loss``."""
    x = lib.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], dtype=lib.float64, requires_grad=True)
    s = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
    h = x * 2
    w = h[:, 1]              # a view made before the change
    v = view(h)
    before = h.grad_fn
    v.mul_(s)
    if loss is not None:
        loss(h, v, w).backward()
    return dict(x=x, s=s, h=h, v=v, w=w, before=before)


@pytest.mark.lesson9_task2
@pytest.mark.parametrize("loss", list(LOSSES), ids=list(LOSSES))
@pytest.mark.parametrize("view", list(VIEWS), ids=list(VIEWS))
def test_gradients_equal_pytorchs(view, loss):
    ours = change_through_a_view(mg, VIEWS[view], LOSSES[loss])
    theirs = change_through_a_view(torch, VIEWS[view], LOSSES[loss])
    for name in ("x", "s"):
        got, want = ours[name].grad, theirs[name].grad
        assert (got is None) == (want is None), f"{name}.grad: yours {got}, PyTorch's {want}"
        if want is not None:
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12, err_msg=f"{name}.grad")


@pytest.mark.lesson9_task2
def test_the_base_gets_a_copy_slices_node_over_its_old_history_and_the_op():
    t = change_through_a_view(mg, VIEWS["row"])
    h, before = t["h"], t["before"]
    node = h.grad_fn
    assert type(node).__name__ == "CopySlices", f"h.grad_fn is {node.name()}"
    inputs = [edge[0] for edge in node.next_functions]
    assert len(inputs) == 2 and inputs[0] is before, "input 0 of CopySlices: the base's old history"
    assert inputs[1] is not None and inputs[1].name() == "MulBackward0", "input 1 of CopySlices: the in-place op's node"
    assert h._version == t["v"]._version == 1 and not h.is_leaf


@pytest.mark.lesson9_task2
def test_every_view_of_the_base_is_regenerated_from_its_new_history():
    t = change_through_a_view(mg, VIEWS["row"])
    h, v, w = t["h"], t["v"], t["w"]
    for name, view in (("v", v), ("w", w)):
        assert view.grad_fn is not None and view.grad_fn.next_functions[0][0] is h.grad_fn, (
            f"{name}.grad_fn should lead to h's new node (CopySlices): view replay")


@pytest.mark.lesson9_task2
def test_the_history_rewrite_event():
    with mg.trace(values=False) as tr:
        t = change_through_a_view(mg, VIEWS["column"])
    (ev,) = [e for e in tr.events if e.kind == "history.rewrite"]
    assert ev.tensor == t["h"]._id and ev.from_node == t["before"].id and ev.to_node == t["h"].grad_fn.id
    assert ev.view == {"size": [2], "stride": [3], "offset": 0}


@pytest.mark.lesson9_task2
@pytest.mark.parametrize("view", ["row", "view of a view", "diagonal"])
def test_the_recording_equals_the_reference(reference, same_events, view):
    ref = reference("minigrad.dispatch.views", "rewrite_history")

    def record():
        with mg.trace(values=True) as tr:
            change_through_a_view(mg, VIEWS[view], LOSSES["all three"])
        return tr

    with engine_uses(dispatch_views.rewrite_history, ref):
        want = record()
    got = record()
    same_events(got, want, what=f"{view}: forward and backward")


# -- Task 9.3: predict the versions and the stale saved tensors ------------------------------------


def run_program(student):
    with mg.trace(values=False) as tr:
        tensors = student.versions_lesson.program()
    return tensors, mg.trace.replay(tr.events).final


def check_versions(student, compare, names):
    tensors, state = run_program(student)
    predicted = student.versions_lesson.predict_versions()
    for name in names:
        assert name in predicted, f"no version predicted for {name}"
        t = tensors[name]
        assert t._version == state.tensors[t._id].version  # the engine and the recording agree
        compare(predicted[name], t._version, f"the version of {name}", expected_from="the recording")


@pytest.mark.lesson9_task3
def test_versions_of_h_and_what_shares_its_counter(student, compare):
    check_versions(student, compare, ["h", "v", "d"])


@pytest.mark.lesson9_task3
def test_versions_of_the_other_tensors(student, compare):
    check_versions(student, compare, ["x", "k", "a", "b", "c", "e"])


@pytest.mark.lesson9_task3
def test_the_stale_saved_tensors(student, compare):
    tensors, state = run_program(student)
    names = {t._id: name for name, t in tensors.items()}
    recorded = {(state.nodes[s.node].op, names.get(s.tensor, f"t{s.tensor}")) for s in stale_saved(state)}
    in_the_engine = {(node.op_name, names.get(w.tensor_id, f"t{w.tensor_id}"))
                     for node in graph_nodes(*tensors.values()) for w in node.wrappers
                     if w is not None and w.version_counter.value != w.snapshot}
    assert recorded == in_the_engine  # the recording and the engine agree
    predicted = set(student.versions_lesson.predict_stale())
    compare(sorted(predicted), sorted(recorded), "the stale saved tensors, (op, tensor)", expected_from="the recording")
