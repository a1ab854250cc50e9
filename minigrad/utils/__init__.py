"""Utilities with PyTorch's names (``mg.utils.data``: datasets, samplers and the DataLoader;
``mg.utils.checkpoint``: activation checkpointing; ``mg.utils.deterministic``: the deterministic mode's fill of
new memory; ``mg.utils.hooks``: the handle a registered hook returns)."""

from . import checkpoint, data, deterministic, hooks

__all__ = ["checkpoint", "data", "deterministic", "hooks"]


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
