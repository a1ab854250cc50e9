"""The direct launch (NOTE [ A launch through the driver, its arguments packed once per layout ] in
``minigrad/kernels/gpu/_runtime.py``): the parameter block holds what CuPy's own launch would pass."""

from __future__ import annotations

import ctypes
import struct

import numpy as np
import pytest

import minigrad as mg

pytestmark = pytest.mark.gpu


def test_the_parameter_block_holds_each_argument_as_cupy_passes_it():
    import cupy

    from minigrad.kernels.gpu import _runtime

    a = cupy.arange(6, dtype=cupy.float32)[2:]  # a view: its own data pointer, past the allocation's start
    args = (a, np.int64(-7), 0.5, np.int32(-2), True, np.float32(1.5), 3, np.float16(0.25))
    pb = _runtime._ParamBlock(tuple(map(type, args)), cupy.ndarray)
    pb.packer.pack_into(pb.slots, 0, *pb.values(args))
    raw = bytes(pb.slots)[:64]
    assert struct.unpack("<Qqdi4xqf4xqe6x", raw) == (a.data.ptr, -7, 0.5, -2, 1, 1.5, 3, 0.25)
    base = ctypes.addressof(pb.slots)
    assert [p - base for p in pb.params] == [8 * k for k in range(len(args))]  # one 8-byte slot per argument


def test_kernels_launch_directly_on_a_device_and_give_cupys_results():
    import cupy

    from minigrad.kernels.gpu import _runtime

    x = mg.randn(5, 7, device="gpu")
    y = mg.randn(7, device="gpu")
    got = [(x * y).cpu().numpy(), (x.t() * 2.5).cpu().numpy(), x.sum(dim=1).cpu().numpy()]
    want = [x.cpu().numpy() * y.cpu().numpy(), x.cpu().numpy().T * np.float32(2.5), x.cpu().numpy().sum(axis=1)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    if getattr(cupy, "__fake__", False):
        assert not _runtime._DIRECT  # the stand-in has no driver: CuPy's launch
    else:
        assert _runtime._DIRECT and any(isinstance(fn, _runtime._Direct) for fn in _runtime._modules.values())
