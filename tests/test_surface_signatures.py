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
