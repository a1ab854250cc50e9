"""Higher-level autograd (``mg.autograd.functional``, PyTorch's ``torch.autograd.functional``):
``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``hvp``, ``vhp`` - each a few calls of ``mg.grad``.

Every function takes ``func`` and ``inputs`` (a Tensor or a tuple of Tensors)
and returns results shaped like PyTorch's: per input (and per output) entries
only where a tuple was given. The inputs are first made into fresh leaves
(or, under ``create_graph``, differentiable views of themselves), so ``func``
is differentiated at the given point without touching the caller's graph.

- ``vjp``: ``v^T J`` - one backward pass seeded with ``v``.
- ``jvp``: ``J v`` - the *double-backward trick*: ``g(u) = u^T J`` is linear
  in a dummy ``u``, so ``d(g . v)/du = J v`` is a second backward pass.
- ``jacobian``: one backward pass per output element (seeded with a one-hot vector).
- ``hessian``: the jacobian of the jacobian (inner one with ``create_graph``).
- ``vhp``/``hvp``: ``v^T H`` and ``H v`` without forming ``H``.

Example:
    >>> import minigrad as mg
    >>> from minigrad.autograd.functional import jacobian, hessian
    >>> x = mg.tensor([1.0, 2.0], dtype=mg.float64)
    >>> jacobian(lambda t: t ** 2, x).tolist()
    [[2.0, 0.0], [0.0, 4.0]]
    >>> hessian(lambda t: (t ** 3).sum(), x).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import ops
from ..kernels.backends import move_array
from ..tensor import Tensor
from . import grad as _grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# -- plumbing shared by every function (PyTorch's _as_tuple, _grad_preprocess, ...) -----------

def _as_tuple(value: Any, what: str, fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
    """``(was it a tuple, the values as a tuple)``, checking that they are Tensors."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            if is_tuple:
                raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                                f"the value at index {i} has type {type(t)}.")
            raise TypeError(f"The {what} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the given {what} has type {type(t)}.")
    return is_tuple, items


def _tuple_postprocess(res: Any, to_unpack: Any) -> Any:
    """Unwrap the tuples the user did not pass (``to_unpack``: one flag, or (outer, inner) flags)."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs: tuple[Tensor, ...], create_graph: bool, need_graph: bool) -> tuple[Tensor, ...]:
    """Inputs as the leaves to differentiate at: fresh leaves, or (``create_graph``) views that keep the
    link to an input's own graph, so the result can be differentiated again."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(ops.reshape(t, tuple(t.shape)))  # a differentiable identity (PyTorch's view_as)
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _grad_postprocess(values: Any, create_graph: bool) -> Any:
    if isinstance(values, tuple):
        return tuple(_grad_postprocess(v, create_graph) for v in values)
    if values is None or create_graph:
        return values
    return values.detach()


def _validate_v(v: tuple[Tensor, ...], other: tuple[Tensor, ...], is_other_tuple: bool) -> None:
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, other)):
        if tuple(a.shape) != tuple(b.shape):
            prepend = f"Entry {i} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {tuple(b.shape)} but got {tuple(a.shape)}.")


#: Strict mode's error for a value that does not require grad, by what the value is (PyTorch's words).
_NO_GRAD_MESSAGES = {
    "outputs": ("Output {i} of the user-provided function does not require gradients. The outputs must be computed "
                "in a differentiable manner from the input when running in strict mode."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of the user-provided "
                    "function. This is not allowed in strict mode."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided function with respect "
                 "to input {i} is independent of the input. This is not allowed in strict mode. You should ensure "
                 "that your function is twice differentiable and that the jacobian depends on the inputs (this "
                 "would be violated by a linear function for example)."),
    "hessian": ("The hessian of the user-provided function with respect to input {i} is independent of the input. "
                "This is not allowed in strict mode. You should ensure that your function is thrice "
                "differentiable and that the hessian depends on the inputs."),
}


def _check_requires_grad(values: tuple[Any, ...], what: str, strict: bool) -> None:
    if not strict:
        return
    if what not in _NO_GRAD_MESSAGES:
        raise RuntimeError("Invalid input_type to _check_requires_grad")
    for i, t in enumerate(values):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                               f"not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_NO_GRAD_MESSAGES[what].format(i=i))


def _autograd_grad(outputs: tuple[Tensor, ...], inputs: tuple[Tensor, ...], grad_outputs: Any = None,
                   create_graph: bool = False, retain_graph: bool | None = None) -> tuple[Any, ...]:
    """``mg.grad`` over the outputs that require grad; ``None`` for inputs they do not reach."""
    seeds = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    pairs = [(o, s) for o, s in zip(outputs, seeds) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    wanted = [i for i, t in enumerate(inputs) if t.requires_grad]
    if not wanted:
        return (None,) * len(inputs)
    res = _grad([o for o, _ in pairs], [inputs[i] for i in wanted], [s for _, s in pairs],
                retain_graph=retain_graph, create_graph=create_graph, allow_unused=True)
    out: list[Any] = [None] * len(inputs)
    for i, g in zip(wanted, res):
        out[i] = g
    return tuple(out)


def _zeros_like(t: Tensor) -> Tensor:
    return ops.fill(t.detach(), 0.0)


#: Strict mode's error for a gradient the outputs do not reach, by the backward pass that found it.
_UNREACHED_MESSAGES = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict mode.",
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                   "using the double backward trick to compute forward mode gradients. This is not allowed in "
                   "strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. This is not allowed "
                    "in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry {i} in the "
                          "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                          "backward trick to replace forward mode AD."),
}


def _fill_in_zeros(grads: tuple[Any, ...], refs: tuple[Tensor, ...], strict: bool, create_graph: bool,
                   stage: str) -> tuple[Tensor, ...]:
    """Zeros for the ``None`` gradients (an input the outputs do not depend on), or a strict-mode error."""
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_UNREACHED_MESSAGES[stage].format(i=i))
            g = _zeros_like(ref)
        out.append(g)
    return tuple(out)


def _prepare_v(v: Any, against: tuple[Tensor, ...], is_against_tuple: bool, create_graph: bool, fn_name: str,
               what: str) -> Any:
    """``v`` as a checked tuple shaped like ``against``; ``None`` (a seed of ones) only for one single element."""
    if v is None:
        if len(against) != 1 or against[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if {what} a single Tensor with a single element.")
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
    _validate_v(v, against, is_against_tuple)
    return v


def _prepare_inputs(inputs: Any, create_graph: bool, fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
    """The inputs as a tuple of leaves to differentiate at (and whether the user gave a tuple)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    return is_inputs_tuple, _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)


def _call(func: Callable[..., Any], inputs: tuple[Tensor, ...], strict: bool,
          fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
    """``func(*inputs)`` as a tuple (and whether it returned one), checked to require grad in strict mode."""
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    return is_outputs_tuple, outputs


def _last_backward(outputs: tuple[Any, ...], inputs: tuple[Tensor, ...], v: Any, refs: tuple[Tensor, ...],
                   strict: bool, create_graph: bool, stage: str) -> tuple[Tensor, ...]:
    """The final backward pass seeded with ``v``, graphed only under ``create_graph``; zeros where unreached."""
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        return _fill_in_zeros(grad_res, refs, strict, create_graph, stage)


def _finish(outputs: tuple[Tensor, ...], is_outputs_tuple: bool, result: tuple[Tensor, ...], is_result_tuple: bool,
            create_graph: bool) -> tuple[Any, Any]:
    """``(outputs, result)`` detached unless ``create_graph``, unwrapped where the user gave no tuple."""
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return _tuple_postprocess(outputs, is_outputs_tuple), _tuple_postprocess(result, is_result_tuple)


# -- the functions ---------------------------------------------------------------------------

def vjp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), v^T J)``: the vector-Jacobian product, one backward pass seeded with ``v``."""
    with enable_grad():
        is_inputs_tuple, inputs = _prepare_inputs(inputs, create_graph, "vjp")
        is_outputs_tuple, outputs = _call(func, inputs, strict, "vjp")
        v = _prepare_v(v, outputs, is_outputs_tuple, create_graph, "vjp", "the user-provided function returns")
    result = _last_backward(outputs, inputs, v, inputs, strict, create_graph, "back")
    return _finish(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


def jvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), J v)``: the Jacobian-vector product, by the double-backward trick."""
    with enable_grad():
        is_inputs_tuple, inputs = _prepare_inputs(inputs, create_graph, "jvp")
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "jvp", "the input to the user-provided function is")
        is_outputs_tuple, outputs = _call(func, inputs, strict, "jvp")
        # u^T J is linear in the dummy u; its gradient with respect to u, seeded with v, is J v.
        dummies = tuple(_zeros_like(o).requires_grad_(True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict=strict)
    result = _last_backward(grad_inputs, dummies, v, outputs, strict, create_graph, "back_trick")
    return _finish(outputs, is_outputs_tuple, result, is_outputs_tuple, create_graph)


def _empty(shape: tuple[int, ...], like: Tensor) -> Tensor:
    arr = np.zeros(shape, dtype=like.dtype.np)
    return Tensor._make(arr if like.device == "cpu" else move_array(arr, "cpu", like.device), like.dtype, like.device)


def _one_hot(like: Tensor, index: int) -> Tensor:
    """A tensor shaped like ``like``, 1 at flat position ``index`` and 0 elsewhere (a backward seed)."""
    arr = np.zeros(like.numel(), dtype=like.dtype.np)
    arr[index] = 1
    arr = arr.reshape(tuple(like.shape))
    data = arr if like.device == "cpu" else move_array(arr, "cpu", like.device)
    return Tensor._make(data, like.dtype, like.device)


def jacobian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> Any:
    """The Jacobian of ``func`` at ``inputs``: entry ``[i][j]`` has shape ``outputs[i].shape + inputs[j].shape``.

    Reverse mode: one backward pass per output element, seeded with a one-hot
    tensor (``vectorize`` is accepted and changes nothing).
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise RuntimeError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                           'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                           'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` and "
                                      "`strategy=\"forward-mode\"` are not supported together (yet). Please either "
                                      "set `create_graph=False` or `strategy=\"reverse-mode\"`.")
        return _jacobian_by_columns(func, inputs, strict, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = _prepare_inputs(inputs, create_graph, "jacobian")
        is_outputs_tuple, outputs = _call(func, inputs, strict, "jacobian")
        jac: list[tuple[Tensor, ...]] = []
        for i, out in enumerate(outputs):
            rows: list[list[Tensor]] = [[] for _ in inputs]
            for j in range(out.numel()):
                vj = _autograd_grad((out,), inputs, (_one_hot(out, j),), retain_graph=True, create_graph=create_graph)
                for el_idx, (rows_k, g, inp) in enumerate(zip(rows, vj, inputs)):
                    if g is None:
                        if strict and create_graph and not inp.requires_grad:
                            raise RuntimeError("The jacobian of the user-provided function is independent of input "
                                               f"{i}. This is not allowed in strict mode when create_graph=True.")
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{el_idx}. This is not allowed in strict mode.")
                        g = _zeros_like(inp)
                    rows_k.append(g)
            jac.append(tuple(
                ops.reshape(ops.stack(rows_k, 0), tuple(out.shape) + tuple(inp.shape)) if rows_k
                else _empty(tuple(out.shape) + tuple(inp.shape), inp)  # an output with no elements
                for rows_k, inp in zip(rows, inputs)
            ))
        result = _grad_postprocess(tuple(jac), create_graph)
        return _tuple_postprocess(result, (is_outputs_tuple, is_inputs_tuple))


def _jacobian_by_columns(func: Callable[..., Any], inputs: Any, strict: bool, vectorize: bool) -> Any:
    """``strategy="forward-mode"``: one Jacobian-vector product per input element (a column of J).

    PyTorch runs forward-mode AD here; minigrad has none, and computes each
    ``J e_k`` with ``jvp``'s double-backward trick instead (same numbers).
    """
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are '
                           'not supported together (yet). Please either set `strict=False` or '
                           '`strategy="reverse-mode"`.')
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
                                  "only implemented for `vectorize=True`.")
    is_inputs_tuple, ins = _as_tuple(inputs, "inputs", "jacobian")
    ins = tuple(t.detach() for t in ins)
    columns: list[list[list[Tensor]]] = []  # [input][element] -> per-output J e_k
    is_outputs_tuple = False
    for j, inp in enumerate(ins):
        per_element = []
        for k in range(inp.numel()):
            v = tuple(_one_hot(t, k) if i == j else _zeros_like(t) for i, t in enumerate(ins))
            outs, jv = jvp(func, ins, v)
            is_outputs_tuple = isinstance(outs, tuple)
            per_element.append(list(jv) if is_outputs_tuple else [jv])
        columns.append(per_element)
    outs = func(*ins)
    outs = outs if isinstance(outs, tuple) else (outs,)
    jac = []
    for o, out in enumerate(outs):
        row = []
        for j, inp in enumerate(ins):
            cols = [c[o] for c in columns[j]]
            shape = tuple(out.shape) + tuple(inp.shape)
            row.append(ops.reshape(ops.stack(cols, -1), shape).detach() if cols else _empty(shape, inp))
        jac.append(tuple(row))
    return _tuple_postprocess(tuple(jac), (is_outputs_tuple, is_inputs_tuple))


def _scalar_output(outputs: tuple[Tensor, ...], is_tuple: bool, fn_name: str) -> None:
    """Refuse outputs that are not one Tensor of one element (``hessian``, ``vhp``, ``hvp``)."""
    if is_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


def hessian(func: Callable[..., Any], inputs: Any, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> Any:
    """The Hessian of a function returning one element: the jacobian of its jacobian."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise RuntimeError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def single_output(*inp: Tensor) -> Tensor:
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        _scalar_output(t_out, is_out_tuple, "hessian")
        return ops.reshape(out, ())

    def jac_func(*inp: Tensor) -> Any:
        jac = jacobian(single_output, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


def vhp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), v^T H)``: a backward pass through the gradient, seeded with ``v``."""
    with enable_grad():
        is_inputs_tuple, inputs = _prepare_inputs(inputs, create_graph, "vhp")
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "vhp", "the input to the user-provided function is")
        is_outputs_tuple, outputs = _call(func, inputs, strict, "vhp")
        _scalar_output(outputs, is_outputs_tuple, "vhp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
    result = _last_backward(jac, inputs, v, inputs, strict, create_graph, "double_back")
    return _finish(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


def hvp(func: Callable[..., Any], inputs: Any, v: Any = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Any, Any]:
    """``(func(inputs), H v)``: the double-backward trick on the gradient (equal to ``vhp`` for a
    symmetric Hessian, which it is for twice continuously differentiable functions)."""
    with enable_grad():
        is_inputs_tuple, inputs = _prepare_inputs(inputs, create_graph, "hvp")
        v = _prepare_v(v, inputs, is_inputs_tuple, create_graph, "hvp", "the input to the user-provided function is")
        is_outputs_tuple, outputs = _call(func, inputs, strict, "hvp")
        _scalar_output(outputs, is_outputs_tuple, "hvp")
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        grad_jac = tuple(_zeros_like(t).requires_grad_(True) for t in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    result = _last_backward(double_back, grad_jac, v, inputs, strict, create_graph, "double_back_trick")
    return _finish(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


def __dir__() -> list[str]:
    # See NOTE [ The namespace is the API ] in minigrad/__init__.py.
    submodules = [n for n, v in globals().items()
                  if not n.startswith("_") and getattr(v, "__name__", None) == f"{__name__}.{n}"]
    return sorted({*__all__, *submodules, *(n for n in globals() if n.startswith("__"))})
