"""Defects found by hostile and differential testing, each pinned by the call that found it.

A new user's call either gives PyTorch's answer or a clear error raised before
anything changed: no silently accepted shape, no half-built graph, no crash from
Python or NumPy internals. PyTorch (float64, the same inputs) is the oracle where
it is installed; the rest of the file runs without it.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

try:
    import torch
except ImportError:  # the PyTorch comparisons skip; the rest runs
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is the oracle here")
F64 = mg.float64


# -- 1. a 0-d .grad changes in place -------------------------------------------------------


@pytest.mark.parametrize("change", ["zero_", "add_", "mul_", "fill_", "iadd"])
def test_a_zero_dim_grad_can_be_changed_in_place(change: str) -> None:
    x = mg.tensor(1.0, requires_grad=True)
    (x * 3).backward()
    g = x.grad
    {"zero_": lambda: g.zero_(), "add_": lambda: g.add_(1.0), "mul_": lambda: g.mul_(2.0),
     "fill_": lambda: g.fill_(5.0), "iadd": lambda: g.__iadd__(mg.tensor(1.0))}[change]()
    assert x.grad is g
    assert g.item() == {"zero_": 0.0, "add_": 4.0, "mul_": 6.0, "fill_": 5.0, "iadd": 4.0}[change]


def test_a_scalar_parameter_trains_with_zero_grad() -> None:
    """The training loop of every course, over one scalar parameter."""
    w = mg.tensor(2.0, requires_grad=True)
    for step in range(3):
        if w.grad is not None:
            w.grad.zero_()
        (w * 3.0).backward()  # a gradient NumPy computes as a scalar
        with mg.no_grad():
            w -= 0.1 * w.grad
    assert abs(w.item() - 1.1) < 1e-6


def test_a_zero_dim_gradient_from_grad_changes_in_place() -> None:
    x = mg.tensor(2.0, requires_grad=True)
    (g,) = mg.grad(x * 3, x)
    g.add_(1.0)
    assert g.item() == 4.0


# -- 2. every target / index argument is checked against the input ------------------------

# (call, expected message) pairs PyTorch refuses too; minigrad raises ValueError (docs/pytorch-coverage.md).
TARGET_SHAPE_ERRORS: dict[str, tuple[Callable[[], Any], str]] = {
    "cross_entropy-3d-batch": (lambda: F.cross_entropy(mg.ones(1, 2, 2), mg.tensor([0, 1])),
                               r"Expected input batch_size \(1\) to match target batch_size \(2\)"),
    "cross_entropy-2d-batch": (lambda: F.cross_entropy(mg.ones(3, 2), mg.tensor([0, 1])), "batch_size"),
    "cross_entropy-0d-target": (lambda: F.cross_entropy(mg.ones(2, 3), mg.tensor(1)), "batch_size"),
    "cross_entropy-spatial": (lambda: F.cross_entropy(mg.ones(2, 3, 4), mg.zeros(2, 5, dtype=mg.int64)),
                              r"Expected target size \[2, 4\], got \[2, 5\]"),
    "cross_entropy-extra-dim": (lambda: F.cross_entropy(mg.ones(2, 3, 4), mg.zeros(2, 4, 1, dtype=mg.int64)),
                                "target size"),
    "cross_entropy-1d-input": (lambda: F.cross_entropy(mg.ones(3), mg.tensor([1, 2])), "1D input"),
    "cross_entropy-0d-input": (lambda: F.cross_entropy(mg.tensor(1.0), mg.tensor(0)),  # (same shapes: probabilities)
                               "Expected floating point type for target with class probabilities, got Long"),
    "cross_entropy-float-target-wrong-shape": (lambda: F.cross_entropy(mg.ones(2, 3), mg.tensor([0.0, 1.0])),
                                               "expected target dtype to be Long or Byte, but got Float"),
    "cross_entropy-int-probabilities": (lambda: F.cross_entropy(mg.ones(2, 3), mg.zeros(2, 3, dtype=mg.int64)),
                                        "floating point type for target with class probabilities"),
    "cross_entropy-weight": (lambda: F.cross_entropy(mg.ones(2, 3), mg.tensor([0, 1]), weight=mg.ones(4)),
                             "all 3 classes"),
    "cross_entropy-target-range": (lambda: F.cross_entropy(mg.ones(2, 3), mg.tensor([0, 3])), "Target 3 is out of bounds"),
    "nll_loss-3d-batch": (lambda: F.nll_loss(mg.ones(1, 2, 2), mg.tensor([0, 1])), "batch_size"),
    "nll_loss-0d-input": (lambda: F.nll_loss(mg.tensor(1.0), mg.tensor(0)), "1 or more dimensions"),
    "nll_loss-float-target": (lambda: F.nll_loss(mg.ones(2, 3), mg.tensor([0.0, 1.0])), "Long or Byte, but got Float"),
    "nll_loss-bool-target": (lambda: F.nll_loss(mg.ones(2, 3), mg.tensor([True, False])), "Long or Byte, but got Bool"),
    "embedding-negative-index": (lambda: F.embedding(mg.tensor([0, -1]), mg.ones(3, 2)), "out of range"),
    "embedding-index-too-large": (lambda: F.embedding(mg.tensor([0, 3]), mg.ones(3, 2)), "out of range"),
}


@pytest.mark.parametrize("call,pattern", TARGET_SHAPE_ERRORS.values(), ids=TARGET_SHAPE_ERRORS.keys())
def test_loss_and_index_arguments_are_checked(call: Callable[[], Any], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        call()


def _torch_call(name: str) -> Callable[..., Any]:
    return {"cross_entropy": torch.nn.functional.cross_entropy, "nll_loss": torch.nn.functional.nll_loss}[name]


# (input shape, target: array) forms, accepted and refused, compared with PyTorch's decision and value.
LOSS_FORMS = [
    ((1, 2, 2), np.array([0, 1])), ((3, 2), np.array([0, 1])), ((2, 3), np.array(1)), ((3,), np.array([1])),
    ((3,), np.array(1)), ((2, 3, 4), np.zeros((2, 5), int)), ((2, 3, 4), np.zeros((2, 4), int)),
    ((2, 3, 4), np.zeros((2, 4, 1), int)), ((2, 3), np.array([0.0, 1.0])), ((2, 3), np.zeros((2, 3))),
    ((2, 3), np.zeros((3, 3))), ((2, 3), np.zeros((2, 3), int)), ((0, 3), np.zeros(0, int)),
    ((2, 3, 4), np.full((2, 3, 4), 1 / 3)), ((2, 3, 4), np.zeros((2, 4, 3))), ((2, 3), np.array([0, -100])),
    ((2, 3), np.array([0, -5])), ((2, 0), np.array([0, 0])),
]


@needs_torch
@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("shape,target", LOSS_FORMS, ids=[f"{s}-{t.shape}-{t.dtype}" for s, t in LOSS_FORMS])
def test_loss_accepts_exactly_what_pytorch_accepts(name: str, shape: tuple[int, ...], target: np.ndarray) -> None:
    x = np.random.default_rng(0).normal(size=shape)
    try:
        want = _torch_call(name)(torch.tensor(x), torch.tensor(target)).numpy()
    except (RuntimeError, ValueError, IndexError) as exc:
        want = type(exc)
    fn = getattr(F, name)
    if isinstance(want, type):  # PyTorch's class, and a ValueError as minigrad raised before
        with pytest.raises(want):
            fn(mg.tensor(x, dtype=F64), mg.tensor(target))
        with pytest.raises(ValueError):
            fn(mg.tensor(x, dtype=F64), mg.tensor(target))
    else:
        got = fn(mg.tensor(x, dtype=F64), mg.tensor(target)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


# -- 3. a composite checks every argument before its first op ------------------------------


REFUSED_COMPOSITES: dict[str, Callable[[mg.Tensor], Any]] = {
    "ce-float-target": lambda x: F.cross_entropy(x, mg.tensor([0.0, 1.0])),
    "ce-weight": lambda x: F.cross_entropy(x, mg.tensor([0, 1]), weight=mg.ones(4)),
    "ce-2d-target": lambda x: F.cross_entropy(x, mg.tensor([[0, 1]])),
    "ce-3d-batch": lambda x: F.cross_entropy(mg.unsqueeze(x, 0), mg.tensor([0, 1])),
    "nll-range": lambda x: F.nll_loss(x, mg.tensor([0, 7])),
    "embedding-index": lambda x: F.embedding(mg.tensor([0, -1]), x),
    "pool-kernel-0": lambda x: mg.max_pool2d(mg.reshape(x, (1, 1, 2, 3)), 0),
    "pool-dilation-0": lambda x: mg.max_pool2d(mg.reshape(x, (1, 2, 3)), 1, dilation=0),
    "conv-dilation-0": lambda x: mg.conv2d(mg.reshape(x, (1, 2, 3)), mg.ones(1, 1, 1, 1), dilation=0),
}


@pytest.mark.parametrize("call", REFUSED_COMPOSITES.values(), ids=REFUSED_COMPOSITES.keys())
def test_a_refused_composite_call_records_no_node(call: Callable[[mg.Tensor], Any]) -> None:
    """Every argument is checked before the composite's first op (docs/architecture.md, bad input): no node.create
    of the call that failed (an input built by the test itself is made before the recording)."""
    x = mg.ones(2, 3, requires_grad=True)
    with mg.trace() as tr:
        with pytest.raises((ValueError, RuntimeError)):
            call(x)
    # The test's own reshape/unsqueeze of x may be recorded; nothing after it may be.
    made = [e.op for e in tr.events if e.kind == "node.create" and e.op not in ("accumulate", "reshape", "unsqueeze")]
    assert made == [], made


# -- 4. pooling and convolution arguments ---------------------------------------------------

POOL_ARGS = [
    dict(kernel_size=0), dict(kernel_size=-1), dict(kernel_size=(2, 0)), dict(kernel_size=5),
    dict(kernel_size=2, stride=0), dict(kernel_size=2, stride=-1), dict(kernel_size=2, stride=(1, 0)),
    dict(kernel_size=2, padding=-1), dict(kernel_size=2, padding=2), dict(kernel_size=2, dilation=0),
    dict(kernel_size=2, dilation=-1), dict(kernel_size=2, dilation=3),
]
# PyTorch's words (a zero kernel_size is the default stride's zero first)
POOL_NAMES = ["stride should not be zero", "kernel size should be greater than zero", "stride should not be zero",
              "Output size is too small", "stride should not be zero", "stride should be greater than zero",
              "stride should not be zero", "pad must be non-negative",
              "pad should be at most half of effective kernel size", "dilation should be greater than zero",
              "dilation should be greater than zero", "Output size is too small"]


@pytest.mark.parametrize("kwargs,word", zip(POOL_ARGS, POOL_NAMES), ids=[str(a) for a in POOL_ARGS])
def test_max_pool2d_refuses_bad_window_arguments_naming_them(kwargs: dict[str, Any], word: str) -> None:
    for fn in (mg.max_pool2d, F.max_pool2d):
        with pytest.raises(RuntimeError, match=rf"^max_pool2d\(\): .*{word}"):
            fn(mg.ones(1, 1, 3, 3), **kwargs)


CONV_ARGS = [
    (dict(stride=0), (1, 1, 2, 2), "stride"), (dict(stride=(1, -1)), (1, 1, 2, 2), "stride"),
    (dict(padding=-1), (1, 1, 2, 2), "padding"), (dict(dilation=0), (1, 1, 2, 2), "dilation"),
    (dict(dilation=-1), (1, 1, 2, 2), "dilation"), (dict(groups=0), (1, 1, 2, 2), "groups"),
    (dict(groups=-1), (1, 1, 2, 2), "groups"), (dict(), (1, 1, 4, 4), "Kernel size can't be greater"),
    (dict(dilation=3), (1, 1, 2, 2), "Kernel size can't be greater"), (dict(), (1, 1, 0, 2), "kernel size"),
    (dict(groups=2), (1, 1, 2, 2), "groups=2"),
]


@pytest.mark.parametrize("kwargs,w_shape,word", CONV_ARGS, ids=[f"{a}-{w}" for a, w, _ in CONV_ARGS])
def test_conv2d_refuses_bad_window_arguments_naming_them(kwargs: dict[str, Any], w_shape: tuple[int, ...],
                                                         word: str) -> None:
    x = mg.ones(1, 2 if kwargs.get("groups") == 2 else 1, 3, 3)
    with pytest.raises(RuntimeError, match=rf"^conv2d\(\): .*{word}"):
        F.conv2d(x, mg.ones(*w_shape), **kwargs)


@needs_torch
@pytest.mark.parametrize("kwargs", POOL_ARGS, ids=[str(a) for a in POOL_ARGS])
def test_pytorch_refuses_the_same_pooling_arguments_with_runtime_error(kwargs: dict[str, Any]) -> None:
    with pytest.raises(RuntimeError):
        torch.nn.functional.max_pool2d(torch.ones(1, 1, 3, 3), **kwargs)


# -- 5. NaN semantics of clamp, and div's rounding modes ------------------------------------

NAN, INF = float("nan"), float("inf")


@needs_torch
@pytest.mark.parametrize("bounds", ["min", "max", "both"])
def test_clamp_with_tensor_bounds_matches_pytorch_values_and_gradients(bounds: str) -> None:
    x = np.array([1.0, NAN, 3.0, 5.0, 4.0, -INF, 2.0, 0.5, 7.0])
    lo = np.array([2.0, 0.0, NAN, 5.0, 6.0, 0.0, 2.0, 1.0, INF])
    hi = np.array([3.0, 0.0, 1.0, 5.0, 5.0, NAN, 2.0, 1.0, 8.0])
    seed = np.arange(1.0, 10.0)
    kw = {"min": lo, "max": hi} if bounds == "both" else {bounds: lo if bounds == "min" else hi}
    t_x = torch.tensor(x, requires_grad=True)
    t_kw = {k: torch.tensor(v, requires_grad=True) for k, v in kw.items()}
    t_out = torch.clamp(t_x, **t_kw)
    t_out.backward(torch.tensor(seed))
    m_x = mg.tensor(x, dtype=F64, requires_grad=True)
    m_kw = {k: mg.tensor(v, dtype=F64, requires_grad=True) for k, v in kw.items()}
    m_out = mg.clamp(m_x, **m_kw)
    m_out.backward(mg.tensor(seed, dtype=F64))
    np.testing.assert_array_equal(m_out.detach().numpy(), t_out.detach().numpy())
    np.testing.assert_array_equal(m_x.grad.numpy(), t_x.grad.numpy())
    for k in kw:
        np.testing.assert_array_equal(m_kw[k].grad.numpy(), t_kw[k].grad.numpy())


def test_clamp_with_a_nan_bound_gives_nan_and_no_gradient() -> None:
    x = mg.tensor([1.0, 4.0], dtype=F64, requires_grad=True)
    lo = mg.tensor([NAN, 0.0], dtype=F64, requires_grad=True)
    y = mg.clamp(x, min=lo)
    y.sum().backward()
    assert np.isnan(y.detach().numpy()[0]) and y.detach().numpy()[1] == 4.0
    assert x.grad.tolist() == [0.0, 1.0] and lo.grad.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_with_a_rounding_mode_has_gradient_zero_even_at_a_zero_divisor(mode: str) -> None:
    a = mg.tensor([1.0, -2.0, 3.0, 0.0], dtype=F64, requires_grad=True)
    b = mg.tensor([0.0, 1.5, 2.0, 0.0], dtype=F64, requires_grad=True)
    q = mg.div(a, b, rounding_mode=mode)
    q.backward(mg.tensor([NAN, 1.0, INF, 2.0], dtype=F64))
    assert a.grad.tolist() == [0.0] * 4 and b.grad.tolist() == [0.0] * 4


@needs_torch
@pytest.mark.parametrize("mode", ["floor", "trunc"])
def test_div_rounding_values_match_pytorch(mode: str) -> None:
    a = np.array([7.0, -7.0, 0.25, -0.25, 0.0, -0.0, INF, -INF, NAN, 5.5, 1e300, 3.0])
    b = np.array([2.0, 2.0, 0.001, 0.001, 3.0, -3.0, 2.0, 0.0, 1.0, -0.5, 1e-300, 0.0])
    want = torch.div(torch.tensor(a), torch.tensor(b), rounding_mode=mode).numpy()
    got = mg.div(mg.tensor(a, dtype=F64), mg.tensor(b, dtype=F64), rounding_mode=mode).numpy()
    np.testing.assert_array_equal(got, want)
    assert (np.signbit(got) == np.signbit(want)).all()
    ia, ib = np.array([7, -7, 6, -6, 0]), np.array([2, 2, -4, 4, 3])
    want_i = torch.div(torch.tensor(ia), torch.tensor(ib), rounding_mode=mode)
    got_i = mg.div(mg.tensor(ia), mg.tensor(ib), rounding_mode=mode)
    assert got_i.dtype == mg.int64 and got_i.tolist() == want_i.tolist()


# -- found by the fuzzer's long profile --------------------------------------------------------


def test_a_retained_gradient_accumulates_over_backward_calls_as_pytorch_does() -> None:
    import torch

    for lib in (torch, mg):
        x = lib.tensor(0.7, requires_grad=True)
        y = x.abs()
        y.retain_grad()
        z = y * 3
        z.backward(retain_graph=True)
        z.backward()
        assert float(y.grad) == 6.0 and float(x.grad) == 6.0, lib.__name__


def test_backward_takes_pytorch_arguments() -> None:
    import torch

    def run(lib):
        out = []
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        (a * b).sum().backward(inputs=[a])  # only a's .grad
        out += [a.grad.tolist(), b.grad]
        h = a * 2
        (h * b).sum().backward(inputs=[h])  # a non-leaf input gets a .grad
        out += [h.grad.tolist(), a.grad.tolist()]
        v = lib.tensor([1.0, 2.0], requires_grad=True)
        (v * 3).backward(gradient=lib.tensor([1.0, 2.0]))
        out.append(v.grad.tolist())
        x = lib.tensor(2.0, requires_grad=True)
        (x ** 3).backward(create_graph=True)  # retain_graph defaults to create_graph
        g = x.grad
        x.grad = None
        g.backward()
        out.append(float(x.grad))
        return out

    assert run(mg) == run(torch)
    with pytest.raises(RuntimeError, match="cannot be empty"):
        mg.tensor(1.0, requires_grad=True).backward(inputs=[])
    with pytest.raises(TypeError, match="'gradient'"):
        mg.tensor([1.0], requires_grad=True).backward(gradient=[1.0])


def test_an_unreduced_loss_is_a_tensor_of_its_own_not_a_view() -> None:
    # An in-place change of F.nll_loss(..., reduction="none")'s result is PyTorch's ordinary
    # in-place op on a non-leaf; minigrad refused it as a change of a view.
    import torch

    def run(lib):
        x = lib.tensor([0.1, -0.3], requires_grad=True)
        loss = lib.nn.functional.nll_loss(x.log_softmax(-1), lib.tensor(1), reduction="none")
        loss.add_(0.5)
        loss.backward()
        return round(float(loss), 6), [round(v, 6) for v in x.grad.tolist()]

    assert run(mg) == run(torch)


def test_number_over_tensor_is_reciprocal_times_number_as_in_pytorch() -> None:
    # PyTorch computes 3 / x as x.reciprocal() * 3; reciprocal saves its result, so an in-place
    # change of x after the forward pass does not stop backward (minigrad's div saved x and refused).
    import torch

    def run(lib):
        x = lib.tensor([2.0, 4.0], requires_grad=True)
        y = 3.0 / x
        names = [y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()]
        with lib.no_grad():
            x.add_(1.0)
        y.sum().backward()
        return y.tolist(), x.grad.tolist(), [n.replace("GradNode", "").replace("Backward0", "") for n in names]

    assert run(mg) == run(torch)


def test_same_dtype_casts_and_one_element_extremes_are_what_pytorch_returns() -> None:
    import torch

    def run(lib):
        x = lib.randn(3, requires_grad=True).float()  # already float32: x itself, still a leaf
        (x * 2).sum().backward()
        s = lib.tensor(0.5, requires_grad=True)
        v, i = s.max(dim=0)  # a 0-d tensor's max over dim 0 saves nothing: s may change after
        with lib.no_grad():
            s.add_(1.0)
        v.backward()
        return x.is_leaf, x.grad.tolist(), x.type_as(x) is x, float(v), int(i), float(s.grad)

    assert run(mg) == run(torch)


def test_an_unreduced_cross_entropy_over_extra_dims_is_not_a_view() -> None:
    import torch

    def run(lib):
        x = lib.tensor(np.arange(8.0).reshape(1, 2, 2, 2) / 7, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(x, lib.tensor([[[0, 1], [1, 0]]]), reduction="none")
        loss.add_(0.5)
        loss.sum().backward()
        return np.round(loss.detach().numpy(), 12).tolist(), np.round(x.grad.numpy(), 12).tolist()

    assert run(mg) == run(torch)


def test_clamp_gradient_outside_the_bounds_is_plus_zero_as_pytorch_gives() -> None:
    import torch

    def run(lib):
        x = lib.tensor([0.1, 0.5, 1.5, float("nan")], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(x.clamp(min=0.2, max=1.0), [x], lib.tensor([-1.0, -2.0, -3.0, -4.0], dtype=lib.float64))
        return (1 / g).tolist()  # 1 / +0 = inf: a -0 would give -inf

    assert run(mg) == run(torch)


def test_an_in_place_change_keeps_a_retained_gradient() -> None:
    import torch

    def run(lib):
        x = lib.tensor([0.3, 0.7], requires_grad=True)
        y = x * 2
        y.retain_grad()
        y.sum().backward(retain_graph=True)
        y.add_(0.5)  # new history; .grad and retaining stay, as in PyTorch
        kept = y.grad.tolist(), y.retains_grad
        y.sum().backward()
        return kept, y.grad.tolist(), x.grad.tolist(), x.retains_grad

    assert run(mg) == run(torch)
