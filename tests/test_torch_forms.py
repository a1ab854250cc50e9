"""PyTorch's everyday functions and argument forms: gradients, the oracle, behaviour.

Every differentiable function or form has a float64 finite-difference row
(``GRAD``) and a PyTorch-oracle row (``ORACLE``, skipped without torch) that
compares forward values and gradients to 1e-10. The rest pins behaviour:
return forms (named tuples, indices), storage sharing (``view``,
``from_numpy``), seeding, spellings (``axis=``, ``"cuda"``, bare ``@no_grad``)
and errors.
"""

from __future__ import annotations

import zlib
from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
from gradcheck import gradcheck

F64 = mg.float64


def T(a: Any, rg: bool = True) -> mg.Tensor:
    return mg.tensor(np.asarray(a, dtype=np.float64), dtype=F64, requires_grad=rg)


def U(*shape: int, low: float = -2.0, high: float = 2.0) -> Callable[[np.random.Generator], np.ndarray]:
    return lambda rng: rng.uniform(low, high, size=shape)


def DISTINCT(*shape: int) -> Callable[[np.random.Generator], np.ndarray]:
    def make(rng: np.random.Generator) -> np.ndarray:
        n = int(np.prod(shape))
        return ((rng.permutation(n) - n / 2) * 0.1 + rng.uniform(-0.02, 0.02, size=n)).reshape(shape)

    return make


# (id, minigrad fn, torch fn (receives the torch module), input makers). All inputs are differentiable.
ROWS: list[tuple[str, Callable[..., Any], Callable[..., Any], list[Any]]] = [
    ("max-dim-values", lambda x: mg.max(x, dim=1).values, lambda th, x: th.max(x, dim=1).values, [DISTINCT(3, 4)]),
    ("min-dim-keepdim", lambda x: x.min(0, keepdim=True)[0], lambda th, x: x.min(0, keepdim=True)[0], [DISTINCT(3, 4)]),
    ("max-pair", lambda x, y: mg.max(x, y), lambda th, x, y: th.max(x, y), [DISTINCT(2, 3), DISTINCT(2, 3)]),
    ("amax-tuple", lambda x: mg.amax(x, dim=(0, 2)), lambda th, x: th.amax(x, dim=(0, 2)), [DISTINCT(2, 3, 4)]),
    ("var-all", lambda x: x.var(), lambda th, x: x.var(), [U(3, 4)]),
    ("var-dim-correction0", lambda x: mg.var(x, dim=1, correction=0, keepdim=True),
     lambda th, x: th.var(x, dim=1, correction=0, keepdim=True), [U(3, 4)]),
    ("var-unbiased-false", lambda x: x.var(0, unbiased=False), lambda th, x: x.var(0, unbiased=False), [U(3, 4)]),
    ("std-dim", lambda x: x.std(dim=-1), lambda th, x: x.std(dim=-1), [U(3, 4)]),
    ("masked_fill", lambda x: x.masked_fill(mg.tensor([[True, False, True, False]]), -1.5),
     lambda th, x: x.masked_fill(th.tensor([[True, False, True, False]]), -1.5), [U(3, 4)]),
    ("masked_fill-neg-inf-softmax", lambda x: mg.softmax(x.masked_fill(mg.triu(mg.ones(4, 4), 1) == 1, float("-inf")), dim=-1),
     lambda th, x: th.softmax(x.masked_fill(th.triu(th.ones(4, 4), 1) == 1, float("-inf")), dim=-1), [U(2, 4, 4)]),
    ("tril", lambda x: mg.tril(x), lambda th, x: th.tril(x), [U(3, 4)]),
    ("tril-diag-batched", lambda x: x.tril(-1), lambda th, x: x.tril(-1), [U(2, 3, 3)]),
    ("triu-diag", lambda x: mg.triu(x, 1), lambda th, x: th.triu(x, 1), [U(4, 3)]),
    ("clamp-tensor-bounds", lambda x, lo, hi: mg.clamp(x, lo, hi), lambda th, x, lo, hi: th.clamp(x, lo, hi),
     [U(3, 4), U(4, low=-2, high=-0.5), U(3, 1, low=0.5, high=2)]),
    ("clamp_min-tensor", lambda x, lo: x.clamp_min(lo), lambda th, x, lo: x.clamp_min(lo), [U(3, 4), U(4)]),
    ("clip-tensor-min", lambda x, lo: mg.clip(x, lo), lambda th, x, lo: th.clip(x, lo),
     [U(3, 4), U(3, 1, low=-1.5, high=0)]),
    ("softmax-method-dtype", lambda x: x.softmax(-1, dtype=F64), lambda th, x: x.softmax(-1, dtype=th.float64), [U(2, 5)]),
    ("clamp_max-number", lambda x: mg.clamp_max(x, 0.3), lambda th, x: th.clamp_max(x, 0.3), [U(7)]),
    ("cat", lambda a, b: mg.cat([a, b], dim=1), lambda th, a, b: th.cat([a, b], dim=1), [U(2, 3), U(2, 2)]),
    ("split-size", lambda x: mg.split(x, 2, dim=1)[1] * 2 + mg.split(x, 2, dim=1)[2].sum(),
     lambda th, x: th.split(x, 2, dim=1)[1] * 2 + th.split(x, 2, dim=1)[2].sum(), [U(3, 5)]),
    ("split-sections", lambda x: mg.cat(list(x.split([1, 3], dim=0))[::-1]),
     lambda th, x: th.cat(list(x.split([1, 3], dim=0))[::-1]), [U(4, 2)]),
    ("chunk", lambda x: mg.stack(list(mg.chunk(x, 3, dim=-1))[:2]) ,
     lambda th, x: th.stack(list(th.chunk(x, 3, dim=-1))[:2]), [U(2, 6)]),
    ("t", lambda x: x.t() @ x, lambda th, x: x.t() @ x, [U(3, 2)]),
    ("T-and-mT", lambda x: x.mT + x.T.permute(2, 1, 0), lambda th, x: x.mT + x.permute(2, 1, 0).permute(2, 1, 0),
     [U(2, 3, 3)]),
    ("bmm", mg.bmm, lambda th, a, b: th.bmm(a, b), [U(2, 3, 4), U(2, 4, 5)]),
    ("einsum-matmul", lambda a, b: mg.einsum("ij,jk->ik", a, b), lambda th, a, b: th.einsum("ij,jk->ik", a, b),
     [U(2, 3), U(3, 4)]),
    ("einsum-attention-scores", lambda q, k: mg.einsum("bhqd,bhkd->bhqk", q, k),
     lambda th, q, k: th.einsum("bhqd,bhkd->bhqk", q, k), [U(2, 2, 3, 4), U(2, 2, 5, 4)]),
    ("einsum-attention-values", lambda p, v: mg.einsum("bhqk,bhkd->bqhd", p, v),
     lambda th, p, v: th.einsum("bhqk,bhkd->bqhd", p, v), [U(2, 2, 3, 5), U(2, 2, 5, 4)]),
    ("einsum-outer-implicit", lambda a, b: mg.einsum("i,j", a, b), lambda th, a, b: th.einsum("i,j", a, b), [U(3), U(4)]),
    ("einsum-dot-and-sum-only-here", lambda a, b: mg.einsum("ij,jk->", a, b), lambda th, a, b: th.einsum("ij,jk->", a, b),
     [U(2, 3), U(3, 4)]),
    ("einsum-one-operand", lambda a: mg.einsum("ijk->ki", a), lambda th, a: th.einsum("ijk->ki", a), [U(2, 3, 4)]),
    ("log1p", mg.log1p, lambda th, x: th.log1p(x), [U(5, low=-0.8, high=3)]),
    ("expm1", lambda x: x.expm1(), lambda th, x: x.expm1(), [U(5)]),
    ("sum-axis", lambda x: mg.sum(x, axis=0), lambda th, x: th.sum(x, axis=0), [U(3, 4)]),
    ("mean-axis-method", lambda x: x.mean(axis=-1, keepdim=True), lambda th, x: x.mean(axis=-1, keepdim=True), [U(3, 4)]),
    ("view", lambda x: x.view(4, 3) * mg.arange(3, dtype=F64), lambda th, x: x.view(4, 3) * th.arange(3), [U(2, 6)]),
    ("conv2d-unbatched", lambda x, w: mg.conv2d(x, w), lambda th, x, w: th.nn.functional.conv2d(x, w),
     [U(2, 5, 5), U(3, 2, 3, 3)]),
    ("conv2d-same-even-kernel", lambda x, w, b: mg.conv2d(x, w, b, padding="same"),
     lambda th, x, w, b: th.nn.functional.conv2d(x, w, b, padding="same"), [U(1, 2, 5, 4), U(3, 2, 2, 3), U(3)]),
    ("conv2d-valid", lambda x, w: mg.conv2d(x, w, padding="valid"), lambda th, x, w: th.nn.functional.conv2d(x, w, padding="valid"),
     [U(1, 1, 4, 4), U(2, 1, 3, 3)]),
    ("conv2d-dilation-stride", lambda x, w: mg.conv2d(x, w, stride=(1, 2), padding=1, dilation=(2, 1)),
     lambda th, x, w: th.nn.functional.conv2d(x, w, stride=(1, 2), padding=1, dilation=(2, 1)), [U(1, 2, 7, 6), U(2, 2, 3, 2)]),
    ("conv2d-groups-bias", lambda x, w, b: mg.conv2d(x, w, b, groups=2),
     lambda th, x, w, b: th.nn.functional.conv2d(x, w, b, groups=2), [U(2, 4, 4, 4), U(6, 2, 3, 3), U(6)]),
    ("conv2d-depthwise-same-dilated", lambda x, w: mg.conv2d(x, w, padding="same", dilation=2, groups=3),
     lambda th, x, w: th.nn.functional.conv2d(x, w, padding="same", dilation=2, groups=3), [U(1, 3, 6, 6), U(3, 1, 3, 3)]),
    ("max_pool2d-unbatched", lambda x: mg.max_pool2d(x, 2), lambda th, x: th.nn.functional.max_pool2d(x, 2), [DISTINCT(2, 4, 6)]),
    ("max_pool2d-ceil_mode", lambda x: mg.max_pool2d(x, 2, ceil_mode=True),
     lambda th, x: th.nn.functional.max_pool2d(x, 2, ceil_mode=True), [DISTINCT(1, 2, 5, 7)]),
    ("max_pool2d-ceil-stride-padding", lambda x: mg.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True),
     lambda th, x: th.nn.functional.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True), [DISTINCT(1, 1, 6, 8)]),
    ("max_pool2d-dilation", lambda x: mg.max_pool2d(x, (2, 3), stride=1, dilation=(2, 1), padding=1),
     lambda th, x: th.nn.functional.max_pool2d(x, (2, 3), stride=1, dilation=(2, 1), padding=1), [DISTINCT(1, 2, 6, 5)]),
    ("max_pool2d-return_indices-values", lambda x: mg.max_pool2d(x, 2, return_indices=True)[0],
     lambda th, x: th.nn.functional.max_pool2d(x, 2, return_indices=True)[0], [DISTINCT(1, 2, 4, 4)]),
    ("add-alpha", lambda x, y: mg.add(x, y, alpha=-2.5), lambda th, x, y: th.add(x, y, alpha=-2.5), [U(2, 3), U(3)]),
    ("sub-alpha-method", lambda x, y: x.sub(y, alpha=3), lambda th, x, y: x.sub(y, alpha=3), [U(2, 3), U(2, 3)]),
    ("div-floor", lambda x, y: mg.div(x, y, rounding_mode="floor") * x, lambda th, x, y: th.div(x, y, rounding_mode="floor") * x,
     [U(5, low=0.3), U(5, low=0.3, high=0.9)]),
    ("div-trunc", lambda x, y: x.div(y, rounding_mode="trunc") + y, lambda th, x, y: x.div(y, rounding_mode="trunc") + y,
     [U(5, low=-3, high=3), U(5, low=0.3, high=0.9)]),
    ("embedding-lookup", lambda c: c[mg.tensor([[0, 2, 2], [1, 0, 2]])], lambda th, c: c[th.tensor([[0, 2, 2], [1, 0, 2]])],
     [U(3, 4)]),
]


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_gradient_matches_finite_differences(row: Any) -> None:
    name, fn, _, makers = row
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    assert gradcheck(fn, [T(m(rng)) for m in makers])


@pytest.mark.torch
@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_forward_and_gradients_equal_pytorch(row: Any) -> None:
    torch = pytest.importorskip("torch")
    name, fn, tfn, makers = row
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    arrays = [m(rng) for m in makers]
    m_in = [T(a) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    m_out, t_out = fn(*m_in), tfn(torch, *t_in)
    assert tuple(m_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-10)
    w = rng.uniform(-1.5, 1.5, size=tuple(t_out.shape))
    finite = np.isfinite(t_out.detach().numpy())
    w = np.where(finite, w, 0.0)
    (m_out * mg.tensor(w, dtype=F64)).sum().backward()
    (torch.where(torch.tensor(finite), t_out, 0.0) * torch.tensor(w)).sum().backward()
    for i, (a, b) in enumerate(zip(m_in, t_in)):
        got = a.grad.numpy() if a.grad is not None else np.zeros(a.shape)
        want = b.grad.numpy() if b.grad is not None else np.zeros(a.shape)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10, err_msg=f"gradient of input {i}")


# -- return forms, integer results, no-gradient functions ---------------------------------


def test_max_with_dim_returns_values_and_indices() -> None:
    x = mg.tensor([[1.0, 5.0, 5.0], [7.0, 2.0, 0.0]])
    out = mg.max(x, dim=1)
    assert isinstance(out, mg.return_types.max)
    values, indices = out
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]  # ties: the first, as PyTorch
    assert indices.dtype == mg.int64 and out.indices is indices
    low = x.min(dim=0, keepdim=True)
    assert low.values.tolist() == [[1.0, 2.0, 0.0]] and low.indices.tolist() == [[0, 1, 1]]
    assert mg.max(x).item() == 7.0  # no dim: the value only


def test_argmax_argmin() -> None:
    x = mg.tensor([[1.0, 9.0, 3.0], [4.0, 2.0, 8.0]])
    assert mg.argmax(x).item() == 1 and mg.argmin(x).item() == 0  # into the flattened tensor
    assert x.argmax(dim=1).tolist() == [1, 2]
    assert x.argmin(dim=0, keepdim=True).tolist() == [[0, 1, 0]]
    assert mg.argmax(x, axis=0).tolist() == [1, 0, 1]
    assert mg.argmax(x, keepdim=True).shape == (1, 1)
    with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$"):
        mg.argmax(x, dim=2)  # PyTorch's class and words (a ValueError too, as minigrad raised before)
    with pytest.raises(IndexError, match=r"^argmax\(\): Expected reduction dim to be specified for input\.numel\(\) == 0\.$"):
        mg.argmax(mg.zeros(0))


def test_argmax_equals_pytorch() -> None:
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(3).integers(0, 4, size=(3, 4, 5)).astype(np.float64)  # many ties
    for dim in (None, 0, 1, -1):
        for keep in (False, True):
            want = torch.argmax(torch.tensor(a), dim=dim, keepdim=keep).numpy()
            np.testing.assert_array_equal(mg.argmax(mg.tensor(a), dim=dim, keepdim=keep).numpy(), want)
            want = torch.argmin(torch.tensor(a), dim=dim, keepdim=keep).numpy()
            np.testing.assert_array_equal(mg.argmin(mg.tensor(a), dim=dim, keepdim=keep).numpy(), want)


def test_allclose_isclose() -> None:
    a = mg.tensor([1.0, 2.0, float("nan")])
    b = mg.tensor([1.0 + 1e-9, 2.1, float("nan")])
    assert mg.isclose(a, b).tolist() == [True, False, False]
    assert a.isclose(b, equal_nan=True).tolist() == [True, False, True]
    assert mg.allclose(a[:1], b[:1]) is True and mg.allclose(a, b, atol=0.2, equal_nan=True) is True
    assert not mg.allclose(a, b)


def test_split_chunk_shapes_match_pytorch_rules() -> None:
    x = mg.arange(10)
    assert [p.tolist() for p in mg.split(x, 4)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert [len(p) for p in x.chunk(3)] == [4, 4, 2]
    assert [len(p) for p in mg.chunk(mg.arange(6), 4)] == [2, 2, 2]  # as torch.chunk: fewer chunks
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 10"):  # PyTorch's words
        mg.split(x, [3, 3])


def test_cat_keeps_concat_as_alias() -> None:
    a, b = mg.tensor([[1.0]]), mg.tensor([[2.0]])
    assert mg.cat([a, b], dim=1).tolist() == mg.concat([a, b], dim=1).tolist() == [[1.0, 2.0]]
    assert mg.cat((a, b), axis=0).shape == (2, 1)


def test_view_shares_storage_and_refuses_a_non_viewable_layout() -> None:
    x = mg.arange(6, dtype=F64)
    v = x.view(2, 3)
    assert np.shares_memory(v.numpy(), x.numpy())
    with mg.no_grad():
        x.add_(1.0)
    assert v.tolist() == [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]  # a write shows through the view
    with pytest.raises(RuntimeError, match=r"^view size is not compatible with input tensor.s size and stride .* Use \.reshape"):
        v.T.view(6)
    assert v.T.reshape(6).tolist() == [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
    assert v.T.contiguous().view(6).tolist() == [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]


def test_einsum_errors() -> None:
    a = mg.ones(2, 3)
    with pytest.raises(ValueError, match="operands"):
        mg.einsum("ij,jk->ik", a)
    with pytest.raises(ValueError, match="subscript j has size 2 for operand 1 which does not broadcast with "
                                         "previously seen size 3"):
        mg.einsum("ij,jk->ik", a, a)
    with pytest.raises(ValueError, match="ellipsis"):
        mg.einsum("....ij->ji", a)
    with pytest.raises(ValueError, match="subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"):
        mg.einsum("ii->i", a)


def test_t_bmm_masked_fill_errors() -> None:
    with pytest.raises(ValueError, match=r"^t\(\) expects a tensor with <= 2 dimensions, but self is 3D$"):
        mg.ones(2, 2, 2).t()
    with pytest.raises(ValueError, match="^batch1 must be a 3D tensor$"):
        mg.bmm(mg.ones(2, 2), mg.ones(2, 2))
    with pytest.raises(RuntimeError, match="^masked_fill_ only supports boolean masks, but got mask with dtype float$"):
        mg.ones(2).masked_fill(mg.ones(2), 0.0)  # PyTorch's class and words


# -- creation ---------------------------------------------------------------------------------


def test_from_numpy_shares_memory_and_keeps_dtype() -> None:
    a = np.arange(3, dtype=np.float64)
    t = mg.from_numpy(a)
    assert t.dtype == F64
    a[0] = 7.0
    assert t.tolist() == [7.0, 1.0, 2.0]
    with pytest.raises(TypeError, match="np.ndarray"):
        mg.from_numpy([1, 2])


def test_eye_linspace() -> None:
    assert mg.eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert mg.eye(2, dtype=F64).dtype == F64
    np.testing.assert_allclose(mg.linspace(0, 1, 5).numpy(), [0, 0.25, 0.5, 0.75, 1.0])


def test_random_integers_are_seeded_by_manual_seed() -> None:
    def draw() -> tuple:
        mg.manual_seed(123)
        return (mg.randint(0, 10, (5,)).tolist(), mg.randperm(6).tolist(),
                mg.multinomial(mg.tensor([[0.1, 0.0, 0.9], [1.0, 1.0, 1.0]]), 2).tolist())

    first, second = draw(), draw()
    assert first == second
    ints, perm, samples = first
    assert all(0 <= v < 10 for v in ints) and sorted(perm) == list(range(6))
    assert all(1 not in row[:1] for row in samples[:1])  # category 1 has weight 0 in row 0
    assert all(len(set(row)) == 2 for row in samples)  # without replacement: distinct
    assert mg.randint(5, (2, 2)).shape == (2, 2) and mg.randint(5, (2, 2)).dtype == mg.int64
    with pytest.raises(RuntimeError, match="without replacement"):
        mg.multinomial(mg.tensor([1.0, 1.0]), 3)


def test_multinomial_follows_the_weights() -> None:
    mg.manual_seed(0)
    draws = mg.multinomial(mg.tensor([1.0, 3.0]), 4000, replacement=True).numpy()
    assert 0.70 < draws.mean() < 0.80  # P(category 1) = 0.75


# -- spellings --------------------------------------------------------------------------------


def test_no_grad_as_a_bare_decorator() -> None:
    w = mg.ones(2, requires_grad=True)

    @mg.no_grad
    def f(t):
        return t * 2

    @mg.no_grad()
    def g(t):
        return t * 2

    assert not f(w).requires_grad and not g(w).requires_grad
    assert (w * 2).requires_grad  # grad mode is back on after the call


def test_cuda_is_the_gpu() -> None:
    from minigrad.kernels.backends import canonical_device

    assert canonical_device("cuda") == canonical_device("cuda:0") == "gpu"
    if not mg.is_gpu_available():
        with pytest.raises((RuntimeError, ValueError), match="(?i)cupy|gpu"):
            mg.zeros(2, device="cuda")
    else:
        assert mg.zeros(2, device="cuda").device == "gpu"
        assert mg.ones(2).to("cuda").device == "gpu" and mg.ones(2).cuda().device == "gpu"


def test_axis_alias_and_both_at_once() -> None:
    x = mg.ones(2, 3)
    assert mg.sum(x, axis=1).tolist() == [3.0, 3.0]
    assert x.max(axis=0).values.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(TypeError, match="'dim' and its alias 'axis'"):
        mg.sum(x, dim=0, axis=1)


def test_max_pool2d_return_indices_equal_pytorch() -> None:
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(5).integers(0, 3, size=(2, 2, 5, 7)).astype(np.float64)  # ties: the first wins
    for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
               dict(kernel_size=2, stride=1, dilation=2)):
        _, mi = mg.max_pool2d(mg.tensor(x), return_indices=True, **kw)
        _, ti = torch.nn.functional.max_pool2d(torch.tensor(x), return_indices=True, **kw)
        np.testing.assert_array_equal(mi.numpy(), ti.numpy(), err_msg=str(kw))
    _, mi = mg.max_pool2d(mg.tensor(x[0]), 2, return_indices=True)
    assert mi.shape == (2, 2, 3) and mi.dtype == mg.int64


def test_integer_division_with_rounding_is_exact() -> None:
    a = mg.tensor([-7, 7, -9, 2**53 + 1])
    assert mg.div(a, 2, rounding_mode="floor").tolist() == [-4, 3, -5, (2**53 + 1) // 2]
    assert mg.div(a[:3], 2, rounding_mode="trunc").tolist() == [-3, 3, -4]
    assert mg.div(a, 2, rounding_mode="floor").dtype == mg.int64
    with pytest.raises(ValueError, match="rounding_mode"):
        mg.div(a, 2, rounding_mode="round")


def test_conv_and_pool_form_errors() -> None:
    x = mg.ones(1, 4, 5, 5)
    with pytest.raises(ValueError, match="groups=3"):
        mg.conv2d(x, mg.ones(3, 1, 3, 3), groups=3)
    with pytest.raises(ValueError, match="strided"):
        mg.conv2d(x, mg.ones(2, 4, 3, 3), stride=2, padding="same")
    with pytest.raises(ValueError, match="^Invalid padding string: 'full'$"):
        mg.conv2d(x, mg.ones(2, 4, 3, 3), padding="full")
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        mg.max_pool2d(x, 2, bogus=1)


def test_fill_with_a_bool_value() -> None:
    x = mg.zeros(3)
    x.fill_(True)
    assert x.tolist() == [1.0, 1.0, 1.0]
    b = mg.zeros(2, dtype=mg.bool)
    b.fill_(True)
    assert b.tolist() == [True, True]


def test_embedding_is_one_node_and_skips_the_padding_row_as_pytorch() -> None:
    """``F.embedding``: ``EmbeddingBackward0`` over ``AccumulateGrad``; its backward
    (``EmbeddingDenseBackwardBackward0`` when differentiated again) adds repeated rows and leaves the
    ``padding_idx`` row - a negative one counts from the end - with no gradient."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    w0, idx0, seed0 = rng.normal(size=(5, 3)), np.array([[4, 0], [4, 2], [1, 4]]), rng.normal(size=(3, 2, 3))
    for pad in (None, 4, -1, 0):
        got = []
        for lib in (torch, mg):
            w = lib.tensor(w0, dtype=lib.float64, requires_grad=True)
            out = lib.nn.functional.embedding(lib.tensor(idx0), w, padding_idx=pad)
            seed = lib.tensor(seed0, dtype=lib.float64, requires_grad=True)
            g, = lib.autograd.grad(out, w, seed, create_graph=True)
            (g * g).sum().backward()
            got.append((type(out.grad_fn).__name__, [type(f).__name__ for f, _ in out.grad_fn.next_functions],
                        type(g.grad_fn).__name__, out.detach().numpy(), g.detach().numpy(), seed.grad.numpy()))
        assert got[0][:3] == got[1][:3] == ("EmbeddingBackward0", ["AccumulateGrad"], "EmbeddingDenseBackwardBackward0")
        for a, b in zip(got[0][3:], got[1][3:]):
            np.testing.assert_allclose(b, a, rtol=1e-12)
    for lib in (torch, mg):
        with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
            lib.nn.functional.embedding(lib.tensor([0]), lib.zeros(3, 2), padding_idx=3)


def test_masked_fill_and_triangles_are_pytorchs_ops() -> None:
    """``masked_fill`` (a number: ``MaskedFillBackward0``; a 0-d tensor: ``MaskedFillBackward1``, whose
    value gets the gradient of the positions it filled), ``tril``/``triu``: PyTorch's dtypes, broadcast
    shapes, row-major layouts and gradients."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    x0, m0 = rng.normal(size=(4, 3)), rng.random((2, 3, 4)) > 0.5
    got = []
    for lib in (torch, mg):
        x = lib.tensor(x0, dtype=lib.float32, requires_grad=True)
        v = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        xt = x.t()  # column-major: the results are row-major all the same
        outs = [xt.masked_fill(lib.tensor(m0), -2.0), xt.masked_fill(lib.tensor(m0[0]), v), xt.tril(-1), xt.triu(1)]
        sum(o.double().sum() * (k + 1) for k, o in enumerate(outs)).backward()
        got.append([(tuple(o.shape), o.dtype == lib.float32, tuple(o.stride()), type(o.grad_fn).__name__)
                    for o in outs] + [x.grad.numpy(), v.grad.item()])
    assert got[0][:4] == got[1][:4]
    np.testing.assert_allclose(got[1][4], got[0][4], rtol=1e-6)
    assert got[1][5] == pytest.approx(got[0][5])


# -- the "Introduction to PyTorch" series' calls (tests/parity/tensors_deeper_printed.py) --------------------


def test_broadcast_shapes_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for shapes in [((4, 1, 2), (3, 1)), (), (3, (2, 1)), ((2, 1), [1, 5]), ((0,), (1,)), ((1,), (0,)), ((2,), (3, 1), (1, 1, 1))]:
        assert list(mg.broadcast_shapes(*shapes)) == list(torch.broadcast_shapes(*shapes))
    assert isinstance(mg.broadcast_shapes((2, 1), (3,)), mg.Size)
    for shapes in [((2, 3), (3, 2)), ((2, 3), (1,), (4, 1, 2)), ((-1,), (1,))]:
        with pytest.raises((RuntimeError, ValueError)) as ref:
            torch.broadcast_shapes(*shapes)
        with pytest.raises(type(ref.value)) as got:
            mg.broadcast_shapes(*shapes)
        assert str(got.value) == str(ref.value)


def test_rand_and_randn_write_into_out_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for fw in (torch, mg):
        fw.manual_seed(0)
    for m_out, t_out in [(mg.zeros(2, 2), torch.zeros(2, 2)), (mg.zeros(2, 2, dtype=F64), torch.zeros(2, 2, dtype=torch.float64)),
                         (mg.zeros(3), torch.zeros(3))]:
        got, ref = mg.rand(2, 2, out=m_out), torch.rand(2, 2, out=t_out)
        assert got is m_out and m_out.shape == (2, 2) and m_out.version == 1
        np.testing.assert_array_equal(got.numpy(), ref.numpy())
        np.testing.assert_array_equal(mg.randn(size=(4,), out=m_out).numpy(), torch.randn(size=(4,), out=t_out).numpy())
    with pytest.raises(RuntimeError, match=r"^dtype Double does not match dtype of out parameter \(Float\)$"):
        mg.rand(2, out=mg.zeros(2), dtype=F64)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        mg.rand(2, out=mg.zeros(2, requires_grad=True))


def test_linalg_matmul_and_matrix_rank_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((3, 4, 4))
    a[0, :, 0] = a[0, :, 1]
    a[1] = 0
    low = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 3))
    sym = a[2] + a[2].T
    for args, kwargs in [((a,), {}), ((low,), {}), ((low,), {"atol": 1.0}), ((low,), {"rtol": 0.5}), ((sym,), {"hermitian": True}),
                         ((low, 1e-3), {}), ((np.zeros((0, 3)),), {}), ((low.astype(np.float32),), {})]:
        got = mg.linalg.matrix_rank(mg.tensor(args[0]), *args[1:], **kwargs)
        ref = torch.linalg.matrix_rank(torch.tensor(args[0]), *args[1:], **kwargs)
        assert got.dtype == mg.int64 and got.tolist() == ref.tolist()
    x = mg.tensor(low, requires_grad=True)
    assert not mg.linalg.matrix_rank(x).requires_grad
    y = mg.linalg.matmul(x.T, x)
    assert y.grad_fn.name() == "MmBackward0" and mg.linalg.matmul is mg.matmul
