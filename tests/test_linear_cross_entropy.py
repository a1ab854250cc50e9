"""``F.linear_cross_entropy``, ``nn.LinearCrossEntropyLoss`` and ``nn.LinearCrossEntropyOptions`` against PyTorch 2.13:
values and gradients (float64 to 1e-12) on the reference and the chunked path, the chunk sizes, the graph's node
names, the refusals and warnings in PyTorch's words, the module's parameters, repr and state dict."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as MF
from minigrad.ops import linear_loss as lce  # (the function and its chunks; the module is nn.LinearCrossEntropyLoss)

torch = pytest.importorskip("torch")
TF = torch.nn.functional
pytestmark = pytest.mark.torch


def _pair(a: np.ndarray, requires_grad: bool = True, device: str = "cpu") -> tuple[Any, mg.Tensor]:
    return (torch.tensor(a, requires_grad=requires_grad),
            mg.tensor(a, requires_grad=requires_grad, device=device))


def _run(n: int, f: int, c: int, *, bias: bool, weighted: bool, options: dict | None, device: str = "cpu",
         dtype: Any = np.float64, ignore: int | None = None, seed: int = 0, **kw: Any) -> list[tuple[Any, Any]]:
    """The loss and the gradients of (input, W, b) from both frameworks, for one call with random arguments."""
    rng = np.random.default_rng(seed)
    (tx, mx), (tw, mw), (tb, mb) = (_pair(rng.standard_normal(s).astype(dtype), device=device)
                                    for s in ((n, f), (c, f), (c,)))
    t = rng.integers(0, c, n)
    if n > 2:
        t[1] = -100 if ignore is None else ignore
    cw = rng.random(c).astype(dtype)
    args_t = dict(linear_bias=tb if bias else None, weight=torch.tensor(cw) if weighted else None,
                  ignore_index=ignore, options=None if options is None else torch.nn.LinearCrossEntropyOptions(**options), **kw)
    args_m = dict(linear_bias=mb if bias else None, weight=mg.tensor(cw, device=device) if weighted else None,
                  ignore_index=ignore, options=None if options is None else mg.nn.LinearCrossEntropyOptions(**options), **kw)
    lt = TF.linear_cross_entropy(tx, tw, torch.tensor(t), **args_t)
    lm = MF.linear_cross_entropy(mx, mw, mg.tensor(t, device=device), **args_m)
    g = rng.standard_normal(tuple(lt.shape)).astype(dtype)
    lt.backward(torch.tensor(g))
    lm.backward(mg.tensor(g, device=device))
    out = [(lt, lm), (tx.grad, mx.grad), (tw.grad, mw.grad)]
    return out + [(tb.grad, mb.grad)] if bias else out


def _np(t: Any) -> np.ndarray:
    return t.detach().cpu().numpy() if isinstance(t, mg.Tensor) else t.detach().numpy()


OPTIONS = [None, {}, {"batch_chunk_size": 3}, {"batch_chunk_size": 1}, {"chunking_method": "aspect_ratio"},
           {"acc_policy": "accurate", "batch_chunk_size": 2}, {"acc_policy": "balanced", "batch_chunk_size": 4}]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("bias,weighted", [(False, False), (True, True)])
def test_values_and_gradients_equal_pytorchs_in_float64(options, reduction, bias, weighted) -> None:
    for t, m in _run(7, 4, 10, bias=bias, weighted=weighted, options=options, reduction=reduction):
        np.testing.assert_allclose(_np(m), _np(t), rtol=0, atol=1e-12)


@pytest.mark.parametrize("ignore", [None, 3, 10])
@pytest.mark.parametrize("options", [None, {"batch_chunk_size": 2}], ids=str)
def test_an_ignored_class_in_or_out_of_range(ignore, options) -> None:
    for t, m in _run(6, 3, 5 if ignore != 10 else 8, bias=True, weighted=True, options=options, ignore=ignore):
        np.testing.assert_allclose(_np(m), _np(t), rtol=0, atol=1e-12)


def test_every_row_ignored_gives_pytorchs_nan() -> None:
    x, w, t = mg.randn(3, 2), mg.randn(4, 2), mg.tensor([-100, -100, -100])
    for options in (None, mg.nn.LinearCrossEntropyOptions()):
        assert np.isnan(MF.linear_cross_entropy(x, w, t, options=options).item())


@pytest.mark.parametrize("options", [None, {}], ids=str)
@pytest.mark.parametrize("bias", [False, True])
def test_an_unbatched_input(options, bias) -> None:
    rng = np.random.default_rng(1)
    (tx, mx), (tw, mw), (tb, mb) = (_pair(rng.standard_normal(s)) for s in ((4,), (6, 4), (6,)))
    o_t = None if options is None else torch.nn.LinearCrossEntropyOptions()
    o_m = None if options is None else mg.nn.LinearCrossEntropyOptions()
    lt = TF.linear_cross_entropy(tx, tw, torch.tensor(2), linear_bias=tb if bias else None, options=o_t)
    lm = MF.linear_cross_entropy(mx, mw, mg.tensor(2), linear_bias=mb if bias else None, options=o_m)
    lt.backward()
    lm.backward()
    assert lm.shape == lt.shape == ()
    for t, m in ((lt, lm), (tx.grad, mx.grad), (tw.grad, mw.grad)):
        np.testing.assert_allclose(_np(m), _np(t), rtol=0, atol=1e-12)
    assert _names(lm.grad_fn) == _names(lt.grad_fn)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_k_dimensional_loss_and_probabilities_take_the_reference_path(reduction) -> None:
    rng = np.random.default_rng(2)
    (tx, mx), (tw, mw), (tb, mb) = (_pair(rng.standard_normal(s)) for s in ((3, 4), (5, 2, 3, 4), (5, 2, 3)))
    t = rng.integers(0, 5, (3, 2, 3))
    probs = rng.random((3, 5, 2, 3))
    for target_t, target_m, kw in ((torch.tensor(t), mg.tensor(t), {"ignore_index": 1}),
                                   (torch.tensor(probs), mg.tensor(probs), {"label_smoothing": 0.2})):
        lt = TF.linear_cross_entropy(tx, tw, target_t, linear_bias=tb, reduction=reduction, **kw)
        lm = MF.linear_cross_entropy(mx, mw, target_m, linear_bias=mb, reduction=reduction, **kw)
        lt.sum().backward()
        lm.sum().backward()
        np.testing.assert_allclose(_np(lm), _np(lt), rtol=0, atol=1e-12)
    for t, m in ((tx.grad, mx.grad), (tw.grad, mw.grad), (tb.grad, mb.grad)):
        np.testing.assert_allclose(_np(m), _np(t), rtol=0, atol=1e-12)


def test_float32_is_within_float32_rounding() -> None:
    """The chunked loop runs PyTorch's steps in its order; the products come from another BLAS, so the last bits
    may differ (minigrad does not promise bit equality in float32)."""
    for options in (None, {}, {"batch_chunk_size": 5}):
        for t, m in _run(33, 8, 50, bias=True, weighted=True, options=options, dtype=np.float32):
            np.testing.assert_allclose(_np(m), _np(t), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_inputs_accumulate_in_float32_as_pytorchs(dtype) -> None:
    rng = np.random.default_rng(3)
    a, w, b = rng.standard_normal((16, 8)), rng.standard_normal((40, 8)), rng.standard_normal(40)
    t = rng.integers(0, 40, 16)
    td, md = getattr(torch, dtype), getattr(mg, dtype)
    tx, tw, tb = (torch.tensor(v).to(td).requires_grad_() for v in (a, w, b))
    mx, mw, mb = (mg.tensor(v).to(md).requires_grad_() for v in (a, w, b))
    lt = TF.linear_cross_entropy(tx, tw, torch.tensor(t), linear_bias=tb, options=torch.nn.LinearCrossEntropyOptions())
    lm = MF.linear_cross_entropy(mx, mw, mg.tensor(t), linear_bias=mb, options=mg.nn.LinearCrossEntropyOptions())
    lt.backward()
    lm.backward()
    assert lm.dtype == md and mx.grad.dtype == md and mw.grad.dtype == md
    for t_, m_ in ((lt, lm), (tx.grad, mx.grad), (tw.grad, mw.grad), (tb.grad, mb.grad)):
        np.testing.assert_allclose(_np(m_.float()), _np(t_.float()), rtol=2e-2, atol=2e-3)


# -- the chunking -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(4096, 64, 32000), (1000, 16, 5000), (7, 4, 10), (1, 3, 2), (100, 50, 20),
                                   (0, 4, 10), (513, 7, 100)])
@pytest.mark.parametrize("kw", [{}, {"chunking_method": "aspect_ratio"}, {"chunking_method": "aspect_ratio:4"},
                                {"chunking_method": None}, {"batch_chunk_size": 3}, {"acc_policy": "balanced"}], ids=str)
@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_adjusted_options_equal_pytorchs(shape, kw, dtype) -> None:
    n, f, c = shape
    got = mg.nn.LinearCrossEntropyOptions(**kw)._adjust(n, f, c, getattr(mg, dtype), mg.device("cpu"))
    want = torch.nn.LinearCrossEntropyOptions(**kw)._adjust(n, f, c, getattr(torch, dtype), torch.device("cpu"))
    assert (got.batch_chunk_size, got.chunking_method, got.acc_policy, str(got.acc_dtype).split(".")[1]) == \
           (want.batch_chunk_size, want.chunking_method, want.acc_policy, str(want.acc_dtype).split(".")[1])


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_no_tensor_of_the_full_logits_is_made(reduction, monkeypatch) -> None:
    """Every (rows, C) buffer of the chunked path has ``batch_chunk_size`` rows: the peak memory is PyTorch's."""
    made: list[tuple[int, ...]] = []

    def recording(make):
        def wrapped(shape, **kw):
            made.append(tuple(shape))
            return make(shape, **kw)
        return wrapped

    monkeypatch.setattr(lce, "empty", recording(lce.empty))
    monkeypatch.setattr(lce, "zeros", recording(lce.zeros))
    n, f, c = 64, 4, 40
    x, w = mg.randn(n, f, requires_grad=True), mg.randn(c, f, requires_grad=True)
    options = mg.nn.LinearCrossEntropyOptions()
    chunk = torch.nn.LinearCrossEntropyOptions()._adjust(n, f, c, torch.float32, torch.device("cpu")).batch_chunk_size
    MF.linear_cross_entropy(x, w, mg.randint(0, c, (n,)), reduction=reduction, options=options).sum().backward()
    assert chunk == 4
    assert (chunk, c) in made and all(s[-1] != c or s[0] <= chunk for s in made if len(s) == 2 and s != (c, f))


# -- the graph ----------------------------------------------------------------------------------------------------


def _names(fn: Any, depth: int = 0) -> list[tuple[int, str]]:
    """The graph below ``fn``, depth-first, as (depth, node name); PyTorch's ``torch::autograd::`` prefix dropped."""
    if fn is None:
        return []
    out = [(depth, fn.name().replace("torch::autograd::", ""))]
    for nxt, _ in fn.next_functions:
        out += _names(nxt, depth + 1)
    return out


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("chunked", [False, True])
def test_the_graph_is_pytorchs(reduction, bias, chunked) -> None:
    rng = np.random.default_rng(4)
    (tx, mx), (tw, mw), (tb, mb) = (_pair(rng.standard_normal(s)) for s in ((5, 3), (6, 3), (6,)))
    t = rng.integers(0, 6, 5)
    lt = TF.linear_cross_entropy(tx, tw, torch.tensor(t), linear_bias=tb if bias else None, reduction=reduction,
                                 options=torch.nn.LinearCrossEntropyOptions() if chunked else None)
    lm = MF.linear_cross_entropy(mx, mw, mg.tensor(t), linear_bias=mb if bias else None, reduction=reduction,
                                 options=mg.nn.LinearCrossEntropyOptions() if chunked else None)
    assert _names(lm.grad_fn) == _names(lt.grad_fn)


def test_a_second_backward_is_refused_unless_allowed() -> None:
    x, w, t = mg.randn(4, 3, requires_grad=True), mg.randn(5, 3, requires_grad=True), mg.tensor([0, 1, 2, 3])
    loss = MF.linear_cross_entropy(x, w, t, options=mg.nn.LinearCrossEntropyOptions())
    loss.backward(retain_graph=True)
    with pytest.raises(RuntimeError, match="linear_cross_entropy chunked backward called twice; retain_graph=True "
                                           "/ double backward are not supported."):
        loss.backward()
    once = w.grad.clone()
    w.grad = None
    loss = MF.linear_cross_entropy(x, w, t, options=mg.nn.LinearCrossEntropyOptions(allow_retain_graph=True))
    loss.backward(retain_graph=True)
    loss.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * once.numpy(), rtol=1e-6)


def test_inputs_needing_no_grad_get_none() -> None:
    x, w, t = mg.randn(4, 3), mg.randn(5, 3, requires_grad=True), mg.tensor([0, 1, 2, 3])
    b = mg.randn(5)
    for reduction in ("mean", "none"):
        MF.linear_cross_entropy(x, w, t, linear_bias=b, reduction=reduction,
                                options=mg.nn.LinearCrossEntropyOptions()).sum().backward()
    assert x.grad is None and b.grad is None and w.grad is not None


# -- refusals and warnings ----------------------------------------------------------------------------------------


def _error(fn: Any, *args: Any, **kw: Any) -> tuple[type, str]:
    with pytest.raises(Exception) as info:
        fn(*args, **kw)
    return type(info.value), str(info.value)


REFUSED = [
    ("3-d input", lambda m: ((m.zeros(2, 2, 3), m.zeros(4, 3), m.zeros(2, dtype=m.int64)), {})),
    ("1-d weight", lambda m: ((m.zeros(2, 3), m.zeros(3), m.zeros(2, dtype=m.int64)), {})),
    ("in_features", lambda m: ((m.zeros(2, 3), m.zeros(4, 5), m.zeros(2, dtype=m.int64)), {})),
    ("bias shape", lambda m: ((m.zeros(2, 3), m.zeros(4, 3), m.zeros(2, dtype=m.int64)),
                              {"linear_bias": m.zeros(3)})),
    ("K-dim unbatched", lambda m: ((m.zeros(3), m.zeros(4, 2, 3), m.zeros(2, dtype=m.int64)), {})),
    ("probabilities and ignore_index", lambda m: ((m.zeros(2, 3), m.zeros(4, 3), m.zeros(2, 4)),
                                                  {"ignore_index": 1})),
    ("acc_dtype", lambda m: ((m.zeros(2, 3), m.zeros(4, 3), m.zeros(2, dtype=m.int64)),
                             {"options": m.nn.LinearCrossEntropyOptions(acc_dtype=m.float64)})),
    ("chunk size and method", lambda m: ((m.zeros(8, 3), m.zeros(4, 3), m.zeros(8, dtype=m.int64)),
                                         {"options": m.nn.LinearCrossEntropyOptions(batch_chunk_size=3,
                                                                                    chunking_method="aspect_ratio")})),
]


@pytest.mark.parametrize("name,build", REFUSED, ids=[r[0] for r in REFUSED])
def test_refusals_are_pytorchs(name, build) -> None:
    (args_m, kw_m), (args_t, kw_t) = build(mg), build(torch)
    got_cls, got = _error(MF.linear_cross_entropy, *args_m, **kw_m)
    want_cls, want = _error(TF.linear_cross_entropy, *args_t, **kw_t)
    assert issubclass(got_cls, want_cls) and got.replace("minigrad.", "torch.") == want


@pytest.mark.parametrize("kw", [{"acc_policy": "fast"}, {"chunking_method": "aspect_ratio:0"},
                                {"chunking_method": "square"}, {"batch_chunk_size": 0},
                                {"acc_dtype": "int64"}], ids=str)
def test_options_refusals_are_pytorchs(kw) -> None:
    def build(m):
        return {k: getattr(m, v) if k == "acc_dtype" else v for k, v in kw.items()}
    got_cls, got = _error(mg.nn.LinearCrossEntropyOptions, **build(mg))
    want_cls, want = _error(torch.nn.LinearCrossEntropyOptions, **build(torch))
    assert got_cls is want_cls and got.replace("minigrad.", "torch.") == want


def test_options_that_cannot_chunk_warn_and_take_the_reference_path() -> None:
    rng = np.random.default_rng(5)
    (tx, mx), (tw, mw) = _pair(rng.standard_normal((4, 3))), _pair(rng.standard_normal((5, 3)))
    t = rng.integers(0, 5, 4)
    with pytest.warns(UserWarning) as got:
        lm = MF.linear_cross_entropy(mx, mw, mg.tensor(t), label_smoothing=0.1,
                                     options=mg.nn.LinearCrossEntropyOptions())
    with pytest.warns(UserWarning) as want:
        lt = TF.linear_cross_entropy(tx, tw, torch.tensor(t), label_smoothing=0.1,
                                     options=torch.nn.LinearCrossEntropyOptions())
    assert str(got[0].message).replace("minigrad.", "torch.") == str(want[0].message)
    assert got[0].filename == __file__  # stacklevel=2: the warning points at the caller
    assert _names(lm.grad_fn) == _names(lt.grad_fn)
    np.testing.assert_allclose(lm.item(), lt.item(), rtol=0, atol=1e-12)


# -- the module ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kw", [{}, {"bias": True}, {"out_features": (2, 3), "bias": True},
                                {"bias": True, "options": "chunked", "reduction": "sum"}], ids=str)
def test_the_module_draws_pytorchs_parameters_and_computes_its_loss(kw) -> None:
    def build(m):
        args = dict(kw)
        if args.get("options") == "chunked":
            args["options"] = m.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
        m.manual_seed(0)
        return m.nn.LinearCrossEntropyLoss(4, 6, weight=m.arange(1.0, 7.0), ignore_index=2, **args)
    mm, tm = build(mg), build(torch)
    assert list(mm.state_dict()) == list(tm.state_dict())
    for (name, p), (_, q) in zip(mm.named_parameters(), tm.named_parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy(), err_msg=name)
    assert repr(mm).replace("minigrad.", "torch.") == repr(tm)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((5, 4)).astype(np.float32)
    t = rng.integers(0, 6, (5, *kw.get("out_features", ())))
    lm, lt = mm(mg.tensor(x), mg.tensor(t)), tm(torch.tensor(x), torch.tensor(t))
    lm.backward()
    lt.backward()
    np.testing.assert_allclose(lm.item(), lt.item(), rtol=1e-5)
    np.testing.assert_allclose(mm.linear.weight.grad.numpy(), tm.linear.weight.grad.numpy(), rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("kw", [{"weight": "bad"}, {"label_smoothing": 1.5}], ids=str)
def test_the_modules_refusals_are_pytorchs(kw) -> None:
    def build(m):
        args = {k: (m.ones(3) if v == "bad" else v) for k, v in kw.items()}
        return m.nn.LinearCrossEntropyLoss(4, 6, **args)
    got_cls, got = _error(build, mg)
    want_cls, want = _error(build, torch)
    assert issubclass(got_cls, want_cls) and got == want


def test_the_names_are_where_pytorch_has_them() -> None:
    assert "linear_cross_entropy" in MF.__all__ and MF.linear_cross_entropy is lce.linear_cross_entropy
    assert {"LinearCrossEntropyLoss", "LinearCrossEntropyOptions"} <= set(mg.nn.__all__)
    assert repr(mg.nn.LinearCrossEntropyOptions()) == repr(torch.nn.LinearCrossEntropyOptions())
