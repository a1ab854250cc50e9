"""``mg.autograd.functional``, ``mg.func`` and ``gradcheck``/``gradgradcheck`` against PyTorch (float64).

Results (values and structure: tensor, tuple, tuple of tuples), ``create_graph``
(the result differentiates again), ``strict`` and the errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
AF = torch.autograd.functional
MF = mg.autograd.functional


def _plain(x: Any) -> Any:
    if isinstance(x, (mg.Tensor, torch.Tensor)):
        return ("T", tuple(x.shape), np.round(x.detach().numpy(), 9).tolist())
    if isinstance(x, (tuple, list)):
        return tuple(_plain(v) for v in x)
    return x


RNG = np.random.default_rng(0)
A = RNG.standard_normal((3,))
B = RNG.standard_normal((2, 3))
V3, V2 = RNG.standard_normal((3,)), RNG.standard_normal((2,))


def _inputs(lib: Any, kind: str) -> Any:
    a, b = lib.tensor(A.copy()), lib.tensor(B.copy())
    return a if kind == "single" else (a, b)


# Functions written once for both frameworks (the ops they use exist in both).
FUNCS = {
    "single->single": ("single", lambda x: (x.sin() * x).sum() * x),
    "single->scalar": ("single", lambda x: (x.exp() * x * x).sum()),
    "single->tuple": ("single", lambda x: (x * x, x.tanh().sum())),
    "tuple->single": ("tuple", lambda x, w: (w @ x).tanh()),
    "tuple->scalar": ("tuple", lambda x, w: ((w @ x).sigmoid() * x[:2]).sum()),
    "tuple->tuple": ("tuple", lambda x, w: (w @ x, (w * w).sum() * x)),
    "unused-input": ("tuple", lambda x, w: x * 2.0),
}


def _both(fn: Any, kind: str, **kwargs: Any) -> tuple[Any, Any]:
    return fn(MF, _inputs(mg, kind), **kwargs), fn(AF, _inputs(torch, kind), **kwargs)


@pytest.mark.parametrize("case", sorted(FUNCS))
@pytest.mark.parametrize("create_graph", [False, True])
def test_jacobian_matches_torch(case: str, create_graph: bool) -> None:
    kind, f = FUNCS[case]
    ours, theirs = _both(lambda L, x, **k: L.jacobian(f, x, **k), kind, create_graph=create_graph)
    assert _plain(ours) == _plain(theirs)


@pytest.mark.parametrize("case", [c for c in sorted(FUNCS) if "scalar" in c])
@pytest.mark.parametrize("create_graph", [False, True])
def test_hessian_matches_torch(case: str, create_graph: bool) -> None:
    kind, f = FUNCS[case]
    ours, theirs = _both(lambda L, x, **k: L.hessian(f, x, **k), kind, create_graph=create_graph)
    assert _plain(ours) == _plain(theirs)


def _v_for(lib: Any, case: str, where: str) -> Any:
    kind, f = FUNCS[case]
    probe = f(*(_inputs(lib, kind) if kind == "tuple" else (_inputs(lib, kind),))) if where == "out" else \
        _inputs(lib, kind)
    items = probe if isinstance(probe, tuple) else (probe,)
    rng = np.random.default_rng(1)
    vs = tuple(lib.tensor(rng.standard_normal(tuple(t.shape))) for t in items)
    return vs if isinstance(probe, tuple) else vs[0]


@pytest.mark.parametrize("case", sorted(FUNCS))
@pytest.mark.parametrize("name", ["vjp", "jvp"])
def test_vjp_jvp_match_torch(case: str, name: str) -> None:
    kind, f = FUNCS[case]
    where = "out" if name == "vjp" else "in"
    ours = getattr(MF, name)(f, _inputs(mg, kind), _v_for(mg, case, where))
    theirs = getattr(AF, name)(f, _inputs(torch, kind), _v_for(torch, case, where))
    assert _plain(ours) == _plain(theirs)


@pytest.mark.parametrize("case", [c for c in sorted(FUNCS) if "scalar" in c])
@pytest.mark.parametrize("name", ["vhp", "hvp"])
def test_vhp_hvp_match_torch(case: str, name: str) -> None:
    kind, f = FUNCS[case]
    ours = getattr(MF, name)(f, _inputs(mg, kind), _v_for(mg, case, "in"))
    theirs = getattr(AF, name)(f, _inputs(torch, kind), _v_for(torch, case, "in"))
    assert _plain(ours) == _plain(theirs)


def test_create_graph_results_differentiate_again() -> None:
    results = []
    for lib, L in ((mg, MF), (torch, AF)):
        x = lib.tensor(A.copy(), requires_grad=True)
        _, g = L.vjp(lambda t: (t ** 3).sum(), x, create_graph=True)
        assert g.requires_grad
        g.sum().backward()
        results.append(_plain(x.grad))
        y = lib.tensor(A.copy(), requires_grad=True)
        H = L.hessian(lambda t: (t ** 4).sum(), y, create_graph=True)
        H.sum().backward()
        results.append(_plain(y.grad))
    assert results[:2] == results[2:]


def test_results_are_detached_without_create_graph() -> None:
    x = mg.tensor(A.copy(), requires_grad=True)
    out, g = MF.vjp(lambda t: (t * t).sum(), x)
    assert not out.requires_grad and not g.requires_grad
    assert x.grad is None  # the caller's tensor is untouched


def test_v_may_be_none_for_single_elements_only() -> None:
    for L, lib in ((MF, mg), (AF, torch)):
        assert _plain(L.vjp(lambda t: (t * t).sum(), lib.tensor(A.copy()))[1]) == \
            _plain(AF.vjp(lambda t: (t * t).sum(), torch.tensor(A.copy()))[1])
        with pytest.raises(RuntimeError, match="The vector v can only be None if the user-provided function "
                                               "returns a single Tensor with a single element"):
            L.vjp(lambda t: t * t, lib.tensor(A.copy()))


@pytest.mark.parametrize("call, message", [
    (lambda L, lib: L.vjp(lambda t: t * 2, lib.tensor(A.copy()), lib.ones(4, dtype=lib.float64)),
     "v has invalid size: should be"),
    (lambda L, lib: L.jvp(lambda a, b: a, (lib.tensor(A.copy()), lib.tensor(B.copy())), (lib.tensor(A.copy()),)),
     "v is a tuple of invalid length: should be 2 but got 1"),
    (lambda L, lib: L.hessian(lambda t: t * 2, lib.tensor(A.copy())),
     "The Tensor returned by the function given to hessian should contain a single element"),
    (lambda L, lib: L.jacobian(lambda t: t, [lib.tensor(A.copy())]),
     "must be either a Tensor or a tuple of Tensors"),
    (lambda L, lib: L.vjp(lambda a, b: a * 2, (lib.tensor(A.copy()), lib.tensor(B.copy())),
                          lib.tensor(A.copy()), strict=True),
     "The output of the user-provided function is independent of input 1"),
    (lambda L, lib: L.vjp(lambda t: lib.ones(3, dtype=lib.float64), lib.tensor(A.copy()),
                          lib.tensor(A.copy()), strict=True),
     "Output 0 of the user-provided function does not require gradients"),
])
def test_errors_match_torch(call: Any, message: str) -> None:
    for L, lib in ((MF, mg), (AF, torch)):
        with pytest.raises((RuntimeError, TypeError), match=message) as info:
            call(L, lib)
        if L is MF:
            ours = info.type
        else:
            assert ours is info.type


def test_non_strict_unused_input_gives_zeros() -> None:
    ours = MF.vjp(lambda a, b: a * 2, (mg.tensor(A.copy()), mg.tensor(B.copy())), mg.tensor(A.copy()))
    theirs = AF.vjp(lambda a, b: a * 2, (torch.tensor(A.copy()), torch.tensor(B.copy())), torch.tensor(A.copy()))
    assert _plain(ours) == _plain(theirs)


# -- mg.func --------------------------------------------------------------------------------------

def test_func_grad_matches_torch() -> None:
    def f(lib: Any):
        return lambda x, w, c: ((w @ x).tanh() * c).sum()
    for argnums in (0, 1, (0, 1), (1, 0), -2):
        ours = mg.func.grad(f(mg), argnums=argnums)(mg.tensor(A.copy()), mg.tensor(B.copy()), 2.0)
        theirs = torch.func.grad(f(torch), argnums=argnums)(torch.tensor(A.copy()), torch.tensor(B.copy()), 2.0)
        assert _plain(ours) == _plain(theirs)
        assert not (ours[0] if isinstance(ours, tuple) else ours).requires_grad


def test_func_grad_nests_and_has_aux() -> None:
    for lib in (mg, torch):
        x = lib.tensor(0.7, dtype=lib.float64)
        d3 = lib.func.grad(lib.func.grad(lib.func.grad(lambda t: t.sin() * t)))(x)
        np.testing.assert_allclose(d3.item(), -3 * np.sin(0.7) - 0.7 * np.cos(0.7), rtol=1e-12)
    g, aux = mg.func.grad(lambda t: ((t * t).sum(), {"n": t * 3}), has_aux=True)(mg.tensor(A.copy()))
    tg, taux = torch.func.grad(lambda t: ((t * t).sum(), {"n": t * 3}), has_aux=True)(torch.tensor(A.copy()))
    assert _plain(g) == _plain(tg) and _plain(aux["n"]) == _plain(taux["n"])
    assert not aux["n"].requires_grad and not taux["n"].requires_grad
    (g, v) = mg.func.grad_and_value(lambda t: (t * t).sum())(mg.tensor(A.copy()))
    (tg, tv) = torch.func.grad_and_value(lambda t: (t * t).sum())(torch.tensor(A.copy()))
    assert _plain((g, v)) == _plain((tg, tv))


def test_func_grad_keeps_the_outer_graph() -> None:
    for lib in (mg, torch):
        x = lib.tensor(A.copy(), requires_grad=True)
        g = lib.func.grad(lambda t: (t ** 3).sum())(x)
        g.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), 6 * A, rtol=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda lib: lib.func.grad(lambda t: t * 2)(lib.tensor(A.copy())), "Expected f\\(\\*args\\) to return a scalar"),
    (lambda lib: lib.func.grad(lambda t: 3.0)(lib.tensor(A.copy())), "Expected f\\(\\*args\\) to return a Tensor"),
    (lambda lib: lib.func.grad(lambda t: t.sum(), argnums=2)(lib.tensor(A.copy())), "Got argnum=2, but only 1 positional inputs"),
    (lambda lib: lib.func.grad(lambda t: t.sum(), has_aux=True)(lib.tensor(A.copy())),
     "output of function f should be a tuple"),
])
def test_func_grad_errors_match_torch(call: Any, message: str) -> None:
    for lib in (mg, torch):
        with pytest.raises(RuntimeError, match=message):
            call(lib)


# -- gradcheck -------------------------------------------------------------------------------------

def _bad_square(lib: Any) -> type:
    """``x * x`` as a ``lib.autograd.Function`` whose backward is wrong (``3x`` instead of ``2x``)."""

    class BadSquare(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x * 3.0  # wrong: should be 2x

    return BadSquare


def test_gradcheck_passes_and_fails_as_torch() -> None:
    for lib in (mg, torch):
        Bad = _bad_square(lib)
        x = lib.tensor(A.copy(), requires_grad=True)
        w = lib.tensor(B.copy(), requires_grad=True)
        assert lib.autograd.gradcheck(lambda a, b: ((b @ a).tanh(), a.exp()), (x, w)) is True
        assert lib.autograd.gradgradcheck(lambda a, b: (b @ a).tanh(), (x, w)) is True
        assert lib.autograd.gradcheck(Bad.apply, (x,), raise_exception=False) is False
        with pytest.raises(RuntimeError, match="Jacobian mismatch for output 0 with respect to input 0"):
            lib.autograd.gradcheck(Bad.apply, (x,))
        with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to require gradient"):
            lib.autograd.gradcheck(lambda a: a * 2, (lib.tensor(A.copy()),))
        with pytest.warns(UserWarning, match="is not a double precision floating point"):
            lib.autograd.gradcheck(lambda a: a * 2, (lib.ones(2, requires_grad=True),), atol=0.1, rtol=0.1)


def test_gradcheck_error_class() -> None:
    assert issubclass(mg.autograd.GradcheckError, RuntimeError)
    x = mg.tensor(A.copy(), requires_grad=True)
    with pytest.raises(mg.autograd.GradcheckError):
        mg.autograd.gradcheck(lambda a: mg.tensor(a.detach().numpy() * 2, requires_grad=True) * 1.0 + a * 0.0, (x,))


def test_gradgradcheck_catches_a_wrong_second_derivative() -> None:
    class FirstOnly(mg.autograd.Function):
        """sin with a backward that is right once but is not itself differentiable correctly."""

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * mg.tensor(np.cos(x.detach().numpy()))  # a constant: d/dx is lost

    x = mg.tensor(A.copy(), requires_grad=True)
    assert mg.autograd.gradcheck(FirstOnly.apply, (x,))
    assert mg.autograd.gradgradcheck(FirstOnly.apply, (x,), raise_exception=False) is False


def test_signatures_match_torch() -> None:
    import inspect

    for name in ("jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"):
        assert list(inspect.signature(getattr(MF, name)).parameters) == \
            list(inspect.signature(getattr(AF, name)).parameters)
    for name in ("gradcheck", "gradgradcheck"):
        ours = inspect.signature(getattr(mg.autograd, name)).parameters
        theirs = inspect.signature(getattr(torch.autograd, name)).parameters
        assert {k: p.default for k, p in ours.items()} == {k: p.default for k, p in theirs.items()}
    for name in ("grad", "grad_and_value"):
        assert list(inspect.signature(getattr(mg.func, name)).parameters) == \
            list(inspect.signature(getattr(torch.func, name)).parameters)


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")  # torch's vmap internals
@pytest.mark.parametrize("case", sorted(FUNCS))
def test_forward_mode_jacobian_matches_torch(case: str) -> None:
    kind, f = FUNCS[case]
    ours, theirs = _both(lambda L, x, **k: L.jacobian(f, x, **k), kind, strategy="forward-mode", vectorize=True)
    assert _plain(ours) == _plain(theirs)
    for L, lib in ((MF, mg), (AF, torch)):
        with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
            L.jacobian(f, _inputs(lib, kind), strategy="forward-mode")
        with pytest.raises(RuntimeError, match="`strict=True` and `strategy=\"forward-mode\"` are not supported"):
            L.jacobian(f, _inputs(lib, kind), strategy="forward-mode", vectorize=True, strict=True)


def test_variable_is_the_old_wrapper_as_in_torch() -> None:
    for lib in (mg, torch):
        Variable = lib.autograd.Variable
        t = lib.ones(2)
        v = Variable(t, requires_grad=True)
        assert v is not t and v.requires_grad and not t.requires_grad and v.grad_fn is None
        assert isinstance(t, Variable) and not isinstance([1.0], Variable)
        w = Variable(lib.ones(2, requires_grad=True) * 2)
        assert w.grad_fn is None and not w.requires_grad
        with pytest.raises(TypeError, match="Variable data has to be a tensor, but got list"):
            Variable([1.0, 2.0])
        with pytest.warns(UserWarning, match="volatile was removed"):
            Variable(t, volatile=True)
    v = mg.autograd.Variable(mg.ones(2), requires_grad=True)
    (v * 3).sum().backward()
    assert v.grad.tolist() == [3.0, 3.0]
