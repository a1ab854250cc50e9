"""AMP (the AMP block of Paddle's generated dygraph functions): autocast levels, the allow/deny lists, amp.cast events, gradients to float32 leaves."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad.dispatch.amp import ALLOW_LIST, DENY_LIST, amp_dest_dtype
from minigrad.dispatch.amp_state import AMP

from _toy import events

F16, F32, F64 = mg.float16, mg.float32, mg.float64


def _casts(tr):
    return [(e["op"], e["from_dtype"], e["to_dtype"]) for e in events(tr, "amp.cast")]


def test_lists_cover_the_issue_ops():
    assert {"matmul", "conv2d"} <= ALLOW_LIST
    assert {"exp", "log", "softmax", "log_softmax", "cross_entropy", "sum", "mean"} <= DENY_LIST
    assert not ALLOW_LIST & DENY_LIST


def test_o1_allow_list_casts_float32_inputs_to_float16():
    x, w = mg.randn(2, 4), mg.randn(4, 3)
    with mg.trace() as tr, mg.autocast(level="O1"):
        y = x @ w
    assert y.dtype == F16
    assert [(e["op"], e["tensor"], e["from_dtype"], e["to_dtype"]) for e in events(tr, "amp.cast")] == [
        ("matmul", x.id, "float32", "float16"),
        ("matmul", w.id, "float32", "float16"),
    ]
    # each cast is a real op (api.call for cast) right after its amp.cast
    kinds = [(e.kind, getattr(e, "op", None)) for e in tr.events]
    i = kinds.index(("amp.cast", "matmul"))
    assert kinds[i + 1] == ("api.call", "cast")
    np.testing.assert_allclose(y.numpy(), x.numpy() @ w.numpy(), rtol=2e-2, atol=2e-2)


def test_o1_deny_list_casts_float16_to_float32():
    x = mg.randn(3, 4, dtype=F16)
    with mg.trace() as tr, mg.autocast("O1"):
        s = x.sum()
        e = x.exp()
        p = mg.softmax(x, dim=1)
    assert (s.dtype, e.dtype, p.dtype) == (F32, F32, F32)
    assert _casts(tr) == [("sum", "float16", "float32"), ("exp", "float16", "float32"), ("softmax", "float16", "float32")]


def test_o1_other_ops_follow_their_inputs():
    h = mg.randn(3, dtype=F16)
    f = mg.randn(3)
    with mg.trace() as tr, mg.autocast("O1"):
        a = h + h  # all float16: stays float16, no cast
        b = h + f  # float32 wins: the float16 operand is cast up
        c = f.relu()  # float32 stays
    assert (a.dtype, b.dtype, c.dtype) == (F16, F32, F32)
    assert _casts(tr) == [("add", "float16", "float32")]


def test_o2_casts_almost_everything_to_float16():
    f = mg.randn(3)
    with mg.trace() as tr, mg.autocast("O2"):
        r = f.relu()
        t = f.tanh()
        s = r.sum()
    assert (r.dtype, t.dtype, s.dtype) == (F16, F16, F32)
    assert _casts(tr) == [("relu", "float32", "float16"), ("tanh", "float32", "float16"), ("sum", "float16", "float32")]


def test_float64_integer_and_bool_inputs_are_not_cast():
    d = mg.randn(2, 2, dtype=F64)
    logits = mg.randn(4, 3)
    target = mg.tensor([0, 2, 1, 0])
    with mg.trace() as tr, mg.autocast("O2"):
        y = d @ d
        loss = mg.cross_entropy(logits, target)
    assert y.dtype == F64 and loss.dtype == F32
    assert _casts(tr) == []  # logits already float32 (deny list), target int64


def test_gradients_flow_back_to_float32_leaves():
    mg.manual_seed(0)
    x = mg.randn(4, 5, requires_grad=True)
    w = mg.randn(5, 3, requires_grad=True)
    target = mg.tensor([0, 2, 1, 1])
    with mg.autocast("O1"):
        logits = x @ w  # float16
        loss = mg.cross_entropy(logits, target)  # float32
    assert logits.dtype == F16 and loss.dtype == F32
    loss.backward()
    assert x.grad.dtype == F32 and w.grad.dtype == F32
    # Same maths in float32 without autocast, within float16 precision.
    x2 = mg.tensor(x.detach().numpy(), requires_grad=True)
    w2 = mg.tensor(w.detach().numpy(), requires_grad=True)
    mg.cross_entropy(x2 @ w2, target).backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=2e-2, atol=2e-3)
    np.testing.assert_allclose(w.grad.numpy(), w2.grad.numpy(), rtol=2e-2, atol=2e-3)


def test_cast_nodes_are_in_the_graph():
    w = mg.randn(2, 2, requires_grad=True)
    with mg.autocast("O1"):
        y = w @ w
    node = y.grad_fn
    assert node.name() == "MmBackward0"
    nexts = [e.node.name() for row in node.next_edges for e in row]
    assert nexts == ["ToCopyBackward0", "ToCopyBackward0"]


def test_inputs_already_in_destination_dtype_are_not_cast():
    x = mg.randn(2, 2, dtype=F16)
    with mg.trace() as tr, mg.autocast("O1"):
        x @ x
    assert _casts(tr) == []


def test_context_restores_state_and_nests():
    assert AMP.level == 0
    with mg.autocast("O2"):
        assert AMP.level == 2
        with mg.autocast("O0"):
            assert AMP.level == 0
            assert (mg.randn(2) @ mg.randn(2)).dtype == F32
        with mg.autocast("O1", enabled=False):
            assert AMP.level == 2
        assert AMP.level == 2
    assert AMP.level == 0
    with pytest.raises(RuntimeError):
        with mg.autocast("O1"):
            raise RuntimeError("boom")
    assert AMP.level == 0


def test_decorator_form():
    @mg.autocast("O1")
    def f(a, b):
        return a @ b

    assert f(mg.randn(2, 2), mg.randn(2, 2)).dtype == F16
    assert AMP.level == 0


def test_bad_arguments():
    with pytest.raises(ValueError, match="'O0', 'O1', 'O2'"):
        mg.autocast("O3")
    with pytest.raises(ValueError, match="float16"):
        mg.autocast("O1", dtype=mg.float64)
    with pytest.raises(TypeError, match="enabled"):
        mg.autocast("O1", enabled="yes")


def test_amp_dest_dtype_table():
    f, h = mg.randn(1), mg.randn(1, dtype=F16)
    assert amp_dest_dtype("matmul", [f, f], 1, F16) is F16
    assert amp_dest_dtype("sum", [h], 2, F16) is F32
    assert amp_dest_dtype("add", [h, f], 1, F16) is F32
    assert amp_dest_dtype("add", [h, h], 1, F16) is F16
    assert amp_dest_dtype("add", [f, f], 2, F16) is F16
    assert amp_dest_dtype("cast", [f], 2, F16) is None


def test_no_amp_events_outside_autocast():
    with mg.trace() as tr:
        mg.randn(2, 2) @ mg.randn(2, 2)
    assert events(tr, "amp.cast") == []
