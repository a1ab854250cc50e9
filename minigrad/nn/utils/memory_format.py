"""``mg.nn.utils.convert_conv2d_weight_memory_format`` (and ``convert_conv3d_weight_memory_format``, for
``channels_last_3d``): lay out every 2-D (3-D) convolution's weight in a memory format, PyTorch's (the
channels-last tutorial's way to convert a model's weights without its inputs).

Example:
    >>> import minigrad as mg
    >>> model = mg.nn.Sequential(mg.nn.Conv2d(3, 4, 3), mg.nn.ReLU())
    >>> _ = mg.nn.utils.convert_conv2d_weight_memory_format(model, mg.channels_last)
    >>> model[0].weight.is_contiguous(memory_format=mg.channels_last)
    True
"""

from __future__ import annotations

from typing import Any

from ..conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d
from ..module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def convert_conv2d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    """Each ``Conv2d``/``ConvTranspose2d`` weight in ``module`` (itself or a descendant) copied into
    ``memory_format``, the Parameter kept (its ``.data`` replaced). Returns ``module``."""
    if isinstance(module, (Conv2d, ConvTranspose2d)):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        convert_conv2d_weight_memory_format(child, memory_format)
    return module


def convert_conv3d_weight_memory_format(module: Module, memory_format: Any) -> Module:
    """Each ``Conv3d``/``ConvTranspose3d`` weight in ``module`` (itself or a descendant) copied into
    ``memory_format`` (``channels_last_3d`` for the 5-D weights), the Parameter kept. Returns ``module``."""
    if isinstance(module, (Conv3d, ConvTranspose3d)):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        convert_conv3d_weight_memory_format(child, memory_format)
    return module
