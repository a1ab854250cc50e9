"""Memory formats and the order of memory, against PyTorch: ``channels_last`` (``to``, ``contiguous``,
``clone``, ``is_contiguous``, ``Module.to``), the ``*_like`` functions keeping a dense input's strides
(PyTorch's ``preserve_format``), and the samplers drawing in memory order (NOTE [ Draws land in memory
order ] in ``minigrad/ops/sampling.py``): ``x.t().uniform_()`` and ``randn_like(x.t())`` give PyTorch's
values, not only its distribution."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _x4(lib: Any) -> Any:
    return lib.arange(24.0).reshape(1, 2, 3, 4)


def _cl(lib: Any) -> Any:
    return _x4(lib).to(memory_format=lib.channels_last)


CASES: dict[str, Callable[[Any], Any]] = {
    "is_contiguous preserve_format": lambda L: _x4(L).is_contiguous(memory_format=L.preserve_format),
    "is_contiguous channels_last_3d of 4-d": lambda L: _x4(L).is_contiguous(memory_format=L.channels_last_3d),
    "is_contiguous channels_last of 1-d": lambda L: L.ones(3).is_contiguous(memory_format=L.channels_last),
    "contiguous channels_last of 1-d": lambda L: L.ones(3).contiguous(memory_format=L.channels_last),
    "to channels_last of 1-d": lambda L: L.ones(3).to(memory_format=L.channels_last),
    "clone channels_last of 1-d": lambda L: L.ones(3).clone(memory_format=L.channels_last),
    "contiguous channels_last": lambda L: _x4(L).contiguous(memory_format=L.channels_last),
    "to channels_last": lambda L: _cl(L),
    "contiguous preserve_format": lambda L: _x4(L).contiguous(memory_format=L.preserve_format),
    "contiguous preserve_format of a transpose": lambda L: _x4(L).transpose(2, 3).contiguous(
        memory_format=L.preserve_format),
    "clone channels_last": lambda L: _x4(L).clone(memory_format=L.channels_last),
    "channels_last then contiguous": lambda L: _cl(L).contiguous(),
    "channels_last clone": lambda L: _cl(L).clone(),
    "channels_last + 1": lambda L: _cl(L) + 1,
    "channels_last relu": lambda L: L.nn.functional.relu(_cl(L)),
    "channels_last sum over channels": lambda L: _cl(L).sum(1, keepdim=True),
    "to channels_last, one channel": lambda L: L.ones(2, 1, 3, 3).to(memory_format=L.channels_last),
    "to channels_last, 1x1 image": lambda L: L.ones(2, 3, 1, 1).to(memory_format=L.channels_last),
    "is_contiguous channels_last, 1x1 image": lambda L: L.ones(2, 3, 1, 1).is_contiguous(memory_format=L.channels_last),
    "to channels_last_3d": lambda L: L.ones(2, 3, 4, 5, 6).to(memory_format=L.channels_last_3d),
    "to dtype and channels_last": lambda L: L.ones(2, 3, 4, 5).to(L.float64, memory_format=L.channels_last),
    "contiguous channels_last's node": lambda L: L.ones(2, 3, 4, 5).requires_grad_().contiguous(
        memory_format=L.channels_last).grad_fn.name(),
    "to and contiguous return the tensor itself": lambda L: (lambda y: (
        y.to(memory_format=L.channels_last) is y, y.contiguous() is y,
        y.contiguous(memory_format=L.channels_last) is y))(_cl(L)),
    "Module.to channels_last": lambda L: (lambda m: (m.weight.stride(), m.bias.stride()))(
        L.nn.Conv2d(3, 4, 3).to(memory_format=L.channels_last)),
    "empty_like of channels_last": lambda L: L.empty_like(_cl(L)).stride(),
    "zeros_like of channels_last": lambda L: L.zeros_like(_cl(L)),
    "ones_like of a transpose": lambda L: L.ones_like(L.zeros(3, 4).t()),
    "full_like of a transpose, another dtype": lambda L: L.full_like(L.zeros(3, 4).t(), 2, dtype=L.float64),
    "zeros_like of a slice (not dense)": lambda L: L.zeros_like(L.zeros(3, 8)[:, ::2]),
    "the gradient through to channels_last": lambda L: (lambda a: (
        (a.to(memory_format=L.channels_last) * 2).sum().backward(), a.grad.stride(), a.grad.tolist())[1:])(
        L.ones(1, 2, 2, 2).requires_grad_()),
}


def _seen(lib: Any, r: Any) -> Any:
    if isinstance(r, (torch.Tensor, mg.Tensor)):
        return (tuple(r.shape), r.stride(), r.is_contiguous(), r.is_contiguous(memory_format=lib.channels_last),
                r.tolist())
    return r


@pytest.mark.parametrize("name", list(CASES))
def test_memory_format_as_torch(name: str) -> None:
    got = []
    for lib in (torch, mg):
        try:
            got.append(_seen(lib, CASES[name](lib)))
        except RuntimeError as e:
            got.append(("RuntimeError", str(e)))
    assert got[0] == got[1]


def test_a_memory_format_must_be_one() -> None:
    for lib in (torch, mg):
        with pytest.raises(TypeError, match="memory_format"):
            _x4(lib).to(memory_format="channels_last")
        with pytest.raises(TypeError, match="memory_format"):
            _x4(lib).is_contiguous(memory_format="channels_last")


def test_channels_last_is_a_memory_format_and_paddle_s_layout_function() -> None:
    assert isinstance(mg.channels_last, mg.memory_format) and repr(mg.channels_last) == "minigrad.channels_last"
    x = mg.channels_last(mg.zeros(2, 3, 4, 5))  # called: the NHWC layout of the layout lesson
    assert x.layout == "NHWC" and tuple(x.shape) == (2, 4, 5, 3)


SAMPLERS: dict[str, Callable[[Any], Any]] = {
    "uniform_": lambda x: x.uniform_(), "normal_": lambda x: x.normal_(), "random_": lambda x: x.random_(0, 1000),
    "random_ full": lambda x: x.random_(), "exponential_": lambda x: x.exponential_(), "cauchy_": lambda x: x.cauchy_(),
    "log_normal_": lambda x: x.log_normal_(), "geometric_": lambda x: x.geometric_(0.3),
    "bernoulli_": lambda x: x.bernoulli_(0.4),
    "bernoulli_ of a tensor": lambda x: x.bernoulli_(x.new_tensor(np.linspace(0, 1, x.numel()).reshape(tuple(x.shape)))),
}
LAYOUTS: dict[str, Callable[[Any], Any]] = {
    "transpose, 15 elements": lambda L: L.zeros(5, 3, dtype=L.float64).t(),
    "transpose, 63 elements": lambda L: L.zeros(7, 9, dtype=L.float32).t(),
    "every other column": lambda L: L.zeros(6, 8)[:, ::2],
    "channels last": lambda L: L.zeros(2, 3, 4, 5).to(memory_format=L.channels_last),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("sampler", list(SAMPLERS))
def test_in_place_samplers_draw_in_memory_order_as_torch(sampler: str, layout: str) -> None:
    got = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        x = LAYOUTS[layout](lib)
        SAMPLERS[sampler](x)
        got.append(np.asarray(x.tolist()))
    np.testing.assert_array_equal(got[0], got[1])


@pytest.mark.parametrize("fn", ["rand_like", "randn_like", "randint_like"])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_random_like_keeps_the_layout_and_torch_s_values(fn: str, layout: str) -> None:
    got = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        x = LAYOUTS[layout](lib)
        r = getattr(lib, fn)(x, 0, 100) if fn == "randint_like" else getattr(lib, fn)(x)
        got.append((r.tolist(), r.stride()))
    assert got[0] == got[1]


LEAVES: dict[str, Callable[[Any], Any]] = {
    "a transposed copy, gradient through a product": lambda L: (L.randn(4, 3).t().clone(), lambda p: (p * 2).sum()),
    "channels last, gradient through exp": lambda L: (
        L.randn(2, 3, 4, 5, dtype=L.float64).to(memory_format=L.channels_last), lambda p: p.exp().sum()),
    "channels last, gradient through a sum over channels": lambda L: (
        L.randn(2, 3, 4, 5).to(memory_format=L.channels_last), lambda p: p.sum(1).sum()),
    "row-major, gradient through a transpose": lambda L: (L.randn(3, 4), lambda p: (p.t() * 2).sum()),
    "a channels-last weight of a convolution": lambda L: (
        L.randn(4, 3, 3, 3).to(memory_format=L.channels_last),
        lambda w: L.nn.functional.conv2d(L.ones(1, 3, 5, 5), w).sum()),
    "twice: the second gradient added in place": lambda L: (
        L.randn(4, 3).t().clone(), lambda p: (p * 2).sum() + (p.t().contiguous() * 3).sum()),
}


@pytest.mark.parametrize("name", list(LEAVES))
def test_a_leaf_s_grad_is_laid_out_as_the_leaf_as_torch(name: str) -> None:
    """PyTorch's AccumulateGrad layout contract (NOTE [ A .grad is laid out as its leaf ] in
    minigrad/autograd/accumulation.py): ``p.grad.stride() == p.stride()`` for a dense leaf."""
    got = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        leaf, loss = LEAVES[name](lib)
        leaf.requires_grad_()
        loss(leaf).backward()
        got.append((leaf.stride(), leaf.grad.stride(), np.round(np.asarray(leaf.grad.tolist()), 12).tolist()))
    assert got[0] == got[1]
