"""``nn.RNN/LSTM/GRU`` and their cells against PyTorch in float64: state_dict keys and shapes, outputs,
final states and every gradient (input, initial state, each parameter), with PyTorch's weights loaded.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")


def _load(ours: mg.nn.Module, theirs: Any) -> None:
    sd = theirs.state_dict()
    assert list(ours.state_dict()) == list(sd)
    assert [tuple(v.shape) for v in ours.state_dict().values()] == [tuple(v.shape) for v in sd.values()]
    ours.load_state_dict({k: v.detach().numpy() for k, v in sd.items()})


def _compare(mout: Any, tout: Any) -> None:
    if isinstance(tout, (tuple, list)):
        assert isinstance(mout, tuple) and len(mout) == len(tout)
        for a, b in zip(mout, tout):
            _compare(a, b)
        return
    assert tuple(mout.shape) == tuple(tout.shape)
    np.testing.assert_allclose(mout.detach().numpy(), tout.detach().numpy(), rtol=1e-10, atol=1e-12)


def _flat(out: Any) -> list[Any]:
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [out]


def _loss(out: Any, lib: Any, weights: list[np.ndarray]) -> Any:
    total = 0
    for t, w in zip(_flat(out), weights):
        total = total + (t * lib.tensor(w)).sum()
    return total


def _run_both(mod_name: str, kwargs: dict, x: np.ndarray, state: Any, cell: bool = False) -> None:
    theirs = getattr(torch.nn, mod_name)(**kwargs).double()
    ours = getattr(mg.nn, mod_name)(**kwargs, dtype=mg.float64)
    _load(ours, theirs)
    mx, tx = mg.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    if state is None:
        margs, targs = (mx,), (tx,)
        ms = ts = []
    elif isinstance(state, tuple):
        ms = [mg.tensor(s, requires_grad=True) for s in state]
        ts = [torch.tensor(s, requires_grad=True) for s in state]
        margs, targs = (mx, tuple(ms)), (tx, tuple(ts))
    else:
        ms, ts = [mg.tensor(state, requires_grad=True)], [torch.tensor(state, requires_grad=True)]
        margs, targs = (mx, ms[0]), (tx, ts[0])
    mout, tout = ours(*margs), theirs(*targs)
    _compare(mout, tout)
    rng = np.random.default_rng(5)
    weights = [rng.standard_normal(tuple(t.shape)) for t in _flat(tout)]
    _loss(mout, mg, weights).backward()
    _loss(tout, torch, weights).backward()
    for a, b in zip([mx, *ms], [tx, *ts]):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)


CONFIGS = list(itertools.product(
    ["RNN", "LSTM", "GRU"],
    [{}, {"num_layers": 2}, {"bidirectional": True}, {"num_layers": 2, "bidirectional": True, "batch_first": True},
     {"bias": False}, {"batch_first": True}],
    ["batched", "unbatched", "with-state"],
))


@pytest.mark.parametrize("mod_name, extra, how", CONFIGS,
                         ids=[f"{m}-{'-'.join(f'{k}{v}' for k, v in e.items()) or 'default'}-{h}" for m, e, h in CONFIGS])
def test_recurrent_layer_matches_torch(mod_name: str, extra: dict, how: str) -> None:
    kwargs = {"input_size": 3, "hidden_size": 4, **extra}
    rng = np.random.default_rng(1)
    L, N = 5, 2
    d = 2 if extra.get("bidirectional") else 1
    layers = extra.get("num_layers", 1)
    if how == "unbatched":
        x = rng.standard_normal((L, 3))
        state = None
    else:
        x = rng.standard_normal((N, L, 3) if extra.get("batch_first") else (L, N, 3))
        state = None
        if how == "with-state":
            h0 = rng.standard_normal((d * layers, N, 4))
            state = (h0, rng.standard_normal((d * layers, N, 4))) if mod_name == "LSTM" else h0
    _run_both(mod_name, kwargs, x, state)


@pytest.mark.parametrize("extra", [{}, {"num_layers": 2, "bidirectional": True, "batch_first": True}])
@pytest.mark.parametrize("how", ["batched", "with-state", "unbatched"])
def test_lstm_with_projections_matches_torch(extra: dict, how: str) -> None:
    rng = np.random.default_rng(4)
    d, layers = (2 if extra.get("bidirectional") else 1), extra.get("num_layers", 1)
    if how == "unbatched":
        x, state = rng.standard_normal((5, 3)), None
    else:
        x = rng.standard_normal((2, 5, 3) if extra.get("batch_first") else (5, 2, 3))
        state = None
        if how == "with-state":
            state = (rng.standard_normal((d * layers, 2, 2)), rng.standard_normal((d * layers, 2, 4)))
    _run_both("LSTM", {"input_size": 3, "hidden_size": 4, "proj_size": 2, **extra}, x, state)


def test_proj_size_errors_match_torch() -> None:
    for lib in (mg, torch):
        with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
            lib.nn.LSTM(3, 4, proj_size=4)
        with pytest.raises(ValueError, match="proj_size should be a positive integer or zero"):
            lib.nn.LSTM(3, 4, proj_size=-1)
        with pytest.raises(RuntimeError, match="Expected hidden"):
            lib.nn.LSTM(3, 4, proj_size=2)(lib.ones(5, 2, 3), (lib.ones(1, 2, 4), lib.ones(1, 2, 4)))


def test_relu_rnn_matches_torch() -> None:
    rng = np.random.default_rng(2)
    _run_both("RNN", {"input_size": 3, "hidden_size": 4, "nonlinearity": "relu", "num_layers": 2},
              rng.standard_normal((6, 2, 3)), rng.standard_normal((2, 2, 4)))


@pytest.mark.parametrize("mod_name", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("how", ["batched", "unbatched", "with-state", "no-bias"])
def test_cells_match_torch(mod_name: str, how: str) -> None:
    rng = np.random.default_rng(3)
    batch = () if how == "unbatched" else (2,)
    x = rng.standard_normal(batch + (3,))
    state = None
    if how == "with-state":
        h = rng.standard_normal(batch + (4,))
        state = (h, rng.standard_normal(batch + (4,))) if mod_name == "LSTMCell" else h
    kwargs = {"input_size": 3, "hidden_size": 4}
    if how == "no-bias":
        kwargs["bias"] = False
    _run_both(mod_name, kwargs, x, state)


def test_init_draws_uniform_in_torch_s_bounds_and_order() -> None:
    mg.manual_seed(0)
    lstm = mg.nn.LSTM(3, 16, num_layers=2, bidirectional=True)
    names = [n for n, _ in lstm.named_parameters()]
    assert names == [n for n, _ in torch.nn.LSTM(3, 16, num_layers=2, bidirectional=True).named_parameters()]
    for p in lstm.parameters():
        assert np.abs(p.detach().numpy()).max() <= 0.25 and p.dtype == mg.float32
    # Reseeding gives the same weights: drawn from the default generator.
    mg.manual_seed(0)
    again = mg.nn.LSTM(3, 16, num_layers=2, bidirectional=True)
    for p, q in zip(lstm.parameters(), again.parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), q.detach().numpy())


def test_backprop_through_time_is_ordinary_nodes() -> None:
    rnn = mg.nn.RNN(2, 3, dtype=mg.float64)
    out, h = rnn(mg.randn(4, 1, 2, dtype=mg.float64))
    # One tanh node per time step on the path from h_n back to the input.
    names = []
    stack, seen = [h.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name())
        stack.extend(n for n, _ in node.next_functions)
    assert sum(n.startswith("Tanh") for n in names) == 4


def test_dropout_between_layers_only_in_training() -> None:
    mg.manual_seed(0)
    gru = mg.nn.GRU(3, 4, num_layers=2, dropout=0.5, dtype=mg.float64)
    x = mg.randn(5, 2, 3, dtype=mg.float64)
    gru.eval()
    a, _ = gru(x)
    b, _ = gru(x)
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    gru.train()
    c, _ = gru(x)
    assert not np.allclose(a.detach().numpy(), c.detach().numpy())


@pytest.mark.parametrize("mod_name, args, exc", [
    ("LSTM", (mg.ones(5, 2, 4),), RuntimeError),  # input_size 3 expected
    ("GRU", (mg.ones(5),), ValueError),  # 1-D input
    ("RNN", (mg.ones(5, 2, 3), mg.ones(1, 3, 4)), RuntimeError),  # wrong batch in h0
    ("RNN", (mg.ones(5, 3), mg.ones(1, 2, 4)), RuntimeError),  # unbatched input, batched h0
    ("LSTMCell", (mg.ones(2, 4),), RuntimeError),
    ("GRUCell", (mg.ones(2, 3), mg.ones(3, 4)), RuntimeError),
])
def test_errors_match_torch_and_leave_no_node(mod_name: str, args: tuple, exc: type) -> None:
    ours = getattr(mg.nn, mod_name)(3, 4)
    theirs = getattr(torch.nn, mod_name)(3, 4)
    with mg.trace() as tr:
        with pytest.raises(exc):
            ours(*args)
    assert not [e for e in tr.events if type(e).__name__ in ("NodeCreate", "ApiCall")]
    with pytest.raises(exc):
        theirs(*(torch.tensor(a.numpy()) for a in args))


def test_constructor_errors_match_torch() -> None:
    for lib in (mg, torch):
        with pytest.raises(ValueError, match="Unknown nonlinearity"):
            lib.nn.RNN(3, 4, nonlinearity="sigmoid")
        with pytest.raises(ValueError, match="dropout should be a number in range"):
            lib.nn.LSTM(3, 4, dropout=1.5)
        with pytest.raises(ValueError, match="hidden_size must be greater than zero"):
            lib.nn.GRU(3, 0)


# -- the graph: ATen's CPU composite, node for node ----------------------------------------------------

def _graph(out: Any, module: Any) -> list[Any]:
    """Every node below ``out`` once, in the order a depth-first walk meets it: its class name, the
    positions of its next functions (``None`` for an input with no gradient) and, for a leaf, which
    parameter it is - so shared nodes (one ``UnsafeSplitBackward0`` read by three gates) compare too."""
    params = {id(p): n for n, p in module.named_parameters()}
    params.update({("mg", p.id): n for n, p in module.named_parameters() if isinstance(p, mg.Tensor)})
    seen: dict[Any, int] = {}
    rows: list[Any] = []

    def visit(node: Any) -> Any:
        if node is None:
            return None
        if node in seen:
            return seen[node]
        seen[node] = len(rows)
        row: list[Any] = [type(node).__name__, None]
        rows.append(row)
        if type(node).__name__ == "AccumulateGrad":
            var = getattr(node, "variable", None)
            row.append(params.get(id(var)) if var is not None else params.get(("mg", node.tensor_id)))
        row[1] = [visit(f) for f, _ in node.next_functions]
        return seen[node]

    visit(out.grad_fn)
    return rows


GRAPH_CASES = {
    "RNN": ("RNN", {}, (5, 2, 3), ()),
    "RNN relu, two layers, both ways, h0": ("RNN", {"nonlinearity": "relu", "num_layers": 2, "bidirectional": True},
                                            (3, 2, 3), ((4, 2, 4),)),
    "RNN batch_first without bias, unbatched": ("RNN", {"bias": False, "batch_first": True}, (5, 3), ()),
    "GRU batch_first, h0": ("GRU", {"batch_first": True}, (2, 5, 3), ((1, 2, 4),)),
    "GRU two layers, both ways, batch_first": ("GRU", {"num_layers": 2, "bidirectional": True, "batch_first": True},
                                               (2, 3, 3), ()),
    "GRU without bias, unbatched, h0": ("GRU", {"bias": False}, (5, 3), ((1, 4),)),
    "LSTM": ("LSTM", {}, (5, 2, 3), ()),
    "LSTM batch_first, h0 and c0": ("LSTM", {"batch_first": True}, (2, 5, 3), ((1, 2, 4), (1, 2, 4))),
    "LSTM two layers, both ways": ("LSTM", {"num_layers": 2, "bidirectional": True}, (3, 2, 3), ()),
    "LSTM with projections, batch_first": ("LSTM", {"proj_size": 2, "num_layers": 2, "batch_first": True},
                                           (2, 3, 3), ()),
    "LSTM with projections, unbatched, h0 and c0": ("LSTM", {"proj_size": 2, "bidirectional": True}, (3, 3),
                                                    ((2, 2), (2, 4))),
    "RNNCell": ("RNNCell", {}, (2, 3), ()),
    "RNNCell relu without bias, h": ("RNNCell", {"nonlinearity": "relu", "bias": False}, (2, 3), ((2, 4),)),
    "RNNCell unbatched, h": ("RNNCell", {}, (3,), ((4,),)),
    "GRUCell": ("GRUCell", {}, (2, 3), ()),
    "GRUCell unbatched": ("GRUCell", {}, (3,), ()),
    "GRUCell without bias, h": ("GRUCell", {"bias": False}, (2, 3), ((2, 4),)),
    "LSTMCell": ("LSTMCell", {}, (2, 3), ()),
    "LSTMCell h and c": ("LSTMCell", {}, (2, 3), ((2, 4), (2, 4))),
    "LSTMCell unbatched without bias, h and c": ("LSTMCell", {"bias": False}, (3,), ((4,), (4,))),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", sorted(GRAPH_CASES))
def test_graph_values_and_gradients_are_pytorchs(case: str, dtype: str) -> None:
    """The whole graph of every output (names, next functions, shared nodes, which parameter each leaf is),
    the values and every gradient, against PyTorch, with modules built from one seed (the same draws):
    ATen's composite, input projection of all steps at once, ``unsafe_chunk`` gates, ``transpose_`` back;
    a float32 LSTM without projections one ``mkldnn_rnn_layer`` per layer and direction."""
    mod_name, kwargs, shape, states = GRAPH_CASES[case]
    rng = np.random.default_rng(7)
    x = rng.standard_normal(shape)
    hs = [rng.standard_normal(s) for s in states]
    results = []
    for lib in (mg, torch):
        lib.manual_seed(0)
        module = getattr(lib.nn, mod_name)(3, 4, **kwargs).to(getattr(lib, dtype))
        tx = lib.tensor(x, dtype=getattr(lib, dtype), requires_grad=True)
        ts = [lib.tensor(h, dtype=getattr(lib, dtype), requires_grad=True) for h in hs]
        args = [tx] + ([tuple(ts)] if len(ts) == 2 else ts)
        outs = _flat(module(*args))
        graphs = [_graph(o, module) for o in outs]
        w = np.random.default_rng(5)
        _loss(outs, lib, [w.standard_normal(tuple(o.shape)) for o in outs]).backward()
        grads = [t.grad.numpy() for t in [tx, *ts]] + [p.grad.numpy() for p in module.parameters()]
        results.append((graphs, [o.detach().numpy() for o in outs], grads))
    (graphs, values, grads), (t_graphs, t_values, t_grads) = results
    assert graphs == t_graphs
    tol = {"rtol": 1e-10, "atol": 1e-12} if dtype == "float64" else {"rtol": 1e-4, "atol": 1e-5}
    for a, b in zip(values + grads, t_values + t_grads):
        np.testing.assert_allclose(a, b, **tol)


def test_dropout_between_layers_draws_pytorchs_masks() -> None:
    """In training, the mask between layers comes from the default generator as PyTorch's (ATen's
    ``dropout`` of each layer's output but the last): the same seed, the same outputs."""
    x = np.random.default_rng(0).standard_normal((5, 2, 3))
    outs = []
    for lib in (mg, torch):
        lib.manual_seed(0)
        gru = lib.nn.GRU(3, 4, num_layers=3, dropout=0.5).double()
        outs.append(gru(lib.tensor(x))[0].detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("mod_name, dtype", [("RNN", "float64"), ("GRU", "float32"), ("LSTM", "float32"),
                                             ("LSTM", "float64")])
def test_an_empty_sequence_is_refused_in_pytorchs_words(mod_name: str, dtype: str) -> None:
    for lib in (mg, torch):
        layer = getattr(lib.nn, mod_name)(3, 4).to(getattr(lib, dtype))
        with pytest.raises(RuntimeError, match="^Expected sequence length to be larger than 0 in RNN$"):
            layer(lib.zeros(0, 2, 3, dtype=getattr(lib, dtype)))


def test_float32_lstm_dropout_draws_pytorchs_masks() -> None:
    """oneDNN's path (float32) draws the masks between layers from the default generator as PyTorch's."""
    x = np.random.default_rng(0).standard_normal((5, 2, 3))
    outs = []
    for lib in (mg, torch):
        lib.manual_seed(0)
        lstm = lib.nn.LSTM(3, 4, num_layers=3, dropout=0.5, bidirectional=True)
        outs.append(lstm(lib.tensor(x, dtype=lib.float32))[0].detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)
