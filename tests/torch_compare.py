"""Helpers for the tests that hold minigrad's ``torch.nn.functional`` surface against PyTorch.

``compare(mg_fn, torch_fn, arrays, **kwargs)`` runs both functions on the same float64
inputs (every array input requiring grad), checks shape, dtype and values, then the
gradients of ``sum(w * out)`` for fixed random weights ``w``.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

try:
    import torch
except ImportError:  # pragma: no cover - the callers skip
    torch = None


def to_mg(a: Any, grad: bool = True) -> Any:
    if isinstance(a, np.ndarray):
        floating = a.dtype.kind == "f"
        return mg.tensor(a, dtype=mg.float64 if floating else None, requires_grad=grad and floating)
    return a


def to_torch(a: Any, grad: bool = True) -> Any:
    if isinstance(a, np.ndarray):
        t = torch.tensor(a)
        return t.requires_grad_(grad and a.dtype.kind == "f")
    return a


def compare(mg_fn: Callable[..., Any], torch_fn: Callable[..., Any], arrays: list[Any], *, grad: bool = True,
            rtol: float = 1e-7, atol: float = 1e-10, seed: int = 0, **kwargs: Any) -> None:
    m_in = [to_mg(a, grad) for a in arrays]
    t_in = [to_torch(a, grad) for a in arrays]
    m_kw = {k: to_mg(v, False) for k, v in kwargs.items()}
    t_kw = {k: to_torch(v, False) for k, v in kwargs.items()}
    m_out, t_out = mg_fn(*m_in, **m_kw), torch_fn(*t_in, **t_kw)
    assert tuple(m_out.shape) == tuple(t_out.shape), (m_out.shape, t_out.shape)
    assert str(m_out.dtype).split(".")[-1] == str(t_out.dtype).split(".")[-1], (m_out.dtype, t_out.dtype)
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)
    if not grad or not t_out.requires_grad:
        return
    w = np.random.default_rng(seed).normal(size=tuple(t_out.shape))
    (t_out * torch.tensor(w)).sum().backward()
    (m_out * mg.tensor(w, dtype=mg.float64)).sum().backward()
    for m, t in zip(m_in, t_in):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            want = np.zeros(t.shape) if t.grad is None else t.grad.numpy()
            got = np.zeros(tuple(m.shape)) if m.grad is None else m.grad.numpy()
            np.testing.assert_allclose(got, want, rtol=rtol, atol=max(atol, 1e-9), equal_nan=True)


def error_class(fn: Callable[[], Any]) -> type | None:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the class is what we compare
        return type(exc)
    return None


def leaves_no_node(fn: Callable[[], Any], exc: type = Exception) -> None:
    """``fn()`` raises ``exc`` having run no kernel and recorded no node (a failed call changes nothing)."""
    with mg.trace() as tr:
        with pytest.raises(exc):
            fn()
    kinds = {e.kind for e in tr.events}
    assert not {"node.create", "kernel.launch"} & kinds, sorted(kinds)


def raised(fn: Callable[[], Any]) -> tuple[type, str]:
    """The class and message of the exception ``fn()`` raises (a test fails when it raises none)."""
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)
