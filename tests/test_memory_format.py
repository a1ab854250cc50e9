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
from minigrad.tensor import storage_array

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


def _col(lib: Any, rows: int, cols: int, grad: bool = True) -> Any:
    """A column-major (rows, cols) matrix: the transpose of a row-major leaf, as ``weight.t()``."""
    return lib.randn(cols, rows, dtype=lib.float64, requires_grad=grad).t()


def _row(lib: Any, rows: int, cols: int, grad: bool = True) -> Any:
    return lib.randn(rows, cols, dtype=lib.float64, requires_grad=grad) * 1


PRODUCTS: dict[str, Callable[[Any], tuple[Any, ...]]] = {
    "mm, mat2 column-major": lambda L: (lambda a, b: a @ b, _row(L, 5, 4), _col(L, 4, 3)),
    "mm, mat2 column-major, mat1 needs no gradient": lambda L: (lambda a, b: a @ b, _row(L, 5, 4, False), _col(L, 4, 3)),
    "mm, mat1 column-major": lambda L: (lambda a, b: a @ b, _col(L, 5, 4), _row(L, 4, 3)),
    "mm, both column-major": lambda L: (lambda a, b: a @ b, _col(L, 5, 4), _col(L, 4, 3)),
    "mm, neither": lambda L: (lambda a, b: a @ b, _row(L, 5, 4), _row(L, 4, 3)),
    "a batch of rows times a column-major matrix": lambda L: (
        lambda a, b: a @ b, L.randn(2, 5, 4, dtype=L.float64, requires_grad=True) * 1, _col(L, 4, 3)),
    "a batch of rows, which needs no gradient, times a column-major matrix": lambda L: (
        lambda a, b: a @ b, L.randn(2, 5, 4, dtype=L.float64), _col(L, 4, 3)),
    "mv of a column-major matrix": lambda L: (lambda a, v: a @ v, _col(L, 5, 4), _row(L, 4, 1)[:, 0]),
    "addmm, both column-major": lambda L: (
        lambda a, b: L.addmm(L.ones(3, dtype=L.float64), a, b), _col(L, 5, 4), _col(L, 4, 3)),
    "addmm, mat1 column-major, mat2 needs no gradient": lambda L: (
        lambda a, b: L.addmm(L.ones(3, dtype=L.float64), a, b), _col(L, 5, 4), _col(L, 4, 3, False)),
    "linear without a bias on a sequence (a tied lm_head)": lambda L: (
        lambda x, w: L.nn.functional.linear(x, w), L.randn(2, 5, 4, dtype=L.float64, requires_grad=True) * 1,
        _row(L, 3, 4)),
    "linear with a bias on rows that need no gradient": lambda L: (
        lambda x, w: L.nn.functional.linear(x, w, L.ones(3, dtype=L.float64)), L.randn(5, 4, dtype=L.float64),
        _row(L, 3, 4)),
}


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_a_product_s_gradients_are_laid_out_as_its_operands_as_torch(name: str) -> None:
    """PyTorch's ``mm_mat1_backward``/``mm_mat2_backward``: a column-major operand of ``mm`` or ``addmm`` gets a
    column-major gradient, whether or not the node saved it (``operand_layout`` in minigrad/autograd/formula.py),
    so ``weight.t()``'s gradient reaches a row-major weight as a row-major ``.grad`` with no copy. Each
    operand's gradient is read by a hook, before any leaf's layout contract."""
    got = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        fn, *operands = PRODUCTS[name](lib)
        seen: list[Any] = []
        for k, v in enumerate(operands):
            if v.requires_grad:
                v.register_hook(lambda g, k=k: seen.append((k, tuple(g.shape), g.stride(),
                                                            np.round(np.asarray(g.tolist()), 12).tolist())))
        out = fn(*operands)
        (out * lib.arange(out.numel(), dtype=lib.float64).reshape(out.shape)).sum().backward()
        got.append((type(out.grad_fn).__name__, sorted(seen, key=lambda s: s[0])))
    assert got[0] == got[1]


def _img(L: Any, c: int = 4) -> Any:
    return L.randn(2, c, 6, 6, dtype=L.float64).to(memory_format=L.channels_last)


def _vol(L: Any) -> Any:
    return L.randn(2, 3, 4, 4, 4, dtype=L.float64).to(memory_format=L.channels_last_3d)


#: A CNN's ops on a channels-last image (NOTE [ A memory format passes through a CNN ] in
#: minigrad/kernels/strided.py): which keep it channels last, and which make a row-major result, as PyTorch's.
CNN_OPS: dict[str, Callable[[Any], Any]] = {
    "conv2d": lambda L: L.nn.functional.conv2d(_img(L), L.randn(3, 4, 3, 3, dtype=L.float64)),
    "conv2d with a bias and padding": lambda L: L.nn.functional.conv2d(
        _img(L), L.randn(3, 4, 3, 3, dtype=L.float64), L.randn(3, dtype=L.float64), padding=1),
    "a grouped conv2d": lambda L: L.nn.functional.conv2d(_img(L), L.randn(4, 1, 3, 3, dtype=L.float64), groups=4),
    "conv2d of a row-major image, channels-last weight": lambda L: L.nn.functional.conv2d(
        _img(L).contiguous(), L.randn(3, 4, 3, 3, dtype=L.float64).to(memory_format=L.channels_last)),
    "conv2d of a row-major image and weight": lambda L: L.nn.functional.conv2d(
        _img(L).contiguous(), L.randn(3, 4, 3, 3, dtype=L.float64)),
    "conv_transpose2d": lambda L: L.nn.functional.conv_transpose2d(_img(L), L.randn(4, 3, 3, 3, dtype=L.float64)),
    "batch_norm": lambda L: L.nn.functional.batch_norm(_img(L), None, None, training=True),
    "batch_norm, eval": lambda L: L.nn.functional.batch_norm(
        _img(L), L.zeros(4, dtype=L.float64), L.ones(4, dtype=L.float64), training=False),
    "batch_norm of a volume": lambda L: L.nn.functional.batch_norm(_vol(L), None, None, training=True),
    "group_norm": lambda L: L.nn.functional.group_norm(_img(L), 2),
    "layer_norm (row-major)": lambda L: L.nn.functional.layer_norm(_img(L), (6,)),
    "max_pool2d": lambda L: L.nn.functional.max_pool2d(_img(L), 2),
    "max_pool2d's indices": lambda L: L.nn.functional.max_pool2d(_img(L), 2, return_indices=True)[1],
    "max_pool2d dilated, ceil_mode": lambda L: L.nn.functional.max_pool2d(_img(L), 3, 2, 1, 2, True),
    "max_pool2d dilated, ceil_mode, its indices": lambda L: L.nn.functional.max_pool2d(_img(L), 3, 2, 1, 2, True,
                                                                                       return_indices=True)[1],
    "avg_pool2d, ceil_mode": lambda L: L.nn.functional.avg_pool2d(_img(L), 3, stride=2, padding=1, ceil_mode=True),
    "adaptive_avg_pool2d": lambda L: L.nn.functional.adaptive_avg_pool2d(_img(L), 3),
    "adaptive_avg_pool2d to one pixel": lambda L: L.nn.functional.adaptive_avg_pool2d(_img(L), 1),
    "adaptive_max_pool2d": lambda L: L.nn.functional.adaptive_max_pool2d(_img(L), 3),
    "adaptive_max_pool2d's indices": lambda L: L.nn.functional.adaptive_max_pool2d(_img(L), 3, return_indices=True)[1],
    "avg_pool3d (row-major)": lambda L: L.nn.functional.avg_pool3d(_vol(L), 2),
    "max_unpool2d": lambda L: L.nn.functional.max_unpool2d(*L.nn.functional.max_pool2d(
        _img(L), 2, return_indices=True), 2),
    "interpolate, nearest": lambda L: L.nn.functional.interpolate(_img(L), scale_factor=2),
    "interpolate, bilinear": lambda L: L.nn.functional.interpolate(_img(L), scale_factor=2, mode="bilinear"),
    "interpolate, trilinear": lambda L: L.nn.functional.interpolate(_vol(L), scale_factor=2, mode="trilinear"),
    "pad, constant": lambda L: L.nn.functional.pad(_img(L), (1, 1, 1, 1)),
    "pad, reflect": lambda L: L.nn.functional.pad(_img(L), (1, 1, 1, 1), mode="reflect"),
    "pad, replicate of a volume": lambda L: L.nn.functional.pad(_vol(L), (1, 1, 1, 1, 1, 1), mode="replicate"),
    "pad, circular (row-major)": lambda L: L.nn.functional.pad(_img(L), (1, 1, 1, 1), mode="circular"),
    "cat of channels-last images": lambda L: L.cat([_img(L), _img(L, 2)], 1),
    "cat of a channels-last and a row-major image (row-major)": lambda L: L.cat([_img(L), _img(L).contiguous()], 1),
    "softmax (row-major)": lambda L: L.nn.functional.softmax(_img(L), 1),
    "relu": lambda L: L.nn.functional.relu(_img(L)),
    "pixel_shuffle": lambda L: L.nn.functional.pixel_shuffle(L.randn(2, 8, 3, 3).to(memory_format=L.channels_last), 2),
    "pixel_unshuffle": lambda L: L.nn.functional.pixel_unshuffle(_img(L, 2), 2),
    "pixel_shuffle of a transpose (row-major)": lambda L: L.nn.functional.pixel_shuffle(
        L.randn(2, 8, 3, 3).transpose(2, 3), 2),
    "a slice's conv2d": lambda L: L.nn.functional.conv2d(_img(L)[:, :, ::2], L.randn(3, 4, 1, 1, dtype=L.float64)),
}


@pytest.mark.parametrize("name", list(CNN_OPS))
def test_a_cnn_s_ops_keep_a_channels_last_image_channels_last_as_torch(name: str) -> None:
    got = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        out = CNN_OPS[name](lib)
        got.append((out.stride(), np.round(np.asarray(out.tolist(), dtype=np.float64), 10).tolist()))
    assert got[0][0] == got[1][0]
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-9, atol=1e-12)


CREATED: dict[str, Callable[[Any], Any]] = {
    "empty, channels_last": lambda L: L.empty(2, 3, 4, 5, memory_format=L.channels_last),
    "empty, channels_last_3d": lambda L: L.empty(2, 3, 4, 5, 6, memory_format=L.channels_last_3d),
    "empty, channels_last, empty batch": lambda L: L.empty(0, 3, 4, 5, memory_format=L.channels_last),
    "empty_like, contiguous_format": lambda L: L.empty_like(_img(L), memory_format=L.contiguous_format),
    "zeros_like, channels_last": lambda L: L.zeros_like(_img(L).contiguous(), memory_format=L.channels_last),
    "ones_like, channels_last": lambda L: L.ones_like(_img(L).contiguous(), memory_format=L.channels_last),
    "full_like, channels_last": lambda L: L.full_like(_img(L).contiguous(), 2.0, memory_format=L.channels_last),
    "rand_like, channels_last": lambda L: L.rand_like(_img(L).contiguous(), memory_format=L.channels_last),
    "randn_like, channels_last": lambda L: L.randn_like(_img(L).contiguous(), memory_format=L.channels_last),
    "randint_like, channels_last": lambda L: L.randint_like(_img(L).contiguous(), 9, memory_format=L.channels_last),
    "empty_like of a slice of a channels-last image": lambda L: L.empty_like(_img(L)[:, :, ::2]),
    "zeros_like of a slice of a channels-last image": lambda L: L.zeros_like(_img(L)[:, :, ::2]),
    "randn_like of a slice of a transpose": lambda L: L.randn_like(L.randn(4, 6).t()[::2]),
}


@pytest.mark.parametrize("name", list(CREATED))
def test_new_tensors_take_a_memory_format_as_torch(name: str) -> None:
    got = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        out = CREATED[name](lib)
        got.append((out.stride(), out.tolist() if "rand" in name or "full" in name or "ones" in name else None))
    assert got[0] == got[1]


REFUSED: dict[str, Callable[[Any], Any]] = {
    "empty, preserve_format": lambda L: L.empty(2, 3, memory_format=L.preserve_format),
    "empty, channels_last of 2-D": lambda L: L.empty(2, 3, memory_format=L.channels_last),
    "empty, a string": lambda L: L.empty(2, 3, memory_format="channels_last"),
    "zeros_like, channels_last of 2-D": lambda L: L.zeros_like(L.ones(2, 3), memory_format=L.channels_last),
    "empty_like, channels_last_3d of 4-D": lambda L: L.empty_like(L.ones(2, 3, 4, 5), memory_format=L.channels_last_3d),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_a_memory_format_of_another_rank_is_refused_as_torch(name: str) -> None:
    errors = []
    for lib in (torch, mg):
        with pytest.raises((RuntimeError, TypeError)) as info:
            REFUSED[name](lib)
        errors.append((info.type, str(info.value).replace("torch.", "minigrad.")))
    assert errors[0] == errors[1]


STRIDED: dict[str, Callable[[Any], Any]] = {
    "empty_strided, column-major": lambda L: L.empty_strided((2, 3), (1, 2)),
    "empty_strided, a stride 0": lambda L: L.empty_strided((2, 3), (0, 1)),
    "empty_strided, an empty dim": lambda L: L.empty_strided((2, 0), (1, 2)),
    "empty_strided, gaps": lambda L: L.empty_strided((2, 2), (5, 2), dtype=L.float64),
    "new_empty_strided": lambda L: L.ones(2, dtype=L.float64).new_empty_strided((2, 2), (1, 2)),
    "empty_strided, requires_grad": lambda L: L.empty_strided((2, 3), (1, 2), requires_grad=True),
}


@pytest.mark.parametrize("name", list(STRIDED))
def test_empty_strided_lays_out_a_new_storage_as_torch(name: str) -> None:
    got = []
    for lib in (torch, mg):
        t = STRIDED[name](lib)
        storage = (t.untyped_storage().nbytes() // t.element_size() if lib is torch
                   else storage_array(t).size)
        got.append((tuple(t.shape), t.stride(), t.storage_offset(), t.is_contiguous(), str(t.dtype).split(".")[-1],
                    t.requires_grad, storage))
    assert got[0] == got[1]


@pytest.mark.parametrize("call", ["empty_strided((2, 3), (1,))", "empty_strided((2, 3), (1, -2))"])
def test_empty_strided_refuses_as_torch(call: str) -> None:
    errors = []
    for lib in (torch, mg):
        with pytest.raises(RuntimeError) as info:
            eval(f"lib.{call}")
        errors.append(str(info.value))
    assert errors[0] == errors[1]
