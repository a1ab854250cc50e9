"""The in-place view ops (``squeeze_``, ``unsqueeze_``, ``t_``, ``transpose_``, ``as_strided_``) against PyTorch: a tensor's
shape changes, not its storage or elements; its version moves; its node is the overload's own
(``SqueezeBackward4``); the other views of its storage take new nodes, or are refused if made under
``no_grad``; PyTorch's refusals (a leaf that requires grad, a view of one)."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _outcome(fn: Callable[[Any], Any], lib: Any) -> Any:
    lib.manual_seed(0)
    try:
        return fn(lib)
    except RuntimeError as exc:  # minigrad prefixes the op's name to PyTorch's words
        return ("RuntimeError", str(exc).split("(): ", 1)[-1].split(". Use an out-of-place")[0].rstrip("."))


def _names(t: Any) -> Any:
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


def _non_leaf_squeeze(lib: Any) -> Any:
    h = lib.ones(3, 1, requires_grad=True) * 2
    out = h.squeeze_(1)
    return out is h, _names(h), tuple(h.shape), h._version, h._is_view()


def _view_of_non_leaf(lib: Any) -> Any:
    h = lib.ones(3, 1, requires_grad=True) * 2
    v = h[:2]
    v.squeeze_(1)
    return _names(v), tuple(v.shape), v._version, h._version, v._is_view(), _names(h)


def _base_with_views(lib: Any) -> Any:
    x = lib.arange(6.0).reshape(3, 2).requires_grad_()
    h = x * 1
    g = h[1:]  # taken before h changes shape
    h.t_()
    (g * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    return tuple(h.shape), h.is_contiguous(), g.tolist(), x.grad.tolist(), _names(h)


def _retained_through_a_view(lib: Any) -> Any:
    x = lib.zeros((), requires_grad=True)
    h = x + x
    h.retain_grad()
    v = h.expand(())
    h.squeeze_()
    v.backward()
    return h.grad.item(), x.grad.item()


def _no_grad_view_refused(lib: Any) -> Any:
    x = lib.ones(1, 1, requires_grad=True)
    d = x.detach()
    with lib.no_grad():
        v = x.diagonal()
    d.squeeze_()
    return _names(v)


def _change_after(lib: Any) -> Any:
    x = lib.ones(2, 3, requires_grad=True)
    h = x * 2
    v = h[0]
    v.unsqueeze_(0)
    v.mul_(3)
    h.sum().backward()
    return x.grad.tolist(), tuple(v.shape)


def _gradients(lib: Any) -> Any:
    x = lib.arange(6.0).reshape(3, 2).requires_grad_()
    h = x * 1
    h.t_()
    h.unsqueeze_(0).transpose_(0, 2).squeeze_()
    (h * lib.arange(6.0).reshape(2, 3).t()).sum().backward()
    return _names(h), x.grad.tolist()


def _as_strided_of_a_base_with_views(lib: Any) -> Any:
    x = lib.arange(12.0, dtype=lib.float64).reshape(3, 4).requires_grad_()
    h = x * 2
    g = h[1:]  # taken before h is restrided
    h.as_strided_((2, 3), (1, 2), 1)
    (h * lib.arange(6.0, dtype=lib.float64).reshape(2, 3)).sum().backward(retain_graph=True)
    first = x.grad.tolist()
    (g * 3).sum().backward()
    return (_names(h), tuple(h.shape), h.stride(), h.storage_offset(), h._version, h.tolist(), g.tolist(),
            first, x.grad.tolist())


def _as_strided_then_changed(lib: Any) -> Any:
    x = lib.arange(6.0, dtype=lib.float64).requires_grad_()
    h = x * 1
    h.as_strided_((2, 2), (1, 2))
    h.mul_(lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64))
    h.sum().backward()
    return _names(h), h.tolist(), x.grad.tolist()


CASES: dict[str, Callable[[Any], Any]] = {
    "as_strided_ of a base with views": _as_strided_of_a_base_with_views,
    "as_strided_, then an in-place change": _as_strided_then_changed,
    "as_strided_ of a leaf": lambda lib: lib.ones(3, requires_grad=True).as_strided_((2,), (1,)),
    "as_strided_ out of the storage": lambda lib: (lib.ones(3, requires_grad=True) * 1).as_strided_((3,), (2,)),
    "as_strided_ under no_grad": lambda lib: (lambda y: (y.as_strided_((2, 2), (1, 2)).tolist(), y.stride(),
                                                         y._version))(lib.arange(6.0)),
    "squeeze_ of a non-leaf": _non_leaf_squeeze,
    "squeeze_ of a view": _view_of_non_leaf,
    "t_ of a base with views": _base_with_views,
    "retain_grad through a view": _retained_through_a_view,
    "a no_grad view after the change": _no_grad_view_refused,
    "in-place change after unsqueeze_ of a view": _change_after,
    "chained, gradients": _gradients,
    "squeeze_ of a leaf": lambda lib: lib.ones(3, 1, requires_grad=True).squeeze_(1),
    "squeeze_ of a view of a leaf": lambda lib: lib.ones(3, 1, requires_grad=True)[:2].squeeze_(1),
    "under no_grad": lambda lib: (lambda y: (y.squeeze_(1).tolist(), tuple(y.shape), y._version))(lib.ones(3, 1)),
    "squeeze_()": lambda lib: _names((lib.ones(1, 3, 1, requires_grad=True) * 1).squeeze_()),
    "squeeze_(dims)": lambda lib: _names((lib.ones(1, 3, 1, requires_grad=True) * 1).squeeze_((0, 2))),
    "unsqueeze_": lambda lib: _names((lib.ones(3, requires_grad=True) * 1).unsqueeze_(0)),
    "t_ of 3 dims": lambda lib: lib.ones(2, 2, 2).t_(),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_inplace_view_op_as_pytorch(case: str) -> None:
    assert _outcome(CASES[case], mg) == _outcome(CASES[case], torch)


def test_a_view_changed_under_no_grad_keeps_how_it_was_made() -> None:
    """``v.squeeze_()`` under ``no_grad`` does not make ``v`` a view made under ``no_grad``: a later
    in-place change of its base (under ``no_grad`` too) leaves ``v`` a history, as in PyTorch."""
    def program(lib: Any) -> Any:
        x = lib.ones(1, 1, requires_grad=True)
        v = x.diagonal()
        with lib.no_grad():
            v.squeeze_()
            x.add_(1.0)
        # PyTorch replays v as an AsStridedBackward0, minigrad with its own view ops (docs/concepts/views.md)
        return v.grad_fn is not None, tuple(v.shape), v.tolist()

    assert _outcome(program, mg) == _outcome(program, torch)


def test_a_view_made_under_no_grad_and_squeezed_there_is_refused_later() -> None:
    def program(lib: Any) -> Any:
        x = lib.ones(1, 1, requires_grad=True)
        with lib.no_grad():
            v = x.diagonal()
            v.squeeze_()
        return _names(v)

    assert _outcome(program, mg) == _outcome(program, torch)


def test_a_view_changed_without_history_is_replayed_when_its_base_starts_to_require_grad() -> None:
    def program(lib: Any) -> Any:
        x = lib.ones(())
        v = x.expand(2)
        v.squeeze_()  # nothing recorded: the view's history is now older than its storage
        x.requires_grad_()
        return v.requires_grad, v.is_leaf

    assert _outcome(program, mg) == _outcome(program, torch)


def test_a_following_view_changed_under_no_grad_takes_a_history() -> None:
    def program(lib: Any) -> Any:
        x = lib.ones(1, 1)
        v = x.diagonal()
        x.requires_grad_()  # v follows: it requires grad, a leaf
        with lib.no_grad():
            v.squeeze_()
        return v.requires_grad, v.is_leaf, tuple(v.shape)

    assert _outcome(program, mg) == _outcome(program, torch)
