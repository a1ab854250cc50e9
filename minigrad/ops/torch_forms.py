"""PyTorch's everyday functions that are compositions of minigrad ops (no kernel or backward of their own).

Each function here is written with registered ops (``where``, ``matmul``,
``getitem``, ``sum`` ...), so its gradient, its events and its grad nodes are
those of the ops it is made of: ``var`` shows up in a trace as ``mean``,
``sub``, ``mul``, ``sum`` and ``div`` nodes. That is how PyTorch's own
composite ops (``CompositeImplicitAutograd``) work too.

- reductions with PyTorch's return forms: ``max``/``min`` with ``dim`` give
  ``(values, indices)``; ``var``/``std`` with ``correction``;
- ``masked_fill``, ``tril``/``triu``, ``clamp`` (numbers or tensors as bounds),
  ``clamp_min``/``clamp_max``;
- ``cat`` (``concat`` is the registered op), ``split``, ``chunk``;
- ``t``, ``bmm``, ``einsum`` (one or two operands, contractions by ``matmul``);
- ``allclose``/``isclose`` (no gradient: they compare values).

Example:
    >>> import minigrad as mg
    >>> v, i = mg.max(mg.tensor([[1.0, 5.0], [7.0, 2.0]]), dim=1)
    >>> v.tolist(), i.tolist()
    ([5.0, 7.0], [1, 0])
"""

from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any, Sequence

import numpy as np

from .. import dtypes as _dt
from ..kernels.backends import move_array, to_numpy
from ..kernels.infer_meta import reduced_dims
from ..tensor import Tensor
from .argmax import argmax, argmin
from .clamp import clamp as _clamp_op
from .linalg import matmul
from .math import add as _add_op
from .math import clip as _clip_op
from .math import cast, div, eq, lt, gt, maximum, minimum, mul, ne, sqrt, sub, where
from .math import div as _div_op
from .math import sub as _sub_op
from .reduce import max as _max_op
from .reduce import mean, min as _min_op, sum
from .registry import type_name
from .rounding import div_rounded as _div_rounded_op
from .shape import concat, expand, getitem, permute, reshape, transpose

__all__ = [
    "max", "min", "amax", "amin", "var", "std", "masked_fill", "tril", "triu", "clamp", "clamp_min", "clamp_max", "cat", "split",
    "chunk", "t", "bmm", "einsum", "allclose", "isclose", "return_types", "unbind", "var_mean", "std_mean",
    "nansum", "nanmean", "aminmax", "equal",
]


class return_types:
    """Named tuples returned by ``max``/``min`` with a ``dim`` (PyTorch's ``torch.return_types``)."""

    max = namedtuple("max", ["values", "indices"])
    min = namedtuple("min", ["values", "indices"])
    sort = namedtuple("sort", ["values", "indices"])
    topk = namedtuple("topk", ["values", "indices"])
    kthvalue = namedtuple("kthvalue", ["values", "indices"])
    median = namedtuple("median", ["values", "indices"])
    cummax = namedtuple("cummax", ["values", "indices"])
    cummin = namedtuple("cummin", ["values", "indices"])
    aminmax = namedtuple("aminmax", ["min", "max"])


def _dim_alias(op: str, dim: Any, axis: Any) -> Any:
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{op}(): pass either 'dim' or its alias 'axis', not both")
        return axis
    return dim


def _keepdim_alias(op: str, keepdim: Any, keepdims: Any) -> Any:
    # NumPy's spelling, which PyTorch accepts too: x.max(1, keepdims=True)
    if keepdims is not None:
        if keepdim:
            raise TypeError(f"{op}(): pass either 'keepdim' or its alias 'keepdims', not both")
        return keepdims
    return keepdim


def _check_tensor(op: str, name: str, pos: int, v: Any) -> None:
    if not isinstance(v, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be Tensor, but got {type_name(v)}")


def _extreme(op: str, reduce_op: Any, arg_op: Any, pair_op: Any, named: Any):
    def fn(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Any:
        _check_tensor(op, "input", 0, input)
        keepdim = _keepdim_alias(op, keepdim, keepdims)
        if isinstance(dim, Tensor):  # torch.max(a, b) is the elementwise maximum
            return pair_op(input, dim)
        dim = _dim_alias(op, dim, axis)
        if dim is None or isinstance(dim, (tuple, list)):
            # All dims (PyTorch), or several dims (a minigrad extension): the values only.
            return reduce_op(input, dim=dim, keepdim=keepdim) if dim is not None else reduce_op(input)
        if input.ndim == 0 or input.numel() == 0:  # nothing to pick from (the op's own errors)
            return named(reduce_op(input, dim=dim, keepdim=keepdim), arg_op(input, dim=dim, keepdim=keepdim))
        indices = arg_op(input, dim=dim, keepdim=keepdim)
        # The values are picked at the indices (PyTorch's max.dim): the gradient goes to that one
        # position, not shared among ties as amax's is, and the input is not saved for backward.
        return named(getitem(input, _index_at(to_numpy(indices._data), input.ndim, dim % input.ndim, keepdim)), indices)

    fn.__name__ = op
    fn.__doc__ = (
        f"The {op}imum over all elements, or with ``dim`` a ``(values, indices)`` named tuple "
        f"(``torch.{op}``); ``{op}(a, b)`` with a Tensor ``b`` is ``{pair_op.name}``."
    )
    return fn


def _index_at(picked: np.ndarray, ndim: int, d: int, keepdim: bool) -> tuple[np.ndarray, ...]:
    """An advanced index selecting ``picked[...]`` along dim ``d`` of every other position (``gather``'s)."""
    shape = picked.shape if keepdim else picked.shape[:d] + (1,) + picked.shape[d:]
    grid = np.indices(shape, sparse=True)
    idx = [g for g in grid]
    idx[d] = picked if keepdim else picked.reshape(shape)
    if not keepdim:
        idx = [np.squeeze(np.broadcast_to(i, shape), axis=d) for i in idx]
    return tuple(idx)


max = _extreme("max", _max_op, argmax, maximum, return_types.max)
min = _extreme("min", _min_op, argmin, minimum, return_types.min)


def amax(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """The largest values over ``dim`` (an int or a tuple; all dims when ``None``), values only."""
    return _max_op(input, dim=_dim_alias("amax", dim, axis), keepdim=_keepdim_alias("amax", keepdim, keepdims))


def amin(input: Tensor, dim: Any = None, keepdim: bool = False, *, axis: Any = None, keepdims: Any = None) -> Tensor:
    """The smallest values over ``dim`` (an int or a tuple; all dims when ``None``), values only."""
    return _min_op(input, dim=_dim_alias("amin", dim, axis), keepdim=_keepdim_alias("amin", keepdim, keepdims))


def var(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None,
        axis: Any = None, keepdims: Any = None) -> Tensor:
    """Variance over ``dim``: ``sum((x - mean)^2) / (N - correction)``; ``correction=1`` (Bessel) by default.

    ``unbiased=False`` is the old spelling of ``correction=0``.
    """
    _check_tensor("var", "input", 0, input)
    dim = _dim_alias("var", dim, axis)
    keepdim = _keepdim_alias("var", keepdim, keepdims)
    if isinstance(dim, bool):  # var(x, False): the old positional 'unbiased'
        dim, unbiased = None, dim
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    if not isinstance(correction, (int, float)) or isinstance(correction, bool):
        raise TypeError(f"var(): argument 'correction' must be a number, but got {type_name(correction)}")
    dims = tuple(range(input.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    if input.ndim == 0:  # a 0-d tensor takes dim 0 / -1 (checked here) and reduces nothing
        dims = reduced_dims("var", dims, 0)
    n = 1
    for d in dims:
        n *= input.shape[d]
    centered = sub(input, mean(input, dim=dims, keepdim=True))
    return div(sum(mul(centered, centered), dim=dims, keepdim=keepdim), float(builtins.max(n - correction, 0)))


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *, correction: Any = None,
        axis: Any = None, keepdims: Any = None) -> Tensor:
    """Standard deviation: ``sqrt(var(...))`` with the same arguments."""
    return sqrt(var(input, dim, unbiased, keepdim, correction=correction, axis=axis, keepdims=keepdims))


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(var(...), mean(...))`` over the same dims (``torch.var_mean``)."""
    v = var(input, dim, unbiased, keepdim, correction=correction)
    d = None if isinstance(dim, bool) else dim
    return v, mean(input, dim=d, keepdim=keepdim)


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(std(...), mean(...))`` over the same dims (``torch.std_mean``)."""
    v, m = var_mean(input, dim, unbiased, keepdim, correction=correction)
    return sqrt(v), m


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``sum`` with NaN counted as 0 (``torch.nansum``); the gradient skips the NaN elements."""
    _check_tensor("nansum", "input", 0, input)
    x = input if dtype is None else input.astype(dtype)
    if x.dtype.is_floating:
        x = where(ne(x, x), Tensor._scalar(0, x.dtype, x.device), x)
    return sum(x, dim=dim, keepdim=keepdim)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``mean`` over the elements that are not NaN (``torch.nanmean``; NaN where all are)."""
    _check_tensor("nanmean", "input", 0, input)
    if not input.dtype.is_floating and dtype is None:
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got {input.dtype}")
    x = input if dtype is None else input.astype(dtype)
    present = cast(eq(x, x), x.dtype)
    return div(nansum(x, dim, keepdim), sum(present, dim=dim, keepdim=keepdim))


def aminmax(input: Tensor, *, dim: Any = None, keepdim: bool = False) -> Any:
    """``(min, max)`` over ``dim`` (all elements when ``None``) as a named tuple (``torch.aminmax``)."""
    _check_tensor("aminmax", "input", 0, input)
    return return_types.aminmax(amin(input, dim, keepdim), amax(input, dim, keepdim))


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``value`` where ``mask`` is True, ``input`` elsewhere (``mask`` broadcasts; no gradient to ``mask``)."""
    _check_tensor("masked_fill", "input", 0, input)
    _check_tensor("masked_fill", "mask", 1, mask)
    if mask.dtype is not _dt.bool_:
        raise TypeError(f"masked_fill(): argument 'mask' (position 1) must have dtype bool, but got {mask.dtype}")
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"masked_fill(): a Tensor 'value' must be 0-dimensional, but got shape {tuple(value.shape)}")
    elif isinstance(value, (bool, int, float)):
        value = Tensor._scalar(value, input.dtype, input.device)
    else:
        raise TypeError(f"masked_fill(): argument 'value' (position 2) must be a number or a 0-d Tensor, but got {type_name(value)}")
    return where(mask, value, input)


def _triangle(op: str, input: Tensor, diagonal: int, lower: bool) -> Tensor:
    _check_tensor(op, "input", 0, input)
    if input.ndim < 2:
        raise ValueError(f"{op}(): input must have at least 2 dimensions, but got shape {tuple(input.shape)}")
    if not isinstance(diagonal, int) or isinstance(diagonal, bool):
        raise TypeError(f"{op}(): argument 'diagonal' (position 1) must be int, but got {type_name(diagonal)}")
    rows, cols = input.shape[-2:]
    keep = np.tri(rows, cols, k=diagonal, dtype=bool) if lower else ~np.tri(rows, cols, k=diagonal - 1, dtype=bool)
    data = keep if input.device == "cpu" else move_array(keep, "cpu", input.device)
    mask = Tensor._make(data, _dt.bool_, input.device)
    return where(mask, input, Tensor._scalar(0, input.dtype, input.device))


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two dims (elements above ``diagonal`` set to 0)."""
    return _triangle("tril", input, diagonal, True)


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two dims (elements below ``diagonal`` set to 0)."""
    return _triangle("triu", input, diagonal, False)


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Clamp into ``[min, max]``; bounds are numbers (the ``clip`` op) or broadcastable Tensors.

    With Tensor bounds the gradient goes to ``input`` where it lies inside and
    to the bound that was taken elsewhere, as in PyTorch.
    """
    _check_tensor("clamp", "input", 0, input)
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        return _clip_op(input, min, max)
    # A tensor bound: the clamp op (ops/clamp.py); a number beside it becomes a 0-d tensor.
    if min is None and max is None:
        raise ValueError("clamp(): at least one of 'min' or 'max' must not be None")
    lo, hi = (b if b is None or isinstance(b, Tensor) else _scalar_like(input, b) for b in (min, max))
    bounds = "both" if lo is not None and hi is not None else ("min" if lo is not None else "max")
    return _clamp_op(input, lo, hi, bounds=bounds)


clamp.name = "clamp"  # type: ignore[attr-defined]


def _scalar_like(input: Tensor, value: Any) -> Tensor:
    """A number beside a tensor bound, as a 0-d tensor (a float with an integer input: float32, as PyTorch)."""
    dtype = input.dtype if input.dtype.is_floating or not isinstance(value, float) else _dt.float32
    return Tensor._scalar(value, dtype, input.device)


def clip(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """PyTorch's alias of ``clamp`` (numbers or tensors as bounds); ``OPS["clip"]`` is the op for numbers."""
    return clamp(input, min, max)


clip.name = "clip"  # type: ignore[attr-defined]


def clamp_min(input: Tensor, min: Any) -> Tensor:
    """``clamp(input, min=min)``."""
    return clamp(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    """``clamp(input, max=max)``."""
    return clamp(input, max=max)


def cat(tensors: Sequence[Tensor], dim: int = 0, *, axis: Any = None) -> Tensor:
    """Join tensors along an existing dim (PyTorch's name for the ``concat`` op)."""
    return concat(tensors, dim=axis if axis is not None else dim)


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces of ``tensor`` along ``dim``: of size ``split_size`` each (the last may be smaller), or of the
    listed sizes. Each piece is a ``getitem`` slice, so gradients flow back into place."""
    _check_tensor("split", "tensor", 0, tensor)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"split(): argument 'dim' (position 2) must be int, but got {type_name(dim)}")
    size = tensor.shape[dim]
    if isinstance(split_size_or_sections, int) and not isinstance(split_size_or_sections, bool):
        step = split_size_or_sections
        if step <= 0:
            raise ValueError(f"split(): split_size must be positive, but got {step}")
        sizes = [builtins.min(step, size - s) for s in range(0, size, step)] or [0]
    elif isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if builtins.sum(sizes) != size:
            raise ValueError(
                f"split(): split sizes {list(sizes)} must sum to the size {size} of dimension {dim}"
            )
    else:
        raise TypeError(
            f"split(): argument 'split_size_or_sections' (position 1) must be int or a list of ints, "
            f"but got {type_name(split_size_or_sections)}"
        )
    d = dim % tensor.ndim
    out, start = [], 0
    for s in sizes:
        out.append(getitem(tensor, (slice(None),) * d + (slice(start, start + s),)))
        start += s
    return tuple(out)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """``chunks`` pieces of (nearly) equal size along ``dim``, as ``torch.chunk``."""
    _check_tensor("chunk", "input", 0, input)
    if not isinstance(chunks, int) or isinstance(chunks, bool) or chunks <= 0:
        raise ValueError(f"chunk(): argument 'chunks' must be a positive int, but got {chunks!r}")
    size = input.shape[dim]
    step = builtins.max(-(-size // chunks), 1)
    return split(input, step, dim)


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices of ``input`` along ``dim``, that dim removed (``torch.unbind``); each a ``getitem``, so the
    gradients of the pieces go back into place (PyTorch's backward stacks them: the same sum)."""
    _check_tensor("unbind", "input", 0, input)
    if not isinstance(dim, int) or isinstance(dim, bool):
        raise TypeError(f"unbind(): argument 'dim' (position 1) must be int, but got {type_name(dim)}")
    if input.ndim == 0:
        raise ValueError("unbind(): Dimension specified as 0 but tensor has no dimensions")
    if not -input.ndim <= dim < input.ndim:
        raise ValueError(f"unbind(): dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], but got {dim})")
    d = dim % input.ndim
    return tuple(getitem(input, (slice(None),) * d + (i,)) for i in range(input.shape[d]))


def t(input: Tensor) -> Tensor:
    """Transpose of a tensor with at most 2 dims; of a 1-D or 0-D tensor, a new view with the same
    values (a tensor of its own, with a grad node, as PyTorch's: never ``input`` itself)."""
    _check_tensor("t", "input", 0, input)
    if input.ndim > 2:
        raise ValueError(f"t(): expects a tensor with <= 2 dimensions, but got {input.ndim}; use transpose() or .mT")
    return transpose(input, 0, 1) if input.ndim == 2 else transpose(input, 0, -1)


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    """Batched matrix product of two 3-D tensors ``(b, n, m) @ (b, m, p)``."""
    _check_tensor("bmm", "input", 0, input)
    _check_tensor("bmm", "mat2", 1, mat2)
    if input.ndim != 3 or mat2.ndim != 3:
        raise ValueError(f"bmm(): both arguments must be 3-D, but got shapes {tuple(input.shape)} and {tuple(mat2.shape)}")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise ValueError(f"bmm(): shapes {tuple(input.shape)} and {tuple(mat2.shape)} cannot be multiplied")
    return matmul(input, mat2)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _parse_einsum(equation: str, operands: Sequence[Tensor]) -> tuple[list[str], str]:
    """The subscripts of each operand and of the output, ``...`` replaced by letters the equation does not use.

    An operand's ``...`` stands for its dims not named by letters; the
    ``...`` of all operands broadcast together, right-aligned (as NumPy's).
    Without ``->`` the output is the ``...`` dims, then the letters seen once,
    in ASCII order (capitals first, as PyTorch).
    """
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 0) must be str, but got {type_name(equation)}")
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(operands):
        raise ValueError(f"einsum(): the equation has {len(ins)} operands but {len(operands)} tensors were given")
    for spec in ins + ([out] if arrow else []):
        if spec.count("...") > 1 or "." in spec.replace("...", ""):
            raise ValueError(f"einsum(): '{spec}' may contain '...' (an ellipsis) at most once, and no other '.'")
        if not spec.replace("...", "").isalpha() and spec.replace("...", ""):
            raise ValueError(f"einsum(): subscripts must be letters, but got '{spec}'")
    free = [c for c in _LETTERS if c not in eq]
    n_ell = 0
    for spec, o in zip(ins, operands):
        named = len(spec.replace("...", ""))
        if ("..." in spec and o.ndim < named) or ("..." not in spec and o.ndim != named):
            raise ValueError(f"einsum(): subscripts '{spec}' name {named} dims, but the operand has shape {tuple(o.shape)}")
        n_ell = builtins.max(n_ell, o.ndim - named if "..." in spec else 0)
    ell = "".join(free[:n_ell])
    ins = [spec.replace("...", ell[n_ell - (o.ndim - len(spec.replace("...", ""))):]) if "..." in spec else spec
           for spec, o in zip(ins, operands)]
    if arrow:
        out = out.replace("...", ell)
    else:
        counts = {c: "".join(ins).count(c) for c in set("".join(ins)) if c not in ell}
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1))  # ASCII order: capitals first
    if len(set(out)) != len(out) or any(c not in "".join(ins) for c in out):
        raise ValueError(f"einsum(): output subscripts '{equation.partition('->')[2]}' must be distinct letters of the inputs")
    return ins, out


def _diagonals(x: Tensor, spec: str) -> tuple[Tensor, str]:
    """Take the diagonal for each letter repeated within one operand (``"ii"`` reads ``x[k, k]``): move the
    two dims to the front and index both with ``arange`` (a ``getitem``, whose backward scatters back)."""
    while len(set(spec)) != len(spec):
        c = next(ch for ch in spec if spec.count(ch) > 1)
        p = spec.index(c)
        q = spec.index(c, p + 1)
        if x.shape[p] != x.shape[q]:
            raise ValueError(f"einsum(): subscript '{c}' is repeated for dims of sizes {x.shape[p]} and {x.shape[q]}")
        rest = [k for k in range(len(spec)) if k not in (p, q)]
        x = permute(x, (p, q, *rest))
        diag = np.arange(x.shape[0])
        x = getitem(x, (diag, diag))
        spec = c + "".join(spec[k] for k in rest)
    return x, spec


def _reduce_only_here(x: Tensor, spec: str, keep: set[str]) -> tuple[Tensor, str]:
    """Sum away the letters of ``spec`` not in ``keep`` (appear in this operand only, not in the output)."""
    drop = tuple(i for i, c in enumerate(spec) if c not in keep)
    if not drop:
        return x, spec
    return sum(x, dim=drop), "".join(c for c in spec if c in keep)


def _contract(a: Tensor, sa: str, b: Tensor, sb: str, keep: str) -> tuple[Tensor, str]:
    """``einsum(f"{sa},{sb}->...")`` of two operands with one batched ``matmul``; the result keeps the letters
    of ``keep`` that appear in either operand, in the order batch, left, right."""
    keep_set = set(keep)
    a, sa = _reduce_only_here(a, sa, keep_set | set(sb))
    b, sb = _reduce_only_here(b, sb, keep_set | set(sa))
    size: dict[str, int] = {}
    for spec, o in ((sa, a), (sb, b)):
        for c, s in zip(spec, o.shape):
            if size.get(c, 1) != 1 and s != 1 and size[c] != s:
                raise ValueError(f"einsum(): subscript '{c}' has size {size[c]} in one operand and {s} in another")
            size[c] = builtins.max(size.get(c, 1), s)
    # A size-1 dim meeting a larger one broadcasts (expand, whose backward sums the copies).
    if any(s != size[c] for c, s in zip(sa, a.shape)):
        a = expand(a, tuple(size[c] for c in sa))
    if any(s != size[c] for c, s in zip(sb, b.shape)):
        b = expand(b, tuple(size[c] for c in sb))
    batch = [c for c in sa if c in sb and c in keep_set]
    left = [c for c in sa if c not in sb]
    right = [c for c in sb if c not in sa]
    contract = [c for c in sa if c in sb and c not in keep_set]

    def prod(letters: list[str]) -> int:
        p = 1
        for c in letters:
            p *= size[c]
        return p

    a3 = reshape(permute(a, tuple(sa.index(c) for c in batch + left + contract)),
                 (prod(batch), prod(left), prod(contract)))
    b3 = reshape(permute(b, tuple(sb.index(c) for c in batch + contract + right)),
                 (prod(batch), prod(contract), prod(right)))
    r = reshape(matmul(a3, b3), tuple(size[c] for c in batch + left + right))
    return r, "".join(batch + left + right)


def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation (``"bij,bjk->bik"``, ``"...ij,...jk->...ik"``, ``"ii->i"``, ``"i,i->"``, ``"ij->ji"``).

    Composite. Repeated letters within one operand take a diagonal
    (``getitem``); letters in one operand only and not in the output are
    summed first (``sum``); then the operands are contracted pairwise, left
    to right, each pair with one batched ``matmul``: the letters are grouped
    into batch (both operands, still needed), left-only, right-only and
    contracted ones, each operand permuted and reshaped to
    ``(batch, rows, contracted)``. ``...`` stands for the dims not named by
    letters, broadcast across operands. The gradient is that of those ops.
    """
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise ValueError("einsum(): must provide at least one operand")
    for i, o in enumerate(operands):
        _check_tensor("einsum", f"operands[{i}]", i + 1, o)
    ins, out = _parse_einsum(equation, operands)
    xs = []
    for o, spec in zip(operands, ins):
        x, spec = _diagonals(o, spec)
        xs.append((x, spec))
    # Sizes must agree (or be 1, which broadcasts) across operands.
    seen: dict[str, int] = {}
    for x, spec in xs:
        for c, s in zip(spec, x.shape):
            if seen.get(c, 1) != 1 and s != 1 and seen[c] != s:
                raise ValueError(f"einsum(): subscript '{c}' has size {seen[c]} in one operand and {s} in another")
            seen[c] = builtins.max(seen.get(c, 1), s)
    x, spec = xs[0]
    for k in range(1, len(xs)):
        later = "".join(sp for _, sp in xs[k + 1:])
        x, spec = _contract(x, spec, xs[k][0], xs[k][1], out + later)
    x, spec = _reduce_only_here(x, spec, set(out))
    if any(x.shape[spec.index(c)] != seen[c] for c in spec):  # a size-1 dim no other operand met
        x = expand(x, tuple(seen[c] for c in spec))
    return permute(x, tuple(spec.index(c) for c in out)) if spec != out else x


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|`` as a bool tensor (no gradient)."""
    _check_tensor("isclose", "input", 0, input)
    _check_tensor("isclose", "other", 1, other)
    res = np.isclose(to_numpy(input._data), to_numpy(other._data), rtol=rtol, atol=atol, equal_nan=equal_nan)
    data = res if input.device == "cpu" else move_array(res, "cpu", input.device)
    return Tensor._make(np.asarray(data), _dt.bool_, input.device)


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether both have the same shape and the same values (``torch.equal``; NaN is never equal)."""
    _check_tensor("equal", "input", 0, input)
    _check_tensor("equal", "other", 1, other)
    return tuple(input.shape) == tuple(other.shape) and bool(np.array_equal(to_numpy(input._data), to_numpy(other._data)))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element of ``input`` is close to ``other`` (see ``isclose``)."""
    return bool(np.all(to_numpy(isclose(input, other, rtol, atol, equal_nan)._data)))


# -- arithmetic with PyTorch's extra arguments ------------------------------------------
# ``mg.add``/``mg.sub``/``mg.div`` and the methods of the same name take these forms; the
# operators (``x + y``) and minigrad's own formulas call the registered ops directly.


def _alpha_form(op: Any) -> Any:
    def fn(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
            raise TypeError(f"{op.name}(): argument 'alpha' must be a number, but got {type_name(alpha)}")
        if alpha == 1:
            return op(input, other)
        return op(input, mul(other, alpha) if isinstance(other, Tensor) else other * alpha)

    fn.__name__ = fn.__qualname__ = op.name
    fn.name = op.name  # type: ignore[attr-defined]  (as the op's, for code that reads it)
    fn.__doc__ = f"``input {'+' if op.name == 'add' else '-'} alpha * other`` (the ``{op.name}`` op; ``alpha`` defaults to 1)."
    return fn


add = _alpha_form(_add_op)
sub = _alpha_form(_sub_op)


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """True division, or with ``rounding_mode`` ``"trunc"`` / ``"floor"`` the quotient rounded toward zero /
    down (integer inputs then give an exact integer result; the rounded quotient's derivative is 0)."""
    if rounding_mode is None:
        return _div_op(input, other)
    if rounding_mode not in ("trunc", "floor"):
        raise ValueError(f"div(): rounding_mode must be None, 'trunc' or 'floor', but got {rounding_mode!r}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("div(): at least one of 'input' and 'other' must be a Tensor")
    return _div_rounded_op(input, other, rounding_mode=rounding_mode)


div.name = "div"  # type: ignore[attr-defined]
