"""Tensor methods a course program calls, against PyTorch: ``x.sum_to_size(...)`` (PyTorch's composite
``sum_to``: ``SumBackward1`` then ``ViewBackward0``), ``x.fill_diagonal_(v, wrap=)`` (a ``fill_`` through a view
of the diagonal) and ``p.register_post_accumulate_grad_hook(hook)`` (``hook(p)`` after backward wrote
``p.grad``): values, gradients, node names and refusals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(11)
X = RNG.standard_normal((2, 3, 4))


def _names(node: Any) -> Any:
    return None if node is None else (type(node).__name__, [_names(f) for f, _ in node.next_functions])


# -- sum_to_size ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("size", [((3, 1),), (3, 1), (2, 3, 4), (1,), ((1, 1, 4),), ([3, 4],), (1, 3, 1), ([],),
                                  (2, 1, 1)])
def test_sum_to_size_is_pytorchs(size):
    got = []
    for lib in (mg, torch):
        x = lib.tensor(X, requires_grad=True)
        out = x.sum_to_size(*size)
        weights = lib.tensor(np.cos(np.arange(out.numel()) + 1.0).reshape(tuple(out.shape)))
        (out * weights).sum().backward()
        got.append((out.detach().numpy(), tuple(out.shape), out is x, _names(out.grad_fn), x.grad.numpy()))
    ours, theirs = got
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    assert ours[1:4] == theirs[1:4]
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-12)


@pytest.mark.parametrize("call", [lambda lib: lib.ones(3, dtype=lib.int32).sum_to_size(1),
                                  lambda lib: lib.ones(0, 3).sum_to_size(3), lambda lib: lib.tensor(5.0).sum_to_size(())])
def test_sum_to_size_keeps_pytorchs_dtype_and_shape(call):
    ours, theirs = call(mg), call(torch)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1] and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("size, error, words", [
    ((4, 3), RuntimeError, r"size \{\[4, 3\]\} is not expandable to size \{\[2, 3, 4\]\}\."),
    ((2, 2, 3, 4), RuntimeError, r"size \{\[2, 2, 3, 4\]\} is not expandable to size \{\[2, 3, 4\]\}\."),
    ((), TypeError, r'sum_to_size\(\) missing 1 required positional arguments: "size"'),
    (("a",), TypeError, r"sum_to_size\(\): argument 'size' \(position 1\) must be tuple of ints, not str"),
    ((2.0,), TypeError, r"sum_to_size\(\): argument 'size' \(position 1\) must be tuple of ints, not float"),
])
def test_sum_to_size_refuses_as_pytorch(size, error, words):
    for lib in (mg, torch):
        with pytest.raises(error, match=words):
            lib.tensor(X).sum_to_size(*size)


# -- fill_diagonal_ ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(5, 3).fill_diagonal_(2.0),
    lambda lib: lib.zeros(3, 7).fill_diagonal_(1, wrap=True),
    lambda lib: lib.zeros(7, 3).fill_diagonal_(1, wrap=True),
    lambda lib: lib.zeros(7, 3).fill_diagonal_(1),
    lambda lib: lib.zeros(3, 7).t().contiguous().t().fill_diagonal_(4, wrap=True),  # strided: block by block
    lambda lib: lib.zeros(8, 2).fill_diagonal_(-1, wrap=True),
    lambda lib: lib.zeros(3, 3, 3).fill_diagonal_(1),
    lambda lib: lib.zeros(3, 3, dtype=lib.int64).fill_diagonal_(2.7),
    lambda lib: lib.zeros(3, 3).fill_diagonal_(lib.tensor(1.5)),
    lambda lib: lib.zeros(0, 0).fill_diagonal_(1),
    lambda lib: _through_a_view(lib),
])
def test_fill_diagonal_is_pytorchs(call):
    ours, theirs = call(mg), call(torch)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def _through_a_view(lib: Any) -> Any:
    base = lib.zeros(4, 4)
    base[1:, 1:].fill_diagonal_(3)
    return base


def test_fill_diagonal_changes_the_tensor_and_its_gradient_as_pytorch():
    got = []
    for lib in (mg, torch):
        leaf = lib.tensor(X[0].T, requires_grad=True)
        x = leaf * 1
        out = x.fill_diagonal_(2.0)
        (x * lib.tensor(np.arange(12.0).reshape(4, 3))).sum().backward()
        got.append((out is x, x.detach().numpy(), type(x.grad_fn).__name__, leaf.grad.numpy(), x._version))
    assert got[0][0] and got[1][0] and got[0][2] == got[1][2] and got[0][4] == got[1][4]
    for a, b in zip(got[0][1::2], got[1][1::2]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("call, error, words", [
    (lambda lib: lib.zeros(3).fill_diagonal_(1), RuntimeError, "dimensions must larger than 1"),
    (lambda lib: lib.zeros(2, 3, 2).fill_diagonal_(1), RuntimeError, "all dimensions of input must be of equal length"),
    (lambda lib: lib.zeros(3, 3).fill_diagonal_("a"), TypeError,
     r"fill_diagonal_\(\): argument 'fill_value' \(position 1\) must be Number, not str"),
    (lambda lib: lib.zeros(3, 3, requires_grad=True).fill_diagonal_(1.0), RuntimeError,
     "a view of a leaf Variable that requires grad is being used in an in-place operation"),
])
def test_fill_diagonal_refuses_as_pytorch(call, error, words):
    for lib in (mg, torch):
        with pytest.raises(error, match=words):
            call(lib)


# -- register_post_accumulate_grad_hook -------------------------------------------------------------------------

def _hooked(lib: Any) -> list[Any]:
    """A tensor hook and a post-accumulate hook on one leaf, over two backward passes: what each sees, in order."""
    seen: list[Any] = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: seen.append(("hook", g.tolist())))
    handle = x.register_post_accumulate_grad_hook(lambda t: seen.append(("post", t is x, t.grad.tolist())))
    (x * 2).sum().backward()
    (x * x).sum().backward()
    handle.remove()
    (x * 3).sum().backward()
    return seen


def test_a_post_accumulate_grad_hook_sees_the_leaf_after_its_grad_is_written():
    assert _hooked(mg) == _hooked(torch)


def test_a_post_accumulate_grad_hook_steps_a_parameter_as_pytorch_documents():
    """PyTorch's example: an SGD step per parameter as soon as its gradient is complete (``p.add_`` returns ``p``,
    which the hook may return)."""
    got = []
    for lib in (mg, torch):
        v = lib.tensor([0.0, 0.0, 0.0], requires_grad=True)
        v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-0.01))
        v.backward(lib.tensor([1.0, 2.0, 3.0]))
        got.append(v.detach().numpy())
    np.testing.assert_allclose(got[0], got[1], rtol=1e-7)


@pytest.mark.parametrize("run", ["grad", "inputs"])
def test_a_post_accumulate_grad_hook_runs_where_grad_is_written(run):
    """``autograd.grad`` writes no ``.grad``: no hook; ``backward(inputs=[x])`` writes it: the hook runs."""
    counts = []
    for lib in (mg, torch):
        seen: list[int] = []
        x = lib.tensor([1.0], requires_grad=True)
        x.register_post_accumulate_grad_hook(lambda t: seen.append(1))
        if run == "grad":
            lib.autograd.grad((x * 2).sum(), x)
        else:
            (x * 2).sum().backward(inputs=[x])
        counts.append(len(seen))
    assert counts[0] == counts[1]


@pytest.mark.parametrize("hook, error, words", [
    (lambda t: t.grad * 100, RuntimeError, "Tensor post accumulate grad hooks should return None."),
    (lambda t: 5, TypeError, "expected Variable, but hook returned 'int'"),
])
def test_a_post_accumulate_grad_hook_that_returns_something_else_is_refused(hook, error, words):
    for lib in (mg, torch):
        x = lib.tensor([1.0], requires_grad=True)
        x.register_post_accumulate_grad_hook(hook)
        with pytest.raises(error, match=words):
            (x * 2).sum().backward()


@pytest.mark.parametrize("make, words", [
    (lambda lib: lib.tensor([1.0], requires_grad=True) * 2, "post accumulate grad hooks cannot be registered on "
                                                             "non-leaf tensors"),
    (lambda lib: lib.tensor([1.0]), "cannot register a hook on a tensor that doesn't require gradient"),
])
def test_a_post_accumulate_grad_hook_only_goes_on_a_leaf(make, words):
    for lib in (mg, torch):
        with pytest.raises(RuntimeError, match=words):
            make(lib).register_post_accumulate_grad_hook(lambda t: None)


def test_a_recorded_pass_shows_the_post_accumulate_grad_hook_after_the_accumulation():
    x = mg.tensor([1.0], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: None)
    with mg.trace() as tr:
        (x * 3).sum().backward()
    steps = [(e.kind, getattr(e, "hook_kind", None)) for e in tr.events if e.kind in ("hook.run", "grad.accumulate")]
    assert steps == [("grad.accumulate", None), ("hook.run", "post_accumulate_grad")]


def test_a_post_accumulate_grad_hook_does_not_keep_its_tensor_alive():
    import gc
    import weakref

    x = mg.tensor([1.0], requires_grad=True)
    x.register_post_accumulate_grad_hook(lambda t: None)
    ref = weakref.ref(x)
    del x
    gc.collect()
    assert ref() is None
