"""``minigrad.linalg``: PyTorch's ``torch.linalg`` names (norms, ``inv``, ``solve``, ``det``).

The ops live with their families under ``minigrad/ops/`` (``ops/norm.py``, ``ops/inverse.py``);
this module gives them the names ``torch.linalg`` uses.

Example:
    >>> import minigrad as mg
    >>> mg.linalg.norm(mg.tensor([3.0, 4.0])).item()
    5.0
"""

from __future__ import annotations

from .ops.inverse import det, inv, solve
from .ops.norm import linalg_norm as norm
from .ops.norm import matrix_norm, vector_norm

__all__ = ["norm", "vector_norm", "matrix_norm", "inv", "solve", "det"]
