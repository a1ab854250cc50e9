"""The user-facing ops (API layer): each defined once, in the module of its family or in a file of its own.

This package imports every one of its modules (``registry`` and private
``_*`` helpers hold no ops) and exports what each lists in ``__all__``, its
public API: adding an op file adds its ops to ``minigrad`` with no list to
update here (see ``docs/add-an-op.md``).

Modules are named for the family they hold (``reduce``, ``shape``, ``clamp``,
``pooling``, ``loss`` ...), as PyTorch's ``torch/nn/modules/``; a family's
composites (functions built from ops, no kernel or formula of their own) sit
beside its ops and say so in their docstrings.

NOTE [ One export per public name ]
    Where PyTorch's form of a function differs from the registered op of the
    same name, the module binds the op under a private name and exports the
    form under the public one: ``reduce.py`` defines the op ``max`` as
    ``_max_op`` (``OPS["max"]``) and exports ``max``, the form that also takes
    an int ``dim`` and returns ``(values, indices)``; ``clamp.py`` the same
    for ``clamp``. So no two modules export the same name and the import
    order below does not decide what ``mg.max`` is. Four forms whose op must
    stay ``mg.ops.<name>`` for the operators and the backward formulas are
    exported by ``minigrad/__init__.py`` by hand instead: ``add``/``sub``
    (``alpha=``, ``math.add_form``), ``div`` (``rounding_mode=``,
    ``division.div``) and ``clip`` (tensor bounds, ``clamp.clip``).
"""

from __future__ import annotations

import importlib
import pkgutil

from .registry import OPS, OpDef

__all__ = ["OPS", "OpDef"]

# Family modules first in this order (their backward formulas build on each other's ops),
# then every other module of the package by name.
_FIRST = ("math", "shape", "reduce", "linalg")
_modules = [m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_") and m.name != "registry"]
for _name in sorted(_modules, key=lambda n: (_FIRST.index(n) if n in _FIRST else len(_FIRST), n)):
    _module = importlib.import_module(f"{__name__}.{_name}")
    for _export in getattr(_module, "__all__", ()):
        globals()[_export] = getattr(_module, _export)  # NOTE [ One export per public name ]
        if _export not in __all__:
            __all__.append(_export)
del _name, _module, _export

from .aten_names import aten  # noqa: E402  (torch.ops.aten: PyTorch's names for the ops, not exported at top level)

# Every op defined: give each its checked-in dygraph function (``minigrad codegen --write``).
from ..dispatch.generated import attach as _attach  # noqa: E402

_attach(OPS)
