"""PrepareData (Paddle's ``TransformFlag`` and ``PrepareData``, paddle/phi/api/lib/data_transform.cc): backend, layout and dtype transforms.

Backend and layout transforms are on by default, dtype transforms only when
the op's flag asks; an argument declared ``ALL_BACKEND`` is never moved.
Every transform emits ``data.transform``.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.ops.convolution import conv2d_nhwc
from minigrad.kernels.key import Backend, Layout
from minigrad.kernels.prepare_data import transform_layout
from minigrad.kernels.registry import register_kernel
from minigrad.tensor import Tensor

from _toy import TOY, events, on_toy, toy_backend, toy_kernel


@pytest.fixture
def toy():
    with toy_backend() as info:
        yield info


def _transforms(tr, op=None):
    return [(e["op"], e["arg"], e["what"], e["from"], e["to"]) for e in events(tr, "data.transform") if op in (None, e["op"])]


# -- backend ---------------------------------------------------------------------------


def test_backend_transform_moves_cpu_argument(toy):
    seen = toy_kernel("mul", TOY)
    x = mg.tensor([1.0, 2.0]).to("toy")
    with mg.trace() as tr:
        x * mg.tensor(3.0)  # a 0-d CPU tensor joins another device's call (PyTorch refuses any other mix)
    assert _transforms(tr) == [("mul", "y", "backend", "CPU", TOY)]
    assert all(on_toy(a) for a in seen[0])


def test_all_backend_argument_is_not_moved(toy):
    seen = toy_kernel("mul", TOY, arg_overrides={1: {"backend": Backend.ALL_BACKEND}})
    x = mg.tensor([1.0, 2.0]).to("toy")
    with mg.trace() as tr:
        out = x * mg.tensor(3.0)
    assert _transforms(tr) == []
    (xa, ya), = seen
    assert on_toy(xa) and not on_toy(ya)  # y reached the kernel where it was: the CPU
    np.testing.assert_allclose(out.numpy(), [3.0, 6.0])


def test_tensors_on_two_devices_are_refused_as_pytorch_refuses_them(toy):
    """Only a 0-d CPU tensor may join another device's tensors; any other mix raises PyTorch's error before a
    node, an event or a changed tensor exists."""
    toy_kernel("mul", TOY)
    x = mg.tensor([1.0, 2.0], requires_grad=True).to("toy")
    for call in (lambda: x * mg.tensor([3.0, 4.0]), lambda: mg.tensor([3.0, 4.0]) * x):
        with mg.trace() as tr, pytest.raises(RuntimeError, match=r"^Expected all tensors to be on the same device, "
                                                                  r"but found at least two devices, toy and cpu!$"):
            call()
        assert not [e for e in tr.events if e.kind == "node.create"]


def test_fast_path_passes_arrays_untouched():
    a = mg.tensor([1.0, 2.0])
    with mg.trace() as tr:
        a + a
    assert _transforms(tr) == []


# -- dtype -----------------------------------------------------------------------------


def test_dtype_transform_when_op_flag_is_on():
    # add declares transform_dtype=True: the float16 operand is cast to the key's float32.
    a = mg.tensor([1.0, 2.0], dtype=mg.float16)
    b = mg.tensor([0.5, 0.25])
    with mg.trace() as tr:
        out = a + b
    assert _transforms(tr) == [("add", "x", "dtype", "float16", "float32")]
    assert out.dtype == mg.float32


def test_dtype_transform_off_by_default():
    # matmul keeps Paddle's default (no dtype transform): InferMeta sees the mismatch.
    assert mg.ops.OPS["matmul"].transform_dtype is False
    a = mg.randn(2, 2, dtype=mg.float16)
    b = mg.randn(2, 2)
    with mg.trace() as tr, pytest.raises(ValueError, match="same dtype"):
        mg.matmul(a, b)
    assert _transforms(tr) == []


_scale = None


def _scale_op():
    """A test-only op ``x * scale`` whose InferMeta accepts mixed dtypes (so overrides are visible)."""
    global _scale
    if _scale is None:
        from minigrad.ops.registry import defop

        _scale = defop("_test_scale", inputs=("x", "scale"), infer_meta=lambda op, x, s: (x.shape, x.dtype),
                       transform_dtype=True)
    return _scale


@pytest.mark.parametrize(
    "override, seen_dtype, moved",
    [
        (None, np.float32, [("_test_scale", "scale", "dtype", "float16", "float32")]),
        ({1: {"dtype": mg.float64}}, np.float64, [("_test_scale", "scale", "dtype", "float16", "float64")]),
        ({1: {"dtype": None}}, np.float16, []),  # declared "any dtype": never cast
    ],
)
def test_per_argument_dtype_override(toy, override, seen_dtype, moved):
    op = _scale_op()
    seen = toy_kernel("_test_scale", TOY, fn=lambda x, s: (x * s).astype(x.dtype), arg_overrides=override)
    x = mg.tensor([1.0, 2.0]).to("toy")
    s = mg.tensor([2.0, 2.0], dtype=mg.float16).to("toy")
    with mg.trace() as tr:
        out = op(x, s)
    assert _transforms(tr) == moved
    assert seen[0][1].dtype == seen_dtype
    np.testing.assert_allclose(out.numpy(), [2.0, 4.0])


# -- layout ----------------------------------------------------------------------------


def _nhwc(t):
    return Tensor._make(transform_layout(t.numpy(), Layout.NCHW, Layout.NHWC), t.dtype, t.device, Layout.NHWC)


def test_nchw_input_picks_the_nchw_conv_kernel():
    x, w = mg.randn(1, 2, 5, 5), mg.randn(3, 2, 3, 3)
    with mg.trace() as tr:
        mg.conv2d(x, w)
    (sel,) = events(tr, "kernel.select")
    assert (sel["kernel"], sel["layout"]) == ("cpu/conv2d", "NCHW")
    assert _transforms(tr) == []


def test_nhwc_input_picks_the_nhwc_kernel_and_transposes_the_weight():
    x, w, b = mg.randn(2, 3, 7, 6, dtype=mg.float64), mg.randn(4, 3, 3, 2, dtype=mg.float64), mg.randn(4, dtype=mg.float64)
    ref = mg.conv2d(x, w, b, stride=(2, 1), padding=(1, 1))
    with mg.trace() as tr:
        out = mg.conv2d(_nhwc(x), w, b, stride=(2, 1), padding=(1, 1))
    (sel,) = events(tr, "kernel.select")
    assert (sel["kernel"], sel["layout"]) == ("cpu/conv2d_nhwc", "NHWC")
    # The OIHW weight (tagged NCHW) becomes OHWI; bias is 1-D and untouched.
    assert _transforms(tr) == [("conv2d", "weight", "layout", "NCHW", "NHWC")]
    # InferMeta reports the op's NCHW shape; the tensor holds NHWC.
    assert events(tr, "infer_meta")[0]["shapes"] == [list(ref.shape)]
    assert out.layout == "NHWC" and out.shape == (2, 4, 7, 4)
    np.testing.assert_allclose(transform_layout(out.numpy(), "NHWC", "NCHW"), ref.numpy(), rtol=1e-10)


def test_nhwc_only_backend_transposes_in_and_out(toy):
    # TOY's conv2d is NHWC-only: it serves any key but declares x and weight NHWC and writes NHWC.
    register_kernel(
        "conv2d", TOY, layout=Layout.ALL_LAYOUT, dtypes=mg.dtypes.FLOAT_DTYPES,
        arg_overrides={0: {"layout": Layout.NHWC}, 1: {"layout": Layout.NHWC}}, out_layout=Layout.NHWC,
    )(conv2d_nhwc)
    x = mg.randn(2, 3, 6, 5, dtype=mg.float64, requires_grad=True)
    w = mg.randn(4, 3, 3, 3, dtype=mg.float64, requires_grad=True)
    with mg.trace() as tr:
        out = mg.conv2d(x.to("toy"), w.to("toy"), padding=(1, 1))
    conv = _transforms(tr, "conv2d")
    assert conv == [
        ("conv2d", "x", "layout", "NCHW", "NHWC"),
        ("conv2d", "weight", "layout", "NCHW", "NHWC"),
        ("conv2d", "out", "layout", "NHWC", "NCHW"),
    ]
    assert out.device == "toy" and out.layout == "NCHW"
    ref = mg.conv2d(x, w, padding=(1, 1))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-10)
    # Backward: conv2d's grad ops have no TOY kernels and fall back to the CPU.
    out.sum().backward()
    gx, gw = x.grad.numpy().copy(), w.grad.numpy().copy()
    x.grad = w.grad = None
    ref.sum().backward()
    np.testing.assert_allclose(gx, x.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(gw, w.grad.numpy(), rtol=1e-10)


def test_layout_transform_only_for_4d(toy):
    toy_kernel("add", TOY, arg_overrides={0: {"layout": Layout.NHWC}})
    x = mg.tensor([1.0, 2.0]).to("toy")
    with mg.trace() as tr:
        x + x
    assert [t for t in _transforms(tr) if t[2] == "layout"] == []


def test_transform_layout_roundtrip():
    a = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    b = transform_layout(a, "NCHW", "NHWC")
    assert b.shape == (2, 4, 5, 3) and b.flags.c_contiguous
    assert np.array_equal(transform_layout(b, "NHWC", "NCHW"), a)
    assert transform_layout(a[0], "NCHW", "NHWC") is a[0] or transform_layout(a[0], "NCHW", "NHWC").shape == (3, 4, 5)


def test_channels_last_is_the_public_nhwc_constructor():
    x = mg.randn(2, 3, 4, 5, dtype=mg.float64)
    y = mg.channels_last(x)
    assert (y.layout, y.shape, y.dtype, y.device) == ("NHWC", (2, 4, 5, 3), mg.float64, "cpu")
    np.testing.assert_array_equal(transform_layout(y.numpy(), "NHWC", "NCHW"), x.numpy())
    z = mg.tensor(y.numpy(), layout="NHWC")
    assert z.layout == "NHWC" and z.shape == (2, 4, 5, 3)
    # the public constructor feeds the NHWC kernel, as the private one did
    np.testing.assert_allclose(mg.conv2d(z, mg.ones(1, 3, 1, 1, dtype=mg.float64)).numpy()[..., 0],
                               x.numpy().sum(axis=1), rtol=1e-12)
    with pytest.raises(ValueError, match="layout 'NHWC' needs 4-D data"):
        mg.tensor([1.0, 2.0], layout="NHWC")
    with pytest.raises(ValueError, match="must be 'NCHW' or 'NHWC'"):
        mg.tensor([1.0], layout="nchw")
    with pytest.raises(ValueError, match="4-D NCHW tensor"):
        mg.channels_last(y)
