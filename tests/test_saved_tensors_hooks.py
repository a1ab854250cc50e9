"""``mg.autograd.graph.saved_tensors_hooks`` and ``save_on_cpu`` held against PyTorch's.

Each program runs twice, once with ``minigrad`` and once with ``torch`` as the
library: values, gradients, what the hooks see and the errors must agree.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from torch_compare import raised

torch = pytest.importorskip("torch")


def _inputs(lib, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((4, 3)), rng.standard_normal((3, 5)), rng.standard_normal(5)]
    return [lib.tensor(a, requires_grad=True) for a in arrays]


def _program(lib, x, w, b):
    h = (x @ w + b).tanh()
    return (h.exp() * h).sin().sum()


def _run(lib, hooks_factory):
    x, w, b = _inputs(lib)
    log = []
    with hooks_factory(log):
        loss = _program(lib, x, w, b)
    loss.backward()
    return loss.item(), [t.grad.numpy() for t in (x, w, b)], log


def _logging_hooks(lib):
    def factory(log):
        def pack(t):
            log.append(("pack", tuple(t.shape), t.requires_grad, lib.is_grad_enabled()))
            return t.detach().clone()

        def unpack(p):
            log.append(("unpack", tuple(p.shape)))
            return p

        return lib.autograd.graph.saved_tensors_hooks(pack, unpack)

    return factory


def test_values_grads_and_what_the_hooks_see_equal_pytorchs():
    m_loss, m_grads, m_log = _run(mg, _logging_hooks(mg))
    t_loss, t_grads, t_log = _run(torch, _logging_hooks(torch))
    assert m_loss == pytest.approx(t_loss, rel=1e-12)
    for a, b in zip(m_grads, t_grads):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert m_log and sorted(m_log) == sorted(t_log)  # the same packs and unpacks (op order may differ)
    assert all(not entry[3] for entry in m_log if entry[0] == "pack")  # packed with grad recording off


def test_the_pack_hook_gets_the_tensor_itself():
    for lib in (mg, torch):
        a = lib.ones(3, dtype=lib.float64, requires_grad=True)
        got = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: got.append(t) or t.detach(), lambda t: t):
            (a * a).sum()
        assert len(got) == 2 and all(t is a for t in got), lib.__name__


def _nested(lib):
    a = lib.tensor([0.5, 1.0, 2.0], dtype=lib.float64, requires_grad=True)
    log = []
    outer = lib.autograd.graph.saved_tensors_hooks(lambda t: ("outer", t.detach()), lambda p: log.append(p[0]) or p[1])
    inner = lib.autograd.graph.saved_tensors_hooks(lambda t: ("inner", t.detach()), lambda p: log.append(p[0]) or p[1])
    with outer:
        c = a.exp()
        with inner:
            d = c.sin()
        e = d.cos()
    e.sum().backward()  # the hooks apply to what was saved under them, after the contexts closed
    return a.grad.numpy(), log


def test_nested_contexts_apply_the_innermost_pair():
    m_grad, m_log = _nested(mg)
    t_grad, t_log = _nested(torch)
    np.testing.assert_allclose(m_grad, t_grad, rtol=1e-12)
    assert m_log == t_log == ["outer", "inner", "outer"]


def test_unpack_runs_at_every_read_and_double_backward_works():
    for lib in (mg, torch):
        x = lib.tensor([0.3, -1.2], dtype=lib.float64, requires_grad=True)
        calls = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: calls.append(1) or t):
            y = (x.sin() * x).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        expected = 2 * np.cos([0.3, -1.2]) - np.array([0.3, -1.2]) * np.sin([0.3, -1.2])
        np.testing.assert_allclose(gg.detach().numpy(), expected, rtol=1e-12)
        assert len(calls) >= 3, lib.__name__


def test_errors_equal_pytorchs():
    def unpack_not_a_tensor(lib):
        a = lib.ones(2, dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: 3):
            y = a.exp().sum()
        y.backward()

    def pack_in_place(lib):
        b = lib.ones(2, dtype=lib.float64, requires_grad=True) * 1

        def pack(t):
            t.add_(1)
            return t

        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            b.exp()

    def disabled(lib):
        with lib.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            with lib.autograd.graph.save_on_cpu():
                pass

    for program in (unpack_not_a_tensor, pack_in_place, disabled):
        m_cls, m_msg = raised(lambda: program(mg))
        t_cls, t_msg = raised(lambda: program(torch))
        # minigrad names the node whose backward failed before PyTorch's message
        assert m_cls is t_cls and m_msg.endswith(t_msg), program.__name__


def test_disable_restores_the_previous_state():
    with mg.autograd.graph.disable_saved_tensors_hooks("outer"):
        with mg.autograd.graph.disable_saved_tensors_hooks("inner"):
            pass
        with pytest.raises(RuntimeError, match="^outer$"):
            mg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t).__enter__()
    with mg.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
        pass


def test_no_version_check_through_hooks():
    for lib in (mg, torch):
        b = lib.ones(3, dtype=lib.float64, requires_grad=True) * 1
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            y = b.exp().sum()
        with lib.no_grad():
            b.mul_(2)  # the hooks kept a copy: backward uses the values packed
        y.backward()


def test_saved_tensors_are_freed_by_backward_as_without_hooks():
    for lib in (mg, torch):
        a = lib.ones(2, dtype=lib.float64, requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = a.exp().sum()
        y.backward()
        with pytest.raises(RuntimeError, match="second time"):
            y.backward()


def test_custom_function_saves_are_packed():
    class Cube(mg.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * 3 * x ** 2

    packed = []
    x = mg.tensor([1.0, 2.0], dtype=mg.float64, requires_grad=True)
    with mg.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t.detach() * 1, lambda t: t):
        y = Cube.apply(x).sum()
    y.backward()
    assert packed == [x] or (len(packed) == 1 and packed[0] is x)
    assert x.grad.tolist() == [3.0, 12.0]


def test_save_on_cpu_gives_pytorchs_values_and_grads():
    m_loss, m_grads, _ = _run(mg, lambda log: mg.autograd.graph.save_on_cpu())
    t_loss, t_grads, _ = _run(torch, lambda log: torch.autograd.graph.save_on_cpu())
    assert m_loss == pytest.approx(t_loss, rel=1e-12)
    for a, b in zip(m_grads, t_grads):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_a_leaf_saved_under_hooks_is_not_shared_with_later_saves():
    w = mg.ones(3, dtype=mg.float64, requires_grad=True)
    count = []
    with mg.autograd.graph.saved_tensors_hooks(lambda t: count.append(1) or t.detach(), lambda t: t):
        y = (w * w).sum()
    z = (w * w).sum()  # saved without hooks: the plain wrapper again
    (y + z).backward()
    assert len(count) == 2 and w.grad.tolist() == [4.0, 4.0, 4.0]
