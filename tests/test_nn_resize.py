"""``F.pad``, the average pools and ``F.interpolate`` (and their modules) against PyTorch: values, gradients, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from torch_compare import compare, error_class, leaves_no_node

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(11)
X3, X4, X5 = RNG.normal(size=(2, 3, 6)), RNG.normal(size=(2, 3, 5, 6)), RNG.normal(size=(1, 2, 3, 4, 5))


@pytest.mark.parametrize("pad", [(1, 2), (0, 3, 2, 1), (-1, 2, 1, -2), (1, 1, 1, 1, 1, 1), (2, 0, 0, 0, -1, 1, 0, 1)])
@pytest.mark.parametrize("value", [None, 0.0, -2.5])
def test_constant_pad(pad: tuple, value) -> None:
    compare(lambda x: F.pad(x, pad, value=value), lambda x: TF.pad(x, pad, value=value), [X4])


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("x,pad", [(X3, (2, 3)), (X3[0], (1, 4)), (X4, (1, 2, 3, 0)), (X4, (-1, 2, 1, -2)),
                                   (X5, (1, 2, 0, 1, 2, 1)), (X4[0], (2, 2, 1, 1))])
def test_non_constant_pad(mode: str, x: np.ndarray, pad: tuple) -> None:
    compare(lambda t: F.pad(t, pad, mode=mode), lambda t: TF.pad(t, pad, mode=mode), [x])


def test_constant_pad_of_an_int_tensor() -> None:
    out = F.pad(mg.tensor([[1, 2]]), (1, 1), value=7)
    assert out.dtype == mg.int64 and out.tolist() == [[7, 1, 2, 7]]


PAD_ERRORS = [
    ("odd length", lambda f, x: f.pad(x, (1,))),
    ("too long", lambda f, x: f.pad(x, (1,) * 10)),
    ("reflect too far", lambda f, x: f.pad(x, (6, 0), mode="reflect")),
    ("reflect dims", lambda f, x: f.pad(x, (1, 1, 1, 1, 1, 1), mode="reflect")),
    ("circular twice", lambda f, x: f.pad(x, (7, 0), mode="circular")),
    ("mode", lambda f, x: f.pad(x, (1, 1), mode="wrap")),
    ("value with reflect", lambda f, x: f.pad(x, (1, 1), mode="reflect", value=1.0)),
    ("float amounts", lambda f, x: f.pad(x, (1.5, 1))),
    ("negative size", lambda f, x: f.pad(x, (-4, -4))),
]


@pytest.mark.parametrize("label,call", PAD_ERRORS, ids=[e[0] for e in PAD_ERRORS])
def test_pad_errors(label: str, call) -> None:
    want = error_class(lambda: call(TF, torch.tensor(X3)))
    x = mg.tensor(X3, requires_grad=True)
    assert want is not None
    leaves_no_node(lambda: call(F, x), want)


AVG = [
    {"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
    {"kernel_size": (3, 2), "stride": (2, 1), "padding": (1, 0), "ceil_mode": True},
    {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True, "count_include_pad": False},
    {"kernel_size": 2, "padding": 1, "divisor_override": 3}, {"kernel_size": 4, "stride": 3, "ceil_mode": True},
]


@pytest.mark.parametrize("kw", AVG, ids=[str(i) for i in range(len(AVG))])
@pytest.mark.parametrize("batched", [True, False])
def test_avg_pool2d(kw: dict, batched: bool) -> None:
    compare(lambda x: F.avg_pool2d(x, **kw), lambda x: TF.avg_pool2d(x, **kw), [X4 if batched else X4[0]])


@pytest.mark.parametrize("kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True},
                                {"kernel_size": 3, "padding": 1, "count_include_pad": False}])
def test_avg_pool1d(kw: dict) -> None:
    compare(lambda x: F.avg_pool1d(x, **kw), lambda x: TF.avg_pool1d(x, **kw), [X3])


@pytest.mark.parametrize("size", [1, 3, (2, 4), (None, 2), (7, 9), (5, 6)])
def test_adaptive_avg_pool2d(size) -> None:
    compare(lambda x: F.adaptive_avg_pool2d(x, size), lambda x: TF.adaptive_avg_pool2d(x, size), [X4])
    compare(lambda x: F.adaptive_avg_pool2d(x, size), lambda x: TF.adaptive_avg_pool2d(x, size), [X4[0]])


@pytest.mark.parametrize("size", [1, 4, 5, 9])
def test_adaptive_avg_pool1d(size: int) -> None:
    compare(lambda x: F.adaptive_avg_pool1d(x, size), lambda x: TF.adaptive_avg_pool1d(x, size), [X3])


def _with_non_finite(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    x = np.random.default_rng(5).normal(size=shape).astype(dtype)
    flat = x.reshape(-1)
    flat[[1, 7, 20, 33, 34]] = [np.inf, np.nan, -np.inf, np.inf, -np.inf]
    return x


NON_FINITE = [
    ("avg 2", lambda f, x: f.avg_pool2d(x, 2)),
    ("avg 3 stride 1 pad 1", lambda f, x: f.avg_pool2d(x, 3, 1, 1)),
    ("avg divisor", lambda f, x: f.avg_pool2d(x, 2, padding=1, divisor_override=-3)),
    ("adaptive tiles", lambda f, x: f.adaptive_avg_pool2d(x, (3, 2))),
    ("adaptive overlapping", lambda f, x: f.adaptive_avg_pool2d(x, (4, 5))),
    ("adaptive 1", lambda f, x: f.adaptive_avg_pool2d(x, 1)),
    ("avg 3d", lambda f, x: f.avg_pool3d(x[None], (1, 3, 2), 1)),
]


@pytest.mark.parametrize("label,call", NON_FINITE, ids=[n[0] for n in NON_FINITE])
def test_a_non_finite_value_stays_in_its_own_windows(label: str, call) -> None:
    """An inf or NaN makes its own windows inf or NaN, as PyTorch's loop; a window product spread it to every
    window sharing its rows or columns (0 * inf is NaN: NOTE [ A non-finite value in a window ])."""
    x = _with_non_finite((2, 3, 6, 8), "float32")
    want = call(TF, torch.tensor(x)).numpy()
    got = call(F, mg.tensor(x)).numpy()
    assert np.isfinite(want).sum() > want.size // 3  # the case leaves finite windows to compare
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got) * np.sign(got), np.isinf(want) * np.sign(want))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_windows_that_tile_the_plane_give_pytorch_s_bits(dtype: str) -> None:
    """Non-overlapping windows add one element at a time and divide, as PyTorch's CPU kernels (adaptive pooling
    divides by the window's height, then its width): values and gradients bit for bit."""
    x = np.random.default_rng(6).normal(size=(2, 3, 8, 12)).astype(dtype)
    for call in (lambda f, t: f.avg_pool2d(t, 2), lambda f, t: f.avg_pool2d(t, (4, 3), divisor_override=5),
                 lambda f, t: f.adaptive_avg_pool2d(t, (2, 3)), lambda f, t: f.adaptive_avg_pool2d(t, 1)):
        t, m = torch.tensor(x, requires_grad=True), mg.tensor(x, requires_grad=True)
        yt, ym = call(TF, t), call(F, m)
        np.testing.assert_array_equal(ym.detach().numpy(), yt.detach().numpy())
        g = np.random.default_rng(7).normal(size=yt.shape).astype(dtype)
        yt.backward(torch.tensor(g))
        ym.backward(mg.tensor(g))
        np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("kw", [{"kernel_size": 3, "stride": 2, "padding": 1}, {"kernel_size": 2},
                                {"kernel_size": 3, "stride": 2, "padding": 1, "dilation": 2},
                                {"kernel_size": 2, "ceil_mode": True}], ids=str)
def test_max_pool2d_takes_the_last_nan_of_a_window(kw: dict) -> None:
    """PyTorch's ``val > max || isnan(val)``: the first maximum, but every NaN takes over, so the last NaN's
    position is the index and takes the gradient."""
    x = np.random.default_rng(8).normal(size=(1, 2, 7, 7)).astype("float32")
    x[0, 0, 0, 0] = x[0, 0, 1, 1] = x[0, 0, 2, 2] = x[0, 1, 4, 5] = x[0, 1, 5, 5] = np.nan
    t, m = torch.tensor(x, requires_grad=True), mg.tensor(x, requires_grad=True)
    (vt, it), (vm, im) = TF.max_pool2d(t, return_indices=True, **kw), F.max_pool2d(m, return_indices=True, **kw)
    assert im.tolist() == it.tolist()
    vt.sum().backward()
    vm.sum().backward()
    np.testing.assert_array_equal(m.grad.numpy(), t.grad.numpy())


POOL_ERRORS = [
    ("pad over half", lambda f, x: f.avg_pool2d(x, 3, padding=2)),
    ("too small", lambda f, x: f.avg_pool2d(x, 7)),
    ("stride 0", lambda f, x: f.avg_pool2d(x, 2, stride=0)),
    ("divisor 0", lambda f, x: f.avg_pool2d(x, 2, divisor_override=0)),
    ("kernel float", lambda f, x: f.avg_pool2d(x, 2.0)),
    ("kernel triple", lambda f, x: f.avg_pool2d(x, (2, 2, 2))),
    ("adaptive 2-D input", lambda f, x: f.adaptive_avg_pool2d(x[0, 0], 2)),
    ("adaptive size triple", lambda f, x: f.adaptive_avg_pool2d(x, (1, 2, 3))),
]


@pytest.mark.parametrize("label,call", POOL_ERRORS, ids=[e[0] for e in POOL_ERRORS])
def test_pool_errors(label: str, call) -> None:
    want = error_class(lambda: call(TF, torch.tensor(X4)))
    assert want is not None
    x = mg.tensor(X4, requires_grad=True)
    args_ok = label != "adaptive 2-D input"  # x[0, 0] itself is a recorded getitem
    if args_ok:
        leaves_no_node(lambda: call(F, x), want)
    else:
        assert error_class(lambda: call(F, x)) is want


INTERP = [
    ("nearest", X3, {"scale_factor": 2}), ("nearest", X4, {"size": (7, 4)}), ("nearest", X4, {"scale_factor": 0.7}),
    ("nearest", X5, {"scale_factor": (1.5, 2, 0.5)}), ("nearest-exact", X4, {"size": (3, 11)}),
    ("linear", X3, {"size": 9}), ("linear", X3, {"scale_factor": 1.7, "align_corners": True}),
    ("bilinear", X4, {"size": (9, 4)}), ("bilinear", X4, {"scale_factor": 2, "align_corners": True}),
    ("bilinear", X4, {"scale_factor": 1.5, "recompute_scale_factor": True}), ("bilinear", X4, {"scale_factor": 0.5}),
    ("bicubic", X4, {"size": (8, 9)}), ("bicubic", X4, {"scale_factor": 2, "align_corners": True}),
    ("trilinear", X5, {"size": (4, 5, 3)}), ("area", X4, {"size": (3, 4)}), ("area", X3, {"size": 4}),
    ("area", X5, {"size": (2, 3, 4)}),
    ("bilinear", X4, {"size": (2, 3), "antialias": True}), ("bilinear", X4, {"scale_factor": 1.7, "antialias": True}),
    ("bicubic", X4, {"scale_factor": 0.4, "antialias": True}),
    ("bicubic", X4, {"size": (3, 4), "antialias": True, "align_corners": True}),
]

# A scale factor whose output keeps or doubles a size: PyTorch's kernels read the scale or not by mode and rank
# (kernels/upsample.py): the 2-D nearest forward and every nearest backward copy or halve the index, the 1-D and
# 3-D nearest forwards read the scale; a kept size reads each input at weight 1 in the linear and antialiased modes
# but not in bicubic.
INTERP += [
    ("nearest", X3[..., :5], {"scale_factor": 2.105}), ("nearest", X3, {"scale_factor": 1.001}),
    ("nearest", X4, {"scale_factor": (2.105, 1.001)}), ("nearest", X5, {"scale_factor": (2.105, 1.001, 1.37)}),
    ("nearest-exact", X3[..., :5], {"scale_factor": 2.105}), ("nearest-exact", X4, {"scale_factor": (1.37, 1.001)}),
    ("linear", X3, {"scale_factor": 1.187}), ("bilinear", X4, {"scale_factor": (1.5, 1.187)}),
    ("trilinear", X5, {"scale_factor": (1.001, 1.6, 0.9)}), ("bicubic", X4, {"scale_factor": (1.0, 1.187)}),
    ("bilinear", X4, {"scale_factor": (0.6, 1.1), "antialias": True}),
]


@pytest.mark.parametrize("mode,rank", [("nearest", 1), ("nearest", 2), ("nearest", 3), ("nearest-exact", 2),
                                       ("linear", 1), ("bilinear", 2), ("trilinear", 3), ("bicubic", 2)])
def test_interpolate_reads_pytorchs_positions(mode: str, rank: int) -> None:
    """Random sizes and scale factors, with and without align_corners: the same input positions and weights as
    PyTorch's (the float32 scale, floorf of the source position), values and gradients."""
    rng = np.random.default_rng(rank)
    for trial in range(12):
        shape = tuple(int(n) for n in rng.integers(1, 8, size=rank))
        factors = tuple(float(f) for f in np.round(rng.uniform(0.4, 3.2, size=rank), 3))
        if min(int(np.floor(n * f)) for n, f in zip(shape, factors)) < 1:
            continue
        kw = {"scale_factor": factors} if trial % 2 else {"size": tuple(int(n) for n in rng.integers(1, 10, size=rank))}
        if not mode.startswith("nearest"):
            kw["align_corners"] = bool(trial % 3 == 0)
        x = rng.normal(size=(1, 2) + shape)
        compare(lambda t: F.interpolate(t, mode=mode, **kw), lambda t: TF.interpolate(t, mode=mode, **kw), [x],
                rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("mode,x,kw", INTERP, ids=[f"{m}-{i}" for i, (m, _, _) in enumerate(INTERP)])
def test_interpolate(mode: str, x: np.ndarray, kw: dict) -> None:
    compare(lambda t: F.interpolate(t, mode=mode, **kw), lambda t: TF.interpolate(t, mode=mode, **kw), [x])


INTERP_ERRORS = [
    ("neither", lambda f, x: f.interpolate(x)),
    ("both", lambda f, x: f.interpolate(x, size=3, scale_factor=2)),
    ("linear on 4-D", lambda f, x: f.interpolate(x, scale_factor=2, mode="linear")),
    ("align_corners with nearest", lambda f, x: f.interpolate(x, scale_factor=2, align_corners=True)),
    ("mode", lambda f, x: f.interpolate(x, scale_factor=2, mode="cubic")),
    ("size length", lambda f, x: f.interpolate(x, size=(2, 3, 4))),
    ("empty output", lambda f, x: f.interpolate(x, scale_factor=0.1)),
    ("antialias with nearest", lambda f, x: f.interpolate(x, scale_factor=0.5, antialias=True)),
]


@pytest.mark.parametrize("label,call", INTERP_ERRORS, ids=[e[0] for e in INTERP_ERRORS])
def test_interpolate_errors(label: str, call) -> None:
    want = error_class(lambda: call(TF, torch.tensor(X4)))
    assert want is not None
    leaves_no_node(lambda: call(F, mg.tensor(X4, requires_grad=True)), want)


MODULES = [
    ("AvgPool2d", (3,), {"stride": 2, "padding": 1}, X4), ("AvgPool1d", (2,), {}, X3),
    ("AdaptiveAvgPool2d", ((1, 1),), {}, X4), ("AdaptiveAvgPool1d", (4,), {}, X3),
    ("Upsample", (), {"scale_factor": 2, "mode": "bilinear"}, X4), ("Upsample", ((4, 8),), {}, X4),
    ("UpsamplingNearest2d", (), {"scale_factor": 2}, X4), ("UpsamplingBilinear2d", ((3, 3),), {}, X4),
    ("Unflatten", (2, (2, 3)), {}, X3),
]


@pytest.mark.parametrize("name,args,kw,x", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_modules(name: str, args: tuple, kw: dict, x: np.ndarray) -> None:
    m, t = getattr(mg.nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert list(m.state_dict()) == list(t.state_dict()) == []
    assert repr(m) == repr(t)
    compare(lambda a: m(a), lambda a: t(a), [x])


@pytest.mark.parametrize("shape,r", [((2, 8, 3, 4), 2), ((9, 2, 2), 3), ((1, 2, 4, 3, 2), 1)])
def test_pixel_shuffle_and_unshuffle(shape: tuple, r: int) -> None:
    x = RNG.normal(size=shape)
    compare(lambda t: F.pixel_shuffle(t, r), lambda t: TF.pixel_shuffle(t, r), [x])
    y = TF.pixel_shuffle(torch.tensor(x), r).numpy()
    compare(lambda t: F.pixel_unshuffle(t, r), lambda t: TF.pixel_unshuffle(t, r), [y])
    m, t = mg.nn.PixelShuffle(r), torch.nn.PixelShuffle(r)
    assert repr(m) == repr(t)
    compare(lambda a: m(a), lambda a: t(a), [x])


@pytest.mark.parametrize("call", [lambda f, x: f.pixel_shuffle(x, 3), lambda f, x: f.pixel_unshuffle(x, 2),
                                  lambda f, x: f.pixel_shuffle(x[0, 0], 2)])
def test_pixel_shuffle_errors(call) -> None:
    x = RNG.normal(size=(1, 4, 3, 3))
    want = error_class(lambda: call(TF, torch.tensor(x)))
    assert want is not None
    assert error_class(lambda: call(F, mg.tensor(x))) is want


@pytest.mark.parametrize("kw", [{"kernel_size": 3}, {"kernel_size": 3, "stride": 2, "padding": 1},
                                {"kernel_size": 2, "dilation": 2, "ceil_mode": True}])
def test_max_pool1d(kw: dict) -> None:
    x = RNG.permutation(2 * 3 * 9).reshape(2, 3, 9) * 0.1  # distinct values: no ties
    compare(lambda a: F.max_pool1d(a, **kw), lambda a: TF.max_pool1d(a, **kw), [x])
    got = F.max_pool1d(mg.tensor(x), return_indices=True, **kw)[1]
    want = TF.max_pool1d(torch.tensor(x), return_indices=True, **kw)[1]
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("size", [1, 2, (3, 4), (7, 5), (None, 2)])
def test_adaptive_max_pool2d(size) -> None:
    x = RNG.permutation(2 * 3 * 7 * 5).reshape(2, 3, 7, 5) * 0.1
    compare(lambda a: F.adaptive_max_pool2d(a, size), lambda a: TF.adaptive_max_pool2d(a, size), [x])
    compare(lambda a: F.adaptive_max_pool2d(a, size), lambda a: TF.adaptive_max_pool2d(a, size), [x[0]])
    got = F.adaptive_max_pool2d(mg.tensor(x), size, return_indices=True)[1]
    want = TF.adaptive_max_pool2d(torch.tensor(x), size, return_indices=True)[1]
    assert got.tolist() == want.tolist()


def test_adaptive_max_pool1d() -> None:
    x = RNG.permutation(2 * 3 * 10).reshape(2, 3, 10) * 0.1
    for size in (1, 3, 4, 10):
        compare(lambda a: F.adaptive_max_pool1d(a, size), lambda a: TF.adaptive_max_pool1d(a, size), [x])


MORE_MODULES = [
    ("MaxPool1d", (3,), {"stride": 2}, X3), ("AdaptiveMaxPool1d", (2,), {}, X3), ("AdaptiveMaxPool2d", ((2, 3),), {}, X4),
    ("Unfold", (2,), {"padding": 1}, X4), ("Fold", ((4, 5), 2), {}, RNG.normal(size=(2, 12, 12))),
]


@pytest.mark.parametrize("name,args,kw,x", MORE_MODULES, ids=[m[0] for m in MORE_MODULES])
def test_more_modules(name: str, args: tuple, kw: dict, x: np.ndarray) -> None:
    m, t = getattr(mg.nn, name)(*args, **kw), getattr(torch.nn, name)(*args, **kw)
    assert repr(m) == repr(t) and list(m.state_dict()) == []
    compare(lambda a: m(a), lambda a: t(a), [x])
