"""Helpers around parameters and their gradients (``mg.nn.utils``, PyTorch's ``torch.nn.utils``).

Example:
    >>> import minigrad as mg
    >>> w = mg.nn.Parameter(mg.tensor([3.0, 4.0]))
    >>> w.grad = mg.tensor([3.0, 4.0])
    >>> round(mg.nn.utils.clip_grad_norm_([w], max_norm=1.0).item(), 6)
    5.0
"""

from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .init import skip_init
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm
from . import parametrize, parametrizations, prune, rnn, stateless

__all__ = [
    "clip_grad_norm_", "clip_grad_norm", "clip_grads_with_norm_", "clip_grad_value_", "get_total_norm",
    "parameters_to_vector", "vector_to_parameters",
    "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
    "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format", "spectral_norm", "remove_spectral_norm", "weight_norm",
    "remove_weight_norm", "skip_init",
]


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
