"""``x[index] = value`` with integer or bool tensors, and ``index_put``: PyTorch's ``index_put_``.

The values, the gradients and the errors are PyTorch's, the node is ``IndexPutBackward0``. A repeated
index keeps the last write on the CPU, and every written entry of the value gets its gradient (PyTorch's
``grad.index(indices)``), the overwritten ones too: that is PyTorch's formula, not the derivative a finite
difference sees, so it is checked against PyTorch here rather than by ``gradcheck``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(7)
X = RNG.standard_normal((3, 4))
V = RNG.standard_normal((3, 4))


def _set(x: Any, index: Any, value: Any) -> Any:
    x[index] = value
    return x


#: name -> program on (lib, x, v): the output; x (3, 4) and v (3, 4) require grad
PROGRAMS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "repeated rows": lambda lib, x, v: _set(x * 1, lib.tensor([0, 2, 0]), v),
    "repeated rows of one value": lambda lib, x, v: _set(x * 1, lib.tensor([0, 0]), v[1]),
    "repeated elements": lambda lib, x, v: _set(x * 1, (lib.tensor([1, 1, 2]), lib.tensor([3, 3, 0])), v[0, :3]),
    "a number at repeated rows": lambda lib, x, v: _set(x * 1, lib.tensor([1, 1]), 2.5),
    "a 0-d value at repeated rows": lambda lib, x, v: _set(x * 1, lib.tensor([1, 1]), v.sum()),
    "a mask and a number": lambda lib, x, v: _set(x * 1, x > 0, -1.0),
    "a mask and a 0-d value": lambda lib, x, v: _set(x * 1, x > 0, v.mean()),
    "a row mask and rows": lambda lib, x, v: _set(x * 1, lib.tensor([True, False, True]), v[:2]),
    "a slice then an index": lambda lib, x, v: _set(x * 1, (slice(None), lib.tensor([3, 0, 3])), v[:, :3]),
    "negative indices": lambda lib, x, v: _set(x * 1, lib.tensor([-1, 0]), v[:2]),
    "index_put": lambda lib, x, v: x.index_put((lib.tensor([2, 2, 1]),), v),
    "index_put accumulate, repeated": lambda lib, x, v: lib.index_put(x, (lib.tensor([2, 2, 1]),), v, accumulate=True),
    "index_put accumulate, broadcast": lambda lib, x, v: x.index_put((lib.tensor([0, 0]), lib.tensor([1, 1])),
                                                                     v[0, 0], accumulate=True),
    "index_put_ on a non-leaf": lambda lib, x, v: (x * 2).index_put_((lib.tensor([True, False, True]),), v[0]),
    "index_put of a transposed tensor": lambda lib, x, v: x.t().index_put((lib.tensor([1]),), v[0, :3]),
    # the integer first (a view), then index_put_ on it: CopySlices
    "an integer then an index": lambda lib, x, v: _set(x * 1, (1, lib.tensor([3, 0])), v[0, :2]),
    "an index, a slice and an integer": lambda lib, x, v: _set(x.reshape(3, 2, 2) * 1, (lib.tensor([2, 0]), slice(None), 1),
                                                              v[:2, :2]),
}


def _run(lib: Any, name: str) -> tuple[Any, ...]:
    x = lib.tensor(X, requires_grad=True)
    v = lib.tensor(V, requires_grad=True)
    out = PROGRAMS[name](lib, x, v)
    weights = np.sin(np.arange(1.0, out.numel() + 1)).reshape(tuple(out.shape))  # fixed, not symmetric
    (out * lib.tensor(weights)).sum().backward()
    grads = tuple(None if t.grad is None else t.grad.numpy() for t in (x, v))
    return out.detach().numpy(), out.stride(), type(out.grad_fn).__name__, grads


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_values_gradients_and_node_are_pytorchs(name):
    ours, theirs = _run(mg, name), _run(torch, name)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[1:3] == theirs[1:3]
    for g, h in zip(ours[3], theirs[3]):
        assert (g is None) == (h is None)
        if g is not None:
            np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-12)


def _self_put(lib: Any, x: Any = None) -> Any:
    x = lib.ones(2, 3) if x is None else x
    return _set(x, [0, 0], x)


def _row_put(lib: Any) -> Any:
    x = lib.ones(2, 3)
    return _set(x, [0, 0], x[1])


def _index_put_row(lib: Any) -> Any:
    x = lib.ones(2, 3)
    return x.index_put_((lib.tensor([0]),), x[1])


#: index -> on a (2, 3, 4) tensor: PyTorch applies the integers first, NumPy would move the index's dims
READS: dict[str, Callable[[Any], Any]] = {
    "x[[]]": lambda lib: ([],),
    "x[:, [], [9]] (no element read, no value checked)": lambda lib: (slice(None), [], [9]),
    "x[0, :, idx]": lambda lib: (0, slice(None), lib.tensor([0, 3, 3, 1])),
    "x[idx, :, 0]": lambda lib: (lib.tensor([1, 0, 1]), slice(None), 0),
    "x[:, 0, idx]": lambda lib: (slice(None), 0, lib.tensor([2, 2])),
    "x[1, idx, idx]": lambda lib: (1, lib.tensor([0, 2]), lib.tensor([3, 1])),
    "x[0, ..., idx]": lambda lib: (0, Ellipsis, lib.tensor([1, 2])),
    "x[None, 1, :, idx]": lambda lib: (None, 1, slice(None), lib.tensor([0])),
    "x[0, :, mask]": lambda lib: (0, slice(None), lib.tensor([True, False, True, True])),
}


@pytest.mark.parametrize("name", sorted(READS))
def test_an_index_applies_its_integers_first(name):
    """``x[0, :, idx]`` is (3, n) as in PyTorch, not NumPy's (n, 3); its gradient and a write agree too."""
    results = []
    for lib in (mg, torch):
        x = lib.tensor(np.arange(24.0).reshape(2, 3, 4), requires_grad=True)
        y = x[READS[name](lib)]
        (y * lib.tensor(np.sin(np.arange(1.0, y.numel() + 1)).reshape(tuple(y.shape)))).sum().backward()
        h = x.detach().clone()
        h[READS[name](lib)] = -1.0
        results.append((y.detach().numpy(), x.grad.numpy(), h.numpy()))
    for ours, theirs in zip(*results):
        assert ours.shape == theirs.shape
        np.testing.assert_array_equal(ours, theirs)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "value of the wrong shape": lambda lib: _set(lib.zeros(3, 4), lib.tensor([0, 2]), lib.ones(3)),
    "index_put value of the wrong shape": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0, 2]),), lib.ones(3)),
    "index out of range": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0, 5]),), lib.tensor(1.0)),
    "values of another dtype": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0]),), lib.ones(4, dtype=lib.float64)),
    "indices not a tuple": lambda lib: lib.zeros(3, 4).index_put(lib.tensor([0, 1]), lib.tensor(5.0)),
    "values a number": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0, 1]),), 5.0),
    "float indices": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0.0, 1.0]),), lib.tensor(5.0)),
    "too many indices": lambda lib: lib.zeros(3, 4).index_put((lib.tensor([0]),) * 3, lib.tensor(5.0)),
    # the order of the checks: a basic index (select) first, then the in-place checks, then the arrays' values
    "a leaf, an index past the end": lambda lib: _set(lib.zeros(0, requires_grad=True), [0, 0], 1.0),
    "a leaf, an integer past the end": lambda lib: _set(lib.zeros(2, 3, requires_grad=True), (5, [0]), 1.0),
    "a leaf, an integer then an index past the end": lambda lib: _set(lib.zeros(2, 3, requires_grad=True), (1, [7]), 1.0),
    "an integer then an index past the end": lambda lib: _set(lib.zeros(2, 3) * 1, (1, [7]), 1.0),
    # values sharing the written tensor's memory (index_put_'s assert_no_overlap), an empty one too
    "the tensor written into itself": lambda lib: _self_put(lib),
    "an empty tensor written into itself": lambda lib: _self_put(lib, lib.zeros(2, 0)),
    "a row written at an index": lambda lib: _row_put(lib),
    "index_put_ of a view of itself": lambda lib: _index_put_row(lib),
    "a leaf that requires grad": lambda lib: lib.zeros(3, 4, requires_grad=True).index_put_((lib.tensor([0]),),
                                                                                            lib.tensor(1.0)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_are_pytorchs(name):
    with pytest.raises(Exception) as theirs:
        ERRORS[name](torch)
    with pytest.raises(type(theirs.value)) as ours:
        ERRORS[name](mg)
    words = str(theirs.value).split(" (")[0]
    assert words.split(":")[0] in str(ours.value), (str(ours.value), str(theirs.value))


def test_a_failed_setitem_leaves_the_tensor_and_its_history():
    x = mg.tensor(X, requires_grad=True)
    h = x * 2
    node, before = h.grad_fn, h.detach().numpy().copy()
    with pytest.raises(RuntimeError, match="shape mismatch"):
        h[mg.tensor([0, 1])] = mg.ones(3)
    assert h.grad_fn is node and h._version == 0
    np.testing.assert_array_equal(h.detach().numpy(), before)


def test_a_read_of_no_element_checks_no_index_value():
    """PyTorch checks an index's values element by element of the result: ``zeros(1, 0)[[1, 0, 1]]`` is an
    empty (3, 0), its backward and a write through it too, where NumPy refuses the 1."""
    shapes = []
    for lib in (mg, torch):
        x = lib.zeros(1, 0, requires_grad=True)
        y = x[[1, 0, 1]]
        y.sum().backward()
        h = x.detach().clone()
        h[[5, 5]] = 1.0
        shapes.append((tuple(y.shape), tuple(x.grad.shape), tuple(h.shape)))
    assert shapes[0] == shapes[1] == ((3, 0), (1, 0), (1, 0))
    with pytest.raises(IndexError):
        mg.zeros(0)[[0]]  # one element read: its index is checked


def test_masked_select_of_a_0d_tensor_is_a_new_tensor():
    """Its result is no view (it was a reshape of the read): a view of it follows it when it starts requiring
    grad, as in PyTorch (found by the fuzzer)."""
    flags = []
    for lib in (mg, torch):
        x = lib.tensor(0.5)
        m = x.masked_select(x > 0)
        e = m.expand(2, 1)
        m.requires_grad_()
        flags.append((m.is_leaf, e.requires_grad, e.is_leaf))
    assert flags[0] == flags[1] == (True, True, True)


@pytest.mark.parametrize("shape", [(1, 0), (2, 0), (0,), (2, 3), (0, 3), (3, 0), (1, 3)], ids=str)
def test_a_tensor_written_into_itself_is_refused_first(shape):
    """``x[[0, 0]] = x``: ``index_put_``'s overlap check comes before the value's shape and the index's values
    (an empty tensor is refused too), except where PyTorch writes a view of ``x`` without its leading size-1
    dims: a tensor of its own, an empty one overlapping nothing."""
    outcomes = []
    for lib in (mg, torch):
        x = lib.zeros(*shape)
        try:
            x[[0, 0]] = x
            outcomes.append(None)
        except Exception as exc:  # noqa: BLE001 - the class and the words are compared
            outcomes.append((isinstance(exc, RuntimeError), str(exc)[:40]))
    assert outcomes[0] == outcomes[1]
