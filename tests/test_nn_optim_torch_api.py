"""nn, optim and save/load with PyTorch's API.

Functional forms get a float64 finite-difference row and a PyTorch-oracle
row; modules, optimizers and schedulers are compared with PyTorch step by
step where PyTorch is installed; state dicts and files are checked for
round trips, PyTorch's key reports, and that no pickle is ever read.
"""

from __future__ import annotations

import math
import zlib
from typing import Any

import numpy as np
import pytest

import minigrad as mg
from gradcheck import gradcheck

F = mg.nn.functional
F64 = mg.float64


def T(a: Any, rg: bool = True) -> mg.Tensor:
    return mg.tensor(np.asarray(a, dtype=np.float64), dtype=F64, requires_grad=rg)


def U(*shape: int, low: float = -2.0, high: float = 2.0):
    return lambda rng: rng.uniform(low, high, size=shape)


def IDX(n: Any, c: int, ignore: bool = False):
    def make(rng: np.random.Generator) -> np.ndarray:
        t = rng.integers(0, c, size=n)
        if ignore:
            t.flat[::3] = -100
        return t

    return make


def PROBS(*shape: int):
    def make(rng: np.random.Generator) -> np.ndarray:
        p = rng.uniform(0.1, 1.0, size=shape)
        return p / p.sum(axis=1, keepdims=True)

    return make


# (id, minigrad fn, torch fn (torch, *args), makers, which inputs are differentiable)
ROWS = [
    ("layer_norm", lambda x, w, b: F.layer_norm(x, (4,), w, b), lambda th, x, w, b: th.nn.functional.layer_norm(x, (4,), w, b),
     [U(3, 4), U(4), U(4)], (0, 1, 2)),
    ("layer_norm-2d-shape", lambda x: F.layer_norm(x, (3, 4)), lambda th, x: th.nn.functional.layer_norm(x, (3, 4)),
     [U(2, 3, 4)], (0,)),
    ("batch_norm-train-2d", lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
     lambda th, x, w, b: th.nn.functional.batch_norm(x, None, None, w, b, training=True), [U(4, 3, 2, 2), U(3), U(3)],
     (0, 1, 2)),
    ("batch_norm-eval", lambda x, m, v: F.batch_norm(x, m, v, training=False),
     lambda th, x, m, v: th.nn.functional.batch_norm(x, m, v, training=False), [U(4, 3), U(3), U(3, low=0.5, high=2)], (0,)),
    ("embedding", lambda w, i: F.embedding(i, w), lambda th, w, i: th.nn.functional.embedding(i, w),
     [U(5, 3), lambda rng: rng.integers(0, 5, size=(2, 4))], (0,)),
    ("embedding-padding_idx", lambda w, i: F.embedding(i, w, padding_idx=1),
     lambda th, w, i: th.nn.functional.embedding(i, w, padding_idx=1), [U(5, 3), lambda rng: np.array([[1, 2, 1], [0, 1, 4]])],
     (0,)),
    ("gelu-tanh", lambda x: F.gelu(x, approximate="tanh"), lambda th, x: th.nn.functional.gelu(x, approximate="tanh"),
     [U(7, low=-4, high=4)], (0,)),
    ("softmax-dtype", lambda x: F.softmax(x, -1, dtype=F64), lambda th, x: th.softmax(x, -1, dtype=th.float64), [U(2, 5)], (0,)),
    ("ce-ignore_index", lambda x, t: F.cross_entropy(x, t), lambda th, x, t: th.nn.functional.cross_entropy(x, t),
     [U(6, 4), IDX(6, 4, ignore=True)], (0,)),
    ("ce-label_smoothing", lambda x, t: F.cross_entropy(x, t, label_smoothing=0.1),
     lambda th, x, t: th.nn.functional.cross_entropy(x, t, label_smoothing=0.1), [U(5, 4), IDX(5, 4)], (0,)),
    ("ce-weight-ignore-smoothing", lambda x, t, w: F.cross_entropy(x, t, w, ignore_index=-100, label_smoothing=0.2),
     lambda th, x, t, w: th.nn.functional.cross_entropy(x, t, w, ignore_index=-100, label_smoothing=0.2),
     [U(6, 3), IDX(6, 3, ignore=True), U(3, low=0.5, high=2)], (0,)),
    ("ce-weight-sum", lambda x, t, w: F.cross_entropy(x, t, w, reduction="sum"),
     lambda th, x, t, w: th.nn.functional.cross_entropy(x, t, w, reduction="sum"), [U(5, 3), IDX(5, 3), U(3, low=0.5, high=2)],
     (0,)),
    ("ce-probabilities", lambda x, p: F.cross_entropy(x, p), lambda th, x, p: th.nn.functional.cross_entropy(x, p),
     [U(4, 3), PROBS(4, 3)], (0,)),
    ("ce-probabilities-smoothing", lambda x, p: F.cross_entropy(x, p, label_smoothing=0.3),
     lambda th, x, p: th.nn.functional.cross_entropy(x, p, label_smoothing=0.3), [U(4, 3), PROBS(4, 3)], (0, 1)),
    ("ce-NCd-none", lambda x, t: F.cross_entropy(x, t, reduction="none"),
     lambda th, x, t: th.nn.functional.cross_entropy(x, t, reduction="none"), [U(2, 3, 4), IDX((2, 4), 3)], (0,)),
    ("ce-NCd-mean-ignore", lambda x, t: F.cross_entropy(x, t, ignore_index=0),
     lambda th, x, t: th.nn.functional.cross_entropy(x, t, ignore_index=0), [U(2, 3, 2, 2), IDX((2, 2, 2), 3)], (0,)),
    ("ce-unbatched", lambda x, t: F.cross_entropy(x, t), lambda th, x, t: th.nn.functional.cross_entropy(x, t),
     [U(4), lambda rng: np.array(2)], (0,)),
]


def _mg_args(arrays: list[np.ndarray], diff: tuple[int, ...]) -> list[Any]:
    return [T(a, i in diff) if a.dtype.kind == "f" else mg.tensor(a, dtype=mg.int64) for i, a in enumerate(arrays)]


# padding_idx rows take part in the forward but get no gradient by definition (PyTorch's rule),
# so finite differences cannot check that row; the oracle test does.
FD_ROWS = [r for r in ROWS if "padding_idx" not in r[0]]


@pytest.mark.parametrize("row", FD_ROWS, ids=[r[0] for r in FD_ROWS])
def test_gradient_matches_finite_differences(row: Any) -> None:
    name, fn, _, makers, diff = row
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    arrays = [np.asarray(m(rng)) for m in makers]
    args = _mg_args(arrays, diff)
    d = [args[i] for i in diff]

    def f(*xs: Any) -> Any:
        full = list(args)
        for i, x in zip(diff, xs):
            full[i] = x
        return fn(*full)

    assert gradcheck(f, d)


@pytest.mark.torch
@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_forward_and_gradients_equal_pytorch(row: Any) -> None:
    torch = pytest.importorskip("torch")
    name, fn, tfn, makers, diff = row
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    arrays = [np.asarray(m(rng)) for m in makers]
    m_in = _mg_args(arrays, diff)
    t_in = [torch.tensor(a, requires_grad=(i in diff)) for i, a in enumerate(arrays)]
    m_out, t_out = fn(*m_in), tfn(torch, *t_in)
    assert tuple(m_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-10)
    w = rng.uniform(-1.5, 1.5, size=tuple(t_out.shape))
    (m_out * mg.tensor(w, dtype=F64)).sum().backward()
    (t_out * torch.tensor(w)).sum().backward()
    for i in diff:
        np.testing.assert_allclose(m_in[i].grad.numpy(), t_in[i].grad.numpy(), rtol=1e-10, atol=1e-10, err_msg=f"input {i}")


def test_one_hot() -> None:
    assert F.one_hot(mg.tensor([[0, 2], [1, 1]]), 3).tolist() == [[[1, 0, 0], [0, 0, 1]], [[0, 1, 0], [0, 1, 0]]]
    assert F.one_hot(mg.tensor([3])).shape == (1, 4) and F.one_hot(mg.tensor([3])).dtype == mg.int64
    with pytest.raises(RuntimeError, match="Class values must be"):
        F.one_hot(mg.tensor([3]), 2)


def test_cross_entropy_bad_target() -> None:
    with pytest.raises(ValueError, match="class indices"):
        F.cross_entropy(mg.ones(2, 3), mg.tensor([0, 5]), label_smoothing=0.1)


# -- modules ----------------------------------------------------------------------------------


class Net(mg.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = mg.nn.Embedding(5, 4)
        self.blocks = mg.nn.ModuleList([mg.nn.Linear(4, 4), mg.nn.Linear(4, 4)])
        self.heads = mg.nn.ModuleDict({"a": mg.nn.Linear(4, 2)})
        self.norm = mg.nn.BatchNorm1d(4)
        self.register_buffer("scale", mg.tensor([2.0]))
        self.register_buffer("cache", mg.zeros(1), persistent=False)

    def forward(self, idx: mg.Tensor) -> mg.Tensor:
        h = self.emb(idx)
        for b in self.blocks:
            h = b(h).relu()
        return self.heads["a"](self.norm(h.reshape(-1, 4))) * self.scale


def test_named_modules_children_buffers_and_state_dict_keys() -> None:
    mg.manual_seed(0)
    net = Net()
    assert [n for n, _ in net.named_modules()] == ["", "emb", "blocks", "blocks.0", "blocks.1", "heads", "heads.a", "norm"]
    assert [type(m).__name__ for m in net.children()] == ["Embedding", "ModuleList", "ModuleDict", "BatchNorm1d"]
    assert list(net.state_dict()) == [
        "scale", "emb.weight", "blocks.0.weight", "blocks.0.bias", "blocks.1.weight", "blocks.1.bias", "heads.a.weight",
        "heads.a.bias", "norm.weight", "norm.bias", "norm.running_mean", "norm.running_var", "norm.num_batches_tracked",
    ]
    assert [n for n, _ in net.named_buffers()] == ["scale", "cache", "norm.running_mean", "norm.running_var",
                                                   "norm.num_batches_tracked"]
    assert len(list(net.parameters())) == 9
    seen = []
    net.apply(lambda m: seen.append(type(m).__name__))
    assert seen[-1] == "Net" and seen[0] == "Embedding"


def test_load_state_dict_strict_and_non_strict() -> None:
    mg.manual_seed(0)
    a, b = Net(), Net()
    sd = a.state_dict()
    assert b.load_state_dict(sd) == ([], [])
    np.testing.assert_array_equal(b.blocks[1].weight.detach().numpy(), a.blocks[1].weight.detach().numpy())
    assert b.blocks[1].weight is not a.blocks[1].weight  # values copied, objects kept
    partial = {k: v for k, v in sd.items() if not k.startswith("heads")}
    partial["extra.weight"] = mg.ones(1)
    with pytest.raises(RuntimeError) as exc:
        b.load_state_dict(partial)
    msg = str(exc.value)
    assert 'Unexpected key(s) in state_dict: "extra.weight".' in msg
    assert 'Missing key(s) in state_dict: "heads.a.weight", "heads.a.bias".' in msg
    result = b.load_state_dict(partial, strict=False)
    assert result.missing_keys == ["heads.a.weight", "heads.a.bias"] and result.unexpected_keys == ["extra.weight"]
    bad = dict(sd)
    bad["emb.weight"] = mg.ones(2, 2)
    before = b.emb.weight.detach().numpy().copy()
    with pytest.raises(RuntimeError, match=r"size mismatch for emb.weight"):
        b.load_state_dict(bad)
    np.testing.assert_array_equal(b.emb.weight.detach().numpy(), before)  # nothing changed


def test_state_dict_keys_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    tnet = torch.nn.Sequential(torch.nn.Embedding(5, 4), torch.nn.LayerNorm(4), torch.nn.Linear(4, 3),
                               torch.nn.BatchNorm1d(3))
    mnet = mg.nn.Sequential(mg.nn.Embedding(5, 4), mg.nn.LayerNorm(4), mg.nn.Linear(4, 3), mg.nn.BatchNorm1d(3))
    assert list(mnet.state_dict()) == list(tnet.state_dict())
    # A PyTorch state dict loads into the minigrad model (via NumPy), and both compute the same.
    mnet.double()
    mnet.load_state_dict({k: v.detach().double().numpy() for k, v in tnet.state_dict().items()})
    tnet.double().eval()
    mnet.eval()
    idx = np.array([[0, 3, 4], [1, 1, 2]])
    np.testing.assert_allclose(mnet(mg.tensor(idx)).detach().numpy(), tnet(torch.tensor(idx)).detach().numpy(), rtol=1e-10, atol=1e-10)


def test_batchnorm_running_statistics_train_and_eval_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    tbn = torch.nn.BatchNorm2d(3).double()
    mbn = mg.nn.BatchNorm2d(3).double()
    for _ in range(3):
        x = rng.normal(size=(4, 3, 2, 2)) * 3 + 1
        np.testing.assert_allclose(mbn(T(x, False)).detach().numpy(), tbn(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(mbn.running_mean.numpy(), tbn.running_mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(mbn.running_var.numpy(), tbn.running_var.numpy(), rtol=1e-12)
    assert mbn.num_batches_tracked.item() == tbn.num_batches_tracked.item() == 3
    mbn.eval()
    tbn.eval()
    x = rng.normal(size=(2, 3, 2, 2))
    np.testing.assert_allclose(mbn(T(x, False)).detach().numpy(), tbn(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-10)
    assert not mbn.training and all(not m.training for m in mbn.modules())


def test_to_double_keeps_the_parameter_objects() -> None:
    lin = mg.nn.Linear(2, 2)
    w = lin.weight
    opt = mg.optim.SGD(lin.parameters(), lr=0.1)
    lin.double()
    assert lin.weight is w and w.dtype == F64 and lin.bias.dtype == F64
    lin(mg.ones(1, 2, dtype=F64)).sum().backward()
    opt.step()
    assert w.dtype == F64
    assert mg.nn.Linear(2, 2).to(F64).weight.dtype == F64


def test_module_list_dict_behave_as_containers() -> None:
    ml = mg.nn.ModuleList([mg.nn.Identity()])
    ml.append(mg.nn.ReLU())
    assert len(ml) == 2 and isinstance(ml[1], mg.nn.ReLU) and len(ml[:1]) == 1
    md = mg.nn.ModuleDict({"x": mg.nn.Identity()})
    assert "x" in md and list(md.keys()) == ["x"]
    with pytest.raises(TypeError):
        ml.append(3)
    x = mg.ones(2, 3)
    assert mg.nn.Softmax(dim=1)(x).sum().item() == pytest.approx(2.0)
    assert mg.nn.LogSoftmax(dim=1)(x).shape == (2, 3) and mg.nn.Identity()(x) is x


# -- save / load ------------------------------------------------------------------------------


def test_save_load_round_trip_of_a_state_dict(tmp_path) -> None:
    mg.manual_seed(0)
    net = Net()
    path = tmp_path / "model.pt"
    mg.save(net.state_dict(), path)
    assert path.exists() and not (tmp_path / "model.pt.npz").exists()
    sd = mg.load(path)
    assert list(sd) == list(net.state_dict())
    assert sd["norm.num_batches_tracked"].dtype == mg.int64
    other = Net()
    other.load_state_dict(sd)
    idx = mg.tensor([[0, 1], [2, 3]])
    net.eval()
    other.eval()
    np.testing.assert_array_equal(net(idx).detach().numpy(), other(idx).detach().numpy())


def test_load_never_unpickles(tmp_path) -> None:
    """A file holding a pickled object array (which could run code) is refused, not loaded."""
    evil = tmp_path / "evil.npz"
    np.savez(evil, __minigrad__=np.array([object()], dtype=object))
    with pytest.raises(ValueError, match="cannot read"):
        mg.load(evil)
    plain = tmp_path / "plain.npz"
    np.savez(plain, x=np.ones(2))
    with pytest.raises(ValueError, match="not a file written by minigrad.save"):
        mg.load(plain)
    with pytest.raises(TypeError, match="no pickles"):
        mg.save({"f": object()}, tmp_path / "x")


def test_save_and_load_take_pytorch_s_arguments(tmp_path) -> None:
    """The tutorials' spellings: ``torch.load(path, weights_only=True)``, ``map_location=`` (a device, a dict,
    a function), a checkpoint dict through an ``io.BytesIO``; ``load_state_dict`` answers as PyTorch prints."""
    import io

    net = mg.nn.Sequential(mg.nn.Linear(3, 2), mg.nn.ReLU(), mg.nn.Linear(2, 1))
    path = tmp_path / "weights.pth"
    mg.save(net.state_dict(), path)
    for kwargs in ({"weights_only": True}, {"weights_only": False}, {"map_location": "cpu"},
                   {"map_location": mg.device("cpu")}, {"map_location": {"cuda:0": "cpu"}},
                   {"map_location": lambda storage, loc: storage}):
        sd = mg.load(path, **kwargs)
        assert list(sd) == ["0.weight", "0.bias", "2.weight", "2.bias"]
        assert all(v.device.type == "cpu" for v in sd.values())
        assert repr(net.load_state_dict(sd)) == "<All keys matched successfully>"
    buffer = io.BytesIO()
    mg.save({"epoch": 3, "model": net.state_dict()}, buffer)
    buffer.seek(0)
    checkpoint = mg.load(buffer, map_location="cpu")
    assert checkpoint["epoch"] == 3 and list(checkpoint["model"]) == list(net.state_dict())
    partial = net.state_dict()
    partial.pop("2.bias")
    partial["extra"] = mg.ones(1)
    keys = net.load_state_dict(partial, strict=False)
    assert str(keys) == "_IncompatibleKeys(missing_keys=['2.bias'], unexpected_keys=['extra'])"
    assert keys.missing_keys == ["2.bias"] and keys == (["2.bias"], ["extra"])


def test_saving_a_whole_module_says_to_save_its_state_dict(tmp_path) -> None:
    with pytest.raises(TypeError, match=r"cannot save a whole Sequential module.*model\.state_dict\(\)"):
        mg.save(mg.nn.Sequential(mg.nn.Linear(2, 2)), tmp_path / "m.pth")
    assert not (tmp_path / "m.pth").exists()


# -- optim ------------------------------------------------------------------------------------


def _torch_and_mg_params(torch: Any, rng: np.random.Generator):
    a, b = rng.normal(size=(3, 2)), rng.normal(size=(2,))
    return ([mg.nn.Parameter(T(a, False)), mg.nn.Parameter(T(b, False))],
            [torch.nn.Parameter(torch.tensor(a)), torch.nn.Parameter(torch.tensor(b))])


def _loss(w: Any, b: Any, x: Any) -> Any:
    return ((x @ w + b) ** 2).sum()


@pytest.mark.parametrize("kind", ["AdamW", "Adam-groups", "SGD-groups"])
def test_optimizers_with_param_groups_match_pytorch(kind: str) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    (mw, mb), (tw, tb) = _torch_and_mg_params(torch, rng)
    if kind == "AdamW":
        mopt, topt = mg.optim.AdamW([mw, mb], lr=0.05), torch.optim.AdamW([tw, tb], lr=0.05)
    elif kind == "Adam-groups":
        mopt = mg.optim.Adam([{"params": [mw]}, {"params": [mb], "lr": 0.2, "weight_decay": 0.1}], lr=0.05)
        topt = torch.optim.Adam([{"params": [tw]}, {"params": [tb], "lr": 0.2, "weight_decay": 0.1}], lr=0.05)
    else:
        mopt = mg.optim.SGD([mw], lr=0.05, momentum=0.9)
        mopt.add_param_group({"params": [mb], "lr": 0.01, "nesterov": True})
        topt = torch.optim.SGD([tw], lr=0.05, momentum=0.9)
        topt.add_param_group({"params": [tb], "lr": 0.01, "nesterov": True})
    assert [g["lr"] for g in mopt.param_groups] == [g["lr"] for g in topt.param_groups]
    for _ in range(4):
        x = rng.normal(size=(5, 3))
        mopt.zero_grad()
        topt.zero_grad()
        _loss(mw, mb, T(x, False)).backward()
        _loss(tw, tb, torch.tensor(x)).backward()
        mopt.step()
        topt.step()
    np.testing.assert_allclose(mw.detach().numpy(), tw.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mb.detach().numpy(), tb.detach().numpy(), rtol=1e-10, atol=1e-12)


def test_optimizer_state_dict_round_trip_continues_identically(tmp_path) -> None:
    rng = np.random.default_rng(2)
    x = [T(rng.normal(size=(5, 3)), False) for _ in range(6)]

    def run(steps: range, w: Any, b: Any, opt: Any) -> None:
        for i in steps:
            opt.zero_grad()
            _loss(w, b, x[i]).backward()
            opt.step()

    w1, b1 = mg.nn.Parameter(T(np.ones((3, 2)), False)), mg.nn.Parameter(T(np.zeros(2), False))
    opt1 = mg.optim.AdamW([w1, b1], lr=0.1)
    run(range(6), w1, b1, opt1)

    w2, b2 = mg.nn.Parameter(T(np.ones((3, 2)), False)), mg.nn.Parameter(T(np.zeros(2), False))
    opt2 = mg.optim.AdamW([w2, b2], lr=0.1)
    run(range(3), w2, b2, opt2)
    mg.save(opt2.state_dict(), tmp_path / "opt.npz")
    sd = opt2.state_dict()
    assert sorted(sd["state"]) == [0, 1] and sd["param_groups"][0]["params"] == [0, 1]
    assert set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    w3, b3 = mg.nn.Parameter(w2.detach_copy()), mg.nn.Parameter(b2.detach_copy())
    opt3 = mg.optim.AdamW([w3, b3], lr=0.5)
    opt3.load_state_dict(mg.load(tmp_path / "opt.npz"))
    assert opt3.param_groups[0]["lr"] == 0.1
    run(range(3, 6), w3, b3, opt3)
    np.testing.assert_array_equal(w3.detach().numpy(), w1.detach().numpy())
    np.testing.assert_array_equal(b3.detach().numpy(), b1.detach().numpy())


def test_optimizer_argument_errors() -> None:
    w = mg.nn.Parameter(mg.ones(2))
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        mg.optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1)
    with pytest.raises(ValueError, match="learning rate"):
        mg.optim.Adam([w], lr=-1)
    # A group may carry keys of its own (a name, a tag for a scheduler), as PyTorch's.
    opt = mg.optim.SGD([{"params": [w], "name": "head"}], lr=0.1)
    assert opt.param_groups[0]["name"] == "head" and opt.state_dict()["param_groups"][0]["name"] == "head"


@pytest.mark.parametrize("kind", ["StepLR", "CosineAnnealingLR", "LambdaLR"])
def test_lr_schedulers_match_pytorch(kind: str) -> None:
    torch = pytest.importorskip("torch")
    mw, tw = mg.nn.Parameter(mg.ones(1)), torch.nn.Parameter(torch.ones(1))
    mopt = mg.optim.SGD([{"params": [mw]}], lr=0.5)
    topt = torch.optim.SGD([tw], lr=0.5)
    make = {
        "StepLR": lambda lib, o: lib.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5),
        "CosineAnnealingLR": lambda lib, o: lib.optim.lr_scheduler.CosineAnnealingLR(o, T_max=8, eta_min=0.01),
        "LambdaLR": lambda lib, o: lib.optim.lr_scheduler.LambdaLR(o, lambda e: 1.0 / (1 + e)),
    }[kind]
    ms, ts = make(mg, mopt), make(torch, topt)
    for _ in range(9):
        assert ms.get_last_lr()[0] == pytest.approx(ts.get_last_lr()[0], rel=1e-12, abs=1e-15)
        assert mopt.param_groups[0]["lr"] == pytest.approx(topt.param_groups[0]["lr"], rel=1e-12, abs=1e-15)
        mopt.step()
        topt.step()
        ms.step()
        ts.step()


def test_cosine_schedule_values() -> None:
    opt = mg.optim.SGD([mg.nn.Parameter(mg.ones(1))], lr=1.0)
    s = mg.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    lrs = []
    for _ in range(5):
        lrs.append(s.get_last_lr()[0])
        s.step()
    np.testing.assert_allclose(lrs, [1.0, (1 + math.cos(math.pi / 4)) / 2, 0.5, (1 + math.cos(3 * math.pi / 4)) / 2, 0.0],
                               atol=1e-15)


OPTIMIZER_CALLS = {
    "SGD": {"lr": 0.1}, "SGD-momentum": {"lr": 1, "momentum": 0.9, "nesterov": True}, "Adam": {},
    "AdamW": {"lr": 3e-4, "betas": (0.9, 0.95)}, "Adam-decoupled": {"decoupled_weight_decay": True},
    "RMSprop": {}, "Adagrad": {}, "Adadelta": {}, "Adamax": {}, "NAdam": {}, "RAdam": {}, "LBFGS": {},
}


@pytest.mark.parametrize("name,kwargs", OPTIMIZER_CALLS.items(), ids=OPTIMIZER_CALLS.keys())
def test_an_optimizer_prints_and_keeps_its_options_as_pytorch_s(name: str, kwargs: dict) -> None:
    """``print(optimizer)`` and ``param_groups``: the options as given or defaulted (``momentum: 0``, not
    ``0.0``), in PyTorch's order and words; a second group with its own ``lr``."""
    torch = pytest.importorskip("torch")
    cls = name.split("-")[0]
    made = []
    for lib in (mg, torch):
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))
        groups = [{"params": [a]}] if cls == "LBFGS" else [{"params": [a]}, {"params": [b], "lr": 0.5}]
        made.append(getattr(lib.optim, cls)(groups, **kwargs))
    m, t = made
    assert repr(m) == repr(t)
    for gm, gt in zip(m.param_groups, t.param_groups):
        assert {k: (type(v), v) for k, v in gm.items() if k != "params"} == \
            {k: (type(v), v) for k, v in gt.items() if k != "params"}


# -- schedulers chain, as PyTorch's (NOTE [ Schedulers chain ] in optim/lr_scheduler.py) ---------------------

_CHAINS = {
    "exponential": lambda S, o: [S.ExponentialLR(o, 0.9)],
    "step": lambda S, o: [S.StepLR(o, 2, 0.1)],
    "multistep, a milestone twice": lambda S, o: [S.MultiStepLR(o, [2, 4, 4], 0.5)],
    "cosine": lambda S, o: [S.CosineAnnealingLR(o, 4, eta_min=0.01)],
    "linear": lambda S, o: [S.LinearLR(o, 0.25, 1.0, 3)],
    "constant": lambda S, o: [S.ConstantLR(o, 0.5, 3)],
    "polynomial": lambda S, o: [S.PolynomialLR(o, 4, 2.0)],
    "multiplicative": lambda S, o: [S.MultiplicativeLR(o, lambda e: 0.95)],
    "exponential and multistep stepped back to back": lambda S, o: [S.ExponentialLR(o, 0.9), S.MultiStepLR(o, [3, 5])],
    "constant then exponential": lambda S, o: [S.ConstantLR(o, 0.1, 2), S.ExponentialLR(o, 0.9)],
    "chained": lambda S, o: [S.ChainedScheduler([S.ConstantLR(o, 0.1, 2), S.ExponentialLR(o, 0.9)], optimizer=o)],
    "sequential": lambda S, o: [S.SequentialLR(o, [S.LinearLR(o, 0.1, 1.0, 3), S.CosineAnnealingLR(o, 5)], [3])],
    "sequential of three": lambda S, o: [S.SequentialLR(o, [S.ExponentialLR(o, 0.9), S.StepLR(o, 2, 0.5),
                                                            S.ConstantLR(o, 0.5, 2)], [2, 5])],
}


@pytest.mark.parametrize("name", list(_CHAINS))
def test_learning_rates_print_as_torch_s_step_by_step(name):
    """Every lr equal to PyTorch's to the last bit (what ``print(scheduler.get_last_lr())`` shows), schedulers
    stepped back to back composing as PyTorch's do."""
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, mg):
        opt = L.optim.SGD([L.nn.Parameter(L.ones(1))], lr=0.1)
        scheds = _CHAINS[name](L.optim.lr_scheduler, opt)
        lrs = [opt.param_groups[0]["lr"]]
        for _ in range(12):
            opt.step()
            for s in scheds:
                s.step()
            lrs.append(opt.param_groups[0]["lr"])
        got.append((lrs, [repr(x) for x in scheds[-1].get_last_lr()]))
    assert got[1] == got[0]


def test_chained_scheduler_s_state_and_refusals_as_torch_s():
    torch = pytest.importorskip("torch")
    got = []
    for L in (torch, mg):
        S = L.optim.lr_scheduler
        opt = L.optim.SGD([L.nn.Parameter(L.ones(1))], lr=1.0)
        chained = S.ChainedScheduler([S.ConstantLR(opt, 0.1, 2), S.ExponentialLR(opt, 0.9)])
        for _ in range(3):
            opt.step()
            chained.step()
        state = chained.state_dict()
        again = S.ChainedScheduler([S.ConstantLR(opt, 0.1, 2), S.ExponentialLR(opt, 0.9)])
        again.load_state_dict(state)
        r = [sorted(state), again.get_last_lr(), isinstance(chained, S.LRScheduler)]
        for bad in ([], [S.ReduceLROnPlateau(opt)], [object()]):
            with pytest.raises((ValueError, TypeError)) as e:
                S.ChainedScheduler(bad, optimizer=opt)
            r.append((type(e.value).__name__, str(e.value)))
        got.append(r)
    assert got[1] == got[0]
