"""BLAS-style products, as PyTorch names them: ``dot``, ``mv``, ``mm``, ``outer``, ``addmm``, ``addmv``,
``baddbmm``, ``addbmm``; and ``bilinear`` (``x1 A x2 + b``), PyTorch's one ``_trilinear`` product.

``addmm`` is an op of its own, as in PyTorch: ``nn.Linear`` on a batch of rows is one
``addmm`` (its node, ``AddmmBackward0``, is what the tutorials walk through
``next_functions``). So are its siblings, each one node as PyTorch's: ``addmv`` (matrix @
vector), ``addr`` (outer product), ``baddbmm`` (batched) and ``addbmm`` (batched products
summed over the batch), ``beta * input + alpha * product`` each. The rest are composites of
``matmul``, ``mul``, ``add`` and ``sum`` (no kernel or backward of their own), so their
gradients are those ops':

- ``dot``, ``mv``, ``mm``: ``matmul`` for exactly 1-D . 1-D, 2-D @ 1-D and 2-D @ 2-D;
- ``outer(a, b) = a[:, None] * b[None, :]``.

With ``beta=0`` the ``input`` is ignored (NaN or inf in it do not reach the
result), as in PyTorch; ``beta=1``/``alpha=1`` add no multiplication node.

Example:
    >>> import minigrad as mg
    >>> mg.outer(mg.tensor([1.0, 2.0]), mg.tensor([1.0, 10.0])).tolist()
    [[1.0, 10.0], [2.0, 20.0]]
    >>> mg.addmm(mg.ones(2, 2), mg.eye(2), mg.eye(2), beta=0.5).tolist()
    [[1.5, 0.5], [0.5, 1.5]]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..autograd.formula import MAT1_COLUMN_MAJOR, MAT2_COLUMN_MAJOR, operand_layout
from ..dtypes import FLOAT_DTYPES, NUMERIC_DTYPES, cpp_type_name, scalar_type_name
from ..kernels.array_kernels import trilinear_arrays
from ..kernels.key import Backend
from ..kernels.registry import register_kernel
from ..tensor import Tensor
from ._checks import check_tensors
from .linalg import matmul
from .math import add, clone, mul
from .reduce import sum as _sum
from ._checks import check_dims
from .registry import Attr, call_with_out, defop, type_name
from .shape import expand, permute, reshape, t_op, unsafe_view, view
from ..dispatch.amp import autocast_as

__all__ = ["dot", "vdot", "inner", "mv", "mm", "outer", "ger", "addmm", "addmv", "addr", "baddbmm", "addbmm", "tensordot", "kron",
           "cross", "bilinear"]


def _scale(op: str, name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' must be a number, but got {type_name(v)}")
    return v


def _names(*tensors: Tensor) -> list[str]:
    """PyTorch's names of the tensors' dtypes in its messages (``Float``, ``Double``, ``Long``)."""
    return [scalar_type_name(t.dtype) for t in tensors]


def _expanded(input: Tensor, target: tuple[int, ...]) -> None:
    """PyTorch's ``expand`` of ``input`` to ``target`` (the product's shape), refused in its words."""
    if input.ndim > len(target):
        kind = f"torch.{'cuda.' if input.device != 'cpu' else ''}{scalar_type_name(input.dtype)}Tensor"
        raise RuntimeError(f"expand({kind}{{{list(input.shape)}}}, size={list(target)}): the number of sizes "
                           f"provided ({len(target)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({input.ndim})")
    lead = len(target) - input.ndim
    for i in range(len(target) - 1, lead - 1, -1):
        have = input.shape[i - lead]
        if have not in (1, target[i]):
            raise RuntimeError(f"The expanded size of the tensor ({target[i]}) must match the existing size ({have}) "
                               f"at non-singleton dimension {i}.  Target sizes: {list(target)}.  Tensor sizes: "
                               f"{list(input.shape)}")


def _same_dtypes(input: Tensor, mat1: Tensor, mat2: Tensor) -> None:
    """``addmm``'s and ``addbmm``'s dtype checks, in PyTorch's order: ``input`` against ``mat2``, then the two
    operands."""
    if input.dtype is not mat2.dtype:
        raise RuntimeError("self and mat2 must have the same dtype, but got {} and {}".format(*_names(input, mat2)))
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError("mat1 and mat2 must have the same dtype, but got {} and {}".format(*_names(mat1, mat2)))


def _check_matrices(input: Tensor, mat2: Tensor) -> None:
    """``mm``'s checks, in PyTorch's words and order: two matrices, shapes that multiply, one dtype."""
    check_tensors("mm", input=input, mat2=mat2)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _multipliable(input, mat2)
    if input.dtype is not mat2.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {cpp_type_name(input.dtype)} != "
                           f"{cpp_type_name(mat2.dtype)}")


def _multipliable(mat1: Tensor, mat2: Tensor) -> None:
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({mat1.shape[0]}x{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")


def _check_matrix_vector(input: Tensor | None, mat: Tensor, vec: Tensor) -> None:
    """``mv``'s and ``addmv``'s checks (``input`` None for ``mv``, whose result takes ``vec``'s place)."""
    lead = 1 if input is None else input.ndim
    if mat.ndim != 2 or vec.ndim != 1 or lead > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {lead}, {mat.ndim}, {vec.ndim}")
    rows = mat.shape[0] if input is None or input.numel() == 1 else input.shape[0]
    if mat.shape[1] != vec.shape[0] or rows != mat.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({mat.shape[0]}x{mat.shape[1]}), "
                           f"vec ({vec.shape[0]})")
    first = vec if input is None else input
    if not (first.dtype is mat.dtype is vec.dtype):
        raise RuntimeError("addmv input tensors must have the same dtype, but got {}, {}, and {}".format(
            *_names(first, mat, vec)))


def _check_vectors(op: str, **named: Tensor) -> None:
    """``dot``'s and ``vdot``'s checks, in PyTorch's words and order: two 1-D tensors, one dtype, one size."""
    check_tensors(op, **named)
    a, b = named.values()
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype is not b.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found {} and {}".format(*_names(a, b)))
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src [{b.shape[0]}] to have "
                           f"the same number of elements, but got {a.shape[0]} and {b.shape[0]} elements respectively")


def _check_outer_operand(op: str, name: str, v: Tensor) -> None:
    if v.ndim != 1:
        raise RuntimeError(f"{op}: Expected 1-D argument {name}, but got {v.ndim}-D")


def _combine(input: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """``beta * input + alpha * product`` (arguments checked by the caller, before the product ran)."""
    scaled = product if alpha == 1 else mul(product, alpha)
    if beta == 0:  # PyTorch ignores input here: NaN and inf in it must not leak through 0 * input
        return scaled
    return add(input if beta == 1 else mul(input, beta), scaled)


@autocast_as("dot", composite=False)
def dot(input: Tensor, tensor: Tensor) -> Tensor:
    """The dot product of two 1-D tensors of the same size and dtype (``torch.dot``; ``matmul`` of two vectors)."""
    _check_vectors("dot", input=input, tensor=tensor)
    return matmul(input, tensor)


def _infer_vdot(op: str, x: Any, y: Any) -> tuple[tuple[int, ...], Any]:
    return (), x.dtype


@register_kernel("vdot", Backend.CPU, dtypes=NUMERIC_DTYPES, name="cpu/vdot")
def vdot_cpu(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.asarray(np.vdot(x, y), dtype=x.dtype)


_vdot = defop("vdot", inputs=("x", "y"), infer_meta=_infer_vdot, save=("x", "y"),
              doc="the dot product of two vectors, the first conjugated (torch.vdot; for real tensors dot's value)")


@_vdot.def_backward
def _vdot_backward(ctx: Any, g: Any) -> tuple[Any, Any]:
    """Each vector's gradient is the other scaled by ``g`` (minigrad's tensors are real: no conjugate)."""
    x, y = ctx.saved()
    return (ctx.ops.mul(g, y) if ctx.needs(0) else None, ctx.ops.mul(g, x) if ctx.needs(1) else None)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """``torch.vdot``: the dot product with the first vector conjugated - ``dot``'s value for real tensors, its
    own op and node (``VdotBackward0``, spectral normalization's sigma)."""
    _check_vectors("vdot", input=input, other=other)
    return _vdot(input, other)


@autocast_as("mv", composite=False)
def mv(input: Tensor, vec: Tensor) -> Tensor:
    """Matrix (n, m) times vector (m) (``torch.mv``)."""
    check_tensors("mv", input=input, vec=vec)
    _check_matrix_vector(None, input, vec)
    return matmul(input, vec)


@autocast_as("mm", composite=False)
def mm(input: Tensor, mat2: Tensor, *, out: Any = None) -> Tensor:
    """Matrix (n, m) times matrix (m, p) (``torch.mm``; no broadcasting, unlike ``matmul``)."""
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("mm", out, mm, (input, mat2))
    _check_matrices(input, mat2)
    return matmul(input, mat2)


def inner(input: Tensor, other: Tensor, *, out: Any = None) -> Tensor:
    """The products summed over the last dim of each (``torch.inner``): ``input[..., k] * other[..., k]`` for
    every pair of leading positions. Composite, PyTorch's: ``tensordot`` over the two last dims (a 0-d operand
    is a plain ``mul``)."""
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("inner", out, inner, (input, other), {})
    check_tensors("inner", input=input, other=other)
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    """The outer product of two 1-D tensors, ``out[i, j] = input[i] * vec2[j]`` (composite: reshapes and ``mul``)."""
    check_tensors("outer", input=input, vec2=vec2)
    _check_outer_operand("outer", "self", input)
    _check_outer_operand("outer", "vec2", vec2)
    return mul(reshape(input, (-1, 1)), vec2)


def ger(input: Tensor, vec2: Tensor) -> Tensor:
    """The old name of ``outer``."""
    return outer(input, vec2)


@register_kernel("addmm", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/addmm")
def addmm_cpu(input, mat1, mat2, beta=1, alpha=1):
    product = np.matmul(mat1, mat2)
    if alpha != 1:
        product = product * product.dtype.type(alpha)
    if beta == 0:  # PyTorch ignores input here: NaN and inf in it must not leak through 0 * input
        return np.asarray(product)
    return np.asarray(product + (input if beta == 1 else input * input.dtype.type(beta)))


def _addmm_meta(op: str, input: Any, mat1: Any, mat2: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    return (mat1.shape[0], mat2.shape[1]), np.result_type(input.dtype, mat1.dtype, mat2.dtype)


def _number(op: str, name: str, pos: int, v: Any) -> Any:
    return _scale(op, name, v)


addmm_op = defop(
    "addmm",
    inputs=("input", "mat1", "mat2"),
    attrs=(Attr("beta", 1, _number), Attr("alpha", 1, _number)),
    infer_meta=_addmm_meta,
    save=("mat1", "mat2"),
    save_for={"mat1": (2,), "mat2": (1,)},  # d(mat1) needs mat2, d(mat2) needs mat1
    doc="beta * input + alpha * (mat1 @ mat2): nn.Linear's product and bias in one node",
    amp="allow",
    node_extra=lambda inputs, attrs: operand_layout(inputs[1], inputs[2]),
)


@addmm_op.def_backward
def _addmm_backward(ctx, g):
    """d(input) = beta * G summed to input's shape; d(mat1) = alpha * G @ mat2^T; d(mat2) = alpha * mat1^T @ G."""
    mat1, mat2 = ctx.saved()
    ops = ctx.ops
    beta, alpha = ctx.attrs["beta"], ctx.attrs["alpha"]
    gi = g1 = g2 = None
    if ctx.needs(0):
        gi = ops.sum_to(g if beta == 1 else ops.mul(g, beta), ctx.input_shape(0))
    ga = g if alpha == 1 else ops.mul(g, alpha)
    # A column-major operand gets a column-major gradient (PyTorch's mm_mat1_backward and
    # mm_mat2_backward): nn.Linear's mat2 is weight.t(), so the TBackward0 below hands weight a row-major
    # gradient that becomes .grad without a copy. The same sums either way; the layout was taken when the
    # node was made (``operand_layout``: mat2 is saved only when mat1 needs a gradient).
    if ctx.needs(1):
        g1 = (ops.t(ops.matmul(mat2, ga, transpose_y=True)) if ctx.extra & MAT1_COLUMN_MAJOR
              else ops.matmul(ga, mat2, transpose_y=True))
    if ctx.needs(2):
        g2 = (ops.t(ops.matmul(ga, mat1, transpose_x=True)) if ctx.extra & MAT2_COLUMN_MAJOR
              else ops.matmul(mat1, ga, transpose_x=True))
    return gi, g1, g2


@autocast_as("addmm", composite=False)
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` for 2-D ``mat1`` (n, m) and ``mat2`` (m, p); ``input`` broadcasts."""
    check_tensors("addmm", input=input, mat1=mat1, mat2=mat2)
    for name, mat in (("mat1", mat1), ("mat2", mat2)):
        if mat.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {mat.ndim}-D tensor")
    _multipliable(mat1, mat2)
    _expanded(input, (mat1.shape[0], mat2.shape[1]))
    _same_dtypes(input, mat1, mat2)
    beta, alpha = _scale("addmm", "beta", beta), _scale("addmm", "alpha", alpha)
    if not (input.dtype.is_floating and mat1.dtype == mat2.dtype == input.dtype):
        return _combine(input, matmul(mat1, mat2), beta, alpha)  # integer or mixed dtypes: the composite
    return addmm_op(input, mat1, mat2, beta=beta, alpha=alpha)


# -- addmv, addr, baddbmm, addbmm: addmm's siblings, one op each as PyTorch's --------------------------------


def _scaled_sum(product: Any, input: Any, beta: Any, alpha: Any) -> Any:
    """``beta * input + alpha * product`` on arrays, ``input`` ignored where ``beta`` is 0 (as ``addmm_cpu``)."""
    if alpha != 1:
        product = product * product.dtype.type(alpha)
    if beta == 0:  # PyTorch ignores input here: NaN and inf in it must not leak through 0 * input
        return product
    return product + (input if beta == 1 else input * input.dtype.type(beta))


def _product_cpu(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The product each op scales: ``mat @ vec``, ``outer(vec1, vec2)``, ``batch1 @ batch2`` or its sum over
    the batch."""
    if op == "addr":
        return np.multiply.outer(a, b)
    product = np.matmul(a, b)
    return product.sum(axis=0) if op == "addbmm" else product


def _product_shape(op: str, a: Any, b: Any) -> tuple[int, ...]:
    if op == "addmv":
        return (a.shape[0],)
    if op == "addr":
        return (a.shape[0], b.shape[0])
    return (a.shape[1], b.shape[2]) if op == "addbmm" else (a.shape[0], a.shape[1], b.shape[2])


def _scaled_product_meta(op: str, input: Any, a: Any, b: Any, beta: Any = 1, alpha: Any = 1) -> Any:
    """InferMeta: the product's shape (the public function checked the operands and that ``input``
    broadcasts to it)."""
    return _product_shape(op, a, b), np.result_type(input.dtype, a.dtype, b.dtype)


def _scaled_product_backward(ctx: Any, g: Any) -> tuple[Any, Any, Any]:
    """PyTorch's formulas (``tools/autograd/derivatives.yaml``): ``input`` gets ``beta * g`` summed to its
    shape; the operands ``alpha`` times ``g`` multiplied by the other operand, transposed:

    - addmv: ``d mat = outer(g, vec)``, ``d vec = mat^T @ g``;
    - addr: ``d vec1 = g @ vec2``, ``d vec2 = g^T @ vec1``;
    - baddbmm: ``d batch1 = g @ batch2^T``, ``d batch2 = batch1^T @ g`` (per batch);
    - addbmm: the same with ``g`` repeated over the batch (``expand``).
    """
    a, b = ctx.saved()
    ops = ctx.ops
    op, beta, alpha = ctx.node.op_name, ctx.attrs["beta"], ctx.attrs["alpha"]
    gi = ga = gb = None
    if ctx.needs(0):
        gi = ops.sum_to(g if beta == 1 else ops.mul(g, beta), ctx.input_shape(0))
    g = g if alpha == 1 else ops.mul(g, alpha)
    if op == "addbmm":
        g = ops.expand(ops.unsqueeze(g, 0), (a.shape[0],) + tuple(g.shape))
    if op == "addmv":
        ga = ops.mul(ops.reshape(g, (-1, 1)), b) if ctx.needs(1) else None
        gb = ops.matmul(a, g, transpose_x=True) if ctx.needs(2) else None
    elif op == "addr":
        ga = ops.matmul(g, b) if ctx.needs(1) else None
        gb = ops.matmul(g, a, transpose_x=True) if ctx.needs(2) else None
    else:
        ga = ops.matmul(g, b, transpose_y=True) if ctx.needs(1) else None
        gb = ops.matmul(a, g, transpose_x=True) if ctx.needs(2) else None
    return gi, ga, gb


def _scaled_product_op(op: str, a: str, b: str, doc: str) -> Any:
    def kernel(input: np.ndarray, x: np.ndarray, y: np.ndarray, beta: Any = 1, alpha: Any = 1) -> np.ndarray:
        return np.asarray(_scaled_sum(_product_cpu(op, x, y), input, beta, alpha))

    kernel.__name__ = f"{op}_cpu"
    register_kernel(op, Backend.CPU, dtypes=FLOAT_DTYPES, name=f"cpu/{op}")(kernel)
    opdef = defop(op, inputs=("input", a, b), attrs=(Attr("beta", 1, _number), Attr("alpha", 1, _number)),
                  infer_meta=_scaled_product_meta, save=(a, b), save_for={a: (2,), b: (1,)}, doc=doc, amp="allow")
    opdef.def_backward(_scaled_product_backward)
    return opdef


addmv_op = _scaled_product_op("addmv", "mat", "vec", "beta * input + alpha * (mat @ vec)")
addr_op = _scaled_product_op("addr", "vec1", "vec2", "beta * input + alpha * outer(vec1, vec2)")
baddbmm_op = _scaled_product_op("baddbmm", "batch1", "batch2", "beta * input + alpha * (batch1 @ batch2), per batch")
addbmm_op = _scaled_product_op("addbmm", "batch1", "batch2",
                               "beta * input + alpha * sum over the batch of batch1[b] @ batch2[b]")


def _scaled_product(op: Any, input: Tensor, a: Tensor, b: Tensor, beta: Any, alpha: Any) -> Tensor:
    """The op for floating operands of one dtype; integer or mixed dtypes: the composite of the product and
    ``mul``/``add`` (the op's kernels are for floats)."""
    name = op.name
    beta, alpha = _scale(name, "beta", beta), _scale(name, "alpha", alpha)
    if input.dtype.is_floating and a.dtype == b.dtype == input.dtype:
        return op(input, a, b, beta=beta, alpha=alpha)
    if name == "addr":
        product = outer(a, b)
    else:
        product = matmul(a, b)
        product = _sum(product, dim=0) if name == "addbmm" else product
    return _combine(input, product, beta, alpha)


@autocast_as("addmv", composite=False)
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)`` for a 2-D ``mat`` (n, m) and a 1-D ``vec`` (m): one op
    (``AddmvBackward0``), as PyTorch's."""
    check_tensors("addmv", input=input, mat=mat, vec=vec)
    _check_matrix_vector(input, mat, vec)
    return _scaled_product(addmv_op, input, mat, vec, beta, alpha)


@autocast_as("addr", composite=False)
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)`` for 1-D ``vec1`` (n) and ``vec2`` (m): one op
    (``AddrBackward0``), as PyTorch's.

    Example:
        >>> import minigrad as mg
        >>> mg.addr(mg.zeros(2, 2), mg.tensor([1.0, 2.0]), mg.tensor([1.0, 10.0])).tolist()
        [[1.0, 10.0], [2.0, 20.0]]
    """
    check_tensors("addr", input=input, vec1=vec1, vec2=vec2)
    _check_outer_operand("addr", "vec1", vec1)
    _check_outer_operand("addr", "vec2", vec2)
    _expanded(input, (vec1.shape[0], vec2.shape[0]))
    return _scaled_product(addr_op, input, vec1, vec2, beta, alpha)


def _check_batches(op: str, batch1: Tensor, batch2: Tensor) -> None:
    """``bmm``'s, ``baddbmm``'s and ``addbmm``'s operand checks, in PyTorch's words (which differ by op)."""
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        if op != "bmm":  # PyTorch reads batch2's third size before checking its rank
            raise IndexError(f"Dimension out of range (expected to be in range of [{-batch2.ndim}, {batch2.ndim - 1}], "
                             f"but got 2)")
        raise RuntimeError("batch2 must be a 3D tensor")
    (b, n, m), (b2, m2, p) = batch1.shape, batch2.shape
    if op == "addbmm":
        if b != b2:
            raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {b2}")
        if m != m2:
            raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{m} and {m2}x{p})")
    elif (b, m) != (b2, m2):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{b2}, {m2}].")


@autocast_as("baddbmm", composite=False)
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` for 3-D ``batch1`` (b, n, m) and ``batch2`` (b, m, p): one
    op (``BaddbmmBackward0``), as PyTorch's."""
    check_tensors("baddbmm", input=input, batch1=batch1, batch2=batch2)
    _check_batches("baddbmm", batch1, batch2)
    _expanded(input, (batch1.shape[0], batch1.shape[1], batch2.shape[2]))
    if not (input.dtype is batch1.dtype is batch2.dtype):
        raise RuntimeError("Input dtypes must be the same, got: input {}, batch1: {}, batch2: {}".format(
            *(cpp_type_name(t.dtype) for t in (input, batch1, batch2))))
    return _scaled_product(baddbmm_op, input, batch1, batch2, beta, alpha)


@autocast_as("addbmm", composite=False)
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``: the batched products summed over the batch, one
    op (``AddbmmBackward0``), as PyTorch's."""
    check_tensors("addbmm", input=input, batch1=batch1, batch2=batch2)
    _check_batches("addbmm", batch1, batch2)
    _expanded(input, (batch1.shape[1], batch2.shape[2]))
    _same_dtypes(input, batch1, batch2)
    return _scaled_product(addbmm_op, input, batch1, batch2, beta, alpha)


@autocast_as("tensordot")
def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Contract the last ``dims`` dims of ``a`` with the first ``dims`` of ``b`` (or the listed dims:
    ``dims=([1, 0], [0, 1])``) (``torch.tensordot``). Composite, PyTorch's: ``permute``, ``reshape`` and one
    ``matmul`` (a ``dot`` where every dim is contracted)."""
    check_tensors("tensordot", a=a, b=b)
    if isinstance(dims, int) and not isinstance(dims, bool):
        if dims < 0 or dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot(): dims {dims} must be in [0, {min(a.ndim, b.ndim)}]")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    elif isinstance(dims, (list, tuple)) and len(dims) == 2:
        da = [dims[0]] if isinstance(dims[0], int) else list(dims[0])
        db = [dims[1]] if isinstance(dims[1], int) else list(dims[1])
        da, db = [d % max(a.ndim, 1) for d in da], [d % max(b.ndim, 1) for d in db]
    else:
        raise TypeError(f"tensordot(): argument 'dims' must be an int or a pair of lists, but got {dims!r}")
    if len(da) != len(db) or any(a.shape[i] != b.shape[j] and 1 not in (a.shape[i], b.shape[j]) for i, j in zip(da, db)):
        raise RuntimeError(f"tensordot(): contracted dims {da} of {tuple(a.shape)} and {db} of {tuple(b.shape)} "
                           f"must match in number and size")
    # A contracted dim of size 1 meets the other's size by broadcasting (expand; its backward sums).
    sa, sb = list(a.shape), list(b.shape)
    for i, j in zip(da, db):
        sa[i] = sb[j] = max(sa[i], sb[j])
    a = a if tuple(sa) == tuple(a.shape) else expand(a, tuple(sa))
    b = b if tuple(sb) == tuple(b.shape) else expand(b, tuple(sb))
    free_a = [i for i in range(a.ndim) if i not in da]
    free_b = [j for j in range(b.ndim) if j not in db]
    if not free_a and not free_b:  # everything contracted: PyTorch's dot of the two flattened (DotBackward0)
        a1, b1 = permute(a, tuple(da)), permute(b, tuple(db))
        return reshape(matmul(a1 if a1.ndim == 1 else reshape(a1, (-1,)), b1 if b1.ndim == 1 else reshape(b1, (-1,))), ())
    k = 1
    for i in da:
        k *= a.shape[i]
    a2 = reshape(permute(a, tuple(free_a + da)), (-1, k))
    b2 = reshape(permute(b, tuple(db + free_b)), (k, -1))
    return reshape(matmul(a2, b2), tuple(a.shape[i] for i in free_a) + tuple(b.shape[j] for j in free_b))


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product (``torch.kron``): every element of ``input`` times the whole of ``other``.
    Composite, PyTorch's: both viewed with interleaved dims, ``mul`` (broadcasting), one ``_unsafe_view``."""
    check_tensors("kron", input=input, other=other)
    n = max(input.ndim, other.ndim)
    sa = (1,) * (n - input.ndim) + tuple(input.shape)
    sb = (1,) * (n - other.ndim) + tuple(other.shape)
    a = _merged(input, tuple(x for s in sa for x in (s, 1)))
    b = _merged(other, tuple(x for s in sb for x in (1, s)))
    return unsafe_view(mul(a, b), tuple(x * y for x, y in zip(sa, sb)))


def _merged(x: Tensor, shape: tuple[int, ...]) -> Tensor:
    """PyTorch's kron takes ``_unsafe_view``s of its inputs (``UnsafeViewBackward0``), and refuses one that no
    view can reshape; minigrad reshapes that one with a copy instead."""
    return unsafe_view(x, shape) if x.is_contiguous() else reshape(x, shape)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (``torch.cross``; by default the first dim of size 3,
    ``torch.linalg.cross`` takes ``dim=-1``); the two broadcast. One op (``LinalgCrossBackward0``), as
    PyTorch's."""
    check_tensors("cross", input=input, other=other)
    if input.ndim != other.ndim:
        raise RuntimeError(f"cross(): inputs must have the same number of dimensions: {input.ndim} vs {other.ndim}")
    if dim is None:
        dim = next((k for k, (a, b) in enumerate(zip(input.shape, other.shape)) if a == 3 and b == 3), None)
        if dim is None:
            raise RuntimeError(f"cross(): no dimension of size 3 in input {tuple(input.shape)}")
    d = dim % max(input.ndim, 1)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"cross(): inputs dimension {dim} must have length 3. Got {input.shape[d]} and {other.shape[d]}")
    return cross_op(input, other, dim=d)


def _infer_cross(op: str, x: Any, y: Any, dim: int = -1) -> tuple[tuple[int, ...], Any]:
    """InferMeta: the broadcast shape (the public function checked the dim of length 3)."""
    return tuple(np.broadcast_shapes(x.shape, y.shape)), np.result_type(x.dtype, y.dtype)


@register_kernel("cross", Backend.CPU, dtypes=NUMERIC_DTYPES, name="cpu/cross")
def cross_cpu(x, y, dim=-1):
    return np.ascontiguousarray(np.cross(x, y, axis=dim))


cross_op = defop("cross", inputs=("x", "y"), attrs=(Attr("dim", -1),), infer_meta=_infer_cross, save=("x", "y"),
                 save_for={"x": (1,), "y": (0,)}, transform_dtype=True,
                 doc="the cross product of 3-vectors along dim, the two broadcast (PyTorch's linalg_cross)")


@cross_op.def_backward
def _cross_backward(ctx, g):
    """PyTorch's ``linalg_cross`` formulas: ``d x = cross(y, g)``, ``d y = cross(g, x)``, each summed to its
    input's shape."""
    x, y = ctx.saved()
    ops, dim = ctx.ops, ctx.attrs["dim"]
    gx = ops.sum_to(ops.cross(y, g, dim=dim), ctx.input_shape(0)) if ctx.needs(0) else None
    gy = ops.sum_to(ops.cross(g, x, dim=dim), ctx.input_shape(1)) if ctx.needs(1) else None
    return gx, gy


# -- bilinear: PyTorch's _trilinear ---------------------------------------------------------------------

def _trilinear_meta(op: str, i1: Any, i2: Any, i3: Any, expand1: Any, expand2: Any, expand3: Any, sumdim: Any,
                    unroll_dim: int = 1) -> Any:
    """The sizes at the positions the three inputs span (each must agree where two span one), but ``sumdim``."""
    rank = len(i1.shape) + len(expand1)
    sizes: dict[int, int] = {}
    for k, (a, expand) in enumerate(((i1, expand1), (i2, expand2), (i3, expand3))):
        spans = [d for d in range(rank) if d not in expand]
        if len(spans) != len(a.shape):
            raise RuntimeError(f"{op}: input {k + 1} with its expand dims has {len(a.shape) + len(expand)} dims, "
                               f"expected {rank}")
        for d, size in zip(spans, a.shape):
            if sizes.setdefault(d, size) != size:
                raise RuntimeError(f"{op}: the inputs' sizes at dim {d} must match, but got {sizes[d]} and {size}")
    return tuple(sizes.get(d, 1) for d in range(rank) if d not in sumdim), i1.dtype


@register_kernel("_trilinear", Backend.CPU, dtypes=FLOAT_DTYPES, name="cpu/_trilinear")
def trilinear_cpu(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    return trilinear_arrays(np, i1, i2, i3, expand1, expand2, expand3, sumdim)


trilinear_op = defop(
    "_trilinear", inputs=("i1", "i2", "i3"),
    attrs=(Attr("expand1", check=check_dims), Attr("expand2", check=check_dims), Attr("expand3", check=check_dims),
           Attr("sumdim", check=check_dims), Attr("unroll_dim", 1)),
    infer_meta=_trilinear_meta, save=("i1", "i2", "i3"), save_for={"i1": (1, 2), "i2": (0, 2), "i3": (0, 1)},
    out=False,
    doc="i1 * i2 * i3, each with size-1 dims at its expand positions, summed over sumdim (torch._trilinear)")


@trilinear_op.def_backward
def _trilinear_backward(ctx, g):
    """PyTorch's ``_trilinear_backward``: each input's gradient is ``_trilinear`` again, of the gradient
    (expanded where the output summed) and the two other inputs, summed over the input's own expanded dims."""
    i1, i2, i3 = ctx.saved()
    e1, e2, e3, sumdim = (ctx.attrs[k] for k in ("expand1", "expand2", "expand3", "sumdim"))
    tri = ctx.ops._trilinear
    return (tri(g, i2, i3, sumdim, e2, e3, e1) if ctx.needs(0) else None,
            tri(i1, g, i3, e1, sumdim, e3, e2) if ctx.needs(1) else None,
            tri(i1, i2, g, e1, e2, sumdim, e3) if ctx.needs(2) else None)


@autocast_as("linear")
def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x @ weight.T + bias`` (weight is (out_features, in_features), as in PyTorch).

    The graph is PyTorch's (``linear`` in aten/src/ATen/native/Linear.cpp): on a batch of rows one
    ``addmm`` (``AddmmBackward0``, whose next functions are the bias, the input and ``weight.t()``);
    on a contiguous input of other dims with a bias, the rows viewed as one matrix, ``addmm``, the
    result viewed back (``ViewBackward0`` over ``AddmmBackward0``); otherwise ``matmul`` (with its
    own decomposition) and the bias added in place (``AddBackward0``).
    """
    if not (isinstance(x, Tensor) and isinstance(weight, Tensor) and weight.ndim == 2 and x.ndim >= 1
            and x.shape[-1] == weight.shape[1] and x.dtype == weight.dtype
            and (bias is None or isinstance(bias, Tensor) and bias.dtype == x.dtype
                 and tuple(bias.shape) in ((), (1,), (weight.shape[0],)))):
        # Anything addmm would refuse goes the plain way and fails there, before any node is made,
        # with the words PyTorch's linear uses.
        out = matmul(x, weight, transpose_y=True)
        return out if bias is None else add(out, bias)
    # Checked above: the ops themselves, past their public functions' checks.
    w_t = t_op(weight)
    if x.ndim == 2 and bias is not None:
        return addmm_op(bias, x, w_t)
    if bias is not None and x.is_contiguous() and (x.ndim == 3 or bias.ndim == 1):
        rows = reshape(x, (int(np.prod(x.shape[:-1])), x.shape[-1]))  # a count: -1 is ambiguous for 0 rows
        return view(addmm_op(bias, rows, w_t), (*x.shape[:-1], w_t.shape[1]))
    out = matmul(x, w_t)
    return out if bias is None else out.add_(bias)


@autocast_as("bilinear")
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y_k = x1 A_k x2 + b_k`` for each ``weight[k]`` (``F.bilinear``), as PyTorch computes it: both inputs'
    rows flattened, one ``_trilinear`` product (``TrilinearBackward0``), the result reshaped to the batch
    dims and the bias added (``AddBackward0``). Composite."""
    for pos, (name, t) in enumerate((("input1", input1), ("input2", input2), ("weight", weight))):
        if not isinstance(t, Tensor):
            raise TypeError(f"bilinear(): argument '{name}' (position {pos + 1}) must be Tensor, not {type_name(t)}")
    if bias is not None and not isinstance(bias, Tensor):
        raise TypeError(f"bilinear(): argument 'bias' (position 4) must be Tensor, not {type_name(bias)}")
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for d in range(input1.ndim - 1):
        if input1.shape[d] != input2.shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got {input1.shape[d]} "
                               f"and {input2.shape[d]}")
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-D (out_features, in1_features, in2_features), "
                           f"but got {weight.ndim}-D")
    if input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but "
                           f"expected {weight.shape[1]}")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but "
                           f"expected {weight.shape[2]}")
    if bias is not None and (bias.ndim == 0 or bias.shape[0] != weight.shape[0]):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0] if bias.ndim else 1} but expected {weight.shape[0]}")
    out_shape = (*input1.shape[:-1], weight.shape[0])
    x1 = reshape(input1, (-1, input1.shape[-1]))
    x2 = reshape(input2, (-1, input2.shape[-1]))
    out = reshape(trilinear_op(x1, weight, x2, [1, 3], [0], [1, 2], [2, 3]), out_shape)
    return out if bias is None else add(out, bias)


# -- chain_matmul: the product of a chain of matrices, in the cheapest order ---------------------------------------

_CHAIN_MATMUL_WARNED = [False]  # PyTorch warns once per process (TORCH_WARN_ONCE)


def _chain_order(dims: list[int]) -> list[list[int]]:
    """The split ``s[i][j]`` of each sub-chain ``i..j`` that costs the fewest multiplications, for matrices
    ``k`` of shape ``dims[k] x dims[k + 1]`` (the textbook dynamic programme PyTorch's ``multi_dot`` runs; of equal
    costs the first split)."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = -1
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] < 0 or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split


def _multiply_chain(matrices: list[Tensor]) -> Tensor:
    """PyTorch's ``multi_dot`` of 2-D matrices: ``mm``s in the cheapest order (for three, its closed form), then a
    ``view`` to the result's shape (``ViewBackward0`` over ``MmBackward0``)."""
    if len(matrices) == 2:
        out = mm(*matrices)
    elif len(matrices) == 3:
        a, b = matrices[0].shape
        c, d = matrices[2].shape
        first, second, third = matrices
        out = mm(first, mm(second, third)) if a * c * (b + d) > b * d * (a + c) else mm(mm(first, second), third)
    else:
        split = _chain_order([m.shape[0] for m in matrices] + [matrices[-1].shape[1]])

        def product(i: int, j: int) -> Tensor:
            return matrices[i] if i == j else mm(product(i, split[i][j]), product(split[i][j] + 1, j))

        out = product(0, len(matrices) - 1)
    return view(out, (matrices[0].shape[0], matrices[-1].shape[1]))


@autocast_as("chain_matmul")
def chain_matmul(*matrices: Tensor, out: Any = None) -> Tensor:
    """The product of the 2-D ``matrices``, in the order of fewest multiplications (``torch.chain_matmul``,
    deprecated in PyTorch for ``torch.linalg.multi_dot``, whose warning it gives once). Composite, PyTorch's:
    one matrix is cloned (``CloneBackward0``), more are ``multi_dot``'s ``mm``s and ``view``.

    Example:
        >>> import minigrad as mg
        >>> mg.chain_matmul(mg.eye(2), mg.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
        [[1.0, 2.0], [3.0, 4.0]]
    """
    if not _CHAIN_MATMUL_WARNED[0]:
        _CHAIN_MATMUL_WARNED[0] = True
        warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                      "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                      "multiple parameters.", UserWarning, stacklevel=2)
    if out is not None:  # NOTE [ out= ] in ops/registry.py
        return call_with_out("chain_matmul", out, chain_matmul, matrices)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for k, m in enumerate(matrices):
        if not isinstance(m, Tensor):
            raise TypeError(f"chain_matmul(): argument 'matrices' must be tuple of Tensors, but found element of type "
                            f"{type_name(m)} at pos {k}")
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return clone(matrices[0], memory_format="contiguous_format")
    for k in range(len(matrices) - 1):
        if matrices[k].shape[1] != matrices[k + 1].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {k} and {k + 1} with shapes {list(matrices[k].shape)} and "
                               f"{list(matrices[k + 1].shape)} cannot be multiplied")
    return _multiply_chain(list(matrices))


__all__ += ["chain_matmul"]
