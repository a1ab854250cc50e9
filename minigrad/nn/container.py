"""Containers (``mg.nn.Sequential``, the deprecated ``mg.nn.Container``), as PyTorch's ``torch/nn/modules/container.py``
(``ModuleList`` and ``ModuleDict`` are in ``nn/layers.py``).

Example:
    >>> import minigrad as mg
    >>> mg.nn.Sequential(mg.nn.Linear(2, 3), mg.nn.ReLU())[0]
    Linear(in_features=2, out_features=3, bias=True)
"""

from __future__ import annotations

import warnings
from typing import Any

from .module import Module

__all__ = ["Sequential", "Container"]

_CONTAINER_DEPRECATED = ("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                         "Subclass that instead.")


class Sequential(Module):
    """Modules applied in order."""

    def __init__(self, *modules: Module) -> None:
        super().__init__()
        for i, m in enumerate(modules):
            if not isinstance(m, Module):
                raise TypeError(f"Sequential(): argument {i} must be a Module, but got {type(m).__name__}")
            setattr(self, str(i), m)

    def forward(self, x: Any) -> Any:
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i: int | slice) -> Module:
        if isinstance(i, slice):  # a Sequential of the chosen modules, under their own names (as PyTorch)
            out = Sequential()
            for name, m in list(self._modules.items())[i]:
                setattr(out, name, m)
            return out
        return list(self._modules.values())[i]

    def __len__(self) -> int:
        return len(self._modules)


class Container(Module):
    """PyTorch's deprecated ``nn.Container``: a Module holding the modules given as keywords (it warns with a
    ``FutureWarning``, as PyTorch's does; subclass ``Module`` instead)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        warnings.warn(_CONTAINER_DEPRECATED, FutureWarning, stacklevel=2)
        super().__init_subclass__(**kwargs)

    def __init__(self, **kwargs: Any) -> None:
        warnings.warn(_CONTAINER_DEPRECATED, FutureWarning, stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
