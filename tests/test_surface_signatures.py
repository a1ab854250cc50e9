"""The new classes and functions have PyTorch's signatures: the same parameter names, in the same order,
with the same defaults (a function default compares by name). ``device``/``dtype`` factory arguments and
PyTorch's kernel-choice flags (``foreach``, ``fused``, ``capturable``, ``differentiable``) may be absent.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

OPTIONAL = {"device", "dtype", "foreach", "fused", "capturable", "differentiable"}

NAMES = [
    "nn.Embedding", "nn.Embedding.from_pretrained", "nn.functional.embedding", "nn.Bilinear", "nn.EmbeddingBag",
    "nn.EmbeddingBag.forward", "nn.EmbeddingBag.from_pretrained", "nn.functional.embedding_bag",
    *(f"nn.{n}" for n in ("RNNCell", "LSTMCell", "GRUCell", "MultiheadAttention",
                          "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
                          "TransformerDecoder", "Transformer")),
    *(f"nn.{n}.forward" for n in ("MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
                                  "TransformerDecoderLayer", "TransformerDecoder", "Transformer", "RNNCell",
                                  "GRUCell")),
    *(f"nn.Module.{n}" for n in ("register_forward_pre_hook", "register_forward_hook",
                                 "register_full_backward_pre_hook", "register_full_backward_hook")),
    *(f"nn.utils.{n}" for n in ("clip_grad_norm_", "clip_grad_value_", "get_total_norm", "clip_grads_with_norm_",
                                "parameters_to_vector", "vector_to_parameters")),
    *(f"optim.lr_scheduler.{n}" for n in ("StepLR", "MultiStepLR", "ExponentialLR", "LinearLR", "ConstantLR",
                                          "PolynomialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
                                          "LambdaLR", "MultiplicativeLR", "OneCycleLR", "CyclicLR", "SequentialLR",
                                          "ReduceLROnPlateau")),
    *(f"utils.data.{n}" for n in ("DataLoader", "TensorDataset", "Subset", "ConcatDataset", "StackDataset",
                                  "ChainDataset", "random_split", "RandomSampler", "SequentialSampler",
                                  "BatchSampler", "SubsetRandomSampler", "WeightedRandomSampler", "default_collate",
                                  "default_convert")),
    # pooling by positions within a plane: max unpooling, adaptive max pooling (PyTorch's functions of the latter
    # are (*args, **kwargs), a dispatch on return_indices)
    *(f"nn.functional.{n}" for n in ("max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d",
                                     "lp_pool3d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
                                     "adaptive_max_pool3d_with_indices")),
    *(f"nn.{n}" for n in ("LPPool1d", "LPPool2d", "LPPool3d", "MultiLabelMarginLoss")),
    "nn.functional.multilabel_margin_loss",
    "nn.functional.rrelu", "nn.RReLU",  # (torch.rrelu and rrelu_ are builtins: no signature to read)
    *(f"nn.{n}" for n in ("AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "MaxUnpool2d.forward")),
]


def _resolve(root: Any, path: str) -> Any:
    for part in path.split("."):
        root = getattr(root, part)
    return root


def _params(fn: Any) -> list[tuple[str, Any]]:
    out = []
    for name, p in inspect.signature(fn).parameters.items():
        if name in OPTIONAL or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        default = p.default
        if isinstance(default, torch.Generator):
            default = None  # PyTorch's default_generator: minigrad says None, the default generator
        if callable(default) and not isinstance(default, type):
            default = getattr(default, "__name__", default)
        out.append((name, default))
    return out


@pytest.mark.parametrize("path", NAMES)
def test_signature_matches_torch(path: str) -> None:
    assert _params(_resolve(mg, path)) == _params(_resolve(torch, path))


# PyTorch declares these as (*args, **kwargs); their documented signatures:
DOCUMENTED = {
    "RNN": ["input_size", "hidden_size", "num_layers", "nonlinearity", "bias", "batch_first", "dropout",
            "bidirectional"],
    "LSTM": ["input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional",
             "proj_size"],
    "GRU": ["input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional"],
}
DEFAULTS = {"num_layers": 1, "nonlinearity": "tanh", "bias": True, "batch_first": False, "dropout": 0.0,
            "bidirectional": False, "proj_size": 0}


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_recurrent_signatures_match_torch_s_documentation(name: str) -> None:
    want = [(n, DEFAULTS.get(n, inspect.Parameter.empty)) for n in DOCUMENTED[name]]
    assert _params(getattr(mg.nn, name)) == want


# -- initial weights ------------------------------------------------------------------------------

INIT_CASES = {
    "LSTM-proj": lambda L: L.nn.LSTM(3, 4, proj_size=2, num_layers=2),
    "GRU-bidirectional": lambda L: L.nn.GRU(3, 4, bidirectional=True),
    "RNN-relu": lambda L: L.nn.RNN(3, 4, nonlinearity="relu"),
    "LSTMCell": lambda L: L.nn.LSTMCell(3, 4),
    "MultiheadAttention": lambda L: L.nn.MultiheadAttention(8, 2),
    "MultiheadAttention-bias-kv-kdim": lambda L: L.nn.MultiheadAttention(8, 2, add_bias_kv=True, kdim=3, vdim=5),
    "TransformerEncoderLayer": lambda L: L.nn.TransformerEncoderLayer(8, 2, 16),
    "TransformerDecoderLayer": lambda L: L.nn.TransformerDecoderLayer(8, 2, 16),
    "Transformer": lambda L: L.nn.Transformer(8, 2, 1, 1, 16),
}


@pytest.mark.skipif(not hasattr(mg, "Generator"), reason="needs mg.Generator (PyTorch's random streams)")
@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
@pytest.mark.parametrize("case", sorted(INIT_CASES))
def test_initial_weights_are_torch_s_for_the_same_seed(case: str) -> None:
    import numpy as np

    mg.manual_seed(0)
    ours = INIT_CASES[case](mg).state_dict()
    torch.manual_seed(0)
    theirs = INIT_CASES[case](torch).state_dict()
    assert list(ours) == list(theirs)
    for k in theirs:
        np.testing.assert_allclose(ours[k].numpy(), theirs[k].numpy(), rtol=1e-6, atol=1e-7, err_msg=k)
