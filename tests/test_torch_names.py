"""PyTorch's everyday names: dtype aliases, device objects, ``to``/``type``, ``new_*``, ``empty``,
``is_tensor``, ``numel``, the default dtype, ``cuda``, ``inference_mode``, ``keepdims=``, ``.data`` and
lecture-style indexing - each checked against PyTorch's answer.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def test_dtype_aliases_are_pytorchs() -> None:
    for name in ("long", "float", "double", "half", "int", "bool", "uint8", "float16", "float32", "float64",
                 "int32", "int64"):
        ours, theirs = getattr(mg, name), getattr(torch, name)
        assert str(ours).replace("minigrad.", "torch.") == str(theirs), name
    assert mg.long is mg.int64 and mg.float is mg.float32 and mg.double is mg.float64 and mg.half is mg.float16
    assert mg.tensor([1, 2], dtype=mg.long).dtype == mg.int64


@pytest.mark.parametrize("args", [("cpu",), ("cuda",), ("cuda", 0), ("cuda:0",), ("cuda:1",), ("cpu", 0)])
def test_device_objects_read_as_pytorchs(args) -> None:
    d, td = mg.device(*args), torch.device(*args)
    assert repr(d) == repr(td)
    assert d.type == td.type and d.index == td.index
    assert mg.device(d) is d


def test_device_objects_compare_equal_to_their_strings() -> None:
    x = mg.zeros(2)
    assert x.device == "cpu" and x.device == mg.device("cpu") and "cpu" == x.device
    assert x.device != "cuda"
    assert repr(x.device) == repr(torch.zeros(2).device)
    assert mg.device("cuda") == "cuda:0" == mg.device("gpu")
    assert {x.device: 1}["cpu"] == 1
    assert mg.zeros(2, device=mg.device("cpu")).device == "cpu"
    assert x.to(mg.device("cpu")) is x and not x.is_cuda
    for bad in ("cuda:x", "tpu"):
        with pytest.raises(RuntimeError):
            mg.device(bad)
        with pytest.raises(RuntimeError):
            torch.device(bad)
    with pytest.raises(RuntimeError):
        mg.device("cuda:0", 0)
    with pytest.raises(RuntimeError):
        torch.device("cuda:0", 0)


def test_to_forms_as_pytorch() -> None:
    x, tx = mg.tensor([[1.5, -2.0]]), torch.tensor([[1.5, -2.0]])
    other, tother = mg.zeros(1, dtype=mg.float64), torch.zeros(1, dtype=torch.float64)
    cases = [
        (lambda t, m: t.to(m.float64), "positional dtype"),
        (lambda t, m: t.to("cpu", m.float64), "device and dtype"),
        (lambda t, m: t.to(dtype=m.int64), "dtype keyword"),
        (lambda t, m: t.to(device="cpu", dtype=m.float16), "both keywords"),
        (lambda t, m: t.to(m.device("cpu"), m.double), "device object"),
    ]
    for fn, what in cases:
        ours, theirs = fn(x, mg), fn(tx, torch)
        assert str(ours.dtype).replace("minigrad.", "torch.") == str(theirs.dtype), what
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert x.to(other).dtype == mg.float64 and tx.to(tother).dtype == torch.float64
    assert x.to(mg.float32) is x and tx.to(torch.float32) is tx
    assert x.to("cpu") is x and x.to(x) is x
    assert x.to(mg.float32, copy=True) is not x
    w = mg.ones(2, requires_grad=True)
    y = w.to(mg.float64)
    y.sum().backward()
    assert w.grad.dtype == mg.float32
    with pytest.raises(TypeError):
        x.to(3.5)
    with pytest.raises(ValueError):
        x.to("tpu")


def test_type_names_and_casts() -> None:
    for dt, tdt in ((mg.float32, torch.float32), (mg.float64, torch.float64), (mg.int64, torch.int64),
                    (mg.int32, torch.int32), (mg.bool, torch.bool), (mg.float16, torch.float16)):
        assert mg.zeros(2, dtype=dt).type() == torch.zeros(2, dtype=tdt).type()
    x = mg.tensor([1.7, -2.2])
    assert x.type(mg.int64).dtype == mg.int64
    assert x.type("torch.DoubleTensor").dtype == mg.float64
    np.testing.assert_array_equal(x.type(mg.long).numpy(), torch.tensor([1.7, -2.2]).type(torch.long).numpy())


def test_new_and_empty_creation() -> None:
    x, tx = mg.zeros(2, dtype=mg.float64), torch.zeros(2, dtype=torch.float64)
    for name, args in (("new_zeros", ((2, 3),)), ("new_ones", (2, 3)), ("new_empty", ((4,),)),
                       ("new_full", ((2,), 7.0)), ("new_tensor", ([1, 2, 3],))):
        ours, theirs = getattr(x, name)(*args), getattr(tx, name)(*args)
        assert ours.shape == tuple(theirs.shape) and str(ours.dtype).replace("minigrad.", "torch.") == str(theirs.dtype)
        if name != "new_empty":
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert x.new_zeros(2, dtype=mg.int64).dtype == mg.int64
    assert x.new_ones(3, requires_grad=True).requires_grad
    assert mg.empty(2, 3).shape == (2, 3) and mg.empty((4,), dtype=mg.int64).dtype == mg.int64
    assert mg.empty_like(x).shape == (2,) and mg.empty_like(x).dtype == mg.float64


def test_predicates_and_numel() -> None:
    x = mg.zeros(3, 4)
    assert mg.is_tensor(x) and mg.is_tensor(mg.nn.Parameter(x)) and not mg.is_tensor([1])
    assert mg.numel(x) == torch.numel(torch.zeros(3, 4)) == 12
    with pytest.raises(TypeError):
        mg.numel([1, 2])
    with pytest.raises(TypeError):
        torch.numel([1, 2])


def test_default_dtype_drives_float_creation() -> None:
    assert mg.get_default_dtype() == mg.float32
    try:
        mg.set_default_dtype(mg.float64)
        torch.set_default_dtype(torch.float64)
        for fn in (lambda m: m.tensor([1.5]), lambda m: m.zeros(2), lambda m: m.ones(2), lambda m: m.rand(2),
                   lambda m: m.randn(2), lambda m: m.arange(0.0, 1.0, 0.5), lambda m: m.full((2,), 1.5),
                   lambda m: m.empty(2), lambda m: m.nn.Linear(2, 2).weight):
            assert str(fn(mg).dtype).replace("minigrad.", "torch.") == str(fn(torch).dtype)
        assert mg.tensor([1]).dtype == mg.int64
    finally:
        mg.set_default_dtype(mg.float32)
        torch.set_default_dtype(torch.float32)
    with pytest.raises(TypeError):
        mg.set_default_dtype(mg.int64)
    with pytest.raises(TypeError):
        torch.set_default_dtype(torch.int64)


def test_cuda_answers_without_importing_cupy() -> None:
    code = ("import sys, minigrad as mg; assert 'cupy' not in sys.modules; "
            "n = mg.cuda.device_count(); assert n in (0, 1) and mg.cuda.is_available() == (n == 1); "
            "mg.cuda.manual_seed_all(0)")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_inference_mode_as_context_and_decorator() -> None:
    w = mg.ones(2, requires_grad=True)
    with mg.inference_mode():
        assert not (w * 2).requires_grad
        assert mg.autograd.grad_mode.is_inference_mode_enabled()
    with mg.inference_mode(False):
        assert (w * 2).requires_grad

    @mg.inference_mode()
    def f(t):
        return t * 2

    @mg.inference_mode
    def g(t):
        return t * 2

    assert not f(w).requires_grad and not g(w).requires_grad

    assert (w * 2).requires_grad
    with pytest.raises(TypeError):
        mg.inference_mode("yes")


def test_inference_mode_is_its_own_mode_as_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (mg, torch):
        states = [lib.is_inference_mode_enabled()]
        with lib.no_grad():
            states.append(lib.is_inference_mode_enabled())
        with lib.inference_mode():
            states.append(lib.is_inference_mode_enabled())
            with lib.enable_grad():
                states.append(lib.is_inference_mode_enabled())
            with lib.inference_mode(False):
                states.append(lib.is_inference_mode_enabled())
            states.append(lib.is_inference_mode_enabled())
        states.append(lib.is_inference_mode_enabled())
        seen.append(states)
    assert seen[0] == seen[1] == [False, False, True, True, False, True, False]


def test_is_inference_as_pytorchs() -> None:
    """An inference tensor: made inside inference_mode() (by a factory, an op, clone, under enable_grad or no_grad
    there too), or a view or detach() of one wherever made; a view made there of a normal tensor is normal, and so
    is anything made under no_grad or inference_mode(False)."""
    def kinds(lib):
        n, w = lib.ones(3), lib.ones(3, requires_grad=True)
        with lib.no_grad():
            made = {"no_grad factory": lib.ones(1), "no_grad op": n * 2}
        with lib.inference_mode():
            a = lib.ones(3)
            made |= {"factory": a, "op": n * 2, "tensor()": lib.tensor([1.0]), "randn": lib.randn(2),
                     "clone": n.clone(), "op of a leaf that requires grad": w * 2, "view of a normal tensor": n[1:],
                     "view() of a normal tensor": n.view(3), "detach of a normal tensor": n.detach(),
                     "view of a leaf": w[0], "normal tensor changed in place": n.add_(1)}
            with lib.inference_mode(False):
                made |= {"inference_mode(False) factory": lib.ones(2), "inference_mode(False) op": a * 1}
            with lib.no_grad():
                made["no_grad inside"] = lib.ones(1)
            with lib.enable_grad():
                made["enable_grad inside"] = lib.ones(1)
        made |= {"view of an inference tensor": a[1:], "view() of one": a.view(3), "detach of one": a.detach(),
                 "op of one": a * 1, "clone of one": a.clone()}
        return {k: (t.is_inference(), lib.is_inference(t)) for k, t in made.items()}

    assert kinds(mg) == kinds(torch)
    with pytest.raises(TypeError, match=r"^is_inference\(\): argument 'input' \(position 1\) must be Tensor, not int$"):
        mg.is_inference(3)


def test_keepdims_is_accepted_as_pytorch_accepts_it() -> None:
    a = np.arange(12.0).reshape(3, 4)
    x, tx = mg.tensor(a), torch.tensor(a)
    for fn in (lambda t: t.sum(1, keepdims=True), lambda t: t.mean(0, keepdims=True),
               lambda t: t.max(1, keepdims=True)[0], lambda t: t.amax(1, keepdims=True),
               lambda t: t.var(1, keepdims=True), lambda t: t.std(0, keepdims=True),
               lambda t: t.logsumexp(1, keepdims=True)):
        ours, theirs = fn(x), fn(tx)
        assert ours.shape == tuple(theirs.shape)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    assert mg.sum(x, dim=1, keepdims=True).shape == (3, 1)
    with pytest.raises(TypeError):
        x.sum(1, keepdim=True, keepdims=True)


def test_data_reads_and_assigns_without_history() -> None:
    w = mg.ones(3, requires_grad=True)
    d = w.data
    assert not d.requires_grad and np.shares_memory(d.detach().numpy(), w.detach().numpy())
    d.mul_(2.0)  # the old update idiom: w.data -= lr * grad
    assert w.tolist() == [2.0, 2.0, 2.0]
    w.data = mg.zeros(5)
    assert w.shape == (5,) and w.requires_grad and w.is_leaf
    tw = torch.ones(3, requires_grad=True)
    tw.data = torch.zeros(5)
    assert tuple(tw.shape) == w.shape


def test_lecture_indexing_with_range_and_lists() -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 27))
    ix = [3, 1, 26, 0, 3]
    C, tC = mg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ours, theirs = C[range(5), ix], tC[range(5), ix]
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_array_equal(C.grad.numpy(), tC.grad.numpy())
    np.testing.assert_array_equal(C[range(5), mg.tensor(ix)].detach().numpy(), theirs.detach().numpy())
    np.testing.assert_array_equal(C[[0, 2]].detach().numpy(), tC[[0, 2]].detach().numpy())


def test_a_device_prints_as_pytorch_s() -> None:
    """``print(x.device)`` and ``f"{x.device}"`` spell the device as PyTorch does (``cuda:0``); the object
    still equals minigrad's string (``"gpu"``) and every PyTorch spelling of it."""
    torch = pytest.importorskip("torch")
    for args in (("cpu",), ("cuda",), ("cuda:0",), ("cuda", 0)):
        m, t = mg.device(*args), torch.device(*args)
        assert (str(m), repr(m), f"{m}", f"{m:>8}") == (str(t), repr(t), f"{t}", f"{t!s:>8}")
    gpu = mg.device("cuda", 0)
    assert gpu == "gpu" and gpu == "cuda" and gpu == "cuda:0" and str.__str__(gpu) == "gpu"
