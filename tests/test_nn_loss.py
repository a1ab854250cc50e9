"""The losses of ``torch.nn.functional`` and their modules, against PyTorch (values, gradients, errors)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from torch_compare import compare, error_class, leaves_no_node

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(7)
A, B = RNG.normal(size=(4, 5)), RNG.normal(size=(4, 5))
A[0, 0] = B[0, 0]  # a zero difference: the gradient of |d| there is 0 in both
P, Q = RNG.uniform(0.05, 0.95, size=(4, 5)), RNG.uniform(0, 1, size=(4, 5))
REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kw", [("l1_loss", {}), ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.5}),
                                     ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {}),
                                     ("huber_loss", {"delta": 0.3})])
def test_regression_losses(name: str, kw: dict, reduction: str) -> None:
    compare(getattr(F, name), getattr(TF, name), [A, B], reduction=reduction, **kw)


def test_regression_losses_broadcast_the_target() -> None:
    with pytest.warns(UserWarning):
        compare(F.l1_loss, TF.l1_loss, [A, B[:1]])


def test_legacy_size_average_and_reduce() -> None:
    for sa, rd in [(False, None), (None, False), (True, True)]:
        with pytest.warns(UserWarning):
            compare(lambda a, b: F.l1_loss(a, b, sa, rd), lambda a, b: TF.l1_loss(a, b, sa, rd), [A, B])


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction: str, log_target: bool) -> None:
    inp = np.log(RNG.dirichlet(np.ones(5), size=4))
    tgt = RNG.dirichlet(np.ones(5), size=4)
    if log_target:
        tgt = np.log(RNG.dirichlet(np.ones(5), size=4))
    compare(F.kl_div, TF.kl_div, [inp, tgt], reduction=reduction, log_target=log_target)


def test_kl_div_zero_target_adds_nothing() -> None:
    """xlogy(0, 0) = 0: a zero target contributes 0 (the target needs no gradient here: PyTorch's is NaN there)."""
    inp = np.log(RNG.dirichlet(np.ones(5), size=4))
    tgt = RNG.dirichlet(np.ones(5), size=4)
    tgt[1, 2] = 0.0
    compare(lambda i, target: F.kl_div(i, target, reduction="batchmean"),
            lambda i, target: TF.kl_div(i, target, reduction="batchmean"), [inp], target=tgt)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy(reduction: str, weighted: bool) -> None:
    kw = {"weight": RNG.uniform(0.5, 2, size=(5,))} if weighted else {}
    compare(F.binary_cross_entropy, TF.binary_cross_entropy, [P, Q], reduction=reduction, **kw)


def test_binary_cross_entropy_at_saturated_probabilities() -> None:
    """A float32 sigmoid gives exactly 0 or 1: the loss is clamped and the input's gradient stays finite."""
    p = np.array([0.0, 1.0, 0.5, 1.0])
    t = np.array([1.0, 0.0, 0.3, 1.0])
    compare(F.binary_cross_entropy, TF.binary_cross_entropy, [p, t])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("kw", [{}, {"pos_weight": np.array([0.5, 1, 2, 3, 4.0])}, {"weight": np.linspace(0.5, 2, 5)},
                                {"weight": np.ones((4, 1)) * 2, "pos_weight": np.array([3.0])}])
def test_binary_cross_entropy_with_logits(reduction: str, kw: dict) -> None:
    x = A * 10  # large logits: the stable form
    x[0, 1] = 0.0
    compare(F.binary_cross_entropy_with_logits, TF.binary_cross_entropy_with_logits, [x, Q], reduction=reduction, **kw)


def test_bce_with_logits_float32_matches_bce_of_sigmoid() -> None:
    x = mg.tensor([-30.0, -1.0, 0.0, 2.0, 40.0])
    t = mg.tensor([0.0, 1.0, 0.5, 1.0, 1.0])
    got = F.binary_cross_entropy_with_logits(x, t, reduction="none").numpy()
    want = TF.binary_cross_entropy_with_logits(torch.tensor(x.numpy()), torch.tensor(t.numpy()), reduction="none")
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-6)


def _t(*shape: int, low: float = 0.1, high: float = 0.9):
    return lambda lib: lib.tensor(np.random.default_rng(0).uniform(low, high, size=shape))


ERRORS = [
    ("bce shape", "binary_cross_entropy", lambda lib: ((_t(3, 4)(lib), _t(3, 1)(lib)), {})),
    ("bce range", "binary_cross_entropy", lambda lib: ((_t(3, low=1.5, high=2)(lib), _t(3)(lib)), {})),
    ("bce weight", "binary_cross_entropy", lambda lib: ((_t(3, 4)(lib), _t(3, 4)(lib)), {"weight": _t(3)(lib)})),
    ("bce dtype", "binary_cross_entropy", lambda lib: ((_t(3)(lib), _t(3)(lib).float()), {})),
    ("bcel shape", "binary_cross_entropy_with_logits", lambda lib: ((_t(3, 4)(lib), _t(3, 1)(lib)), {})),
    ("bcel pos_weight", "binary_cross_entropy_with_logits",
     lambda lib: ((_t(3, 4)(lib), _t(3, 4)(lib)), {"pos_weight": _t(3)(lib)})),
    ("l1 reduction", "l1_loss", lambda lib: ((_t(3)(lib), _t(3)(lib)), {"reduction": "avg"})),
    ("huber delta", "huber_loss", lambda lib: ((_t(3)(lib), _t(3)(lib)), {"delta": 0.0})),
    ("smooth_l1 beta", "smooth_l1_loss", lambda lib: ((_t(3)(lib), _t(3)(lib)), {"beta": -1.0})),
    ("kl reduction", "kl_div", lambda lib: ((_t(3)(lib), _t(3)(lib)), {"reduction": "batch"})),
    ("gaussian var size", "gaussian_nll_loss", lambda lib: ((lib.ones(3, 2), lib.ones(3, 2), lib.ones(3, 3)), {})),
    ("gaussian var negative", "gaussian_nll_loss", lambda lib: ((lib.ones(3, 2), lib.ones(3, 2), -lib.ones(3, 2)), {})),
    ("triplet dims", "triplet_margin_loss", lambda lib: ((lib.ones(3, 2), lib.ones(3, 2), lib.ones(2)), {})),
    ("cosine embedding target", "cosine_embedding_loss", lambda lib: ((lib.ones(3, 2), lib.ones(3, 2), lib.ones(3, 1)), {})),
    ("margin reduction", "margin_ranking_loss", lambda lib: ((lib.ones(3), lib.ones(3), lib.ones(3)), {"reduction": "x"})),
]


@pytest.mark.parametrize("label,name,make", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_have_torch_classes_and_leave_no_node(label: str, name: str, make) -> None:
    t_args, t_kw = make(torch)
    m_args, m_kw = make(mg)
    want = error_class(lambda: getattr(TF, name)(*t_args, **t_kw))
    assert want is not None
    leaves_no_node(lambda: getattr(F, name)(*m_args, **m_kw), want)


def test_shape_mismatch_that_cannot_broadcast_is_a_value_error() -> None:
    """PyTorch says RuntimeError from its broadcasting; minigrad's shape errors are that class and also
    ValueError, which they were before (minigrad/errors.py)."""
    leaves_no_node(lambda: F.l1_loss(mg.ones(3, 4), mg.ones(5)), ValueError)
    leaves_no_node(lambda: F.l1_loss(mg.ones(3, 4), mg.ones(5)), RuntimeError)


def test_wrong_types() -> None:
    with pytest.raises(TypeError, match="l1_loss"):
        F.l1_loss([1.0], mg.ones(1))
    with pytest.raises(TypeError, match="kl_div"):
        F.kl_div(mg.ones(1), mg.ones(1), log_target="no")


MODULES = [
    ("L1Loss", {}, "A"), ("L1Loss", {"reduction": "sum"}, "A"), ("SmoothL1Loss", {"beta": 0.5}, "A"),
    ("HuberLoss", {"delta": 0.5}, "A"), ("KLDivLoss", {"reduction": "batchmean"}, "KL"),
    ("KLDivLoss", {"log_target": True}, "KLL"), ("BCELoss", {}, "P"), ("BCELoss", {"weight": "w"}, "P"),
    ("BCEWithLogitsLoss", {}, "A"), ("BCEWithLogitsLoss", {"weight": "w", "pos_weight": "w"}, "A"),
    ("NLLLoss", {}, "NLL"), ("NLLLoss", {"weight": "w", "ignore_index": 1}, "NLL"),
]


def _inputs(kind: str) -> list[np.ndarray]:
    if kind == "A":
        return [A, Q]
    if kind == "P":
        return [P, Q]
    if kind == "KL":
        return [np.log(P / P.sum(1, keepdims=True)), Q / Q.sum(1, keepdims=True)]
    if kind == "KLL":
        return [np.log(P), np.log(Q + 0.1)]
    return [np.log(P / P.sum(1, keepdims=True)), np.array([0, 1, 4, 1])]


@pytest.mark.parametrize("name,kw,kind", MODULES, ids=[f"{m[0]}-{i}" for i, m in enumerate(MODULES)])
def test_loss_module_matches_torch(name: str, kw: dict, kind: str) -> None:
    w = np.linspace(0.5, 2.0, 5)
    m = getattr(mg.nn, name)(**{k: (mg.tensor(w, dtype=mg.float64) if v == "w" else v) for k, v in kw.items()})
    t = getattr(torch.nn, name)(**{k: (torch.tensor(w) if v == "w" else v) for k, v in kw.items()})
    assert list(m.state_dict()) == list(t.state_dict())
    m.load_state_dict({k: mg.tensor(v.numpy(), dtype=mg.float64) for k, v in t.state_dict().items()})
    compare(lambda a, b: m(a, b), lambda a, b: t(a, b), _inputs(kind))


# -- margin, embedding and likelihood losses ----------------------------------------------

SIGNS = np.where(RNG.random(6) > 0.5, 1.0, -1.0)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_and_embedding_losses(reduction: str) -> None:
    x1, x2, d = RNG.normal(size=6), RNG.normal(size=6), RNG.uniform(0, 2, size=6)
    compare(lambda a, b, target: F.margin_ranking_loss(a, b, target, 0.3, reduction=reduction),
            lambda a, b, target: TF.margin_ranking_loss(a, b, target, 0.3, reduction=reduction), [x1, x2], target=SIGNS)
    compare(lambda a, target: F.hinge_embedding_loss(a, target, 1.5, reduction=reduction),
            lambda a, target: TF.hinge_embedding_loss(a, target, 1.5, reduction=reduction), [d], target=SIGNS)
    compare(lambda a, target: F.soft_margin_loss(a, target, reduction=reduction),
            lambda a, target: TF.soft_margin_loss(a, target, reduction=reduction), [x1], target=SIGNS)
    e1, e2 = RNG.normal(size=(6, 4)), RNG.normal(size=(6, 4))
    compare(lambda a, b, target: F.cosine_embedding_loss(a, b, target, 0.2, reduction=reduction),
            lambda a, b, target: TF.cosine_embedding_loss(a, b, target, 0.2, reduction=reduction), [e1, e2], target=SIGNS)


@pytest.mark.parametrize("swap", [False, True])
@pytest.mark.parametrize("p", [1.0, 2.0])
def test_triplet_margin_loss(swap: bool, p: float) -> None:
    a, pos, neg = (RNG.normal(size=(5, 4)) for _ in range(3))
    compare(lambda *t: F.triplet_margin_loss(*t, margin=0.5, p=p, swap=swap),
            lambda *t: TF.triplet_margin_loss(*t, margin=0.5, p=p, swap=swap), [a, pos, neg])


@pytest.mark.parametrize("log_input,full", [(True, False), (False, False), (True, True), (False, True)])
def test_poisson_nll_loss(log_input: bool, full: bool) -> None:
    x = RNG.uniform(0.1, 3, size=(4, 5))
    t = RNG.integers(0, 5, size=(4, 5)).astype(np.float64)
    compare(lambda a, target: F.poisson_nll_loss(a, target, log_input, full),
            lambda a, target: TF.poisson_nll_loss(a, target, log_input, full), [x], target=t)


@pytest.mark.parametrize("var_shape", [(4, 5), (4,), (4, 1), "float"])
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_loss(var_shape, full: bool) -> None:
    x, t = RNG.normal(size=(4, 5)), RNG.normal(size=(4, 5))
    if var_shape == "float":
        compare(lambda a, b: F.gaussian_nll_loss(a, b, 0.7, full), lambda a, b: TF.gaussian_nll_loss(a, b, 0.7, full), [x, t])
        return
    var = RNG.uniform(0.1, 2, size=var_shape)
    var.flat[0] = 1e-8  # below eps: clamped for the value, the gradient passes as in PyTorch
    compare(lambda a, b, v: F.gaussian_nll_loss(a, b, v, full), lambda a, b, v: TF.gaussian_nll_loss(a, b, v, full),
            [x, t, var])


MORE_MODULES = [
    ("MarginRankingLoss", {"margin": 0.2}, 3), ("HingeEmbeddingLoss", {"margin": 2.0}, 2), ("SoftMarginLoss", {}, 2),
    ("CosineEmbeddingLoss", {"margin": 0.1}, 3), ("TripletMarginLoss", {"swap": True}, 3),
    ("PoissonNLLLoss", {"full": True}, 2), ("GaussianNLLLoss", {"full": True}, 3),
]


@pytest.mark.parametrize("name,kw,n", MORE_MODULES, ids=[m[0] for m in MORE_MODULES])
def test_more_loss_modules(name: str, kw: dict, n: int) -> None:
    m, t = getattr(mg.nn, name)(**kw), getattr(torch.nn, name)(**kw)
    assert list(m.state_dict()) == list(t.state_dict()) == []
    if name in ("CosineEmbeddingLoss",):
        args = [RNG.normal(size=(6, 4)), RNG.normal(size=(6, 4))]
        compare(lambda a, b, target: m(a, b, target), lambda a, b, target: t(a, b, target), args, target=SIGNS)
    elif name in ("MarginRankingLoss",):
        compare(lambda a, b, target: m(a, b, target), lambda a, b, target: t(a, b, target),
                [RNG.normal(size=6), RNG.normal(size=6)], target=SIGNS)
    elif name in ("HingeEmbeddingLoss", "SoftMarginLoss"):
        compare(lambda a, target: m(a, target), lambda a, target: t(a, target), [RNG.uniform(0, 2, size=6)], target=SIGNS)
    elif name == "PoissonNLLLoss":
        compare(lambda a, target: m(a, target), lambda a, target: t(a, target), [RNG.normal(size=6)],
                target=RNG.integers(0, 4, size=6).astype(np.float64))
    else:
        compare(lambda *a: m(*a), lambda *a: t(*a), [RNG.normal(size=(5, 4)), RNG.normal(size=(5, 4)),
                                                     RNG.uniform(0.5, 1, size=(5, 4))])


@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_one_samples_loss_of_zero_is_positive_zero_as_pytorchs(loss):
    """PyTorch computes an unbatched sample's loss from a 0, as its sums: ``-0.0`` becomes ``0.0`` (the GPU
    fuzzer found it through ``atan2``, whose result turns on the sign of a zero); a batch keeps ``-0.0``."""
    torch = pytest.importorskip("torch")
    for x, t in (([0.0], 0), ([[0.0]], [0])):
        ours = getattr(mg.nn.functional, loss)(mg.tensor(x, dtype=mg.float64), mg.tensor(t), reduction="none")
        theirs = getattr(torch.nn.functional, loss)(torch.tensor(x, dtype=torch.float64), torch.tensor(t),
                                                    reduction="none")
        assert np.signbit(ours.numpy()).tolist() == np.signbit(theirs.numpy()).tolist()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multilabel_soft_margin_loss_and_its_module(reduction: str, weighted: bool) -> None:
    x, t = RNG.normal(size=(5, 4)), (RNG.uniform(size=(5, 4)) > 0.5).astype(np.float64)
    w = RNG.uniform(0.5, 2, size=4) if weighted else None
    kw = {"weight": w} if weighted else {}
    compare(F.multilabel_soft_margin_loss, TF.multilabel_soft_margin_loss, [x, t], reduction=reduction, **kw)
    m = mg.nn.MultiLabelSoftMarginLoss(weight=None if w is None else mg.tensor(w), reduction=reduction)
    tm = torch.nn.MultiLabelSoftMarginLoss(weight=None if w is None else torch.tensor(w), reduction=reduction)
    assert list(m.state_dict()) == list(tm.state_dict())
    compare(lambda a, b: m(a, b), lambda a, b: tm(a, b), [x, t])


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_l1_and_mse_loss_broadcast_and_weight_as_pytorchs(name: str, reduction: str) -> None:
    with pytest.warns(UserWarning):  # PyTorch's warning about the broadcast target
        compare(getattr(F, name), getattr(TF, name), [RNG.normal(size=(3, 4)), RNG.normal(size=4)], reduction=reduction)
    compare(getattr(F, name), getattr(TF, name), [RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))], reduction=reduction,
            weight=RNG.uniform(0.5, 2, size=(3, 4)))


@pytest.mark.parametrize("var", [0.5, "full", "last dim", "one dim of 1", "small"])
def test_gaussian_nll_loss_clamps_a_clone_of_var(var) -> None:
    x, t = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    v = {"full": RNG.uniform(0.5, 1, size=(3, 4)), "last dim": RNG.uniform(0.5, 1, size=3),
         "one dim of 1": RNG.uniform(0.5, 1, size=(1, 4)), "small": np.full((3, 4), 1e-8)}.get(var, var)
    if isinstance(v, float):
        compare(lambda a, b: F.gaussian_nll_loss(a, b, v), lambda a, b: TF.gaussian_nll_loss(a, b, v), [x, t])
    else:
        compare(F.gaussian_nll_loss, TF.gaussian_nll_loss, [x, t, v], rtol=1e-6)


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multi_margin_loss_and_its_module(p: int, reduction: str) -> None:
    x, t, w = RNG.normal(size=(5, 4)), np.array([0, 2, 3, 1, 1]), RNG.uniform(0.5, 2, size=4)
    compare(lambda a: F.multi_margin_loss(a, mg.tensor(t), p=p, margin=0.7, weight=mg.tensor(w), reduction=reduction),
            lambda a: TF.multi_margin_loss(a, torch.tensor(t), p=p, margin=0.7, weight=torch.tensor(w),
                                           reduction=reduction), [x])
    compare(lambda a: F.multi_margin_loss(a, mg.tensor(t[0]), p=p, reduction=reduction),
            lambda a: TF.multi_margin_loss(a, torch.tensor(t[0]), p=p, reduction=reduction), [x[0]])
    m, tm = mg.nn.MultiMarginLoss(p=p, reduction=reduction), torch.nn.MultiMarginLoss(p=p, reduction=reduction)
    assert repr(m) == repr(tm) and list(m.state_dict()) == list(tm.state_dict())
    compare(lambda a: m(a, mg.tensor(t)), lambda a: tm(a, torch.tensor(t)), [x])


@pytest.mark.parametrize("label, call", [
    ("p", lambda f, x, t: f.multi_margin_loss(x(3, 4), t([0, 1, 2]), p=3)),
    ("target range", lambda f, x, t: f.multi_margin_loss(x(3, 4), t([0, 1, 4]))),
    ("target size", lambda f, x, t: f.multi_margin_loss(x(3, 4), t([0, 1]))),
    ("weight dims", lambda f, x, t: f.multi_margin_loss(x(3, 4), t([0, 1, 2]), weight=x(2, 2).detach())),
    ("weight size", lambda f, x, t: f.multi_margin_loss(x(3, 4), t([0, 1, 2]), weight=x(3).detach())),
    ("weight grad", lambda f, x, t: f.multi_margin_loss(x(3, 4), t([0, 1, 2]), weight=x(4))),
    ("3-D", lambda f, x, t: f.multi_margin_loss(x(2, 3, 4), t([0, 1]))),
])
def test_multi_margin_loss_errors_have_torch_classes_and_leave_no_node(label: str, call) -> None:
    want = error_class(lambda: call(TF, lambda *s: torch.ones(*s, requires_grad=True), torch.tensor))
    got = error_class(lambda: call(F, lambda *s: mg.ones(*s, requires_grad=True), mg.tensor))
    assert want is not None and got is want, (label, got, want)
    leaves_no_node(lambda: call(F, lambda *s: mg.ones(*s, requires_grad=True), mg.tensor))


def test_multi_margin_loss_has_no_second_derivative_as_in_torch() -> None:
    """PyTorch's ``multi_margin_loss_backward`` has no derivative: its node is ``NotImplemented`` and a backward
    through it raises (minigrad once gave ``None`` there, silently)."""
    grads = []
    for lib in (torch, mg):
        x = lib.zeros(3, 2, requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.multi_margin_loss(x, lib.tensor([0, 1, 1])), x, create_graph=True)
        assert type(g.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::multi_margin_loss_backward is not implemented"):
            g.sum().backward()
        grads.append(g.detach().numpy())
    np.testing.assert_allclose(grads[1], grads[0])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_multilabel_margin_loss_and_its_module(reduction: str) -> None:
    """Each row's targets are read up to its first -1 (a repeated target counts twice, as in PyTorch's loop)."""
    x = RNG.normal(size=(4, 5))
    t = np.array([[3, 0, -1, 1, 2], [4, 4, 1, -1, -1], [-1, 0, 1, 2, 3], [0, 1, 2, 3, 4]])
    compare(lambda a: F.multilabel_margin_loss(a, mg.tensor(t), reduction=reduction),
            lambda a: TF.multilabel_margin_loss(a, torch.tensor(t), reduction=reduction), [x])
    compare(lambda a: F.multilabel_margin_loss(a, mg.tensor(t[1]), reduction=reduction),
            lambda a: TF.multilabel_margin_loss(a, torch.tensor(t[1]), reduction=reduction), [x[1]])
    m, tm = mg.nn.MultiLabelMarginLoss(reduction=reduction), torch.nn.MultiLabelMarginLoss(reduction=reduction)
    assert repr(m) == repr(tm)
    compare(lambda a: m(a, mg.tensor(t)), lambda a: tm(a, torch.tensor(t)), [x])


@pytest.mark.parametrize("label, call", [
    ("target range", lambda f, x, t: f.multilabel_margin_loss(x(2, 3), t([[0, 1, 3], [0, -1, 0]]))),
    ("target below -1", lambda f, x, t: f.multilabel_margin_loss(x(2, 3), t([[0, 1, 2], [-2, 0, 0]]))),
    ("target size", lambda f, x, t: f.multilabel_margin_loss(x(2, 3), t([[0, 1, 2]]))),
    ("target dtype", lambda f, x, t: f.multilabel_margin_loss(x(2, 3), t(np.array([[0, 1, 2], [0, 1, 2]], dtype=np.int32)))),
    ("3-D", lambda f, x, t: f.multilabel_margin_loss(x(1, 2, 3), t([[[0, 1, 2], [0, 1, 2]]]))),
    ("no classes", lambda f, x, t: f.multilabel_margin_loss(x(2, 0), t(np.zeros((2, 0), dtype=np.int64)))),
])
def test_multilabel_margin_loss_errors_have_torch_classes_and_leave_no_node(label: str, call) -> None:
    want = error_class(lambda: call(TF, lambda *s: torch.ones(*s, requires_grad=True), torch.tensor))
    got = error_class(lambda: call(F, lambda *s: mg.ones(*s, requires_grad=True), mg.tensor))
    assert want is not None and got is want, (label, got, want)
    leaves_no_node(lambda: call(F, lambda *s: mg.ones(*s, requires_grad=True), mg.tensor))


def test_multilabel_margin_loss_has_no_second_derivative_as_in_torch() -> None:
    """PyTorch's ``multilabel_margin_loss_backward`` has no derivative: its node is ``NotImplemented``."""
    grads = []
    for lib in (torch, mg):
        x = lib.tensor([[0.1, 0.5, -0.3], [0.2, 0.2, 0.9]], requires_grad=True)
        loss = lib.nn.functional.multilabel_margin_loss(x, lib.tensor([[0, -1, 1], [2, 1, -1]]))
        (g,) = lib.autograd.grad(loss, x, create_graph=True)
        assert type(g.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::multilabel_margin_loss_backward is not implemented"):
            g.sum().backward()
        grads.append(g.detach().numpy())
    np.testing.assert_allclose(grads[1], grads[0])
