"""Attention against PyTorch in float64: ``F.scaled_dot_product_attention``, ``nn.MultiheadAttention``,
``nn.TransformerEncoderLayer`` and ``nn.TransformerEncoder`` (state_dict keys and shapes, outputs,
attention weights, and the gradients of inputs, masks and parameters, dropout off).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")
# torch's Transformer notes that its nested-tensor fast path is off without batch_first: not our concern.
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
TF = torch.nn.functional
MF = mg.nn.functional

RNG = np.random.default_rng(0)


def _pair(shape: tuple[int, ...], grad: bool = True) -> tuple[mg.Tensor, Any]:
    a = RNG.standard_normal(shape)
    return mg.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def _close(a: Any, b: Any, tol: float = 1e-10) -> None:
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy() if isinstance(a, mg.Tensor) else a,
                               b.detach().numpy(), rtol=tol, atol=tol)


def _backward_both(mout: Any, tout: Any) -> None:
    w = RNG.standard_normal(tuple(tout.shape))
    (mout * mg.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()


SDPA = {
    "plain": {},
    "scale": {"scale": 0.3},
    "causal": {"is_causal": True},
    "bool-mask": {"attn_mask": "bool"},
    "float-mask": {"attn_mask": "float"},
    "broadcast-mask": {"attn_mask": "bool-2d"},
}


@pytest.mark.parametrize("case", sorted(SDPA))
@pytest.mark.parametrize("shape", [(2, 3, 5, 4), (5, 4)], ids=["4d", "2d"])
def test_sdpa_matches_torch(case: str, shape: tuple[int, ...]) -> None:
    L, S = shape[-2], shape[-2] + 1
    (mq, tq), (mk, tk), (mv, tv) = _pair(shape), _pair(shape[:-2] + (S, 4)), _pair(shape[:-2] + (S, 6))
    kwargs = dict(SDPA[case])
    mkw, tkw = dict(kwargs), dict(kwargs)
    if kwargs.get("attn_mask") in ("bool", "bool-2d"):
        mshape = shape[:-2] + (L, S) if kwargs["attn_mask"] == "bool" else (L, S)
        m = RNG.random(mshape) > 0.3
        m[..., 0] = True  # every row attends somewhere
        mkw["attn_mask"], tkw["attn_mask"] = mg.tensor(m), torch.tensor(m)
    elif kwargs.get("attn_mask") == "float":
        (mkw["attn_mask"], tkw["attn_mask"]) = _pair(shape[:-2] + (L, S))
    mout = MF.scaled_dot_product_attention(mq, mk, mv, **mkw)
    tout = TF.scaled_dot_product_attention(tq, tk, tv, **tkw)
    _close(mout, tout)
    _backward_both(mout, tout)
    for a, b in [(mq, tq), (mk, tk), (mv, tv)] + ([(mkw["attn_mask"], tkw["attn_mask"])] if case == "float-mask" else []):
        _close(a.grad, b.grad)


def test_sdpa_grouped_query_attention_matches_torch() -> None:
    (mq, tq), (mk, tk), (mv, tv) = _pair((2, 4, 3, 5)), _pair((2, 2, 3, 5)), _pair((2, 2, 3, 5))
    mout = MF.scaled_dot_product_attention(mq, mk, mv, enable_gqa=True)
    tout = TF.scaled_dot_product_attention(tq, tk, tv, enable_gqa=True)
    _close(mout, tout)
    _backward_both(mout, tout)
    _close(mk.grad, tk.grad)


def test_sdpa_dropout_drops_weights_and_rescales() -> None:
    mg.manual_seed(0)
    q = k = v = mg.ones(1, 4, 4, dtype=mg.float64)
    out = MF.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    # Each output row is (surviving weights * 2) @ ones: a multiple of 0.5, not all 1.
    vals = out.numpy()
    assert np.allclose(vals * 2, np.round(vals * 2)) and not np.allclose(vals, 1.0)


def test_sdpa_signature_and_errors_match_torch() -> None:
    import inspect

    ours = inspect.signature(MF.scaled_dot_product_attention).parameters
    assert list(ours) == ["query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale", "enable_gqa"]
    m = mg.ones(3, 3, dtype=mg.bool)
    with mg.trace() as tr:
        with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
            MF.scaled_dot_product_attention(mg.ones(3, 4), mg.ones(3, 4), mg.ones(3, 4), attn_mask=m, is_causal=True)
        with pytest.raises(RuntimeError):
            MF.scaled_dot_product_attention(mg.ones(3, 4), mg.ones(3, 5), mg.ones(3, 4))
    assert not [e for e in tr.events if type(e).__name__ in ("ApiCall", "NodeCreate")]
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
        TF.scaled_dot_product_attention(torch.ones(3, 4), torch.ones(3, 4), torch.ones(3, 4),
                                        attn_mask=torch.ones(3, 3, dtype=torch.bool), is_causal=True)
    with pytest.raises(RuntimeError):
        TF.scaled_dot_product_attention(torch.ones(3, 4), torch.ones(3, 5), torch.ones(3, 4))


# -- MultiheadAttention --------------------------------------------------------------------------

def _load(ours: Any, theirs: Any) -> None:
    sd = theirs.state_dict()
    assert list(ours.state_dict()) == list(sd)
    assert [tuple(v.shape) for v in ours.state_dict().values()] == [tuple(v.shape) for v in sd.values()]
    ours.load_state_dict({k: v.detach().numpy() for k, v in sd.items()})


def _param_grads(ours: Any, theirs: Any) -> None:
    for (name, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
        _close(p.grad, q.grad)


MHA = {
    "self": {},
    "self-batch-first": {"batch_first": True},
    "cross": {"cross": True},
    "kv-same": {"kv_same": True},
    "kdim-vdim": {"cross": True, "kdim": 3, "vdim": 5},
    "no-bias": {"bias": False},
    "per-head-weights": {"average_attn_weights": False},
    "no-weights": {"need_weights": False},
    "bool-attn-mask": {"attn_mask": "bool"},
    "float-attn-mask-3d": {"attn_mask": "float3"},
    "key-padding": {"key_padding_mask": True},
    "key-padding-no-weights": {"key_padding_mask": True, "need_weights": False},
    "both-masks": {"attn_mask": "bool", "key_padding_mask": True},
    "causal-hint": {"attn_mask": "causal", "is_causal": True, "need_weights": False},
    "unbatched": {"unbatched": True},
    "unbatched-masks": {"unbatched": True, "attn_mask": "bool", "key_padding_mask": True},
    "bias-kv": {"add_bias_kv": True},
    "zero-attn-masks": {"add_zero_attn": True, "attn_mask": "bool", "key_padding_mask": True},
    "bias-kv-zero-attn-cross": {"add_bias_kv": True, "add_zero_attn": True, "cross": True,
                                "attn_mask": "float3", "key_padding_mask": True, "batch_first": True},
    "bias-kv-no-weights": {"add_bias_kv": True, "need_weights": False, "key_padding_mask": True},
}


@pytest.mark.parametrize("case", sorted(MHA))
def test_multihead_attention_matches_torch(case: str) -> None:
    cfg = dict(MHA[case])
    E, H, L, S, N = 8, 2, 4, 5, 3
    bf = cfg.get("batch_first", False)
    ctor = {k: cfg[k] for k in ("batch_first", "bias", "kdim", "vdim", "add_bias_kv", "add_zero_attn") if k in cfg}
    theirs = torch.nn.MultiheadAttention(E, H, **ctor).double()
    ours = mg.nn.MultiheadAttention(E, H, **ctor, dtype=mg.float64)
    _load(ours, theirs)
    unb = cfg.get("unbatched", False)

    def shape(length: int, width: int) -> tuple[int, ...]:
        if unb:
            return (length, width)
        return (N, length, width) if bf else (length, N, width)

    mq, tq = _pair(shape(L, E))
    if cfg.get("cross"):
        (mk, tk), (mv, tv) = _pair(shape(S, cfg.get("kdim", E))), _pair(shape(S, cfg.get("vdim", E)))
    elif cfg.get("kv_same"):
        (mk, tk) = _pair(shape(S, E))
        mv, tv = mk, tk
    else:
        mk, tk, mv, tv, S = mq, tq, mq, tq, L
    kw_m: dict[str, Any] = {}
    kw_t: dict[str, Any] = {}
    for k in ("need_weights", "average_attn_weights", "is_causal"):
        if k in cfg:
            kw_m[k] = kw_t[k] = cfg[k]
    if cfg.get("attn_mask") == "bool":
        m = RNG.random((L, S)) > 0.6
        m[:, 0] = False
        kw_m["attn_mask"], kw_t["attn_mask"] = mg.tensor(m), torch.tensor(m)
    elif cfg.get("attn_mask") == "float3":
        (kw_m["attn_mask"], kw_t["attn_mask"]) = _pair((N * H, L, S), grad=False)
    elif cfg.get("attn_mask") == "causal":
        c = np.triu(np.full((L, S), -np.inf), 1)
        kw_m["attn_mask"], kw_t["attn_mask"] = mg.tensor(c), torch.tensor(c)
    if cfg.get("key_padding_mask"):
        kp = RNG.random((S,) if unb else (N, S)) > 0.7
        kp[..., 0] = False
        kw_m["key_padding_mask"], kw_t["key_padding_mask"] = mg.tensor(kp), torch.tensor(kp)
    mout, mw = ours(mq, mk, mv, **kw_m)
    tout, tw = theirs(tq, tk, tv, **kw_t)
    _close(mout, tout)
    assert (mw is None) == (tw is None)
    if tw is not None:
        _close(mw, tw)
    _backward_both(mout, tout)
    _close(mq.grad, tq.grad)
    if cfg.get("cross") or cfg.get("kv_same"):
        _close(mk.grad, tk.grad)
    _param_grads(ours, theirs)


def test_multihead_attention_init_and_names() -> None:
    mha = mg.nn.MultiheadAttention(16, 4)
    assert mha.in_proj_bias.tolist() == [0.0] * 48 and mha.out_proj.bias.tolist() == [0.0] * 16
    bound = np.sqrt(6.0 / (16 + 48))
    assert np.abs(mha.in_proj_weight.detach().numpy()).max() <= bound
    assert [n for n, _ in mha.named_parameters()] == [n for n, _ in torch.nn.MultiheadAttention(16, 4).named_parameters()]
    sep = mg.nn.MultiheadAttention(16, 4, kdim=8, vdim=4)
    assert list(sep.state_dict()) == list(torch.nn.MultiheadAttention(16, 4, kdim=8, vdim=4).state_dict())


@pytest.mark.parametrize("call, exc", [
    (lambda lib, m: m(lib.ones(4, 3, 6), lib.ones(4, 3, 6), lib.ones(4, 3, 6)), AssertionError),  # wrong width
    (lambda lib, m: m(lib.ones(4, 3, 8), lib.ones(4, 8), lib.ones(4, 8)), AssertionError),  # 3-D q, 2-D k
    (lambda lib, m: m(lib.ones(4, 3, 8), lib.ones(4, 3, 8), lib.ones(4, 3, 8),
                      attn_mask=lib.ones(3, 3)), RuntimeError),  # wrong 2-D mask
    (lambda lib, m: m(lib.ones(4, 3, 8), lib.ones(4, 3, 8), lib.ones(4, 3, 8),
                      attn_mask=lib.ones(5, 4, 4)), RuntimeError),  # wrong 3-D mask
    (lambda lib, m: m(lib.ones(4, 3, 8), lib.ones(4, 3, 8), lib.ones(4, 3, 8), is_causal=True), RuntimeError),
])
def test_multihead_attention_errors_match_torch(call: Any, exc: type) -> None:
    with mg.trace() as tr:
        with pytest.raises(exc):
            call(mg, mg.nn.MultiheadAttention(8, 2))
    assert not [e for e in tr.events if type(e).__name__ in ("ApiCall", "NodeCreate")]
    with pytest.raises(exc):
        call(torch, torch.nn.MultiheadAttention(8, 2))
    for lib in (mg, torch):
        with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
            lib.nn.MultiheadAttention(10, 3)


# -- TransformerEncoderLayer / TransformerEncoder -------------------------------------------------

LAYERS = {
    "post-norm": {},
    "pre-norm": {"norm_first": True},
    "gelu-batch-first": {"activation": "gelu", "batch_first": True},
    "masks": {"masks": True},
    "no-bias": {"bias": False},
    "callable-activation": {"activation": "tanh"},
}


@pytest.mark.parametrize("case", sorted(LAYERS))
@pytest.mark.parametrize("stack", [False, True], ids=["layer", "encoder"])
def test_transformer_encoder_matches_torch(case: str, stack: bool) -> None:
    cfg = dict(LAYERS[case])
    masks = cfg.pop("masks", False)
    E, H, L, N = 8, 2, 5, 3
    m_act = t_act = cfg.pop("activation", "relu")
    if m_act == "tanh":
        m_act, t_act = mg.tanh, torch.tanh
    kw = dict(dim_feedforward=16, dropout=0.0, **cfg)
    tl = torch.nn.TransformerEncoderLayer(E, H, activation=t_act, **kw).double()
    ml = mg.nn.TransformerEncoderLayer(E, H, activation=m_act, **kw, dtype=mg.float64)
    if stack:
        theirs = torch.nn.TransformerEncoder(tl, 2, norm=torch.nn.LayerNorm(E).double(), enable_nested_tensor=False)
        ours = mg.nn.TransformerEncoder(ml, 2, norm=mg.nn.LayerNorm(E, dtype=mg.float64))
        with torch.no_grad():  # make the two layers differ, so a shared copy would show
            theirs.layers[1].linear1.weight.mul_(-0.5)
    else:
        theirs, ours = tl, ml
    _load(ours, theirs)
    shape = (N, L, E) if cfg.get("batch_first") else (L, N, E)
    mx, tx = _pair(shape)
    margs: dict[str, Any] = {}
    targs: dict[str, Any] = {}
    if masks:
        c = np.triu(np.ones((L, L), dtype=bool), 1)  # True: may not attend
        kp = np.zeros((N, L), dtype=bool)
        kp[0, -2:] = True
        mname, kname = ("mask", "src_key_padding_mask") if stack else ("src_mask", "src_key_padding_mask")
        margs[mname], targs[mname] = mg.tensor(c), torch.tensor(c)
        margs[kname], targs[kname] = mg.tensor(kp), torch.tensor(kp)
    # Train mode with dropout 0: torch's eval mode may take its fused fast path instead of the same math.
    mout, tout = ours(mx, **margs), theirs(tx, **targs)
    _close(mout, tout)
    _backward_both(mout, tout)
    _close(mx.grad, tx.grad)
    _param_grads(ours, theirs)


def test_encoder_layers_are_independent_copies() -> None:
    layer = mg.nn.TransformerEncoderLayer(8, 2, 16)
    enc = mg.nn.TransformerEncoder(layer, 3)
    ids = {p.id for p in enc.parameters()}
    assert len(ids) == 3 * len(list(layer.parameters()))
    assert enc.layers[2].linear1.weight.name == "layers.2.linear1.weight"
    np.testing.assert_array_equal(enc.layers[0].linear1.weight.detach().numpy(), enc.layers[2].linear1.weight.detach().numpy())


def test_attention_backward_is_ordinary_nodes() -> None:
    mha = mg.nn.MultiheadAttention(4, 2, dtype=mg.float64)
    x = mg.randn(3, 1, 4, dtype=mg.float64, requires_grad=True)
    out, _ = mha(x, x, x)
    names, stack, seen = set(), [out.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.add(node.name())
        stack.extend(n for n, _ in node.next_functions)
    # PyTorch's multi_head_attention_forward: the scores and the heads are bmm's, the weights a softmax
    assert {"SoftmaxBackward0", "BmmBackward0", "SelectBackward0"} <= names, names


# -- TransformerDecoderLayer / TransformerDecoder / Transformer ----------------------------------

DECODERS = {
    "post-norm": {},
    "pre-norm-batch-first": {"norm_first": True, "batch_first": True},
    "masks": {"masks": True},
    "gelu-no-bias": {"activation": "gelu", "bias": False},
}


@pytest.mark.parametrize("case", sorted(DECODERS))
@pytest.mark.parametrize("what", ["layer", "decoder", "transformer"])
def test_transformer_decoder_matches_torch(case: str, what: str) -> None:
    cfg = dict(DECODERS[case])
    masks = cfg.pop("masks", False)
    E, H, T, S, N = 8, 2, 4, 6, 3
    kw = dict(dim_feedforward=16, dropout=0.0, **cfg)
    if what == "transformer":
        theirs = torch.nn.Transformer(E, H, num_encoder_layers=2, num_decoder_layers=2, **kw).double()
        ours = mg.nn.Transformer(E, H, num_encoder_layers=2, num_decoder_layers=2, **kw, dtype=mg.float64)
    else:
        tl = torch.nn.TransformerDecoderLayer(E, H, **kw).double()
        ml = mg.nn.TransformerDecoderLayer(E, H, **kw, dtype=mg.float64)
        if what == "decoder":
            theirs = torch.nn.TransformerDecoder(tl, 2, norm=torch.nn.LayerNorm(E).double())
            ours = mg.nn.TransformerDecoder(ml, 2, norm=mg.nn.LayerNorm(E, dtype=mg.float64))
        else:
            theirs, ours = tl, ml
    _load(ours, theirs)
    bf = cfg.get("batch_first", False)
    (mt, tt) = _pair((N, T, E) if bf else (T, N, E))
    (mm, tm) = _pair((N, S, E) if bf else (S, N, E))
    margs: dict[str, Any] = {}
    targs: dict[str, Any] = {}
    if masks:
        causal = torch.nn.Transformer.generate_square_subsequent_mask(T, dtype=torch.float64)
        np.testing.assert_array_equal(mg.nn.Transformer.generate_square_subsequent_mask(T, dtype=mg.float64).numpy(),
                                      causal.numpy())
        kp = np.zeros((N, S), dtype=bool)
        kp[1, -2:] = True
        margs["tgt_mask"], targs["tgt_mask"] = mg.tensor(causal.numpy()), causal
        margs["memory_key_padding_mask"], targs["memory_key_padding_mask"] = mg.tensor(kp), torch.tensor(kp)
    if what == "transformer":
        mout, tout = ours(mm, mt, **margs), theirs(tm, tt, **targs)
    else:
        mout, tout = ours(mt, mm, **margs), theirs(tt, tm, **targs)
    _close(mout, tout)
    _backward_both(mout, tout)
    _close(mt.grad, tt.grad)
    _close(mm.grad, tm.grad)
    _param_grads(ours, theirs)


def test_transformer_init_redraws_matrices_with_glorot() -> None:
    t = mg.nn.Transformer(8, 2, 1, 1, 16)
    w = t.encoder.layers[0].linear1.weight.detach().numpy()  # (16, 8): Glorot bound sqrt(6 / 24) = 0.5
    assert np.abs(w).max() <= 0.5 and np.abs(w).max() > 1 / np.sqrt(8)
    assert t.encoder.layers[0].norm1.weight.tolist() == [1.0] * 8  # 1-D parameters keep their init
    for lib in (mg, torch):
        with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
            lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(3, 2, 8), lib.ones(3, 2, 6))
        with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
            lib.nn.Transformer(8, 2, 1, 1, 16)(lib.ones(3, 2, 8), lib.ones(3, 1, 8))


def test_sublayers_are_nn_linear_and_dropout_as_in_torch() -> None:
    """Code that walks model.modules() (an init loop, a weight-decay split) finds the same layers."""
    for lib in (mg, torch):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16)
        kinds = sorted(type(m).__name__ for m in layer.modules()
                       if isinstance(m, (lib.nn.Linear, lib.nn.Dropout, lib.nn.LayerNorm)))
        assert kinds == ["Dropout", "Dropout", "Dropout", "LayerNorm", "LayerNorm", "Linear", "Linear", "Linear"] or \
            kinds == ["Dropout", "Dropout", "Dropout", "LayerNorm", "LayerNorm", "Linear", "Linear",
                      "NonDynamicallyQuantizableLinear"]
        assert isinstance(lib.nn.MultiheadAttention(8, 2).out_proj, lib.nn.Linear)
