"""Every GPU kernel against the CPU kernel, forward and backward (needs CuPy and a CUDA device).

For each op: the same random inputs run on the CPU and on the GPU; the
forward values and the gradients (``backward`` of a weighted sum, so every
output element gets its own gradient) must agree, and the trace must show
that the GPU kernel - not a CPU fallback - computed the forward.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fake_cupy
import minigrad as mg

pytestmark = pytest.mark.gpu

TOL = {mg.float16: (3e-2, 1e-1), mg.float32: (2e-5, 1e-5), mg.float64: (1e-11, 1e-12)}
FLOATS = [mg.float32, mg.float64]
ALL_FLOATS = [mg.float16, mg.float32, mg.float64]


def _rand(shape, dtype, low=-2.0, high=2.0, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(low, high, size=shape).astype(dtype.np)


def _run(fn, arrays, dtype, device, grad=True):
    """``fn`` on tensors made from ``arrays`` on ``device``: (output, grads, kernel.select events)."""
    ts = [mg.tensor(a, dtype=dtype, requires_grad=grad).to(device) if a.dtype.kind == "f"
          else mg.tensor(a).to(device) for a in arrays]
    leaves = [t for t in ts if t.requires_grad]
    with mg.trace() as tr:
        out = fn(*ts)
    grads = []
    if grad and out.dtype.is_floating:
        w = mg.tensor(_rand(out.shape, dtype, seed=7), dtype=dtype).to(device)
        (out * w).sum().backward()
        # leaves were moved with .to(device): their .grad lives on the CPU leaf
        grads = [t.grad for t in leaves]
    sel = [e for e in tr.events if e.kind == "kernel.select"]
    return out, grads, sel


def _leaf_grads(fn, arrays, dtype, device):
    """Gradients w.r.t. CPU leaves that are moved to ``device`` inside the graph."""
    leaves = [mg.tensor(a, dtype=dtype, requires_grad=True) if a.dtype.kind == "f" else mg.tensor(a) for a in arrays]
    moved = [t.to(device) for t in leaves]
    with mg.trace() as tr:
        out = fn(*moved)
    if out.dtype.is_floating:
        w = mg.tensor(_rand(out.shape, dtype, seed=7), dtype=dtype).to(device)
        (out * w).sum().backward()
    return out, [t.grad for t in leaves if t.requires_grad], [e for e in tr.events if e.kind == "kernel.select"]


def check(op_name, fn, arrays, dtype, backend="GPU", grad=True):
    rtol, atol = TOL[dtype]
    cpu_out, cpu_grads, _ = _leaf_grads(fn, arrays, dtype, "cpu") if grad else (*_run(fn, arrays, dtype, "cpu", False)[:1], [], [])
    if grad:
        gpu_out, gpu_grads, sel = _leaf_grads(fn, arrays, dtype, "gpu")
    else:
        gpu_out, gpu_grads, sel = _run(fn, arrays, dtype, "gpu", grad=False)
    assert gpu_out.device == "gpu"
    mine = [e for e in sel if e.op == op_name]
    assert mine and mine[0].backend == backend and not mine[0].fallback_cpu, mine
    assert gpu_out.dtype == cpu_out.dtype and gpu_out.shape == cpu_out.shape
    np.testing.assert_allclose(gpu_out.detach().numpy().astype(np.float64), cpu_out.detach().numpy().astype(np.float64), rtol=rtol, atol=atol)
    for g_gpu, g_cpu in zip(gpu_grads, cpu_grads):
        assert g_gpu is not None and g_cpu is not None
        assert g_gpu.dtype == g_cpu.dtype
        np.testing.assert_allclose(g_gpu.detach().numpy().astype(np.float64), g_cpu.detach().numpy().astype(np.float64),
                                   rtol=rtol * 10, atol=atol * 10)


UNARY = {
    "neg": (mg.neg, (-2, 2)), "exp": (mg.exp, (-2, 2)), "log": (mg.log, (0.1, 3)), "sqrt": (mg.sqrt, (0.1, 3)),
    "abs": (mg.abs, (-2, 2)), "sin": (mg.sin, (-3, 3)), "cos": (mg.cos, (-3, 3)), "tanh": (mg.tanh, (-3, 3)),
    "sigmoid": (mg.sigmoid, (-6, 6)), "relu": (mg.relu, (-2, 2)), "gelu": (mg.gelu, (-3, 3)),
    "erf": (mg.erf, (-2, 2)), "sign": (mg.sign, (-2, 2)),
    "gelu_tanh": (lambda x: mg.nn.functional.gelu(x, approximate="tanh"), (-3, 3)),
}


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op", sorted(UNARY))
def test_unary(op, dtype):
    fn, (lo, hi) = UNARY[op]
    check(op, fn, [_rand((33, 65), dtype, lo, hi)], dtype)


BINARY = {"add": mg.add, "sub": mg.sub, "mul": mg.mul, "div": mg.div, "maximum": mg.maximum, "minimum": mg.minimum,
          "pow": mg.pow}


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((17, 9), (17, 9)), ((4, 1, 9), (3, 1)), ((5,), ())], ids=["same", "bcast", "scalar"])
def test_binary(op, dtype, shapes):
    lo = 0.5 if op in ("pow", "div") else -2.0
    arrays = [_rand(shapes[0], dtype, lo, 2.0, seed=1), _rand(shapes[1], dtype, lo, 2.0, seed=2)]
    check(op, BINARY[op], arrays, dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op", ["add_alpha", "sub_alpha", "rsub"])
def test_add_and_sub_with_alpha_are_one_kernel(op, dtype):
    """``mg.add(x, y, alpha=)``: the op ``add_alpha`` (``a + p0 * b``, alpha by value), forward and backward
    (``rsub``: ``b - p0 * a``); ``p.add_(g, alpha=-lr)`` under no_grad launches what ``p.add_(g)`` does and copies
    nothing (a mul more before)."""
    fn = {"add_alpha": mg.add, "sub_alpha": mg.sub, "rsub": mg.rsub}[op]
    check(op, lambda x, y: fn(x, y, alpha=-2.5), [_rand((4, 1, 9), dtype, seed=1), _rand((3, 1), dtype, seed=2)], dtype)
    fake = fake_cupy.installed()
    if fake is not None:
        p = mg.tensor(_rand((16, 8), dtype)).to("gpu")
        g = mg.tensor(_rand((16, 8), dtype, seed=5)).to("gpu")
        seen = []
        with mg.no_grad():
            for kw in ({}, {"alpha": -0.1}):
                p.add_(g, **kw)  # the launch plan is made once per geometry
                fake.reset_counts()
                p.add_(g, **kw)
                seen.append(fake.counts())
        assert [(c["launches"], c["h2d"], c["syncs"]) for c in seen] == [(seen[0]["launches"], 0, 0)] * 2, seen


@pytest.mark.parametrize("dtype", [mg.int64, mg.int32, mg.uint8, mg.bool], ids=str)
def test_add_and_sub_with_alpha_on_integers_stay_on_the_device(dtype):
    """Integers and bools run CuPy's ufuncs with alpha by value, wrapping as C++ does (``uint8`` minus 3 times)."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, (6, 4)).astype(np.dtype(dtype.name if dtype is not mg.bool else "bool"))
    y = rng.integers(0, 5, (4,)).astype(x.dtype)
    for fn, alpha in ((mg.add, 3), (mg.sub, 3), (mg.add, -2), (mg.rsub, 2)):
        if dtype is mg.bool and fn in (mg.sub, mg.rsub):
            continue
        cpu = fn(mg.tensor(x), mg.tensor(y), alpha=alpha)
        gpu = fn(mg.tensor(x).to("gpu"), mg.tensor(y).to("gpu"), alpha=alpha)
        assert gpu.device == "gpu" and gpu.dtype == cpu.dtype
        np.testing.assert_array_equal(gpu.cpu().numpy(), cpu.numpy())


def test_binary_on_non_contiguous_views():
    x = _rand((8, 6), mg.float32)
    check("add", lambda a, b: mg.add(a.transpose(0, 1), b), [x, _rand((6, 8), mg.float32, seed=3)], mg.float32)


@pytest.mark.parametrize("op", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_compare(op, dtype=mg.float32):
    a = np.round(_rand((10, 7), dtype, seed=1))
    b = np.round(_rand((10, 7), dtype, seed=2))
    check(op, getattr(mg, op), [a, b], dtype, grad=False)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_where_and_clip(dtype):
    cond = _rand((6, 5), mg.float32, seed=3) > 0
    check("where", lambda c, x, y: mg.where(c, x, y), [cond, _rand((6, 5), dtype), _rand((5,), dtype, seed=4)], dtype)
    check("clip", lambda x: mg.clip(x, -0.5, 1.0), [_rand((6, 5), dtype)], dtype)
    check("clip", lambda x: mg.clip(x, None, 0.3), [_rand((6, 5), dtype)], dtype)


# ops/pointwise.py's elementwise ops: each one launch of its own template (``param``: numbers by value,
# ``ternary``: three operands), not a CPU fallback
POINTWISE_UNARY = {
    "sgn": (mg.sgn, (-2, 2)), "rsqrt": (mg.rsqrt, (0.2, 3)), "frac": (mg.frac, (-3, 3)),
    "erfinv": (mg.erfinv, (-0.95, 0.95)), "nan_to_num": (lambda x: mg.nan_to_num(x, posinf=3.0), (-2, 2)),
    "erfc": (mg.erfc, (-2, 4)), "deg2rad": (mg.deg2rad, (-200, 200)), "rad2deg": (mg.rad2deg, (-3, 3)),
}


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op", sorted(POINTWISE_UNARY))
def test_pointwise_unary(op, dtype):
    fn, (lo, hi) = POINTWISE_UNARY[op]
    check(op, fn, [_rand((33, 65), dtype, lo, hi)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op, fn", [("hypot", mg.hypot), ("fmax", mg.fmax), ("fmin", mg.fmin),
                                    ("logaddexp2", mg.logaddexp2),
                                    ("lerp", lambda a, b: mg.lerp(a, b, 0.3)), ("lerp", lambda a, b: mg.lerp(a, b, 0.9))],
                         ids=["hypot", "fmax", "fmin", "logaddexp2", "lerp-near", "lerp-far"])
@pytest.mark.parametrize("shapes", [((17, 9), (17, 9)), ((4, 1, 9), (3, 1))], ids=["same", "bcast"])
def test_pointwise_binary(op, fn, shapes, dtype):
    check(op, fn, [_rand(shapes[0], dtype, seed=1), _rand(shapes[1], dtype, seed=2)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op, fn", [("lerp_tensor", mg.lerp), ("addcmul", lambda a, b, c: mg.addcmul(a, b, c, value=-0.5)),
                                    ("addcdiv", lambda a, b, c: mg.addcdiv(a, b, c, value=2))],
                         ids=["lerp_tensor", "addcmul", "addcdiv"])
@pytest.mark.parametrize("shapes", [((17, 9), (17, 9), (17, 9)), ((4, 1, 9), (3, 1), (9,))], ids=["same", "bcast"])
def test_pointwise_ternary(op, fn, shapes, dtype):
    third = _rand(shapes[2], dtype, 0.5, 1.5, seed=3) * np.where(_rand(shapes[2], dtype, seed=4) > 0, 1, -1).astype(dtype.np)
    check(op, fn, [_rand(shapes[0], dtype, seed=1), _rand(shapes[1], dtype, seed=2), third], dtype)


def test_nan_to_num_replaces_on_the_device():
    x = mg.tensor([float("nan"), float("inf"), -float("inf"), 1.5]).to("gpu")
    assert mg.nan_to_num(x, nan=1.0, neginf=-2.0).cpu().tolist() == [1.0, float(np.finfo(np.float32).max), -2.0, 1.5]


REDUCTIONS = ["sum", "mean", "max", "min", "logsumexp", "var", "std"]
DIMS = [None, 0, -1, (0, 2), 1]


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reductions(op, dim, keepdim, dtype):
    check(op, lambda x: mg.OPS[op](x, dim=dim, keepdim=keepdim), [_rand((5, 7, 9), dtype)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("correction", [0, 1, 2.5, 9], ids=str)
@pytest.mark.parametrize("op", ["var", "std"])
def test_var_and_std_are_two_launches_with_the_cpus_values(op, correction, dtype):
    """The means of the rows shifted by their first element, then their squared deviations (``cuda_src.REDUCE``'s
    ``mean_shifted``, ``var``/``std``), against the CPU's: every correction, none left (9 > 7: inf and NaN where the
    CPU has them), 0-d and empty inputs, and rows of equal values (exactly 0, as PyTorch's Welford)."""
    check(op, lambda x: mg.OPS[op](x, dim=(0, 2), correction=correction), [_rand((3, 4, 3), dtype)], dtype)
    check(op, lambda x: mg.OPS[op](x, dim=1, correction=correction, keepdim=True), [_rand((5, 7), dtype)], dtype)
    for shape, dim in (((), None), ((4, 0), 1), ((0, 3), 0)):
        x = _rand(shape, dtype)
        cpu = mg.OPS[op](mg.tensor(x), dim=dim, correction=correction).numpy()
        gpu = mg.OPS[op](mg.tensor(x).to("gpu"), dim=dim, correction=correction).cpu().numpy()
        np.testing.assert_array_equal(gpu, cpu)
    fake = fake_cupy.installed()
    if fake is not None and dtype is not mg.float16:
        x = mg.tensor(_rand((64, 33), dtype)).to("gpu")
        fake.reset_counts()
        mg.OPS[op](x, dim=1, correction=correction)
        assert fake.counts()["launches"] == 2
    equal = mg.tensor(np.full((3, 5), 0.1), dtype=dtype).to("gpu")
    if correction < 5:
        assert mg.OPS[op](equal, dim=1, correction=correction).cpu().tolist() == [0.0] * 3


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("shape, dim", [((6, 5, 7), (0, 1)), ((300, 3), 0), ((2, 3, 4), 0), ((4, 0, 3), (0, 1))],
                         ids=str)
def test_a_sum_over_the_leading_dims_is_one_launch(shape, dim, dtype):
    """NOTE [ A sum over the leading dims is a matrix-vector product ]: a bias's gradient, against the CPU's;
    on the stand-in one launch (the transposing copy and the row reduction took two)."""
    check("sum", lambda x: x.sum(dim=dim), [_rand(shape, dtype)], dtype)
    fake = fake_cupy.installed()
    x = mg.tensor(_rand(shape, dtype)).to("gpu")
    x.sum(dim=dim)  # the vector of ones is made once per length
    if fake is not None and dtype is not mg.float16 and 0 not in shape:
        fake.reset_counts()
        x.sum(dim=dim)
        assert fake.counts()["launches"] == 1


@pytest.mark.parametrize("op", REDUCTIONS)
def test_long_rows_use_the_two_pass_reduction(op):
    # 200k elements in one row: chunked partials and a combine pass
    check(op, lambda x: mg.OPS[op](x), [_rand((200_000,), mg.float64)], mg.float64)
    check(op, lambda x: mg.OPS[op](x, dim=1), [_rand((3, 70_000), mg.float32)], mg.float32)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape, dim", [((4, 10), -1), ((4, 10), 0), ((3, 5, 300), 1), ((2, 3000), -1)])
def test_softmax_family(op, shape, dim, dtype):
    check(op, lambda x: mg.OPS[op](x, dim=dim), [_rand(shape, dtype, -4, 4)], dtype)


def test_log_softmax_keeps_the_digits_of_a_value_near_zero():
    """PyTorch's epilogue, ``(x - max) - log(sum)``: the kernel computed ``x - (max + log(sum))``, which rounds
    ``log(sum)`` (about 7e-13 here) to the precision of the max (20), so the row's largest log-probability had
    only three right digits, and cross_entropy's loss the same (found by the fuzzer, through a division)."""
    rows = np.array([[20.0, -8.0], [123.4, 95.1], [0.5, -30.0]])
    want = mg.log_softmax(mg.tensor(rows), 1).numpy()  # the CPU's: PyTorch's to the last bit here
    got = mg.log_softmax(mg.tensor(rows).to("gpu"), 1).cpu().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)
    loss = mg.nn.functional.cross_entropy(mg.tensor(rows).to("gpu"), mg.tensor([0, 0, 0]).to("gpu"), reduction="none")
    np.testing.assert_allclose(loss.cpu().numpy(), -want[:, 0], rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op", ["softmax_backward_data", "log_softmax_backward_data"])
@pytest.mark.parametrize("shape, dim", [((4, 10), -1), ((4, 10), 0), ((3, 5, 300), 1), ((2, 3000), -1), ((), 0),
                                        ((3, 0), -1)], ids=str)
def test_softmax_backward_family(op, shape, dim, dtype):
    """The backwards of softmax and log_softmax (one block a row), and their own gradients, against the CPU's;
    the output given is a real softmax's (log_softmax's), as the backward receives it."""
    fwd = "softmax" if op == "softmax_backward_data" else "log_softmax"
    out = mg.OPS[fwd](mg.tensor(_rand(shape, mg.float64, -4, 4)), dim=dim).numpy()
    check(op, lambda g, y: mg.OPS[op](g, y, dim), [_rand(shape, dtype, -2, 2, seed=8), out], dtype)


@pytest.mark.gpu
def test_softmax_backward_is_one_launch():
    """PyTorch's ``_softmax_backward_data`` as one kernel: the formula's array steps (a product, a row sum, a
    difference, a product) took four launches."""
    fake = fake_cupy.installed()
    if fake is None:
        pytest.skip("launches are counted by the stand-in CuPy")
    for fwd in (mg.softmax, mg.log_softmax):
        x = mg.randn(64, 48).to("gpu").requires_grad_()
        y = fwd(x, dim=1)
        g = mg.ones(64, 48, device="gpu")
        mg.autograd.grad(y, [x], g, retain_graph=True)  # compiled
        fake.reset_counts()
        mg.autograd.grad(y, [x], g)
        assert fake.counts()["launches"] == 1, fake.counts()


@pytest.mark.gpu
def test_max_of_all_elements_backward_stays_on_the_device():
    """``max()``'s gradient goes to the NaNs when the result is NaN (PyTorch's ``evenly_distribute_backward``),
    decided on the device: no copy to or from the host (``isnan`` has no GPU kernel; ``x != x`` does)."""
    fake = fake_cupy.installed()
    if fake is None:
        pytest.skip("copies are counted by the stand-in CuPy")
    x = mg.tensor([1.0, float("nan"), 2.0, float("nan")]).to("gpu").requires_grad_()
    x.max().backward()  # compiled
    x.grad = None
    fake.reset_counts()
    x.max().backward()
    counts = fake.counts()
    assert counts["h2d"] == 0 and counts["d2h"] == 0 and counts["syncs"] == 0, counts
    assert x.grad.cpu().tolist() == [0.0, 0.5, 0.0, 0.5]


LN_SHAPES = [((4, 10), 1), ((3, 5, 300), 1), ((2, 3, 4), 2), ((70, 3), 1), ((1, 2000), 1), ((3, 0), 1), ((0, 4), 1)]


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("shape, ndim", LN_SHAPES, ids=str)
def test_layer_norm_forward_and_both_gradients(shape, ndim, dtype):
    """The layer-norm kernels (one block a row; the weight's gradient in chunks of rows) against the CPU's,
    on rows shorter and longer than a block, several normalized dims, more rows than a chunk, and empty."""
    norm = shape[len(shape) - ndim:]
    arrays = [_rand(shape, dtype, -3, 3), _rand(norm, dtype, 0.5, 2, seed=3), _rand(norm, dtype, -1, 1, seed=4)]
    check("layer_norm", lambda x, w, b: mg.nn.functional.layer_norm(x, norm, w, b, eps=1e-4), arrays, dtype)


@pytest.mark.gpu
def test_layer_norm_is_a_launch_forward_and_four_backward():
    """NOTE [ Layer norm in one launch a row ]: one launch forward; backward, one for the input's gradient
    and three for the weight's (statistics, chunk sums, the chunks added up), then the bias's column sum (a
    transposing copy and a reduction). The array steps it replaced took 14 forward and 40 backward."""
    fake = fake_cupy.installed()
    if fake is None:
        pytest.skip("launches are counted by the stand-in CuPy")
    x = mg.randn(64, 48).to("gpu").requires_grad_()
    ln = mg.nn.LayerNorm(48).to("gpu")
    ln(x).sum().backward()  # compiled, and the backward's seeds kept
    fake.reset_counts()
    y = ln(x)
    assert fake.counts()["launches"] == 1
    g = mg.ones(64, 48, device="gpu")
    fake.reset_counts()
    mg.autograd.grad(y, [x, ln.weight, ln.bias], g)
    assert fake.counts()["launches"] == 4 + 2, fake.counts()


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy(reduction, dtype):
    logits = _rand((16, 11), dtype, -3, 3)
    target = np.random.default_rng(5).integers(0, 11, size=16)
    check("cross_entropy", lambda x, t: mg.cross_entropy(x, t, reduction=reduction), [logits, target], dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignored", ["none", "some", "all"])
def test_nll_loss_and_the_functional_cross_entropy(ignored, reduction, dtype):
    """``F.cross_entropy`` (log_softmax, then nll_loss) and its gradient against the CPU's, with targets
    ignored (``ignore_index``): none, some, all (a mean of nothing is NaN, as PyTorch's)."""
    logits = _rand((16, 11), dtype, -3, 3)
    target = np.random.default_rng(5).integers(0, 11, size=16)
    target[[2, 5, 11] if ignored == "some" else slice(None) if ignored == "all" else []] = -100
    check("nll_loss", lambda x, t: mg.nn.functional.cross_entropy(x, t, reduction=reduction), [logits, target], dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("target", [4, -100])
def test_one_samples_nll_loss_and_cross_entropy(target, reduction, dtype):
    """PyTorch's unbatched form, ``(C,)`` logits and a 0-d target: the ``nll_loss`` op (``NllLossBackward0``) on
    the device, as a batch of one, its loss 0-d."""
    logits = _rand((11,), dtype, -3, 3)
    if target == -100 and reduction == "mean":  # ignored: PyTorch CUDA's 0, not its CPU's NaN (test below)
        for fn in (mg.nn.functional.cross_entropy, mg.nn.functional.nll_loss):
            x = mg.tensor(logits, dtype=dtype).to("gpu").requires_grad_()
            loss = fn(x, mg.tensor(target).to("gpu"))
            loss.backward()
            assert loss.item() == 0 and loss.grad_fn.name() == "NllLossBackward0" and not x.grad.cpu().numpy().any()
        return
    check("nll_loss", lambda x, t: mg.nn.functional.cross_entropy(x, t, reduction=reduction),
          [logits, np.array(target)], dtype)
    check("nll_loss", lambda x, t: mg.nn.functional.nll_loss(x, t, reduction=reduction),
          [logits, np.array(target)], dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("call", [lambda x: mg.nn.functional.avg_pool2d(x, 3, 1, 1),
                                  lambda x: mg.nn.functional.avg_pool2d(x, 2),
                                  lambda x: mg.nn.functional.adaptive_avg_pool2d(x, (4, 5)),
                                  lambda x: mg.nn.functional.avg_pool3d(x[None], (1, 3, 2), 1)],
                         ids=["overlapping", "tiled", "adaptive", "3d"])
def test_a_non_finite_value_stays_in_its_own_windows_on_the_device(call):
    """NOTE [ A non-finite value in a window ]: the GPU gives the CPU's infinities and NaNs, without reading
    anything back (the correction runs on every call there)."""
    x = _rand((2, 3, 6, 8), mg.float32)
    x.reshape(-1)[[1, 7, 20, 33, 34]] = [np.inf, np.nan, -np.inf, np.inf, -np.inf]
    cpu = call(mg.tensor(x)).numpy()
    fake = fake_cupy.installed()
    gx = mg.tensor(x).to("gpu")
    call(gx)  # the window matrices go to the device once per geometry
    if fake is not None:
        fake.reset_counts()
    gpu = call(gx)
    if fake is not None:
        counts = fake.counts()
        assert (counts["h2d"], counts["d2h"], counts["syncs"]) == (0, 0, 0), counts
    np.testing.assert_array_equal(np.isnan(gpu.cpu().numpy()), np.isnan(cpu))
    np.testing.assert_allclose(gpu.cpu().numpy(), cpu, rtol=1e-5, atol=1e-6)


def test_max_pool2d_takes_the_last_nan_of_a_window_on_the_device():
    """The CUDA loop's ``v > best || v != v``, as PyTorch's kernels: the device's indices and gradient are the
    CPU's where windows hold several NaNs."""
    x = _rand((1, 2, 7, 7), mg.float32)
    x[0, 0, 0, 0] = x[0, 0, 1, 1] = x[0, 0, 2, 2] = x[0, 1, 4, 5] = x[0, 1, 5, 5] = np.nan
    out = []
    for device in ("cpu", "gpu"):
        t = mg.tensor(x).to(device).requires_grad_()
        v, i = mg.nn.functional.max_pool2d(t, 3, 2, 1, return_indices=True)
        v.sum().backward()
        out.append((i.cpu().tolist(), t.grad.cpu().numpy()))
    assert out[0][0] == out[1][0]
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_nll_loss_is_a_launch_forward_and_at_most_two_backward():
    fake = fake_cupy.installed()
    if fake is None:
        pytest.skip("launches are counted by the stand-in CuPy")
    logp = mg.randn(16, 11).to("gpu").log_softmax(1).detach().requires_grad_()
    target = mg.randint(0, 11, (16,)).to("gpu")
    mg.nn.functional.nll_loss(logp, target)  # the first range check of the process allocates its flags (a fill)
    for reduction, backward in (("mean", 2), ("sum", 1), ("none", 1)):
        fake.reset_counts()
        loss = mg.nn.functional.nll_loss(logp, target, reduction=reduction)
        assert fake.counts()["launches"] <= 1 + 1  # the loss (and the targets' range check, once per targets)
        seed = mg.ones(loss.shape, device="gpu")
        fake.reset_counts()
        mg.autograd.grad(loss, logp, seed)
        assert fake.counts()["launches"] == backward, reduction


@pytest.mark.gpu
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_backward_is_one_launch(reduction):
    """The logits' gradient (softmax, minus one at the target, times the loss's gradient) is one kernel; it
    took eight CuPy launches (a softmax, an arange, a gather, a subtraction, a scatter, two products)."""
    fake = fake_cupy.installed()
    if fake is None:
        pytest.skip("launches are counted by the stand-in CuPy")
    logits = mg.randn(16, 11).to("gpu").requires_grad_()
    target = mg.randint(0, 11, (16,)).to("gpu")
    loss = mg.cross_entropy(logits, target, reduction=reduction)
    seed = mg.ones(loss.shape, device="gpu")
    fake.reset_counts()
    mg.autograd.grad(loss, logits, seed)
    assert fake.counts()["launches"] == 1


def test_cross_entropy_bad_target_on_gpu():
    """Checked on the device, reported at the next sync (as CUDA's device-side asserts), naming the call."""
    x = mg.randn(2, 3).to("gpu")
    loss = mg.cross_entropy(x, mg.tensor([0, 3]).to("gpu"))  # no wait for the device here
    with pytest.raises(ValueError, match=r"class indices in \[0, 2\], got 0..3 \(checked on the GPU for the call at "
                                         r".*test_gpu_kernels.py:\d+"):
        loss.item()
    loss.item()  # reported once: the next sync passes


def test_cross_entropys_own_kernel_checks_its_targets():
    """The targets' range check rides in the loss's own kernel (it sets the check's flag where a target is out
    of range): the forward is two launches, the per-row losses and their mean, no check kernel beside them;
    a bad target among good ones is still reported at the next sync, and a good batch after it passes."""
    from minigrad.kernels.gpu import _runtime

    x = mg.randn(4, 3).to("gpu")
    good, bad = mg.tensor([0, 2, 1, 2]).to("gpu"), mg.tensor([0, 2, -1, 2]).to("gpu")
    mg.cross_entropy(x, good).item()
    with _runtime.record_launches() as launches:
        loss = mg.cross_entropy(x, good)
    assert [k.name.rsplit("_", 1)[0] for k, *_ in launches][0] == "mg_cross_entropy" and len(launches) == 2
    np.testing.assert_allclose(loss.item(), mg.cross_entropy(x.cpu(), good.cpu()).item(), rtol=1e-6)
    loss = mg.cross_entropy(x, bad)
    with pytest.raises(ValueError, match=r"class indices in \[0, 2\], got -1..2"):
        loss.item()
    assert math.isfinite(mg.cross_entropy(x, good).item())


def test_index_out_of_range_on_gpu_is_reported_at_the_next_sync():
    w = mg.randn(4, 3).to("gpu")
    idx = mg.tensor([0, 4]).to("gpu")
    picked = w[idx]  # the range is checked on the device
    with pytest.raises(IndexError, match="index 4 is out of bounds for dimension 0 with size 4"):
        print(picked)
    emb = mg.nn.Embedding(4, 3).to("gpu")
    out = emb(mg.tensor([[1, -1]]).to("gpu"))
    with pytest.raises(IndexError, match=r"index out of range in self \(embedding\(\): indices must be in \[0, 3\], "
                                         r"but got -1..1\)"):
        mg.cuda.synchronize()
    assert out.shape == (1, 2, 3) and w[mg.tensor([1, -4]).to("gpu")].tolist() == w.cpu()[[1, 0]].tolist()


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("padding_idx", [None, 3, -1])
def test_embedding_is_a_gather_and_its_backward_a_scatter_add(padding_idx, dtype):
    """``F.embedding`` on the device against the CPU (rows picked twice, the padding row); on the stand-in
    one range check and one gather forward, zeros and one scatter-add backward (it was a check, a getitem
    with its own check, and a getitem_grad)."""
    idx = np.array([[1, 3, 1], [0, 3, 4]])
    check("embedding", lambda w: mg.nn.functional.embedding(mg.tensor(idx).to(w.device), w, padding_idx=padding_idx),
          [_rand((5, 4), dtype)], dtype)
    fake = fake_cupy.installed()
    if fake is None:
        return
    w = mg.tensor(_rand((5, 4), dtype)).to("gpu").requires_grad_()
    i = mg.tensor(idx).to("gpu")
    out = mg.nn.functional.embedding(i, w, padding_idx=padding_idx)
    seed = mg.ones(out.shape, dtype=dtype, device="gpu")
    fake.reset_counts()
    out = mg.nn.functional.embedding(i, w, padding_idx=padding_idx)
    assert fake.counts()["launches"] == 2
    fake.reset_counts()
    mg.autograd.grad(out, w, seed)
    assert fake.counts()["launches"] == (2 if padding_idx is None else 3)  # (+ the padding row zeroed)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("kwargs", [{"max_norm": 1.0}, {"max_norm": 1.5, "norm_type": 1.0, "padding_idx": 3},
                                    {"scale_grad_by_freq": True}, {"scale_grad_by_freq": True, "max_norm": 2.0}],
                         ids=["max_norm", "norm_type 1", "scale_grad_by_freq", "both"])
def test_embedding_max_norm_and_scale_grad_by_freq_on_the_gpu(kwargs, dtype):
    """``max_norm`` renormalises the picked rows on the device (a gather, the norms, an ``index_copy_``, no CPU
    kernel) and ``scale_grad_by_freq`` divides each row's gradient by its index's count (a device
    ``bincount``), against the CPU."""
    idx = np.array([[1, 3, 1], [0, 3, 4]])
    check("embedding", lambda w: mg.nn.functional.embedding(mg.tensor(idx).to(w.device), w, **kwargs),
          [_rand((5, 4), dtype)], dtype)
    w = mg.tensor(_rand((5, 4), dtype)).to("gpu").requires_grad_()
    with mg.trace() as tr:
        out = mg.nn.functional.embedding(mg.tensor(idx).to("gpu"), w, **kwargs)
        out.sum().backward()
    sel = [e for e in tr.events if e.kind == "kernel.select"]
    assert not [e.op for e in sel if e.fallback_cpu or e.backend not in ("GPU", "GPUDNN")]


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
def test_masked_fill_tril_triu_and_diagonals_of_any_dims(dtype):
    """PyTorch's ops (not composites of ``where``/``permute``) against the CPU: a number and a 0-d tensor
    value, a broadcast mask, a transposed input (the result row-major), triangles with offsets, the diagonal
    of any two dims; on the stand-in one launch each once the masks are made."""
    m = mg.tensor(np.random.default_rng(1).random((3, 4)) > 0.5)
    check("masked_fill", lambda x: x.masked_fill(m.to(x.device), -1.5), [_rand((3, 4), dtype)], dtype)
    check("masked_fill", lambda x: x.t().masked_fill(m.to(x.device)[None], 2.0), [_rand((4, 3), dtype)], dtype)
    check("masked_fill_tensor", lambda x, v: x.masked_fill(m.to(x.device), v.sum()),
          [_rand((3, 4), dtype), _rand((2,), dtype)], dtype)
    check("tril", lambda x: x.tril(), [_rand((2, 5, 5), dtype)], dtype)
    check("tril", lambda x: x.tril(-1), [_rand((2, 4, 5), dtype)], dtype)
    check("triu", lambda x: x.triu(2), [_rand((2, 5, 5), dtype)], dtype)
    check("triu", lambda x: x.t().triu(1), [_rand((5, 4), dtype)], dtype)
    check("diagonal", lambda x: x.diagonal(1, 2, 0), [_rand((3, 2, 4), dtype)], dtype)
    fake = fake_cupy.installed()
    if fake is None or dtype is mg.float16:
        return
    x = mg.tensor(_rand((3, 4), dtype)).to("gpu")
    mask = m.to("gpu")
    for fn in (lambda: x.masked_fill(mask, -1.5), lambda: x.tril(1), lambda: x.triu()):
        fn()
        fake.reset_counts()
        fn()
        assert fake.counts()["launches"] == 1


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_0d_mask_writes_a_number_or_a_tensor_as_the_cpu(sign):
    """``x[x > 0] = 0.5`` and ``x[x > 0] = v.sum()`` for a 0-d ``x``: its 0-d mask is read on the host, and
    ``index_put``'s ``where`` was given that NumPy array, which CuPy refuses ("Unsupported type <class
    'numpy.ndarray'>": the device fuzzer's setitem); values and gradients the CPU's."""
    def number(x):
        h = x * 1
        h[h.detach() > 0] = 0.5
        return h

    def tensor(x, v):
        h = x * 1
        h[h.detach() > 0] = v.sum()
        return h

    for dtype in FLOATS:
        check("index_put", number, [np.asarray(sign * 1.5, dtype.np)], dtype)
        check("index_put", tensor, [np.asarray(sign * 1.5, dtype.np), _rand((3,), dtype)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_is_one_op_with_the_cpus_values(training, dtype):
    """``F.batch_norm`` (``NativeBatchNormBackward0``) on the device against the CPU: 2-D, 3-D and 4-D
    inputs, with and without the affine map; the running statistics updated alike."""
    for shape in ((6, 3), (4, 3, 5), (2, 3, 4, 4)):
        rm, rv = mg.tensor([0.1, -0.2, 0.3], dtype=dtype), mg.tensor([1.5, 0.5, 2.0], dtype=dtype)
        check("batch_norm", lambda x, w, b: mg.nn.functional.batch_norm(
            x, rm.to(x.device), rv.to(x.device), w, b, training=training), [_rand(shape, dtype), _rand((3,), dtype),
                                                                               _rand((3,), dtype)], dtype)
        check("batch_norm", lambda x: mg.nn.functional.batch_norm(x, rm.to(x.device), rv.to(x.device),
                                                                  training=training), [_rand(shape, dtype)], dtype)
    rtol, atol = TOL[dtype]
    stats = []
    for device in ("cpu", "gpu"):
        rm, rv = mg.zeros(3, dtype=dtype, device=device), mg.ones(3, dtype=dtype, device=device)
        mg.nn.functional.batch_norm(mg.tensor(_rand((4, 3, 5), dtype)).to(device), rm, rv, training=True, momentum=0.3)
        stats.append((rm.cpu().numpy(), rv.cpu().numpy()))
    for a, b in zip(*stats):
        np.testing.assert_allclose(b, a, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("training", [True, False], ids=["training", "evaluating"])
def test_batch_norms_fused_backward_ops_have_the_cpus_values(training, dtype):
    """``batch_norm_backward`` and ``batch_norm_weight_grad`` (PyTorch's ``native_batch_norm_backward``, one
    output each) on the device against the CPU, and their own gradients (the second derivatives): 2-D, 3-D
    and 4-D inputs, one channel to five, the batch's statistics or the running ones."""
    bwd, wgrad = mg.OPS["batch_norm_backward"], mg.OPS["batch_norm_weight_grad"]
    for shape in ((6, 3), (4, 5, 5), (2, 1, 3, 4), (1, 3, 1, 1, 7)):
        c = shape[1]
        if training:
            check("batch_norm_backward", lambda g, x, w: bwd(g, x, w, None, None, True, 1e-3),
                  [_rand(shape, dtype), _rand(shape, dtype), _rand((c,), dtype)], dtype)
            check("batch_norm_weight_grad", lambda g, x: wgrad(g, x, None, None, True, 1e-3),
                  [_rand(shape, dtype), _rand(shape, dtype)], dtype)
            continue
        # The running statistics (and, for the input's gradient, x: it does not depend on x) as constants.
        x, rm, rv = (mg.tensor(a) for a in (_rand(shape, dtype), _rand((c,), dtype), np.abs(_rand((c,), dtype)) + 0.5))
        check("batch_norm_backward", lambda g, w: bwd(g, x.to(g.device), w, rm.to(g.device), rv.to(g.device), False, 1e-3),
              [_rand(shape, dtype), _rand((c,), dtype)], dtype)
        check("batch_norm_weight_grad", lambda g, x: wgrad(g, x, rm.to(g.device), rv.to(g.device), False, 1e-3),
              [_rand(shape, dtype), _rand(shape, dtype)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
def test_batch_norm_moments_have_the_cpus_values(dtype):
    """``batch_norm_moments`` (the running statistics' update: each channel's mean and unbiased variance) on the
    device, one block a channel, against the CPU kernel: 2-D to 5-D inputs, one channel to five."""
    rtol, atol = TOL[dtype]
    for shape in ((6, 3), (4, 5, 5), (2, 1, 3, 4), (1, 3, 1, 1, 7)):
        x = mg.tensor(_rand(shape, dtype))
        want = mg.OPS["batch_norm_moments"](x)
        got = mg.OPS["batch_norm_moments"](x.to("gpu"))
        for g, w in zip(got, want):
            assert g.device == "gpu" and g.dtype == w.dtype and g.shape == w.shape == (shape[1],)
            np.testing.assert_allclose(g.cpu().numpy().astype(np.float64), w.numpy().astype(np.float64), rtol=rtol,
                                       atol=atol)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
def test_group_norm_is_one_op_with_the_cpus_values(dtype):
    """``F.group_norm`` (``NativeGroupNormBackward0``) on the device against the CPU: 2-D to 5-D inputs, one
    group to one a channel, with the weight and the bias, either, or neither."""
    for shape, groups in (((5, 6), 3), ((4, 6, 5), 2), ((2, 6, 3, 4), 6), ((2, 6, 2, 3, 2), 1)):
        check("group_norm", lambda x, w, b: mg.nn.functional.group_norm(x, groups, w, b),
              [_rand(shape, dtype), _rand((6,), dtype), _rand((6,), dtype)], dtype)
        check("group_norm", lambda x: mg.nn.functional.group_norm(x, groups), [_rand(shape, dtype)], dtype)
    check("group_norm", lambda x, w: mg.nn.functional.group_norm(x, 2, w), [_rand((3, 4, 5), dtype),
                                                                          _rand((4,), dtype)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
def test_instance_norm_is_pytorchs_batch_norm_on_the_device(dtype):
    """``F.instance_norm`` (PyTorch's decomposition: the ``batch_norm`` op of the input viewed as one sample,
    the affine map repeated) on the device against the CPU, and the running statistics averaged back alike."""
    check("batch_norm", lambda x, w, b: mg.nn.functional.instance_norm(x, weight=w, bias=b),
          [_rand((2, 3, 5), dtype), _rand((3,), dtype), _rand((3,), dtype)], dtype)
    rtol, atol = TOL[dtype]
    stats = []
    for device in ("cpu", "gpu"):
        rm, rv = mg.zeros(3, dtype=dtype, device=device), mg.ones(3, dtype=dtype, device=device)
        x = mg.tensor(_rand((4, 3, 2, 3), dtype)).to(device)
        mg.nn.functional.instance_norm(x, rm, rv, momentum=0.3)
        stats.append((rm.cpu().numpy(), rv.cpu().numpy(),
                      mg.nn.functional.instance_norm(x, rm, rv, use_input_stats=False).cpu().numpy()))
    for a, b in zip(*stats):
        np.testing.assert_allclose(b.astype(np.float64), a.astype(np.float64), rtol=rtol, atol=atol)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_addcmul_and_addcdiv_round_as_pytorch_cudas_kernels(op):
    """PyTorch CUDA computes ``a + value * (b * c)`` (and ``b / c``): the product rounded to float, then one
    fused multiply-add (aten/src/ATen/native/cuda/PointwiseOpsKernel.cu), where its CPU kernel computes
    ``(value * b) * c`` - they differ in the last bit of some elements, and minigrad's GPU follows CUDA's.
    Against PyTorch CUDA where it is installed, else against that formula in exact float64 arithmetic."""
    rng = np.random.default_rng(5)
    a, b, c = (rng.standard_normal(4096).astype(np.float32) for _ in range(3))
    c = np.abs(c) + np.float32(0.5)
    value = 0.001
    got = getattr(mg, op)(*(mg.tensor(v).to("gpu") for v in (a, b, c)), value=value).cpu().numpy()
    cpu = getattr(mg, op)(*(mg.tensor(v) for v in (a, b, c)), value=value).numpy()
    try:
        import torch

        cuda = torch.cuda.is_available()
    except ImportError:
        cuda = False
    if cuda:
        want = getattr(torch, op)(*(torch.tensor(v, device="cuda") for v in (a, b, c)), value=value).cpu().numpy()
    else:
        inner = (b / c) if op == "addcdiv" else (b * c)  # float32, rounded
        want = (np.float64(np.float32(value)) * inner.astype(np.float64) + a.astype(np.float64)).astype(np.float32)
    assert got.tobytes() == want.tobytes()
    assert (got != cpu).any(), "the CPU's order rounds some element otherwise (else this proves nothing)"


def test_a_new_dimensions_stride_is_pytorchs_on_the_device():
    """``x[None]``, ``x[:, None]``, ``unsqueeze`` at the end of a transpose ...: the GPU view's strides are the
    CPU's, which are PyTorch's (``tests/test_views_inplace.py``; NOTE [ A new dimension's stride is PyTorch's ]
    in kernels/strided.py): CuPy, as NumPy, gives a ``None``'s dimension stride 0."""
    x = np.arange(24.0).reshape(2, 3, 4)
    views = {"None": lambda h: h[None], "None inside": lambda h: h[:, None], "None at the end": lambda h: h[..., None],
             "Nones and slices": lambda h: h[None, :, 1:, None, ::2], "None of a 0-d": lambda h: h[1, 2, 3][None],
             "None of a transpose": lambda h: h.transpose(0, 2)[None, 1:],
             "unsqueeze at the end of a transpose": lambda h: h.transpose(0, 2).unsqueeze(3)}
    for name, view in views.items():
        cpu, gpu = view(mg.tensor(x)), view(mg.tensor(x).to("gpu"))
        assert gpu.stride() == cpu.stride() and gpu.storage_offset() == cpu.storage_offset(), name
        assert gpu._view is not None, name  # still a view of its base (a change through it reaches the base)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
def test_clamp_by_tensor_bounds_runs_on_the_device(dtype):
    """``clamp`` with tensor bounds (min, max, both, broadcast, a transposed input) on the device against the
    CPU; it fell back to the CPU, whose copies made a transposed input's result row-major (the GPU fuzzer:
    ``x.t().clamp(min=x)`` strides (2, 1), PyTorch's (1, 2))."""
    check("clamp", lambda x, lo: x.clamp(min=lo), [_rand((3, 4), dtype), _rand((3, 4), dtype, seed=1)], dtype)
    check("clamp", lambda x, hi: x.t().clamp(max=hi), [_rand((4, 3), dtype), _rand((4,), dtype, seed=2)], dtype)
    check("clamp", lambda x, lo, hi: x.clamp(lo, hi), [_rand((3, 4), dtype), _rand((3, 1), dtype, seed=3),
                                                          _rand((4,), dtype, seed=4)], dtype)
    x = mg.tensor(_rand((2, 3), dtype)).to("gpu")
    assert x.t().clamp(min=x.t()).stride() == (1, 3)


def test_clone_keeps_pytorchs_layout_on_the_device():
    """``clone()`` (preserve_format) of a broadcast, transposed or sliced tensor: PyTorch's strides, as on the
    CPU; a broadcast dim has no say (CuPy's order "K" made it the fastest: the GPU fuzzer, ``x.expand(2, 2)
    .clone()`` strides (1, 2) where PyTorch's are (2, 1))."""
    want = [(3, 1), (1, 3), (2, 1), (12, 3, 1), (1, 2), (3, 1)]  # PyTorch 2.13's
    for device in ("cpu", "gpu"):
        x = mg.ones(2, 3).to(device)
        got = [t.clone().stride() for t in (x[0].expand(2, 3), x.t(), x[:, ::2], x.unsqueeze(1).expand(2, 4, 3),
                                            x.t()[::2], x)]
        assert got == want, device


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
def test_max_and_min_with_dim_pick_on_the_device(dtype):
    """``x.max(dim)``'s values are ``max_values`` (PyTorch's ``MaxBackward0``): a gather at argmax's indices on
    the device. They were a ``getitem`` whose index table was read on the host: a copy and a sync."""
    check("max_values", lambda x: x.max(1).values, [_rand((4, 5), dtype)], dtype)
    check("min_values", lambda x: x.min(0, keepdim=True).values, [_rand((4, 5), dtype)], dtype)
    check("max_values", lambda x: x.max(0).values, [_rand((5,), dtype)], dtype)  # a 0-d result
    fake = fake_cupy.installed()
    if fake is None:
        return
    x = mg.tensor(_rand((4, 5), dtype)).to("gpu")
    fake.reset_counts()
    values, indices = x.max(-1)
    assert fake.counts()["d2h"] == 0 and fake.counts()["syncs"] == 0
    assert values.device == indices.device == "gpu"


def test_cat_of_transposed_tensors_is_row_major_as_pytorchs():
    """CuPy's ``concatenate`` (and its ufuncs and ``where``) allocate a row-major result whatever the
    inputs' layout, as PyTorch's ``cat`` does; the stand-in's NumPy followed the inputs (found by the GPU
    fuzzer: ``cat(v3, v3)`` strides (1, 4) where PyTorch's are (2, 1))."""
    x = mg.tensor(_rand((2, 2), mg.float64)).to("gpu").t()
    out = mg.cat([x, x])
    assert out.shape == (4, 2) and out.stride() == (2, 1) and out.is_contiguous()
    np.testing.assert_array_equal(out.cpu().numpy(), np.concatenate([x.cpu().numpy()] * 2))


MATMUL_CASES = [
    ((37, 19), (19, 23), False, False),
    ((19, 37), (19, 23), True, False),
    ((37, 19), (23, 19), False, True),
    ((2, 1, 5, 3), (4, 3, 6), False, False),
    ((7,), (7, 5), False, False),
    ((3, 7), (7,), False, False),
    ((7,), (7,), False, False),
    ((3, 64, 48), (48, 80), False, False),
]


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("case", MATMUL_CASES, ids=str)
@pytest.mark.parametrize("use_gpudnn, backend", [(True, "GPUDNN"), (False, "GPU")], ids=["cublas", "tiled"])
def test_matmul_both_variants(case, dtype, use_gpudnn, backend, gpudnn_flag):
    xs, ys, tx, ty = case
    mg.flags.use_gpudnn = use_gpudnn
    check("matmul", lambda a, b: mg.matmul(a, b, transpose_x=tx, transpose_y=ty),
          [_rand(xs, dtype, seed=1), _rand(ys, dtype, seed=2)], dtype, backend=backend)


def test_matmul_selection_events_show_gpudnn_then_gpu(gpudnn_flag):
    a, b = mg.randn(4, 4).to("gpu"), mg.randn(4, 4).to("gpu")
    with mg.trace() as tr:
        a @ b
    looks = [(e.step, e.found) for e in tr.events if e.kind == "kernel.lookup" and e.op == "matmul"]
    assert looks == [("GPUDNN", False), ("GPUDNN/ALL_LAYOUT", True)]
    mg.flags.use_gpudnn = False
    with mg.trace() as tr:
        a @ b
    looks = [(e.step, e.found) for e in tr.events if e.kind == "kernel.lookup" and e.op == "matmul"]
    assert looks == [("backend", False), ("backend/ALL_LAYOUT", True)]


def test_op_without_gpu_kernel_falls_back_and_returns_to_gpu():
    # softplus has no GPU kernel (lesson 5 writes one)
    x = mg.randn(2, 5).to("gpu")
    with mg.trace() as tr:
        out = mg.softplus(x)
    sel = [e for e in tr.events if e.kind == "kernel.select" and e.op == "softplus"][0]
    assert sel.fallback_cpu and out.device == "gpu"
    moves = [(e.arg, e.from_, e.to) for e in tr.events if e.kind == "data.transform" and e.op == "softplus"]
    assert moves[-1] == ("out", "CPU", "GPU")


def test_small_mlp_trains_identically_on_gpu():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(32, 8)).astype(np.float32)
    ys = rng.integers(0, 3, size=32)
    w1, w2 = rng.normal(size=(8, 16)).astype(np.float32) * 0.3, rng.normal(size=(16, 3)).astype(np.float32) * 0.3

    def step(device):
        a = mg.tensor(w1, requires_grad=True)
        b = mg.tensor(w2, requires_grad=True)
        x = mg.tensor(xs).to(device)
        h = (x @ a.to(device)).relu()
        loss = mg.cross_entropy(h @ b.to(device), mg.tensor(ys).to(device))
        loss.backward()
        return loss.item(), a.grad.detach().numpy(), b.grad.detach().numpy()

    lc, ac, bc = step("cpu")
    lg, ag, bg = step("gpu")
    assert abs(lc - lg) < 1e-5
    np.testing.assert_allclose(ag, ac, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bg, bc, rtol=1e-4, atol=1e-5)


def test_shape_ops_stay_on_gpu():
    x = mg.randn(2, 3, 4, requires_grad=True)
    g = x.to("gpu")
    with mg.trace() as tr:
        y = mg.concat([g.reshape(6, 4), g.permute(2, 0, 1).reshape(4, 6).transpose(0, 1)], dim=0)
        z = y[1:5, [0, 2]].unsqueeze(0).expand(3, 4, 2).sum()
    assert not any(e.fallback_cpu for e in tr.events if e.kind == "kernel.select")
    z.backward()
    x2 = mg.tensor(x.detach().numpy(), requires_grad=True)
    y2 = mg.concat([x2.reshape(6, 4), x2.permute(2, 0, 1).reshape(4, 6).transpose(0, 1)], dim=0)
    y2[1:5, [0, 2]].unsqueeze(0).expand(3, 4, 2).sum().backward()
    np.testing.assert_allclose(x.grad.detach().numpy(), x2.grad.detach().numpy(), rtol=1e-6)


def test_every_view_op_has_a_gpu_kernel():
    """A view op that fell back to the CPU would hand the GPU a copy: a change through it would be lost."""
    from minigrad.kernels.registry import kernels_for
    from minigrad.ops import OPS

    mg.zeros(1).to("gpu")  # registers the GPU kernels
    views = sorted(name for name, op in OPS.items() if op.view)
    assert {"diagonal", "unfold", "getitem"} <= set(views)
    missing = [name for name in views if not any(key.backend == "GPU" for key in kernels_for(name))]
    assert not missing, missing


def _views_program(device):
    x = mg.tensor(_rand((3, 4, 5), mg.float64), requires_grad=True)
    h = x.to(device) * 2
    h.diagonal(1, 1, 2).mul_(3)  # a strided view written in place: the history rewrite (CopySlices)
    w = h.unfold(2, 2, 1)  # overlapping windows: a view whose elements repeat
    (w * w).sum().backward()
    return x.grad, h


def test_writes_through_diagonal_and_unfold_views_reach_the_base_on_gpu():
    g = mg.arange(12.0).reshape(3, 4).to("gpu")
    with mg.trace() as tr:
        g.diagonal().fill_(-1.0)
        g.unfold(1, 2, 2)[2].mul_(10.0)
    assert not any(e.fallback_cpu for e in tr.events if e.kind == "kernel.select")
    c = mg.arange(12.0).reshape(3, 4)
    c.diagonal().fill_(-1.0)
    c.unfold(1, 2, 2)[2].mul_(10.0)
    np.testing.assert_array_equal(g.numpy(), c.numpy())

    with mg.trace() as tr:
        grad_gpu, h_gpu = _views_program("gpu")
    sel = [e for e in tr.events if e.kind == "kernel.select" and e.op in ("diagonal", "unfold", "copy_slices")]
    assert {e.op for e in sel} == {"diagonal", "unfold", "copy_slices"}
    assert all(e.backend == "GPU" and not e.fallback_cpu for e in sel), sel
    grad_cpu, h_cpu = _views_program("cpu")
    np.testing.assert_allclose(h_gpu.detach().numpy(), h_cpu.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(grad_gpu.numpy(), grad_cpu.numpy(), rtol=1e-12)


def _changed_through_view(device, change):
    """The program of a student's report: ``h = x * 2``, an in-place change through a view of ``h``, ``(h * h).sum()``."""
    x = mg.tensor(_rand((3, 4), mg.float64, seed=3), dtype=mg.float64, device=device, requires_grad=True)
    h = x * 2
    change(h)
    (h * h).sum().backward()
    return x, h


VIEW_CHANGES = {
    "diagonal().mul_(3)": lambda h: h.diagonal().mul_(3),
    "unfold(1, 2, 1).mul_(2)": lambda h: h.unfold(1, 2, 1).mul_(2),  # overlapping windows: twice on the middle columns
    "unfold(1, 2, 2)[1].add_(1)": lambda h: h.unfold(1, 2, 2)[1].add_(1.0),
    "diagonal(1).unfold(0, 2, 1).sub_(1)": lambda h: h.diagonal(1).unfold(0, 2, 1).sub_(1.0),
    "as_strided((2, 2), (4, 1), 5).mul_(3)": lambda h: h.as_strided((2, 2), (4, 1), 5).mul_(3),
    "t().as_strided((3,), (5,)).add_(1)": lambda h: h.t().as_strided((3,), (5,)).add_(1.0),
}


@pytest.mark.parametrize("name", sorted(VIEW_CHANGES))
def test_in_place_change_through_diagonal_and_unfold_gives_the_cpu_gradient_on_gpu(name):
    """A change through a strided view on the GPU rewrites the base's history (CopySlices), as on the CPU:
    the values of ``h`` alone are not enough, the gradient shows whether the history was rewritten."""
    xg, hg = _changed_through_view("gpu", VIEW_CHANGES[name])
    xc, hc = _changed_through_view("cpu", VIEW_CHANGES[name])
    assert hg.grad_fn.name() == hc.grad_fn.name()  # the base's node is the history rewrite on both
    np.testing.assert_allclose(hg.detach().numpy(), hc.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(xg.grad.numpy(), xc.grad.numpy(), rtol=1e-12)


def test_diagonal_changed_in_place_on_gpu_gives_the_chain_rule():
    """The reported numbers without minigrad's CPU as the oracle: d/dx of sum(h * h) is 8x off the
    diagonal and 2 * (6x) * 6 = 72x on it."""
    x, _ = _changed_through_view("gpu", VIEW_CHANGES["diagonal().mul_(3)"])
    xv = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), np.where(np.eye(3, 4, dtype=bool), 72.0, 8.0) * xv, rtol=1e-12)


def test_as_strided__restrides_a_gpu_tensor_as_a_cpu_one():
    """``as_strided_`` (an in-place view op, AsStridedBackward1) on the GPU: the geometry, the values, a view
    taken before it and the gradients through both are the CPU's."""
    got = []
    for device in ("cpu", "gpu"):
        x = mg.tensor(_rand((3, 4), mg.float64), dtype=mg.float64, device=device, requires_grad=True)
        h = x * 2
        g = h[1:]
        h.as_strided_((2, 3), (1, 2), 1)
        (h * h).sum().backward(retain_graph=True)
        (g * 3).sum().backward()
        got.append((h.grad_fn.name(), h.stride(), h.storage_offset(), h.detach().numpy(), g.detach().numpy(),
                    x.grad.numpy()))
    assert got[0][:3] == got[1][:3] == ("AsStridedBackward1", (1, 2), 1)
    for a, b in zip(got[0][3:], got[1][3:]):
        np.testing.assert_allclose(b, a, rtol=1e-12)


@pytest.mark.parametrize("shape", [(), (3,)])
def test_t_of_0d_and_1d_gpu_tensors_is_a_view_of_the_same_values(shape):
    """PyTorch's ``t()`` of a tensor with fewer than 2 dims: the same values, a view with its own node."""
    grads, outs = [], []
    for device in ("cpu", "gpu"):
        x = mg.tensor(_rand(shape, mg.float64), dtype=mg.float64, device=device, requires_grad=True)
        y = x.t()
        assert y is not x and y.shape == x.shape and y._is_view()
        (y * 3).sum().backward()
        outs.append(y.detach().numpy())
        grads.append(x.grad.numpy())
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(grads[0], grads[1])


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("empty_first", [True, False])
def test_cat_skips_a_legacy_empty_tensor_on_gpu(dim, empty_first):
    """``cat`` of ``zeros(0)`` and a 2-d tensor is the 2-d tensor (PyTorch's legacy rule), on the GPU as on the CPU."""
    results = []
    for device in ("cpu", "gpu"):
        e = mg.zeros(0, dtype=mg.float64, device=device, requires_grad=True)
        m = mg.tensor(_rand((2, 3), mg.float64), dtype=mg.float64, device=device, requires_grad=True)
        y = mg.cat([e, m] if empty_first else [m, e], dim)
        (y * mg.tensor(_rand(y.shape, mg.float64, seed=5), dtype=mg.float64, device=device)).sum().backward()
        results.append((y.detach().numpy(), m.grad.numpy(), e.grad.numpy()))
    (yc, mc, ec), (yg, mg_, eg) = results
    np.testing.assert_array_equal(yg, yc)
    np.testing.assert_array_equal(mg_, mc)
    assert eg.shape == ec.shape == (0,)


@pytest.mark.parametrize("shape, dim", [((), None), ((), 0), ((2, 3), None), ((2, 3), 1), ((2, 1), (0,))])
def test_squeeze_with_nothing_to_squeeze_is_a_view_on_gpu(shape, dim):
    """CuPy's squeeze returns the array itself when no dim has size 1: the output must still be a view,
    so that PyTorch's refusal of an in-place change of a view of a leaf holds on the GPU."""
    x = mg.tensor(_rand(shape, mg.float64), dtype=mg.float64, device="gpu", requires_grad=True)
    y = x.squeeze() if dim is None else x.squeeze(dim)
    assert y._is_view() and y._base is x
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        y.abs_()


def test_view_of_a_transposed_gpu_tensor_is_refused_as_on_the_cpu():
    """``view`` never copies: a layout it cannot view raises PyTorch's error on the GPU too (CuPy's arrays
    are no NumPy arrays; the stand-in's are, so only a device proves this one)."""
    for device in ("cpu", "gpu"):
        x = mg.tensor(_rand((2, 3), mg.float64), dtype=mg.float64, device=device)
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            x.t().view(-1)
        assert x.t().reshape(-1).shape == (6,) and x.view(3, 2)._is_view()


def test_logsumexp_infinities_match_cpu():
    x = np.array([[-np.inf, -np.inf, -np.inf], [1.0, np.inf, 2.0], [np.inf, np.inf, 0.0], [-np.inf, 0.5, 1.5]])
    for dtype in FLOATS:
        cpu = mg.logsumexp(mg.tensor(x, dtype=dtype), dim=1).detach().numpy()
        gpu = mg.logsumexp(mg.tensor(x, dtype=dtype).to("gpu"), dim=1).detach().numpy()
        np.testing.assert_allclose(gpu, cpu, rtol=1e-6)
    # a long row (chunked: partial states merged by the combine kernel) with one +inf and many -inf
    long = np.full(100_000, -np.inf)
    long[123], long[99_000] = 0.0, 1.0
    cpu = mg.logsumexp(mg.tensor(long)).item()
    gpu = mg.logsumexp(mg.tensor(long).to("gpu")).item()
    assert abs(cpu - gpu) < 1e-5


def test_autocast_on_gpu_runs_float16_kernels_and_grads_reach_float32_leaves():
    w = mg.randn(8, 4, requires_grad=True)
    x = mg.randn(3, 8).to("gpu")
    with mg.trace() as tr, mg.autocast("O1"):
        y = x @ w.to("gpu")
        loss = mg.log_softmax(y, dim=1).sum()
    mm = [e for e in tr.events if e.kind == "kernel.select" and e.op == "matmul"][0]
    assert (mm.backend, mm.dtype) == ("GPUDNN", "float16") and y.dtype == mg.float16
    assert loss.dtype == mg.float32 and loss.device == "gpu"
    loss.backward()
    assert w.grad.dtype == mg.float32 and w.grad.device == "cpu"


def test_fallback_off_on_gpu_raises_for_ops_without_gpu_kernels():
    saved = mg.flags.enable_api_kernel_fallback
    mg.flags.enable_api_kernel_fallback = False
    try:
        x = mg.randn(1, 1, 4, 4).to("gpu")
        with pytest.raises(RuntimeError, match=r"softplus\(\): no kernel registered for key \(GPU, NCHW, float32\)"):
            mg.softplus(x)
    finally:
        mg.flags.enable_api_kernel_fallback = saved


# -- convolution, pooling, mse_loss --------------------------------------------------------------

CONV_CASES = [  # x shape, w shape, stride, padding, with bias
    ((2, 3, 9, 8), (4, 3, 3, 3), (1, 1), (0, 0), True),
    ((1, 2, 7, 7), (3, 2, 3, 2), (2, 1), (1, 1), False),
    ((3, 4, 6, 5), (2, 4, 1, 1), (1, 2), (0, 1), True),
    ((2, 1, 11, 10), (5, 1, 5, 5), (3, 3), (2, 2), True),
]


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("case", CONV_CASES, ids=str)
@pytest.mark.parametrize("use_gpudnn, backend", [(True, "GPUDNN"), (False, "GPU")], ids=["im2col_cublas", "direct"])
def test_conv2d_both_variants(case, dtype, use_gpudnn, backend, gpudnn_flag):
    xs, ws, stride, padding, bias = case
    mg.flags.use_gpudnn = use_gpudnn
    arrays = [_rand(xs, dtype, seed=1), _rand(ws, dtype, seed=2)] + ([_rand(ws[:1], dtype, seed=3)] if bias else [])
    check("conv2d", lambda x, w, *b: mg.conv2d(x, w, b[0] if b else None, stride=stride, padding=padding),
          arrays, dtype, backend=backend)


@pytest.mark.parametrize("use_gpudnn, backend", [(True, "GPUDNN"), (False, "GPU")], ids=["im2col_cublas", "direct"])
def test_conv2d_backward_runs_the_gradient_kernels_on_the_gpu(use_gpudnn, backend, gpudnn_flag):
    mg.flags.use_gpudnn = use_gpudnn
    x = mg.randn(2, 3, 6, 6, requires_grad=True)
    w = mg.randn(4, 3, 3, 3, requires_grad=True)
    with mg.trace() as tr:
        mg.conv2d(x.to("gpu"), w.to("gpu"), padding=1).sum().backward()
    sel = {e.op: (e.backend, e.fallback_cpu) for e in tr.events if e.kind == "kernel.select"}
    for op in ("conv2d", "conv2d_input_grad", "conv2d_weight_grad"):
        assert sel[op] == (backend, False), (op, sel[op])


def test_conv2d_second_order_on_gpu_matches_cpu():
    def hvp(device):
        x = mg.tensor(_rand((1, 2, 5, 5), mg.float64, seed=1), requires_grad=True)
        w = mg.tensor(_rand((3, 2, 3, 3), mg.float64, seed=2), requires_grad=True)
        y = mg.conv2d(x.to(device), w.to(device), padding=1)
        (gx,) = mg.grad((y * y).sum(), [x], create_graph=True)
        (gw,) = mg.grad((gx * gx).sum(), [w])
        return gw.detach().numpy()

    np.testing.assert_allclose(hvp("gpu"), hvp("cpu"), rtol=1e-10, atol=1e-10)


CONV_FORMS = {  # every form is one op: conv2d or conv_transpose2d (ConvolutionBackward0), 1-D on the 3-D arrays
    "conv1d": ("conv2d", lambda x, w, b: mg.nn.functional.conv1d(x, w, b, stride=2, padding=1, dilation=2, groups=2),
               ((2, 4, 9), (6, 2, 3), (6,))),
    "conv2d dilated, grouped": ("conv2d", lambda x, w, b: mg.conv2d(x, w, b, stride=(1, 2), dilation=(2, 1), groups=2),
                                ((2, 4, 7, 8), (4, 2, 3, 2), (4,))),
    "conv_transpose2d": ("conv_transpose2d", lambda x, w, b: mg.nn.functional.conv_transpose2d(
        x, w, b, stride=2, padding=(1, 0), output_padding=1, groups=2), ((2, 4, 4, 3), (4, 3, 3, 2), (6,))),
    "conv_transpose2d output_padding past the stride": ("conv_transpose2d", lambda x, w, b: mg.nn.functional.conv_transpose2d(
        x, w, b, output_padding=1, dilation=2), ((1, 2, 4, 4), (2, 3, 2, 2), (3,))),
    "conv_transpose1d": ("conv_transpose2d", lambda x, w, b: mg.nn.functional.conv_transpose1d(x, w, b, stride=3, padding=1),
                         ((2, 3, 5), (3, 2, 4), (2,))),
}


@pytest.mark.parametrize("name", sorted(CONV_FORMS))
@pytest.mark.parametrize("use_gpudnn, backend", [(True, "GPUDNN"), (False, "GPU")], ids=["im2col_cublas", "direct"])
def test_convolution_forms_run_their_op_on_the_gpu(name, use_gpudnn, backend, gpudnn_flag):
    """conv1d, a dilated grouped conv2d and the transposed convolutions: the op and both gradient ops on the GPU
    (no fallback), values and gradients the CPU's, second order too."""
    mg.flags.use_gpudnn = use_gpudnn
    op, fn, shapes = CONV_FORMS[name]

    def run(device):
        leaves = [mg.tensor(_rand(s, mg.float64, seed=i), requires_grad=True) for i, s in enumerate(shapes)]
        with mg.trace() as tr:
            out = fn(*[t.to(device) for t in leaves])
            grads = mg.grad((out * out).sum(), leaves, create_graph=True)
            second = mg.grad(sum((g * g).sum() for g in grads), leaves[:2])
        sel = [e for e in tr.events if e.kind == "kernel.select"]
        return [out] + list(grads) + list(second), sel

    cpu, _ = run("cpu")
    gpu, sel = run("gpu")
    assert type(gpu[0].grad_fn).__name__ == "ConvolutionBackward0"
    assert not [e.op for e in sel if e.fallback_cpu], "a CPU fallback"
    ran = {e.op for e in sel if e.backend == backend}
    assert {op, "conv2d_weight_grad"} <= ran, ran
    for g, c in zip(gpu, cpu):
        np.testing.assert_allclose(g.detach().cpu().numpy(), c.detach().numpy(), rtol=1e-10, atol=1e-10)


def _conv_reference(x, w, stride, padding, dilation, groups):
    """Direct loops in float64: the definition of a grouped, dilated cross-correlation."""
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for oc in range(o):
        g = oc // og
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i * dh: i * dh + sh * (oh - 1) + 1: sh, j * dw: j * dw + sw * (ow - 1) + 1: sw]
                out[:, oc] += np.einsum("nchw,c->nhw", patch, w[oc, :, i, j].astype(np.float64))
    return out


@pytest.mark.parametrize("groups", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_im2col_kernels_give_the_same_values_in_slices_of_images_as_in_one(monkeypatch, groups, dtype):
    """A batch whose column matrix passes ``_COLS_BYTES`` runs in slices of images (the weight gradient summed
    over them); one that fits is one slice, its weight gradient one GEMM. Both give the direct loops' values,
    and an empty batch a zero weight gradient."""
    import cupy

    from minigrad.kernels.gpu import conv

    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 4, 7, 6)).astype(dtype)
    w = rng.normal(size=(6, 4 // groups, 3, 3)).astype(dtype)
    ref = _conv_reference(x, w, (1, 1), (1, 1), (1, 1), groups)
    g = rng.normal(size=ref.shape).astype(dtype)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else dict(rtol=1e-10, atol=1e-10)

    def run():
        args = ((1, 1), (1, 1), (1, 1), groups)
        y = cupy.asnumpy(conv.conv2d_gemm(cupy.asarray(x), cupy.asarray(w), None, *args))
        dx = cupy.asnumpy(conv.conv2d_input_grad_gemm(cupy.asarray(g), cupy.asarray(w), x.shape, *args))
        dw = cupy.asnumpy(conv.conv2d_weight_grad_gemm(cupy.asarray(x), cupy.asarray(g), w.shape, *args))
        return y, dx, dw

    whole = run()
    rows = 4 * 9 * 7 * 6 * np.dtype(dtype).itemsize  # one image's column matrix
    monkeypatch.setattr(conv, "_COLS_BYTES", 2 * rows)  # slices of two images: 2, 2, 1
    assert len(conv._slices(5, 4 * 9, 7 * 6, np.dtype(dtype).itemsize)) == 3
    sliced = run()
    np.testing.assert_allclose(whole[0], ref, **tol)
    for a, b in zip(whole, sliced):
        assert a.dtype == b.dtype == dtype
        np.testing.assert_allclose(a, b, **tol)
    # the weight gradient against its adjoint identity, <conv(x), g> = <w, dw(g)>
    inner = float((ref * g.astype(np.float64)).sum())
    for dw in (whole[2], sliced[2]):
        assert abs(float((w.astype(np.float64) * dw).sum()) - inner) < 1e-3 * max(1.0, abs(inner))
    empty = conv.conv2d_weight_grad_gemm(cupy.asarray(x[:0]), cupy.asarray(g[:0]), w.shape, (1, 1), (1, 1), (1, 1), groups)
    assert empty.shape == w.shape and not cupy.asnumpy(empty).any()


@pytest.mark.parametrize("variant", ["gemm", "direct"])
@pytest.mark.parametrize("stride, padding, dilation, groups", [((1, 1), (2, 1), (2, 2), 2), ((2, 1), (0, 0), (1, 3), 3)])
def test_conv_kernels_dilation_and_groups(variant, stride, padding, dilation, groups):
    """The kernels take dilation and groups (the op's PyTorch forms); checked against direct loops, with
    the two gradient kernels checked as the adjoints of the forward: <conv(x), g> = <x, dx(g)> = <w, dw(g)>."""
    import cupy

    from minigrad.kernels.gpu import conv

    fwd, dxk, dwk = {"gemm": (conv.conv2d_gemm, conv.conv2d_input_grad_gemm, conv.conv2d_weight_grad_gemm),
                     "direct": (conv.conv2d_direct, conv.conv2d_input_grad_direct, conv.conv2d_weight_grad_direct)}[variant]
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 6, 9, 10))
    w = rng.normal(size=(6, 6 // groups, 3, 2))
    y = fwd(cupy.asarray(x), cupy.asarray(w), None, stride, padding, dilation, groups)
    ref = _conv_reference(x, w, stride, padding, dilation, groups)
    np.testing.assert_allclose(cupy.asnumpy(y), ref, rtol=1e-10, atol=1e-10)
    g = rng.normal(size=ref.shape)
    dx = cupy.asnumpy(dxk(cupy.asarray(g), cupy.asarray(w), x.shape, stride, padding, dilation, groups))
    dw = cupy.asnumpy(dwk(cupy.asarray(x), cupy.asarray(g), w.shape, stride, padding, dilation, groups))
    inner = float((ref * g).sum())
    assert abs(float((x * dx).sum()) - inner) < 1e-8 * max(1.0, abs(inner))
    assert abs(float((w * dw).sum()) - inner) < 1e-8 * max(1.0, abs(inner))


POOL_CASES = [((2, 3, 8, 8), 2, None, 0, 1, False), ((1, 2, 7, 9), (3, 2), (2, 1), (1, 1), 1, False),
              ((2, 2, 5, 5), 3, 1, 1, 1, False), ((2, 3, 7, 6), 3, 2, 1, 2, True), ((3, 7, 6), (2, 3), 2, 0, (2, 1), True)]


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("case", POOL_CASES, ids=str)
def test_max_pool2d(case, dtype):
    """Batched or not, dilated, ceil_mode: one launch of the op on the device, the CPU's values and indices."""
    xs, k, s, p, d, ceil_mode = case
    check("max_pool2d", lambda x: mg.max_pool2d(x, k, s, p, d, ceil_mode), [_rand(xs, dtype, seed=4)], dtype)
    x = mg.tensor(_rand(xs, dtype, seed=4))
    cpu = mg.nn.functional.max_pool2d(x, k, s, p, d, ceil_mode, return_indices=True)[1]
    with mg.trace() as tr:
        gpu = mg.nn.functional.max_pool2d(x.to("gpu"), k, s, p, d, ceil_mode, return_indices=True)[1]
    assert gpu.cpu().tolist() == cpu.tolist()
    assert [e.op for e in tr.events if e.kind == "kernel.launch"][-2:] == ["max_pool2d", "max_pool2d_indices"]


def test_max_pool2d_backward_and_double_backward_on_gpu():
    def run(device):
        x = mg.tensor(_rand((2, 2, 6, 6), mg.float64, seed=5), requires_grad=True)
        with mg.trace() as tr:
            y = mg.max_pool2d(x.to(device), 3, 2, 1) + mg.max_pool2d(x.to(device), 2, 2, 1, 2, True).sum()
            (gx,) = mg.grad((y * y).sum(), [x], create_graph=True)
            (gx * gx).sum().backward()
        sel = {e.op: (e.backend, e.fallback_cpu) for e in tr.events if e.kind == "kernel.select"}
        return gx.detach().numpy(), x.grad.detach().numpy(), sel

    g_cpu, gg_cpu, _ = run("cpu")
    g_gpu, gg_gpu, sel = run("gpu")
    np.testing.assert_allclose(g_gpu, g_cpu, rtol=1e-12)
    np.testing.assert_allclose(gg_gpu, gg_cpu, rtol=1e-12)
    for op in ("max_pool2d", "max_pool2d_grad", "max_pool2d_select"):
        assert sel[op] == ("GPU", False), (op, sel[op])


def test_max_pool2d_nan_wins_like_the_cpu():
    x = _rand((1, 1, 4, 4), mg.float32)
    x[0, 0, 1, 2] = np.nan
    cpu = mg.max_pool2d(mg.tensor(x), 2).detach().numpy()
    gpu = mg.max_pool2d(mg.tensor(x).to("gpu"), 2).detach().numpy()
    np.testing.assert_array_equal(np.isnan(gpu), np.isnan(cpu))
    np.testing.assert_allclose(gpu[~np.isnan(gpu)], cpu[~np.isnan(cpu)])


ADAPTIVE_MAX_CASES = [("adaptive_max_pool2d", (2, 3, 7, 6), (3, 4)), ("adaptive_max_pool2d", (3, 3, 2), (5, 4)),
                      ("adaptive_max_pool3d", (2, 2, 5, 4, 6), (2, 3, 4)), ("adaptive_max_pool1d", (2, 3, 7), 3)]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("case", ADAPTIVE_MAX_CASES, ids=str)
def test_adaptive_max_pool_is_one_op_on_the_gpu(case, dtype):
    fn, shape, size = case
    op = "adaptive_max_pool3d" if fn.endswith("3d") else "adaptive_max_pool2d"
    check(op, lambda x: getattr(mg.nn.functional, fn)(x, size), [_rand(shape, dtype, seed=3)], dtype)
    check(f"{op}_indices", lambda x: getattr(mg.nn.functional, fn)(x, size, return_indices=True)[1],
          [_rand(shape, dtype, seed=3)], dtype, grad=False)


def test_adaptive_max_pool_gradient_and_double_backward_on_the_gpu_with_nan():
    a = _rand((2, 2, 7, 5), mg.float64, seed=6)
    a[0, 0, 1, 1] = a[0, 0, 2, 0] = a[1, 1, 6, 4] = np.nan

    def run(device):
        x = mg.tensor(a, requires_grad=True)
        with mg.trace() as tr:
            y, idx = mg.nn.functional.adaptive_max_pool2d(x.to(device), (3, 2), return_indices=True)
            (gx,) = mg.grad(mg.nan_to_num(y * y).sum(), [x], create_graph=True)
            (gx * gx).sum().backward()
        sel = {e.op: (e.backend, e.fallback_cpu) for e in tr.events if e.kind == "kernel.select"}
        return idx.numpy(), gx.detach().numpy(), x.grad.detach().numpy(), sel

    i_cpu, g_cpu, gg_cpu, _ = run("cpu")
    i_gpu, g_gpu, gg_gpu, sel = run("gpu")
    np.testing.assert_array_equal(i_gpu, i_cpu)
    np.testing.assert_allclose(g_gpu, g_cpu, rtol=1e-12)
    np.testing.assert_allclose(gg_gpu, gg_cpu, rtol=1e-12)
    for op in ("adaptive_max_pool2d_indices", "adaptive_max_pool2d", "adaptive_max_pool2d_backward"):
        assert sel[op] == ("GPU", False), (op, sel[op])


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("k", [1, 2, 3])
def test_max_unpool_is_one_op_on_the_gpu(k, dtype):
    rng = np.random.default_rng(2)
    pooled_shape = (2, 3) + (2, 3, 1)[:k]  # unpooled by a kernel of 2: planes of (4, 6, 2)[:k]
    plane, n = math.prod((4, 6, 2)[:k]), math.prod((2, 3, 1)[:k])
    idx = np.stack([rng.permutation(plane)[:n] for _ in range(6)]).reshape(pooled_shape)
    fn = getattr(mg.nn.functional, f"max_unpool{k}d")
    op = "max_unpool3d" if k == 3 else "max_unpool2d"
    check(op, lambda v, i: fn(v, i, 2), [_rand(pooled_shape, dtype, seed=2), idx.astype(np.int64)], dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_rrelu_in_evaluation_is_one_elementwise_op_on_the_gpu(dtype):
    check("rrelu_with_noise", lambda x: mg.nn.functional.rrelu(x, 0.1, 0.3), [_rand((3, 5), dtype, seed=4)], dtype)


def test_rrelu_in_training_draws_on_the_gpu_and_copies_nothing():
    """The slopes are drawn on the device (one per element, as PyTorch CUDA's), the forward and both backward
    kernels are the elementwise templates: nothing is copied to or from the host."""
    x = mg.tensor(_rand((4, 6), mg.float32, seed=8)).to("gpu").requires_grad_()

    def run():
        y = mg.nn.functional.rrelu(x, training=True)
        (g,) = mg.grad((y * y).sum(), [x], create_graph=True)
        return y, g

    run()
    fake_cupy.reset_counts()
    y, g = run()
    c = fake_cupy.counts()
    if getattr(sys.modules.get("cupy"), "__fake__", False):
        assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake_cupy.COUNTS.log
    with mg.trace() as tr:
        run()
    sel = {e.op: (e.backend, e.fallback_cpu) for e in tr.events if e.kind == "kernel.select"}
    for op in ("rrelu_with_noise", "rrelu_with_noise_backward"):
        assert sel[op] == ("GPU", False), (op, sel[op])
    xs, ys, gs = x.detach().numpy(), y.detach().numpy(), g.detach().numpy()
    slope = np.where(xs <= 0, ys / np.where(xs == 0, 1, xs), 1.0)
    assert ((slope >= 1 / 8 - 1e-6) & (slope <= 1 / 3 + 1e-6) | (xs > 0)).all()
    np.testing.assert_allclose(gs, 2 * ys * np.where(xs <= 0, slope, 1.0), rtol=1e-5)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("shape, pad", [((2, 3, 6), (2, 1)), ((2, 1, 5, 4), (1, 2, -1, 3)), ((3, 4, 3, 5), (0, 2, 1, 1, 2, 0))],
                         ids=str)
def test_circular_pad_copies_slices_on_the_gpu(shape, pad, dtype):
    """PyTorch's _pad_circular: every copy a copy_slices on the device, the slices views; after the first call
    (the positions of each copy uploaded once per geometry) nothing is copied to or from the host."""
    check("copy_slices", lambda x: mg.nn.functional.pad(x, pad, mode="circular"), [_rand(shape, dtype, seed=9)],
          dtype)
    x = mg.tensor(_rand(shape, dtype, seed=9)).to("gpu")
    mg.nn.functional.pad(x, pad, mode="circular")
    fake_cupy.reset_counts()
    mg.nn.functional.pad(x, pad, mode="circular")
    c = fake_cupy.counts()
    if getattr(sys.modules.get("cupy"), "__fake__", False):
        assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake_cupy.COUNTS.log


def test_multilabel_margin_loss_reports_a_bad_target_at_the_next_sync():
    loss = mg.nn.functional.multilabel_margin_loss(mg.ones(1, 3).to("gpu"), mg.tensor([[0, 3, -1]]).to("gpu"))
    with pytest.raises(RuntimeError, match="argument #2 'target' is out of range"):
        loss.item()


def test_max_unpool_reports_a_bad_index_at_the_next_sync():
    x = mg.ones(1, 1, 2, 2).to("gpu")
    idx = mg.tensor([[[[0, 1], [2, 99]]]]).to("gpu")
    out = mg.nn.functional.max_unpool2d(x, idx, 2)
    with pytest.raises(RuntimeError, match="Found an invalid max index: 99"):
        out.numpy()


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shapes", [((7, 5), (7, 5)), ((12_000,), (12_000,)), ((2, 3, 4), (2, 3, 4))], ids=["same", "chunked", "3d"])
def test_mse_loss(shapes, reduction, dtype):
    check("mse_loss", lambda a, b: mg.mse_loss(a, b, reduction=reduction),
          [_rand(shapes[0], dtype, seed=1), _rand(shapes[1], dtype, seed=2)], dtype)


def test_small_cnn_trains_identically_on_gpu(gpudnn_flag):
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(8, 1, 12, 12))
    ys = rng.integers(0, 4, size=8)
    w1, w2 = rng.normal(size=(6, 1, 3, 3)) * 0.3, rng.normal(size=(6 * 5 * 5, 4)) * 0.1

    def step(device):
        a = mg.tensor(w1, requires_grad=True)
        b = mg.tensor(w2, requires_grad=True)
        x = mg.tensor(xs).to(device)
        h = mg.max_pool2d(mg.conv2d(x, a.to(device)).relu(), 2)
        loss = mg.cross_entropy(h.reshape(8, -1) @ b.to(device), mg.tensor(ys).to(device))
        loss.backward()
        return loss.item(), a.grad.detach().numpy(), b.grad.detach().numpy()

    lc, ac, bc = step("cpu")
    for use_gpudnn in (True, False):
        mg.flags.use_gpudnn = use_gpudnn
        lg, ag, bg = step("gpu")
        assert abs(lc - lg) < 1e-10
        np.testing.assert_allclose(ag, ac, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(bg, bc, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("use_gpudnn, backend", [(True, "GPUDNN"), (False, "GPU")], ids=["im2col_cublas", "direct"])
def test_nhwc_conv2d_on_the_gpu_transposes_in_and_out(use_gpudnn, backend, gpudnn_flag):
    """A channels-last input: the NCHW GPU kernel serves the NHWC key; PrepareData and the kernel layer transpose."""
    from minigrad.kernels.prepare_data import transform_layout

    mg.flags.use_gpudnn = use_gpudnn
    x, w = mg.randn(2, 3, 7, 6, dtype=mg.float64), mg.randn(4, 3, 3, 3, dtype=mg.float64)
    ref = mg.conv2d(x, w, padding=(1, 1)).detach().numpy()
    xg = mg.channels_last(x).to("gpu")
    with mg.trace() as tr:
        out = mg.conv2d(xg, w.to("gpu"), padding=(1, 1))
    sel = [e for e in tr.events if e.kind == "kernel.select" and e.op == "conv2d"][0]
    assert (sel.backend, sel.layout, sel.fallback_cpu) == (backend, "NHWC", False)
    moves = [(e.arg, e.what, e.from_, e.to) for e in tr.events if e.kind == "data.transform" and e.op == "conv2d"]
    assert moves == [("x", "layout", "NHWC", "NCHW"), ("out", "layout", "NCHW", "NHWC")]
    assert out.layout == "NHWC" and out.device == "gpu" and out.shape == (2, 7, 6, 4)
    np.testing.assert_allclose(transform_layout(out.detach().numpy(), "NHWC", "NCHW"), ref, rtol=1e-10)


def test_a_hook_may_not_move_the_gradient_to_another_device():
    """docs/architecture.md, bad input: a hook's replacement gradient keeps the device (and dtype and shape)."""
    x = mg.tensor([1.0, 2.0], device="gpu", requires_grad=True)
    x.register_hook(lambda g: g.to("cpu"))
    with pytest.raises(RuntimeError, match=r"hook '<lambda>' has changed the type of value \(was torch.cuda.FloatTensor "
                                           r"got torch.FloatTensor\)"):
        (x * 2).sum().backward()
    assert x.grad is None


def test_nan_gradient_on_the_device_and_its_trace_load_back(tmp_path):
    """log(0) * 0 on the GPU: -inf and NaN come back as in PyTorch, and the saved trace is valid."""
    x = mg.tensor([0.0, 1.0], device="gpu", requires_grad=True)
    with mg.trace() as tr:
        (x.log() * x).sum().backward()
    g = x.grad.detach().numpy()
    assert np.isnan(g[0]) and g[1] == 1.0
    tr.save(tmp_path / "nan.jsonl")
    acc = [e for e in mg.trace.load(tmp_path / "nan.jsonl").events if e.kind == "grad.accumulate"]
    assert np.isnan(acc[-1].value[0])


# -- ops of the PyTorch API: their GPU kernels come from the op definitions (``gpu=`` in the op's file) ----------

NEW_UNARY = {"log1p": (mg.log1p, (-0.9, 3)), "expm1": (mg.expm1, (-2, 2)), "floor": (mg.floor, (-3, 3)),
             "ceil": (mg.ceil, (-3, 3)), "trunc": (mg.trunc, (-3, 3)), "round": (mg.round, (-3, 3))}


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op", sorted(NEW_UNARY))
def test_unary_ops_of_the_pytorch_api(op, dtype):
    fn, (lo, hi) = NEW_UNARY[op]
    check(op, fn, [_rand((33, 65), dtype, lo, hi)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("decimals", [0, 2, -1])
def test_round_to_decimals(decimals, dtype):
    """``round(x, decimals=d)`` runs on the device (d reaches the kernel by value, as a number attribute)."""
    check("round", lambda x: mg.round(x, decimals=decimals), [_rand((33, 65), dtype, -300, 300)], dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("op", ["argmax", "argmin"])
@pytest.mark.parametrize("dim, keepdim", [(None, False), (None, True), (1, False), (-1, True)])
def test_argmax_argmin(op, dim, keepdim, dtype):
    check(op, lambda x: getattr(mg, op)(x, dim=dim, keepdim=keepdim), [_rand((5, 7, 9), dtype)], dtype, grad=False)


def test_set_default_device_puts_factories_and_new_layers_on_the_gpu():
    """``mg.set_default_device("cuda")``, as ``torch.set_default_device``: factory functions given no ``device=``
    and new layers' parameters land on the GPU; ``*_like`` follows its input; ``None`` restores the CPU."""
    cpu = mg.ones(2)
    mg.set_default_device("cuda")
    try:
        assert mg.get_default_device() == "cuda" and repr(mg.get_default_device()) == "device(type='cuda', index=0)"
        made = [mg.zeros(2), mg.ones(2, 3), mg.tensor([1.0, 2.0]), mg.randn(3), mg.rand(2), mg.arange(4),
                mg.full((2,), 7.0), mg.empty(2), mg.eye(2), mg.linspace(0, 1, 5), mg.randint(0, 5, (3,)),
                mg.randperm(4), mg.as_tensor([1, 2]), mg.nn.Linear(2, 3).weight]
        assert all(t.device == "cuda" for t in made), [str(t.device) for t in made]
        assert mg.zeros(2, device="cpu").device == "cpu" and mg.zeros_like(cpu).device == "cpu"
        layer = mg.nn.Linear(3, 2)
        assert layer(mg.randn(4, 3)).device == "cuda"
        for m, x in ((mg.nn.BatchNorm2d(2), mg.randn(3, 2, 2, 2)), (mg.nn.BatchNorm1d(2), mg.randn(3, 2)),
                     (mg.nn.PReLU(), mg.randn(3)), (mg.nn.GroupNorm(1, 2), mg.randn(2, 2, 3)),
                     (mg.nn.InstanceNorm1d(2, affine=True, track_running_stats=True), mg.randn(2, 2, 3)),
                     (mg.nn.LayerNorm(3), mg.randn(2, 3))):
            assert all(t.device == "cuda" for t in [*m.parameters(), *m.buffers()]), type(m).__name__
            assert m(x).device == "cuda"
    finally:
        mg.set_default_device(None)
    assert mg.get_default_device() == "cpu" and mg.zeros(1).device == "cpu"


LAYOUT_CASES = {
    "t + y": lambda L, a, b, c, r: a.t() + b, "y + t": lambda L, a, b, c, r: b + a.t(),
    "abs(t)": lambda L, a, b, c, r: a.t().abs(), "t * 2": lambda L, a, b, c, r: a.t() * 2,
    "t > 0": lambda L, a, b, c, r: a.t() > 0, "where": lambda L, a, b, c, r: L.where(a.t() > 0, a.t(), 0.0),
    "permuted sigmoid": lambda L, a, b, c, r: L.sigmoid(c.permute(2, 0, 1)),
    "permuted + broadcast": lambda L, a, b, c, r: c.permute(2, 1, 0) + r[None, :, None],
    "t + row": lambda L, a, b, c, r: a.t() + r, "strided slice": lambda L, a, b, c, r: c[:, ::2].exp(),
    "clamp(t)": lambda L, a, b, c, r: L.clamp(a.t(), -0.5, 0.5),
    "expanded * y": lambda L, a, b, c, r: r[:, None].expand(3, 4) * a,
}


@pytest.mark.parametrize("case", sorted(LAYOUT_CASES))
def test_an_elementwise_result_is_laid_out_as_pytorchs(case):
    """PyTorch orders an elementwise result's dimensions by its inputs' strides (the exp of a transposed
    tensor is transposed), so ``.stride()``, ``.is_contiguous()`` and whether ``.view(-1)`` raises are
    PyTorch's on the GPU too (NOTE [ An elementwise result is laid out as PyTorch lays it out ])."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in ((3, 4), (4, 3), (2, 3, 4), (3,))]
    want = LAYOUT_CASES[case](torch, *(torch.tensor(a) for a in arrays))
    got = LAYOUT_CASES[case](mg, *(mg.tensor(a).to("gpu") for a in arrays))
    assert got.device == "cuda"
    assert tuple(got.stride()) == tuple(want.stride()) and got.is_contiguous() == want.is_contiguous()
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12)
    if not want.is_contiguous():
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            got.view(-1)


MIXED = {
    "x + cpu": lambda x, c, w: x + c, "cpu * x": lambda x, c, w: c * x,
    "x @ cpu": lambda x, c, w: x @ mg.ones(3, 2), "cat": lambda x, c, w: mg.cat([x, c]),
    "mse_loss": lambda x, c, w: mg.nn.functional.mse_loss(x, c),
    "embedding": lambda x, c, w: mg.nn.functional.embedding(mg.tensor([0, 2]), w),
    "cross_entropy": lambda x, c, w: mg.nn.functional.cross_entropy(x, mg.tensor([0, 1, 2, 3])),
    "where's condition": lambda x, c, w: mg.where(MASK, x, 1.0),
    "gather's index": lambda x, c, w: x.gather(1, mg.tensor([[0], [1], [2], [0]])),
    "masked_fill's mask": lambda x, c, w: x.masked_fill(MASK, 0.0),
}
MASK = mg.tensor([[True, False, True]] * 4)  # on the CPU
MIXED_WHERE = {"embedding": " (when checking argument for argument index in method wrapper_CUDA__index_select)",
               "cross_entropy": " (when checking argument for argument target in method wrapper_CUDA_nll_loss_forward)"}


@pytest.mark.parametrize("case", sorted(MIXED))
def test_tensors_on_two_devices_are_refused_in_pytorchs_words(case):
    """PyTorch's most common GPU error: a CPU tensor (not a 0-d one) in a call on GPU tensors. Refused before a
    node or an event exists - not moved to the GPU behind the program's back at every step."""
    x = mg.randn(4, 3, requires_grad=True).to("gpu")
    c, w = mg.randn(4, 3), mg.randn(5, 2).to("gpu")
    msg = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    with mg.trace() as tr, pytest.raises(RuntimeError) as info:
        MIXED[case](x, c, w)
    assert str(info.value) == msg + MIXED_WHERE.get(case, "")
    assert not [e for e in tr.events if e.kind in ("node.create", "kernel.launch")]


def test_a_0d_cpu_tensor_and_a_cpu_index_may_join_gpu_tensors():
    """As in PyTorch: a 0-d CPU tensor is a number, and advanced indexing takes CPU indices."""
    x = mg.randn(4, 3).to("gpu")
    assert (x * mg.tensor(2.0)).device == "cuda" and (mg.tensor(2.0) - x).device == "cuda"
    assert mg.where(mg.tensor(True), x, x * 2).device == "cuda"
    np.testing.assert_array_equal(x[mg.tensor([0, 2])].cpu().numpy(), x.cpu().numpy()[[0, 2]])


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
def test_clip_grad_norm_on_the_gpu_is_its_foreach_form(dtype):
    """NOTE [ Clipping in a few launches ]: on the GPU ``clip_grad_norm_`` defaults to the multi-tensor
    kernels, which give the for-loop form's values (the CPU's), wait for nothing, and, on the stand-in, launch
    a few kernels for 40 gradients where the for-loop takes five or more launches and copies a gradient."""
    rng = np.random.default_rng(2)
    shapes = [(3, 4), (1000,), (0,), (70, 33), (5,)] * 8
    grads = [rng.standard_normal(s) * 3 for s in shapes]
    results = []
    for device, foreach in (("cpu", None), ("gpu", False), ("gpu", None)):
        ps = [mg.nn.Parameter(mg.zeros(s, dtype=dtype, device=device)) for s in shapes]
        for p, g in zip(ps, grads):
            p.grad = mg.tensor(g, dtype=dtype, device=device)
        fake = fake_cupy.installed()
        if fake is not None:
            fake.reset_counts()
        total = mg.nn.utils.clip_grad_norm_(ps, 1.0, foreach=foreach)
        counts = fake.counts() if fake is not None else None
        results.append((total.item(), [p.grad.cpu().numpy().astype(np.float64) for p in ps], counts))
    rtol, atol = TOL[dtype]
    for total, got, counts in results[1:]:
        np.testing.assert_allclose(total, results[0][0], rtol=rtol)
        for a, b in zip(got, results[0][1]):
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    if results[2][2] is not None:
        assert results[2][2]["syncs"] == 0 and results[2][2]["h2d"] == 0
        loop = results[1][2]["launches"] + results[1][2]["d2d"]
        assert results[2][2]["launches"] + results[2][2]["d2d"] <= 20 < 5 * len(shapes) <= loop, \
            (results[1][2], results[2][2])


def test_tensor_split_refuses_indices_on_the_gpu_as_pytorch():
    """PyTorch reads ``tensor_split``'s index tensor on the host and refuses one on the GPU (reading it here would
    make the host wait)."""
    with pytest.raises(RuntimeError, match="^tensor_split expected tensor_indices_or_sections to be on cpu, but "
                                           "it's on cuda:0$"):
        mg.arange(6.0).to("gpu").tensor_split(mg.tensor([1, 3]).to("gpu"))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("op, pieces", [("split", lambda x: x.split(2, 1)), ("split_with_sizes", lambda x: x.split([1, 3], 1)),
                                        ("unbind", lambda x: x.unbind(0))], ids=["split", "split_with_sizes", "unbind"])
def test_split_and_unbind_are_views_and_one_node_on_the_gpu(op, pieces, dtype):
    """The pieces are views of the GPU tensor (no copy) and one node whose backward joins their gradients
    on the device, against the CPU's values and gradients; the last piece gets no gradient (zeros)."""
    def program(x):
        ps = pieces(x)
        return mg.cat([(p * (k + 1)).reshape(-1) for k, p in enumerate(ps[:-1])])
    check(op, program, [_rand((3, 4), dtype)], dtype)
    x = mg.tensor(_rand((3, 4), dtype)).to("gpu")
    assert all(p._data.base is not None for p in pieces(x))


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("op, pieces", [("unsafe_split", lambda x: x.unsafe_chunk(2, 1)),
                                        ("unsafe_split_with_sizes", lambda x: x.unsafe_split_with_sizes([1, 3], 1))],
                         ids=["unsafe_split", "unsafe_split_with_sizes"])
def test_unsafe_split_pieces_share_the_gpu_memory_and_may_change_in_place(op, pieces, dtype):
    """``unsafe_chunk``'s pieces on the device: the input's memory (no copy), one node joining their
    gradients on the device, against the CPU; and, not views to autograd, a piece changes in place
    (``sigmoid_``, as PyTorch's recurrent cells do) with its own node."""
    def program(x):
        ps = pieces(x * 1)
        ps[0].sigmoid_()
        return mg.cat([(p * (k + 1)).reshape(-1) for k, p in enumerate(ps)])
    check(op, program, [_rand((3, 4), dtype)], dtype)
    x = mg.tensor(_rand((3, 4), dtype)).to("gpu")
    assert all(p._data.base is not None and p._base is None for p in pieces(x))


# -- more ops of the PyTorch API a course's GPU programs use: their kernels come from the op definitions too
# (``gpu=`` of kind unary, binary, test - a bool of one value - or param - the op's number attributes by value).
# Each fell back to the CPU: a copy to the host and one back, and a sync, at every call (and in backward).

MORE_UNARY = {
    "tan": (mg.tan, (-1.2, 1.2)), "asin": (mg.asin, (-0.9, 0.9)), "acos": (mg.acos, (-0.9, 0.9)),
    "atan": (mg.atan, (-3, 3)), "sinh": (mg.sinh, (-2, 2)), "cosh": (mg.cosh, (-2, 2)), "asinh": (mg.asinh, (-3, 3)),
    "acosh": (mg.acosh, (1.1, 3)), "atanh": (mg.atanh, (-0.9, 0.9)), "log2": (mg.log2, (0.1, 3)),
    "log10": (mg.log10, (0.1, 3)), "exp2": (mg.exp2, (-3, 3)), "sinc": (mg.sinc, (-2, 2)),
    "leaky_relu": (lambda x: mg.nn.functional.leaky_relu(x, 0.2), (-2, 2)),
    "elu": (lambda x: mg.nn.functional.elu(x, 0.7), (-2, 2)),
    "elu selu": (mg.nn.functional.selu, (-2, 2)),  # the scales by value (p1, p2)
    "celu": (lambda x: mg.nn.functional.celu(x, 2.0), (-2, 2)),
    "threshold": (lambda x: mg.nn.functional.threshold(x, 0.125, 2.0), (-2, 2)),  # bounds exact in float16
    "hardshrink": (lambda x: mg.nn.functional.hardshrink(x, 0.75), (-2, 2)),
    "softshrink": (lambda x: mg.nn.functional.softshrink(x, 0.75), (-2, 2)),
    "hardtanh": (lambda x: mg.nn.functional.hardtanh(x, -0.5, 1.5), (-2, 2)),
    "log_sigmoid": (mg.nn.functional.logsigmoid, (-6, 6)), "mish": (mg.nn.functional.mish, (-4, 4)),
    "clamp_min": (lambda x: x.clamp_min(0.25), (-2, 2)), "clamp_max": (lambda x: x.clamp_max(-0.25), (-2, 2)),
    "logit": (mg.logit, (0.05, 0.95)), "logit eps": (lambda x: mg.logit(x, 0.2), (-0.1, 1.1)),
    "logit negative eps": (lambda x: mg.logit(x, -0.5), (0.05, 0.95)),  # no clamp, as PyTorch's
    # the gamma family: lgamma is CUDA's; digamma, polygamma (the order as p0) and mvlgamma device functions
    "lgamma": (mg.lgamma, (-3, 5)), "digamma": (mg.digamma, (-3, 12)),
    **{f"polygamma {n}": ((lambda n: lambda x: mg.polygamma(n, x))(n), (0.2, 12)) for n in range(4)},
    "polygamma_ 2": (lambda x: (x * 1).polygamma_(2), (0.2, 12)),
    "mvlgamma 3": (lambda x: mg.mvlgamma(x, 3), (1.2, 6)),
}


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op", sorted(MORE_UNARY))
def test_more_unary_ops_run_on_the_gpu(op, dtype):
    fn, (lo, hi) = MORE_UNARY[op]
    check(op.split()[0], fn, [_rand((33, 65), dtype, lo, hi)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op", ["acosh_", "asinh_", "atanh_"])
def test_the_inverse_hyperbolic_inplace_forms_run_on_the_gpu(op, dtype):
    """``x.acosh_()``'s op (no derivative, as PyTorch's): its twin's expression."""
    _, (lo, hi) = MORE_UNARY[op[:-1]]
    check(op, lambda x: getattr(x * 1, op)(), [_rand((33, 65), dtype, lo, hi)], dtype, grad=False)


#: ``F.leaky_relu(x, inplace=True)`` and the others whose in-place node is an overload of its own (``leaky_relu_``:
#: ``LeakyReluBackward1``, saving the result): the op's expression is its out-of-place twin's
INPLACE_ACTIVATIONS = {
    "leaky_relu_": lambda x: mg.nn.functional.leaky_relu(x * 1, 0.2, inplace=True),
    "elu_": lambda x: mg.nn.functional.selu(x * 1, inplace=True),
    "celu_": lambda x: mg.nn.functional.celu(x * 1, 2.0, inplace=True),
    "threshold_": lambda x: mg.nn.functional.threshold(x * 1, 0.125, 2.0, inplace=True),
}


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("op", sorted(INPLACE_ACTIVATIONS))
def test_the_inplace_activations_run_on_the_gpu(op, dtype):
    check(op, INPLACE_ACTIVATIONS[op], [_rand((33, 65), dtype, -2, 2)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("dim", [-1, 0, 1])
def test_glu_runs_on_the_gpu(dim, dtype):
    """glu's halves read in place (strided) by the sigmoid and mul kernels; its backward's ops on the device too."""
    check("glu", lambda x: mg.nn.functional.glu(x, dim), [_rand((6, 8, 10), dtype, -3, 3)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("channels", [1, 8])
def test_prelu_runs_on_the_gpu(channels, dtype):
    """prelu's kernel (the binary template, the weight broadcast from its view ``(1, C, 1)``), and its backward."""
    check("prelu_kernel", mg.nn.functional.prelu, [_rand((6, 8, 10), dtype), _rand((channels,), dtype, 0.1, 0.9, seed=3)],
          dtype)


MORE_BINARY = {"atan2": (mg.atan2, -2.0), "copysign": (mg.copysign, -2.0), "fmod": (mg.fmod, 0.3),
               "remainder": (mg.remainder, 0.3), "floor_divide": (mg.floor_divide, 0.3),
               "logaddexp": (mg.logaddexp, -2.0), "xlogy": (mg.xlogy, 0.1)}


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("op", sorted(MORE_BINARY))
@pytest.mark.parametrize("shapes", [((17, 9), (17, 9)), ((4, 1, 9), (3, 1))], ids=["same", "bcast"])
def test_more_binary_ops_run_on_the_gpu(op, dtype, shapes):
    fn, lo = MORE_BINARY[op]
    arrays = [_rand(shapes[0], dtype, -3.0, 3.0, seed=1), _rand(shapes[1], dtype, lo, 2.0, seed=2)]
    if op in ("fmod", "remainder", "floor_divide"):  # divisors of both signs, away from 0
        arrays[1] = arrays[1] * np.where(_rand(shapes[1], dtype, seed=4) > 0, 1, -1).astype(dtype.np)
    if op == "xlogy":
        arrays[0].reshape(-1)[::5] = 0  # 0 * log(y) is 0
    check(op, fn, arrays, dtype)


def test_binary_cross_entropy_runs_on_the_gpu_and_checks_its_input_there():
    F = mg.nn.functional
    x, t = _rand((6, 5), mg.float32, 0.05, 0.95, seed=1), _rand((6, 5), mg.float32, 0.0, 1.0, seed=2)
    x[0, 0], x[0, 1] = 0.0, 1.0  # each log clamped at -100
    check("binary_cross_entropy", lambda a, b: F.binary_cross_entropy(a, b, reduction="none"), [x, t], mg.float32)
    for reduction in ("mean", "sum", "none"):  # the weight and the reduction inside the op, on the device
        check("binary_cross_entropy", lambda a, b: F.binary_cross_entropy(
            a, b, weight=mg.tensor([0.5, 2.0, 1.0, 3.0, 1.5]).to(a.device), reduction=reduction), [x, t], mg.float32)
    bad = mg.tensor([[0.5, float("nan")]]).to("gpu")
    loss = F.binary_cross_entropy(bad, mg.tensor([[1.0, 0.0]]).to("gpu"))  # checked on the device: no wait here
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        loss.item()


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
def test_tests_of_special_values_run_on_the_gpu(dtype):
    """Each test of a value on the device equals the CPU's, -0.0 and -nan included: a float16 is read with its
    sign bit, NaN's too (the device's cvt.f32.f16 gives every NaN half the positive NaN: ``mg_h2f`` puts the
    sign back), so ``signbit`` and ``copysign`` see a -nan's sign, as PyTorch's CPU does."""
    values = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, -np.nan], dtype=dtype.np)
    assert np.signbit(values[7])  # the -nan the device must not lose
    x = mg.tensor(values)
    for name in ("isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit"):
        with mg.trace() as tr:
            got = getattr(mg, name)(x.to("gpu"))
        sel = [e for e in tr.events if e.kind == "kernel.select" and e.op == name]
        assert sel and sel[0].backend == "GPU" and not sel[0].fallback_cpu, (name, sel)
        assert got.dtype == mg.bool_ and got.cpu().tolist() == getattr(mg, name)(x).tolist(), name
    ones = mg.ones(values.shape, dtype=dtype)
    got = mg.copysign(ones.to("gpu"), x.to("gpu")).cpu().tolist()
    assert got == mg.copysign(ones, x).tolist() == [1, -1, 1, -1, 1, -1, 1, -1]


# -- library kernels (CuPy's own functions, ``kernels/gpu/library.py``): each fell back to the CPU before ------

LIBRARY = {  # name -> (op whose kernel must be the GPU's, function of the tensors, inputs)
    "gather": ("gather", lambda x, i: x.gather(1, i), lambda: [_rand((4, 5), mg.float32), _ints((4, 3), 0, 5)]),
    "gather-narrow": ("gather", lambda x, i: x.gather(0, i), lambda: [_rand((4, 5), mg.float32), _ints((2, 3), 0, 4)]),
    "scatter_add": ("scatter_add", lambda x, i, s: x.scatter_add(1, i, s),
                    lambda: [_rand((4, 5), mg.float32), _ints((4, 3), 0, 5), _rand((4, 4), mg.float32, seed=1)]),
    "scatter": ("scatter", lambda x, i, s: x.scatter(0, i, s),
                lambda: [_rand((4, 5), mg.float32), np.array([[3, 1, 0, 2, 1]]), _rand((2, 5), mg.float32, seed=1)]),
    "flip": ("flip", lambda x: x.flip(0, -1), lambda: [_rand((3, 4, 5), mg.float32)]),
    # scatter_reduce: CuPy's atomic scatters, a product by a sort and a segmented scan; backward on the device too
    **{f"scatter_reduce-{r}-{inc}": ("scatter_reduce", lambda x, i, s, r=r, inc=inc: x.scatter_reduce(
        1, i, s, r, include_self=inc), lambda: [_rand((4, 5), mg.float32), _ints((4, 6), 0, 5),
                                                 _rand((4, 6), mg.float32, 0.5, 2.0, seed=1)])
       for r in ("sum", "prod", "mean", "amax", "amin") for inc in (True, False)},
    **{f"index_reduce-{r}-{inc}": ("index_reduce", lambda x, s, r=r, inc=inc: x.index_reduce(
        1, mg.tensor([2, 0, 2, 4, 0, 2]).to(x.device), s, r, include_self=inc),
        lambda: [_rand((4, 5), mg.float32), _rand((4, 6), mg.float32, 0.5, 2.0, seed=1)])
       for r in ("prod", "mean", "amax", "amin") for inc in (True, False)},
    "flip-t": ("flip", lambda x: x.t().flip(1), lambda: [_rand((4, 6), mg.float32)]),
    "roll": ("roll", lambda x: x.roll((1, -2), (0, 1)), lambda: [_rand((3, 5), mg.float32)]),
    "roll-flat": ("roll", lambda x: x.roll(4), lambda: [_rand((3, 5), mg.float32)]),
    "repeat": ("repeat", lambda x: x.repeat(2, 1, 3), lambda: [_rand((3, 5), mg.float32)]),
    "pad": ("constant_pad_nd", lambda x: mg.nn.functional.pad(x, (1, 2, -1, 1), value=0.5),
            lambda: [_rand((2, 3, 4), mg.float32)]),
    "cumsum": ("cumsum", lambda x: x.cumsum(1), lambda: [_rand((3, 7), mg.float32)]),
    "cumprod": ("cumprod", lambda x: x.cumprod(0), lambda: [_rand((4, 3), mg.float32, 0.5, 1.5)]),
    # reductions, scans and products that are one node, as PyTorch's
    "prod": ("prod", lambda x: x.prod(), lambda: [_rand((4, 3), mg.float32, 0.5, 1.5)]),
    "prod-dim-zero": ("prod", lambda x: (x * mg.tensor([1.0, 0.0, 1.0]).to(x.device)).prod(1),
                      lambda: [_rand((4, 3), mg.float32, 0.5, 1.5)]),
    "nansum": ("nansum", lambda x: mg.where(x > 1.5, float("nan"), x).nansum(0), lambda: [_rand((4, 3), mg.float32)]),
    "trace": ("trace", lambda x: x.trace(), lambda: [_rand((4, 3), mg.float32)]),
    "std_mean": ("std_mean", lambda x: (lambda s, m: s + 2 * m)(*mg.std_mean(x, 1)), lambda: [_rand((4, 5), mg.float32)]),
    "var_mean": ("var_mean", lambda x: (lambda v, m: v + 2 * m)(*mg.var_mean(x)), lambda: [_rand((4, 5), mg.float32)]),
    "aminmax": ("aminmax", lambda x: (lambda a, b: a + 2 * b)(*mg.aminmax(x, dim=0)), lambda: [_rand((4, 5), mg.float32)]),
    "cummax": ("cummax_values", lambda x: x.cummax(1).values, lambda: [_rand((3, 7), mg.float32)]),
    "cummin": ("cummin_values", lambda x: x.cummin(0).values, lambda: [_rand((3, 7), mg.float32)]),
    "rot90": ("rot90", lambda x: x.rot90(1, (1, 0)), lambda: [_rand((3, 4, 5), mg.float32)]),
    # addmm's siblings, one node each as PyTorch's
    "addmv": ("addmv", lambda i, a, b: mg.addmv(i, a, b, beta=0.5, alpha=2.0),
              lambda: [_rand((3,), mg.float32), _rand((3, 4), mg.float32, seed=1), _rand((4,), mg.float32, seed=2)]),
    "addr": ("addr", lambda i, a, b: i.addr(a, b, beta=0), lambda: [_rand((3, 4), mg.float32),
                                                                    _rand((3,), mg.float32, seed=1), _rand((4,), mg.float32, seed=2)]),
    "baddbmm": ("baddbmm", lambda i, a, b: mg.baddbmm(i, a, b, alpha=-1.5), lambda: [
        _rand((3, 5), mg.float32), _rand((2, 3, 4), mg.float32, seed=1), _rand((2, 4, 5), mg.float32, seed=2)]),
    "addbmm": ("addbmm", lambda i, a, b: mg.addbmm(i, a, b, beta=2.0), lambda: [
        _rand((3, 5), mg.float32), _rand((2, 3, 4), mg.float32, seed=1), _rand((2, 4, 5), mg.float32, seed=2)]),
    "scatter-value": ("scatter_value", lambda x: x.scatter(1, mg.tensor([[0, 1], [2, 2], [3, 0]]).to(x.device), 0.5),
                      lambda: [_rand((3, 4), mg.float32)]),
    "diag_embed": ("diag_embed", lambda x: mg.diag_embed(x, 1, 0, 2), lambda: [_rand((2, 3), mg.float32)]),
    "diag": ("diag_embed", lambda x: mg.diag(x, -1), lambda: [_rand((4,), mg.float32)]),
    "diag-of-a-matrix": ("diagonal_copy", lambda x: mg.diag(x, 1), lambda: [_rand((3, 4), mg.float32)]),
    "take": ("take", lambda x: mg.take(x.t(), mg.tensor([[0, 5], [-1, 5]]).to(x.device)), lambda: [_rand((3, 4), mg.float32)]),
    "take-host-index": ("take", lambda x: mg.take(x, mg.tensor([2, 2, 0])), lambda: [_rand((2, 3), mg.float32)]),
    "block_diag": ("block_diag", lambda x, v: mg.block_diag(x, v, x[0, 0]), lambda: [_rand((2, 3), mg.float32),
                                                                                 _rand((4,), mg.float32, seed=1)]),
    "cross": ("cross", lambda a, b: mg.cross(a, b, dim=1), lambda: [_rand((4, 3), mg.float32), _rand((1, 3), mg.float32, seed=1)]),
    # distances
    "dist": ("dist", lambda x, y: mg.dist(x, y, 3), lambda: [_rand((3, 4), mg.float32), _rand((4,), mg.float32, seed=1)]),
    "cdist": ("cdist", lambda x, y: mg.cdist(x, y, 1.5), lambda: [_rand((2, 3, 4), mg.float32),
                                                                  _rand((2, 5, 4), mg.float32, seed=1)]),
    "cdist-mm": ("euclidean_dist", lambda x, y: mg.cdist(x, y, compute_mode="use_mm_for_euclid_dist"),
                 lambda: [_rand((3, 4), mg.float32, 0, 1), _rand((5, 4), mg.float32, 3, 5, seed=1)]),
    # writes of whole slices along a dim, one node each as PyTorch's
    "index_add": ("index_add", lambda x, s: x.index_add(1, mg.tensor([2, 0, 2]).to(x.device), s, alpha=0.5),
                  lambda: [_rand((3, 4), mg.float32), _rand((3, 3), mg.float32, seed=1)]),
    "index_add-gpu-index": ("index_add", lambda x, s, i: x.index_add(0, i, s),
                            lambda: [_rand((4, 3), mg.float32), _rand((2, 3), mg.float32, seed=1), np.array([3, 1])]),
    "index_copy": ("index_copy", lambda x, s: x.index_copy(1, mg.tensor([2, 0]).to(x.device), s),
                   lambda: [_rand((3, 4), mg.float32), _rand((3, 2), mg.float32, seed=1)]),
    "index_fill": ("index_fill", lambda x: x.index_fill(0, mg.tensor([1, -1]), 2.5), lambda: [_rand((3, 4), mg.float32)]),
    "index_fill-tensor": ("index_fill_tensor", lambda x, v: x.index_fill(1, mg.tensor([0, 2]), v.sum()),
                          lambda: [_rand((3, 4), mg.float32), _rand((2,), mg.float32, seed=1)]),
    "index_fill-backward": ("index_fill", lambda x, s: x.index_copy(0, mg.tensor([1]), s),
                            lambda: [_rand((3, 4), mg.float32), _rand((1, 4), mg.float32, seed=1)]),
    "sort": ("argsort", lambda x: x.sort(1, descending=True)[0], lambda: [_rand((3, 7), mg.float32)]),
    "topk": ("topk_indices", lambda x: x.topk(3, 1)[0], lambda: [_rand((3, 7), mg.float32)]),
    "max-dim-backward": ("scatter_add", lambda x: x.max(1)[0], lambda: [_rand((3, 7), mg.float32)]),
    "avg_pool2d": ("avg_pool2d", lambda x: mg.nn.functional.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
                   lambda: [_rand((2, 3, 7, 9), mg.float32)]),
    "avg_pool2d-ceil": ("avg_pool2d", lambda x: mg.nn.functional.avg_pool2d(x, 2, ceil_mode=True, divisor_override=3),
                        lambda: [_rand((1, 2, 5, 5), mg.float32)]),
    "avg_pool2d-unbatched": ("avg_pool2d", lambda x: mg.nn.functional.avg_pool2d(x, 2, 1),
                             lambda: [_rand((3, 5, 6), mg.float32)]),
    # lp_pool: PyTorch's decomposition (pow, avg_pool, sign, abs, relu, mul, pow), every op on the device
    "lp_pool2d": ("avg_pool2d", lambda x: mg.nn.functional.lp_pool2d(x, 2, 2), lambda: [_rand((2, 3, 6, 6), mg.float32)]),
    "lp_pool1d-unbatched": ("avg_pool2d", lambda x: mg.nn.functional.lp_pool1d(x, 3.0, 2, 1),
                            lambda: [_rand((3, 7), mg.float32, 0.2, 2)]),
    "avg_pool3d": ("avg_pool3d", lambda x: mg.nn.functional.avg_pool3d(x, (3, 2, 3), 2, 1, count_include_pad=False),
                   lambda: [_rand((2, 3, 5, 6, 7), mg.float32)]),
    "avg_pool3d-unbatched-ceil": ("avg_pool3d", lambda x: mg.nn.functional.avg_pool3d(x, 2, ceil_mode=True,
                                                                                        divisor_override=3),
                                  lambda: [_rand((2, 5, 5, 3), mg.float32)]),
    "avg_pool3d-backward": ("avg_pool3d_backward", lambda x: mg.nn.functional.avg_pool3d(x, 2, 1),
                            lambda: [_rand((1, 2, 4, 3, 5), mg.float32)]),
    "local_response_norm-3d": ("avg_pool2d", lambda x: mg.nn.functional.local_response_norm(x, 3),
                               lambda: [_rand((2, 5, 7), mg.float32)]),
    "local_response_norm-4d": ("avg_pool3d", lambda x: mg.nn.functional.local_response_norm(x, 2, k=2.0),
                               lambda: [_rand((2, 5, 3, 4), mg.float32)]),
    "adaptive_avg_pool2d": ("adaptive_avg_pool2d", lambda x: mg.nn.functional.adaptive_avg_pool2d(x, (3, 4)),
                            lambda: [_rand((2, 3, 7, 9), mg.float32)]),
    # to one value PyTorch takes a mean over the plane, not the pooling op
    "adaptive_avg_pool2d-1x1": ("mean", lambda x: mg.nn.functional.adaptive_avg_pool2d(x, 1),
                                lambda: [_rand((2, 3, 7, 9), mg.float32)]),
    # resampling: pixel_shuffle and pixel_unshuffle (each the other's backward)
    "pixel_shuffle": ("pixel_shuffle", lambda x: mg.nn.functional.pixel_shuffle(x, 2), lambda: [_rand((2, 8, 3, 2), mg.float32)]),
    "pixel_unshuffle": ("pixel_unshuffle", lambda x: mg.nn.functional.pixel_unshuffle(x.transpose(2, 3), 3),
                        lambda: [_rand((2, 1, 6, 3), mg.float32)]),
    "bce_with_logits": ("binary_cross_entropy_with_logits",
                        lambda x, t: mg.nn.functional.binary_cross_entropy_with_logits(x, t),
                        lambda: [_rand((4, 5), mg.float32, -4, 4), _rand((4, 5), mg.float32, 0, 1, seed=1)]),
    "bce_with_logits-weights": ("binary_cross_entropy_with_logits",
                                lambda x, t: mg.nn.functional.binary_cross_entropy_with_logits(
                                    x, t, weight=mg.tensor([0.5, 2.0, 1.0, 3.0, 1.0]).to(x.device),
                                    pos_weight=mg.tensor([2.0, 0.5, 1.5, 1.0, 3.0]).to(x.device), reduction="none"),
                                lambda: [_rand((4, 5), mg.float32, -4, 4), _rand((4, 5), mg.float32, 0, 1, seed=1)]),
    "soft_margin_loss": ("soft_margin_loss", lambda x: mg.nn.functional.soft_margin_loss(
        x, mg.tensor([[1.0, -1.0, 1.0, -1.0, 1.0]] * 4).to(x.device)), lambda: [_rand((4, 5), mg.float32)]),
    **{f"{loss}-{reduction}": (loss, lambda x, t, loss=loss, reduction=reduction: getattr(mg.nn.functional, loss)(
        x, t, reduction=reduction), lambda: [_rand((4, 5), mg.float32, -3, 3), _rand((4, 5), mg.float32, seed=1)])
       for loss in ("smooth_l1_loss", "huber_loss") for reduction in ("mean", "sum", "none")},
    "norm": ("vector_norm", lambda x: x.norm(), lambda: [_rand((4, 5), mg.float32)]),
    "pairwise_distance": ("norm", mg.nn.functional.pairwise_distance,
                          lambda: [_rand((4, 5), mg.float32), _rand((4, 5), mg.float32, seed=1)]),
    "pairwise_distance-add_scalar": ("add_scalar", lambda x, y: mg.nn.functional.pairwise_distance(x, y, p=3.0),
                                     lambda: [_rand((4, 5), mg.float32), _rand((5,), mg.float32, seed=1)]),
    **{f"multi_margin_loss-p{p}-{reduction}": ("multi_margin_loss", lambda x, t, p=p, reduction=reduction:
        mg.nn.functional.multi_margin_loss(x, t, p=p, weight=mg.tensor([0.5, 2.0, 1.0, 1.5, 1.0]).to(x.device),
                                           reduction=reduction),
        lambda: [_rand((4, 5), mg.float32), _ints((4,), 0, 5)]) for p in (1, 2) for reduction in ("mean", "none")},
    **{f"multilabel_margin_loss-{reduction}-{shape}": ("multilabel_margin_loss", lambda x, t, reduction=reduction:
        mg.nn.functional.multilabel_margin_loss(x, t, reduction=reduction),
        lambda shape=shape: [_rand(shape, mg.float32, -1, 1),
                             np.array([[3, 0, -1, 1, 2], [4, -1, 0, 0, 1], [0, 1, 2, 3, 4], [2, 2, 1, -1, -1]],
                                      dtype=np.int64)[: shape[0] if len(shape) == 2 else 1].reshape(shape)])
       for reduction in ("mean", "sum", "none") for shape in ((4, 5), (5,))},
    "cosine_embedding_loss-sub_scalar": ("sub_scalar", lambda x, y: mg.nn.functional.cosine_embedding_loss(
        x, y, mg.tensor([1.0, -1.0, 1.0, -1.0]).to(x.device), margin=-0.5),
        lambda: [_rand((4, 5), mg.float32), _rand((4, 5), mg.float32, seed=1)]),
    "cosine_similarity": ("vector_norm", mg.nn.functional.cosine_similarity,
                          lambda: [_rand((4, 5), mg.float32), _rand((4, 5), mg.float32, seed=1)]),
    "norm-p3-dim": ("vector_norm", lambda x: mg.linalg.vector_norm(x, 3, dim=1, keepdim=True),
                    lambda: [_rand((4, 5), mg.float32)]),
    "norm-inf": ("vector_norm", lambda x: mg.linalg.vector_norm(x, float("inf"), dim=0), lambda: [_rand((4, 5), mg.float32)]),
    "normalize": ("vector_norm", lambda x: mg.nn.functional.normalize(x, dim=1), lambda: [_rand((4, 5), mg.float32)]),
    **{f"{op}-tensor": (op, (lambda op: lambda x, y: getattr(x * 1, op)(y))(op),
                        lambda: [_rand((4, 5), mg.float32), _rand((5,), mg.float32, seed=1)])
       for op in ("eq_", "ne_", "lt_", "le_", "gt_", "ge_")},
    "lt_-number": ("lt_", lambda x: (x * 1).lt_(0.25), lambda: [_rand((4, 5), mg.float32)]),
    "eq_-equal-values": ("eq_", lambda x, y: (x * 1).eq_(y), lambda: [_rand((4, 5), mg.float32)] * 2),
    "clamp_min-tensor": ("clamp_min_tensor", lambda x, b: x.clamp_min(b),
                         lambda: [_rand((4, 5), mg.float32), _rand((5,), mg.float32, seed=1)]),
    "clamp_max-tensor": ("clamp_max_tensor", lambda x, b: mg.clamp_max(x, b),
                         lambda: [_rand((4, 5), mg.float32), _rand((4, 5), mg.float32, seed=1)]),
    "div-floor": ("div_rounded", lambda x, y: mg.div(x, y, rounding_mode="floor"),
                  lambda: [_rand((4, 5), mg.float32, -3, 3), _rand((4, 5), mg.float32, 0.3, 2, seed=1)]),
    "div-trunc": ("div_rounded", lambda x, y: mg.div(x, y, rounding_mode="trunc"),
                  lambda: [_rand((4, 5), mg.float32, -3, 3), _rand((5,), mg.float32, -2, -0.3, seed=1)]),
}


def _ints(shape, low, high, seed=5):
    return np.random.default_rng(seed).integers(low, high, size=shape).astype(np.int64)


@pytest.mark.parametrize("name", sorted(LIBRARY))
def test_library_kernels_run_on_the_gpu(name):
    op, fn, make = LIBRARY[name]
    arrays = make()

    def run(device):
        leaves = [mg.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
        with mg.trace() as tr:
            out = fn(*[t.to(device) for t in leaves])
            (out * mg.tensor(_rand(out.shape, mg.float32, seed=7)).to(device)).sum().backward()
        return out, [t.grad for t in leaves if t.requires_grad], [e for e in tr.events if e.kind == "kernel.select"]

    cpu_out, cpu_grads, _ = run("cpu")
    gpu_out, gpu_grads, sel = run("gpu")
    assert not [e.op for e in sel if e.fallback_cpu], "a CPU fallback"
    assert any(e.op == op and e.backend == "GPU" for e in sel), op
    assert gpu_out.shape == cpu_out.shape and gpu_out.stride() == cpu_out.stride()
    np.testing.assert_allclose(gpu_out.detach().cpu().numpy(), cpu_out.detach().numpy(), rtol=1e-6)
    for g, c in zip(gpu_grads, cpu_grads):
        # float32 sums of terms of order 1 in another order: an entry near 0 (cancellation) differs by their
        # rounding, about 1e-7 absolute (cdist's gradient: 0.0309862 against 0.0309865 with NumPy 2.4's sums)
        np.testing.assert_allclose(g.numpy(), c.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("reduce", ["amax", "amin"])
def test_a_scatter_max_or_min_of_float64_on_the_gpu_keeps_every_bit_and_a_nan(reduce):
    """CuPy's atomic max and min of double compare with ``fmaxf``/``fminf``: the value stored is rounded to
    float32 and a NaN loses to a number. ``scatter_reduce`` and ``index_reduce`` on the device equal the CPU's
    (PyTorch's) to the bit, on values float32 cannot hold, a NaN kept."""
    rng = np.random.default_rng(4)
    xs = (1 + rng.integers(1, 1000, (3, 7)) * 2.0 ** -40) * np.where(rng.random((3, 7)) < 0.5, -1.0, 1.0)
    ss = (1 + rng.integers(1, 1000, (3, 9)) * 2.0 ** -40) * np.where(rng.random((3, 9)) < 0.5, -1.0, 1.0)
    ss[1, 2] = np.nan
    x, src, index = mg.tensor(xs), mg.tensor(ss), mg.tensor(rng.integers(0, 7, (3, 9)))
    for inc in (True, False):
        got = x.to("gpu").scatter_reduce(1, index.to("gpu"), src.to("gpu"), reduce, include_self=inc)
        want = x.scatter_reduce(1, index, src, reduce, include_self=inc)
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    slots = mg.tensor([2, 0, 2, 4, 0, 2, 6, 6, 1])
    got = x.to("gpu").index_reduce(1, slots.to("gpu"), src.to("gpu"), reduce)
    np.testing.assert_array_equal(got.cpu().numpy(), x.index_reduce(1, slots, src, reduce).numpy())


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("dtype", [mg.float16, mg.float64, mg.int64], ids=str)
def test_scatter_reduce_runs_on_the_gpu_for_each_dtype(reduce, dtype):
    """Every reduction on the device equals the CPU's: integers exactly (a mean rounds down), float16 reduced in
    float32; a 0-d input, zeros and repeated positions in a product (runs of one position of every length)."""
    rng = np.random.default_rng(3)
    x = mg.tensor(rng.integers(-3, 4, (3, 7)).astype(dtype.np))
    src = mg.tensor(rng.integers(-3, 4, (3, 9)).astype(dtype.np))
    index = mg.tensor(rng.integers(0, 7, (3, 9)))
    for inc in (True, False):
        with mg.trace() as tr:
            got = x.to("gpu").scatter_reduce(1, index.to("gpu"), src.to("gpu"), reduce, include_self=inc)
        sel = [e for e in tr.events if e.kind == "kernel.select" and e.op == "scatter_reduce"]
        assert sel and sel[0].backend == "GPU" and not sel[0].fallback_cpu
        want = x.scatter_reduce(1, index, src, reduce, include_self=inc)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=1e-3)
    zero_d = mg.tensor(2, dtype=dtype).to("gpu").scatter_reduce(0, mg.tensor([0, 0]).to("gpu"),
                                                                 mg.tensor([3, -1], dtype=dtype).to("gpu"), reduce)
    assert zero_d.cpu().tolist() == mg.tensor(2, dtype=dtype).scatter_reduce(0, mg.tensor([0, 0]),
                                                                             mg.tensor([3, -1], dtype=dtype),
                                                                             reduce).tolist()


TRAPEZOIDAL = {
    "trapezoid": lambda y, x: mg.trapezoid(y), "trapezoid by dx": lambda y, x: mg.trapezoid(y, dx=0.5, dim=0),
    "trapezoid at x": lambda y, x: mg.trapezoid(y, x), "trapz at a 1-d x": lambda y, x: mg.trapz(y, x[0]),
    "cumulative_trapezoid": lambda y, x: mg.cumulative_trapezoid(y, dx=2.0),
    "cumulative_trapezoid at x": lambda y, x: mg.cumulative_trapezoid(y, x, dim=0),
}


@pytest.mark.parametrize("name", sorted(TRAPEZOIDAL))
def test_the_trapezoidal_rule_runs_on_the_gpu(name):
    """trapezoid and cumulative_trapezoid are PyTorch's composites (slices, sums, cumsum, mul.Scalar): every op
    of them, forward and backward, on the device, no fallback, no copy; the CPU's values and gradients."""
    arrays = [_rand((3, 4), mg.float64), np.cumsum(_rand((3, 4), mg.float64, 0.1, 1.0, seed=2), axis=1)]

    def run(device):
        leaves = [mg.tensor(a, requires_grad=True) for a in arrays]
        with mg.trace() as tr:
            out = TRAPEZOIDAL[name](*[t.to(device) for t in leaves])
            out.sum().backward()
        return out, [t.grad for t in leaves], [e for e in tr.events if e.kind == "kernel.select"]

    want, want_grads, _ = run("cpu")
    got, grads, sel = run("gpu")
    assert sel and not [e.op for e in sel if e.fallback_cpu]
    np.testing.assert_allclose(got.detach().cpu().numpy(), want.detach().numpy(), rtol=1e-12)
    for g, w in zip(grads, want_grads):
        assert (g is None) == (w is None)
        if g is not None:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)


def _interpolate(**kw):
    return lambda x: mg.nn.functional.interpolate(x, **kw)


RESAMPLING = {  # name -> (the ops forward and backward, the call, the input's shape)
    # F.unfold and F.fold: the GEMM convolution's im2col and col2im kernels over a batch, each the other's backward
    "unfold": (("im2col", "col2im"), lambda x: mg.nn.functional.unfold(x, (2, 3), dilation=(2, 1), padding=1,
                                                                      stride=(1, 2)), (2, 3, 5, 6)),
    "unfold-unbatched": (("im2col", "col2im"), lambda x: mg.nn.functional.unfold(x.transpose(1, 2), 2), (2, 4, 3)),
    "fold": (("col2im", "im2col"), lambda x: mg.nn.functional.fold(x, (4, 5), (2, 3), dilation=(2, 1), padding=1,
                                                                  stride=(1, 2)), (2, 12, 12)),
    "fold-unbatched": (("col2im", "im2col"), lambda x: mg.nn.functional.fold(x, (3, 3), 2), (8, 4)),
    # interpolate's upsample ops: the taps copied once per geometry, take and scatter_add
    "nearest-1d": (("upsample_nearest1d", "upsample_nearest1d_backward"), _interpolate(size=7), (2, 3, 4)),
    "nearest-2d": (("upsample_nearest2d", "upsample_nearest2d_backward"), _interpolate(scale_factor=1.7), (2, 3, 4, 5)),
    "nearest-exact-3d": (("upsample_nearest_exact3d", "upsample_nearest_exact3d_backward"),
                         _interpolate(scale_factor=(1.5, 0.7, 2), mode="nearest-exact"), (1, 2, 4, 3, 5)),
    "linear": (("upsample_linear1d", "upsample_linear1d_backward"), _interpolate(scale_factor=1.7, mode="linear"),
               (2, 3, 4)),
    "bilinear": (("upsample_bilinear2d", "upsample_bilinear2d_backward"),
                 _interpolate(size=(3, 7), mode="bilinear", align_corners=True), (2, 3, 4, 5)),
    "trilinear": (("upsample_trilinear3d", "upsample_trilinear3d_backward"),
                  _interpolate(scale_factor=(1.5, 0.7, 2), mode="trilinear"), (1, 2, 4, 3, 5)),
    "bicubic": (("upsample_bicubic2d", "upsample_bicubic2d_backward"), _interpolate(size=(6, 5), mode="bicubic"),
                (2, 3, 4, 3)),
    "bilinear-antialias": (("upsample_bilinear2d_aa", "upsample_bilinear2d_aa_backward"),
                           _interpolate(scale_factor=0.6, mode="bilinear", antialias=True), (1, 2, 5, 7)),
    "bicubic-antialias": (("upsample_bicubic2d_aa", "upsample_bicubic2d_aa_backward"),
                          _interpolate(size=(3, 9), mode="bicubic", antialias=True), (1, 2, 7, 5)),
}


@pytest.mark.parametrize("name", sorted(RESAMPLING))
def test_resampling_runs_on_the_gpu(name):
    """unfold/fold and interpolate forward and backward on the device (float64: sums of overlapping windows and
    scattered gradients compare closely whatever their order)."""
    ops, fn, shape = RESAMPLING[name]
    results = {}
    for device in ("cpu", "gpu"):
        x = mg.tensor(_rand(shape, mg.float64), requires_grad=True)
        with mg.trace() as tr:
            out = fn(x.to(device))
            (out * mg.tensor(_rand(out.shape, mg.float64, seed=7)).to(device)).sum().backward()
        sel = [e for e in tr.events if e.kind == "kernel.select"]
        results[device] = out.detach().cpu().numpy(), x.grad.numpy()
    assert not [e.op for e in sel if e.fallback_cpu], "a CPU fallback"
    assert set(ops) <= {e.op for e in sel if e.backend == "GPU"}
    for got, want in zip(results["gpu"], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=1e-12)


SEARCHES = {
    "searchsorted": lambda s, v: mg.searchsorted(s, v),
    "searchsorted right": lambda s, v: mg.searchsorted(s, v, right=True),
    "searchsorted batched": lambda s, v: mg.searchsorted(s.reshape(3, 3), v[:, :3], side="right"),
    "bucketize": lambda s, v: mg.bucketize(v, s),
    "bucketize int": lambda s, v: mg.bucketize((v * 4).long(), (s * 4).long(), right=True),
}


@pytest.mark.parametrize("name", sorted(SEARCHES))
def test_searchsorted_and_bucketize_run_on_the_gpu(name):
    """A histogram's bins, a sampler's cumulative weights: CuPy's binary search on the device (it fell back)."""
    seq = mg.tensor(np.sort(_rand((9,), mg.float32, -2, 2)))
    values = mg.tensor(_rand((3, 4), mg.float32, -2.5, 2.5, seed=1))
    values[0, 0] = seq[4]  # a value equal to a boundary: left and right differ
    with mg.trace() as tr:
        got = SEARCHES[name](seq.to("gpu"), values.to("gpu"))
    sel = [e for e in tr.events if e.kind == "kernel.select"]
    assert not [e.op for e in sel if e.fallback_cpu] and any(e.op == "searchsorted" for e in sel)
    want = SEARCHES[name](seq, values)
    assert got.dtype == want.dtype == mg.int64 and got.cpu().tolist() == want.tolist()


@pytest.mark.parametrize("op", ["gather", "scatter_add", "scatter"])
def test_an_index_out_of_range_is_refused_at_the_next_sync_in_the_cpus_words(op):
    x, idx = mg.zeros(2, 3).to("gpu"), mg.tensor([[0, 3]]).to("gpu")
    out = x.gather(1, idx) if op == "gather" else getattr(x, op)(1, idx, mg.ones(1, 2).to("gpu"))
    with pytest.raises(RuntimeError, match=rf"^{op}\(\): index 3 is out of bounds for dimension 1 with size 3 "
                                           r"\(checked on the GPU"):
        out.sum().item()


def test_integer_and_bool_arithmetic_runs_on_the_gpu():
    """Integer and bool ops (masks combined with ``~``, ``&``, ``|``, ``^``) on the device, as the CPU computes them."""
    n = mg.tensor(_ints((4, 5), -5, 5))
    cases = {"add": lambda t: t + 1, "sub": lambda t: t - t.flip(0), "mul": lambda t: t * 3, "neg": lambda t: -t,
             "abs": lambda t: t.abs(), "sum": lambda t: (t > 0).sum(), "maximum": lambda t: mg.maximum(t, t.flip(1)),
             "argmax": lambda t: t.argmax(1), "cumsum": lambda t: t.cumsum(0), "remainder": lambda t: t % 3,
             "floor_divide": lambda t: t // -2, "fmod": lambda t: t.fmod(3),
             "bitwise_not": lambda t: ~(t > 0), "bitwise_and": lambda t: (t > 0) & (t < 3),
             "bitwise_or": lambda t: t | 6, "bitwise_xor": lambda t: (t > 0) ^ (t.flip(0) > 0),
             "bitwise_left_shift": lambda t: t.abs() << 2, "bitwise_right_shift": lambda t: t >> 1}
    for op, fn in cases.items():
        want = fn(n)
        with mg.trace() as tr:
            got = fn(n.to("gpu"))
        sel = [e for e in tr.events if e.kind == "kernel.select"]
        assert not [e.op for e in sel if e.fallback_cpu] and any(e.op == op for e in sel), op
        assert got.dtype == want.dtype and got.cpu().tolist() == want.tolist(), op


def test_a_training_loops_accuracy_and_index_arithmetic_copy_nothing():
    """``(logits.argmax(1) == y).sum()`` and ``ix + 1`` stay on the device until the program's own ``.item()``."""
    fake = fake_cupy.installed()
    if fake is None:
        pytest.skip("copies and syncs are counted by the stand-in CuPy")
    logits, y = mg.randn(8, 4).to("gpu"), mg.randint(0, 4, (8,)).to("gpu")
    ix = mg.randint(0, 10, (8,)).to("gpu")
    for _ in range(2):
        fake.reset_counts()
        correct = (logits.argmax(1) == y).sum()
        nxt = ix + 1
    c = fake.counts()
    assert (c["h2d"], c["d2h"], c["syncs"]) == (0, 0, 0), fake.COUNTS.log
    assert correct.cpu().item() == int((logits.cpu().argmax(1) == y.cpu()).sum().item()) and nxt.device == "gpu"


def _load_overlaps() -> Any:
    spec = importlib.util.spec_from_file_location("_overlaps", Path(__file__).resolve().parents[1] / "_overlaps.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_overlaps = _load_overlaps()


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(_overlaps.OVERLAPS))
def test_an_operand_partly_in_the_written_memory_is_refused_on_the_gpu(name: str) -> None:
    """The check reads addresses, shapes and strides, so a GPU's arrays are checked as the CPU's (before, the
    out= check skipped every array that is not NumPy's: on a device ``lib.add(a[:-1], 1, out=a[1:])`` was
    computed; the stand-in's arrays are NumPy's, so it took the host's branch and could not show it)."""
    if not _overlaps.OVERLAPS[name][1]:
        assert _overlaps.overlap(mg, name, "gpu").tolist() == _overlaps.overlap(mg, name).tolist()
        return
    a = mg.arange(6.0).to("gpu")
    with pytest.raises(RuntimeError, match="single memory location"):
        _overlaps.OVERLAPS[name][0](mg, a)
    assert a.tolist() == list(range(6))  # refused before anything changed


def _ties_and_nan(dtype):
    x = np.random.default_rng(5).integers(-3, 3, size=(5, 9)).astype(np.float64)  # small integers: ties
    if np.dtype(dtype).kind == "f":
        x[1, 2] = x[3, 0] = x[3, 6] = np.nan
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int64, np.int32, np.bool_])
@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_cummax_and_cummin_scan_on_the_gpu(op, dtype):
    """A parallel scan on the device (it fell back): the CPU's indices - the latest among ties, the latest NaN
    once one is met - and values, every dim."""
    x = mg.tensor(_ties_and_nan(dtype))
    for dim in (0, 1, -1):
        with mg.trace() as tr:
            got = getattr(mg, op)(x.to("gpu"), dim)
        sel = [e for e in tr.events if e.kind == "kernel.select"]
        assert not [e.op for e in sel if e.fallback_cpu] and any(e.op == f"arg{op}" for e in sel)
        want = getattr(mg, op)(x, dim)
        assert got.indices.cpu().tolist() == want.indices.tolist(), dim
        np.testing.assert_array_equal(got.values.cpu().numpy(), want.values.numpy())
    assert getattr(mg, op)(x[0, 0].to("gpu"), 0).indices.item() == 0  # a 0-d tensor


@pytest.mark.parametrize("dtype", ALL_FLOATS)
def test_logcumsumexp_scans_on_the_gpu(dtype):
    """The scan of PyTorch's log-add-exp on the device: the CPU's values, with infinite and NaN elements (CuPy's
    ``logaddexp`` gives NaN for two equal infinities), and its gradient."""
    a = np.random.default_rng(2).normal(size=(4, 37)) * 20
    a[0, :5] = -np.inf
    a[1, 3] = a[1, 9] = np.inf
    a[2, 6] = np.nan
    rtol, atol = {mg.float16: (2e-3, 2e-3), mg.float32: (1e-6, 1e-6), mg.float64: (1e-13, 1e-13)}[dtype]
    for dim in (0, 1):
        x = mg.tensor(a, dtype=dtype)
        with mg.trace() as tr:
            got = mg.logcumsumexp(x.to("gpu"), dim)
        sel = [e for e in tr.events if e.kind == "kernel.select"]
        assert not [e.op for e in sel if e.fallback_cpu] and any(e.op == "logcumsumexp" for e in sel)
        assert got.dtype == dtype
        np.testing.assert_allclose(got.cpu().numpy().astype(np.float64), mg.logcumsumexp(x, dim).numpy().astype(np.float64),
                                   rtol=rtol, atol=atol)
    finite = mg.tensor(np.random.default_rng(3).normal(size=(3, 6)), dtype=dtype)
    out, grads, sel = _leaf_grads(lambda t: mg.logcumsumexp(t, 1), [finite.numpy()], dtype, "gpu")
    cpu_out, cpu_grads, _ = _leaf_grads(lambda t: mg.logcumsumexp(t, 1), [finite.numpy()], dtype, "cpu")
    assert not [e.op for e in sel if e.fallback_cpu]
    np.testing.assert_allclose(grads[0].numpy().astype(np.float64), cpu_grads[0].numpy().astype(np.float64), rtol=rtol * 10, atol=atol * 10)


@pytest.mark.parametrize("args", [(10,), (7, -1.0, 1.0), (5, 0.0, 0.0), (4, 2.0, 2.0), (6, -0.5, 3.0)])
def test_histc_counts_on_the_gpu(args):
    """PyTorch's CUDA histogram: each element's bin computed and counted atomically; ``max`` in the last bin,
    NaN and elements out of range left out. The CPU's counts (NumPy's bins agree away from rounding at an edge)."""
    v = np.random.default_rng(4).normal(size=1000).astype(np.float32)
    v[:3] = [1.0, -1.0, 0.5]
    if len(args) == 3 and args[1] != args[2]:
        v[3] = np.nan  # left out of a given range
    with mg.trace() as tr:
        got = mg.histc(mg.tensor(v).to("gpu"), *args)
    sel = [e for e in tr.events if e.kind == "kernel.select"]
    assert not [e.op for e in sel if e.fallback_cpu] and any(e.op == "histc" for e in sel)
    want = mg.histc(mg.tensor(v), *args)
    assert got.dtype == mg.float32 and got.cpu().tolist() == want.tolist()


@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_histc_refuses_a_range_that_is_not_finite_as_torch(device):
    with pytest.raises(RuntimeError, match=r"^torch.histc: range of \[nan, nan\] is not finite$"):
        mg.histc(mg.tensor([float("nan"), 1.0]).to(device), 4)
    with pytest.raises(RuntimeError, match=r"^torch.histc: range of \[0, inf\] is not finite$"):
        mg.histc(mg.tensor([0.5, 1.0]).to(device), 4, 0.0, float("inf"))


@pytest.mark.parametrize("form", ["counts", "minlength", "weights", "int32", "empty"])
def test_bincount_counts_on_the_gpu(form):
    i = np.random.default_rng(6).integers(0, 9, size=50)
    w = np.random.default_rng(7).normal(size=50)
    kwargs = {"minlength": {"minlength": 20}, "weights": {"weights": w}}.get(form, {})
    data = {"int32": i.astype(np.int32), "empty": i[:0]}.get(form, i)
    with mg.trace() as tr:
        got = mg.bincount(mg.tensor(data).to("gpu"), **{k: mg.tensor(v).to("gpu") if k == "weights" else v
                                                         for k, v in kwargs.items()})
    sel = [e for e in tr.events if e.kind == "kernel.select"]
    assert not [e.op for e in sel if e.fallback_cpu] and any(e.op == "bincount" for e in sel)
    want = mg.bincount(mg.tensor(data), **{k: mg.tensor(v) if k == "weights" else v for k, v in kwargs.items()})
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-12)


ORDERED = {
    "sort": lambda t: t.sort(1, descending=True).values, "sort dim 0": lambda t: t.sort(0).values,
    "topk": lambda t: t.topk(2).values, "kthvalue": lambda t: t.kthvalue(2, 0).values,
    "median dim": lambda t: t.median(1, keepdim=True).values, "median": lambda t: t.median().reshape(1),
    "mode": lambda t: t.mode(0).values,
}


def test_sort_of_integers_reads_its_values_on_the_gpu():
    a = mg.tensor(np.random.default_rng(13).integers(-5, 5, (4, 6)))
    with mg.trace() as tr:
        got = a.to("gpu").sort(1)
    assert not [e.op for e in tr.events if e.kind == "kernel.select" and e.fallback_cpu]
    want = a.sort(1)
    assert got.values.cpu().tolist() == want.values.tolist() and got.indices.cpu().tolist() == want.indices.tolist()


@pytest.mark.parametrize("dtype", [mg.float32, mg.int64, mg.bool_], ids=str)
def test_mode_finds_its_positions_on_the_gpu(dtype):
    """``mode``'s positions by a stable sort and a scan of the runs on the device: the CPU's values, and a
    position holding the value - the CPU's own where a slice has at most 16 elements (its insertion sort is
    stable); keepdim and a 0-d input. (With NaN in a slice the CPU's ``std::sort`` can split a run of equal values
    - its comparisons with NaN are false - which a sort on the device does not reproduce.)"""
    rng = np.random.default_rng(15)
    a = rng.integers(0, 3, (4, 40, 5)).astype(dtype.np)
    for dim, keepdim in ((1, False), (0, True), (-1, False)):
        with mg.trace() as tr:
            got = mg.tensor(a).to("gpu").mode(dim, keepdim)
        assert not [e.op for e in tr.events if e.kind == "kernel.select" and e.fallback_cpu]
        want = mg.tensor(a).mode(dim, keepdim)
        np.testing.assert_array_equal(got.values.cpu().numpy(), want.values.numpy())
        at = np.take_along_axis(a, got.indices.cpu().numpy() if keepdim else np.expand_dims(
            got.indices.cpu().numpy(), dim), axis=dim)
        np.testing.assert_array_equal(at.squeeze(dim) if not keepdim else at, want.values.numpy())
        if a.shape[dim] <= 16:
            assert got.indices.cpu().tolist() == want.indices.tolist()
    zero_d = mg.tensor(a[0, 0, 0]).to("gpu").mode()
    assert zero_d.values.cpu().tolist() == a[0, 0, 0].item() and zero_d.indices.cpu().tolist() == 0


@pytest.mark.parametrize("name", sorted(ORDERED))
def test_sort_topk_kthvalue_median_read_their_values_on_the_gpu(name):
    """The values at argsort's positions, one gather on the device under PyTorch's node name (``SortBackward0``,
    ``TopkBackward0``, ``KthvalueBackward0``, ``MedianBackward1``/``0``); the CPU's values and gradients."""
    a = np.random.default_rng(12).permutation(20).reshape(4, 5) / 7.0  # distinct: one gradient path
    out, grads, sel = _leaf_grads(ORDERED[name], [a], mg.float64, "gpu")
    want, want_grads, _ = _leaf_grads(ORDERED[name], [a], mg.float64, "cpu")
    assert not [e.op for e in sel if e.fallback_cpu], name
    np.testing.assert_array_equal(out.detach().cpu().numpy(), want.detach().numpy())
    if grads and grads[0] is not None:
        np.testing.assert_array_equal(grads[0].numpy(), want_grads[0].numpy())
    assert type(out.grad_fn).__name__ == type(want.grad_fn).__name__


def test_sort_on_the_gpu_keeps_a_dense_inputs_layout():
    """PyTorch's ``sort`` allocates its values and indices with the input's strides (dense ones in their order
    for a view that is not dense): so do the GPU kernels, as the CPU's (the GPU fuzzer found a diagonal's)."""
    a = np.random.default_rng(14).normal(size=(3, 4, 2))
    for make in (lambda t: t.transpose(0, 2), lambda t: t.diagonal(0, 0, 1), lambda t: t.permute(1, 0, 2)):
        for dim in (0, -1):
            got, want = make(mg.tensor(a).to("gpu")).sort(dim), make(mg.tensor(a)).sort(dim)
            assert got.values.stride() == want.values.stride() and got.indices.stride() == want.indices.stride()
            np.testing.assert_array_equal(got.values.cpu().numpy(), want.values.numpy())
            assert make(mg.tensor(a).to("gpu")).argsort(dim).stride() == make(mg.tensor(a)).argsort(dim).stride()


def test_a_gather_is_row_major_whatever_its_index_layout():
    """CuPy's advanced indexing allocates its result row-major; NumPy's may follow the index's layout, so the
    stand-in's gather of a transposed index came out column-major (the GPU fuzzer: ``x.gather(-1, x.argsort(-1))``
    of a permuted ``x``, whose argsort now keeps its layout). PyTorch's gather is row-major too."""
    x = mg.tensor(np.random.default_rng(15).normal(size=(3, 4))).t()
    got = x.to("gpu").gather(-1, x.to("gpu").argsort(-1))
    want = x.gather(-1, x.argsort(-1))
    assert got.stride() == want.stride() == (3, 1)
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


LINALG = {
    "inv": lambda a, b: mg.linalg.inv(a), "inv batched": lambda a, b: mg.linalg.inv(a.expand(2, 3, 3) * mg.tensor(
        [1.0, 2.0], dtype=a.dtype).to(a.device).reshape(2, 1, 1)),
    "solve matrix": lambda a, b: mg.linalg.solve(a, b), "solve vector": lambda a, b: mg.linalg.solve(a, b[:, 0]),
    "solve broadcast": lambda a, b: mg.linalg.solve(a, b.expand(2, 3, 2)), "det": lambda a, b: mg.linalg.det(a),
    "det batched": lambda a, b: mg.linalg.det(mg.stack([a, a * 2])),
}


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", sorted(LINALG))
def test_inv_solve_det_run_on_the_gpu(name, dtype):
    """cuSOLVER through ``cupy.linalg`` (they fell back to the CPU): the CPU's values and gradients."""
    a = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, -0.2], [0.0, 0.4, 3.0]])
    b = np.random.default_rng(16).normal(size=(3, 2))
    out, grads, sel = _leaf_grads(LINALG[name], [a, b], dtype, "gpu")
    want, want_grads, _ = _leaf_grads(LINALG[name], [a, b], dtype, "cpu")
    assert not [e.op for e in sel if e.fallback_cpu], name
    rtol = 1e-5 if dtype is mg.float32 else 1e-12
    np.testing.assert_allclose(out.detach().cpu().numpy(), want.detach().numpy(), rtol=rtol, atol=rtol)
    for g, w in zip(grads, want_grads):
        if w is not None:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol * 10, atol=rtol * 10)


@pytest.mark.parametrize("op", ["inv", "solve"])
def test_a_singular_matrix_is_refused_on_the_gpu_after_one_read(op):
    """PyTorch CUDA reads the LU's status back and raises (a sync); so does minigrad: one flag read, a ``device.copy``
    and a ``device.sync``. A NaN matrix gives NaN without an error, as PyTorch's; ``det`` of a singular one is 0."""
    singular = mg.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=mg.float64).to("gpu")
    rhs = mg.ones(2, dtype=mg.float64).to("gpu")
    call = (lambda a: mg.linalg.inv(a)) if op == "inv" else (lambda a: mg.linalg.solve(a, rhs))
    with mg.trace(values=False) as tr:
        with pytest.raises(mg.linalg.LinAlgError, match=r"^(linalg.inv: The diagonal element 2 is zero|torch.linalg.solve: "
                                                        r"The solver failed because the input matrix is singular)"):
            call(singular)
    assert [e.kind for e in tr.events if e.kind.startswith("device.")][:2] == ["device.copy", "device.sync"]
    assert np.isnan(call(singular * float("nan")).cpu().numpy()).all()
    assert mg.linalg.det(singular).item() == 0.0


@pytest.mark.parametrize("fn", ["det", "slogdet"])
def test_det_and_slogdet_backward_of_a_singular_matrix_on_the_gpu(fn):
    """Their backward's LU solve (``lu_transposed_solve``) on the device: the CPU's values, inf and NaN, no error."""
    def grad(device):
        x = mg.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], dtype=mg.float64).to(device).requires_grad_()
        y = mg.linalg.det(x) if fn == "det" else mg.linalg.slogdet(x).logabsdet
        with mg.trace(values=False) as tr:
            (g,) = mg.autograd.grad(y, x)
        sel = [e for e in tr.events if e.kind == "kernel.select" and e.op == "lu_transposed_solve"]
        return g.cpu().numpy(), sel

    got, sel = grad("gpu")
    want, _ = grad("cpu")
    assert sel and sel[0].backend == "GPU" and not sel[0].fallback_cpu
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", ["all NaN", "one NaN, batched"])
def test_a_matrix_holding_nan_gives_the_cpus_nan_on_the_gpu(name):
    """cuSOLVER's LU reads a NaN of the column it eliminates as 0 (pytorch/pytorch#173638; the stand-in's
    ``_getrf``): ``inv``/``solve`` gave finite numbers and inf, ``det``/``slogdet`` a finite determinant or 0.
    The CPU's, PyTorch's: NaN everywhere, ``slogdet``'s sign 0."""
    nan = float("nan")
    m = [[nan, nan], [nan, nan]] if name == "all NaN" else [[[nan, 2.0], [3.0, 4.0]], [[3.0, 1.0], [1.0, 2.0]]]

    def values(device):
        a = mg.tensor(m, dtype=mg.float64).to(device)
        b = mg.ones(a.shape[:-1], dtype=mg.float64).to(device)
        sign, logabsdet = mg.linalg.slogdet(a)
        return [t.cpu().numpy() for t in (mg.linalg.inv(a), mg.linalg.solve(a, b), mg.linalg.det(a), sign, logabsdet)]

    for got, want in zip(values("gpu"), values("cpu")):
        np.testing.assert_allclose(got, want, rtol=1e-12)


def _spd(a):
    """A symmetric positive-definite matrix made of ``a`` (differentiable through it)."""
    return a @ a.mT + mg.eye(a.shape[-1], dtype=a.dtype).to(a.device)


#: the factorizations (ops/factorization.py): name -> (the op that must run on the GPU, a call of A (3, 3) and
#: B (3, 2)), each giving one differentiable tensor (for svd and eigh a function of the factors that does not
#: depend on the signs the solver chose)
FACTORIZATIONS = {
    "cholesky": ("linalg_cholesky_ex", lambda a, b: mg.linalg.cholesky(_spd(a))),
    "cholesky upper batched": ("linalg_cholesky_ex", lambda a, b: mg.linalg.cholesky(
        mg.stack([_spd(a), _spd(a * 2)]), upper=True)),
    "torch.cholesky": ("cholesky", lambda a, b: mg.cholesky(_spd(a))),
    "cholesky_inverse": ("cholesky_inverse", lambda a, b: mg.cholesky_inverse(mg.linalg.cholesky(_spd(a)))),
    "cholesky_inverse upper": ("cholesky_inverse", lambda a, b: mg.cholesky_inverse(a.triu() + 3, upper=True)),
    "slogdet": ("linalg_slogdet", lambda a, b: mg.linalg.slogdet(mg.stack([a, -a])).logabsdet),
    "logdet": ("linalg_slogdet", lambda a, b: mg.logdet(_spd(a))),
    "qr": ("linalg_qr", lambda a, b: mg.cat([t.reshape(-1) for t in mg.linalg.qr(mg.cat([a, b], 1))])),
    "qr tall complete R": ("linalg_qr", lambda a, b: mg.linalg.qr(b.mT, mode="complete").R),
    "eigh": ("linalg_eigh", lambda a, b: (lambda w, v: v @ w.exp().diag_embed() @ v.mT)(*mg.linalg.eigh(a + a.mT))),
    "eigvalsh batched": ("linalg_eigh", lambda a, b: mg.linalg.eigvalsh(mg.stack([a + a.mT, a @ a.mT]), UPLO="U")),
    "svd": ("linalg_svd", lambda a, b: (lambda u, s, vh: u[:, :2] @ s.diag_embed() @ vh)(*mg.linalg.svd(b))),
    "svd reduced wide": ("linalg_svd", lambda a, b: (lambda u, s, vh: mg.cat([s, (u @ vh).reshape(-1)]))(
        *mg.linalg.svd(mg.cat([a, b], 1), full_matrices=False))),
    "svdvals": ("linalg_svd", lambda a, b: mg.linalg.svdvals(a)),
    "matrix_norm nuc": ("linalg_svd", lambda a, b: mg.linalg.matrix_norm(b, "nuc")),
    "pinv": ("linalg_pinv", lambda a, b: mg.linalg.pinv(mg.stack([b, b * 2]))),
    "pinv hermitian": ("linalg_pinv", lambda a, b: mg.linalg.pinv(a + a.mT, hermitian=True)),
    "lstsq": ("linalg_lstsq", lambda a, b: mg.linalg.lstsq(mg.cat([a, a * a]), mg.cat([b, b])).solution),
    "lstsq residuals": ("linalg_lstsq", lambda a, b: mg.linalg.lstsq(mg.cat([a, a * a]), mg.cat([b, b]),
                                                                     driver="gels").residuals),
    "matrix_exp": ("linalg_matrix_exp", lambda a, b: mg.linalg.matrix_exp(mg.stack([a, a * 3]))),
    "solve_triangular": ("linalg_solve_triangular", lambda a, b: mg.linalg.solve_triangular(a, b, upper=True)),
    "solve_triangular right": ("linalg_solve_triangular", lambda a, b: mg.linalg.solve_triangular(
        a, b.mT, upper=False, left=False, unitriangular=True)),
}


def test_the_factorizations_backward_reads_nothing_on_the_gpu():
    """cholesky's and qr's formulas solve triangles (``linalg_solve_triangular``), which read nothing back: a
    backward on the device copies and waits for nothing (``solve``'s singular check would)."""
    a = mg.tensor(np.array([[2.0, 0.5, 0.1], [0.3, 1.5, -0.2], [0.0, 0.4, 3.0]])).to("gpu").requires_grad_()
    for step in range(2):  # (the first uploads the constants tril's kernel keeps)
        loss = mg.linalg.cholesky(_spd(a)).sum() + mg.linalg.qr(a).R.sum()
        with mg.trace(values=False) as tr:
            loss.backward()
    assert not [e for e in tr.events if e.kind == "device.sync" or e.kind == "device.copy" and e.direction == "d2h"]


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("name", sorted(FACTORIZATIONS))
def test_factorizations_run_on_the_gpu(name, dtype):
    """cuSOLVER through ``cupy.linalg`` (matrix_exp: cuBLAS products): the CPU's values and gradients."""
    a = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, -0.2], [0.0, 0.4, 3.0]])
    b = np.random.default_rng(16).normal(size=(3, 2))
    op, fn = FACTORIZATIONS[name]
    out, grads, sel = _leaf_grads(fn, [a, b], dtype, "gpu")
    want, want_grads, _ = _leaf_grads(fn, [a, b], dtype, "cpu")
    assert [e.backend for e in sel if e.op == op] and not [e.op for e in sel if e.fallback_cpu], name
    rtol = 1e-4 if dtype is mg.float32 else 1e-10
    np.testing.assert_allclose(out.detach().cpu().numpy(), want.detach().numpy(), rtol=rtol, atol=rtol)
    for g, w in zip(grads, want_grads):
        if w is not None:
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=rtol * 10, atol=rtol * 10)


def test_cholesky_ex_reads_nothing_on_the_gpu_and_cholesky_raises():
    """``cholesky_ex``'s ``info`` is computed on the device, no read; ``linalg.cholesky`` reads it to raise (PyTorch's
    sync) in PyTorch's words, naming the batch element and the minor."""
    a = mg.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 1.0]]], dtype=mg.float64).to("gpu")
    with mg.trace(values=False) as tr:
        L, info = mg.linalg.cholesky_ex(a)
    assert not [e.kind for e in tr.events if e.kind in ("device.copy", "device.sync")]
    assert info.cpu().tolist() == [0, 2]
    with mg.trace(values=False) as tr:
        with pytest.raises(RuntimeError, match=r"^linalg.cholesky: \(Batch element 1\): The factorization could not "
                                               r"be completed because the input is not positive-definite \(the leading "
                                               r"minor of order 2"):
            mg.linalg.cholesky(a)
    assert [e.reason for e in tr.events if e.kind == "device.sync"] == ["cholesky"]


def test_matrix_exp_reads_its_number_of_squarings_once():
    """The squarings of a batch are as many as its largest norm needs: that number is read (one ``device.copy``
    and a ``device.sync`` named ``matrix_exp``, as PyTorch's CUDA ``mexp`` reads its norms); nothing else is."""
    a = mg.tensor(np.random.default_rng(17).normal(size=(2, 3, 3)) * 4).to("gpu")
    with mg.trace(values=False) as tr:
        mg.linalg.matrix_exp(a)
    device = [e for e in tr.events if e.kind in ("device.copy", "device.sync")]
    assert [(e.kind, getattr(e, "direction", None), getattr(e, "reason", None)) for e in device] == [
        ("device.copy", "d2h", None), ("device.sync", None, "matrix_exp")], device


@pytest.mark.parametrize("pad", [(1, 2), (0, 0), (-1, 0), (1, -1)], ids=str)
def test_pad_lays_out_its_result_as_the_cpu(pad):
    """A pad that only crops copies the cropped view in its own layout (PyTorch's clone); one that adds is
    row-major: the GPU's strides and values are the CPU's (which are PyTorch's)."""
    x = mg.tensor(np.arange(15.0).reshape(5, 3)).t()
    want = mg.nn.functional.pad(x, pad, value=-1.0)
    got = mg.nn.functional.pad(x.to("gpu"), pad, value=-1.0)
    assert got.stride() == want.stride()
    np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


@pytest.mark.parametrize("form", ["rows", "columns, repeated", "a GPU index", "0-d"])
def test_index_select_is_the_cpus(form):
    """``index_select`` as one op on the device (``IndexSelectBackward0``): values, layout and gradient the CPU's."""
    x = np.arange(12.0).reshape(3, 4) if form != "0-d" else np.array(5.0)
    dim, idx = {"rows": (0, [2, 0]), "columns, repeated": (1, [3, 0, 3]), "a GPU index": (1, [1, 1]),
                "0-d": (0, [0])}[form]
    results = []
    for device in ("cpu", "gpu"):
        t = mg.tensor(x).to(device).requires_grad_()
        i = mg.tensor(idx).to(device if form == "a GPU index" else "cpu")
        y = t.index_select(dim, i)
        (y * y).sum().backward()
        results.append((y.detach().cpu().numpy(), y.stride(), type(y.grad_fn).__name__, t.grad.cpu().numpy()))
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("case", range(9))
def test_a_gather_is_laid_out_as_pytorchs(case):
    """``x[index]`` with index arrays: CuPy's gather is row-major, PyTorch's follows the input's layout
    (TensorIterator; ``x.permute(2, 1, 0)[[1, 0, 1]]`` is (9, 1, 3), the device fuzzer's ``index-repeated``),
    so the GPU kernel copies it into PyTorch's strides (``strided.gather_strides``): values, strides and the
    gradient PyTorch's; an array of its own (no view of ``x``)."""
    torch = pytest.importorskip("torch")
    perm, index = [
        ((2, 1, 0), ([1, 0, 1],)),  # (9, 1, 3)
        ((1, 2, 0), (slice(None, None, 2), [0, 1, 1])),
        ((2, 1, 0), (slice(None), [1, 0, 1])),
        ((1, 2, 0), ([2, 0],)),
        ((2, 0, 1), (slice(None), slice(None), [[1, 0], [0, 1]])),
        ((0, 2, 1), ([[1, 0], [2, 2]],)),
        ((2, 1, 0), (0, Ellipsis, [-1, 0, -1])),  # row-major in PyTorch too: no copy
        ((2, 0, 1), ([1, 0], slice(None), [2, 0])),
        ((0, 1, 2), ([1, 0, 1],)),
    ][case]
    a = _rand((3, 3, 2), mg.float64)
    w = _rand((64,), mg.float64, seed=5)

    def run(lib, x):
        idx = tuple(lib.tensor(i) if isinstance(i, list) else i for i in index)
        y = x.permute(*perm)[idx]
        (y * lib.tensor(w[:y.numel()]).reshape(y.shape).to(y.device)).sum().backward()
        return y

    tx = torch.tensor(a, requires_grad=True)
    want = run(torch, tx)
    gx = mg.tensor(a, requires_grad=True)
    got = run(mg, gx.to("gpu"))
    assert got.device == "gpu" and tuple(got.shape) == tuple(want.shape)
    assert all(n <= 1 or s == t for n, s, t in zip(want.shape, got.stride(), want.stride())), (got.stride(), want.stride())
    assert got._data.base is None
    np.testing.assert_array_equal(got.detach().cpu().numpy(), want.detach().numpy())
    np.testing.assert_array_equal(gx.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("mask_shape", [(3, 4), (4,), ()], ids=str)
def test_masked_select_is_the_cpus(mask_shape):
    """``masked_select`` as one op on the device (``MaskedSelectBackward0``), a broadcast mask too: values and
    gradient the CPU's."""
    x = np.arange(12.0).reshape(3, 4) if mask_shape else np.array(5.0)
    m = (np.arange(int(np.prod(mask_shape))).reshape(mask_shape) % 3 != 1)
    results = []
    for device in ("cpu", "gpu"):
        t = mg.tensor(x).to(device).requires_grad_()
        y = t.masked_select(mg.tensor(m).to(device))
        (y * y).sum().backward()
        results.append((y.detach().cpu().numpy(), type(y.grad_fn).__name__, t.grad.cpu().numpy()))
    for got, want in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, want)


#: matmul's decomposition and reshape's copy: the nodes of PyTorch's graph, on the GPU as on the CPU
GRAPH_PROGRAMS = {
    "vector @ matrix": lambda x, b: x[0] @ b[0],
    "batch @ matrix (folded)": lambda x, b: x @ b[0],
    "matrix @ batch (folded, transposed)": lambda x, b: x[0] @ b,
    "batch @ batch (bmm)": lambda x, b: x @ b,
    "transposed heads (the reshape copies)": lambda x, b: x.transpose(0, 1) @ b.transpose(0, 1).transpose(-2, -1),
    "reshape of a transpose": lambda x, b: x.transpose(1, 2).reshape(-1),
    "squeeze_ and t_ of a product": lambda x, b: (x[0] @ b[0]).unsqueeze_(0).squeeze_(0).t_(),
}


def _graph_program(device, name):
    x = mg.tensor(_rand((3, 4, 4), mg.float64, seed=5), dtype=mg.float64, device=device, requires_grad=True)
    b = mg.tensor(_rand((3, 4, 4), mg.float64, seed=6), dtype=mg.float64, device=device, requires_grad=True)
    out = GRAPH_PROGRAMS[name](x, b)
    (out * out).sum().backward()
    return out, x.grad, b.grad


@pytest.mark.parametrize("name", sorted(GRAPH_PROGRAMS))
def test_matmul_and_reshape_decompose_on_gpu_as_on_cpu(name):
    og, xg, bg = _graph_program("gpu", name)
    oc, xc, bc = _graph_program("cpu", name)
    assert og.grad_fn.name() == oc.grad_fn.name()
    np.testing.assert_allclose(og.detach().numpy(), oc.detach().numpy(), rtol=1e-12)
    for g, c in ((xg, xc), (bg, bc)):
        assert (g is None) == (c is None)
        if c is not None:
            np.testing.assert_allclose(g.numpy(), c.numpy(), rtol=1e-12)


# -- attention: PyTorch's fused node on the GPU (ops/attention.py) ----------------------------------------------

ATTENTION = {
    "no mask": lambda F, q, k, v, m: F.scaled_dot_product_attention(q, k, v),
    "causal": lambda F, q, k, v, m: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    "bool mask, a row with nothing to attend": lambda F, q, k, v, m: F.scaled_dot_product_attention(
        q, k, v, attn_mask=m > 0.5),
    "float mask, a scale": lambda F, q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m, scale=0.3),
}


@pytest.mark.parametrize("name", sorted(ATTENTION))
def test_fused_attention_on_the_gpu_is_the_cpus(name):
    """One fused node on the GPU (PyTorch CUDA's memory-efficient attention for float32), its values and
    gradients the CPU's; the weights its backward recomputes run there too (no fallback)."""
    F = mg.nn.functional
    arrays = [_rand((2, 3, 4, 5), mg.float32, seed=s) for s in range(3)]
    mask = _rand((4, 4), mg.float32, 0, 1, seed=4)
    mask[1] = 0.0  # the second query may attend no key: its output and gradients are zeros, not NaN

    def run(device):
        leaves = [mg.tensor(a, requires_grad=True) for a in arrays]
        with mg.trace() as tr:
            out = ATTENTION[name](F, *[t.to(device) for t in leaves], mg.tensor(mask).to(device))
            (out * out).sum().backward()
        return out, [t.grad for t in leaves], [e for e in tr.events if e.kind == "kernel.select"]

    cpu, cpu_grads, _ = run("cpu")
    gpu, gpu_grads, sel = run("gpu")
    assert type(gpu.grad_fn).__name__ == "ScaledDotProductEfficientAttentionBackward0"
    assert type(cpu.grad_fn).__name__ == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert not [e.op for e in sel if e.fallback_cpu], "a CPU fallback"
    assert {"scaled_dot_product_attention", "attention_weights"} <= {e.op for e in sel if e.backend == "GPU"}
    np.testing.assert_allclose(gpu.detach().cpu().numpy(), cpu.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert np.isfinite(gpu.detach().cpu().numpy()).all()
    for g, c in zip(gpu_grads, cpu_grads):
        np.testing.assert_allclose(g.numpy(), c.numpy(), rtol=1e-4, atol=1e-5)


def test_fused_attention_takes_dropout_on_the_gpu():
    """With dropout PyTorch CUDA stays fused (its CPU runs the math path): the weights are dropped by a mask drawn
    on the device, the same mask in the backward; checked against the weights computed by hand with that mask."""
    from minigrad.devices import to_numpy
    from minigrad.random import device_draws

    F = mg.nn.functional
    arrays = [_rand((1, 2, 3, 4), mg.float32, seed=s) for s in range(3)]
    q, k, v = (mg.tensor(a, requires_grad=True) for a in arrays)
    mg.manual_seed(7)
    out = F.scaled_dot_product_attention(q.to("gpu"), k.to("gpu"), v.to("gpu"), dropout_p=0.4, is_causal=True)
    assert type(out.grad_fn).__name__ == "ScaledDotProductEfficientAttentionBackward0"
    out.sum().backward()
    mg.manual_seed(7)  # the same draws again: the mask the fused op was given
    kept = mg.tensor(to_numpy(device_draws("bernoulli", (1, 2, 3, 3), np.float32, "gpu", 0.6, 1 / 0.6)))
    values = np.unique(kept.numpy())
    assert len(values) == 2 and np.allclose(values, [0.0, 1 / 0.6])
    q2, k2, v2 = (mg.tensor(a, requires_grad=True) for a in arrays)
    scores = (q2 @ k2.transpose(-2, -1)) / 2.0 + mg.tensor(np.triu(np.full((3, 3), -np.inf, np.float32), 1))
    ref = (scores.softmax(-1) * kept) @ v2
    ref.sum().backward()
    np.testing.assert_allclose(out.detach().cpu().numpy(), ref.detach().numpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip((q, k, v), (q2, k2, v2)):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
def test_zero_fill_and_copy_run_on_the_device(dtype):
    """``zero_``, ``fill_`` (a number, a 0-d tensor) and ``copy_`` (broadcast, a cast from another dtype) on the
    device against the CPU, gradients included; on the stand-in a 0-d device value is never read back (no
    sync, where ``fill_`` once called ``.item()``) and each is one launch, the op, then one device-to-device copy,
    the write into the storage (``run_inplace``, as every in-place op here: no kernel for it)."""
    check("zero_", lambda x: (x * 2).zero_() + x, [_rand((3, 4), dtype)], dtype)
    check("fill_", lambda x: (x * 2).fill_(1.5) * x, [_rand((3, 4), dtype)], dtype)
    check("fill_tensor_", lambda x, v: (x * 2).fill_(v.sum()) * x, [_rand((3, 4), dtype), _rand((2,), dtype)], dtype)
    check("copy_", lambda x, s: (x * 2).copy_(s) * x, [_rand((3, 4), dtype), _rand((4,), dtype)], dtype)
    check("copy_", lambda x: (x * 2).copy_(x.double()) * x, [_rand((3, 4), dtype)], dtype)
    fake = fake_cupy.installed()
    if fake is None:
        return
    x = mg.tensor(_rand((3, 4), dtype)).to("gpu")
    v = mg.tensor(_rand((), dtype)).to("gpu")
    s = mg.tensor(_rand((4,), dtype)).to("gpu")
    for fn in (lambda: x.zero_(), lambda: x.fill_(2.0), lambda: x.fill_(v), lambda: x.copy_(s)):
        fake.reset_counts()
        fn()
        counts = fake.counts()
        assert counts["launches"] == 1 and counts["d2d"] == 1 and counts["syncs"] == 0 and counts["d2h"] == 0, counts


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
def test_reflect_and_replicate_padding_run_on_the_device(dtype):
    """``F.pad`` reflect/replicate (1, 2 and 3 padded dims, a crop) against the CPU, gradients included; on the
    stand-in the positions are uploaded once per geometry: a second call copies nothing and does not sync."""
    F = mg.nn.functional
    check("reflection_pad", lambda x: F.pad(x, (1, 2), mode="reflect"), [_rand((2, 3, 5), dtype)], dtype)
    check("reflection_pad", lambda x: F.pad(x, (2, -1, 1, 1), mode="reflect"), [_rand((2, 3, 4, 5), dtype)], dtype)
    check("replication_pad", lambda x: F.pad(x, (3, 1, 0, 2), mode="replicate"), [_rand((1, 2, 3, 4), dtype)], dtype)
    check("replication_pad", lambda x: F.pad(x, (1, 1, 1, 1, 1, 0), mode="replicate"), [_rand((2, 2, 3, 4), dtype)],
          dtype)
    fake = fake_cupy.installed()
    if fake is None:
        return
    x = mg.tensor(_rand((2, 3, 4, 5), dtype)).to("gpu").requires_grad_()
    step = lambda: mg.autograd.grad(F.pad(x, (1, 2, 2, 1), mode="reflect").sum(), x)  # noqa: E731
    step()
    fake.reset_counts()
    step()
    counts = fake.counts()
    assert counts["h2d"] == 0 and counts["syncs"] == 0 and counts["d2h"] == 0, counts


@pytest.mark.parametrize("make, shape", [
    (lambda nn: nn.RNN(3, 4, num_layers=2, batch_first=True), (2, 5, 3)),
    (lambda nn: nn.GRU(3, 4, bidirectional=True), (5, 2, 3)),
    (lambda nn: nn.LSTM(3, 4, proj_size=2, batch_first=True), (2, 5, 3)),
    (lambda nn: nn.LSTMCell(3, 4), (2, 3)),
    (lambda nn: nn.GRUCell(3, 4), (3,)),
], ids=["RNN", "GRU", "LSTM", "LSTMCell", "GRUCell"])
def test_recurrent_layers_run_every_op_on_the_gpu(make, shape):
    """A recurrent layer on the device (ATen's composite: ``linear``, ``unbind``, ``unsafe_chunk`` gates,
    ``stack``, ``transpose_``) selects no CPU kernel, forward or backward, and agrees with the CPU."""
    x = _rand(shape, mg.float64)
    results = []
    for device in ("cpu", "gpu"):
        mg.manual_seed(0)
        module = make(mg.nn).to(mg.float64).to(device)
        tx = mg.tensor(x, dtype=mg.float64, requires_grad=True)
        with mg.trace() as tr:
            out = module(tx.to(device))
            out = out[0] if isinstance(out, tuple) else out
            (out * mg.tensor(_rand(out.shape, mg.float64, seed=7)).to(device)).sum().backward()
        if device == "gpu":
            sel = [e for e in tr.events if e.kind == "kernel.select"]
            assert sel and not [e.op for e in sel if e.fallback_cpu or e.backend not in ("GPU", "GPUDNN")]
        results.append([out.detach().numpy(), tx.grad.numpy()] + [p.grad.numpy() for p in module.parameters()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
def test_bilinear_is_one_trilinear_product_on_the_gpu(dtype):
    """``F.bilinear``'s ``_trilinear`` (an ``einsum`` on the device) and its backward - ``_trilinear`` three
    more times - against the CPU, batched inputs and a bias."""
    check("_trilinear", lambda a, b, w, bias: mg.nn.functional.bilinear(a, b, w, bias),
          [_rand((2, 3, 4), dtype), _rand((2, 3, 5), dtype, seed=1), _rand((6, 4, 5), dtype, seed=2),
           _rand((6,), dtype, seed=3)], dtype)


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("mode, kwargs", [("sum", {"per_sample_weights": True}), ("mean", {"padding_idx": 2}),
                                          ("max", {}), ("sum", {"include_last_offset": True}),
                                          ("mean", {"scale_grad_by_freq": True})],
                         ids=["sum weighted", "mean padding", "max", "sum include_last_offset", "mean freq"])
def test_embedding_bag_runs_on_the_gpu(mode, kwargs, dtype):
    """``F.embedding_bag`` on the device (bags by ``searchsorted``, one atomic scatter; in max mode scatter-max
    and scatter-min for the first row that gave each element) and its backward, against the CPU; an empty bag."""
    idx, offsets = np.array([1, 2, 2, 4, 0, 3]), np.array([0, 2, 2, 5])
    kw = dict(kwargs)
    weighted = kw.pop("per_sample_weights", False)

    def program(w, *psw):
        return mg.nn.functional.embedding_bag(mg.tensor(idx).to(w.device), w, mg.tensor(offsets).to(w.device),
                                              mode=mode, per_sample_weights=psw[0] if psw else None, **kw)
    arrays = [_rand((5, 4), dtype)] + ([_rand((6,), dtype, seed=1)] if weighted else [])
    check("embedding_bag", program, arrays, dtype)
    w = mg.tensor(arrays[0]).to("gpu").requires_grad_()
    with mg.trace() as tr:
        program(w, *([mg.tensor(arrays[1]).to("gpu").requires_grad_()] if weighted else [])).sum().backward()
    sel = [e for e in tr.events if e.kind == "kernel.select"]
    assert not [e.op for e in sel if e.fallback_cpu or e.backend not in ("GPU", "GPUDNN")]


@pytest.mark.parametrize("extra", [{}, {"bidirectional": True, "bias": False, "batch_first": True}],
                         ids=["LSTM", "LSTM both ways without bias"])
def test_float32_lstm_on_the_gpu_runs_atens_composite(extra):
    """On the CPU a float32 LSTM is oneDNN's fused layer (``mkldnn_rnn_layer``, PyTorch's CPU graph); PyTorch's
    CUDA runs cuDNN's instead, which minigrad has not, so on the device it is ATen's composite, cell by cell
    (``unsafe_split`` of the gates), every op there, against the CPU."""
    def program(x):
        mg.manual_seed(0)  # the same weights on both sides
        return mg.nn.LSTM(3, 4, **extra).to(x.device)(x)[0]
    check("unsafe_split", program, [_rand((5, 2, 3), mg.float32)], mg.float32)


# -- spatial transformers (ops/grid_sample.py): affine_grid and grid_sample on the device ----------------------

@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("mode, padding, dims", [("bilinear", "zeros", 2), ("bicubic", "reflection", 2),
                                                 ("nearest", "border", 2), ("bilinear", "reflection", 3)])
def test_grid_sample_and_affine_grid_run_on_the_device(mode, padding, dims, dtype):
    """The forward and both gradients (input and theta) against the CPU, each op computed by its GPU kernel."""
    F = mg.nn.functional
    size = (2, 3, 4, 5) if dims == 2 else (2, 3, 3, 4, 5)
    theta = _rand((2, dims, dims + 1), dtype, low=-1.2, high=1.2, seed=3)
    x = _rand(size, dtype, seed=4)
    op = f"grid_sampler_{dims}d"
    check("affine_grid_generator", lambda t: F.affine_grid(t, list(size), align_corners=False), [theta], dtype)
    check(op, lambda a, t: F.grid_sample(a, F.affine_grid(t, list(size), align_corners=True), mode=mode,
                                         padding_mode=padding, align_corners=True), [x, theta], dtype)


def test_grid_sample_double_backward_runs_on_the_device():
    """The double backward's ops (the sums of taps with a grid derivative and their adjoint) have GPU kernels:
    no CPU fallback, and the CPU's second derivatives."""
    F = mg.nn.functional
    x0, g0 = _rand((1, 2, 3, 4), mg.float64, seed=5), _rand((1, 2, 3, 2), mg.float64, low=-1.1, high=1.1, seed=6)
    results = []
    for device in ("cpu", "gpu"):
        x = mg.tensor(x0, requires_grad=True)
        g = mg.tensor(g0, requires_grad=True)
        with mg.trace() as tr:
            y = F.grid_sample(x.to(device), g.to(device), mode="bicubic", padding_mode="border", align_corners=False)
            gx, gg = mg.autograd.grad((y * y).sum(), [x, g], create_graph=True)
            ((gx * gx).sum() + (gg * gg).sum()).backward()
        if device == "gpu":
            grid_ops = [e for e in tr.events if e.kind == "kernel.select" and "grid" in e.op]
            assert {e.op for e in grid_ops} >= {"grid_sampler_2d", "grid_sampler_2d_backward", "grid_sampler_derivative",
                                                "grid_sampler_derivative_backward"}
            assert not [e for e in grid_ops if e.fallback_cpu or e.backend != "GPU"]
        results.append([x.grad.numpy(), g.grad.numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


@pytest.mark.gpu
def test_one_samples_nll_loss_is_pytorch_cudas():
    """PyTorch's CPU and CUDA differ for one sample (a ``(C,)`` input, a 0-d target; CUDA's
    ``nll_loss_forward_reduce_cuda_kernel_1d``): an ignored target's mean is 0 on CUDA (NaN on the CPU), the mean
    is ``-x[t]`` itself (-0.0 for a log-probability of 0; the CPU's 0.0). The GPU gives CUDA's, the CPU the
    CPU's; the device's fuzzer found both (and PyTorch CUDA is the oracle here where it is installed)."""
    F = mg.nn.functional
    x = [0.0, -1.5, -0.3]
    w = [2.0, 0.0, 1.0]
    calls = {
        "mean of a log-probability of 0": (lambda F, x, t0, t1, w: F.nll_loss(x, t0), -0.0, 0.0),
        "an ignored target's mean": (lambda F, x, t0, t1, w: F.nll_loss(x, t0, ignore_index=0), 0.0, math.nan),
        "a weight of 0, mean": (lambda F, x, t0, t1, w: F.nll_loss(x, t1, weight=w), math.nan, math.nan),
        "weighted sum": (lambda F, x, t0, t1, w: F.nll_loss(x, t0, weight=w, reduction="sum"), -0.0, 0.0),
        "'none'": (lambda F, x, t0, t1, w: F.nll_loss(x, t0, reduction="none"), -0.0, 0.0),
        "cross_entropy, ignored": (lambda F, x, t0, t1, w: F.cross_entropy(x, t0, ignore_index=0), 0.0, math.nan),
        "a loss that is not 0": (lambda F, x, t0, t1, w: F.nll_loss(x, t1), 1.5, 1.5),
    }

    def run(lib, device):
        args = (lib.tensor(x, dtype=lib.float64, device=device), lib.tensor(0, device=device),
                lib.tensor(1, device=device), lib.tensor(w, dtype=lib.float64, device=device))
        return {name: float(fn(lib.nn.functional, *args).item()) for name, (fn, _, _) in calls.items()}

    def same(a, b):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))

    gpu, cpu = run(mg, "gpu"), run(mg, "cpu")
    for name, (_, on_cuda, on_cpu) in calls.items():
        assert same(gpu[name], on_cuda), (name, gpu[name])
        assert same(cpu[name], on_cpu), (name, cpu[name])
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        theirs = run(torch, "cuda")
        assert all(same(gpu[name], theirs[name]) for name in calls), (gpu, theirs)


@pytest.mark.gpu
@pytest.mark.parametrize("reduction", ["sum", "mean", "none"])
def test_one_samples_nll_loss_of_no_class_with_its_target_ignored(reduction):
    """One sample of no class (a ``(0,)`` input) and its 0-d target ignored: PyTorch CUDA's loss is 0 for every
    reduction (the device's fuzzer found minigrad's GPU indexing the empty input instead); its gradient is empty."""
    x = mg.zeros(0, dtype=mg.float64, device="gpu", requires_grad=True)
    loss = mg.nn.functional.nll_loss(x, mg.tensor(0, device="gpu"), reduction=reduction, ignore_index=0)
    assert loss.shape == () and float(loss.item()) == 0.0
    loss.backward()
    assert x.grad.shape == (0,)
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        theirs = torch.nn.functional.nll_loss(torch.zeros(0, dtype=torch.float64, device="cuda"),
                                              torch.tensor(0, device="cuda"), reduction=reduction, ignore_index=0)
        assert float(theirs.item()) == 0.0


def test_channels_last_memory_format_on_the_gpu_as_on_the_cpu():
    """``to(memory_format=channels_last)`` lays a GPU tensor out channels last too (its clone kernel), and a
    convolution, a pooling and an elementwise op of it give the CPU's values and gradients; what is laid out
    anew (``*_like``, ``Module.to``, a leaf's ``.grad``) stays a device array."""
    from minigrad.devices import device_of_array

    got = {}
    for device in ("cpu", "gpu"):
        x = mg.tensor(_rand((2, 3, 6, 5), mg.float64, seed=5), dtype=mg.float64, device=device)
        x = x.to(memory_format=mg.channels_last).requires_grad_()
        w = mg.tensor(_rand((4, 3, 3, 3), mg.float64, seed=6), dtype=mg.float64, device=device, requires_grad=True)
        y = mg.nn.functional.max_pool2d(mg.nn.functional.conv2d(x, w, padding=1), 2)
        (y * y.exp()).sum().backward()
        conv = mg.nn.Conv2d(3, 4, 3).to(device).to(memory_format=mg.channels_last)
        for t in (mg.zeros_like(x), mg.empty_like(x), conv.weight, x.grad):  # laid out anew on their device
            assert device_of_array(t._data) == device
        got[device] = (x.stride(), x.is_contiguous(memory_format=mg.channels_last), mg.zeros_like(x).stride(),
                       y.detach().cpu().numpy(), x.grad.cpu().numpy(), w.grad.cpu().numpy())
    assert got["gpu"][:3] == got["cpu"][:3] == ((90, 1, 15, 3), True, (90, 1, 15, 3))
    for a, b in zip(got["gpu"][3:], got["cpu"][3:]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_a_cnn_keeps_a_channels_last_image_channels_last_on_the_gpu_as_on_the_cpu():
    """NOTE [ A memory format passes through a CNN ] (minigrad/kernels/strided.py): a GPU kernel writes a
    row-major result, laid out channels last after it as on the CPU, and ``rand_like(memory_format=...)``
    lays its draws out so too; the CPU's strides are PyTorch's (tests/test_memory_format.py)."""
    F = mg.nn.functional
    got = {}
    for device in ("cpu", "gpu"):
        x = mg.tensor(_rand((2, 4, 6, 6), mg.float64, seed=7), dtype=mg.float64, device=device)
        x = x.to(memory_format=mg.channels_last)
        w = mg.tensor(_rand((3, 4, 3, 3), mg.float64, seed=8), dtype=mg.float64, device=device)
        outs = (F.conv2d(x, w), F.batch_norm(x, None, None, training=True), F.group_norm(x, 2),
                F.max_pool2d(x, 2), F.avg_pool2d(x, 2), F.adaptive_avg_pool2d(x, 3),
                F.interpolate(x, scale_factor=2, mode="bilinear"), F.pad(x, (1, 1, 1, 1)), mg.cat([x, x], 1),
                F.conv2d(x.contiguous(), w.to(memory_format=mg.channels_last)),
                mg.rand_like(x.contiguous(), memory_format=mg.channels_last))
        got[device] = [(o.stride(), o.cpu().numpy()) for o in outs]
    for k, ((gpu_strides, gpu_values), (cpu_strides, cpu_values)) in enumerate(zip(got["gpu"], got["cpu"])):
        assert gpu_strides == cpu_strides
        assert cpu_strides[1] == 1  # channels last
        if k < len(got["cpu"]) - 1:  # (the device generator's draws are its own)
            np.testing.assert_allclose(gpu_values, cpu_values, rtol=1e-12, atol=1e-12)


def test_empty_strided_on_the_gpu_is_laid_out_as_on_the_cpu():
    """``empty_strided`` makes its storage on the device (no host copy) and lays it out as the CPU's."""
    got = []
    for device in ("cpu", "gpu"):
        t = mg.empty_strided((2, 3), (1, 3), dtype=mg.float64, device=device)  # a gap: storage of 8
        t.copy_(mg.arange(6.0, dtype=mg.float64).reshape(2, 3).to(device))
        got.append((t.stride(), t.storage_offset(), t.is_contiguous(), t.cpu().numpy(),
                    t.as_strided((8,), (1,)).cpu().numpy()))
    assert got[0][:3] == got[1][:3] == ((1, 3), 0, False)
    for a, b in zip(got[0][3:], got[1][3:]):
        np.testing.assert_array_equal(a, b)


def test_vdot_and_a_spectrally_normalized_layer_run_on_the_device_as_on_the_cpu():
    """``vdot`` is one GPU launch (``VdotBackward0``); a spectral-normed layer's power iteration, sigma and
    gradient on the GPU equal the CPU's from the same u and v."""
    x, y = mg.tensor(_rand((7,), mg.float64, seed=1)), mg.tensor(_rand((7,), mg.float64, seed=2))
    with mg.trace() as tr:
        got = mg.vdot(x.to("gpu"), y.to("gpu"))
    assert ("vdot", "GPU") in {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    np.testing.assert_allclose(got.item(), mg.vdot(x, y).item(), rtol=1e-12)
    grads = []
    for device in ("cpu", "gpu"):
        mg.manual_seed(0)
        layer = mg.nn.utils.parametrizations.spectral_norm(mg.nn.Linear(5, 4, dtype=mg.float64))
        if device == "gpu":
            layer.to("gpu")
        (layer(mg.ones(2, 5, dtype=mg.float64).to(device)) ** 2).sum().backward()
        grads.append((layer.parametrizations.weight.original.grad.cpu().numpy(),
                      layer.parametrizations.weight[0]._u.cpu().numpy()))
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-10)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-10)


def test_weight_norm_runs_on_the_device_as_on_the_cpu():
    """``weight_norm_interface`` runs its GPU kernel (no fallback, no copy); a weight-normed layer's step on the
    GPU equals the CPU's, and so does its double backward."""
    v, g = mg.tensor(_rand((4, 6), mg.float64, seed=3)), mg.tensor(_rand((4, 1), mg.float64, seed=4))
    with mg.trace() as tr:
        got = mg._weight_norm(v.to("gpu"), g.to("gpu"), 0)
    assert ("weight_norm_interface", "GPU") in {(e.op, e.backend) for e in tr.events if e.kind == "kernel.select"}
    assert not [e for e in tr.events if e.kind == "device.copy" and e.direction == "device_to_host"]
    np.testing.assert_allclose(got.cpu().numpy(), mg._weight_norm(v, g, 0).numpy(), rtol=1e-12)
    grads = []
    for device in ("cpu", "gpu"):
        mg.manual_seed(0)
        layer = mg.nn.utils.parametrizations.weight_norm(mg.nn.Conv2d(2, 3, 3, dtype=mg.float64).to(device))
        out = layer(mg.ones(2, 2, 5, 5, dtype=mg.float64, device=device))
        g0, g1 = mg.autograd.grad((out ** 2).sum(), [layer.parametrizations.weight.original0,
                                                     layer.parametrizations.weight.original1], create_graph=True)
        (g0.sum() + (g1 ** 2).sum()).backward()
        grads.append([t.detach().cpu().numpy() for t in (g0, g1, layer.parametrizations.weight.original1.grad)])
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


def test_every_layer_made_with_device_has_its_parameters_and_buffers_there():
    """``device=`` (``"cuda"`` too) places every parameter and buffer a layer makes; it was ignored by
    ``Bilinear``, the convolutions, ``Embedding``, the norms, the recurrent layers and the transformer's."""
    nn = mg.nn
    makes = [lambda d: nn.Linear(3, 4, device=d), lambda d: nn.Bilinear(2, 3, 4, device=d),
             lambda d: nn.Conv1d(2, 3, 3, device=d), lambda d: nn.Conv2d(2, 3, 3, device=d),
             lambda d: nn.ConvTranspose2d(2, 3, 3, device=d), lambda d: nn.Embedding(5, 3, device=d),
             lambda d: nn.EmbeddingBag(5, 3, device=d), lambda d: nn.LayerNorm(4, device=d),
             lambda d: nn.BatchNorm2d(4, device=d), lambda d: nn.GroupNorm(2, 4, device=d),
             lambda d: nn.RMSNorm(4, device=d),
             lambda d: nn.InstanceNorm2d(4, affine=True, track_running_stats=True, device=d),
             lambda d: nn.PReLU(device=d), lambda d: nn.LSTM(3, 4, proj_size=2, device=d),
             lambda d: nn.GRUCell(3, 4, device=d),
             lambda d: nn.MultiheadAttention(4, 2, kdim=3, vdim=3, add_bias_kv=True, device=d),
             lambda d: nn.Transformer(4, 2, 1, 1, 8, device=d)]
    for make in makes:
        layer = make("cuda")
        assert {str(t.device) for t in [*layer.parameters(), *layer.buffers()]} == {"cuda:0"}, layer


def test_a_lazy_model_materializes_on_its_device():
    """A lazy layer made with ``device=`` (or moved with ``to()`` before its first call) materializes its
    parameters and buffers there and trains there."""
    mg.manual_seed(0)
    net = mg.nn.Sequential(mg.nn.LazyConv2d(3, 3, device="cuda"), mg.nn.LazyBatchNorm2d(), mg.nn.Flatten(),
                           mg.nn.LazyLinear(2)).to("gpu")
    loss = net(mg.randn(4, 2, 5, 5, device="cuda")).sum()
    loss.backward()
    assert {str(t.device) for t in [*net.parameters(), *net.buffers()]} == {"cuda:0"}
    assert type(net[0]).__name__ == "Conv2d" and tuple(net[3].weight.shape) == (2, 27)


def test_an_orthogonal_layer_trains_on_the_device_as_on_the_cpu():
    """Each of ``parametrizations.orthogonal``'s maps (``matrix_exp``, ``cayley``, ``householder``) gives the CPU's
    weight and gradient on the device, the starting ``base`` drawn on the CPU and moved."""
    for omap, shape in (("matrix_exp", (4, 4)), ("cayley", (3, 5)), ("householder", (5, 3))):
        got = []
        for device in ("cpu", "gpu"):
            mg.manual_seed(0)
            layer = mg.nn.utils.parametrizations.orthogonal(mg.nn.Linear(shape[1], shape[0], dtype=mg.float64),
                                                            orthogonal_map=omap)
            layer.to(device)
            out = layer(mg.ones(2, shape[1], dtype=mg.float64, device=device))
            (out ** 2).sum().backward()
            got.append((layer.weight.detach().cpu().numpy(),
                        layer.parametrizations.weight.original.grad.cpu().numpy()))
        for a, b in zip(*got):
            np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-11)


# A gradient that reaches a changed view's base transposed (``K.t()`` downstream, or a factorization's symmetric
# gradient): the history rewrite's backward copies it row-major before zeroing the view's part. The stand-in's
# ``cupy.array(order="C")`` once kept a transposed array column-major (real CuPy honours ``order``), so the zeroing
# wrote into a temporary and the stand-in reported a doubled gradient the device does not give.
TRANSPOSED_GRADS = {
    "t() * c": lambda k, c: (k.t() * c).sum(),
    "cholesky": lambda k, c: mg.linalg.cholesky(k).sum(),
}


@pytest.mark.parametrize("change", ["[0, 0] += 1", "[0].mul_(2)"])
@pytest.mark.parametrize("loss", sorted(TRANSPOSED_GRADS))
def test_a_transposed_gradient_through_a_changed_view_on_gpu(change, loss):
    a, c = np.array([[4.0, 1.0], [1.0, 3.0]]), np.array([[1.0, 2.0], [3.0, 4.0]])
    grads = []
    for device in ("cpu", "gpu"):
        w = mg.tensor(a, device=device, requires_grad=True)
        k = w * 1.0
        if change == "[0, 0] += 1":
            k[0, 0] += 1
        else:
            k[0].mul_(2)
        TRANSPOSED_GRADS[loss](k, mg.tensor(c, device=device)).backward()
        grads.append(w.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-15)


def test_array_of_a_device_array_takes_the_order_asked_for():
    import cupy

    f = cupy.asarray(np.arange(6.0).reshape(2, 3)).T
    assert cupy.array(f, order="C").flags.c_contiguous and cupy.array(f).flags.f_contiguous
    assert cupy.array(f, order="F").flags.f_contiguous and cupy.array(np.ones((2, 3)), order="F").flags.f_contiguous
