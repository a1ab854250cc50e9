"""Names the lines students write need, checked against PyTorch: bitwise operators on masks and integers,
``index_fill(_)``/``index_copy(_)``/``index_add_`` (float64 finite differences through the in-place path)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minigrad as mg
from gradcheck import gradcheck

torch = pytest.importorskip("torch")

_INTS = np.array([[-7, -1, 0, 1], [2, 5, 6, 127]])
_SHIFTS = np.array([[0, 1, 2, 3], [1, 0, 3, 2]])
_MASK_A = np.array([[True, False, True, False], [True, True, False, False]])
_MASK_B = np.array([[True, True, False, False], [False, True, False, True]])


@pytest.mark.parametrize("name", ["and_", "or_", "xor"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_bitwise_operators_match_pytorch(name: str, dtype: str) -> None:
    a, b = (_MASK_A, _MASK_B) if dtype == "bool" else (_INTS, _INTS[::-1].copy())
    f = getattr(operator, name)
    t = f(torch.tensor(a, dtype=getattr(torch, dtype)), torch.tensor(b, dtype=getattr(torch, dtype)))
    m = f(mg.tensor(a, dtype=getattr(mg, dtype)), mg.tensor(b, dtype=getattr(mg, dtype)))
    assert m.tolist() == t.tolist() and str(m.dtype).replace("minigrad.", "torch.") == str(t.dtype)
    # a Python number on either side, and the methods
    assert f(m, 1).tolist() == f(t, 1).tolist() and f(1, m).tolist() == f(1, t).tolist()
    assert getattr(m, f"bitwise_{name.rstrip('_')}")(m).tolist() == getattr(t, f"bitwise_{name.rstrip('_')}")(t).tolist()


def test_invert_and_shifts_match_pytorch() -> None:
    for dt in ("int64", "int32"):
        t, m = torch.tensor(_INTS, dtype=getattr(torch, dt)), mg.tensor(_INTS, dtype=getattr(mg, dt))
        ts, ms = torch.tensor(_SHIFTS, dtype=getattr(torch, dt)), mg.tensor(_SHIFTS, dtype=getattr(mg, dt))
        assert (~m).tolist() == (~t).tolist()
        assert (m << ms).tolist() == (t << ts).tolist() and (m >> ms).tolist() == (t >> ts).tolist()
        assert (m << 2).tolist() == (t << 2).tolist() and (1 << ms).tolist() == (1 << ts).tolist()
        assert (64 >> ms).tolist() == (64 >> ts).tolist()
    assert (~mg.tensor(_MASK_A)).tolist() == (~torch.tensor(_MASK_A)).tolist()


def test_mask_arithmetic_as_students_write_it() -> None:
    for lib in (torch, mg):
        x = lib.arange(10)
        m = (x > 2) & (x < 7) | (x == 9)
        m &= ~(x == 4)
        lib_out = x[m].tolist()
        assert lib_out == [3, 5, 6, 9]
    with pytest.raises(RuntimeError):
        mg.tensor([1.5]) & mg.tensor([1.0])  # floats have no bits to combine, as in PyTorch


F64 = mg.float64


def _rnd(*shape: int) -> mg.Tensor:
    return mg.tensor(np.random.default_rng(len(shape)).normal(size=shape), dtype=F64, requires_grad=True)


def test_index_fill_and_copy_gradients_by_finite_differences() -> None:
    idx = mg.tensor([2, 0])
    assert gradcheck(lambda x: mg.index_fill(x, 1, idx, -1.0), [_rnd(3, 4)])
    assert gradcheck(lambda x, v: mg.index_fill(x, 0, idx, v), [_rnd(3, 4), mg.tensor(0.5, dtype=F64, requires_grad=True)])
    assert gradcheck(lambda x, s: mg.index_copy(x, 1, idx, s), [_rnd(3, 4), _rnd(3, 2)])
    # in place, through the in-place path (a non-leaf changed, its history rewritten)
    assert gradcheck(lambda x: (x * 1).index_fill_(1, idx, 2.0), [_rnd(3, 4)])
    assert gradcheck(lambda x, s: (x * 1).index_copy_(0, idx, s), [_rnd(3, 4), _rnd(2, 4)])
    assert gradcheck(lambda x, s: (x * 1).index_add_(0, mg.tensor([0, 0, 2]), s), [_rnd(3, 4), _rnd(3, 4)])


def test_index_fill_copy_add_in_place_match_pytorch() -> None:
    data = np.arange(12.0).reshape(3, 4)
    for lib in (torch, mg):
        x = lib.tensor(data)
        v0 = x._version if lib is torch else x.version
        out = x.index_fill_(1, lib.tensor([0, 3]), -1.0)
        assert out is x and (x._version if lib is torch else x.version) == v0 + 1
        x.index_copy_(0, lib.tensor([2]), lib.tensor([[9.0, 8.0, 7.0, 6.0]], dtype=lib.float64))
        x.index_add_(1, lib.tensor([1, 1]), lib.ones(3, 2, dtype=lib.float64))
        if lib is torch:
            want = x.tolist()
    assert x.tolist() == want
    leaf = mg.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError):
        leaf.index_fill_(0, mg.tensor([0]), 0.0)
    with pytest.raises(IndexError):
        mg.ones(3).index_fill(0, mg.tensor([5]), 0.0)
    with pytest.raises(IndexError):
        mg.ones(3, 2).index_copy(0, mg.tensor([0]), mg.ones(2, 2))


def _lbfgs_run(lib, line_search_fn):
    x = lib.tensor(np.linspace(-1, 1, 20)).reshape(20, 1)
    y = lib.sin(3 * x)
    model = lib.nn.Sequential(lib.nn.Linear(1, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1)).double()
    for i, p in enumerate(model.parameters()):
        p.data = lib.tensor(np.cos(np.arange(p.numel()) + i).reshape(tuple(p.shape)))
    opt = lib.optim.LBFGS(model.parameters(), lr=0.8, line_search_fn=line_search_fn, history_size=10)
    losses, evals = [], []
    for _ in range(3):
        def closure():
            opt.zero_grad()
            loss = ((model(x) - y) ** 2).mean()
            loss.backward()
            return loss
        losses.append(opt.step(closure).item())
        evals.append(next(iter(opt.state.values()))["func_evals"])
    return losses, evals, [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_takes_pytorch_s_steps(line_search_fn) -> None:
    t_losses, t_evals, t_params = _lbfgs_run(torch, line_search_fn)
    m_losses, m_evals, m_params = _lbfgs_run(mg, line_search_fn)
    assert m_evals == t_evals  # the same iterations and line-search trials
    np.testing.assert_allclose(m_losses, t_losses, rtol=1e-7)
    for a, b in zip(m_params, t_params):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)  # rounding of dots and sums, amplified


def test_student_namespace_names() -> None:
    """Legacy constructors, as_tensor/from_numpy sharing memory, backends flags, compile, ParameterList."""
    assert mg.LongTensor([1.7, 2]).tolist() == torch.LongTensor([1.7, 2]).tolist()
    assert tuple(mg.FloatTensor(2, 3).shape) == (2, 3) and isinstance(mg.zeros(2), mg.FloatTensor)
    assert not isinstance(mg.zeros(2), mg.LongTensor) and mg.zeros(2).type(mg.LongTensor).dtype is mg.int64
    a = np.arange(3.0)
    t = mg.as_tensor(a)
    a[0] = 9.0
    assert t.tolist() == [9.0, 1.0, 2.0] and mg.as_tensor(t) is t
    mg.from_numpy(a)[1] = 7.0
    assert a[1] == 7.0
    mg.backends.cudnn.deterministic = True
    assert mg.backends.cudnn.deterministic and not mg.backends.mps.is_available()
    saved = mg.flags.use_gpudnn
    mg.backends.cudnn.enabled = False
    assert mg.flags.use_gpudnn is False
    mg.backends.cudnn.enabled = saved
    m = mg.nn.Linear(2, 2)
    with pytest.warns(UserWarning, match="eagerly"):
        mg.compiler._said[0] = False
        assert mg.compile(m) is m
    ps = mg.nn.ParameterList([mg.nn.Parameter(mg.ones(2)) for _ in range(2)])
    pd = mg.nn.ParameterDict({"w": mg.nn.Parameter(mg.zeros(1))})
    assert [n for n, _ in ps.named_parameters()] == ["0", "1"] and list(pd.keys()) == ["w"]


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32"])
def test_small_integer_arithmetic_wraps_around_as_pytorch(dtype: str) -> None:
    info = np.iinfo(dtype)
    values = np.array([info.min, info.min + 1, -1 if info.min < 0 else 0, 0, 1, 7, info.max - 1, info.max])
    ops = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a + 10, lambda a, b: a * 3,
           lambda a, b: b - a, lambda a, b: a // 3, lambda a, b: a % 5, lambda a, b: a.sum(), lambda a, b: a.cumsum(0),
           lambda a, b: a.float() / 2, lambda a, b: (a > 3) & (b < 5)]
    for f in ops:
        t = f(torch.tensor(values, dtype=getattr(torch, dtype)), torch.tensor(values[::-1].copy(), dtype=getattr(torch, dtype)))
        m = f(mg.tensor(values, dtype=getattr(mg, dtype)), mg.tensor(values[::-1].copy(), dtype=getattr(mg, dtype)))
        assert m.tolist() == t.tolist() and str(m.dtype).replace("minigrad.", "torch.") == str(t.dtype)


def test_small_integer_promotion() -> None:
    from minigrad import dtypes

    assert dtypes.promote(mg.uint8, mg.int8) is mg.int16  # neither holds the other's values (PyTorch's rule)
    assert dtypes.promote(mg.int8, mg.int16) is mg.int16 and dtypes.promote(mg.uint8, mg.float16) is mg.float16
    assert (mg.tensor([1], dtype=mg.int16) + mg.tensor([1], dtype=mg.int32)).dtype is mg.int32
    assert mg.zeros(2, dtype=mg.short).type() == "torch.ShortTensor" and mg.CharTensor([1]).dtype is mg.int8


@pytest.mark.parametrize("pair", [("uint8", "int8"), ("int8", "uint8"), ("float16", "bfloat16"), ("bfloat16", "float16")])
def test_an_op_on_two_dtypes_computes_in_pytorchs_promoted_dtype(pair: tuple[str, str]) -> None:
    torch = pytest.importorskip("torch")
    a, b = pair
    m = mg.tensor([3, 4], dtype=getattr(mg, a)) + mg.tensor([1, 2], dtype=getattr(mg, b))
    t = torch.tensor([3, 4], dtype=getattr(torch, a)) + torch.tensor([1, 2], dtype=getattr(torch, b))
    assert str(m.dtype).replace("minigrad.", "torch.") == str(t.dtype) and m.tolist() == t.tolist()


def test_bfloat16_rounds_casts_and_computes_as_pytorch() -> None:
    """bfloat16 (through ml_dtypes): PyTorch's round-to-nearest-even casts, and each op computed in float32
    and rounded once (PyTorch's "opmath"), bit for bit on a grid; promotion with ints and float32."""
    grid = np.concatenate([np.linspace(-6, 6, 401), np.geomspace(1e-4, 300, 200), [0.0, np.inf, -np.inf]])
    t = torch.tensor(grid, dtype=torch.float32).to(torch.bfloat16)
    m = mg.tensor(grid, dtype=mg.float32).to(mg.bfloat16)

    def bits(x):
        return x.float().numpy().view(np.int32) if hasattr(x, "float") else x

    assert (bits(m) == bits(t)).all()
    for f in (lambda x: x * 3, lambda x: x + x, lambda x: x / 7, lambda x: x.exp(), lambda x: x.tanh(),
              lambda x: x.sum(), lambda x: x.mean(), lambda x: x.softmax(0), lambda x: x.sigmoid(),
              lambda x: x[:600].reshape(3, -1, 4)[:, :4, :].matmul(x[:600].reshape(3, -1, 4)[:, :4, :].transpose(1, 2)),
              lambda x: (x > 1) & (x < 3)):
        a, b = f(t), f(m)
        assert str(b.dtype).replace("minigrad.", "torch.") == str(a.dtype)
        np.testing.assert_array_equal(b.float().numpy() if b.dtype is not mg.bool else b.numpy(),
                                      a.float().numpy() if a.dtype != torch.bool else a.numpy())
    assert (m + mg.tensor([2])).dtype is mg.bfloat16 and (m + mg.tensor([1.0])).dtype is mg.float32
    assert mg.tensor([1.5]).bfloat16().type() == "torch.BFloat16Tensor"
    assert mg.dtypes.promote(mg.float16, mg.bfloat16) is mg.float32
