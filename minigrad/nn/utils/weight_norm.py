"""``mg.nn.utils.weight_norm`` and ``remove_weight_norm``: PyTorch's older weight normalization, a forward
pre-hook (``parametrizations.weight_norm`` is the newer form).

NOTE [ Weight normalization keeps a magnitude and a direction ]
    ``weight_norm(layer)`` replaces the Parameter ``layer.weight`` with two: ``weight_g``, the norm of each
    slice along ``dim`` (``norm_except_dim``: per output channel for ``dim=0``, the whole tensor for
    ``dim=None``), and ``weight_v``, the weight itself. ``weight`` becomes a plain tensor,
    ``_weight_norm(weight_v, weight_g, dim)``, computed again by a forward pre-hook - the ``WeightNorm``
    object itself - before every call, so each forward's graph reaches both Parameters through one
    ``WeightNormInterfaceBackward0`` (NOTE [ Weight normalization is one node where the norm runs along the
    first or last dim ] in ``ops/weight_norm.py``). An optimizer then trains the magnitude and the
    direction apart. ``remove_weight_norm`` computes the weight once more and makes it a Parameter again.
    PyTorch marks this form deprecated (a ``FutureWarning`` when applied), as minigrad does.

Example:
    >>> import warnings
    >>> import minigrad as mg
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     layer = mg.nn.utils.weight_norm(mg.nn.Linear(3, 2))
    >>> layer.weight_g.shape, layer.weight_v.shape
    (minigrad.Size([2, 1]), minigrad.Size([2, 3]))
"""

from __future__ import annotations

import warnings
from typing import Any

from ...ops.weight_norm import _weight_norm, norm_except_dim
from ..module import Module, Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


class WeightNorm:
    """The forward pre-hook that computes ``module.<name>`` from ``<name>_g`` and ``<name>_v`` (NOTE [ Weight
    normalization keeps a magnitude and a direction ])."""

    def __init__(self, name: str, dim: int | None) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Any:
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int | None) -> "WeightNorm":
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Split ``module.<name>`` into a magnitude ``<name>_g`` and a direction ``<name>_v``, recombined before
    every forward (NOTE [ Weight normalization keeps a magnitude and a direction ]). Returns ``module``."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo ``weight_norm``: ``module.<name>`` a Parameter again, with the current weight's values."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
