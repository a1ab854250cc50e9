"""``out=`` as PyTorch's (NOTE [ out= ] in ``minigrad/ops/registry.py``): which functions take it, what is
written, the version bump, the resize and its warning, the dtype rule, the autograd refusal and the overlap
refusal, each against PyTorch 2.13 as the oracle.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad.ops.registry import OpDef, ops_taking_out

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def _both(values, dtype="float32"):
    return mg.tensor(values, dtype=getattr(mg, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))


def _pytorch_takes_out(name: str) -> bool | None:
    """Whether ``torch.<name>`` accepts ``out=``, found by calling it (None: no call of ours fits it)."""
    f = getattr(torch, name)
    x, i = torch.rand(3, 3) + 0.5, torch.ones(3, 3, dtype=torch.int64)
    calls = [(x,), (x, x), (x, 0), (x, 1.5), ([x, x],), ([x, x], 0), (x, (1, 0)), (i,), (i, i), (x > 0.5,)]
    for args in calls:
        for dt in (torch.float32, torch.int64, torch.bool):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    f(*args, out=torch.empty(0, dtype=dt))
                return True
            except TypeError as e:
                if "'out'" in str(e) or "out=Tensor" in str(e):
                    taken_elsewhere = "Tensor out" in str(e)  # another overload takes it (sum(input, dim, out=))
                    if not taken_elsewhere:
                        return False
            except Exception:
                continue
    return None


#: Ops minigrad's namespace exposes that PyTorch has no top-level function of the same name for, or whose
#: PyTorch form our probe calls cannot reach; they keep the rule (a new tensor: out= taken).
NOT_PROBED = {"cast", "conv2d_input_grad", "conv2d_weight_grad", "cross_entropy", "cross_entropy_backward", "elu",
              "expand", "gelu_backward", "getitem", "getitem_grad", "hardsigmoid", "hardswish", "hardtanh",
              "leaky_relu", "max_pool2d_grad", "max_pool2d_select", "mse_loss", "silu", "softplus",
              "threshold_backward"}


def test_which_functions_take_out_is_pytorchs() -> None:
    public = sorted(n for n in dir(mg) if isinstance(getattr(mg, n), OpDef))
    table = set(ops_taking_out())
    unknown, differ = [], []
    for name in public:
        if name in NOT_PROBED or not hasattr(torch, name):
            continue
        theirs = _pytorch_takes_out(name)
        if theirs is None:
            unknown.append(name)
        elif (getattr(mg, name).name in table) != theirs:
            differ.append((name, theirs))
    assert not differ, f"out= taken by PyTorch (True) or not (False), but not so in minigrad: {differ}"
    assert len(unknown) <= 3, unknown
    assert {"add", "mul", "matmul", "exp", "sum", "stack", "concat"} <= table
    assert not {"reshape", "permute", "relu", "clone", "flip"} & table


@pytest.mark.parametrize("call", [
    lambda T, x, y: T.add(x, y, out=T.empty(2, 3)),
    lambda T, x, y: T.add(x, y, alpha=2, out=T.empty(2, 3)),
    lambda T, x, y: T.sub(x, y, out=T.empty(2, 3)),
    lambda T, x, y: T.mul(x, y, out=T.empty(2, 3)),
    lambda T, x, y: T.div(x, y, out=T.empty(2, 3)),
    lambda T, x, y: T.div(x, y, rounding_mode="floor", out=T.empty(2, 3)),
    lambda T, x, y: T.pow(x, 2, out=T.empty(2, 3)),
    lambda T, x, y: T.exp(x, out=T.empty(2, 3)),
    lambda T, x, y: T.sqrt(y, out=T.empty(2, 3)),
    lambda T, x, y: T.matmul(x, y.t(), out=T.empty(2, 2)),
    lambda T, x, y: T.mm(x, y.t(), out=T.empty(2, 2)),
    lambda T, x, y: T.bmm(x[None], y.t()[None], out=T.empty(1, 2, 2)),
    lambda T, x, y: T.cat([x, y], out=T.empty(4, 3)),
    lambda T, x, y: T.cat([x, y], 1, out=T.empty(2, 6)),
    lambda T, x, y: T.stack([x, y], out=T.empty(2, 2, 3)),
    lambda T, x, y: T.sum(x, 1, out=T.empty(2)),
    lambda T, x, y: T.sum(x, dim=0, keepdim=True, out=T.empty(1, 3)),
    lambda T, x, y: T.mean(x, 1, out=T.empty(2)),
    lambda T, x, y: T.maximum(x, y, out=T.empty(2, 3)),
    lambda T, x, y: T.tanh(x, out=T.empty(2, 3)),
    lambda T, x, y: T.lerp(x, y, 0.3, out=T.empty(2, 3)),
    lambda T, x, y: T.lerp(x, y, y.sigmoid(), out=T.empty(2, 3)),
    lambda T, x, y: T.addcmul(x, y, x, value=0.5, out=T.empty(2, 3)),
    lambda T, x, y: T.addcdiv(x, y, y, value=-2, out=T.empty(2, 3)),
    lambda T, x, y: T.square(x, out=T.empty(2, 3)),
    lambda T, x, y: T.nan_to_num(x.log(), -1.0, out=T.empty(2, 3)),
], ids=["add", "add-alpha", "sub", "mul", "div", "div-floor", "pow", "exp", "sqrt", "matmul", "mm", "bmm", "cat",
        "cat-dim1", "stack", "sum-dim", "sum-keepdim", "mean-dim", "maximum", "tanh", "lerp", "lerp-tensor", "addcmul",
        "addcdiv", "square", "nan_to_num"])
def test_out_holds_the_result_and_is_returned(call) -> None:
    (mx, tx), (my, ty) = _both([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]]), _both([[2.0, 1.0, 0.25], [3.0, 2.0, 1.0]])
    m_out, t_out = call(mg, mx, my), call(torch, tx, ty)
    np.testing.assert_allclose(m_out.numpy(), t_out.numpy(), rtol=1e-6)  # exp and tanh: to PyTorch's libm's ulp
    assert m_out._version == t_out._version == 1
    plain = call(_WithoutOut(mg), mx, my)  # the same call without out=: the same bits
    assert m_out.dtype == plain.dtype and (m_out.numpy() == plain.numpy()).all()


class _WithoutOut:
    """The namespace ``T`` with ``out=`` dropped from every call, to compare a call with its out= form."""

    def __init__(self, namespace):
        self._ns = namespace

    def empty(self, *size):
        return None

    def __getattr__(self, name):
        fn = getattr(self._ns, name)
        return lambda *a, out=None, **k: fn(*a, **k)


def test_out_is_written_in_place_and_returned() -> None:
    r = mg.zeros(2, 3)
    alias = r.view(6)
    got = mg.add(mg.ones(2, 3), 2.0, out=r)
    assert got is r and alias.tolist() == [3.0] * 6 and r._version == alias._version == 1
    view = mg.zeros(4, 3)[1:3]  # a view of the right shape: written through
    base = view._base
    mg.mul(mg.ones(2, 3), 5.0, out=view)
    assert base.tolist() == [[0.0] * 3, [5.0] * 3, [5.0] * 3, [0.0] * 3]


def test_an_out_of_another_shape_is_resized_with_pytorchs_warning() -> None:
    m_out, t_out = mg.empty(3), torch.empty(3)
    with pytest.warns(UserWarning) as m_w:
        mg.add(mg.ones(2, 2), mg.ones(2, 2), out=m_out)
    with pytest.warns(UserWarning) as t_w:
        torch.add(torch.ones(2, 2), torch.ones(2, 2), out=t_out)
    assert str(m_w[0].message) == str(t_w[0].message).split(" (Triggered internally")[0]
    assert m_out.shape == (2, 2) and m_out.tolist() == t_out.tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out is resized silently
        assert mg.exp(mg.zeros(2), out=mg.empty(0)).tolist() == [1.0, 1.0]


def test_the_result_dtype_must_cast_to_outs() -> None:
    for m_args, t_args in (((mg.ones(2), mg.ones(2)), (torch.ones(2), torch.ones(2))),):
        with pytest.raises(RuntimeError) as m_e:
            mg.add(*m_args, out=mg.zeros(2, dtype=mg.int64))
        with pytest.raises(RuntimeError) as t_e:
            torch.add(*t_args, out=torch.zeros(2, dtype=torch.int64))
        assert str(m_e.value) == str(t_e.value)
    with pytest.raises(RuntimeError) as m_e:
        mg.add(mg.tensor([1, 2]), 1, out=mg.zeros(2, dtype=mg.bool))
    with pytest.raises(RuntimeError) as t_e:
        torch.add(torch.tensor([1, 2]), 1, out=torch.zeros(2, dtype=torch.bool))
    assert str(m_e.value) == str(t_e.value)
    m_out = mg.add(mg.tensor([1, 2]), mg.tensor([3, 4]), out=mg.zeros(2, dtype=mg.float64))
    t_out = torch.add(torch.tensor([1, 2]), torch.tensor([3, 4]), out=torch.zeros(2, dtype=torch.float64))
    assert m_out.dtype == mg.float64 and m_out.tolist() == t_out.tolist()
    assert mg.eq(mg.ones(2), mg.ones(2), out=mg.zeros(2)).tolist() == [1.0, 1.0]


def test_out_with_autograd_is_refused_in_pytorchs_words() -> None:
    x, tx = mg.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    for m_call, t_call in ((lambda: mg.mul(x, 2.0, out=mg.zeros(2)), lambda: torch.mul(tx, 2.0, out=torch.zeros(2))),
                           (lambda: mg.exp(mg.ones(2), out=mg.zeros(2, requires_grad=True)),
                            lambda: torch.exp(torch.ones(2), out=torch.zeros(2, requires_grad=True)))):
        with pytest.raises(RuntimeError) as m_e:
            m_call()
        with pytest.raises(RuntimeError) as t_e:
            t_call()
        assert str(m_e.value) == str(t_e.value)
    with mg.no_grad():  # outside grad mode nothing is recorded, so out= is allowed
        out = mg.zeros(2, requires_grad=True)
        assert mg.mul(x, 2.0, out=out).tolist() == [2.0, 2.0] and out.grad_fn is None


def test_a_refused_out_call_changes_nothing_and_records_nothing() -> None:
    x, y = mg.ones(2, requires_grad=True), mg.ones(2)
    out, head, tail = mg.zeros(2), y[:1], y[1:]
    with mg.trace() as tr:
        with pytest.raises(RuntimeError):
            mg.mul(x, 2.0, out=out)
        with pytest.raises(TypeError) as m_e:
            mg.add(y, y, out=[1.0])
        with pytest.raises(RuntimeError):
            mg.add(y, head, out=tail)
    assert tr.events == [] and out.tolist() == [0.0, 0.0] and out._version == 0 and y.tolist() == [1.0, 1.0]
    with pytest.raises(TypeError) as t_e:
        torch.add(torch.ones(2), torch.ones(2), out=[1.0])
    assert str(m_e.value) == str(t_e.value)


def test_an_out_that_partly_overlaps_an_input_is_refused() -> None:
    y, ty = mg.ones(2, 2), torch.ones(2, 2)
    with pytest.raises(RuntimeError) as m_e:
        mg.add(y, y[0], out=y[0])
    with pytest.raises(RuntimeError) as t_e:
        torch.add(ty, ty[0], out=ty[0])
    assert str(m_e.value) == str(t_e.value) and y.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert mg.exp(y, out=y) is y and np.allclose(y.numpy(), np.e)  # the same elements exactly: allowed


def test_functions_pytorch_gives_no_out_refuse_it() -> None:
    for fn in (lambda: mg.relu(mg.ones(2), out=mg.zeros(2)), lambda: mg.reshape(mg.ones(2), (2, 1), out=mg.zeros(2, 1))):
        with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
            fn()
