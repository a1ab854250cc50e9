"""The 3-D convolutions, max pooling, adaptive average pooling and padding (``ops/convolution3d.py``,
``ops/pooling3d.py``, ``nn/conv.py``, ``nn/pooling.py``, ``nn/padding.py``), and max pooling's ``*_with_indices``
forms, each against PyTorch: values, dtypes, shapes, ``grad_fn`` names, gradients, second derivatives, the layers'
initial weights and memory formats, errors (class and words), and that a refused call leaves no node behind.

(tests/test_ops_grad.py checks their formulas against finite differences, tests/test_grad_fn_names.py their whole
graphs, tests/test_conformance.py PyTorch's OpInfo samples, tests/test_module_reprs.py the layers' reprs.)
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

RNG = np.random.default_rng(3)
X = RNG.standard_normal((2, 4, 5, 6, 5))
W = RNG.standard_normal((6, 2, 2, 3, 2))  # groups=2 over X's 4 channels
WT = RNG.standard_normal((4, 3, 3, 2, 2))  # a transposed convolution's (C_in, C_out / groups, k...)
B = RNG.standard_normal(6)
NAN = X.copy()
NAN[0, 0, 0, 0, :2], NAN[1, 2, :2, :2, :2], NAN[0, 3, 1:3, 2:4, 1:3] = np.nan, -np.inf, np.inf
TIES = np.round(X * 2) / 2  # repeated values in each window: the first maximum wins


def _name(t: Any) -> str | None:
    fn = t.grad_fn
    return None if fn is None else fn.name()


def _both(fn: Callable[..., Any], *arrays: np.ndarray) -> None:
    """``fn(lib, *tensors)`` under both libraries: the outputs' values, dtypes, shapes and ``grad_fn`` names, then
    the gradients of a weighted sum of the floating outputs, equal."""
    results = []
    for lib in (torch, mg):
        leaves = [lib.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (PyTorch's warning on "same" padding with an even kernel)
            out = fn(lib, *leaves)
        outs = list(out) if isinstance(out, tuple) else [out]
        loss = None
        for k, o in enumerate(outs):
            if o.requires_grad:
                w = lib.tensor(np.arange(o.numel(), dtype=np.float64).reshape(tuple(o.shape)) + k + 1).to(o.dtype)
                loss = (o * w).nansum() if loss is None else loss + (o * w).nansum()
        if loss is not None:
            loss.backward()
        results.append(([(o.detach().numpy(), str(o.dtype).split(".")[-1], tuple(o.shape), _name(o)) for o in outs],
                        [None if t.grad is None else t.grad.numpy() for t in leaves]))
    (want, want_grads), (got, got_grads) = results
    single = any(wd == "float32" for _, wd, _, _ in want)  # (float32 sums in another order: a looser tolerance)
    for (wv, wd, ws, wn), (gv, gd, gs, gn) in zip(want, got):
        assert (gd, gs, gn) == (wd, ws, wn)
        np.testing.assert_allclose(gv, wv, rtol=1e-5 if single else 1e-12, atol=1e-5 if single else 1e-12,
                                   equal_nan=True)
    for wg, gg in zip(want_grads, got_grads):
        assert (wg is None) == (gg is None)
        if wg is not None:
            np.testing.assert_allclose(gg, wg, rtol=1e-4 if single else 1e-10, atol=1e-11)


def _F(lib: Any) -> Any:
    return lib.nn.functional


CALLS: dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]] = {
    "conv3d": (lambda lib, x, w, b: _F(lib).conv3d(x, w, b, groups=2), (X, W, B)),
    "conv3d stride padding dilation": (lambda lib, x, w: lib.conv3d(x, w, None, (2, 1, 2), (1, 0, 2), (1, 2, 1), 2),
                                       (X, W)),
    "conv3d same": (lambda lib, x, w: _F(lib).conv3d(x, w, padding="same", dilation=(2, 1, 1), groups=2), (X, W)),
    "conv3d valid": (lambda lib, x, w: _F(lib).conv3d(x, w, padding="valid", groups=2), (X, W)),
    "conv3d unbatched": (lambda lib, x, w, b: _F(lib).conv3d(x[0], w, b, stride=2, groups=2), (X, W, B)),
    "conv3d float32": (lambda lib, x, w: _F(lib).conv3d(x.float(), w.float(), groups=2), (X, W)),
    "conv_transpose3d": (lambda lib, x, w: lib.conv_transpose3d(x, w), (X, WT)),
    "conv_transpose3d all arguments": (
        lambda lib, x, w, b: _F(lib).conv_transpose3d(x, w, b, (2, 1, 2), (1, 0, 1), (1, 0, 0), 2, (1, 2, 1)),
        (X, WT[:, :1], B[:2])),
    "conv_transpose3d output_padding past the stride": (
        lambda lib, x, w: _F(lib).conv_transpose3d(x, w, output_padding=1, dilation=2), (X, WT)),
    "conv_transpose3d unbatched": (lambda lib, x, w: _F(lib).conv_transpose3d(x[1], w, stride=2), (X, WT)),
    "max_pool3d": (lambda lib, x: _F(lib).max_pool3d(x, 2), (X,)),
    "max_pool3d torch form": (lambda lib, x: lib.max_pool3d(x, (2, 3, 2), (1, 2, 1)), (X,)),
    "max_pool3d all arguments": (
        lambda lib, x: _F(lib).max_pool3d(x, (3, 2, 3), (2, 1, 2), (1, 1, 0), (1, 2, 1), True, True), (X,)),
    "max_pool3d unbatched, ceil_mode": (lambda lib, x: _F(lib).max_pool3d(x[0], 2, ceil_mode=True,
                                                                          return_indices=True), (X,)),
    "max_pool3d nan and inf": (lambda lib, x: _F(lib).max_pool3d(x, 2, padding=1, return_indices=True), (NAN,)),
    "max_pool3d ties": (lambda lib, x: _F(lib).max_pool3d(x, 3, stride=1, return_indices=True), (TIES,)),
    "max_pool3d float32": (lambda lib, x: _F(lib).max_pool3d(x.float(), 2, return_indices=True), (X,)),
    "max_pool3d_with_indices": (lambda lib, x: _F(lib).max_pool3d_with_indices(x, 2, 1, 1), (X,)),
    "max_pool2d_with_indices": (lambda lib, x: _F(lib).max_pool2d_with_indices(x[0, 0], 2, padding=1), (X,)),
    "max_pool1d_with_indices": (lambda lib, x: _F(lib).max_pool1d_with_indices(x[0, 0, 0], 3, 2, ceil_mode=True),
                                (X,)),
    "max_unpool3d of max_pool3d": (lambda lib, x: _F(lib).max_unpool3d(
        *_F(lib).max_pool3d(x, 2, return_indices=True), 2, output_size=x.shape[-3:]), (X,)),
    "adaptive_avg_pool3d": (lambda lib, x: _F(lib).adaptive_avg_pool3d(x, (2, 4, 3)), (X,)),
    "adaptive_avg_pool3d None": (lambda lib, x: _F(lib).adaptive_avg_pool3d(x, (3, None, 2)), (X,)),
    "adaptive_avg_pool3d unbatched": (lambda lib, x: _F(lib).adaptive_avg_pool3d(x[0], 4), (X,)),
    "adaptive_avg_pool3d to one value": (lambda lib, x: _F(lib).adaptive_avg_pool3d(x, 1), (X,)),
    # (no gradient: PyTorch's backward refuses a gradient of zero size)
    "adaptive_avg_pool3d to zero": (lambda lib, x: _F(lib).adaptive_avg_pool3d(x.detach(), (0, 2, 0)), (X,)),
    "adaptive_avg_pool3d of infinities": (lambda lib, x: _F(lib).adaptive_avg_pool3d(x, (2, 3, 2)), (NAN,)),
    "pad constant 3-D": (lambda lib, x: _F(lib).pad(x, (1, 2, 0, 1, 2, 0), value=1.5), (X,)),
    "pad reflect 3-D": (lambda lib, x: _F(lib).pad(x, (1, 2, 0, 1, 2, 0), mode="reflect"), (X,)),
    "pad replicate 3-D": (lambda lib, x: _F(lib).pad(x[0], (1, 2, 0, 1, 2, 0), mode="replicate"), (X,)),
    "pad circular 3-D": (lambda lib, x: _F(lib).pad(x, (1, 2, 0, 1, 2, 0), mode="circular"), (X,)),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_matches_pytorch(name: str) -> None:
    fn, arrays = CALLS[name]
    _both(fn, *arrays)


# -- the layers: PyTorch's initial weights (from the same seed), forward, padding modes --------------------------

LAYERS: dict[str, tuple[Callable[[Any], Any], np.ndarray]] = {
    "Conv3d": (lambda nn: nn.Conv3d(4, 6, (2, 3, 2), stride=2, padding=1, groups=2), X),
    "Conv3d same dilated": (lambda nn: nn.Conv3d(4, 2, 3, padding="same", dilation=(1, 2, 1), bias=False), X),
    **{f"Conv3d {mode}": (lambda nn, mode=mode: nn.Conv3d(4, 3, (2, 3, 2), padding=(1, 2, 1), padding_mode=mode), X)
       for mode in ("reflect", "replicate", "circular")},
    "Conv3d same reflect": (lambda nn: nn.Conv3d(4, 3, 2, padding="same", padding_mode="reflect"), X),
    "ConvTranspose3d": (lambda nn: nn.ConvTranspose3d(4, 6, (3, 2, 2), stride=2, padding=1, groups=2), X),
    "MaxPool3d": (lambda nn: nn.MaxPool3d((2, 3, 2), stride=1, padding=1, return_indices=True), X),
    "AdaptiveAvgPool3d": (lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)), X),
    "ConstantPad3d": (lambda nn: nn.ConstantPad3d((1, 0, 2, 1, 0, 1), -1.5), X),
    "ZeroPad3d": (lambda nn: nn.ZeroPad3d(1), X),
    "ReflectionPad3d": (lambda nn: nn.ReflectionPad3d((1, 0, 2, 1, 0, 1)), X),
    "ReplicationPad3d": (lambda nn: nn.ReplicationPad3d(2), X),
    "CircularPad3d": (lambda nn: nn.CircularPad3d((1, 0, 2, 1, 0, 1)), X),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_pytorch(name: str) -> None:
    build, x = LAYERS[name]
    torch.manual_seed(0)
    mg.manual_seed(0)
    layers = [build(torch.nn).double(), build(mg.nn).to(mg.float64)]
    for tp, mp in zip(layers[0].parameters(), layers[1].parameters()):
        np.testing.assert_array_equal(mp.detach().numpy(), tp.detach().numpy())
    _both(lambda lib, t: layers[0 if lib is torch else 1](t), x)


def test_the_initial_weights_are_pytorchs_draws_in_float32() -> None:
    for cls, args in (("Conv3d", (3, 4, 2)), ("ConvTranspose3d", (3, 4, (1, 2, 3))), ("Conv3d", (2, 2, 3))):
        torch.manual_seed(5)
        want = getattr(torch.nn, cls)(*args)
        mg.manual_seed(5)
        got = getattr(mg.nn, cls)(*args, dtype=mg.float32, device="cpu")
        for w, g in zip(want.parameters(), got.parameters()):
            assert g.dtype == mg.float32 and tuple(g.shape) == tuple(w.shape)
            np.testing.assert_array_equal(g.detach().numpy(), w.detach().numpy())


def test_conv_transpose3d_output_size_picks_the_output_padding() -> None:
    outs = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        layer = lib.nn.ConvTranspose3d(4, 2, 3, stride=2).double()
        outs.append(layer(lib.tensor(X), output_size=(2, 2, 12, 13, 11)).detach().numpy())
    assert outs[0].shape == outs[1].shape == (2, 2, 12, 13, 11)
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="requested an output size of"):
        mg.nn.ConvTranspose3d(4, 2, 3, stride=2)(mg.tensor(X, dtype=mg.float32), output_size=(13, 12, 10))


@pytest.mark.parametrize("transposed", [False, True])
def test_the_lazy_layers_become_their_eager_class(transposed: bool) -> None:
    name = "ConvTranspose3d" if transposed else "Conv3d"
    outs = []
    for lib in (torch, mg):
        lib.manual_seed(1)
        layer = getattr(lib.nn, f"Lazy{name}")(2, (2, 1, 2), stride=2)
        out = layer(lib.tensor(X, dtype=lib.float32))
        assert type(layer).__name__ == name and tuple(layer.weight.shape) == ((4, 2, 2, 1, 2) if transposed
                                                                              else (2, 4, 2, 1, 2))
        outs.append(out.detach().numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-5, atol=1e-6)


def test_convert_conv3d_weight_memory_format_lays_out_the_weights_and_the_outputs() -> None:
    results = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Conv3d(4, 3, 2), lib.nn.ReLU(), lib.nn.ConvTranspose3d(3, 2, 2))
        assert lib.nn.utils.convert_conv3d_weight_memory_format(model, lib.channels_last_3d) is model
        weights = [m.weight for m in (model[0], model[2])]
        y = model(lib.tensor(X, dtype=lib.float32))
        results.append(([w.stride() for w in weights], [w.is_contiguous(memory_format=lib.channels_last_3d)
                                                         for w in weights], y.stride(), y.detach().numpy()))
    (ws, wc, ys, yv), (gs, gc, gys, gv) = results
    assert (gs, gc, gys) == (ws, wc, ys)
    np.testing.assert_allclose(gv, yv, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda lib, x, w: _F(lib).conv3d(x, w, stride=(1, 2, 1), padding=1, groups=2).tanh(),
    lambda lib, x, w: _F(lib).conv_transpose3d(x, w[:4, :1], stride=2, output_padding=1, groups=2).tanh(),
    lambda lib, x, w: _F(lib).max_pool3d(x * x.sum(), 2, padding=1, ceil_mode=True) * w.sum(),
    lambda lib, x, w: _F(lib).adaptive_avg_pool3d(x * x.sum(), (2, 3, 4)) * w.sum(),
])
def test_second_derivatives_as_pytorch(call: Callable[..., Any]) -> None:
    grads = []
    for lib in (torch, mg):
        x, w = lib.tensor(X, requires_grad=True), lib.tensor(W, requires_grad=True)
        gx, gw = lib.autograd.grad(call(lib, x, w).sum(), [x, w], create_graph=True)
        grads.append([t.numpy() for t in lib.autograd.grad((gx * gx).sum() + (gw * gw).sum(), [x, w])])
    for w_, g in zip(*grads):
        np.testing.assert_allclose(g, w_, rtol=1e-9, atol=1e-10)


# -- errors: PyTorch's class and words, and nothing left behind -------------------------------------------------

def _z(lib: Any, *shape: int) -> Any:
    return lib.zeros(*shape, dtype=lib.float64, requires_grad=True)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "conv3d 3-d input": lambda lib: _F(lib).conv3d(_z(lib, 2, 3, 3), _z(lib, 2, 2, 1, 1, 1)),
    "conv3d 4-d weight": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1)),
    "conv3d stride": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1), stride=0),
    "conv3d stride length": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1), stride=(1, 2)),
    "conv3d padding": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1), padding=-1),
    "conv3d padding string": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1), padding="x"),
    "conv3d same strided": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1), stride=2,
                                                      padding="same"),
    "conv3d dilation float32": lambda lib: _F(lib).conv3d(_z(lib, 2, 2, 3, 3, 3).float(),
                                                          _z(lib, 2, 2, 2, 1, 1).float(), dilation=0),
    "conv3d dilation": lambda lib: _F(lib).conv3d(_z(lib, 2, 2, 3, 3, 3), _z(lib, 2, 2, 2, 1, 1), dilation=0),
    # float64, or a batch of one: PyTorch checks the dilation after the shapes, in other words
    "conv3d dilation, a batch of one": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1),
                                                                  dilation=(1, 0, 1)),
    "conv3d dilation unbatched, after the channels": lambda lib: _F(lib).conv3d(_z(lib, 3, 3, 3, 3),
                                                                                _z(lib, 2, 2, 1, 1, 1), dilation=0),
    "conv_transpose3d dilation, a batch of one": lambda lib: _F(lib).conv_transpose3d(
        _z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1), dilation=(1, 0, 1)),
    "conv_transpose3d dilation": lambda lib: _F(lib).conv_transpose3d(_z(lib, 2, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1),
                                                                      dilation=0),
    "conv_transpose3d dilation float32": lambda lib: _F(lib).conv_transpose3d(
        _z(lib, 2, 2, 3, 3, 3).float(), _z(lib, 2, 2, 1, 1, 1).float(), dilation=0),
    "conv3d groups": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1), groups=0),
    "conv3d channels": lambda lib: _F(lib).conv3d(_z(lib, 1, 3, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1)),
    "conv3d groups channels": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1), groups=2),
    "conv3d groups weight": lambda lib: _F(lib).conv3d(_z(lib, 1, 4, 3, 3, 3), _z(lib, 3, 2, 1, 1, 1), groups=2),
    "conv3d bias": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1), _z(lib, 3)),
    "conv3d kernel too large": lambda lib: _F(lib).conv3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 4, 1, 1)),
    "conv3d kernel too large unbatched": lambda lib: _F(lib).conv3d(_z(lib, 2, 3, 3, 3), _z(lib, 2, 2, 1, 2, 5),
                                                                    dilation=(1, 2, 1)),
    "conv_transpose3d 3-d input": lambda lib: _F(lib).conv_transpose3d(_z(lib, 2, 3, 3), _z(lib, 2, 2, 1, 1, 1)),
    "conv_transpose3d channels": lambda lib: _F(lib).conv_transpose3d(_z(lib, 1, 3, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1)),
    "conv_transpose3d output_padding": lambda lib: _F(lib).conv_transpose3d(
        _z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1), stride=(2, 1, 2), output_padding=(1, 1, 0)),
    "conv_transpose3d stride": lambda lib: _F(lib).conv_transpose3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1),
                                                                    stride=0),
    "conv_transpose3d bias": lambda lib: _F(lib).conv_transpose3d(_z(lib, 1, 2, 3, 3, 3), _z(lib, 2, 2, 1, 1, 1),
                                                                  _z(lib, 3), groups=2),
    "max_pool3d kernel length": lambda lib: _F(lib).max_pool3d(_z(lib, 1, 2, 4, 4, 4), (2, 2)),
    "max_pool3d kernel type": lambda lib: _F(lib).max_pool3d(_z(lib, 1, 2, 4, 4, 4), 2.0),
    "max_pool3d stride length": lambda lib: _F(lib).max_pool3d(_z(lib, 1, 2, 4, 4, 4), 2, (1, 1)),
    "max_pool3d zero kernel": lambda lib: _F(lib).max_pool3d(_z(lib, 1, 2, 4, 4, 4), 0),
    "max_pool3d zero kernel, a stride": lambda lib: _F(lib).max_pool3d(_z(lib, 1, 2, 4, 4, 4), 0, 1),
    "max_pool3d zero stride": lambda lib: _F(lib).max_pool3d(_z(lib, 1, 2, 4, 4, 4), 2, 0),
    "max_pool3d negative padding": lambda lib: _F(lib).max_pool3d(_z(lib, 1, 2, 4, 4, 4), 2, padding=-1),
    "max_pool3d padding": lambda lib: _F(lib).max_pool3d(_z(lib, 1, 2, 4, 4, 4), 2, padding=(1, 2, 1)),
    "max_pool3d dilation": lambda lib: _F(lib).max_pool3d(_z(lib, 1, 2, 4, 4, 4), 2, dilation=0),
    "max_pool3d 3-d input": lambda lib: _F(lib).max_pool3d(_z(lib, 4, 4, 4), 2),
    "max_pool3d empty channels": lambda lib: _F(lib).max_pool3d(_z(lib, 2, 0, 4, 4, 4), 2),
    "max_pool3d too small": lambda lib: _F(lib).max_pool3d(_z(lib, 1, 2, 4, 5, 6), 5),
    "adaptive_avg_pool3d 3-d input": lambda lib: _F(lib).adaptive_avg_pool3d(_z(lib, 4, 4, 4), 2),
    "adaptive_avg_pool3d size length": lambda lib: _F(lib).adaptive_avg_pool3d(_z(lib, 1, 4, 4, 4), (2, 2)),
    "adaptive_avg_pool3d negative size": lambda lib: _F(lib).adaptive_avg_pool3d(_z(lib, 1, 4, 4, 4), -1),
    "adaptive_avg_pool3d empty channels": lambda lib: _F(lib).adaptive_avg_pool3d(_z(lib, 2, 0, 3, 3, 3), 2),
    "pad reflect 3-D too wide": lambda lib: _F(lib).pad(_z(lib, 1, 2, 2, 3, 3), (1, 1, 1, 1, 2, 0), mode="reflect"),
    "ReflectionPad3d too wide": lambda lib: lib.nn.ReflectionPad3d((0, 3, 0, 0, 0, 0))(_z(lib, 1, 3, 3, 3)),
}


def _error(fn: Callable[[Any], Any], lib: Any) -> BaseException:
    with pytest.raises(Exception) as info:
        fn(lib)
    return info.value


@pytest.mark.parametrize("name", list(ERRORS))
def test_refuses_as_pytorch(name: str) -> None:
    want, got = _error(ERRORS[name], torch), _error(ERRORS[name], mg)
    assert isinstance(got, type(want)), (type(got), type(want), got)
    if name.startswith(("pad", "ReflectionPad")):  # F.pad's own messages name it and add what the modes take
        assert str(want) in str(got)
    else:
        assert str(got).split("\n")[0] == str(want).split("\n")[0]


@pytest.mark.parametrize("call", [
    lambda x: mg.conv3d(x, mg.zeros(2, 3, 1, 1, 1, dtype=mg.float64)),
    lambda x: mg.conv_transpose3d(x, mg.zeros(2, 2, 1, 1, 1, dtype=mg.float64), output_padding=1),
    lambda x: mg.max_pool3d(x, 2, padding=2),
    lambda x: mg.nn.functional.adaptive_avg_pool3d(x, (1, 2)),
])
def test_a_refused_call_leaves_no_node_and_no_changed_tensor(call: Callable[[Any], Any]) -> None:
    """The check comes before any op: no node is recorded (the trace shows no op run) and the input keeps its
    values, its version and its own node."""
    x = mg.tensor(X[:1, :2], requires_grad=True) * 1
    before, version, node = x.detach().numpy().copy(), x._version, x.grad_fn
    with mg.trace() as tr, pytest.raises(RuntimeError):
        call(x)
    assert not [e for e in tr.events if e.kind in ("node.create", "kernel.select")]
    assert x._version == version and x.grad_fn is node
    np.testing.assert_array_equal(x.detach().numpy(), before)


def test_max_pool3d_indices_reach_max_unpool3d_and_the_module_pair() -> None:
    outs = []
    for lib in (torch, mg):
        pool, unpool = lib.nn.MaxPool3d(2, stride=2, return_indices=True), lib.nn.MaxUnpool3d(2, stride=2)
        x = lib.tensor(X[:, :, :4, :6, :4])
        values, indices = pool(x)
        assert indices.dtype == lib.int64
        outs.append((indices.numpy(), unpool(values, indices).numpy()))
    np.testing.assert_array_equal(outs[1][0], outs[0][0])
    np.testing.assert_array_equal(outs[1][1], outs[0][1])


def test_max_pool3d_keeps_a_channels_last_3d_layout() -> None:
    strides = []
    for lib in (torch, mg):
        x = lib.tensor(X).contiguous(memory_format=lib.channels_last_3d).requires_grad_()
        out, indices = lib.nn.functional.max_pool3d(x, 2, return_indices=True)
        out.sum().backward()
        strides.append((out.stride(), indices.stride(), x.grad.stride()))
    assert strides[1] == strides[0]
