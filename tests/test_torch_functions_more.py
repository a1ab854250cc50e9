"""torch.lstm / gru / rnn_tanh / rnn_relu on flat weights, and the other top-level names of torch_functions.py's
last wave (embedding_renorm_, native_norm, conv_tbc, as_strided_scatter, slice_inverse, angle, set_flush_denormal,
from_file, get_device_module, OutOfMemoryError), each compared with PyTorch by running both."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _pair(*shape, seed=0, grad=True, dtype="float64"):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return mg.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def _close(m, t, tol=1e-6):
    np.testing.assert_allclose(m.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


# -- the RNNs' functional forms --------------------------------------------------------------------------------

RNN_CASES = [  # (mode, torch module class, kwargs, dtype)
    ("lstm", "LSTM", dict(num_layers=2, bidirectional=True, batch_first=True), "float64"),
    ("lstm", "LSTM", dict(num_layers=1), "float32"),  # PyTorch's oneDNN layer: MkldnnRnnLayerBackward0
    ("lstm", "LSTM", dict(num_layers=2, proj_size=2, bias=False), "float64"),
    ("gru", "GRU", dict(num_layers=2, bidirectional=True, batch_first=True), "float64"),
    ("rnn_tanh", "RNN", dict(num_layers=2), "float64"),
    ("rnn_relu", "RNN", dict(num_layers=1, nonlinearity="relu", bidirectional=True, bias=False), "float64"),
]


def _rnn_pair(cls, kw, dtype):
    tm = getattr(torch.nn, cls)(3, 4, **kw).to(getattr(torch, dtype))
    mm = getattr(mg.nn, cls)(3, 4, **kw).to(getattr(mg, dtype))
    mm.load_state_dict({k: mg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return mm, tm


@pytest.mark.parametrize("fn, cls, kw, dtype", RNN_CASES)
def test_functional_rnn_matches_torch(fn, cls, kw, dtype):
    mm, tm = _rnn_pair(cls, kw, dtype)
    batch_first = kw.get("batch_first", False)
    xm, xt = _pair(*((2, 5, 3) if batch_first else (5, 2, 3)), dtype=dtype)
    d = 2 if kw.get("bidirectional") else 1
    layers = d * kw.get("num_layers", 1)
    hm, ht = _pair(layers, 2, kw.get("proj_size") or 4, seed=1, dtype=dtype)
    args = (kw.get("bias", True), kw.get("num_layers", 1), 0.0, False, kw.get("bidirectional", False), batch_first)
    if fn == "lstm":
        cm, ct = _pair(layers, 2, 4, seed=2, dtype=dtype)
        om, ot = mg.lstm(xm, (hm, cm), mm._flat_weights, *args), torch.lstm(xt, (ht, ct), tm._flat_weights, *args)
        assert len(om) == len(ot) == 3
    else:
        om, ot = getattr(mg, fn)(xm, hm, mm._flat_weights, *args), getattr(torch, fn)(xt, ht, tm._flat_weights, *args)
        assert len(om) == len(ot) == 2
    tol = 1e-5 if dtype == "float32" else 1e-10
    for a, b in zip(om, ot):
        _close(a, b, tol)
        assert a.grad_fn.name() == b.grad_fn.name()
    sum(o.sum() * (i + 1) for i, o in enumerate(om)).backward()
    sum(o.sum() * (i + 1) for i, o in enumerate(ot)).backward()
    _close(xm.grad, xt.grad, tol)
    _close(hm.grad, ht.grad, tol)
    for pm, pt in zip(mm._flat_weights, tm._flat_weights):
        _close(pm.grad, pt.grad, tol)


def test_functional_rnn_dropout_draws_match_torch():
    mm, tm = _rnn_pair("GRU", dict(num_layers=3), "float64")
    xm, xt = _pair(5, 2, 3)
    hm, ht = _pair(3, 2, 4, seed=1)
    mg.manual_seed(7)
    torch.manual_seed(7)
    om, _ = mg.gru(xm, hm, mm._flat_weights, True, 3, 0.5, True, False, False)
    ot, _ = torch.gru(xt, ht, tm._flat_weights, True, 3, 0.5, True, False, False)
    _close(om, ot, 1e-10)


def test_functional_rnn_is_what_the_module_runs():
    mm, _ = _rnn_pair("RNN", dict(num_layers=2), "float64")
    x = mg.randn(4, 2, 3, dtype=mg.float64)
    h = mg.zeros(2, 2, 4, dtype=mg.float64)
    out, hn = mm(x, h)
    out2, hn2 = mg.rnn_tanh(x, h, mm._flat_weights, True, 2, 0.0, False, False, False)
    assert mg.equal(out, out2) and mg.equal(hn, hn2)


def _rnn_error(lib, call):
    with pytest.raises(Exception) as info:
        call(lib)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("call", [
    lambda L: L.rnn_tanh(L.randn(5, 2, 3), L.zeros(2, 2, 4), L.nn.RNN(3, 4, 2)._flat_weights[:4], True, 2, 0.0, False,
                         False, False),
    lambda L: L.rnn_tanh(L.randn(5, 2, 3), L.zeros(3, 2, 4), L.nn.RNN(3, 4, 2)._flat_weights, True, 2, 0.0, False,
                         False, False),
    lambda L: L.gru(L.randn(5, 2, 3), L.zeros(1, 2, 4), L.nn.GRU(3, 4)._flat_weights[:3], True, 1, 0.0, False, False,
                    False),
    lambda L: L.rnn_relu(L.randn(0, 2, 3), L.zeros(1, 2, 4), L.nn.RNN(3, 4)._flat_weights, True, 1, 0.0, False, False,
                         False),
    lambda L: L.rnn_tanh(L.randn(5, 2, 3), L.zeros(2, 2, 4), L.nn.RNN(3, 4, 2)._flat_weights, False, 2, 0.0, False,
                         False, False),
])
def test_functional_rnn_refusals_match_torch(call):
    assert _rnn_error(mg, call) == _rnn_error(torch, call)


def test_packed_overload_runs_the_packed_layer():
    """``torch.lstm(data, batch_sizes, hx, params, ...)`` is what ``nn.LSTM`` runs on a PackedSequence (the values
    against PyTorch's: tests/test_packed_sequence.py)."""
    lstm = mg.nn.LSTM(3, 4)
    packed = mg.nn.utils.rnn.pack_padded_sequence(mg.randn(3, 2, 3), [3, 2])
    out, h, c = mg.lstm(packed.data, packed.batch_sizes, (mg.zeros(1, 2, 4), mg.zeros(1, 2, 4)), lstm._flat_weights,
                        True, 1, 0.0, False, False)
    ref, (h_ref, c_ref) = lstm(packed)
    assert out.shape == (5, 4) and out.tolist() == ref.data.tolist() and h.tolist() == h_ref.tolist()
    assert c.tolist() == c_ref.tolist()


# -- embedding_renorm_, native_norm --------------------------------------------------------------------------------

@pytest.mark.parametrize("indices, norm_type", [([[0, 1], [1, 4]], 2.0), ([0, 2], 1.0), ([-1, -5], 3.0), ([], 2.0)])
def test_embedding_renorm_matches_torch(indices, norm_type):
    wm, wt = _pair(5, 3, grad=False, dtype="float32")
    wm.mul_(3)
    wt.mul_(3)
    rm = mg.embedding_renorm_(wm, mg.tensor(indices, dtype=mg.int64), 1.0, norm_type)
    rt = torch.embedding_renorm_(wt, torch.tensor(indices, dtype=torch.int64), 1.0, norm_type)
    assert rm is wm and rt is wt
    _close(wm, wt)


@pytest.mark.parametrize("weight, indices", [
    (lambda L: L.randn(5, 3, requires_grad=True), lambda L: L.tensor([0])),
    (lambda L: L.randn(5, 3), lambda L: L.tensor([0.0])),
    (lambda L: L.randn(5, 3), lambda L: L.tensor([0], dtype=L.int16)),
    (lambda L: L.randn(5), lambda L: L.tensor([0])),
    (lambda L: L.randn(5, 3), lambda L: L.tensor([7])),
    (lambda L: L.randn(5, 3), lambda L: L.tensor([-6])),
    (lambda L: L.arange(6).reshape(2, 3), lambda L: L.tensor([0])),
])
def test_embedding_renorm_refusals_match_torch(weight, indices):
    def call(L):
        return L.embedding_renorm_(weight(L), indices(L), 1.0, 2.0)
    cls_m, msg_m = _rnn_error(mg, call)
    cls_t, msg_t = _rnn_error(torch, call)
    assert cls_m is cls_t and msg_m.replace("minigrad.", "torch.") == msg_t


def test_native_norm_refuses_dense_tensors_as_torch():
    with pytest.raises(NotImplementedError) as t_info:
        torch.native_norm(torch.randn(3))
    with pytest.raises(NotImplementedError) as m_info:
        mg.native_norm(mg.randn(3))
    head = "Could not run 'aten::native_norm' with arguments from the 'CPU' backend."
    assert str(t_info.value).startswith(head) and str(m_info.value).startswith(head)
    with pytest.raises(NotImplementedError):
        mg.native_norm(mg.randn(3, 4), 2, [1], False, None)


# -- conv_tbc ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("t, k, pad", [(5, 3, 0), (5, 3, 1), (5, 3, -1), (4, 5, 1), (6, 1, 2)])
def test_conv_tbc_matches_torch(t, k, pad):
    im, it = _pair(t, 2, 3)
    wm, wt = _pair(k, 3, 4, seed=1)
    bm, bt = _pair(4, seed=2)
    om, ot = mg.conv_tbc(im, wm, bm, pad), torch.conv_tbc(it, wt, bt, pad)
    assert tuple(om.shape) == tuple(ot.shape)
    _close(om, ot, 1e-10)
    gm, gt = _pair(*ot.shape, seed=3, grad=False)
    om.backward(gm)
    ot.backward(gt)
    for a, b in ((im, it), (wm, wt), (bm, bt)):
        _close(a.grad, b.grad, 1e-10)
    assert mg.nn.functional.conv_tbc is mg.conv_tbc


@pytest.mark.parametrize("args", [
    lambda L: (L.randn(5, 2, 3), L.randn(3, 3, 4), None),
    lambda L: (L.randn(5, 2, 3), L.randn(3, 3, 4), L.randn(3)),
    lambda L: (L.randn(5, 2, 3), L.randn(3, 2, 4), L.randn(4)),
    lambda L: (L.randn(2, 3), L.randn(3, 3, 4), L.randn(4)),
    lambda L: (L.randn(5, 2, 3), L.randn(3, 4), L.randn(4)),
    lambda L: (L.randn(5, 2, 3), L.randn(9, 3, 4), L.randn(4)),
    lambda L: (L.randn(5, 2, 3), L.randn(3, 3, 4, dtype=L.float64), L.randn(4)),
])
def test_conv_tbc_refusals_match_torch(args):
    assert _rnn_error(mg, lambda L: L.conv_tbc(*args(L))) == _rnn_error(torch, lambda L: L.conv_tbc(*args(L)))


# -- as_strided_scatter, slice_inverse ------------------------------------------------------------------------------

@pytest.mark.parametrize("size, stride, offset", [((2, 2), (1, 2), 1), ((2, 2), (1, 2), None), ((3,), (4,), 0)])
def test_as_strided_scatter_matches_torch(size, stride, offset):
    xm, xt = _pair(3, 4)
    sm, st = _pair(*size, seed=1)
    ym, yt = mg.as_strided_scatter(xm, sm, size, stride, offset), torch.as_strided_scatter(xt, st, size, stride, offset)
    _close(ym, yt, 0)
    gm, gt = _pair(3, 4, seed=2, grad=False)
    ym.backward(gm)
    yt.backward(gt)
    _close(sm.grad, st.grad, 0)
    # PyTorch 2.13's AsStridedScatterBackward0 gives ``input`` the gradient *inside* the slice (it fails
    # torch.autograd.gradcheck); the true one, outside it, is what PyTorch's own clone + as_strided + copy_ gives.
    xt2 = xt.detach().requires_grad_()
    yt2 = xt2.clone()
    yt2.as_strided(size, stride, offset).copy_(st.detach())
    yt2.backward(gt)
    _close(xm.grad, xt2.grad, 0)
    _close(xm.detach().as_strided_scatter(sm.detach(), size, stride), xt.detach().as_strided_scatter(st.detach(), size, stride), 0)


def test_as_strided_scatter_keeps_a_transposed_layout_as_torch():
    x = np.arange(12.0).reshape(3, 4)
    ym = mg.as_strided_scatter(mg.tensor(x).t(), mg.zeros(2, 2, dtype=mg.float64), (2, 2), (1, 2), 1)
    yt = torch.as_strided_scatter(torch.tensor(x).t(), torch.zeros(2, 2, dtype=torch.float64), (2, 2), (1, 2), 1)
    _close(ym, yt, 0)


@pytest.mark.parametrize("size, stride, offset, src", [((2, 2), (1, 2), 0, (3, 3)), ((4, 4), (4, 1), 0, (2, 2)),
                                                       ((2, 2), (1, 2), -1, (2, 2)), ((2, 2), (-1, 2), 3, (2, 2))])
def test_as_strided_scatter_refusals_match_torch(size, stride, offset, src):
    def call(L):
        return L.as_strided_scatter(L.zeros(3, 4), L.zeros(*src), size, stride, offset)
    assert _rnn_error(mg, call) == _rnn_error(torch, call)


def test_slice_inverse_matches_torch():
    bm, bt = _pair(10)
    bm, bt = bm.clone(), bt.clone()
    rm = mg.slice_inverse(bm[2:8:2], mg.zeros(10), 0, 2, 8, 2)
    rt = torch.slice_inverse(bt[2:8:2], torch.zeros(10), 0, 2, 8, 2)
    assert rm._base is bm and rt._base is bt
    assert (tuple(rm.shape), rm.stride(), rm.storage_offset()) == (tuple(rt.shape), rt.stride(), rt.storage_offset())
    _close(rm, rt, 0)
    call = lambda L: L.slice_inverse(L.zeros(3), L.zeros(6).reshape(2, 3).t(), 0)  # noqa: E731
    assert _rnn_error(mg, call) == _rnn_error(torch, call)


# -- angle -----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("values, dtype", [([-2.0, 0.0, -0.0, 3.0, math.nan, -math.inf, math.inf], "float64"),
                                           ([-1.0, 2.0], "float16"), ([-1, 0, 2], "int64"), ([True, False], "bool")])
def test_angle_matches_torch(values, dtype):
    tm, tt = mg.tensor(values, dtype=getattr(mg, dtype)), torch.tensor(values, dtype=getattr(torch, dtype))
    am, at = mg.angle(tm), torch.angle(tt)
    assert str(am.dtype).split(".")[-1] == str(at.dtype).split(".")[-1]
    np.testing.assert_array_equal(am.numpy(), at.numpy())
    np.testing.assert_array_equal(tm.angle().numpy(), tt.angle().numpy())


def test_angle_gradient_is_zero_as_torch():
    values = [-2.0, 0.0, 3.0, math.nan, -math.inf]
    xm, xt = mg.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    mg.angle(xm).sum().backward()
    torch.angle(xt).sum().backward()
    np.testing.assert_array_equal(xm.grad.numpy(), xt.grad.numpy())


# -- utilities -------------------------------------------------------------------------------------------------------

def test_set_flush_denormal_answers_and_flushes_as_torch():
    try:
        assert mg.set_flush_denormal(False) == torch.set_flush_denormal(False)
        tiny = np.array([1e-310])
        if mg.set_flush_denormal(True):
            assert float((mg.tensor(tiny) * 1.0).item()) == 0.0
        mg.set_flush_denormal(False)
        assert float((mg.tensor(tiny) * 1.0).item()) == 1e-310
    finally:
        mg.set_flush_denormal(False)
        torch.set_flush_denormal(False)


def test_from_file_matches_torch(tmp_path):
    path = str(tmp_path / "data.bin")
    np.arange(6, dtype=np.float32).tofile(path)
    for kw in (dict(size=6), dict(shared=False, size=4), dict(size=3, dtype="float64"), dict()):
        mk = {k: getattr(mg, v) if k == "dtype" else v for k, v in kw.items()}
        tk = {k: getattr(torch, v) if k == "dtype" else v for k, v in kw.items()}
        np.testing.assert_array_equal(mg.from_file(path, **mk).numpy(), torch.from_file(path, **tk).numpy())
    private = mg.from_file(path, shared=False, size=6)
    private[0] = 100.0
    assert np.fromfile(path, dtype=np.float32)[0] == 0.0
    shared = mg.from_file(path, shared=True, size=6)
    shared[0] = 100.0
    shared._data.flush()
    assert np.fromfile(path, dtype=np.float32)[0] == 100.0
    new_m, new_t = str(tmp_path / "m.bin"), str(tmp_path / "t.bin")
    mg.from_file(new_m, shared=True, size=4)
    torch.from_file(new_t, shared=True, size=4)
    assert (tmp_path / "m.bin").stat().st_size == (tmp_path / "t.bin").stat().st_size
    for args, kw in (((path,), dict(size=7)), ((str(tmp_path / "missing.bin"),), dict(size=2))):
        assert _rnn_error(mg, lambda L: L.from_file(*args, **kw)) == _rnn_error(torch, lambda L: L.from_file(*args, **kw))


def test_get_device_module_and_out_of_memory_error():
    assert mg.get_device_module("cuda") is mg.cuda
    assert mg.get_device_module("cuda:0") is mg.cuda
    cpu = mg.get_device_module("cpu")
    assert (cpu.is_available(), cpu.device_count(), cpu.current_device()) == (
        torch.cpu.is_available(), torch.cpu.device_count(), torch.cpu.current_device())
    expected = torch.get_device_module() is torch.cuda
    assert (mg.get_device_module() is mg.cuda) == (expected and mg.cuda.is_available())
    for bad in ("foo", 3):
        assert _rnn_error(mg, lambda L: L.get_device_module(bad)) == _rnn_error(torch, lambda L: L.get_device_module(bad))
    assert issubclass(mg.OutOfMemoryError, RuntimeError)
    assert mg.OutOfMemoryError is mg.cuda.OutOfMemoryError
    assert [c.__name__ for c in mg.OutOfMemoryError.__mro__] == [c.__name__ for c in torch.OutOfMemoryError.__mro__]
