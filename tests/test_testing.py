"""``mg.testing`` against ``torch.testing``: ``assert_close``'s verdicts and reports word for word (the module
name aside), its tolerances by dtype, and ``make_tensor``'s values bit for bit after the same seed."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _calls(L):
    t = L.tensor
    ac = L.testing.assert_close
    return {
        "one value off": lambda: ac(t([1., 2., 3.]), t([1., 2.1, 3.])),
        "within float32's tolerance": lambda: ac(t([1., 2.]), t([1., 2. + 1e-6])),
        "shapes": lambda: ac(t([1., 2., 3.]), t([1., 2.])),
        "dtypes": lambda: ac(t([1., 2.]), t([1., 2.], dtype=L.float64)),
        "dtypes not checked": lambda: ac(t([1., 2.]), t([1., 2.5], dtype=L.float64), check_dtype=False),
        "python floats": lambda: ac(1.0, 1.1),
        "int and float": lambda: ac(1, 1.0),
        "a list names the item": lambda: ac([t(1.), t(2.)], [t(1.), t(2.5)]),
        "a dict names the key": lambda: ac({"a": t(1.)}, {"a": t(1.5)}),
        "keys": lambda: ac({"a": 1}, {"b": 1}),
        "lengths": lambda: ac([1, 2], [1, 2, 3]),
        "integers are compared exactly": lambda: ac(t([1, 2]), t([1, 3])),
        "integer 0-d": lambda: ac(t(3), t(4)),
        "bools": lambda: ac(t([True, False]), t([True, True])),
        "a tensor and a float": lambda: ac(t(1.), 1.),
        "a tensor and a list": lambda: ac(t([1., 2.]), [1., 2.]),
        "nan": lambda: ac(t([float("nan")]), t([float("nan")])),
        "nan equal": lambda: ac(t([float("nan")]), t([float("nan")]), equal_nan=True),
        "infinities": lambda: ac(t([1., float("inf")]), t([1., float("inf")])),
        "opposite infinities": lambda: ac(t([1., float("inf")]), t([1., -float("inf")])),
        "relative to zero": lambda: ac(t([0., 1.]), t([0., 0.])),
        "empty": lambda: ac(L.zeros(0), L.zeros(0)),
        "float16's tolerance": lambda: ac(t([1., 2.], dtype=L.float16), t([1., 2.003], dtype=L.float16)),
        "a message": lambda: ac(t([[1., 2.], [3., 4.]]), t([[1., 2.], [3., 4.5]]), msg="custom"),
        "a message function": lambda: ac(t([[1., 2.], [3., 4.]]), t([[1., 2.], [3., 4.5]]), msg=lambda m: "Head\n" + m),
        "rtol alone": lambda: ac(t([1., 2.]), t([1., 2.01]), rtol=0.1),
        "atol alone": lambda: ac(t([1., 2.]), t([1., 2.01]), atol=0.1),
        "both given": lambda: ac(t([1., 2.]), t([1., 2.01]), atol=0.1, rtol=0),
        "numpy arrays": lambda: ac(np.array([1., 2.]), np.array([1., 3.])),
        "None": lambda: ac(None, t(1.)),
        "Python bools": lambda: ac(True, False),
        "strides": lambda: ac(t([[1., 2.], [3., 4.]]).t(), t([[1., 3.], [2., 4.]]), check_stride=True),
        "int32 and int64": lambda: ac(t([1, 2], dtype=L.int32), t([1, 2], dtype=L.int64)),
        "a tensor that requires grad": lambda: ac(t([1., 2.], requires_grad=True), t([1., 2.])),
        "the greatest of several": lambda: ac(t([[1., 5.], [3., 4.]]), t([[1.5, 2.], [3., 3.]])),
    }


def _verdict(call) -> str:
    try:
        call()
        return "passed"
    except Exception as e:  # noqa: BLE001 - the class and the words are what is compared
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("case", sorted(_calls(torch)))
def test_assert_close_says_what_pytorchs_says(case: str) -> None:
    want = _verdict(_calls(torch)[case]).replace("torch.", "minigrad.")
    assert _verdict(_calls(mg)[case]) == want


def test_assert_allclose_warns_and_uses_the_old_tolerances() -> None:
    with pytest.warns(FutureWarning, match=r"`torch.testing.assert_allclose\(\)` is deprecated since 1.12"):
        mg.testing.assert_allclose(mg.tensor([1.0, 2.0]), [1.0, 2.0001])  # within float32's old rtol 1e-4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(AssertionError, match="Tensor-likes are not close!"):
            mg.testing.assert_allclose(mg.tensor([1.0, 2.0]), [1.0, 2.01])


MAKE = [((3, 4), {"dtype": "float32"}), ((5,), {"dtype": "int64"}), ((2, 3), {"dtype": "bool"}),
        ((2, 3), {"dtype": "float64", "low": -1, "high": 1}), ((4, 4), {"dtype": "float32", "noncontiguous": True}),
        ((10,), {"dtype": "int32", "exclude_zero": True}), ((3,), {"dtype": "float16"}), ((3,), {"dtype": "uint8"}),
        ((3,), {"dtype": "float32", "low": -1e40, "high": 1e40}), ((3,), {"dtype": "bfloat16"}),
        (((2, 3),), {"dtype": "float32", "requires_grad": True})]


@pytest.mark.parametrize("shape,kw", MAKE, ids=[f"{s}-{sorted(k.items())}" for s, k in MAKE])
def test_make_tensor_draws_pytorchs_values(shape, kw) -> None:
    got = []
    for L in (torch, mg):
        L.manual_seed(0)
        t = L.testing.make_tensor(*shape, device="cpu", **{**kw, "dtype": getattr(L, kw["dtype"])})
        got.append((t.detach().float().numpy(), t.is_contiguous(), tuple(t.shape), t.requires_grad))
    assert np.array_equal(got[0][0], got[1][0]) and got[0][1:] == got[1][1:]


@pytest.mark.parametrize("kw", [{"low": 1, "high": 1, "dtype": "int64"}, {"low": float("nan"), "dtype": "float32"},
                                {"dtype": "int64", "requires_grad": True}, {"dtype": "uint8", "low": 300, "high": 400}])
def test_make_tensor_refuses_as_pytorch(kw) -> None:
    words = []
    for L in (torch, mg):
        words.append(_verdict(lambda: L.testing.make_tensor(3, device="cpu", **{**kw, "dtype": getattr(L, kw["dtype"])})))
    assert words[1] == words[0].replace("torch.", "minigrad.")
