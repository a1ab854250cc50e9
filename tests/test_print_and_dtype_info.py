"""What a beginner's first tensor programs print and ask, against PyTorch: a repr's suffixes broken onto
their own line past the line width, ``set_printoptions`` (every option and profile), ``finfo``/``iinfo``,
``result_type``/``promote_types``/``can_cast``, and the tensor predicates (``is_floating_point``,
``element_size``, ``nbytes`` ...)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def both(name: str) -> tuple[Any, Any]:
    return getattr(mg, name), getattr(torch, name)


def same_text(m: Any, t: Any) -> None:
    assert str(m).replace("minigrad", "torch") == str(t)


@pytest.fixture(autouse=True)
def _default_print_options():
    yield
    mg.set_printoptions(profile="default")
    torch.set_printoptions(profile="default")


def _tensors(lib: Any) -> list[Any]:
    g = np.random.default_rng(7)
    return [
        lib.tensor(g.normal(size=8).astype(np.float32), requires_grad=True) * 2,  # grad_fn past the width
        lib.tensor(g.normal(size=7).astype(np.float32), requires_grad=True),
        lib.tensor(g.normal(size=(3, 9)).astype(np.float32), dtype=lib.float64, requires_grad=True) + 1,
        lib.tensor(g.normal(size=(2, 3)) * 1e-5),
        lib.tensor(g.normal(size=9)).to(lib.float16),
        lib.tensor([1e-5, 1.0, 300.0]),
        lib.tensor([0.0, float("inf"), -2.0, float("nan")]),
        lib.tensor([3.0, 4000.0]),
        lib.arange(2000.0).reshape(40, 50) / 7,
        lib.arange(3000).reshape(10, 300),
        lib.tensor(g.integers(-500, 500, size=(4, 30)), dtype=lib.int32),
        lib.tensor([True, False] * 30),
        lib.tensor(2.5, requires_grad=True) * 3,
        lib.zeros(0, 3),
        lib.tensor(g.normal(size=(2, 2, 12)).astype(np.float32), requires_grad=True).sum(0),
    ]


OPTIONS = {
    "default": {},
    "precision-2": {"precision": 2},
    "precision-8": {"precision": 8},
    "sci-on": {"sci_mode": True},
    "sci-off": {"sci_mode": False},
    "threshold-5": {"threshold": 5, "edgeitems": 2},
    "edgeitems-1": {"threshold": 10, "edgeitems": 1},
    "edgeitems-0": {"threshold": 10, "edgeitems": 0},
    "linewidth-30": {"linewidth": 30},
    "linewidth-200": {"linewidth": 200},
    "short": {"profile": "short"},
    "full": {"profile": "full"},
    "short-precision-6": {"profile": "short", "precision": 6},
}


@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_print_options_print_what_pytorch_prints(options: dict[str, Any]) -> None:
    mg.set_printoptions(**options)
    torch.set_printoptions(**options)
    for k, (m, t) in enumerate(zip(_tensors(mg), _tensors(torch))):
        assert repr(m).replace("minigrad", "torch") == repr(t), f"tensor {k}"


def test_a_call_that_leaves_out_sci_mode_lets_each_tensor_choose_again() -> None:
    for lib in (mg, torch):
        lib.set_printoptions(sci_mode=True)
        lib.set_printoptions(precision=3)  # sci_mode=None again, as PyTorch resets it
    same_text(mg.tensor([1.5, 2.0]), torch.tensor([1.5, 2.0]))
    assert str(mg.tensor([1.5, 2.0])) == "tensor([1.500, 2.000])"


def test_an_unknown_profile_changes_nothing_as_in_pytorch() -> None:
    for lib in (mg, torch):
        lib.set_printoptions(precision=2)
        lib.set_printoptions(profile="long", precision=None)
    same_text(mg.tensor([1.12345]), torch.tensor([1.12345]))
    assert str(mg.tensor([1.12345])) == "tensor([1.12])"


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d.startswith(("float", "bfloat"))] + [None])
def test_finfo_equals_pytorch(dtype: str | None) -> None:
    m = mg.finfo() if dtype is None else mg.finfo(getattr(mg, dtype))
    t = torch.finfo() if dtype is None else torch.finfo(getattr(torch, dtype))
    assert repr(m) == repr(t) and str(m) == str(t)
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(m, attr) == getattr(t, attr) and type(getattr(m, attr)) is type(getattr(t, attr)), attr


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_equals_pytorch(dtype: str) -> None:
    m, t = mg.iinfo(getattr(mg, dtype)), torch.iinfo(getattr(torch, dtype))
    assert repr(m) == repr(t)
    assert (m.bits, m.max, m.min, m.dtype) == (t.bits, t.max, t.min, t.dtype)


def test_finfo_and_iinfo_refuse_the_other_kind() -> None:
    for call in (lambda lib: lib.finfo(lib.int32), lambda lib: lib.iinfo(lib.float32), lambda lib: lib.iinfo(lib.bool)):
        with pytest.raises(TypeError):
            call(mg)
        with pytest.raises(TypeError):
            call(torch)
    assert mg.finfo(mg.float32) == mg.finfo(mg.float32) != mg.finfo(mg.float64)


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_promote_types_and_can_cast_equal_pytorch(a: str, b: str) -> None:
    (ma, ta), (mb, tb) = both(a), both(b)
    same_text(mg.promote_types(ma, mb), torch.promote_types(ta, tb))
    assert mg.can_cast(ma, mb) == torch.can_cast(ta, tb)


def _operands(lib: Any) -> dict[str, Any]:
    return {"i64": lib.tensor([1, 2]), "i32": lib.tensor([1, 2], dtype=lib.int32), "u8": lib.tensor([1], dtype=lib.uint8),
            "f16": lib.tensor([1.0], dtype=lib.float16), "f64": lib.tensor([1.0], dtype=lib.float64),
            "b": lib.tensor([True]), "0d-f32": lib.tensor(1.0), "0d-f64": lib.tensor(1.0, dtype=lib.float64),
            "0d-i64": lib.tensor(3), "0d-b": lib.tensor(False), "int": 2, "float": 2.5, "bool": True}


@pytest.mark.parametrize("a,b", [(a, b) for a, b in itertools.product(_operands(np).keys() if False else
                                 ["i64", "i32", "u8", "f16", "f64", "b", "0d-f32", "0d-f64", "0d-i64", "0d-b",
                                  "int", "float", "bool"], repeat=2) if not (a in ("int", "float", "bool") and
                                                                            b in ("int", "float", "bool"))])
def test_result_type_equals_pytorch(a: str, b: str) -> None:
    m, t = _operands(mg), _operands(torch)
    same_text(mg.result_type(m[a], m[b]), torch.result_type(t[a], t[b]))


PREDICATES = ["is_floating_point()", "is_complex()", "is_signed()", "element_size()", "nbytes", "itemsize",
              "ndimension()", "is_cpu", "get_device()", "is_same_size(x)", "dtype.is_floating_point",
              "dtype.is_signed", "dtype.itemsize", "dtype.is_complex"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("expr", PREDICATES)
def test_tensor_predicates_equal_pytorch(dtype: str, expr: str) -> None:
    values = []
    for lib in (mg, torch):
        t = lib.ones(2, 3, dtype=getattr(lib, dtype))
        values.append(eval(f"t.{expr}", {"t": t, "x": lib.ones(2, 3)}))
    assert values[0] == values[1]
    for name in ("is_floating_point", "is_complex", "is_signed"):
        assert getattr(mg, name)(mg.ones(1, dtype=getattr(mg, dtype))) == getattr(torch, name)(torch.ones(1, dtype=getattr(torch, dtype)))


@pytest.mark.parametrize("values", [[], [0.0], [2], [1, 2]])
def test_is_nonzero_equals_pytorch(values: list[Any]) -> None:
    outcomes = []
    for lib in (mg, torch):
        try:
            outcomes.append(lib.is_nonzero(lib.tensor(values)))
        except RuntimeError as exc:
            outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]


def test_constants_and_scalar_tensor_equal_pytorch() -> None:
    for name in ("pi", "e", "inf"):
        assert getattr(mg, name) == getattr(torch, name)
    assert mg.nan != mg.nan
    for value in (3.5, 3, True):
        same_text(mg.scalar_tensor(value), torch.scalar_tensor(value))
    same_text(mg.scalar_tensor(2, dtype=mg.int32), torch.scalar_tensor(2, dtype=torch.int32))


def test_the_tutorials_first_line_picks_the_cpu_without_a_gpu() -> None:
    """``device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"``."""
    if mg.accelerator.is_available():
        pytest.skip("a GPU is present")
    for lib in (mg, torch):
        device = lib.accelerator.current_accelerator().type if lib.accelerator.is_available() else "cpu"
        assert device == "cpu"
    assert mg.accelerator.device_count() == 0
    assert mg.accelerator.current_accelerator().type == "cuda"  # the one minigrad would drive
    assert mg.accelerator.current_accelerator(check_available=True) is None
    mg.accelerator.synchronize()  # nothing queued: returns
    with pytest.raises(RuntimeError, match="index 0"):
        mg.accelerator.set_device_index(1)
    assert set(mg.accelerator.__all__) <= set(torch.accelerator.__all__)


@pytest.mark.parametrize("a,b", [(a, b) for a, b in itertools.product(
    ["i64", "i32", "u8", "f16", "f64", "b", "0d-f32", "0d-f64", "0d-i64", "0d-b", "int", "float", "bool"], repeat=2)
    if not (a in ("int", "float", "bool") or b == "bool" and a == "b")])
def test_an_op_computes_in_the_result_type(a: str, b: str) -> None:
    """``x + y``, ``x * y``, ``x == y``, ``torch.maximum``: a 0-d tensor does not widen a tensor with dimensions of
    its kind (``float32 + tensor(1.0, float64)`` stays float32), as in PyTorch; the values are compared in it."""
    m, t = _operands(mg), _operands(torch)
    for expr in ("x + y", "x * y", "x == y", "x > y"):
        try:
            want = eval(expr, {"x": t[a], "y": t[b]})
        except RuntimeError:
            continue  # (bool subtraction and the like: refused by both, tested elsewhere)
        got = eval(expr, {"x": m[a], "y": m[b]})
        same_text(got.dtype, want.dtype)
        assert got.tolist() == want.tolist(), expr


def test_dtype_is_the_class_of_every_dtype_as_torch_dtype():
    """``torch.dtype`` in annotations and ``isinstance`` checks (library code does both)."""
    for name in ("float32", "float64", "float16", "bfloat16", "int64", "bool"):
        assert isinstance(getattr(mg, name), mg.dtype)
    assert not isinstance("float32", mg.dtype)
