"""PyTorch's ``torch.return_types``: the named tuples ``max(dim)``, ``sort``, ``linalg.qr``... return.

Each is a ``namedtuple`` (index it, unpack it, or read ``.values``) that prints as PyTorch prints its
structseq, one field a line::

    >>> import minigrad as mg
    >>> print(mg.tensor([[1.0, 5.0], [7.0, 2.0]]).max(1))
    minigrad.return_types.max(
    values=tensor([5., 7.]),
    indices=tensor([1, 0]))

``mg.return_types`` is this module (PyTorch's ``torch.return_types``).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

__all__: list[str] = []  # reached as mg.return_types, never star-exported (its names would shadow mg.max ...)


def _structseq(name: str, fields: list[str]) -> Any:
    """A named tuple ``name`` with ``fields`` and PyTorch's printed form."""
    base = namedtuple(name, fields)

    def __repr__(self: Any) -> str:
        return f"minigrad.return_types.{name}(\n" + ",\n".join(f"{k}={v!r}" for k, v in zip(self._fields, self)) + ")"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "minigrad.return_types",
                                "__doc__": f"``torch.return_types.{name}``: ({', '.join(fields)})."})


max = _structseq("max", ["values", "indices"])
min = _structseq("min", ["values", "indices"])
sort = _structseq("sort", ["values", "indices"])
topk = _structseq("topk", ["values", "indices"])
kthvalue = _structseq("kthvalue", ["values", "indices"])
median = _structseq("median", ["values", "indices"])
nanmedian = _structseq("nanmedian", ["values", "indices"])
mode = _structseq("mode", ["values", "indices"])
cummax = _structseq("cummax", ["values", "indices"])
cummin = _structseq("cummin", ["values", "indices"])
aminmax = _structseq("aminmax", ["min", "max"])
linalg_cholesky_ex = _structseq("linalg_cholesky_ex", ["L", "info"])
linalg_inv_ex = _structseq("linalg_inv_ex", ["inverse", "info"])
linalg_solve_ex = _structseq("linalg_solve_ex", ["result", "info"])
linalg_slogdet = _structseq("linalg_slogdet", ["sign", "logabsdet"])
slogdet = _structseq("slogdet", ["sign", "logabsdet"])
linalg_qr = _structseq("linalg_qr", ["Q", "R"])
qr = _structseq("qr", ["Q", "R"])
linalg_eigh = _structseq("linalg_eigh", ["eigenvalues", "eigenvectors"])
linalg_svd = _structseq("linalg_svd", ["U", "S", "Vh"])
svd = _structseq("svd", ["U", "S", "V"])
linalg_lstsq = _structseq("linalg_lstsq", ["solution", "residuals", "rank", "singular_values"])
geqrf = _structseq("geqrf", ["a", "tau"])
triangular_solve = _structseq("triangular_solve", ["solution", "cloned_coefficient"])
lu_unpack = _structseq("lu_unpack", ["P", "L", "U"])
linalg_lu_factor = _structseq("linalg_lu_factor", ["LU", "pivots"])
linalg_lu_factor_ex = _structseq("linalg_lu_factor_ex", ["LU", "pivots", "info"])
linalg_lu = _structseq("linalg_lu", ["P", "L", "U"])
linalg_ldl_factor_ex = _structseq("linalg_ldl_factor_ex", ["LD", "pivots", "info"])
linalg_ldl_factor = _structseq("linalg_ldl_factor", ["LD", "pivots"])
_lu_with_info = _structseq("_lu_with_info", ["LU", "pivots", "info"])
frexp = _structseq("frexp", ["mantissa", "exponent"])
histogram = _structseq("histogram", ["hist", "bin_edges"])
