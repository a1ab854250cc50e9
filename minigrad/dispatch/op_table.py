"""Every op definition by name (``OPS``), filled by ``ops/registry.defop``.

Ops are defined one layer up (``ops/``), yet the dispatch layer runs a few
of them itself - AMP's and the in-place path's ``cast`` - and derives
tables from all of them (the AMP lists). It finds them here, by name, so
imports still go one way.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OPS"]

#: All ops by name (``OpDef`` objects, see ``ops/registry.py``).
OPS: dict[str, Any] = {}
