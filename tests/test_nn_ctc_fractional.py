"""``F.ctc_loss``/``nn.CTCLoss``, fractional max pooling and ``triplet_margin_with_distance_loss`` against PyTorch:
values, gradients (``torch.autograd``), grad_fn graphs, PyTorch's random draws, errors and module reprs; CTC's
gradient against float64 central finite differences (through ``log_softmax``: PyTorch's CTC gradient is the one with
respect to the logits, NOTE in ``ops/ctc_loss.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg
from minigrad.autograd.gradcheck import gradcheck

torch = pytest.importorskip("torch")
F, TF = mg.nn.functional, torch.nn.functional


def graph(node: Any) -> Any:
    """A grad_fn's name and its next_functions, recursively (AccumulateGrad named alike in both)."""
    if node is None:
        return None
    name = node.name() if callable(getattr(node, "name", None)) else type(node).__name__
    return name.replace("torch::autograd::", ""), [graph(n) for n, _ in node.next_functions]


def both(fn: Any, *arrays: np.ndarray, grad: bool = True) -> tuple[list[Any], list[Any]]:
    """``fn(lib, *tensors)`` under PyTorch and minigrad, from the same arrays."""
    out = []
    for lib in (torch, mg):
        out.append([lib.tensor(a, requires_grad=grad and a.dtype.kind == "f") for a in arrays])
    return out[0], out[1]


# -- CTC -----------------------------------------------------------------------------------------------------

def _ctc_case(rng: np.random.Generator, form: str, dtype: Any) -> tuple[np.ndarray, Any, Any, Any]:
    T, N, C, S = 7, 3, 5, 4
    x = rng.standard_normal((T, N, C)).astype(dtype)
    targets = rng.integers(1, C, (N, S))
    tl, il = np.array([4, 2, 3]), np.array([7, 5, 2])  # the third sample has too few frames: an infinite loss
    if form == "unbatched":
        return x[:, 0], targets[0, :3], np.array(7), np.array(3)
    if form == "concatenated":
        targets = np.concatenate([targets[i, :tl[i]] for i in range(N)])
    return x, targets, il, tl


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("form", ["padded", "concatenated", "tuples", "unbatched"])
def test_ctc_loss_matches_torch(dtype: Any, reduction: str, zero_infinity: bool, form: str) -> None:
    rng = np.random.default_rng(0)
    x, targets, il, tl = _ctc_case(rng, form, dtype)
    results = []
    for lib in (torch, mg):
        xt = lib.tensor(x, requires_grad=True)
        lengths = ((tuple(il.tolist()), tuple(tl.tolist())) if form == "tuples" else (lib.tensor(il), lib.tensor(tl)))
        loss = lib.nn.functional.ctc_loss(xt.log_softmax(-1), lib.tensor(targets), *lengths, reduction=reduction,
                                          zero_infinity=zero_infinity)
        weight = lib.tensor(np.linspace(0.5, 1.5, int(np.prod(loss.shape))).reshape(tuple(loss.shape)).astype(dtype))
        (g,) = lib.autograd.grad((loss * weight).sum(), [xt])
        results.append((loss.detach().numpy(), g.numpy(), graph(loss.grad_fn), tuple(loss.shape)))
    (lt, gt, nt, st), (lm, gm, nm, sm) = results
    assert nm == nt and sm == st and lm.dtype == lt.dtype
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(lm, lt, **tol)
    np.testing.assert_allclose(gm, gt, equal_nan=True, **tol)  # an infinite loss: nan gradients, as PyTorch's


def test_ctc_loss_gradient_with_respect_to_log_probs_is_torchs() -> None:
    """Straight on the log-probabilities (no log_softmax in the graph), PyTorch's formula, exp(lp) term and all."""
    rng = np.random.default_rng(1)
    lp = torch.tensor(rng.standard_normal((6, 2, 4))).log_softmax(2).numpy()
    args = (np.array([[1, 2, 2], [3, 1, 0]]), np.array([6, 4]), np.array([3, 2]))
    grads = []
    for lib in (torch, mg):
        x = lib.tensor(lp, requires_grad=True)
        lib.nn.functional.ctc_loss(x, *(lib.tensor(a) for a in args)).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-15)
    assert (grads[1][4:, 1] == 0).all()  # frames past the input length


@pytest.mark.parametrize("targets", ["padded", "concatenated"])
def test_ctc_loss_gradient_matches_finite_differences(targets: str) -> None:
    rng = np.random.default_rng(2)
    tg = mg.tensor([[1, 2, 2], [3, 1, 0]]) if targets == "padded" else mg.tensor([1, 2, 2, 3, 1])
    x = mg.tensor(rng.standard_normal((6, 2, 4)), requires_grad=True)
    assert gradcheck(lambda x: F.ctc_loss(x.log_softmax(2), tg, (6, 5), (3, 2), blank=0, reduction="sum"), [x])
    y = mg.tensor(rng.standard_normal((5, 4)), requires_grad=True)  # unbatched, another blank, a repeated label
    assert gradcheck(lambda y: F.ctc_loss(y.log_softmax(1), mg.tensor([1, 1]), (5,), (2,), blank=3), [y])


def test_ctc_loss_double_backward_refuses_as_torch() -> None:
    lp = mg.randn(5, 1, 3, dtype=mg.float64).log_softmax(2).detach().requires_grad_()
    (g,) = mg.grad(F.ctc_loss(lp, mg.tensor([[1, 2]]), (5,), (2,)), [lp], create_graph=True)
    assert type(g.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="derivative for aten::_ctc_loss_backward is not implemented"):
        g.sum().backward()


def test_ctc_loss_edge_values() -> None:
    lp = torch.randn(4, 2, 3, dtype=torch.float64).log_softmax(2)
    args = (torch.tensor([[1, 2], [1, 1]]), torch.tensor([2, 0]), torch.tensor([2, 0]))
    want = TF.ctc_loss(lp, *args, reduction="none")
    got = F.ctc_loss(mg.tensor(lp.numpy()), *(mg.tensor(a.numpy()) for a in args), reduction="none")
    np.testing.assert_array_equal(got.numpy(), want.numpy())  # no frame: 0 for an empty target (-0.0), else inf
    assert np.signbit(got.numpy()[1]) == np.signbit(want.numpy()[1])


@pytest.mark.parametrize("seed", range(12))
def test_ctc_loss_random_cases_match_torch(seed: int) -> None:
    """Random lengths (empty targets with frames, repeated labels, too few frames), blanks and batch sizes."""
    rng = np.random.default_rng(100 + seed)
    T, N, C = int(rng.integers(1, 8)), int(rng.integers(1, 4)), int(rng.integers(2, 6))
    blank = int(rng.integers(0, C))
    labels = [c for c in range(C) if c != blank]
    tl = rng.integers(0, 5, N)
    il = rng.integers(0, T + 1, N)
    targets = np.array([[rng.choice(labels) for _ in range(int(tl.max()) or 1)] for _ in range(N)])
    if seed % 3 == 0:
        targets[:, 1:] = targets[:, :1]  # repeated labels: the skip is not allowed between them
    x = rng.standard_normal((T, N, C))
    results = []
    for lib in (torch, mg):
        xt = lib.tensor(x, requires_grad=True)
        loss = lib.nn.functional.ctc_loss(xt.log_softmax(2), lib.tensor(targets), lib.tensor(il), lib.tensor(tl),
                                          blank=blank, reduction="none", zero_infinity=bool(seed % 2))
        (g,) = lib.autograd.grad(loss.sum(), [xt])
        results.append((loss.detach().numpy(), g.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(results[1][1], results[0][1], rtol=1e-10, atol=1e-13, equal_nan=True)


def test_torch_ctc_loss_top_level() -> None:
    rng = np.random.default_rng(3)
    lp = torch.tensor(rng.standard_normal((5, 2, 4))).log_softmax(2)
    args = (np.array([[1, 2], [3, 3]]), np.array([5, 5]), np.array([2, 2]))
    for extra in ((), (0, 1), (0, 2, True)):
        want = torch.ctc_loss(lp, *(torch.tensor(a) for a in args), *extra)
        got = mg.ctc_loss(mg.tensor(lp.numpy()), *(mg.tensor(a) for a in args), *extra)
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


CTC_ERRORS = [
    ("input_lengths of another size", lambda lib, lp, tg, il, tl: (lp, tg, lib.tensor([6]), tl)),
    ("target_lengths of another size", lambda lib, lp, tg, il, tl: (lp, tg, il, lib.tensor([3]))),
    ("an input length past T", lambda lib, lp, tg, il, tl: (lp, tg, lib.tensor([7, 6]), tl)),
    ("a target length past S", lambda lib, lp, tg, il, tl: (lp, tg, il, lib.tensor([4, 2]))),
    ("a negative target length", lambda lib, lp, tg, il, tl: (lp, tg, il, lib.tensor([-1, 2]))),
    ("a negative input length", lambda lib, lp, tg, il, tl: (lp, tg, lib.tensor([-1, 2]), tl)),
    ("4-D log_probs", lambda lib, lp, tg, il, tl: (lp[None], tg, il, tl)),
    ("float lengths", lambda lib, lp, tg, il, tl: (lp, tg, il.double(), tl)),
    ("short concatenated targets", lambda lib, lp, tg, il, tl: (lp, tg.reshape(-1)[:4], il, tl)),
    ("3-D targets", lambda lib, lp, tg, il, tl: (lp, tg[None], il, tl)),
    ("targets of another batch", lambda lib, lp, tg, il, tl: (lp, tg[:1], il, tl)),
    ("int log_probs", lambda lib, lp, tg, il, tl: (lp.long(), tg, il, tl)),
    ("a 0-d length for a batch", lambda lib, lp, tg, il, tl: (lp, tg, lib.tensor(6), tl)),
]


@pytest.mark.parametrize("make", [pytest.param(m, id=i) for i, m in CTC_ERRORS])
def test_ctc_loss_errors_match_torch(make: Any) -> None:
    lp = np.log(np.full((6, 2, 4), 0.25))
    messages = []
    for lib in (torch, mg):
        args = make(lib, lib.tensor(lp), lib.tensor([[1, 2, 3], [2, 2, 0]]), lib.tensor([6, 6]), lib.tensor([3, 2]))
        with pytest.raises(Exception) as info:
            lib.nn.functional.ctc_loss(*args)
        messages.append((info.type, str(info.value).splitlines()[0]))
    assert messages[1] == messages[0]


def test_ctc_loss_blank_and_reduction_refused() -> None:
    lp = mg.zeros(3, 1, 2)
    with pytest.raises(RuntimeError, match="blank must be in label range"):
        F.ctc_loss(lp, mg.tensor([[1]]), (3,), (1,), blank=2)
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.ctc_loss(lp, mg.tensor([[1]]), (3,), (1,), reduction="foo")


def test_ctc_failed_call_leaves_no_node() -> None:
    lp = mg.zeros(3, 1, 2, requires_grad=True)
    with pytest.raises(RuntimeError):
        F.ctc_loss(lp, mg.tensor([[1, 1, 1, 1]]), (3,), (5,))
    with pytest.raises(RuntimeError):
        F.ctc_loss(lp, mg.tensor([[1]]), (4,), (1,))
    assert lp.grad is None and lp.grad_fn is None


def test_ctc_loss_module() -> None:
    assert repr(mg.nn.CTCLoss(blank=2, zero_infinity=True)) == repr(torch.nn.CTCLoss(blank=2, zero_infinity=True))
    m = mg.nn.CTCLoss(reduction="sum", zero_infinity=True)
    assert (m.blank, m.reduction, m.zero_infinity) == (0, "sum", True)
    lp = np.log(np.full((4, 1, 3), 1 / 3))
    want = torch.nn.CTCLoss(reduction="sum")(torch.tensor(lp), torch.tensor([[1, 2]]), (4,), (2,))
    got = m(mg.tensor(lp), mg.tensor([[1, 2]]), (4,), (2,))
    np.testing.assert_allclose(got.item(), want.item(), rtol=1e-12)


# -- fractional max pooling ----------------------------------------------------------------------------------

FRACTIONAL = [
    (2, (2, 3, 7, 9), 2, dict(output_size=(4, 5))),
    (2, (3, 8, 8), (3, 2), dict(output_ratio=(0.5, 0.6))),
    (2, (2, 3, 10, 7), 3, dict(output_size=(5, 3))),
    (2, (1, 2, 5, 5), 2, dict(output_size=1)),
    (3, (2, 3, 6, 7, 8), (2, 3, 2), dict(output_ratio=0.5)),
    (3, (2, 5, 6, 7), 2, dict(output_size=(3, 4, 5))),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k, shape, kernel, sizes", FRACTIONAL)
def test_fractional_max_pool_matches_torch(dtype: Any, k: int, shape: Any, kernel: Any, sizes: Any) -> None:
    """The same draws after manual_seed, the same windows (in float32 too), indices, values, gradients, graphs."""
    rng = np.random.default_rng(k + len(shape))
    x = rng.standard_normal(shape).astype(dtype)
    x.flat[rng.integers(0, x.size, 3)] = x.flat[0]  # ties: the first maximum wins
    x.flat[5] = np.nan  # a NaN wins its windows
    results = []
    for lib, seed in ((torch, torch.manual_seed), (mg, mg.manual_seed)):
        xt = lib.tensor(x, requires_grad=True)
        seed(3)
        out, idx = getattr(lib.nn.functional, f"fractional_max_pool{k}d")(xt, kernel, return_indices=True, **sizes)
        w = lib.tensor(np.linspace(-1, 1, out.numel()).reshape(tuple(out.shape)).astype(dtype))
        (g,) = lib.autograd.grad((out * w).sum(), [xt], create_graph=True)
        results.append((out.detach().numpy(), idx.numpy(), g.detach().numpy(), graph(out.grad_fn), graph(g.grad_fn)))
    for want, got in zip(*results):
        if isinstance(want, np.ndarray):
            np.testing.assert_array_equal(got, want)
        else:
            assert got == want


@pytest.mark.parametrize("k", [2, 3])
def test_fractional_max_pool_given_samples_and_module(k: int) -> None:
    rng = np.random.default_rng(7)
    shape = (2, 3) + (7,) * k
    x, samples = rng.standard_normal(shape), rng.random((2, 3, k))
    outs = []
    for lib in (torch, mg):
        pool = getattr(lib.nn, f"FractionalMaxPool{k}d")(2, output_size=3, return_indices=True,
                                                         _random_samples=lib.tensor(samples))
        outs.append((repr(pool), list(pool.state_dict()), *(t.detach().numpy() for t in pool(lib.tensor(x)))))
    assert outs[0][:2] == outs[1][:2]
    np.testing.assert_array_equal(outs[1][2], outs[0][2])
    np.testing.assert_array_equal(outs[1][3], outs[0][3])


@pytest.mark.parametrize("k", [2, 3])
def test_fractional_max_pool_gradient_matches_finite_differences(k: int) -> None:
    rng = np.random.default_rng(k)
    x = mg.tensor(rng.permutation(2 * 2 * 6 ** k).reshape((2, 2) + (6,) * k) / 10.0, requires_grad=True)
    samples = mg.tensor(rng.random((2, 2, k)))
    pool = getattr(F, f"fractional_max_pool{k}d")
    assert gradcheck(lambda x: pool(x, 2, output_size=3, _random_samples=samples), [x])


FRACTIONAL_ERRORS = [
    ("no size", lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 2)),
    ("pool too large", lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 4, output_size=(5, 5))),
    ("pool too wide", lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 3, output_size=(5, 8))),
    ("5-D", lambda lib, x: lib.nn.functional.fractional_max_pool2d(x[None], 2, output_size=2)),
    ("samples' last dim", lambda lib, x: lib.nn.functional.fractional_max_pool2d(
        x, 2, output_size=2, _random_samples=lib.rand(2, 3, 3))),
    ("samples' planes", lambda lib, x: lib.nn.functional.fractional_max_pool2d(
        x, 2, output_size=2, _random_samples=lib.rand(2, 2, 2))),
    ("2-D samples", lambda lib, x: lib.nn.functional.fractional_max_pool2d(
        x, 2, output_size=2, _random_samples=lib.rand(3, 2))),
    ("too few samples", lambda lib, x: lib.nn.functional.fractional_max_pool2d(
        x, 2, output_size=2, _random_samples=lib.rand(1, 3, 2))),
    ("three ratios", lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 2, output_ratio=(0.5, 0.5, 0.5))),
    ("a bare ratio in F", lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 2, output_ratio=0.5)),
    ("3-D pool too large", lambda lib, x: lib.nn.functional.fractional_max_pool3d(lib.rand(1, 2, 4, 5, 6), 3,
                                                                                  output_size=3)),
    ("3-D of 3 dims", lambda lib, x: lib.nn.functional.fractional_max_pool3d(lib.rand(4, 5, 6), 2, output_size=2)),
    ("int input", lambda lib, x: lib.nn.functional.fractional_max_pool2d(lib.ones(1, 1, 4, 4, dtype=lib.long), 2,
                                                                         output_size=2)),
    ("module without a size", lambda lib, x: lib.nn.FractionalMaxPool2d(2)),
    ("module with both", lambda lib, x: lib.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5)),
    ("module ratio past 1", lambda lib, x: lib.nn.FractionalMaxPool3d(2, output_ratio=1.5)),
]


@pytest.mark.parametrize("call", [pytest.param(c, id=i) for i, c in FRACTIONAL_ERRORS])
def test_fractional_max_pool_errors_match_torch(call: Any) -> None:
    messages = []
    for lib in (torch, mg):
        with pytest.raises(Exception) as info:
            call(lib, lib.rand(2, 3, 7, 9))
        messages.append((info.type, str(info.value).splitlines()[0]))
    assert messages[1] == messages[0]


# -- triplet_margin_with_distance_loss -------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["default", "swap-sum", "cosine-none", "module"])
def test_triplet_margin_with_distance_loss_matches_torch(kind: str) -> None:
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((4, 5)) for _ in range(3)]
    results = []
    for lib in (torch, mg):
        a, p, n = (lib.tensor(v, requires_grad=True) for v in arrays)
        cosine = lambda x, y: 1 - lib.nn.functional.cosine_similarity(x, y)  # noqa: E731
        call = {"default": lambda: lib.nn.functional.triplet_margin_with_distance_loss(a, p, n),
                "swap-sum": lambda: lib.nn.functional.triplet_margin_with_distance_loss(a, p, n, swap=True,
                                                                                        reduction="sum"),
                "cosine-none": lambda: lib.nn.functional.triplet_margin_with_distance_loss(
                    a, p, n, distance_function=cosine, margin=0.5, reduction="none"),
                "module": lambda: lib.nn.TripletMarginWithDistanceLoss(margin=2.0, swap=True)(a, p, n)}[kind]
        loss = call()
        grads = lib.autograd.grad(loss.sum(), [a, p, n])
        results.append((loss.detach().numpy(), [g.numpy() for g in grads], graph(loss.grad_fn)))
    np.testing.assert_allclose(results[1][0], results[0][0], rtol=1e-12)
    for gm, gt in zip(results[1][1], results[0][1]):
        np.testing.assert_allclose(gm, gt, rtol=1e-10, atol=1e-14)
    assert results[1][2] == results[0][2]


def test_triplet_margin_with_distance_loss_errors_and_repr() -> None:
    assert repr(mg.nn.TripletMarginWithDistanceLoss()) == repr(torch.nn.TripletMarginWithDistanceLoss())
    for lib_calls in ((lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
                           lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(3))),
                      (lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=0)),
                      (lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
                           lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(2, 3), margin=-1.0)),
                      (lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
                           lib.zeros(2, 3), lib.zeros(2, 3), lib.zeros(2, 3), reduction="x"))):
        messages = []
        for lib in (torch, mg):
            with pytest.raises(Exception) as info:
                lib_calls(lib)
            messages.append((info.type, str(info.value)))
        assert messages[1] == messages[0]


# -- AdaptiveLogSoftmaxWithLoss --------------------------------------------------------------------------------

def test_adaptive_log_softmax_matches_torch_after_the_same_seed() -> None:
    """The same parameter draws, outputs, loss, gradients, graph, repr, log_prob and predict as PyTorch's."""
    results = []
    for lib in (torch, mg):
        lib.manual_seed(0)
        asm = lib.nn.AdaptiveLogSoftmaxWithLoss(16, 20, cutoffs=[5, 12], div_value=2.0, head_bias=True).double()
        x = lib.randn(7, 16, dtype=lib.float64).requires_grad_()
        target = lib.tensor([0, 4, 5, 11, 12, 19, 3])
        out = asm(x, target)
        out.loss.backward()
        one = asm(x[0], target[0])
        results.append(dict(
            output=out.output.detach().numpy(), loss=out.loss.item(), x_grad=x.grad.numpy(),
            grads=[p.grad.numpy() for p in asm.parameters()], graph=graph(out.loss.grad_fn), repr=repr(asm),
            names=[n for n, _ in asm.named_parameters()], fields=(type(out).__name__, out._fields),
            log_prob=asm.log_prob(x).detach().numpy(), predict=asm.predict(x).numpy(),
            one=(tuple(one.output.shape), one.output.item(), one.loss.item())))
    want, got = results
    for key in ("graph", "repr", "names", "fields"):
        assert got[key] == want[key], key
    for key in ("output", "x_grad", "log_prob"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-12, atol=1e-14)
    for g, w in zip(got["grads"], want["grads"]):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-14)
    np.testing.assert_array_equal(got["predict"], want["predict"])
    assert got["loss"] == pytest.approx(want["loss"], rel=1e-12)
    assert got["one"][0] == want["one"][0] and got["one"][1:] == pytest.approx(want["one"][1:], rel=1e-12)


ASM_ERRORS = [
    ("no cutoffs", lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [])),
    ("unsorted cutoffs", lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3])),
    ("a cutoff past n_classes - 1", lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3, 10])),
    ("batch sizes differ", lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(lib.zeros(2, 4),
                                                                                     lib.tensor([1, 2, 3]))),
    ("a 1-D target with 3-D input", lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(lib.zeros(2, 1, 4),
                                                                                             lib.tensor([1, 2]))),
    ("a 2-D target", lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(lib.zeros(2, 4),
                                                                              lib.tensor([[1], [2]]))),
    ("a target out of range", lambda lib: lib.nn.AdaptiveLogSoftmaxWithLoss(4, 10, [3])(lib.zeros(2, 4),
                                                                                       lib.tensor([1, 12]))),
]


@pytest.mark.parametrize("call", [pytest.param(c, id=i) for i, c in ASM_ERRORS])
def test_adaptive_log_softmax_errors_match_torch(call: Any) -> None:
    messages = []
    for lib in (torch, mg):
        with pytest.raises(Exception) as info:
            call(lib)
        messages.append((info.type, str(info.value).replace("torch.Size", "Size").replace("minigrad.Size", "Size")))
    assert messages[1] == messages[0]


# -- the small ones: NLLLoss2d, Container, factory_kwargs, CrossMapLRN2d, multi_head_attention_forward ----------

@pytest.mark.parametrize("name, make", [("NLLLoss2d", lambda lib: lib.nn.NLLLoss2d(ignore_index=3)),
                                        ("Container", lambda lib: lib.nn.Container(a=lib.nn.Linear(1, 1)))])
def test_deprecated_modules_warn_as_torch(name: str, make: Any) -> None:
    seen = []
    for lib in (torch, mg):
        with pytest.warns(FutureWarning) as record:
            module = make(lib)
        seen.append((str(record[0].message), repr(module)))
    assert seen[1] == seen[0]
    assert isinstance(module, mg.nn.NLLLoss if name == "NLLLoss2d" else mg.nn.Module)


def test_factory_kwargs_as_torch() -> None:
    assert mg.nn.factory_kwargs(None) == {}
    assert mg.nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": mg.float32}}) == {
        "device": "cpu", "dtype": mg.float32}
    for bad in ({"foo": 1}, {"dtype": 1, "factory_kwargs": {"dtype": 2}}):
        messages = []
        for lib in (torch, mg):
            with pytest.raises(TypeError) as info:
                lib.nn.factory_kwargs(bad)
            messages.append(str(info.value))
        assert messages[1] == messages[0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("size, shape, options", [(3, (2, 5, 3, 4), {}), (5, (2, 7, 2, 3), dict(alpha=0.5, beta=0.9,
                                                                                                 k=2.0)),
                                                  (2, (1, 4, 3, 3), dict(alpha=1.0)), (4, (2, 3, 2, 2), dict(alpha=0.3))])
def test_cross_map_lrn2d_matches_torch(dtype: Any, size: int, shape: Any, options: Any) -> None:
    """The legacy kernel's values and its legacy backward (not the forward's exact derivative), node and repr."""
    x = np.random.default_rng(size).standard_normal(shape).astype(dtype)
    results = []
    for lib in (torch, mg):
        xt = lib.tensor(x, requires_grad=True)
        lrn = lib.nn.CrossMapLRN2d(size, **options)
        out = lrn(xt)
        (out * lib.tensor(np.linspace(-1, 1, x.size).reshape(shape).astype(dtype))).sum().backward()
        results.append((out.detach().numpy(), xt.grad.numpy(), out.grad_fn.name(), repr(lrn)))
    tol = dict(rtol=1e-12, atol=1e-12) if dtype == np.float64 else dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[1][0], results[0][0], **tol)
    np.testing.assert_allclose(results[1][1], results[0][1], **tol)
    assert results[1][2:] == results[0][2:]
    with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D instead."):
        mg.nn.CrossMapLRN2d(3)(mg.ones(2, 3, 4))


L, S, N, E, H = 3, 4, 2, 6, 2
MHA_RNG = np.random.default_rng(8)
MHA = dict(q=MHA_RNG.standard_normal((L, N, E)), k=MHA_RNG.standard_normal((S, N, E)),
           v=MHA_RNG.standard_normal((S, N, E)), w=MHA_RNG.standard_normal((3 * E, E)) * 0.3,
           b=MHA_RNG.standard_normal(3 * E) * 0.1, ow=MHA_RNG.standard_normal((E, E)) * 0.3,
           ob=MHA_RNG.standard_normal(E) * 0.1, bk=MHA_RNG.standard_normal((1, 1, E)),
           bv=MHA_RNG.standard_normal((1, 1, E)), wq=MHA_RNG.standard_normal((E, E)),
           wk=MHA_RNG.standard_normal((E, 5)), wv=MHA_RNG.standard_normal((E, 7)),
           k5=MHA_RNG.standard_normal((S, N, 5)), v7=MHA_RNG.standard_normal((S, N, 7)),
           sk=MHA_RNG.standard_normal((N * H, S, E // H)), sv=MHA_RNG.standard_normal((N * H, S, E // H)),
           am=MHA_RNG.standard_normal((L, S)))


def _mha(lib: Any, t: dict[str, Any], q: str = "q", k: str = "k", v: str = "v", **kw: Any) -> Any:
    return lib.nn.functional.multi_head_attention_forward(t[q], t[k], t[v], E, H, kw.pop("w", t["w"]), t["b"], None,
                                                          None, False, 0.0, t["ow"], t["ob"], **kw)


MHA_CASES = {
    "self-attention": lambda lib, t: _mha(lib, t, "q", "q", "q"),
    "float mask, per head": lambda lib, t: _mha(lib, t, attn_mask=t["am"], average_attn_weights=False),
    "bias_kv, zero_attn": lambda lib, t: lib.nn.functional.multi_head_attention_forward(
        t["q"], t["k"], t["k"], E, H, t["w"], None, t["bk"], t["bv"], True, 0.0, t["ow"], None),
    "separate projections": lambda lib, t: _mha(lib, t, "q", "k5", "v7", w=None, use_separate_proj_weight=True,
                                                q_proj_weight=t["wq"], k_proj_weight=t["wk"], v_proj_weight=t["wv"]),
    "unbatched": lambda lib, t: lib.nn.functional.multi_head_attention_forward(
        t["q"][:, 0], t["k"][:, 0], t["v"][:, 0], E, H, t["w"], t["b"], None, None, False, 0.0, t["ow"], t["ob"]),
    "static_k, static_v": lambda lib, t: _mha(lib, t, static_k=t["sk"], static_v=t["sv"]),
}


@pytest.mark.parametrize("case", list(MHA_CASES))
def test_multi_head_attention_forward_matches_torch(case: str) -> None:
    results = []
    for lib in (torch, mg):
        t = {k: lib.tensor(v, requires_grad=True) for k, v in MHA.items()}
        out, weights = MHA_CASES[case](lib, t)
        leaves = list(t.values())
        grads = lib.autograd.grad(out.sum() + weights.sum(), leaves, allow_unused=True)
        results.append((out.detach().numpy(), weights.detach().numpy(),
                        [None if g is None else g.numpy() for g in grads], graph(out.grad_fn)))
    (out_t, w_t, g_t, n_t), (out_m, w_m, g_m, n_m) = results
    np.testing.assert_allclose(out_m, out_t, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w_m, w_t, rtol=1e-10, atol=1e-12)
    for gm, gt in zip(g_m, g_t):
        if gt is None or gm is None:  # unused (or zero)
            assert gt is None or not gt.any()
            assert gm is None or not gm.any()
        else:
            np.testing.assert_allclose(gm, gt, rtol=1e-9, atol=1e-12)
    assert n_m == n_t


def test_multi_head_attention_module_runs_the_functional_code() -> None:
    """The module and the functional form on the module's parameters give the same numbers, and the module is
    PyTorch's after the same seed."""
    outs = []
    for lib in (torch, mg):
        lib.manual_seed(1)
        mha = lib.nn.MultiheadAttention(E, H, batch_first=True).double()
        x = lib.tensor(MHA["q"]).transpose(0, 1)
        out, weights = mha(x, x, x)
        seq = x.transpose(0, 1)  # (one tensor for query, key and value: the packed projection, as the module's)
        f_out, f_weights = lib.nn.functional.multi_head_attention_forward(
            seq, seq, seq, E, H, mha.in_proj_weight, mha.in_proj_bias, None, None, False, 0.0, mha.out_proj.weight,
            mha.out_proj.bias)
        np.testing.assert_array_equal(f_out.transpose(0, 1).detach().numpy(), out.detach().numpy())
        outs.append(out.detach().numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-10, atol=1e-12)


def test_multi_head_attention_forward_refuses_as_torch() -> None:
    t = {k: mg.tensor(v) for k, v in MHA.items()}
    with pytest.raises(AssertionError, match="key shape .* does not match value shape"):
        _mha(mg, t, "q", "k5", "v7")
    with pytest.raises(AssertionError, match="use_separate_proj_weight is False but in_proj_weight is None"):
        _mha(mg, t, w=None)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 6, but got 5"):
        _mha(mg, t, "k5", "k5", "k5")
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is \(4, 3\), but should be \(3, 4\)."):
        _mha(mg, t, attn_mask=t["am"].T)
