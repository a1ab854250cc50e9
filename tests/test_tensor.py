"""Tensor basics (docs/architecture.md, Engine rules 8 and 9): creation, seeds, repr, conversion,
detach, in-place ops and version counters, setitem.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg

# --- creation functions -------------------------------------------------------------------


@pytest.mark.parametrize(
    "data,dtype",
    [
        ([1.0, 2.0], mg.float32),
        (1.5, mg.float32),
        ([1, 2], mg.int64),
        (3, mg.int64),
        ([True, False], mg.bool),
        ([1, 2.5], mg.float32),
        ([True, 2], mg.int64),
        ([], mg.float32),
        (np.array([1, 2], dtype=np.int32), mg.int32),
        (np.array([1.0], dtype=np.float64), mg.float64),
        (np.float64(1.5), mg.float64),
        (np.array([1.0], dtype=np.float16), mg.float16),
    ],
    ids=lambda v: v.name if isinstance(v, mg.dtypes.DType) else repr(v).replace(" ", ""),
)
def test_tensor_infers_dtype(data: Any, dtype: Any) -> None:
    assert mg.tensor(data).dtype is dtype


@pytest.mark.parametrize("data", [3.0, 7, True, np.float32(2.5), np.array(4.0)])
def test_scalar_data_gives_a_0d_tensor(data: Any) -> None:
    """Regression: np.ascontiguousarray turned scalars into shape (1,)."""
    t = mg.tensor(data)
    assert t.shape == () and t.ndim == 0 and t.numel() == 1
    assert t.item() == pytest.approx(float(data))


def test_tensor_copies_its_data() -> None:
    src = np.array([1.0, 2.0])
    t = mg.tensor(src)
    src[0] = 9.0
    assert t.tolist() == [1.0, 2.0]
    u = mg.tensor(t)
    t.numpy()[1] = 5.0
    assert u.tolist() == [1.0, 2.0]


def test_explicit_dtype_and_requires_grad() -> None:
    t = mg.tensor([1, 2], dtype=mg.float64, requires_grad=True)
    assert t.dtype is mg.float64 and t.requires_grad and t.is_leaf and t.grad is None and t.grad_fn is None
    assert mg.tensor([1.5], dtype="float16").dtype is mg.float16
    assert mg.tensor([1.5], dtype=np.float64).dtype is mg.float64
    with pytest.raises(RuntimeError, match="floating point"):
        mg.tensor([1, 2], requires_grad=True)
    with pytest.raises(TypeError):
        mg.tensor("abc")
    with pytest.raises(TypeError):
        mg.tensor([1.0], dtype="float8")


def test_shape_creation_functions() -> None:
    assert mg.zeros(2, 3).shape == (2, 3) and mg.zeros((2, 3)).shape == (2, 3) and mg.zeros([2, 3]).shape == (2, 3)
    assert mg.zeros(2).dtype is mg.float32 and mg.zeros(2).tolist() == [0.0, 0.0]
    assert mg.ones(2, dtype=mg.int32).dtype is mg.int32 and mg.ones(2, dtype=mg.int32).tolist() == [1, 1]
    assert mg.ones(2, requires_grad=True).requires_grad
    assert mg.zeros().shape == ()
    with pytest.raises(ValueError, match="negative"):
        mg.zeros(-1)
    with pytest.raises(TypeError, match="size"):
        mg.ones(2, "a")


def test_full_infers_dtype_from_fill_value() -> None:
    assert mg.full((2,), 3).dtype is mg.int64
    assert mg.full((2,), 3.0).dtype is mg.float32
    assert mg.full((2,), True).dtype is mg.bool
    assert mg.full(3, 1.5).tolist() == [1.5, 1.5, 1.5]
    assert mg.full((2,), 3, dtype=mg.float64).dtype is mg.float64


def test_arange() -> None:
    assert mg.arange(4).tolist() == [0, 1, 2, 3] and mg.arange(4).dtype is mg.int64
    assert mg.arange(1, 7, 2).tolist() == [1, 3, 5]
    assert mg.arange(0, 1, 0.25).dtype is mg.float32
    assert mg.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert mg.arange(3, dtype=mg.float64).dtype is mg.float64
    with pytest.raises(ValueError):
        mg.arange(0, 3, 0)


def test_like_functions_copy_shape_dtype() -> None:
    t = mg.tensor([[1, 2, 3]], dtype=mg.int32)
    for fn in (mg.zeros_like, mg.ones_like):
        out = fn(t)
        assert out.shape == (1, 3) and out.dtype is mg.int32
    assert mg.full_like(t, 7).tolist() == [[7, 7, 7]]
    assert mg.zeros_like(t, dtype=mg.float64).dtype is mg.float64
    assert mg.ones_like(mg.ones(2), requires_grad=True).requires_grad
    with pytest.raises(TypeError):
        mg.zeros_like([1, 2])


def test_random_creation_dtype_shape_and_range() -> None:
    assert mg.randn(2, 3).shape == (2, 3) and mg.randn(2).dtype is mg.float32
    assert mg.randn(2, dtype=mg.float64).dtype is mg.float64
    r = mg.rand(1000).numpy()
    assert r.min() >= 0.0 and r.max() < 1.0
    with pytest.raises(TypeError):
        mg.randn(2, dtype=mg.int64)


def test_manual_seed_makes_random_tensors_reproducible() -> None:
    mg.manual_seed(123)
    a, b = mg.randn(5).tolist(), mg.rand(3).tolist()
    mg.manual_seed(123)
    assert mg.randn(5).tolist() == a and mg.rand(3).tolist() == b
    mg.manual_seed(124)
    assert mg.randn(5).tolist() != a
    with pytest.raises(TypeError):
        mg.manual_seed(1.5)


def test_tensor_class_constructor() -> None:
    t = mg.Tensor([1.0, 2.0], requires_grad=True)
    assert isinstance(t, mg.Tensor) and t.requires_grad and t.tolist() == [1.0, 2.0]


# --- repr ------------------------------------------------------------------------------------


REPRS = {
    "leaf-requires-grad": (lambda: mg.tensor([1.0, 2.0], requires_grad=True), "tensor([1., 2.], requires_grad=True)"),
    "grad-fn": (lambda: mg.tensor([1.0, 2.0], requires_grad=True) * 2, "tensor([2., 4.], grad_fn=<MulBackward0>)"),
    "fixed-4-decimals": (lambda: mg.tensor([1.5, 2.0]), "tensor([1.5000, 2.0000])"),
    "float64-suffix": (lambda: mg.tensor([1.5, 2.0], dtype=mg.float64), "tensor([1.5000, 2.0000], dtype=minigrad.float64)"),
    "int64": (lambda: mg.tensor([1, 2]), "tensor([1, 2])"),
    "int32-suffix": (lambda: mg.tensor([1, 2], dtype=mg.int32), "tensor([1, 2], dtype=minigrad.int32)"),
    "bool": (lambda: mg.tensor([True, False]), "tensor([ True, False])"),
    "0d": (lambda: mg.tensor(3.14159), "tensor(3.1416)"),
    "0d-grad-fn": (lambda: mg.tensor(2.0, requires_grad=True).exp(), "tensor(7.3891, grad_fn=<ExpBackward0>)"),
    "scientific": (lambda: mg.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    "aligned-signs": (lambda: mg.tensor([-1.5, 3.25]), "tensor([-1.5000,  3.2500])"),
    "2d": (lambda: mg.tensor([[1.0, 2.0], [3.0, 4.0]]), "tensor([[1., 2.],\n        [3., 4.]])"),
    "empty-2d": (lambda: mg.zeros(0, 3), "tensor([], size=(0, 3))"),
    "empty-int": (lambda: mg.zeros(0, dtype=mg.int64), "tensor([], dtype=minigrad.int64)"),
}


@pytest.mark.parametrize("make,expected", REPRS.values(), ids=REPRS.keys())
def test_repr_reads_like_pytorch(make: Callable[[], mg.Tensor], expected: str) -> None:
    assert repr(make()) == expected


def test_repr_of_a_large_tensor_is_summarized() -> None:
    text = repr(mg.arange(2000))
    assert text.startswith("tensor([   0,    1,    2,  ..., 1997, 1998, 1999])")


def test_str_of_dtype() -> None:
    # print(x.dtype) shows the module's name, as print(torch.float32) shows "torch.float32"; .name is bare.
    assert str(mg.float32) == "minigrad.float32" and repr(mg.int64) == "minigrad.int64" and mg.bool is mg.bool_
    assert f"{mg.tensor([1.5]).dtype}" == "minigrad.float32" and mg.float32.name == "float32"


# --- conversion ------------------------------------------------------------------------------


def test_item_tolist_numpy() -> None:
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x[0, 1].item() == 2.0 and isinstance(x[0, 1].item(), float)
    assert isinstance(mg.tensor([3]).item(), int)
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    arr = x.numpy()
    assert isinstance(arr, np.ndarray) and arr.dtype == np.float32
    arr[0, 0] = 9.0  # numpy() shares memory on the CPU, as in PyTorch
    assert x[0, 0].item() == 9.0
    with pytest.raises(RuntimeError, match="a Tensor with 4 elements cannot be converted to Scalar"):
        x.item()


def test_python_protocol() -> None:
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert len(x) == 2 and [r.tolist() for r in x] == [[1.0, 2.0], [3.0, 4.0]]
    assert bool(mg.tensor([1])) is True and float(mg.tensor(2.5)) == 2.5 and int(mg.tensor(3)) == 3
    assert [10, 20, 30][mg.tensor(1)] == 20
    with pytest.raises(RuntimeError, match="ambiguous"):
        bool(x)
    with pytest.raises(TypeError):
        len(mg.tensor(1.0))
    assert hash(x) == hash(x) and {x: 1}[x] == 1


def test_properties() -> None:
    x = mg.ones(2, 3, 4)
    assert x.shape == (2, 3, 4) and x.ndim == 3 and x.dim() == 3 and x.numel() == 24
    assert x.size() == (2, 3, 4) and x.size(1) == 3 and x.device == "cpu"
    assert x.T.shape == (4, 3, 2)


# --- requires_grad and detach ---------------------------------------------------------------


def test_requires_grad_setter_rules() -> None:
    x = mg.ones(2)
    x.requires_grad = True
    assert x.requires_grad and x.is_leaf
    y = x * 2
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match="floating point"):
        mg.ones(2, dtype=mg.int64).requires_grad_()
    assert x.requires_grad_(False) is x and not x.requires_grad


def test_detach_shares_storage_and_version_counter_and_does_not_require_grad() -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    assert np.shares_memory(d.detach().numpy(), y.detach().numpy())
    z = y * y  # saves y
    d.add_(1)
    assert y.tolist() == [3.0, 5.0, 7.0]
    assert d.version == 1 and y.version == 1
    with pytest.raises(RuntimeError, match=r"modified by an in-place operation.*version 0 is now at version 1"):
        z.sum().backward()


def test_no_grad_creates_no_node_and_enable_grad_restores() -> None:
    x = mg.tensor([1.0], requires_grad=True)
    with mg.no_grad():
        y = x * 2
        with mg.enable_grad():
            z = x * 2
    assert y.grad_fn is None and not y.requires_grad
    assert z.grad_fn is not None and mg.is_grad_enabled()


def test_set_grad_enabled_as_a_statement_sets_the_mode_at_once() -> None:
    """PyTorch's ``torch.set_grad_enabled(False)`` on a line of its own turns recording off until
    ``set_grad_enabled(True)``; in a ``with`` block it restores the mode it replaced; decorating a
    function changes nothing until the function runs."""
    x = mg.tensor([1.0], requires_grad=True)
    try:
        mg.set_grad_enabled(False)
        assert not mg.is_grad_enabled() and (x * 2).grad_fn is None
        mg.set_grad_enabled(True)
        assert (x * 2).grad_fn is not None
        with mg.set_grad_enabled(False):
            assert not mg.is_grad_enabled()
        assert mg.is_grad_enabled()
        with mg.no_grad():
            with mg.set_grad_enabled(True):
                assert mg.is_grad_enabled()
            assert not mg.is_grad_enabled()

        @mg.set_grad_enabled(False)
        def mode() -> bool:
            return mg.is_grad_enabled()

        assert mg.is_grad_enabled() and not mode() and mg.is_grad_enabled()
    finally:
        mg.set_grad_enabled(True)


def test_the_tensor_type_prints_as_minigrad_tensor() -> None:
    """``print(type(x))`` shows ``<class 'minigrad.Tensor'>``, as PyTorch's ``<class 'torch.Tensor'>``."""
    assert str(type(mg.zeros(2))) == "<class 'minigrad.Tensor'>" and mg.Tensor is type(mg.zeros(2))


# --- in-place ops and version counters (docs/architecture.md, Engine rules, rule 8) -------------------------------------

INPLACE = {
    "add_": (lambda t: t.add_(2.0), lambda a: a + 2),
    "sub_": (lambda t: t.sub_(mg.tensor([1.0, 1.0, 1.0])), lambda a: a - 1),
    "mul_": (lambda t: t.mul_(3), lambda a: a * 3),
    "div_": (lambda t: t.div_(2.0), lambda a: a / 2),
    "zero_": (lambda t: t.zero_(), lambda a: a * 0),
    "fill_": (lambda t: t.fill_(7.0), lambda a: a * 0 + 7),
    "iadd": (lambda t: t.__iadd__(mg.tensor([1.0, 2.0, 3.0])), lambda a: a + np.array([1.0, 2.0, 3.0])),
    "isub": (lambda t: t.__isub__(1), lambda a: a - 1),
    "imul": (lambda t: t.__imul__(mg.tensor(2.0)), lambda a: a * 2),
    "idiv": (lambda t: t.__itruediv__(4), lambda a: a / 4),
    "setitem": (lambda t: t.__setitem__(1, 5.0), lambda a: np.where(np.arange(3) == 1, 5.0, a)),
}


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_op_changes_values_in_place_and_bumps_version(name: str) -> None:
    op, ref = INPLACE[name]
    t = mg.tensor([1.0, 2.0, 3.0])
    data = t._data
    out = op(t)
    assert out is t or out is None
    assert t._data is data  # same storage, written in place
    np.testing.assert_allclose(t.numpy(), ref(np.array([1.0, 2.0, 3.0])))
    assert t.version == 1
    op(t)
    assert t.version == 2


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_op_on_non_leaf_records_history(name: str) -> None:
    op, ref = INPLACE[name]
    x = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64, requires_grad=True)
    y = x * 1.0
    old_node = y.grad_fn
    op(y)
    assert y.grad_fn is not old_node and y.grad_fn is not None  # the grad node moved
    assert any(n is old_node for n, _ in y.grad_fn.next_functions)
    # The gradient through the in-place op equals the out-of-place one (finite differences).
    w = np.array([0.5, -1.0, 2.0])
    y.backward(mg.tensor(w))
    eps = 1e-6
    base = np.array([1.0, 2.0, 3.0])
    num = []
    for k in range(3):
        hi, lo = base.copy(), base.copy()
        hi[k] += eps
        lo[k] -= eps
        num.append((w @ ref(hi) - w @ ref(lo)) / (2 * eps))
    np.testing.assert_allclose(x.grad.numpy(), num, atol=1e-6)


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_op_on_leaf_requiring_grad_raises(name: str) -> None:
    op, _ = INPLACE[name]
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        op(x)
    assert x.version == 0 and x.tolist() == [1.0, 2.0, 3.0] and x.grad_fn is None


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_op_on_leaf_is_allowed_under_no_grad(name: str) -> None:
    op, ref = INPLACE[name]
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with mg.no_grad():
        op(x)
    np.testing.assert_allclose(x.detach().numpy(), ref(np.array([1.0, 2.0, 3.0])))
    assert x.is_leaf and x.requires_grad and x.version == 1


def test_backward_needing_a_modified_saved_tensor_names_it_and_both_versions() -> None:
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1
    a.name = "a"
    b = mg.exp(a) * a  # MulBackward0 saves exp(a) and a
    a.add_(1)
    a.mul_(2)
    with pytest.raises(RuntimeError) as info:
        b.sum().backward()
    msg = str(info.value)
    assert "tensor 'a'" in msg and "version 0" in msg and "version 2" in msg and "MulBackward0" in msg


def test_inplace_on_a_tensor_not_requiring_grad_with_a_grad_operand_joins_the_graph() -> None:
    w = mg.tensor([1.0, 2.0], requires_grad=True)
    buf = mg.zeros(2)
    buf.add_(w * 3)
    assert buf.grad_fn is not None and not buf.is_leaf
    buf.sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]


def test_inplace_keeps_the_tensor_dtype_and_refuses_float_into_int() -> None:
    f = mg.tensor([1.0, 2.0], dtype=mg.float16)
    f += mg.tensor([1.0, 1.0], dtype=mg.float64)
    assert f.dtype is mg.float16 and f.tolist() == [2.0, 3.0]
    i = mg.tensor([1, 2], dtype=mg.int32)
    i += mg.tensor([1, 1])
    assert i.dtype is mg.int32 and i.tolist() == [2, 3]
    with pytest.raises(RuntimeError, match="can't be cast"):
        i *= 1.5


def test_widening_inplace_op_records_a_cast() -> None:
    """Regression: y_f32 *= w_f64 left y's node producing float64 for a float32 tensor."""
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = mg.tensor([1.0, 2.0, 3.0], dtype=mg.float64, requires_grad=True)
    y = x * 2
    y *= w
    assert y.dtype is mg.float32 and y.grad_fn.name() == "ToCopyBackward0"
    y.sum().backward()
    assert x.grad.dtype is mg.float32 and x.grad.tolist() == [2.0, 4.0, 6.0]
    assert w.grad.dtype is mg.float64 and w.grad.tolist() == [2.0, 4.0, 6.0]


def test_inplace_on_an_op_output_that_numpy_made_a_view_is_allowed() -> None:
    """Regression: outputs of logsumexp/max_pool2d/conv2d_input_grad are NumPy views of a
    temporary; in-place ops on them were refused as 'a view of another tensor'."""
    x = mg.randn(2, 3, requires_grad=True)
    y = mg.logsumexp(x, dim=1)
    before = y.detach().numpy().copy()
    y.add_(1)
    np.testing.assert_allclose(y.detach().numpy(), before + 1, rtol=1e-6)
    p = mg.max_pool2d(mg.randn(1, 1, 4, 4, requires_grad=True), 2)
    p.mul_(2)


def test_inplace_on_a_view_of_a_tensor_requiring_grad_rewrites_its_base() -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[0:2]
    v.add_(1)  # PyTorch's CopySlices: y's history now goes through the change
    assert y.tolist() == [2.0, 3.0, 3.0] and y.grad_fn.name() == "torch::autograd::CopySlices"
    (y * y).sum().backward()
    assert x.grad.tolist() == [4.0, 6.0, 6.0]


def test_views_share_the_version_counter() -> None:
    x = mg.zeros(2, 3)
    v = x[0]
    r = x.reshape(6)
    x.add_(1)
    assert v.version == r.version == x.version == 1
    v.add_(1)  # writes through to x (no grad involved)
    assert x.tolist()[0] == [2.0, 2.0, 2.0] and x.version == 2


# --- setitem ---------------------------------------------------------------------------------------


def test_setitem_forms() -> None:
    x = mg.zeros(3, 4)
    x[1] = 5.0
    x[:, 2] = mg.tensor([1.0, 2.0, 3.0])
    x[0, [0, 3]] = mg.tensor([7.0, 8.0])
    x[-1, 1::2] = mg.tensor([4.0, 6.0])
    expected = np.zeros((3, 4))
    expected[1] = 5.0
    expected[:, 2] = [1.0, 2.0, 3.0]
    expected[0, [0, 3]] = [7.0, 8.0]
    expected[-1, 1::2] = [4.0, 6.0]
    np.testing.assert_array_equal(x.numpy(), expected)
    assert x.version == 4
    x[x > 4] = -1.0
    expected[expected > 4] = -1.0
    np.testing.assert_array_equal(x.numpy(), expected)
    x[...] = 2
    assert x.numpy().tolist() == np.full((3, 4), 2.0).tolist()


def test_setitem_casts_the_value_to_the_tensor_dtype() -> None:
    """Regression: ``int_tensor[1] = 2.7`` raised 'result type float32 can't be cast'."""
    i = mg.tensor([1, 2, 3])
    i[1] = 2.7
    i[2] = mg.tensor(9.5)
    assert i.tolist() == [1, 2, 9] and i.dtype is mg.int64
    f = mg.zeros(2, dtype=mg.float64)
    f[0] = mg.tensor(1.5, dtype=mg.float32)
    assert f.dtype is mg.float64 and f.tolist() == [1.5, 0.0]


def test_setitem_drops_leading_size_one_dims_of_the_value() -> None:
    """Regression: ``x[0] = tensor([[1., 2.]])`` failed inside expand()."""
    x = mg.zeros(2, 2)
    x[0] = mg.tensor([[1.0, 2.0]])
    assert x.tolist() == [[1.0, 2.0], [0.0, 0.0]]


def test_setitem_with_repeated_indices_keeps_the_last_write() -> None:
    """Regression: the value was scatter-added, so x[[1, 1]] = [1, 2] stored 3."""
    x = mg.zeros(4)
    x[[1, 1]] = mg.tensor([1.0, 2.0])
    assert x.tolist() == [0.0, 2.0, 0.0, 0.0]


def test_setitem_gradients_reach_the_value_and_the_kept_elements() -> None:
    x = mg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = mg.tensor([10.0, 20.0], requires_grad=True)
    y = x * 2
    y[::2] = v * v
    assert y.tolist() == [100.0, 4.0, 400.0]
    y.backward(mg.tensor([1.0, 2.0, 3.0]))
    assert x.grad.tolist() == [0.0, 4.0, 0.0]
    assert v.grad.tolist() == [20.0, 120.0]


def test_setitem_errors_leave_the_tensor_unchanged() -> None:
    x = mg.zeros(2, 2)
    with pytest.raises(ValueError, match=r"^The expanded size of the tensor \(2\) must match the existing size \(3\)"):
        x[0] = mg.tensor([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"^setitem\(\): index is invalid"):
        x[5] = 1.0
    with pytest.raises(TypeError, match=r"^setitem\(\): the value must be a Tensor or a Python number"):
        x[0] = "a"
    assert x.version == 0 and x.tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize(
    "make",
    [lambda y: y.T.reshape(6), lambda y: y[:, [0, 2]], lambda y: y[1:, [0, 0]]],
    ids=["reshape-of-transpose", "slice-and-array-index", "slice-and-repeated-index"],
)
def test_inplace_on_an_op_output_that_is_a_copy_is_allowed(make: Callable[[mg.Tensor], mg.Tensor]) -> None:
    """Regression: reshape of a non-contiguous tensor and mixed fancy indexing return NumPy
    copies whose .base is a temporary; they were taken for views (in-place refused, and the
    version counter shared with the input)."""
    x = mg.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = x * 1
    out = make(y)
    out.add_(1)
    assert y.version == 0 and out.version == 1
    np.testing.assert_array_equal(y.detach().numpy(), np.arange(6.0).reshape(2, 3))
    out.sum().backward()
    assert x.grad is not None
