"""The user-facing ops (API layer): each defined once, in the module of its family or in a file of its own.

This package imports every one of its modules (``registry`` and private
``_*`` helpers hold no ops) and exports what each lists in ``__all__``, its
public API: adding an op file adds its ops to ``minigrad`` with no list to
update here (see ``docs/add-an-op.md``).
"""

from __future__ import annotations

import importlib
import pkgutil

from .registry import OPS, OpDef

__all__ = ["OPS", "OpDef"]

# Family modules first in this order (their backward formulas build on each other's ops),
# then every other module of the package by name.
_FIRST = ("math", "shape", "reduce", "linalg", "nn")
_modules = [m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_") and m.name != "registry"]
for _name in sorted(_modules, key=lambda n: (_FIRST.index(n) if n in _FIRST else len(_FIRST), n)):
    _module = importlib.import_module(f"{__name__}.{_name}")
    for _export in getattr(_module, "__all__", ()):
        globals()[_export] = getattr(_module, _export)  # a later module's wrapper (torch_forms.max) wins
        if _export not in __all__:
            __all__.append(_export)
del _name, _module, _export
