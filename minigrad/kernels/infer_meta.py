"""InferMeta: output shape and dtype from the inputs' metadata (Paddle's paddle/phi/infermeta/, ``MatmulInferMeta``).

Every function takes the op name, the (prepared) input arrays - only their
``.shape``, ``.ndim`` and ``.dtype`` are read - and the op's attributes, and
returns ``(shape, numpy dtype)`` (a list of them for several outputs). Bad
shapes raise ``ShapeError`` (a ``RuntimeError`` and a ``ValueError``, ``minigrad/errors.py``) naming the op, the arguments and what was
expected; the kernel never runs on them.
"""

from __future__ import annotations

import math

from typing import Any, Sequence

import numpy as np

from ..dtypes import cpp_type_name, is_floating_np, scalar_type_name  # noqa: F401  (scalar_type_name: imported from here too)
from ..errors import OutOfRangeError, ShapeError
from .pool_windows import pool_out_size

__all__ = [
    "same",
    "to_bool",
    "broadcast",
    "broadcast_shapes",
    "compare",
    "where",
    "reduce",
    "normalize_dims",
    "reduced_dims",
    "matmul",
    "reshape",
    "transpose",
    "t",
    "permute",
    "expand",
    "squeeze",
    "unsqueeze",
    "concat",
    "stack",
    "softmax",
    "cross_entropy",
    "loss_pair",
    "conv2d",
    "pool2d",
]

_BOOL = np.dtype(np.bool_)


def _shape(s: Sequence[int]) -> str:
    return str(tuple(int(d) for d in s))


def same(op: str, x: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    """Output like the input (unary elementwise ops)."""
    return x.shape, x.dtype


def grad_like(op: str, grad: Any, x: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    """A fused backward op's output: like ``grad``, which must have ``x``'s shape
    (``threshold_backward``, ``gelu_backward``, ``layer_norm_backward``)."""
    if tuple(grad.shape) != tuple(x.shape):
        raise ShapeError(f"{op}(): 'grad' has shape {tuple(grad.shape)} but 'x' has shape {tuple(x.shape)}")
    return tuple(grad.shape), grad.dtype


def to_bool(op: str, x: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    return x.shape, _BOOL


def broadcast_shapes(op: str, a: Sequence[int], b: Sequence[int], names: tuple[str, str] = ("x", "y")) -> tuple[int, ...]:
    """NumPy/PyTorch broadcasting of two shapes; refused in PyTorch's words (``op`` and ``names`` are kept for
    the callers, the message names the dimension as PyTorch's does)."""
    if tuple(a) == tuple(b) or not b:  # the same shapes, or a 0-d operand (``x + 1.0``'s number)
        return tuple(a)
    if not a:
        return tuple(b)
    n = max(len(a), len(b))
    out = []
    for i in range(-1, -n - 1, -1):  # from the last dimension, as PyTorch's infer_size checks them
        da = a[i] if -i <= len(a) else 1
        db = b[i] if -i <= len(b) else 1
        if da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            raise ShapeError(
                f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {n + i}"
            )
    return tuple(reversed(out))


def size_mismatch(a: Sequence[int], b: Sequence[int]) -> str:
    """PyTorch's ``infer_size`` refusal of two shapes that do not broadcast (the first dim from the end that
    differs with neither size 1), or "" when they broadcast."""
    n = max(len(a), len(b))
    for i in range(-1, -n - 1, -1):
        da = a[i] if -i <= len(a) else 1
        db = b[i] if -i <= len(b) else 1
        if da != db and da != 1 and db != 1:
            return (f"The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension "
                    f"{n + i}")
    return ""


def broadcast(op: str, x: Any, y: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    """Binary elementwise ops: broadcast shape; dtype of the (already promoted) inputs."""
    shape = x.shape if x.shape == y.shape else broadcast_shapes(op, x.shape, y.shape)
    if x.dtype != y.dtype:
        raise ShapeError(f"{op}(): 'x' has dtype {x.dtype} but 'y' has dtype {y.dtype}")
    return shape, x.dtype


def compare(op: str, x: Any, y: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    shape = x.shape if x.shape == y.shape else broadcast_shapes(op, x.shape, y.shape)
    return shape, _BOOL


def where(op: str, condition: Any, x: Any, y: Any, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    if condition.dtype != _BOOL:
        raise ShapeError(f"{op}(): 'condition' must have dtype bool, but has {condition.dtype}")
    shape = broadcast_shapes(op, x.shape, y.shape)
    shape = broadcast_shapes(op, condition.shape, shape, ("condition", "x/y"))
    if x.dtype != y.dtype:
        raise ShapeError(f"{op}(): 'x' has dtype {x.dtype} but 'y' has dtype {y.dtype}")
    return shape, x.dtype


def normalize_dims(op: str, dim: Any, ndim: int) -> tuple[int, ...]:
    """``dim`` (None, int or sequence) as a sorted tuple of non-negative axes."""
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    out = []
    for d in dims:
        lo, hi = (-ndim, ndim - 1) if ndim > 0 else (-1, 0)
        if not lo <= d <= hi:
            raise OutOfRangeError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {d})")
        d = d % ndim if ndim > 0 else 0
        if d in out:
            raise ShapeError(f"{op}(): dim {d} appears multiple times in the list of dims")
        out.append(d)
    return tuple(sorted(out))


def reduced_dims(op: str, dim: Any, ndim: int) -> tuple[int, ...]:
    """The axes a reduction removes: as ``normalize_dims``, but none for a 0-d tensor (PyTorch takes
    ``dim=0`` or ``-1`` there, checked, and returns the value itself)."""
    dims = normalize_dims(op, dim, ndim)
    return () if ndim == 0 else dims


def reduce(op: str, x: Any, dim: Any = None, keepdim: bool = False, **attrs: Any) -> tuple[tuple[int, ...], Any]:
    """Reductions over ``dim`` (all dims when ``None``); a 0-d tensor accepts dim 0 / -1 and reduces nothing."""
    dims = reduced_dims(op, dim, x.ndim)
    if op in ("max", "min") and any(x.shape[d] == 0 for d in dims):
        raise ShapeError(f"{op}(): cannot reduce an empty tensor")
    if keepdim:
        shape = tuple(1 if i in dims else s for i, s in enumerate(x.shape))
    else:
        shape = tuple(s for i, s in enumerate(x.shape) if i not in dims)
    dtype = x.dtype
    given = attrs.get("dtype")  # ``sum(x, dtype=...)``: the input read in that dtype, the result of it
    if given is not None:
        dtype = given.np
        if op == "mean" and not is_floating_np(dtype):
            raise ShapeError(f"{op}(): could not infer output dtype. Optional dtype must be either a floating point "
                             f"or complex dtype. Got: {scalar_type_name(dtype)}")
        return shape, dtype
    if op == "sum" and dtype.kind in "biu":
        dtype = np.dtype(np.int64)
    if op in ("var", "std") and not is_floating_np(dtype):
        raise ShapeError("std and var only support floating point and complex dtypes")
    if op == "mean" and not is_floating_np(dtype):
        raise ShapeError(f"{op}(): could not infer output dtype. Input dtype must be either a floating point or "
                         f"complex dtype. Got: {scalar_type_name(dtype)}")
    return shape, dtype


def matmul(op: str, x: Any, y: Any, transpose_x: bool = False, transpose_y: bool = False) -> tuple[tuple[int, ...], Any]:
    """``MatmulInferMeta``: 1-D operands are promoted (and the added dim removed), batch dims broadcast."""
    if x.ndim == 0 or y.ndim == 0:
        raise ShapeError(f"{op}(): both arguments need at least 1 dimension, but got shapes {_shape(x.shape)} and {_shape(y.shape)}")
    if x.dtype != y.dtype:
        if transpose_y:  # nn.Linear's x @ W.T: PyTorch's addmm words
            raise ShapeError(f"mat1 and mat2 must have the same dtype, but got {scalar_type_name(x.dtype)} and "
                             f"{scalar_type_name(y.dtype)}")
        raise ShapeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_type_name(x.dtype)} "
                         f"!= {cpp_type_name(y.dtype)}")
    if (transpose_x and x.ndim == 1) or (transpose_y and y.ndim == 1):
        which = "x" if transpose_x and x.ndim == 1 else "y"
        raise ShapeError(f"{op}(): transpose_{which}=True needs '{which}' with at least 2 dimensions (a 1-D vector has no transpose)")
    dx, dy = list(x.shape), list(y.shape)
    x_vec, y_vec = x.ndim == 1, y.ndim == 1
    if x_vec:
        dx = [1] + dx
    if y_vec:
        dy = dy + [1]
    if transpose_x:
        dx[-1], dx[-2] = dx[-2], dx[-1]
    if transpose_y:
        dy[-1], dy[-2] = dy[-2], dy[-1]
    if dx[-1] != dy[-2]:
        raise ShapeError(_matmul_mismatch(x.ndim, y.ndim, dx, dy))
    batch = broadcast_shapes(op, dx[:-2], dy[:-2])
    out = list(batch)
    if not x_vec:
        out.append(dx[-2])
    if not y_vec:
        out.append(dy[-1])
    return tuple(out), x.dtype


#: NumPy dtype -> PyTorch's ScalarType name, as its dtype errors print it ("Got: Long")
def _matmul_mismatch(x_ndim: int, y_ndim: int, dx: list[int], dy: list[int]) -> str:
    """PyTorch's words for inner dimensions that differ (``dx``/``dy``: the shapes as multiplied, 1-D
    operands already given their added dimension), the text a student searches for."""
    if x_ndim == 1 and y_ndim == 1:
        return (f"inconsistent tensor size, expected tensor [{dx[-1]}] and src [{dy[-2]}] to have the same number "
                f"of elements, but got {dx[-1]} and {dy[-2]} elements respectively")
    if y_ndim == 1 and x_ndim == 2:
        return f"size mismatch, got input ({dx[0]}), mat ({dx[0]}x{dx[1]}), vec ({dy[0]})"
    if y_ndim <= 2 or x_ndim == 1:
        # PyTorch folds x's batch dimensions into rows for a matrix on the right (nn.Linear's case)
        rows = math.prod(dx[:-1]) if y_ndim <= 2 else dx[-2]
        return f"mat1 and mat2 shapes cannot be multiplied ({rows}x{dx[-1]} and {dy[-2]}x{dy[-1]})"
    batch = max(math.prod(dx[:-2]), math.prod(dy[:-2]))  # the broadcast batch
    return (f"Expected size for first two dimensions of batch2 tensor to be: [{batch}, {dx[-1]}] but got: "
            f"[{batch}, {dy[-2]}].")


def reshape(op: str, x: Any, shape: tuple[int, ...]) -> tuple[tuple[int, ...], Any]:
    size = math.prod(x.shape)  # Python ints: exact, and ~20x cheaper than np.prod on a small tuple
    unknown = 0
    known = 1
    for s in shape:  # a loop, not comprehensions: each of those is a function call; PyTorch's order of checks
        if s == -1:
            if unknown:
                raise ShapeError("only one dimension can be inferred")
            unknown = 1
        elif s < -1:
            raise ShapeError(f"invalid shape dimension {s}")
        else:
            known *= s
    if (unknown and (known == 0 or size % known)) or (not unknown and known != size):
        # PyTorch's words (``view`` and ``reshape`` alike): what a student searches for
        raise ShapeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    if unknown:
        shape = tuple(size // known if s == -1 else s for s in shape)
    return tuple(shape), x.dtype


def transpose(op: str, x: Any, dim0: int, dim1: int) -> tuple[tuple[int, ...], Any]:
    d0, d1 = (normalize_dims(op, d, x.ndim)[0] for d in (dim0, dim1))
    if x.ndim == 0:  # PyTorch: transpose(0, -1) of a 0-d tensor is the tensor itself
        return (), x.dtype
    s = list(x.shape)
    s[d0], s[d1] = s[d1], s[d0]
    return tuple(s), x.dtype


def t(op: str, x: Any) -> tuple[tuple[int, ...], Any]:
    if x.ndim > 2:
        raise ShapeError(f"{op}() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")  # PyTorch's words
    return tuple(reversed(x.shape)), x.dtype


def permute(op: str, x: Any, dims: tuple[int, ...]) -> tuple[tuple[int, ...], Any]:
    if len(dims) != x.ndim:
        raise ShapeError(f"{op}(): number of dims {len(dims)} doesn't match the tensor's {x.ndim} dimensions")
    norm = normalize_dims(op, dims, x.ndim)
    if len(norm) != x.ndim:
        raise ShapeError(f"{op}(): repeated dim in {dims}")
    return tuple(x.shape[d % x.ndim] for d in dims), x.dtype


def expand(op: str, x: Any, shape: tuple[int, ...]) -> tuple[tuple[int, ...], Any]:
    if len(shape) < x.ndim:
        raise ShapeError(f"{op}(): the number of sizes {len(shape)} must be >= the tensor's {x.ndim} dimensions")
    lead = len(shape) - x.ndim
    out = []
    for i in range(len(shape) - 1, -1, -1):  # from the last dimension, as PyTorch checks them
        s = shape[i]
        if i < lead:
            if s < 0:
                raise ShapeError(f"{op}(): -1 is not allowed for a new leading dimension ({_shape(shape)})")
            out.append(s)
            continue
        xs = x.shape[i - lead]
        if s == -1:
            out.append(xs)
        elif xs == s or xs == 1:
            out.append(s)
        else:
            raise ShapeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({xs}) at non-singleton "
                f"dimension {i}.  Target sizes: {list(shape)}.  Tensor sizes: {list(x.shape)}"
            )
    return tuple(reversed(out)), x.dtype


def squeeze(op: str, x: Any, dim: Any = None) -> tuple[tuple[int, ...], Any]:
    if dim is None:
        return tuple(s for s in x.shape if s != 1), x.dtype
    dims = normalize_dims(op, dim, x.ndim)
    return tuple(s for i, s in enumerate(x.shape) if not (i in dims and s == 1)), x.dtype


def unsqueeze(op: str, x: Any, dim: int) -> tuple[tuple[int, ...], Any]:
    n = x.ndim + 1
    if not -n <= dim < n:
        raise OutOfRangeError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    d = dim % n
    s = list(x.shape)
    s.insert(d, 1)
    return tuple(s), x.dtype


def is_legacy_empty(shape: Sequence[int]) -> bool:
    """A 1-D tensor of size 0 (``zeros(0)``): ``cat`` skips it wherever it stands, as PyTorch does, so a
    program may start an accumulator as ``zeros(0)`` and ``cat`` onto it."""
    return len(shape) == 1 and shape[0] == 0


def concat(op: str, xs: list[Any], dim: int = 0) -> tuple[tuple[int, ...], Any]:
    """PyTorch's ``cat`` rules (``aten/src/ATen/native/TensorShape.cpp``): 1-D empty inputs skipped, the same
    rank and the same sizes outside ``dim`` for the rest; dtypes were promoted by PrepareData already."""
    kept = [(i, t) for i, t in enumerate(xs) if not is_legacy_empty(t.shape)]
    if not kept:
        return (0,), xs[0].dtype
    for i, t in kept:
        if t.ndim == 0:
            raise ShapeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    first_i, first = kept[0]
    d = normalize_dims(op, dim, first.ndim)[0]
    total = 0
    for i, t in kept:
        if t.ndim != first.ndim:
            raise ShapeError(f"Tensors must have same number of dimensions: got {first.ndim} and {t.ndim}")
        for j, (a, b) in enumerate(zip(first.shape, t.shape)):
            if j != d and a != b:
                raise ShapeError(f"Sizes of tensors must match except in dimension {d}. Expected size {a} but got "
                                 f"size {b} for tensor number {i} in the list.")
        if t.dtype != first.dtype:
            raise ShapeError(f"{op}(): tensor {first_i} has dtype {first.dtype} but tensor {i} has dtype {t.dtype}")
        total += t.shape[d]
    s = list(first.shape)
    s[d] = total
    return tuple(s), first.dtype


def stack(op: str, xs: list[Any], dim: int = 0) -> tuple[tuple[int, ...], Any]:
    first = xs[0]
    for i, t in enumerate(xs):
        if t.shape != first.shape:
            raise ShapeError(
                f"stack expects each tensor to be equal size, but got {list(first.shape)} at entry 0 "
                f"and {list(t.shape)} at entry {i}"
            )
        if t.dtype != first.dtype:
            raise ShapeError(f"{op}(): tensor 0 has dtype {first.dtype} but tensor {i} has dtype {t.dtype}")
    shape = list(unsqueeze(op, first, dim)[0])
    shape[dim % (first.ndim + 1)] = len(xs)  # the new dimension holds one entry per tensor
    return tuple(shape), first.dtype


def split_pieces(size: int, split_size: int) -> list[int]:
    """The sizes of ``split(split_size)``'s pieces of a dim of ``size``: ``split_size`` each, the last
    smaller; a dim of size 0 gives one empty piece (PyTorch's ``split``)."""
    n = max(-(-size // split_size), 1) if split_size else 1
    return [min(split_size, size - k * split_size) for k in range(n)]


def split(op: str, x: Any, split_size: int, dim: int) -> list[tuple[tuple[int, ...], Any]]:
    """``split``: one output per piece."""
    size = x.shape[normalize_dims(op, dim, x.ndim)[0]]
    if split_size < 0:
        raise ShapeError(f"split expects split_size be non-negative, but got split_size={split_size}")
    if split_size == 0 and size != 0:
        raise ShapeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
    return split_with_sizes(op, x, split_pieces(size, split_size), dim)


def split_with_sizes(op: str, x: Any, split_sizes: Sequence[int], dim: int) -> list[tuple[tuple[int, ...], Any]]:
    """``split`` with a list of sizes: one output per size."""
    dim = normalize_dims(op, dim, x.ndim)[0]
    sizes = list(split_sizes)
    if any(s < 0 for s in sizes):
        raise ShapeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got "
                         f"split_sizes={sizes}")
    if sum(sizes) != x.shape[dim]:
        raise ShapeError(f"split_with_sizes expects split_sizes to sum exactly to {x.shape[dim]} (input tensor's size "
                         f"at dimension {dim}), but got split_sizes={sizes}")
    shape = list(x.shape)
    metas = []
    for s in sizes:
        shape[dim] = s
        metas.append((tuple(shape), x.dtype))
    return metas


def unbind(op: str, x: Any, dim: int) -> list[tuple[tuple[int, ...], Any]]:
    """``unbind``: one output per index along ``dim``, that dim removed."""
    dim = normalize_dims(op, dim, x.ndim)[0]
    return [(tuple(x.shape[:dim] + x.shape[dim + 1:]), x.dtype)] * x.shape[dim]


def softmax(op: str, x: Any, dim: int = -1) -> tuple[tuple[int, ...], Any]:
    normalize_dims(op, dim, x.ndim)
    if not is_floating_np(x.dtype):
        raise ShapeError(f"{op}(): expected a floating point input, but got {x.dtype}")
    return x.shape, x.dtype


def cross_entropy(op: str, input: Any, target: Any, reduction: str = "mean") -> tuple[tuple[int, ...], Any]:
    if input.ndim != 2:
        raise ShapeError(f"{op}(): 'input' must be 2-D (batch, classes), but got shape {_shape(input.shape)}")
    if target.ndim != 1 or target.shape[0] != input.shape[0]:
        raise ShapeError(
            f"{op}(): 'target' must be 1-D with one class index per row of 'input': expected shape "
            f"({input.shape[0]},), got {_shape(target.shape)}"
        )
    if target.dtype.kind not in "iu":
        raise ShapeError(f"{op}(): 'target' must hold integer class indices, but has dtype {target.dtype}")
    return ((input.shape[0],) if reduction == "none" else ()), input.dtype


def loss_pair(op: str, input: Any, target: Any, reduction: str = "mean") -> tuple[tuple[int, ...], Any]:
    if input.shape != target.shape:
        raise ShapeError(f"{op}(): 'input' {_shape(input.shape)} and 'target' {_shape(target.shape)} must have the same shape")
    if input.dtype != target.dtype:
        raise ShapeError(f"{op}(): 'input' has dtype {input.dtype} but 'target' has dtype {target.dtype}")
    return (input.shape if reduction == "none" else ()), input.dtype


def conv_out(size: int, k: int, stride: int, padding: int, dilation: int = 1) -> int:
    return (size + 2 * padding - dilation * (k - 1) - 1) // stride + 1


def _conv_operands(op: str, x: Any, weight: Any, bias: Any, n_bias: int) -> None:
    """A convolution's ranks (a batched 2-D or 1-D input and a weight of the same rank), dtypes and bias."""
    if x.ndim not in (3, 4):
        raise ShapeError(f"{op}(): 'x' must be 4-D (N, C, H, W) or 3-D (N, C, L), but got shape {_shape(x.shape)}")
    if weight.ndim != x.ndim:
        raise ShapeError(f"{op}(): 'weight' must be {x.ndim}-D as 'x' is, but got {_shape(weight.shape)}")
    if x.dtype != weight.dtype:
        raise ShapeError(f"{op}(): 'x' has dtype {x.dtype} but 'weight' has dtype {weight.dtype}")
    if bias is not None and tuple(bias.shape) != (n_bias,):
        raise ShapeError(f"{op}(): 'bias' must have shape ({n_bias},), but got {_shape(bias.shape)}")


def conv2d(op: str, x: Any, weight: Any, bias: Any = None, stride: tuple[int, int] = (1, 1),
           padding: tuple[int, int] = (0, 0), dilation: tuple[int, int] = (1, 1),
           groups: int = 1) -> tuple[tuple[int, ...], Any]:
    """A batched 2-D or 1-D convolution's output (a 1-D one's pairs start with its height of 1)."""
    _conv_operands(op, x, weight, None, 0)
    n, c = x.shape[:2]
    o, ci = weight.shape[:2]
    if o % groups:  # (PyTorch's message shows the size in two pairs of brackets)
        raise ShapeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got "
                         f"weight of size [{list(weight.shape)}] instead")
    if ci * groups != c:
        raise ShapeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{list(x.shape)} "
                         f"to have {ci * groups} channels, but got {c} channels instead")
    if bias is not None and tuple(bias.shape) != (o,):
        raise ShapeError(f"Given weight of size {list(weight.shape)}, expected bias to be 1-dimensional with {o} "
                         f"elements, but got bias of size {list(bias.shape)} instead")
    size, kernel = (1,) * (4 - x.ndim) + tuple(x.shape[2:]), (1,) * (4 - x.ndim) + tuple(weight.shape[2:])
    out = tuple(conv_out(*a) for a in zip(size, kernel, stride, padding, dilation))
    if min(out) <= 0:  # an argument value PyTorch refuses with RuntimeError, as here
        reach = "x".join(str(d * (k - 1) + 1) for k, d in zip(kernel, dilation))
        padded = "x".join(str(s + 2 * p) for s, p in zip(size, padding))
        raise RuntimeError(f"{op}(): kernel {reach} is larger than the padded input {padded}")
    return (n, o) + out[4 - x.ndim:], x.dtype


def conv_transpose2d(op: str, x: Any, weight: Any, bias: Any = None, stride: tuple[int, int] = (1, 1),
                     padding: tuple[int, int] = (0, 0), output_padding: tuple[int, int] = (0, 0),
                     dilation: tuple[int, int] = (1, 1), groups: int = 1) -> tuple[tuple[int, ...], Any]:
    """A batched transposed convolution's output: ``(H - 1) * stride - 2 * padding + dilation * (k - 1) + 1
    + output_padding`` per dim."""
    _conv_operands(op, x, weight, bias, weight.shape[1] * groups)
    if weight.shape[0] != x.shape[1] or weight.shape[0] % groups:
        raise ShapeError(f"{op}(): 'x' has {x.shape[1]} channels but 'weight' {_shape(weight.shape)} with "
                         f"groups={groups} expects {weight.shape[0]}")
    size, kernel = (1,) * (4 - x.ndim) + tuple(x.shape[2:]), (1,) * (4 - x.ndim) + tuple(weight.shape[2:])
    out = tuple((n - 1) * s - 2 * p + d * (k - 1) + 1 + o
                for n, k, s, p, d, o in zip(size, kernel, stride, padding, dilation, output_padding))
    if min(out) <= 0:
        raise RuntimeError(f"{op}(): the output size {out[4 - x.ndim:]} is too small")
    return (x.shape[0], weight.shape[1] * groups) + out[4 - x.ndim:], x.dtype


def pool2d(op: str, x: Any, kernel_size: tuple[int, int], stride: tuple[int, int], padding: tuple[int, int],
           dilation: tuple[int, int] = (1, 1), ceil_mode: bool = False) -> tuple[tuple[int, ...], Any]:
    """A max pool's output of ``(N, C, H, W)`` or ``(C, H, W)``: PyTorch's ``pooling_output_shape``, whose
    ``ceil_mode`` keeps the last window only where it starts inside the input or its left padding."""
    if x.ndim not in (3, 4):
        raise ShapeError(f"{op}(): 'x' must be 3-D (C, H, W) or 4-D (N, C, H, W), but got shape {_shape(x.shape)}")
    if padding[0] * 2 > kernel_size[0] or padding[1] * 2 > kernel_size[1]:
        raise RuntimeError(f"{op}(): padding should be at most half of the kernel size, got padding {padding} for kernel {kernel_size}")
    h, w = x.shape[-2:]
    oh, ow = (pool_out_size(n, k, s, p, ceil_mode, d) for n, k, s, p, d in zip((h, w), kernel_size, stride, padding, dilation))
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"{op}(): kernel {kernel_size} (dilation {dilation}) is larger than the padded input ({h}, {w})")
    return tuple(x.shape[:-2]) + (oh, ow), x.dtype

