"""``autocast("cpu")`` casts as PyTorch 2.13's CPU autocast does: its lists, its cast cache, its graphs.

PyTorch is the oracle twice over: its dispatcher says which operators have an autocast kernel on each device
type (the tables of ``dispatch/autocast_policy.py`` must name exactly those), and running the same program
under ``torch.autocast("cpu")`` says what each cast gives (dtypes, values, the graph's nodes, the leaves'
gradients). The CUDA policies are checked against PyTorch's header; running them needs a GPU
(``tests/gpu/test_autocast_gpu.py`` on the stand-in).
"""

from __future__ import annotations

import collections
import re
from pathlib import Path

import numpy as np
import pytest

import minigrad as mg
from minigrad.dispatch import autocast_policy as ap

torch = pytest.importorskip("torch")


def _registered(key: str) -> set[str]:
    names = torch._C._dispatch_get_all_op_names()
    return {n.split("::")[1].split(".")[0] for n in names if torch._C._dispatch_has_kernel_for_dispatch_key(n, key)}


def test_tables_name_the_operators_pytorch_registers_an_autocast_kernel_for():
    assert set(ap.POLICIES["cpu"]) == _registered("AutocastCPU")
    assert set(ap.POLICIES["gpu"]) == _registered("AutocastCUDA")


def test_cuda_policies_are_the_lists_of_pytorchs_header():
    header = Path(torch.__file__).parent / "include" / "ATen" / "autocast_mode.h"
    if not header.exists():
        pytest.skip("this PyTorch build ships no headers")
    text = header.read_text()

    def macro(name: str) -> set[str]:
        body = re.search(rf"#define {name}\(_\)(.*?)\n\n", text, re.S).group(1)
        return set(re.findall(r"_\((\w+)", body))

    expected = {**dict.fromkeys(macro("AT_FORALL_LOWER_PRECISION_FP"), ap.LOWER),
                **dict.fromkeys(macro("AT_FORALL_FP32"), ap.FP32),
                **dict.fromkeys(macro("AT_FORALL_FP32_SET_OPT_DTYPE"), ap.FP32_SET_OPT_DTYPE),
                **dict.fromkeys(macro("AT_FORALL_PROMOTE"), ap.PROMOTE)}
    cuda = ap.POLICIES["gpu"]
    assert {k: v for k, v in cuda.items() if k in expected} == expected
    # the rest: norm's fp32_append_dtype (float32 out), the refused binary_cross_entropy, and cuDNN's convolutions
    assert {k: v for k, v in cuda.items() if k not in expected} == {
        "norm": ap.FP32, "binary_cross_entropy": ap.BANNED, "cudnn_convolution": ap.LOWER,
        "cudnn_convolution_transpose": ap.LOWER}


def _autocast_functions():
    seen = {}
    for space in (mg, mg.nn.functional, mg.linalg):
        for name in dir(space):
            fn = getattr(space, name, None)
            spec = getattr(fn, "__autocast_aten__", None)
            if spec is not None:
                seen[spec[0]] = spec[1]
    return seen


def test_a_function_composed_here_says_whether_pytorch_composes_it_too():
    """``autocast_as(composite=...)`` says whether PyTorch's operator is CompositeImplicitAutograd: where it has
    no policy, its ops cast one by one (composite) or not at all (PyTorch's own kernel)."""
    functions = _autocast_functions()
    assert len(functions) >= 40
    overloads = {"frobenius_norm": "dim", "softmax": "int", "log_softmax": "int"}  # (the operators' Python forms)
    for aten, composite in functions.items():
        name = f"aten::{aten}" + (f".{overloads[aten]}" if aten in overloads else "")
        assert torch._C._dispatch_has_kernel_for_dispatch_key(name, "CompositeImplicitAutograd") == composite, aten


def test_the_aten_names_minigrad_ops_go_by_are_pytorchs():
    names = {n.split("::")[1].split(".")[0] for n in torch._C._dispatch_get_all_op_names()}
    for op in mg.ops.OPS:
        aten = ap.aten_name_of(op, {"pad": (1, 1)})
        if aten != op:
            assert aten in names, (op, aten)


# -- the programs -------------------------------------------------------------------------------------------


def _i(L, values):
    return L.tensor(values)


CASES = {
    "matmul": (lambda L, a, b: a @ b, [(3, 4), (4, 5)]),
    "mm": (lambda L, a, b: L.mm(a, b), [(3, 4), (4, 5)]),
    "bmm": (lambda L, a, b: L.bmm(a, b), [(2, 3, 4), (2, 4, 5)]),
    "mv": (lambda L, a, b: L.mv(a, b), [(3, 4), (4,)]),
    "linear": (lambda L, a, w, b: L.nn.functional.linear(a, w, b), [(3, 4), (5, 4), (5,)]),
    "linear_3d": (lambda L, a, w, b: L.nn.functional.linear(a, w, b), [(2, 3, 4), (5, 4), (5,)]),
    "addmm": (lambda L, c, a, b: L.addmm(c, a, b), [(3, 5), (3, 4), (4, 5)]),
    "addmv": (lambda L, c, a, b: L.addmv(c, a, b), [(3,), (3, 4), (4,)]),
    "baddbmm": (lambda L, c, a, b: L.baddbmm(c, a, b), [(2, 3, 5), (2, 3, 4), (2, 4, 5)]),
    "conv1d": (lambda L, x, w: L.nn.functional.conv1d(x, w), [(1, 2, 5), (3, 2, 3)]),
    "conv2d": (lambda L, x, w, b: L.nn.functional.conv2d(x, w, b), [(1, 2, 5, 5), (3, 2, 3, 3), (3,)]),
    "conv_transpose2d": (lambda L, x, w: L.nn.functional.conv_transpose2d(x, w), [(1, 2, 4, 4), (2, 3, 3, 3)]),
    "vecdot": (lambda L, a, b: L.linalg.vecdot(a, b), [(3, 4), (3, 4)]),
    "prelu": (lambda L, x, w: L.nn.functional.prelu(x, w), [(3, 4), (1,)]),
    "sdpa": (lambda L, q, k, v: L.nn.functional.scaled_dot_product_attention(q, k, v), [(1, 2, 3, 4)] * 3),
    "einsum": (lambda L, a, b: L.einsum("ij,jk->ik", a, b), [(3, 4), (4, 5)]),
    "tensordot": (lambda L, a, b: L.tensordot(a, b, dims=1), [(3, 4), (4, 5)]),
    "multi_dot": (lambda L, a, b, c: L.linalg.multi_dot([a, b, c]), [(3, 4), (4, 5), (5, 2)]),
    # (bilinear is left out: PyTorch's CPU ``_trilinear`` calls ``bmm`` inside its kernel, which autocast casts,
    # so its float32 result carries bfloat16 rounding; minigrad's ``_trilinear`` is one kernel, in float32)
    "softmax": (lambda L, a: L.softmax(a, 0), [(3, 4)]),
    "log_softmax": (lambda L, a: L.nn.functional.log_softmax(a, 1), [(3, 4)]),
    "sum": (lambda L, a: a.sum(), [(3, 4)]),
    "mean": (lambda L, a: a.mean(1), [(3, 4)]),
    "prod": (lambda L, a: a.prod(), [(3, 4)]),
    "cumsum": (lambda L, a: a.cumsum(0), [(3, 4)]),
    "exp": (lambda L, a: a.exp(), [(3, 4)]),
    "log": (lambda L, a: a.abs().log(), [(3, 4)]),
    "pow": (lambda L, a: a.pow(2), [(3, 4)]),
    "rsqrt": (lambda L, a: a.abs().rsqrt(), [(3, 4)]),
    "gelu_tanh": (lambda L, a: L.nn.functional.gelu(a).tanh(), [(3, 4)]),
    "add_mixed": (lambda L, a, b: a + b.to(L.bfloat16), [(3, 4), (3, 4)]),
    "layer_norm": (lambda L, a, w, b: L.nn.functional.layer_norm(a, (4,), w, b), [(3, 4), (4,), (4,)]),
    "rms_norm": (lambda L, a, w: L.nn.functional.rms_norm(a, (4,), w), [(3, 4), (4,)]),
    "group_norm": (lambda L, a: L.nn.functional.group_norm(a, 2), [(2, 4, 3)]),
    "batch_norm": (lambda L, a: L.nn.functional.batch_norm(a, None, None, training=True), [(3, 4)]),
    "norm": (lambda L, a: a.norm(), [(3, 4)]),
    "logsumexp": (lambda L, a: a.logsumexp(0), [(3, 4)]),
    "cosine_similarity": (lambda L, a, b: L.nn.functional.cosine_similarity(a, b), [(3, 4), (3, 4)]),
    "cross_entropy": (lambda L, a: L.nn.functional.cross_entropy(a, _i(L, [0, 1, 2])), [(3, 4)]),
    "nll_loss": (lambda L, a: L.nn.functional.nll_loss(a, _i(L, [0, 1, 2])), [(3, 4)]),
    "mse_loss": (lambda L, a, b: L.nn.functional.mse_loss(a, b), [(3, 4), (3, 4)]),
    "l1_loss": (lambda L, a, b: L.nn.functional.l1_loss(a, b), [(3, 4), (3, 4)]),
    "smooth_l1_loss": (lambda L, a, b: L.nn.functional.smooth_l1_loss(a, b), [(3, 4), (3, 4)]),
    "huber_loss": (lambda L, a, b: L.nn.functional.huber_loss(a, b), [(3, 4), (3, 4)]),
    "kl_div": (lambda L, a, b: L.nn.functional.kl_div(a, b, reduction="batchmean"), [(3, 4), (3, 4)]),
    "bce_with_logits": (lambda L, a, b: L.nn.functional.binary_cross_entropy_with_logits(a, b.sigmoid()),
                        [(3, 4), (3, 4)]),
    "bce": (lambda L, a, b: L.nn.functional.binary_cross_entropy(a.sigmoid(), b.sigmoid()), [(3, 4), (3, 4)]),
    "hinge": (lambda L, a, b: L.nn.functional.hinge_embedding_loss(a, b.sign()), [(3, 4), (3, 4)]),
    "margin_ranking": (lambda L, a, b, y: L.nn.functional.margin_ranking_loss(a, b, y.sign()), [(4,)] * 3),
    "poisson_nll": (lambda L, a, b: L.nn.functional.poisson_nll_loss(a, b.abs()), [(3, 4), (3, 4)]),
    "cosine_embedding": (lambda L, a, b: L.nn.functional.cosine_embedding_loss(a, b, L.ones(3)), [(3, 4), (3, 4)]),
    "triplet": (lambda L, a, b, c: L.nn.functional.triplet_margin_loss(a, b, c), [(3, 4)] * 3),
    "multi_margin": (lambda L, a: L.nn.functional.multi_margin_loss(a, _i(L, [0, 1, 2])), [(3, 4)]),
    "cdist": (lambda L, a, b: L.cdist(a, b), [(3, 4), (2, 4)]),
    "trace": (lambda L, a: L.trace(a), [(3, 3)]),
    "inverse": (lambda L, a: L.inverse(a + 3 * L.eye(3)), [(3, 3)]),
    "cholesky": (lambda L, a: L.linalg.cholesky(a @ a.mT + L.eye(3)), [(3, 3)]),
    "qr": (lambda L, a: L.linalg.qr(a)[1], [(3, 3)]),
    "svdvals": (lambda L, a: L.linalg.svdvals(a), [(3, 3)]),
    "solve": (lambda L, a, b: L.linalg.solve(a + 3 * L.eye(3), b), [(3, 3), (3, 2)]),
    "max_pool2d": (lambda L, a: L.nn.functional.max_pool2d(a, 2), [(1, 1, 4, 4)]),
    "max_pool3d": (lambda L, a: L.nn.functional.max_pool3d(a, 2), [(1, 1, 4, 4, 4)]),
    "avg_pool3d": (lambda L, a: L.nn.functional.avg_pool3d(a, 2), [(1, 1, 4, 4, 4)]),
    "adaptive_avg_pool3d": (lambda L, a: L.nn.functional.adaptive_avg_pool3d(a, 2), [(1, 1, 4, 4, 4)]),
    "reflect_pad1d": (lambda L, a: L.nn.functional.pad(a, (1, 1), mode="reflect"), [(1, 2, 4)]),
    "reflect_pad3d": (lambda L, a: L.nn.functional.pad(a, (1, 1, 1, 1, 1, 1), mode="reflect"), [(1, 2, 4, 4, 4)]),
    "replicate_pad2d": (lambda L, a: L.nn.functional.pad(a, (1, 1, 1, 1), mode="replicate"), [(1, 2, 4, 4)]),
    "grid_sample": (lambda L, a, g: L.nn.functional.grid_sample(a, g.tanh(), align_corners=False),
                    [(1, 1, 4, 4), (1, 2, 2, 2)]),
    "interpolate": (lambda L, a: L.nn.functional.interpolate(a, scale_factor=2, mode="bilinear"), [(1, 1, 3, 3)]),
    "cat": (lambda L, a, b: L.cat([a, b.to(L.bfloat16)]), [(3, 4), (3, 4)]),
    "stack": (lambda L, a, b: L.stack([a, b]), [(3, 4), (3, 4)]),
    "index_copy": (lambda L, a, b: a.index_copy(0, _i(L, [0, 2]), b.to(L.bfloat16)), [(3, 4), (2, 4)]),
    "quantile": (lambda L, a: L.quantile(a, 0.3), [(3, 4)]),
    "addcmul": (lambda L, a, b, c: L.addcmul(a, b, c.to(L.bfloat16)), [(3, 4)] * 3),
    "embedding": (lambda L, w: L.nn.functional.embedding(_i(L, [0, 2]), w), [(3, 4)]),
    "lstm_cell": (lambda L, x, h, c, wi, wh: L.lstm_cell(x, (h, c), wi, wh)[0], [(2, 3), (2, 4), (2, 4), (16, 3),
                                                                                  (16, 4)]),
}


def _graph(y):
    """The names of the nodes of ``y``'s graph, counted (a shared cast counts once)."""
    seen, todo, names = set(), [y.grad_fn], collections.Counter()
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names[type(node).__name__] += 1
        todo.extend(fn for fn, _ in node.next_functions)
    return names


def _run(L, fn, arrays, dtype, low_inputs):
    low = getattr(L, dtype)
    leaves = [L.tensor(a, dtype=low if low_inputs else L.float32).requires_grad_() for a in arrays]
    with L.autocast("cpu", dtype=low):
        y = fn(L, *leaves)
    out = y if y.is_floating_point() else y.float()
    out.float().sum().backward()
    return y, leaves


@pytest.mark.parametrize("low_inputs", [False, True], ids=["float32-inputs", "low-inputs"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_cpu_autocast_region_gives_pytorchs_dtypes_values_graph_and_gradients(case, dtype, low_inputs):
    fn, shapes = CASES[case]
    rng = np.random.default_rng(sum(map(ord, case)))
    arrays = [rng.standard_normal(s) for s in shapes]
    try:
        theirs, t_leaves = _run(torch, fn, arrays, dtype, low_inputs)
    except RuntimeError as e:  # PyTorch refuses (promote's float16 under a bfloat16 region...): so must minigrad
        with pytest.raises(RuntimeError) as caught:
            _run(mg, fn, arrays, dtype, low_inputs)
        assert str(caught.value).split(" (")[0] == str(e).split(" (")[0]
        return
    ours, m_leaves = _run(mg, fn, arrays, dtype, low_inputs)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    # a low-precision result to its rounding; a float32 one computed from low-precision steps to theirs
    tol = 3e-2 if "16" in str(ours.dtype) else 5e-3 if _graph(theirs)["ToCopyBackward0"] else 1e-5
    np.testing.assert_allclose(ours.float().detach().numpy(), theirs.float().detach().numpy(), rtol=tol, atol=tol)
    assert _graph(ours) == _graph(theirs)
    for a, b in zip(m_leaves, t_leaves):
        assert (a.grad is None) == (b.grad is None)
        if a.grad is not None:
            assert str(a.grad.dtype).split(".")[-1] == str(b.grad.dtype).split(".")[-1]
            np.testing.assert_allclose(a.grad.float().numpy(), b.grad.float().numpy(), rtol=5e-2, atol=5e-2)


# -- the cast cache, the context's state ---------------------------------------------------------------------


def _two_layers(L, cache_enabled=True):
    w = L.nn.Parameter(L.ones(4, 4))
    x = L.ones(2, 4)
    with L.autocast("cpu", cache_enabled=cache_enabled):
        y = (x @ w) @ w  # the parameter used twice: cast once, the cast reused
    return y


@pytest.mark.parametrize("cache_enabled", [True, False])
def test_a_parameter_used_twice_is_cast_once_as_pytorchs_cache_does(cache_enabled):
    ours, theirs = _two_layers(mg, cache_enabled), _two_layers(torch, cache_enabled)
    assert _graph(ours) == _graph(theirs)
    assert _graph(ours)["ToCopyBackward0"] == (1 if cache_enabled else 2)


def test_the_cache_is_emptied_when_the_outermost_context_exits():
    w = mg.nn.Parameter(mg.ones(4, 4))
    with mg.autocast("cpu"):
        with mg.autocast("cpu"):
            a = mg.ones(2, 4) @ w
        b = mg.ones(2, 4) @ w  # the inner exit keeps the cache: the same cast
    with mg.autocast("cpu"):
        c = mg.ones(2, 4) @ w  # a new region casts again
    cast_of = lambda y: y.grad_fn.next_functions[1][0]  # noqa: E731
    assert cast_of(a) is cast_of(b)
    assert cast_of(c) is not cast_of(a)
    mg.clear_autocast_cache()


def test_a_cached_cast_is_no_event_a_new_one_is():
    w = mg.nn.Parameter(mg.ones(4, 4))
    with mg.trace(values=False) as tr, mg.autocast("cpu"):
        _ = mg.ones(2, 4) @ w
        _ = mg.ones(2, 4) @ w
    casts = [e for e in tr.events if e.kind == "amp.cast"]
    # the first matmul casts x and w, the second casts its x and reuses w's cast
    assert [(e.op, e.to_dtype) for e in casts] == [("matmul", "bfloat16")] * 3


def test_a_disabled_inner_region_casts_nothing_and_the_outer_one_resumes():
    w = mg.ones(4, 4)
    with mg.autocast("cpu"):
        with mg.autocast("cpu", enabled=False):
            inner = mg.ones(2, 4) @ w
        outer = mg.ones(2, 4) @ w
    assert inner.dtype is mg.float32 and outer.dtype is mg.bfloat16


def test_minigrads_own_levels_keep_paddles_lists():
    """``autocast("O1")`` casts by Paddle's lists (``sum`` to float32), as before."""
    with mg.autocast("O1"):
        s = mg.ones(3, dtype=mg.float16).sum()
    with mg.autocast("cpu", dtype=mg.float16):
        t = mg.ones(3, dtype=mg.float16).sum()
    assert s.dtype is mg.float32 and t.dtype is mg.float16


def test_zero_d_bfloat16_arithmetic():
    """A bfloat16 kernel run in float32 rounds a 0-d result too (it came back as a NumPy float32 scalar)."""
    for L in (mg, torch):
        x = L.tensor(0.3, dtype=L.bfloat16)
        assert (x * 2.0).dtype == L.bfloat16 and (x * x).exp().dtype == L.bfloat16
    assert (mg.tensor(0.3, dtype=mg.bfloat16) * 2.0).item() == (torch.tensor(0.3, dtype=torch.bfloat16) * 2.0).item()


def test_trace_of_a_matrix_is_torch_trace():
    a = np.arange(9.0).reshape(3, 3)
    ours, theirs = mg.trace(mg.tensor(a, requires_grad=True)), torch.trace(torch.tensor(a, requires_grad=True))
    assert ours.item() == theirs.item() and type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    with mg.trace(values=False) as tr:  # still the recorder
        pass
    assert tr.events == []
