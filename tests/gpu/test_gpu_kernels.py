"""Every GPU kernel against the CPU kernel, forward and backward (needs CuPy and a CUDA device).

For each op: the same random inputs run on the CPU and on the GPU; the
forward values and the gradients (``backward`` of a weighted sum, so every
output element gets its own gradient) must agree, and the trace must show
that the GPU kernel - not a CPU fallback - computed the forward.
"""

from __future__ import annotations

import numpy as np
import pytest

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
    np.testing.assert_allclose(gpu_out.numpy().astype(np.float64), cpu_out.numpy().astype(np.float64), rtol=rtol, atol=atol)
    for g_gpu, g_cpu in zip(gpu_grads, cpu_grads):
        assert g_gpu is not None and g_cpu is not None
        assert g_gpu.dtype == g_cpu.dtype
        np.testing.assert_allclose(g_gpu.numpy().astype(np.float64), g_cpu.numpy().astype(np.float64),
                                   rtol=rtol * 10, atol=atol * 10)


UNARY = {
    "neg": (mg.neg, (-2, 2)), "exp": (mg.exp, (-2, 2)), "log": (mg.log, (0.1, 3)), "sqrt": (mg.sqrt, (0.1, 3)),
    "abs": (mg.abs, (-2, 2)), "sin": (mg.sin, (-3, 3)), "cos": (mg.cos, (-3, 3)), "tanh": (mg.tanh, (-3, 3)),
    "sigmoid": (mg.sigmoid, (-6, 6)), "relu": (mg.relu, (-2, 2)), "gelu": (mg.gelu, (-3, 3)),
    "erf": (mg.erf, (-2, 2)), "sign": (mg.sign, (-2, 2)),
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


REDUCTIONS = ["sum", "mean", "max", "min", "logsumexp"]
DIMS = [None, 0, -1, (0, 2), 1]


@pytest.mark.parametrize("dtype", ALL_FLOATS, ids=str)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reductions(op, dim, keepdim, dtype):
    check(op, lambda x: mg.OPS[op](x, dim=dim, keepdim=keepdim), [_rand((5, 7, 9), dtype)], dtype)


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


@pytest.mark.parametrize("dtype", FLOATS, ids=str)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy(reduction, dtype):
    logits = _rand((16, 11), dtype, -3, 3)
    target = np.random.default_rng(5).integers(0, 11, size=16)
    check("cross_entropy", lambda x, t: mg.cross_entropy(x, t, reduction=reduction), [logits, target], dtype)


def test_cross_entropy_bad_target_on_gpu():
    x = mg.randn(2, 3).to("gpu")
    with pytest.raises(ValueError, match="class indices"):
        mg.cross_entropy(x, mg.tensor([0, 3]).to("gpu"))


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
    x, w = mg.randn(1, 2, 5, 5).to("gpu"), mg.randn(3, 2, 3, 3).to("gpu")
    with mg.trace() as tr:
        out = mg.conv2d(x, w)
    sel = [e for e in tr.events if e.kind == "kernel.select" and e.op == "conv2d"][0]
    assert sel.fallback_cpu and out.device == "gpu"
    moves = [(e.arg, e.from_, e.to) for e in tr.events if e.kind == "data.transform" and e.op == "conv2d"]
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
        return loss.item(), a.grad.numpy(), b.grad.numpy()

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
    x2 = mg.tensor(x.numpy(), requires_grad=True)
    y2 = mg.concat([x2.reshape(6, 4), x2.permute(2, 0, 1).reshape(4, 6).transpose(0, 1)], dim=0)
    y2[1:5, [0, 2]].unsqueeze(0).expand(3, 4, 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), x2.grad.numpy(), rtol=1e-6)


def test_logsumexp_infinities_match_cpu():
    x = np.array([[-np.inf, -np.inf, -np.inf], [1.0, np.inf, 2.0], [np.inf, np.inf, 0.0], [-np.inf, 0.5, 1.5]])
    for dtype in FLOATS:
        cpu = mg.logsumexp(mg.tensor(x, dtype=dtype), dim=1).numpy()
        gpu = mg.logsumexp(mg.tensor(x, dtype=dtype).to("gpu"), dim=1).numpy()
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
        x, w = mg.randn(1, 1, 4, 4).to("gpu"), mg.randn(1, 1, 3, 3).to("gpu")
        with pytest.raises(RuntimeError, match=r"conv2d\(\): no kernel registered for key \(GPU, NCHW, float32\)"):
            mg.conv2d(x, w)
    finally:
        mg.flags.enable_api_kernel_fallback = saved
