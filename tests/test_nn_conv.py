"""``F.conv1d``, the transposed convolutions, ``F.unfold``/``F.fold`` and their modules against PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from torch_compare import compare, error_class, leaves_no_node

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(21)


def r(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape)


CONV1D = [
    ((2, 4, 9), (6, 4, 3), {}), ((2, 4, 9), (6, 2, 3), {"groups": 2, "stride": 2, "padding": 1}),
    ((4, 9), (3, 4, 2), {"dilation": 2}), ((2, 4, 9), (3, 4, 4), {"padding": "same"}),
    ((2, 4, 9), (3, 4, 3), {"padding": "valid", "stride": 3}),
]


@pytest.mark.parametrize("xs,ws,kw", CONV1D, ids=[str(i) for i in range(len(CONV1D))])
@pytest.mark.parametrize("bias", [False, True])
def test_conv1d(xs: tuple, ws: tuple, kw: dict, bias: bool) -> None:
    args = [r(*xs), r(*ws)] + ([r(ws[0])] if bias else [])
    compare(lambda *a: F.conv1d(*a, **kw), lambda *a: TF.conv1d(*a, **kw), args)


CONVT = [
    ((2, 4, 5, 5), (4, 3, 3, 3), {}), ((2, 4, 5, 4), (4, 2, 4, 4), {"stride": 2, "padding": 1}),
    ((1, 4, 3, 4), (4, 1, 3, 2), {"stride": (2, 3), "output_padding": (1, 2), "groups": 2}),
    ((2, 2, 4, 4), (2, 2, 2, 3), {"stride": (3, 2), "padding": (1, 2), "output_padding": (2, 3), "dilation": 4}),
    ((4, 3, 3), (4, 2, 2, 2), {"stride": 2}),
]


@pytest.mark.parametrize("xs,ws,kw", CONVT, ids=[str(i) for i in range(len(CONVT))])
@pytest.mark.parametrize("bias", [False, True])
def test_conv_transpose2d(xs: tuple, ws: tuple, kw: dict, bias: bool) -> None:
    groups = kw.get("groups", 1)
    args = [r(*xs), r(*ws)] + ([r(ws[1] * groups)] if bias else [])
    compare(lambda *a: F.conv_transpose2d(*a, **kw), lambda *a: TF.conv_transpose2d(*a, **kw), args)


def test_conv_transpose2d_is_the_input_gradient_of_conv2d() -> None:
    """What a transposed convolution is: the gradient of conv2d with respect to its input."""
    x = mg.tensor(r(1, 3, 7, 7), dtype=mg.float64, requires_grad=True)
    w = mg.tensor(r(4, 3, 3, 3), dtype=mg.float64)
    g = mg.tensor(r(1, 4, 3, 3), dtype=mg.float64)
    (dx,) = mg.grad(mg.conv2d(x, w, stride=2), [x], [g])
    np.testing.assert_allclose(F.conv_transpose2d(g, w, stride=2).numpy(), dx.numpy(), rtol=1e-12)


@pytest.mark.parametrize("kw", [{}, {"stride": 2, "padding": 1, "output_padding": 1}, {"groups": 2, "dilation": 2}])
def test_conv_transpose1d(kw: dict) -> None:
    compare(lambda *a: F.conv_transpose1d(*a, **kw), lambda *a: TF.conv_transpose1d(*a, **kw),
            [r(2, 4, 6), r(4, 3, 3), r(3 * kw.get("groups", 1))])


UNFOLD = [{"kernel_size": 2}, {"kernel_size": (2, 3), "stride": 2, "padding": 1},
          {"kernel_size": 3, "dilation": 2, "padding": (2, 1)}, {"kernel_size": 3, "stride": (1, 2)}]


@pytest.mark.parametrize("kw", UNFOLD, ids=[str(i) for i in range(len(UNFOLD))])
def test_unfold_and_fold(kw: dict) -> None:
    x = r(2, 3, 6, 7)
    compare(lambda a: F.unfold(a, **kw), lambda a: TF.unfold(a, **kw), [x])
    compare(lambda a: F.unfold(a, **kw), lambda a: TF.unfold(a, **kw), [x[0]])
    cols = TF.unfold(torch.tensor(x), **kw).numpy()
    compare(lambda a: F.fold(a, (6, 7), **kw), lambda a: TF.fold(a, (6, 7), **kw), [cols])
    compare(lambda a: F.fold(a, (6, 7), **kw), lambda a: TF.fold(a, (6, 7), **kw), [cols[0]])


def test_unfold_matmul_is_conv2d() -> None:
    """im2col: a convolution is a matrix product of the unfolded input with the flattened kernel."""
    x, w = mg.tensor(r(2, 3, 6, 6)), mg.tensor(r(4, 3, 3, 3))
    cols = F.unfold(x, 3, padding=1)  # (2, 27, 36)
    out = (w.reshape(4, -1) @ cols).reshape(2, 4, 6, 6)
    np.testing.assert_allclose(out.numpy(), mg.conv2d(x, w, padding=1).numpy(), rtol=1e-5, atol=1e-5)


ERRORS = [
    ("conv1d channels", lambda f, lib: f.conv1d(lib.ones(2, 4, 5), lib.ones(3, 2, 3))),
    ("conv1d bias", lambda f, lib: f.conv1d(lib.ones(2, 4, 5), lib.ones(3, 4, 3), lib.ones(2))),
    ("conv1d kernel too big", lambda f, lib: f.conv1d(lib.ones(2, 4, 5), lib.ones(3, 4, 7))),
    ("conv1d 4-D input", lambda f, lib: f.conv1d(lib.ones(2, 4, 5, 6), lib.ones(3, 4, 3))),
    ("conv1d groups", lambda f, lib: f.conv1d(lib.ones(2, 4, 5), lib.ones(3, 2, 3), groups=2)),
    ("conv1d groups 0", lambda f, lib: f.conv1d(lib.ones(2, 4, 5), lib.ones(4, 2, 3), groups=0)),
    ("convT channels", lambda f, lib: f.conv_transpose2d(lib.ones(2, 4, 5, 5), lib.ones(3, 2, 3, 3))),
    ("convT output_padding", lambda f, lib: f.conv_transpose2d(lib.ones(2, 4, 5, 5), lib.ones(4, 2, 3, 3), stride=2,
                                                                output_padding=2)),
    ("convT bias", lambda f, lib: f.conv_transpose2d(lib.ones(2, 4, 5, 5), lib.ones(4, 2, 3, 3), lib.ones(3))),
    ("unfold too big", lambda f, lib: f.unfold(lib.ones(2, 4, 5, 5), 6)),
    ("fold blocks", lambda f, lib: f.fold(lib.ones(2, 36, 4), (3, 3), 3, padding=1)),
    ("fold channels", lambda f, lib: f.fold(lib.ones(2, 35, 9), (3, 3), 3, padding=1)),
]


@pytest.mark.parametrize("label,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(label: str, call) -> None:
    want = error_class(lambda: call(TF, torch))
    assert want is not None
    leaves_no_node(lambda: call(F, mg), want)


MODULES = [
    ("Conv1d", (4, 6, 3), {}, (2, 4, 9)), ("Conv1d", (4, 6, 3), {"groups": 2, "stride": 2, "bias": False}, (2, 4, 9)),
    ("Conv1d", (4, 3, 3), {"padding": 2, "padding_mode": "reflect"}, (2, 4, 9)),
    ("Conv1d", (4, 3, 3), {"padding": 1, "padding_mode": "circular"}, (4, 9)),
    ("Conv1d", (4, 3, 4), {"padding": "same", "dilation": 2}, (2, 4, 9)),
    ("Conv2d", (2, 3, 3), {"padding": 1, "padding_mode": "reflect"}, (2, 2, 5, 5)),
    ("Conv2d", (2, 4, (3, 2)), {"stride": 2, "padding": (1, 2), "padding_mode": "circular", "groups": 2, "bias": False},
     (1, 2, 5, 6)),
    ("Conv2d", (2, 2, 1), {"padding_mode": "replicate"}, (2, 5, 5)),
    ("Conv2d", (2, 2, 3), {"padding": "same", "dilation": 2}, (1, 2, 6, 5)),
    ("Conv2d", (2, 2, (2, 3)), {"padding": "same", "padding_mode": "reflect"}, (1, 2, 6, 5)),
    ("Conv1d", (2, 2, 4), {"padding": "same", "padding_mode": "replicate", "dilation": 1}, (1, 2, 7)),
    ("ConvTranspose2d", (4, 3, 4), {"stride": 2, "padding": 1}, (2, 4, 5, 5)),
    ("ConvTranspose2d", (4, 6, 3), {"groups": 2, "output_padding": 1, "stride": 2, "bias": False}, (2, 4, 3, 4)),
    ("ConvTranspose1d", (4, 3, 3), {"stride": 3, "dilation": 2}, (2, 4, 5)),
]


@pytest.mark.parametrize("name,args,kw,xs", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_module_loads_a_torch_state_dict(name: str, args: tuple, kw: dict, xs: tuple) -> None:
    t = getattr(torch.nn, name)(*args, **kw).double()
    m = getattr(mg.nn, name)(*args, dtype=mg.float64, **kw)
    assert repr(m) == repr(t)
    assert {k: tuple(v.shape) for k, v in m.state_dict().items()} == {k: tuple(v.shape) for k, v in t.state_dict().items()}
    m.load_state_dict({k: mg.tensor(v.numpy(), dtype=mg.float64) for k, v in t.state_dict().items()})
    x = r(*xs)
    compare(lambda a: m(a), lambda a: t(a), [x])
    for p in m.parameters():
        p.grad = None
    t.zero_grad()
    m(mg.tensor(x, dtype=mg.float64)).sum().backward()
    t(torch.tensor(x)).sum().backward()
    for (name_m, pm), (name_t, pt) in zip(m.named_parameters(), t.named_parameters()):
        assert name_m == name_t
        np.testing.assert_allclose(pm.grad.numpy(), pt.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_conv_init_bounds_match_torch() -> None:
    """PyTorch's kaiming_uniform_(a=sqrt(5)): |w| <= 1 / sqrt(fan_in), fan_in = weight.shape[1] * kernel size."""
    mg.manual_seed(0)
    for m, fan_in in ((mg.nn.Conv1d(4, 6, 3, groups=2), 2 * 3), (mg.nn.ConvTranspose2d(4, 6, 3, groups=2), 3 * 9)):
        bound = 1 / np.sqrt(fan_in)
        for p in (m.weight, m.bias):
            v = p.detach().numpy()
            assert np.abs(v).max() <= bound and np.abs(v).max() > 0.5 * bound


def test_conv_transpose_output_size_argument() -> None:
    t = torch.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1).double()
    m = mg.nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1, dtype=mg.float64)
    m.load_state_dict({k: mg.tensor(v.numpy(), dtype=mg.float64) for k, v in t.state_dict().items()})
    x = r(1, 3, 4, 4)
    got = m(mg.tensor(x, dtype=mg.float64), output_size=(8, 8))
    want = t(torch.tensor(x), output_size=(8, 8))
    assert tuple(got.shape) == tuple(want.shape) == (1, 2, 8, 8)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-10)


def test_same_seed_same_weights_as_torch() -> None:
    """The init draws PyTorch's numbers in PyTorch's order (weight, then bias) from the default generator."""
    for build in (lambda nn: nn.Conv1d(4, 6, 3, groups=2), lambda nn: nn.ConvTranspose2d(4, 6, 3),
                  lambda nn: nn.Conv2d(2, 4, (3, 2), padding_mode="reflect"),
                  lambda nn: nn.ConvTranspose1d(3, 2, 5, bias=False)):
        mg.manual_seed(7)
        torch.manual_seed(7)
        m, t = build(mg.nn), build(torch.nn)
        for (nm, pm), (nt, pt) in zip(m.named_parameters(), t.named_parameters()):
            assert nm == nt
            np.testing.assert_array_equal(pm.detach().numpy(), pt.detach().numpy())


def test_conv2d_attributes_are_pytorch_s_tuples() -> None:
    """``Conv2d`` keeps its sizes as pairs and its ``padding_mode``, as PyTorch's module does."""
    for kw in ({}, {"stride": 2, "padding": 1, "dilation": 2}, {"padding": "same"}, {"padding_mode": "circular", "padding": (1, 0)}):
        m, t = mg.nn.Conv2d(2, 4, 3, **kw), torch.nn.Conv2d(2, 4, 3, **kw)
        for name in ("kernel_size", "stride", "padding", "dilation", "groups", "padding_mode"):
            assert getattr(m, name) == getattr(t, name), name
        assert repr(m) == repr(t)
    with pytest.raises(ValueError, match="padding_mode"):
        mg.nn.Conv2d(2, 2, 3, padding_mode="mirror")
