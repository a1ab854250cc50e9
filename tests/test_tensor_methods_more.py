"""The rest of ``torch.Tensor``'s surface (``minigrad/_tensor_methods_more.py``), each compared with PyTorch:
values, dtypes, identity of the result, version counter, grad_fn names, and errors and warnings in its words."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.storage as storage_module

torch = pytest.importorskip("torch")


def _pair(values, **kw):
    return mg.tensor(values, **kw), torch.tensor(values, **{k: v for k, v in kw.items() if k != "dtype"})


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type and words are what is compared
        return type(exc).__name__, str(exc)
    return None


def _same_error(mg_fn, torch_fn):
    """Both refuse, in the same words, with minigrad's error of PyTorch's class (or a subclass: ``ShapeError``
    is a RuntimeError)."""
    try:
        torch_fn()
    except Exception as exc:  # noqa: BLE001
        want = exc
    else:
        raise AssertionError("PyTorch accepted the call")
    with pytest.raises(type(want)) as got:
        mg_fn()
    assert str(got.value) == str(want)


# -- resize_ ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sizes", [(3, 2), ((3, 2),), ([6],), (2,), (4,), (1, 1), (0,)])
def test_resize_in_storage_reads_the_storage_row_major(sizes):
    m, t = mg.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    assert m.resize_(*sizes) is m and t.resize_(*sizes) is t
    assert m.tolist() == t.tolist() and tuple(m.stride()) == t.stride()
    assert m._version == t._version == 1


def test_resize_to_the_same_sizes_changes_nothing():
    m, t = mg.arange(6.0).reshape(2, 3).t(), torch.arange(6.0).reshape(2, 3).t()
    m.resize_(3, 2), t.resize_(3, 2)
    assert tuple(m.stride()) == t.stride() == (1, 3) and m._version == t._version == 0


def test_resize_of_a_transposed_tensor_reads_its_storage_in_order():
    m, t = mg.arange(6.0).reshape(2, 3).t(), torch.arange(6.0).reshape(2, 3).t()
    assert m.resize_(2, 3).tolist() == t.resize_(2, 3).tolist() and tuple(m.stride()) == t.stride()
    assert m._version == t._version == 1


def test_resize_grows_the_storage_keeping_the_old_values_first():
    m, t = mg.arange(6.0), torch.arange(6.0)
    m.resize_(2), t.resize_(2)
    assert m.untyped_storage().nbytes() == t.untyped_storage().nbytes() == 24  # shrinking keeps the storage
    assert m.resize_(6).tolist() == t.resize_(6).tolist()
    m.resize_(8), t.resize_(8)
    assert m[:6].tolist() == t[:6].tolist() and tuple(m.shape) == tuple(t.shape)
    assert m.untyped_storage().nbytes() == t.untyped_storage().nbytes() == 32
    assert m._version == t._version == 3


def test_resize_of_a_view_grows_its_base_storage():
    mb, tb = mg.arange(6.0), torch.arange(6.0)
    mv, tv = mb[2:4], tb[2:4]
    mv.resize_(5), tv.resize_(5)
    assert mv[:4].tolist() == tv[:4].tolist() and mb.tolist() == tb.tolist()
    assert mv._base is mb and mv.storage_offset() == tv.storage_offset() == 2
    assert mb.untyped_storage().nbytes() == tb.untyped_storage().nbytes() == 28
    assert mb.untyped_storage().data_ptr() == mv.untyped_storage().data_ptr()
    assert (mv._version, mb._version) == (tv._version, tb._version) == (1, 1)
    mb[3] = 9.0
    tb[3] = 9.0
    assert mv[:4].tolist() == tv[:4].tolist()  # still one storage


def test_views_of_a_resized_base_keep_their_place():
    mb, tb = mg.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    mv, tv = mb[1], tb[1]
    mb.resize_(3, 2), tb.resize_(3, 2)
    mb[2, 1] = 100.0
    tb[2, 1] = 100.0
    assert mv.tolist() == tv.tolist() == [3.0, 4.0, 100.0]
    mv, tv = mb[1:2].view(2), tb[1:2].view(2)
    mb.resize_(10), tb.resize_(10)
    assert mv.tolist() == tv.tolist() and mv.untyped_storage().nbytes() == tv.untyped_storage().nbytes() == 40


def test_resize_channels_last():
    m, t = mg.arange(24.0).resize_(1, 2, 3, 4, memory_format=mg.channels_last), torch.arange(24.0).resize_(
        1, 2, 3, 4, memory_format=torch.channels_last)
    assert tuple(m.stride()) == t.stride() == (24, 1, 8, 2)


@pytest.mark.parametrize("call", [
    lambda lib: lib.ones(2, requires_grad=True).resize_(2),
    lambda lib: (lib.ones(2, requires_grad=True) * 2).resize_(3),
    lambda lib: lib.ones(6, requires_grad=True).resize_as_(lib.zeros(3, 2)),
    lambda lib: lib.arange(6.0).resize_(-1),
    lambda lib: lib.arange(6.0).resize_(2, -1),
    lambda lib: lib.arange(6.0).resize_(2.0),
    lambda lib: lib.arange(6.0).resize_("a"),
    lambda lib: lib.arange(6.0).resize_(),
    lambda lib: lib.arange(6.0).resize_(2, 3, memory_format=lib.channels_last),
    lambda lib: lib.arange(6.0).resize_(2, 3, memory_format=lib.preserve_format),
    lambda lib: lib.arange(6.0).resize_as_(3),
])
def test_resize_refusals(call):
    _same_error(lambda: call(mg), lambda: call(torch))


def test_resize_refusal_holds_under_no_grad():
    with mg.no_grad(), torch.no_grad():
        _same_error(lambda: mg.ones(2, requires_grad=True).resize_(3),
                    lambda: torch.ones(2, requires_grad=True).resize_(3))


def test_resize_as_takes_the_template_shape_only():
    m, t = mg.arange(6.0), torch.arange(6.0)
    assert m.resize_as_(mg.zeros(3, 2, dtype=mg.int64)) is m
    t.resize_as_(torch.zeros(3, 2, dtype=torch.int64))
    assert m.tolist() == t.tolist() and m.dtype == mg.float32 and m._version == t._version == 1
    m, t = mg.arange(6.0), torch.arange(6.0)
    m.resize_as_(mg.zeros(3, 2).t()), t.resize_as_(torch.zeros(3, 2).t())
    assert tuple(m.stride()) == t.stride() == (3, 1)
    assert not mg.arange(6.0).resize_as_(mg.zeros(3, 2, requires_grad=True)).requires_grad


def test_deprecated_out_of_place_resize():
    m, t = mg.arange(6.0, requires_grad=True), torch.arange(6.0, requires_grad=True)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        mr = m.resize(2, 3)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        tr = t.resize(2, 3)
    assert mr.tolist() == tr.tolist() and mr.grad_fn.name() == tr.grad_fn.name() == "ResizeBackward"
    (mr * mg.arange(6.0).reshape(2, 3)).sum().backward()
    (tr * torch.arange(6.0).reshape(2, 3)).sum().backward()
    assert m.grad.tolist() == t.grad.tolist()
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert m.resize_as(mg.ones(3, 2)).shape == (3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_error(lambda: m.resize(4), lambda: t.resize(4))


# -- shared memory ------------------------------------------------------------------------------------------

def test_share_memory_marks_the_storage():
    m, t = mg.ones(2), torch.ones(2)
    assert m.is_shared() is t.is_shared() is False
    assert m.share_memory_() is m and t.share_memory_() is t
    for got, want in ((m, t), (m[0], t[0]), (m.detach(), t.detach())):
        assert got.is_shared() is want.is_shared() is True
    assert (m + 1).is_shared() is (t + 1).is_shared() is False
    assert m.untyped_storage().is_shared() is t.untyped_storage().is_shared() is True
    assert m._version == t._version == 0
    r = mg.ones(2, requires_grad=True)
    assert r.share_memory_().requires_grad
    assert m.resize_(1).shape == t.resize_(1).shape  # shrinking a shared storage is allowed


def test_a_view_shares_its_base_storage():
    m, t = mg.ones(4), torch.ones(4)
    m[1:].share_memory_(), t[1:].share_memory_()
    assert m.is_shared() and t.is_shared()


# -- layout questions ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda lib: lib.empty(2, 3), lambda lib: lib.empty(2, 3).t(), lambda lib: lib.empty(2, 1, 3),
    lambda lib: lib.empty(2, 3, 4, 5).permute(0, 2, 3, 1), lambda lib: lib.empty(2, 3, 4, 5).permute(3, 1, 0, 2),
    lambda lib: lib.empty(2, 3).expand(4, 2, 3), lambda lib: lib.tensor(1.0), lambda lib: lib.empty(5),
    lambda lib: lib.empty(2, 3, 4, 5).transpose(1, 2), lambda lib: lib.empty(1, 2, 3, 4),
])
def test_dim_order(make):
    assert make(mg).dim_order() == make(torch).dim_order()
    got, want = _error(lambda: make(mg).dim_order(ambiguity_check=True)), _error(
        lambda: make(torch).dim_order(ambiguity_check=True))
    assert got == want
    assert _error(lambda: make(mg).dim_order(ambiguity_check=[mg.contiguous_format, mg.channels_last])) == _error(
        lambda: make(torch).dim_order(ambiguity_check=[torch.contiguous_format, torch.channels_last]))


@pytest.mark.parametrize("arg", ["x", [1], 1.0])
def test_dim_order_refuses_other_checks(arg):
    _same_error(lambda: mg.empty(2, 3).dim_order(ambiguity_check=arg),
                lambda: torch.empty(2, 3).dim_order(ambiguity_check=arg))


def test_is_set_to():
    m, t = mg.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    for f in (lambda x: x, lambda x: x.view(6), lambda x: x.detach(), lambda x: x[:], lambda x: x.clone(),
              lambda x: x[1:], lambda x: x.t()):
        assert m.is_set_to(f(m)) is t.is_set_to(f(t))
    _same_error(lambda: m.is_set_to(1), lambda: t.is_set_to(1))


def test_storage_type_is_the_legacy_class_with_the_warning():
    storage_module._warned = False  # the warning is given once per process, as PyTorch's
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        mg.ones(2).storage_type()
    for dt, name in ((mg.float32, "FloatStorage"), (mg.int64, "LongStorage"), (mg.bool_, "BoolStorage"),
                     (mg.float64, "DoubleStorage")):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cls = mg.ones(2, dtype=dt).storage_type()
        assert cls.__name__ == name == getattr(torch, name).__name__ and cls.dtype is dt
        assert issubclass(cls, mg.TypedStorage)


def test_const_data_ptr_and_to_dense():
    m = mg.arange(6.0)
    assert m.const_data_ptr() == m.data_ptr() == m[0:].const_data_ptr()
    r = mg.ones(2, requires_grad=True)
    assert m.to_dense() is m and r.to_dense() is r and m.to_dense(dtype=mg.float32) is m
    assert m.to_dense(masked_grad=True) is m
    d = m.to_dense(mg.float64)
    assert d.dtype == mg.float64 and d.tolist() == torch.arange(6.0).to_dense(torch.float64).tolist()


# -- composites ---------------------------------------------------------------------------------------------

def test_prelu_method():
    m, t = mg.arange(-3.0, 3.0).reshape(2, 3).requires_grad_(), torch.arange(-3.0, 3.0).reshape(2, 3).requires_grad_()
    mw, tw = mg.tensor([0.25, 0.5, 0.1]), torch.tensor([0.25, 0.5, 0.1])
    mo, to = m.prelu(mw), t.prelu(tw)
    assert np.allclose(mo.tolist(), to.tolist()) and mo.grad_fn.name() == to.grad_fn.name()
    assert m.detach().prelu(mg.tensor([0.25])).grad_fn is None


def test_narrow_copy():
    m, t = mg.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    for args in ((1, 1, 2), (1, -1, 1), (0, mg.tensor(1), 1)):
        targs = tuple(torch.tensor(a.item()) if isinstance(a, mg.Tensor) else a for a in args)
        got = m.narrow_copy(*args)
        assert got.tolist() == t.narrow_copy(*targs).tolist() and got.is_contiguous()
        assert got.untyped_storage().data_ptr() != m.untyped_storage().data_ptr()
    for args in ((1, 2, 2), (5, 0, 1), (2, 0, 1), (-3, 0, 1), (1, 0, -1), (1, 5, 1), (1, -5, 1), (1, 1.5, 1),
                 (1.0, 0, 1)):
        _same_error(lambda: m.narrow_copy(*args), lambda: t.narrow_copy(*args))
    _same_error(lambda: mg.tensor(1.0).narrow_copy(0, 0, 1), lambda: torch.tensor(1.0).narrow_copy(0, 0, 1))
    assert m.narrow_copy(1, 3, 0).shape == t.narrow_copy(1, 3, 0).shape
    r = mg.ones(2, 3, requires_grad=True)
    r.narrow_copy(1, 1, 2).sum().backward()
    assert r.grad.tolist() == [[0.0, 1.0, 1.0]] * 2


@pytest.mark.parametrize("values", [[[0.0, 1.0, 2.0], [3.0, 0.0, 5.0]], [0, 3, 0, 4], 2.0, 0.0, [[]]])
@pytest.mark.parametrize("size,fill", [(0, -1), (2, -1), (7, -1), (7, 9)])
def test_nonzero_static(values, size, fill):
    m, t = _pair(values)
    got, want = m.nonzero_static(size=size, fill_value=fill), t.nonzero_static(size=size, fill_value=fill)
    assert got.tolist() == want.tolist() and tuple(got.shape) == tuple(want.shape) and got.dtype == mg.int64


def test_nonzero_static_refusals():
    m, t = mg.ones(3), torch.ones(3)
    _same_error(lambda: m.nonzero_static(size=-1), lambda: t.nonzero_static(size=-1))
    assert _error(lambda: m.nonzero_static(3))[0] == "TypeError"
    assert mg.ones(2, requires_grad=True).nonzero_static(size=1).tolist() == [[0]]


def test_map2_():
    m, t = mg.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    v = m._version
    assert m.map2_(m, m, lambda a, b, c: a + b + c) is m
    t.map2_(t, t, lambda a, b, c: a + b + c)
    assert m.tolist() == t.tolist() and m._version - v == t._version == 0
    m.map2_(mg.ones(3), mg.ones(1), lambda a, b, c: a * b + c)
    t.map2_(torch.ones(3), torch.ones(1), lambda a, b, c: a * b + c)
    assert m.tolist() == t.tolist()
    _same_error(lambda: m.map2_(mg.ones(4), mg.ones(1), lambda a, b, c: a),
                lambda: t.map2_(torch.ones(4), torch.ones(1), lambda a, b, c: a))
    _same_error(lambda: mg.ones(2, requires_grad=True).map2_(mg.ones(2), mg.ones(2), lambda a, b, c: a),
                lambda: torch.ones(2, requires_grad=True).map2_(torch.ones(2), torch.ones(2), lambda a, b, c: a))
    _same_error(lambda: m.map2_(1, m, lambda a, b, c: a), lambda: t.map2_(1, t, lambda a, b, c: a))
    mi = mg.ones(3, dtype=mg.int64)
    mi.map2_(mi, mi, lambda a, b, c: a + b + c + 0.5)
    assert mi.tolist() == [3, 3, 3] and mi.dtype == mg.int64


class _Sub(mg.Tensor):
    pass


class _TSub(torch.Tensor):
    pass


def test_as_subclass_is_an_alias_view():
    m, t = mg.ones(2), torch.ones(2)
    ms, ts = m.as_subclass(_Sub), t.as_subclass(_TSub)
    assert type(ms) is _Sub and ms._base is m and ts._base is t
    assert ms.data_ptr() == m.data_ptr()
    ms.add_(1), ts.add_(1)
    assert m.tolist() == t.tolist() and m._version == t._version == 1
    assert m.as_subclass(mg.Tensor) is not m and m.as_subclass(mg.Tensor)._base is m
    r, tr = mg.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    rs, trs = r.as_subclass(_Sub), tr.as_subclass(_TSub)
    assert rs.grad_fn.name() == trs.grad_fn.name() == "AliasBackward0" and not rs.is_leaf
    (rs * 3).sum().backward()
    assert r.grad.tolist() == [3.0, 3.0]
    _same_error(lambda: m.as_subclass(int), lambda: t.as_subclass(int))


def test_record_stream_refuses_what_is_no_stream():
    _same_error(lambda: mg.ones(2).record_stream(None), lambda: torch.ones(2).record_stream(None))
    _same_error(lambda: mg.ones(2).record_stream(1), lambda: torch.ones(2).record_stream(1))

    class Stream:  # a stream object on a CPU tensor: PyTorch has no CPU kernel for it
        pass

    got = _error(lambda: mg.ones(2).record_stream(Stream()))
    want = _error(lambda: torch.ones(2).record_stream(torch.Stream(device="cpu")))
    assert got[0] == want[0] == "NotImplementedError" and want[1].startswith(got[1])


def test_module_load():
    m, t = mg.arange(6.0).reshape(2, 3), torch.arange(6.0).reshape(2, 3)
    mi, ti = mg.zeros(2, 3, dtype=mg.int64), torch.zeros(2, 3, dtype=torch.int64)
    got, want = m.module_load(mi), t.module_load(ti)
    assert got.tolist() == want.tolist() and got.dtype == mg.float32 and got is not m and got._base is None
    assert m.tolist() == t.tolist() and m._version == t._version == 1
    got, want = m.module_load(mi, assign=True), t.module_load(ti, assign=True)
    assert got.dtype == mg.int64 and got is not mi and not got.requires_grad
    p, tp = mg.nn.Parameter(mg.ones(2)), torch.nn.Parameter(torch.ones(2))
    with mg.no_grad(), torch.no_grad():
        r, tr = p.module_load(mg.zeros(2)), tp.module_load(torch.zeros(2))
    assert type(r) is mg.Tensor and r.requires_grad is tr.requires_grad is False and p._version == tp._version == 1
    _same_error(lambda: mg.ones(2).module_load(mg.ones(3)), lambda: torch.ones(2).module_load(torch.ones(3)))


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
def test_grad_dtype():
    m, t = mg.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    assert m.grad_dtype == mg.float32 and t.grad_dtype == torch.float32
    assert mg.arange(3).grad_dtype == mg.int64
    m.grad_dtype = mg.float32
    with pytest.raises(NotImplementedError, match="grad_dtype"):
        m.grad_dtype = mg.float64
    _same_error(lambda: (m * 2).grad_dtype, lambda: (t * 2).grad_dtype)

    def set_it(x, dt):
        x.grad_dtype = dt

    _same_error(lambda: set_it(m * 2, mg.float32), lambda: set_it(t * 2, torch.float32))


# -- removed methods ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda x: x.symeig(), lambda x: x.symeig(True), lambda x: x.eig(), lambda x: x.eig(eigenvectors=True),
    lambda x: x.lstsq(x), lambda x: x.solve(x), lambda x: x.reinforce(1), lambda x: x.lstsq(),
])
def test_removed_methods_name_their_replacement(call):
    _same_error(lambda: call(mg.ones(2, 2)), lambda: call(torch.ones(2, 2)))


def test_volatile_is_gone():
    m = mg.ones(2)
    with pytest.warns(UserWarning, match=r"volatile was removed \(Variable.volatile is always False\)"):
        assert m.volatile is False
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        m.volatile = True
    assert m.is_distributed() is torch.ones(2).is_distributed() is False
