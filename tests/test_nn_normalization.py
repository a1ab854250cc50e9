"""``F.group_norm``/``F.instance_norm``/``F.local_response_norm``, ``F.normalize``/``F.cosine_similarity``/
``F.pairwise_distance`` and their modules (and the padding modules) against PyTorch; refusals (``F.avg_pool3d``'s
too) in PyTorch's words."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from torch_compare import compare, error_class, leaves_no_node

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(31)


def r(*shape: int) -> np.ndarray:
    return RNG.normal(size=shape)


@pytest.mark.parametrize("shape,groups", [((2, 6, 4, 3), 3), ((2, 6, 5), 1), ((3, 4), 4), ((2, 6, 2, 2, 2), 2)])
@pytest.mark.parametrize("affine", [False, True])
def test_group_norm(shape: tuple, groups: int, affine: bool) -> None:
    extra = [r(shape[1]), r(shape[1])] if affine else []
    compare(lambda x, *wb: F.group_norm(x, groups, *wb, eps=1e-4), lambda x, *wb: TF.group_norm(x, groups, *wb, eps=1e-4),
            [r(*shape)] + extra)


@pytest.mark.parametrize("affine", [False, True])
def test_instance_norm(affine: bool) -> None:
    extra = {"weight": r(3), "bias": r(3)} if affine else {}
    compare(lambda x, **kw: F.instance_norm(x, **kw), lambda x, **kw: TF.instance_norm(x, **kw), [r(2, 3, 4, 5)], **extra)


def test_instance_norm_updates_running_stats_as_torch() -> None:
    x = r(4, 3, 5)
    rm_t, rv_t = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    rm_m, rv_m = mg.zeros(3, dtype=mg.float64), mg.ones(3, dtype=mg.float64)
    TF.instance_norm(torch.tensor(x), rm_t, rv_t, use_input_stats=True, momentum=0.3)
    F.instance_norm(mg.tensor(x, dtype=mg.float64), rm_m, rv_m, use_input_stats=True, momentum=0.3)
    np.testing.assert_allclose(rm_m.numpy(), rm_t.numpy(), rtol=1e-10)
    np.testing.assert_allclose(rv_m.numpy(), rv_t.numpy(), rtol=1e-10)
    out_t = TF.instance_norm(torch.tensor(x), rm_t, rv_t, use_input_stats=False)
    out_m = F.instance_norm(mg.tensor(x, dtype=mg.float64), rm_m, rv_m, use_input_stats=False)
    np.testing.assert_allclose(out_m.numpy(), out_t.numpy(), rtol=1e-10)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, float("inf"), 0.5])
@pytest.mark.parametrize("dim", [1, -1, 0])
def test_normalize(p: float, dim: int) -> None:
    x = r(3, 4, 5)
    x[0, :, 0] = 0.0  # a zero vector along dim 1: divided by eps, gradient finite
    compare(lambda a: F.normalize(a, p, dim), lambda a: TF.normalize(a, p, dim), [x])


def test_normalize_of_a_zero_vector_has_a_finite_gradient() -> None:
    compare(F.normalize, TF.normalize, [np.zeros((2, 3))])


@pytest.mark.parametrize("s1,s2,dim", [((4, 5), (4, 5), 1), ((3, 4, 5), (3, 4, 5), -1), ((1, 2, 3), (2, 1, 3), -2),
                                       ((5,), (5,), 0)])
def test_cosine_similarity(s1: tuple, s2: tuple, dim: int) -> None:
    compare(lambda a, b: F.cosine_similarity(a, b, dim), lambda a, b: TF.cosine_similarity(a, b, dim), [r(*s1), r(*s2)])


@pytest.mark.parametrize("p,keepdim", [(2.0, False), (1.0, True), (3.0, False), (float("inf"), False)])
def test_pairwise_distance(p: float, keepdim: bool) -> None:
    compare(lambda a, b: F.pairwise_distance(a, b, p, keepdim=keepdim),
            lambda a, b: TF.pairwise_distance(a, b, p, keepdim=keepdim), [r(4, 5), r(4, 5)])
    compare(lambda a, b: F.pairwise_distance(a, b, p, keepdim=keepdim),
            lambda a, b: TF.pairwise_distance(a, b, p, keepdim=keepdim), [r(4, 5), r(5)])


ERRORS = [
    ("group_norm groups", lambda f, lib: f.group_norm(lib.ones(2, 6, 3), 4)),
    ("group_norm 1-D", lambda f, lib: f.group_norm(lib.ones(6), 2)),
    ("group_norm weight", lambda f, lib: f.group_norm(lib.ones(2, 6, 3), 3, lib.ones(5))),
    ("group_norm num_groups type", lambda f, lib: f.group_norm(lib.ones(2, 6, 3), 3.0)),
    ("normalize dim", lambda f, lib: f.normalize(lib.ones(2, 3), dim=2)),
    ("cosine dim", lambda f, lib: f.cosine_similarity(lib.ones(2, 3), lib.ones(2, 3), dim=2)),
    ("instance_norm running", lambda f, lib: f.instance_norm(lib.ones(2, 3, 4), use_input_stats=False)),
]


@pytest.mark.parametrize("label,call", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors(label: str, call) -> None:
    want = error_class(lambda: call(TF, torch))
    assert want is not None
    leaves_no_node(lambda: call(F, mg), want)


WORDED = [  # refusals whose class and message are PyTorch's, word for word
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3), 3),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3), -2),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3), 0),
    lambda f, lib: f.group_norm(lib.ones(4), 2),
    lambda f, lib: f.group_norm(lib.ones(1, 4, 1), 4),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3), 2, lib.ones(3)),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3), 2, lib.ones(4), lib.ones(3, 2)),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3), 2, None, lib.ones(3)),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3), 2.0),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3), 2, 3),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3), 2, None, "a"),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3, dtype=lib.int64), 2),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3), 2, lib.ones(4, dtype=lib.float64)),
    lambda f, lib: lib.nn.GroupNorm(3, 4),
    lambda f, lib: f.instance_norm(lib.ones(2, 3, 1)),
    lambda f, lib: f.instance_norm(lib.ones(3, 3, 4), use_input_stats=False),
    lambda f, lib: f.instance_norm(lib.ones(2, 4, 3), weight=lib.ones(3)),
    lambda f, lib: f.instance_norm(lib.ones(2, 4, 3), lib.ones(3), lib.ones(4)),
    lambda f, lib: f.batch_norm(lib.ones(2, 4, 3), lib.ones(3), lib.ones(4), training=True),
    lambda f, lib: f.batch_norm(lib.ones(2, 4, 3), lib.ones(4), lib.ones(4), None, lib.ones(3)),
    lambda f, lib: f.batch_norm(lib.ones(2, 4, 3), None, lib.ones(4)),
    lambda f, lib: f.batch_norm(lib.ones(2, 4, 3), None, None, lib.ones(4, dtype=lib.float64), training=True),
    lambda f, lib: f.batch_norm(lib.ones(2, 4, 3, dtype=lib.float64), lib.ones(4), lib.ones(4)),
    lambda f, lib: f.instance_norm(lib.ones(2, 4, 3, dtype=lib.bfloat16), weight=lib.ones(4, dtype=lib.float16)),
    lambda f, lib: f.group_norm(lib.ones(2, 4, 3, dtype=lib.float64), 2, None, lib.ones(4)),
    lambda f, lib: lib.nn.InstanceNorm2d(3)(lib.ones(3, 4)),
    lambda f, lib: lib.nn.InstanceNorm2d(3, affine=True)(lib.ones(2, 4, 3, 3)),
    lambda f, lib: f.local_response_norm(lib.ones(2, 3), 2),
    lambda f, lib: f.avg_pool3d(lib.ones(3, 4, 4), 2),
    lambda f, lib: f.avg_pool3d(lib.ones(1, 2, 3, 4, 4), 2, 0),
    lambda f, lib: f.avg_pool3d(lib.ones(1, 2, 3, 4, 4), 2, 1, 2),
    lambda f, lib: f.avg_pool3d(lib.ones(1, 2, 3, 4, 4), 5),
    lambda f, lib: f.avg_pool3d(lib.ones(1, 2, 3, 4, 4), (4, 1, 1), padding=(2, 0, 0)),
    lambda f, lib: f.avg_pool3d(lib.ones(1, 2, 3, 4, 4), 2, divisor_override=0),
    lambda f, lib: f.avg_pool3d(lib.ones(1, 2, 3, 4, 4), 2, padding=-1),
    lambda f, lib: f.avg_pool3d(lib.ones(2, 3, 0, 4, 4), 2),
    lambda f, lib: f.avg_pool3d(lib.ones(1, 2, 3, 4, 4), 2.5),
]


def _refusal(call) -> tuple[str, str]:
    with pytest.raises(Exception) as info:
        call()
    return type(info.value).__name__, str(info.value).replace("torch.Size", "Size").replace("minigrad.Size", "Size")


@pytest.mark.parametrize("k", range(len(WORDED)))
def test_refusals_are_pytorchs_words(k: int) -> None:
    assert _refusal(lambda: WORDED[k](F, mg)) == _refusal(lambda: WORDED[k](TF, torch))


HALF_WITH_FLOAT_PARAMETERS = {
    "group_norm": lambda f, x, w, b: f.group_norm(x, 2, w, b),
    "instance_norm": lambda f, x, w, b: f.instance_norm(x, weight=w, bias=b),
    "batch_norm": lambda f, x, w, b: f.batch_norm(x, None, None, w, b, training=True),
}


@pytest.mark.parametrize("fn", sorted(HALF_WITH_FLOAT_PARAMETERS))
@pytest.mark.parametrize("needs_weight_grad", [True, False])
def test_a_half_input_with_float_parameters(fn: str, needs_weight_grad: bool) -> None:
    """A half input's float32 weight and bias (PyTorch's CPU allows them): a half result and input gradient,
    float32 parameter gradients, as PyTorch's."""
    dtypes = []
    for lib, f in ((mg, F), (torch, TF)):
        x = lib.tensor(r(2, 4, 3), dtype=lib.float16, requires_grad=True)
        w = lib.tensor(r(4), dtype=lib.float32, requires_grad=needs_weight_grad)
        b = lib.tensor(r(4), dtype=lib.float32, requires_grad=True)
        y = HALF_WITH_FLOAT_PARAMETERS[fn](f, x, w, b)
        (y * y).sum().backward()
        dtypes.append([str(t).split(".")[-1] for t in (y.dtype, x.grad.dtype, b.grad.dtype,
                                                        w.grad.dtype if needs_weight_grad else None)])
    assert dtypes[0] == dtypes[1]


def test_a_refused_batch_norm_leaves_the_running_statistics() -> None:
    """A running variance of the wrong size is refused before the running mean is updated (it was scaled by
    ``1 - momentum``, then the update refused)."""
    rm, rv = mg.ones(4), mg.ones(3)
    with pytest.raises(RuntimeError, match="running_var should contain 4 elements not 3"):
        F.batch_norm(mg.ones(2, 4, 3), rm, rv, training=True)
    assert rm.tolist() == [1.0] * 4


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_the_running_statistics_are_pytorchs_whichever_way_they_are_updated(dtype: str) -> None:
    """``F.batch_norm`` in training updates the running mean and the running (unbiased) variance from the
    batch's moments (one ``batch_norm_moments`` op): with a recorder each step is an op (``mul_``, ``mul``,
    ``add_``, as a trace shows them), without one the same steps are the backend's multi-tensor kernel over
    both statistics; either way PyTorch's values, and the same versions."""
    xs = [RNG.normal(size=(4, 3, 5)).astype(dtype) for _ in range(3)]
    tdt = getattr(torch, dtype)
    rm_t, rv_t = torch.zeros(3, dtype=tdt), torch.ones(3, dtype=tdt)
    got = []
    for recorded in (False, True):
        rm, rv = mg.zeros(3, dtype=dtype), mg.ones(3, dtype=dtype)
        for x in xs:
            if recorded:
                with mg.trace() as tr:
                    F.batch_norm(mg.tensor(x), rm, rv, training=True, momentum=0.3)
                ops = [e.op for e in tr.events if e.kind == "api.call"]
                # (an in-place op's call is its op's: mul_ records mul, then its in-place write)
                assert ops == ["batch_norm", "batch_norm_moments"] + ["mul", "mul", "add"] * 2, ops
            else:
                F.batch_norm(mg.tensor(x), rm, rv, training=True, momentum=0.3)
        got.append((rm.numpy(), rv.numpy(), rm._version, rv._version))
    for x in xs:
        TF.batch_norm(torch.tensor(x), rm_t, rv_t, training=True, momentum=0.3)
    tol = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-14}[dtype]
    for rm, rv, *versions in got:
        np.testing.assert_allclose(rm, rm_t.numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(rv, rv_t.numpy(), rtol=tol, atol=tol)
    np.testing.assert_array_equal(got[0][0], got[1][0])
    np.testing.assert_array_equal(got[0][1], got[1][1])
    assert got[0][2:] == got[1][2:] == (6, 6)  # two in-place steps a call, either way


def test_a_running_statistic_with_a_live_view_is_updated_by_the_ops() -> None:
    """A view of the running mean must see the update (and get its fresh node, as after any in-place op):
    the multi-tensor kernel is not taken then; the values are the other path's."""
    x = mg.tensor(RNG.normal(size=(6, 2)))
    rm, rv = mg.zeros(2, dtype="float64"), mg.ones(2, dtype="float64")
    first = rm[:1]
    F.batch_norm(x, rm, rv, training=True)
    rm2, rv2 = mg.zeros(2, dtype="float64"), mg.ones(2, dtype="float64")
    F.batch_norm(x, rm2, rv2, training=True)
    assert first.tolist() == rm[:1].tolist() == rm2[:1].tolist()
    assert rv.tolist() == rv2.tolist() and rm._version == rm2._version == 2


def test_batch_norm_moments_are_pytorchs_var_mean_over_all_but_the_channels() -> None:
    """``batch_norm_moments`` (the running statistics' update): each channel's mean and unbiased variance,
    as ``torch.var_mean`` over every dim but 1 gives them; 2-D to 5-D inputs."""
    for shape in ((5, 3), (4, 2, 6), (2, 3, 4, 5), (2, 2, 3, 2, 2)):
        x = RNG.normal(size=shape)
        mean, variance = mg.OPS["batch_norm_moments"](mg.tensor(x))
        dims = (0,) + tuple(range(2, len(shape)))
        var_t, mean_t = torch.var_mean(torch.tensor(x), dim=dims)
        np.testing.assert_allclose(mean.numpy(), mean_t.numpy(), rtol=1e-13, atol=1e-14)
        np.testing.assert_allclose(variance.numpy(), var_t.numpy(), rtol=1e-13, atol=1e-14)


def test_shapes_that_do_not_broadcast() -> None:
    leaves_no_node(lambda: F.cosine_similarity(mg.ones(2, 3), mg.ones(4, 3)), ValueError)
    leaves_no_node(lambda: F.pairwise_distance(mg.ones(2, 3), mg.ones(2, 4)), ValueError)


MODULES = [
    ("GroupNorm", (3, 6), {}, [(2, 6, 4)]), ("GroupNorm", (2, 4), {"affine": False}, [(2, 4, 3, 3)]),
    ("GroupNorm", (2, 4), {"bias": False}, [(2, 4, 3)]),
    ("InstanceNorm2d", (3,), {"affine": True}, [(2, 3, 4, 4)]), ("InstanceNorm1d", (3,), {}, [(3, 6)]),
    ("InstanceNorm2d", (3,), {"track_running_stats": True}, [(2, 3, 4, 4)]),
    ("CosineSimilarity", (), {"dim": 0}, [(4, 3), (4, 3)]), ("PairwiseDistance", (), {"p": 1.0}, [(4, 3), (4, 3)]),
    ("ZeroPad2d", ((1, 2, 0, 1),), {}, [(1, 2, 3, 3)]), ("ConstantPad1d", (2, 1.5), {}, [(2, 3, 4)]),
    ("ReflectionPad2d", (2,), {}, [(1, 2, 3, 4)]), ("ReplicationPad1d", ((1, 3),), {}, [(2, 3, 4)]),
    ("CircularPad2d", (1,), {}, [(1, 2, 3, 3)]), ("ReflectionPad1d", (2,), {}, [(2, 4)]),
]


@pytest.mark.parametrize("name,args,kw,shapes", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_modules(name: str, args: tuple, kw: dict, shapes: list) -> None:
    t = getattr(torch.nn, name)(*args, **kw).double()
    has_params = bool(list(t.parameters())) or bool(list(t.buffers()))
    m = getattr(mg.nn, name)(*args, **kw, **({"dtype": mg.float64} if has_params else {}))
    assert repr(m) == repr(t)
    assert {k: tuple(v.shape) for k, v in m.state_dict().items()} == {k: tuple(v.shape) for k, v in t.state_dict().items()}
    with torch.no_grad():
        for p in t.parameters():
            p.copy_(torch.tensor(r(*p.shape)))
    m.load_state_dict({k: mg.tensor(v.numpy(), dtype=mg.float64 if v.is_floating_point() else None)
                       for k, v in t.state_dict().items()})
    compare(lambda *a: m(*a), lambda *a: t(*a), [r(*s) for s in shapes])
    for k, v in t.state_dict().items():  # running statistics updated alike
        np.testing.assert_allclose(m.state_dict()[k].numpy(), v.numpy(), rtol=1e-6)


@pytest.mark.parametrize("shape,size", [((2, 6, 4, 4), 3), ((2, 5, 7), 2), ((1, 4, 2, 3, 2), 5)])
def test_local_response_norm(shape: tuple, size: int) -> None:
    compare(lambda a: F.local_response_norm(a, size, alpha=0.1, beta=0.6, k=2.0),
            lambda a: TF.local_response_norm(a, size, alpha=0.1, beta=0.6, k=2.0), [r(*shape)])
    m, t = mg.nn.LocalResponseNorm(size), torch.nn.LocalResponseNorm(size)
    assert repr(m) == repr(t)
    compare(lambda a: m(a), lambda a: t(a), [r(*shape)])


def test_local_response_norm_needs_3d() -> None:
    leaves_no_node(lambda: F.local_response_norm(mg.ones(2, 3), 2), ValueError)


@pytest.mark.parametrize("shape,normalized", [((2, 5, 8), (8,)), ((2, 5, 8), (5, 8)), ((4,), (4,)), ((3, 0, 2), (2,))])
@pytest.mark.parametrize("affine", [False, True])
@pytest.mark.parametrize("eps", [None, 1e-3])
def test_rms_norm(shape: tuple, normalized: tuple, affine: bool, eps) -> None:
    extra = [r(*normalized)] if affine else []
    compare(lambda x, *w: F.rms_norm(x, normalized, *w, eps=eps), lambda x, *w: TF.rms_norm(x, normalized, *w, eps=eps),
            [r(*shape)] + extra)


def test_rms_norm_of_a_half_is_computed_in_float32_and_cast_back() -> None:
    x = r(2, 3, 8).astype(np.float16)
    got = F.rms_norm(mg.tensor(x), (8,))
    want = TF.rms_norm(torch.tensor(x), (8,))
    assert got.dtype == mg.float16
    np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("label, call", [
    ("shape", lambda f, t: f.rms_norm(t(2, 3), (4,))),
    ("weight", lambda f, t: f.rms_norm(t(2, 3), (3,), t(2))),
    ("int shape", lambda f, t: f.rms_norm(t(2, 3), 3)),
])
def test_rms_norm_errors_have_torch_classes_and_leave_no_node(label: str, call) -> None:
    want = error_class(lambda: call(TF, lambda *s: torch.ones(*s, requires_grad=True)))
    got = error_class(lambda: call(F, lambda *s: mg.ones(*s, requires_grad=True)))
    assert want is not None and got is want, (got, want)
    leaves_no_node(lambda: call(F, lambda *s: mg.ones(*s, requires_grad=True)))


def test_rms_norm_module_matches_torch() -> None:
    x = r(2, 5, 8)
    for args, kw in (((8,), {}), (([5, 8],), {"eps": 1e-5, "elementwise_affine": False})):
        m, t = mg.nn.RMSNorm(*args, dtype=mg.float64, **kw), torch.nn.RMSNorm(*args, dtype=torch.float64, **kw)
        assert repr(m) == repr(t) and sorted(m.state_dict()) == sorted(t.state_dict())
        np.testing.assert_allclose(m(mg.tensor(x)).detach().numpy(), t(torch.tensor(x)).detach().numpy(), rtol=1e-12)
