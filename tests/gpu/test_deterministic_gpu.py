"""``mg.use_deterministic_algorithms(True)`` on the GPU: the scatters apply their writes in order
(NOTE [ A scatter in the order of its writes ] in ``minigrad/kernels/gpu/ordered.py``).

The stand-in CuPy applies an atomic scatter-add's writes last first (an atomic add promises no order), so a float
sum there differs from the CPU's sequential one as it may on a device; under the mode each of these kernels
launches ``mg_oadd``/``mg_oset`` instead of CuPy's atomic scatter and gives the CPU's bits.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

pytestmark = pytest.mark.gpu

F32 = mg.float32


def _values(*shape: int, seed: int = 0) -> np.ndarray:
    """float32 values of mixed magnitudes, so that a sum of three or more depends on its order."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-4, 4, shape)).astype(np.float32)


def _launched(fn):
    """``fn()``'s result and the raw kernels and CuPy scatters it launched on the device (the stand-in's count)."""
    import fake_cupy

    fake_cupy.LAUNCHES.clear()
    out = fn()
    return out, set(fake_cupy.LAUNCHES)


REPEATS = np.array([3, 0, 3, 1, 3, 3, 0, 2, 3, 3, 1, 3])  # element 3 written seven times

#: name -> fn(device) giving a float32 tensor whose values are sums of repeated writes
SCATTERS = {
    "index's gradient (C[X])": lambda d: mg.grad((_t(_values(5, 4), d, True)[_i(REPEATS, d)] * _t(_values(12, 4, seed=1), d)).sum(),
                                                 [_LEAF[0]])[0],
    "embedding's gradient": lambda d: mg.grad((F.embedding(_i(REPEATS, d), _t(_values(5, 4), d, True))
                                               * _t(_values(12, 4, seed=1), d)).sum(), [_LEAF[0]])[0],
    "index_add": lambda d: _t(_values(5, 4), d).index_add(0, _i(REPEATS, d), _t(_values(12, 4, seed=1), d)),
    "index_put accumulate": lambda d: _t(_values(5, 4), d).index_put((_i(REPEATS, d),), _t(_values(12, 4, seed=1), d),
                                                                    accumulate=True),
    "scatter_add": lambda d: _t(_values(5, 4), d).scatter_add(0, _i(np.tile(REPEATS[:, None], 4), d),
                                                              _t(_values(12, 4, seed=1), d)),
    "scatter_reduce sum": lambda d: _t(_values(5, 4), d).scatter_reduce(0, _i(np.tile(REPEATS[:, None], 4), d),
                                                                        _t(_values(12, 4, seed=1), d), "sum"),
    "embedding_bag sum": lambda d: F.embedding_bag(_i(REPEATS, d), _t(_values(5, 4), d), _i(np.array([0, 7]), d),
                                                   mode="sum"),
}

_LEAF: list = []


def _t(a: np.ndarray, device: str, leaf: bool = False) -> mg.Tensor:
    t = mg.tensor(a, dtype=F32, requires_grad=leaf)
    if leaf:
        _LEAF[:] = [t]
    return t.to(device) if device == "gpu" else t


def _i(a: np.ndarray, device: str) -> mg.Tensor:
    t = mg.tensor(a, dtype=mg.int64)
    return t.to(device) if device == "gpu" else t


#: the CPU kernels that add rows with ``np.add.reduceat`` (``ops/shape.py``'s ``add_rows``): an order of their own
REDUCEAT = {"index's gradient (C[X])", "embedding's gradient"}


@pytest.mark.parametrize("name", sorted(SCATTERS))
def test_a_scatter_adds_in_order_under_the_deterministic_mode(name):
    mg.use_deterministic_algorithms(True)
    cpu = SCATTERS[name]("cpu").detach().numpy()
    (gpu, kernels), (again, _) = _launched(lambda: SCATTERS[name]("gpu")), _launched(lambda: SCATTERS[name]("gpu"))
    assert "mg_oadd_f32" in kernels and "cupyx.scatter_add" not in kernels, kernels
    gpu = gpu.cpu().detach().numpy()
    np.testing.assert_array_equal(again.cpu().detach().numpy(), gpu)
    if name in REDUCEAT:
        np.testing.assert_allclose(gpu, cpu, rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_array_equal(gpu, cpu)  # the CPU's np.add.at: its bits


def test_the_stand_in_s_atomic_add_is_not_the_cpu_s_order():
    """Without the mode the stand-in's atomic scatter-add (its writes last first) gives other bits than the CPU
    for a sum of seven float32 writes: what the mode is for, shown on every machine."""
    cpu = SCATTERS["index_add"]("cpu").numpy()
    gpu, kernels = _launched(lambda: SCATTERS["index_add"]("gpu"))
    assert "mg_oadd_f32" not in kernels
    assert not np.array_equal(gpu.cpu().numpy(), cpu)
    np.testing.assert_allclose(gpu.cpu().numpy(), cpu, rtol=1e-5, atol=1e-6)


#: backward passes whose kernels add their taps with a scatter: in order under the mode
BACKWARDS = {
    "replication pad": lambda x: F.pad(x, (3, 3, 2, 2), mode="replicate"),
    "bilinear resize": lambda x: F.interpolate(x, scale_factor=0.75, mode="bilinear"),
    "grid_sample": lambda x: F.grid_sample(x, mg.tensor(_values(1, 3, 5, 2, seed=3) / 1e3 % 1, dtype=F32).to(x.device),
                                           align_corners=False),
    "adaptive_max_pool2d": lambda x: F.adaptive_max_pool2d(x, (5, 4)),
}


@pytest.mark.parametrize("name", sorted(BACKWARDS))
def test_a_backward_scatter_runs_in_order_under_the_deterministic_mode(name):
    x = _values(1, 2, 6, 7, seed=4)
    g = _values(*BACKWARDS[name](mg.tensor(x)).shape, seed=5)

    def grad(device):
        t = mg.tensor(x, requires_grad=True)
        out = BACKWARDS[name](t.to(device) if device == "gpu" else t)
        return mg.grad(out, [t], mg.tensor(g).to(device) if device == "gpu" else mg.tensor(g))[0]

    mg.use_deterministic_algorithms(True)
    (first, kernels), (second, _) = _launched(lambda: grad("gpu")), _launched(lambda: grad("gpu"))
    assert "mg_oadd_f32" in kernels and "cupyx.scatter_add" not in kernels, kernels
    np.testing.assert_array_equal(first.numpy(), second.numpy())
    np.testing.assert_allclose(first.numpy(), grad("cpu").numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [mg.float16, mg.float64], ids=str)
def test_in_order_sums_round_as_the_cpu_s_in_every_dtype(dtype):
    mg.use_deterministic_algorithms(True)
    x, src = mg.tensor(_values(5, 4), dtype=dtype), mg.tensor(_values(12, 4, seed=1), dtype=dtype)
    want = x.index_add(0, mg.tensor(REPEATS), src)
    got = x.to("gpu").index_add(0, mg.tensor(REPEATS).to("gpu"), src.to("gpu"))
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


#: writes that repeat an element: the last stays under the mode (NumPy's assignment on the CPU)
WRITES = {
    "index_copy": lambda d: _t(_values(5, 4), d).index_copy(0, _i(REPEATS, d), _t(_values(12, 4, seed=1), d)),
    "index_put": lambda d: _t(_values(5, 4), d).index_put((_i(REPEATS, d),), _t(_values(12, 4, seed=1), d)),
    "scatter": lambda d: _t(_values(5, 4), d).scatter(0, _i(np.tile(REPEATS[:, None], 4), d), _t(_values(12, 4, seed=1), d)),
    "setitem, int64": lambda d: _setitem(_i(np.arange(20).reshape(5, 4), d), _i(REPEATS, d), _i(np.arange(48).reshape(12, 4), d)),
    "setitem, bool": lambda d: _setitem(_i(np.zeros((5, 4), np.int64), d).bool(), _i(REPEATS, d),
                                        _i(np.arange(48).reshape(12, 4) % 2, d).bool()),
}


def _setitem(x: mg.Tensor, index: mg.Tensor, values: mg.Tensor) -> mg.Tensor:
    x[index] = values
    return x


@pytest.mark.parametrize("name", sorted(WRITES))
def test_the_last_of_repeated_writes_stays_under_the_deterministic_mode(name):
    mg.use_deterministic_algorithms(True)
    cpu = WRITES[name]("cpu").numpy()
    gpu, kernels = _launched(lambda: WRITES[name]("gpu"))
    assert "mg_oset" in kernels, kernels
    np.testing.assert_array_equal(gpu.cpu().numpy(), cpu)


def test_empty_on_the_gpu_is_filled_as_on_the_cpu_under_the_deterministic_mode():
    mg.use_deterministic_algorithms(True)
    assert np.isnan(mg.empty(3, device="gpu").cpu().numpy()).all()
    assert mg.empty(2, dtype=mg.int32, device="gpu").tolist() == [2 ** 31 - 1] * 2
    mg.utils.deterministic.fill_uninitialized_memory = False
    assert mg.empty(2, device="gpu").tolist() == [0.0, 0.0]
