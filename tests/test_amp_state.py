"""PyTorch's autocast state functions and ``amp.custom_fwd``/``custom_bwd``, against PyTorch 2.13's CPU build."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

DEVICES = ("cpu", "cuda", "ipu", "xla")


def _reset(fw) -> None:
    """Both frameworks back to their defaults (the state is per thread and outlives a test)."""
    defaults = {"cpu": fw.bfloat16, "cuda": fw.float16, "ipu": fw.float16, "xla": fw.bfloat16}
    for device, dtype in defaults.items():
        fw.set_autocast_enabled(device, False)
        fw.set_autocast_dtype(device, dtype)
    fw.set_autocast_cache_enabled(True)


@pytest.fixture(autouse=True)
def _clean_state():
    _reset(mg), _reset(torch)
    yield
    _reset(mg), _reset(torch)


def _call(fw, name, *args):
    """(result or exception class and words, [(warning class, words)]) of ``fw.<name>(*args)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = getattr(fw, name)(*args)
            result = str(result).split(".")[-1] if result is not None and not isinstance(result, (bool, int)) \
                else result
        except Exception as e:  # noqa: BLE001  (the class is what is compared)
            result = (RuntimeError if isinstance(e, RuntimeError) else type(e), str(e))
    said = [(w.category, str(w.message).split(" (Triggered internally")[0].replace("minigrad.", "torch."))
            for w in caught]
    return result, said


def _same(name, *args, fw_args=None):
    ours = _call(mg, name, *(fw_args(mg) if fw_args else args))
    theirs = _call(torch, name, *(fw_args(torch) if fw_args else args))
    assert ours == theirs, name
    return ours


DEPRECATED_GETTERS = [f"{kind}_autocast_{d}_{what}" for d in ("cpu", "gpu", "ipu", "xla")
                      for kind, what in (("is", "enabled"), ("get", "dtype"))
                      if not (d == "gpu" and what == "enabled")]


@pytest.mark.parametrize("name", ["is_autocast_cache_enabled", *DEPRECATED_GETTERS])
def test_getters_read_pytorchs_defaults_and_warn_as_it_does(name) -> None:
    result, said = _same(name)
    assert said == [] or said[0][0] is DeprecationWarning


@pytest.mark.parametrize("device", DEVICES)
def test_enabled_and_dtype_per_device_type(device) -> None:
    for enabled in (True, False):
        _same("set_autocast_enabled", device, enabled)
        for other in DEVICES:
            _same("is_autocast_enabled", other)
    for dtype in ("float16", "bfloat16", "float64"):
        _same("set_autocast_dtype", fw_args=lambda fw: (device, getattr(fw, dtype)))
        _same("get_autocast_dtype", device)


@pytest.mark.parametrize("short,device", [("cpu", "cpu"), ("gpu", "cuda"), ("ipu", "ipu"), ("xla", "xla")])
def test_deprecated_setters_warn_and_drive_the_same_state(short, device) -> None:
    if short != "gpu":
        result, said = _same(f"set_autocast_{short}_enabled", True)
        assert said[0][0] is DeprecationWarning
        _same("is_autocast_enabled", device)
    result, said = _same(f"set_autocast_{short}_dtype", fw_args=lambda fw: (fw.float16,))
    assert said[0][0] is DeprecationWarning
    _same("get_autocast_dtype", device)


def test_set_autocast_cpu_enabled_drives_the_real_autocast() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)
    for fw in (mg, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            fw.set_autocast_cpu_enabled(True)
    y, ty = mg.tensor(a) @ mg.tensor(b), torch.tensor(a) @ torch.tensor(b)
    assert y.dtype == mg.bfloat16 and ty.dtype == torch.bfloat16
    np.testing.assert_array_equal(y.float().numpy(), ty.float().numpy())
    mg.set_autocast_dtype("cpu", mg.float16)
    assert (mg.tensor(a) @ mg.tensor(b)).dtype == mg.float16
    mg.set_autocast_enabled("cpu", False)
    assert (mg.tensor(a) @ mg.tensor(b)).dtype == mg.float32
    mg.set_autocast_enabled("cuda", True)  # no GPU tensors: CPU ops are not cast, as in PyTorch
    if not mg.cuda.is_available():
        assert (mg.tensor(a) @ mg.tensor(b)).dtype == mg.float32
    assert mg.is_autocast_enabled()


def test_the_context_sets_and_restores_the_state() -> None:
    for fw in (mg, torch):
        with fw.autocast("cpu", dtype=fw.float16, cache_enabled=False):
            assert fw.is_autocast_enabled("cpu") and not fw.is_autocast_enabled()
            assert fw.get_autocast_dtype("cpu") == fw.float16 and not fw.is_autocast_cache_enabled()
            assert fw.autocast_increment_nesting() == 2
            assert fw.autocast_decrement_nesting() == 1
            with fw.autocast("cpu", enabled=False):
                assert not fw.is_autocast_enabled("cpu")
                assert (fw.ones(2, 2) @ fw.ones(2, 2)).dtype == fw.float32
            assert (fw.ones(2, 2) @ fw.ones(2, 2)).dtype == fw.float16
        assert not fw.is_autocast_enabled("cpu") and fw.get_autocast_dtype("cpu") == fw.bfloat16
        assert fw.is_autocast_cache_enabled()
        fw.clear_autocast_cache()
        assert [fw.autocast_decrement_nesting(), fw.autocast_increment_nesting()] == [-1, 0]


@pytest.mark.parametrize("args", [(), (1,), ("cpu",), ("foo", True), (True, "cpu"), ("cpu", 1), ("cpu", True, 1)])
def test_set_autocast_enabled_refusals(args) -> None:
    ours, theirs = _call(mg, "set_autocast_enabled", *args), _call(torch, "set_autocast_enabled", *args)
    assert ours == theirs and isinstance(ours[0], tuple)


@pytest.mark.parametrize("name,args", [("is_autocast_enabled", ("foo",)), ("is_autocast_enabled", (3,)),
                                       ("get_autocast_dtype", (1,)), ("set_autocast_cache_enabled", (1,)),
                                       ("set_autocast_cpu_enabled", (1,))])
def test_other_refusals(name, args) -> None:
    ours, theirs = _call(mg, name, *args)[0], _call(torch, name, *args)[0]
    assert ours == theirs and isinstance(ours, tuple)


# -- custom_fwd / custom_bwd ------------------------------------------------------------------------

def _function(fw, cast_inputs, seen):
    class MulMm(fw.autograd.Function):
        @staticmethod
        @fw.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            seen["fwd"] = (a.dtype, b.dtype)
            return a @ b

        @staticmethod
        @fw.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen["bwd"] = (g.dtype, (g @ b.T).dtype)
            return g @ b.T, a.T @ g

    return MulMm


def _run(fw, cast_inputs, autocast: bool):
    rng = np.random.default_rng(1)
    a = fw.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    b = fw.tensor(rng.standard_normal((4, 2)).astype(np.float32), requires_grad=True)
    seen: dict = {}
    fn = _function(fw, None if cast_inputs is None else getattr(fw, cast_inputs), seen)
    with fw.autocast("cpu", dtype=fw.bfloat16, enabled=autocast):
        out = fn.apply(a, b)
    out.float().sum().backward()
    names = lambda dts: [str(d).split(".")[-1] for d in dts]  # noqa: E731
    return (str(out.dtype).split(".")[-1], names(seen["fwd"]), names(seen["bwd"]), out.float().detach().numpy(),
            a.grad.float().numpy(), b.grad.float().numpy())


@pytest.mark.parametrize("cast_inputs", [None, "float32", "float16"])
@pytest.mark.parametrize("autocast", [True, False])
def test_custom_function_under_autocast_matches_pytorch(cast_inputs, autocast) -> None:
    ours, theirs = _run(mg, cast_inputs, autocast), _run(torch, cast_inputs, autocast)
    assert ours[:3] == theirs[:3]
    for o, t in zip(ours[3:6], theirs[3:6]):
        np.testing.assert_allclose(o, t, rtol=1e-2, atol=1e-2)


def test_decorator_refusals_and_the_deprecated_cuda_spelling() -> None:
    for fw in (mg, torch):
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            fw.amp.custom_fwd(lambda ctx: None, device_type=0)
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            fw.amp.custom_bwd(lambda ctx: None, device_type=None)
        with pytest.warns(FutureWarning, match=r"torch.cuda.amp.custom_fwd\(args...\)` is deprecated"):
            fw.cuda.amp.custom_fwd(lambda ctx, x: x)
        with pytest.warns(FutureWarning, match=r"torch.cuda.amp.custom_bwd\(args...\)` is deprecated"):
            fw.cuda.amp.custom_bwd(lambda ctx, g: g)


def test_exported_as_pytorch_exports_them() -> None:
    names = ["set_autocast_enabled", "is_autocast_enabled", "set_autocast_dtype", "get_autocast_dtype",
             "is_autocast_cache_enabled", "set_autocast_cache_enabled", "clear_autocast_cache",
             "autocast_increment_nesting", "autocast_decrement_nesting", "set_autocast_cpu_enabled",
             "set_autocast_cpu_dtype", "set_autocast_gpu_dtype", "set_autocast_ipu_enabled", "set_autocast_xla_dtype",
             *DEPRECATED_GETTERS]
    for name in names:
        assert hasattr(torch, name) and name in mg.__all__ and callable(getattr(mg, name)), name
    assert not hasattr(mg, "is_autocast_gpu_enabled") and not hasattr(torch, "is_autocast_gpu_enabled")
    assert {"custom_fwd", "custom_bwd"} <= set(mg.amp.__all__)
