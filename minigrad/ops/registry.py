"""Op definitions: one place per op (STYLE rule 3).

An ``OpDef`` ties together everything about an op that is not a kernel:

- the **API layer**: its Python signature (inputs, attributes with defaults
  and checks) and argument checking with PyTorch-style messages
  (``matmul(): argument 'y' (position 1) must be Tensor, but got str``);
- its **InferMeta** function (output shape and dtype, ``ValueError`` on bad
  shapes);
- which inputs take part in the KernelKey's dtype promotion and whether
  PrepareData may cast dtypes;
- its **backward formula**, written with minigrad ops, and which tensors the
  grad node saves;
- the grad node class, ``<Op>GradNode``, made here.

Its CPU kernel is registered in the same file, next to it
(``@register_kernel("relu", CPU)``); GPU kernels come from the CUDA templates
(filled from ``gpu=``) or a launcher file per family in ``kernels/gpu``. Also
here: the tensor methods and operators it provides (``methods=``,
``operators=``) and its AMP category (``amp=``) - the method table, the AMP
lists and the GPU template tables are all derived from these definitions.

Example (the whole definition of ``mul``)::

    mul = defop("mul", inputs=("x", "y"), infer_meta=infer_broadcast,
                save=("x", "y"), scalars=True, transform_dtype=True)

    @mul.def_backward
    def _(node, grad):
        x, y = node.saved()
        return (sum_to(grad * y, x.shape) if node.needs(0) else None,
                sum_to(grad * x, y.shape) if node.needs(1) else None)
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from .. import dtypes as _dt
from ..autograd.engine import GRAPH_OPS
from ..autograd.grad_node import GradNode
from ..dispatch.amp import set_amp_category
from ..dispatch.dygraph import run_op
from ..kernels.gpu.cuda_src import set_elementwise_expression
from ..dispatch.op_table import OPS
from ..tensor import Tensor

__all__ = ["Input", "Attr", "OpDef", "defop", "OPS", "on_define", "type_name"]

_MISSING = object()


def type_name(value: Any) -> str:
    """The type name used in error messages (``Tensor``, ``str``, ``list``...)."""
    return type(value).__name__


class Input:
    """A tensor input of an op.

    Args:
        name: argument name (used in messages and events).
        is_list: the argument is a sequence of tensors (e.g. ``concat``), one
            slot with one rank per tensor.
        differentiable: gradients flow to it (index tensors are not).
        scalar_ok: a Python number is accepted and wrapped as a tensor.
        optional: ``None`` is accepted.
    """

    __slots__ = ("name", "is_list", "differentiable", "scalar_ok", "optional")

    def __init__(
        self,
        name: str,
        is_list: bool = False,
        differentiable: bool = True,
        scalar_ok: bool = False,
        optional: bool = False,
    ) -> None:
        self.name = name
        self.is_list = is_list
        self.differentiable = differentiable
        self.scalar_ok = scalar_ok
        self.optional = optional


class Attr:
    """A non-tensor argument with a default and a checker.

    ``check(op_name, arg_name, position, value)`` returns the normalised
    value or raises ``TypeError``/``ValueError``.
    """

    __slots__ = ("name", "default", "check")

    def __init__(self, name: str, default: Any = _MISSING, check: Callable[..., Any] | None = None) -> None:
        self.name = name
        self.default = default
        self.check = check


#: Called with each new OpDef (``_tensor_methods.py`` attaches its methods and operators).
_define_listeners: list[Callable[["OpDef"], None]] = []


def on_define(listener: Callable[["OpDef"], None]) -> None:
    """Call ``listener(opdef)`` for every op defined from now on."""
    _define_listeners.append(listener)


def _node_class_name(op: str) -> str:
    return "".join(part.capitalize() for part in op.strip("_").split("_")) + "GradNode"


class OpDef:
    """Everything about one op except its kernels (see the module docstring)."""

    def __init__(
        self,
        name: str,
        inputs: Sequence[Input | str],
        attrs: Sequence[Attr] = (),
        infer_meta: Callable[..., Any] | None = None,
        save: Sequence[str] = (),
        save_for: dict[str, Sequence[int]] | None = None,
        promote: str = "all",
        key_inputs: Sequence[int] | None = None,
        transform_dtype: bool = False,
        scalars: bool = False,
        differentiable: bool = True,
        view: bool = False,
        doc: str = "",
        methods: Sequence[str] = (),
        operators: Sequence[str] = (),
        amp: str | None = None,
        gpu: tuple[str, str] | None = None,
    ) -> None:
        self.name = name
        self.inputs: tuple[Input, ...] = tuple(
            Input(i, scalar_ok=scalars) if isinstance(i, str) else i for i in inputs
        )
        self.attrs: tuple[Attr, ...] = tuple(attrs)
        self.infer_meta = infer_meta
        self.save = tuple(save)
        self.save_index = tuple(
            -1 if s == "out" else [i.name for i in self.inputs].index(s) for s in self.save
        )
        #: ``save_for={"x": (1,)}``: x is saved only for the gradient of input slot 1. When
        #: none of those inputs needs a gradient the tensor is not kept (PyTorch's
        #: ``MulBackward0`` keeps ``other`` only when ``self`` requires grad): ``ctx.saved()``
        #: gives None in its place. Entries not named are always saved.
        self.save_needed_by: tuple[tuple[int, ...] | None, ...] = tuple(
            tuple(save_for[s]) if save_for and s in save_for else None for s in self.save
        )
        if promote not in ("all", "float"):
            raise ValueError(f"promote must be 'all' or 'float', got {promote!r}")
        self.promote_float = promote == "float"
        self.key_inputs = tuple(key_inputs) if key_inputs is not None else tuple(range(len(self.inputs)))
        # An op that computes in floating point must also cast integer inputs to the
        # key's float dtype (``exp(int tensor)``), so promote="float" implies the transform.
        self.transform_dtype = transform_dtype or self.promote_float
        self.differentiable = differentiable
        self.view = view
        self.backward: Callable[..., Any] | None = None
        #: Optional fused formula on arrays (``fn(ctx, g_array) -> grad arrays per slot``), run
        #: instead of ``backward`` when nothing observes the ops it would run (engine._run_node).
        self.backward_arrays: Callable[..., Any] | None = None
        self.has_list_input = any(i.is_list for i in self.inputs)
        self.doc = doc
        #: Tensor methods (``x.relu()``) and Python operators (``__add__``, ``__radd__``) that call
        #: this op; ``_tensor_methods.py`` attaches them from here.
        self.methods = tuple(methods)
        self.operators = tuple(operators)
        #: AMP category: ``"allow"`` (float16 under O1), ``"deny"`` (always float32),
        #: ``"never"`` (not cast), None (follow the inputs). Fills ``dispatch/amp.py``'s lists.
        self.amp = amp
        set_amp_category(name, amp)
        #: ``(kind, CUDA expression)`` for the GPU elementwise templates, or None; fills the
        #: tables of ``kernels/gpu/cuda_src.py`` (kind: ``unary``, ``binary``, ``compare``).
        self.gpu_elementwise = tuple(gpu) if gpu is not None else None
        if gpu is not None:
            set_elementwise_expression(name, *gpu)
        # The API layer's fast path (NOTE [ The common call ]): how many positional
        # arguments a call with every attribute left at its default has, and those defaults.
        self._arg_names = [i.name for i in self.inputs] + [a.name for a in self.attrs]
        simple = not any(i.is_list or i.optional for i in self.inputs) and all(
            a.default is not _MISSING for a in self.attrs
        )
        self._fast_arity = len(self.inputs) if simple else -1
        self._scalar_ok = tuple(i.scalar_ok for i in self.inputs)
        self._any_scalar_ok = any(self._scalar_ok)
        self._arg_pos = {n: pos for pos, n in reversed(list(enumerate(self._arg_names)))}
        self._default_attrs = {a.name: a.default for a in self.attrs}
        self._attr_index = {a.name: k for k, a in enumerate(self.attrs)}
        #: For calls with attributes: how many leading tensor arguments (-1: list or optional
        #: inputs, always ``bind``), and the attributes a call must give.
        self._n_tensor_inputs = len(self.inputs) if not any(i.is_list or i.optional for i in self.inputs) else -1
        self._required_attrs = tuple(a.name for a in self.attrs if a.default is _MISSING)
        self.node_class: type[GradNode] = type(
            _node_class_name(name),
            (GradNode,),
            {"__slots__": (), "opdef": self, "op_name": name, "__module__": "minigrad.autograd.nodes"},
        )
        OPS[name] = self
        GRAPH_OPS.define(name, self)
        for listener in _define_listeners:
            listener(self)

    def def_backward(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: the backward formula ``fn(node, grad) -> grads per input slot``."""
        mixes_dtypes = self.transform_dtype and (len(self.key_inputs) > 1 or self.has_list_input)
        self.backward = _grads_in_input_dtypes(self, fn) if mixes_dtypes else fn
        return fn

    def def_backward_arrays(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: a fused array formula equal, bit for bit, to ``backward`` (PyTorch's
        ``threshold_backward`` is one kernel where ``backward`` runs several ops). The engine uses it
        only with no recorder, no ``create_graph`` and CPU floating gradients; otherwise ``backward``
        runs, so recorded events and double backward are unchanged. ``fn`` returns None to decline
        a call it does not cover (inputs promoted from another dtype): ``backward`` runs then."""
        self.backward_arrays = fn
        return fn

    # -- the API layer -------------------------------------------------------

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """Map call arguments to inputs and attributes, checking types (API layer)."""
        op = self.name
        n_in = len(self.inputs)
        names = self._arg_names
        if len(args) > len(names):
            raise TypeError(f"{op}() takes {len(names)} arguments ({', '.join(names)}) but {len(args)} were given")
        values: list[Any] = list(args) + [_MISSING] * (len(names) - len(args))
        arg_pos = self._arg_pos
        if "axis" in kwargs and "axis" not in arg_pos and "dim" in arg_pos:
            # PyTorch (and NumPy) accept ``axis=`` wherever an op takes ``dim``.
            kwargs = dict(kwargs)
            if "dim" in kwargs:
                raise TypeError(f"{op}() got both 'dim' and its alias 'axis'; pass one of them")
            kwargs["dim"] = kwargs.pop("axis")
        if "keepdims" in kwargs and "keepdims" not in arg_pos and "keepdim" in arg_pos:
            # NumPy's spelling ``keepdims=``, which PyTorch accepts too (``x.sum(1, keepdims=True)``).
            kwargs = dict(kwargs)
            if "keepdim" in kwargs:
                raise TypeError(f"{op}() got both 'keepdim' and its alias 'keepdims'; pass one of them")
            kwargs["keepdim"] = kwargs.pop("keepdims")
        for key, value in kwargs.items():
            pos = arg_pos.get(key)
            if pos is None:
                raise TypeError(f"{op}() got an unexpected keyword argument '{key}' (arguments: {', '.join(names)})")
            if values[pos] is not _MISSING:
                raise TypeError(f"{op}() got multiple values for argument '{key}'")
            values[pos] = value
        inputs: list[Any] = []
        any_tensor = None
        for pos, spec in enumerate(self.inputs):
            v = values[pos]
            if v is _MISSING:
                if spec.optional:
                    v = None
                else:
                    raise TypeError(f"{op}() missing required argument '{spec.name}' (position {pos})")
            if spec.is_list:
                if not isinstance(v, (list, tuple)) or not v:
                    raise TypeError(
                        f"{op}(): argument '{spec.name}' (position {pos}) must be a non-empty list or tuple of "
                        f"Tensors, but got {type_name(v) if not isinstance(v, (list, tuple)) else 'an empty ' + type_name(v)}"
                    )
                for j, item in enumerate(v):
                    if not isinstance(item, Tensor):
                        raise TypeError(
                            f"{op}(): argument '{spec.name}' (position {pos}) must be a list of Tensors, "
                            f"but element {j} is {type_name(item)}"
                        )
                v = list(v)
                any_tensor = v[0] if any_tensor is None else any_tensor
            elif isinstance(v, Tensor):
                any_tensor = v if any_tensor is None else any_tensor
            elif v is None and spec.optional:
                pass
            elif spec.scalar_ok and isinstance(v, (int, float, bool, np.number, np.bool_)):
                if isinstance(v, (np.number, np.bool_)):
                    v = v.item()  # a NumPy scalar (np.float32(0.1) * x) is used as the Python number it holds
            else:
                expected = "Tensor or a Python number" if spec.scalar_ok else "Tensor"
                raise TypeError(f"{op}(): argument '{spec.name}' (position {pos}) must be {expected}, but got {type_name(v)}")
            inputs.append(v)
        if any_tensor is None:
            raise TypeError(f"{op}(): at least one of the arguments ({', '.join(i.name for i in self.inputs)}) must be a Tensor")
        if self._any_scalar_ok:
            # A scalar takes the dtype of a tensor it is combined with: another scalar-capable
            # input (where's x/y), not e.g. where's bool condition.
            like = next(
                (v for spec, v in zip(self.inputs, inputs) if spec.scalar_ok and isinstance(v, Tensor)), any_tensor
            )
            for pos, spec in enumerate(self.inputs):
                v = inputs[pos]
                if spec.scalar_ok and not isinstance(v, Tensor) and v is not None:
                    inputs[pos] = _wrap_scalar(v, inputs, like)
        attrs: dict[str, Any] = {}
        for k, spec in enumerate(self.attrs):
            pos = n_in + k
            v = values[pos]
            if v is _MISSING:
                if spec.default is _MISSING:
                    raise TypeError(f"{op}() missing required argument '{spec.name}' (position {pos})")
                v = spec.default
            elif spec.check is not None:
                v = spec.check(op, spec.name, pos, v)
            attrs[spec.name] = v
        return inputs, attrs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # NOTE [ The common call ]
        #     Most calls pass just the op's tensors (or Python numbers where
        #     allowed), positionally, and leave every attribute at its default:
        #     ``a * b``, ``x + 1``, ``x @ w``. For those, checking is two type
        #     tests per argument. Calls with tensors and then attributes take a
        #     second short road (below). Anything else - lists, optional inputs,
        #     aliases, or a bad argument - goes through ``bind``, which gives the
        #     same result and the API layer's error messages.
        if not kwargs and len(args) == self._fast_arity:
            # A scalar takes the dtype of a scalar-capable tensor input (where's x/y,
            # not its bool condition), as in ``bind``.
            scalar_ok = self._scalar_ok
            like = None
            for pos, v in enumerate(args):
                if isinstance(v, Tensor):
                    if scalar_ok[pos]:
                        like = v
                        break
                    if like is None:
                        like = v
            if like is not None:
                wrap = False
                for pos, v in enumerate(args):
                    if not isinstance(v, Tensor):
                        if not (scalar_ok[pos] and isinstance(v, (int, float, bool))):
                            break
                        wrap = True
                else:
                    inputs = list(args)
                    if wrap:
                        for pos, v in enumerate(args):
                            if not isinstance(v, Tensor):
                                inputs[pos] = _wrap_scalar(v, inputs, like)
                    # One attrs dict shared by every such call: attrs are never changed after the
                    # call (NOTE [ Lean graph data ] in autograd/grad_node.py).
                    return run_op(self, inputs, self._default_attrs)
        elif self._n_tensor_inputs >= 0 and len(args) >= self._n_tensor_inputs:
            # Tensors first, then attributes positionally or by name (``reshape(g, shape)``,
            # ``matmul(g, w, transpose_y=True)`` in backward formulas): each given attribute
            # is checked as ``bind`` checks it; anything unusual goes to ``bind``.
            n_in = self._n_tensor_inputs
            attr_specs = self.attrs
            if len(args) <= n_in + len(attr_specs):
                for v in args[:n_in]:
                    if not isinstance(v, Tensor):
                        break
                else:
                    attrs = dict(self._default_attrs)
                    pos = n_in
                    for spec, v in zip(attr_specs, args[n_in:]):
                        attrs[spec.name] = spec.check(self.name, spec.name, pos, v) if spec.check is not None else v
                        pos += 1
                    for key, v in kwargs.items():
                        k = self._attr_index.get(key)
                        if k is None or k < len(args) - n_in:
                            break  # unknown, an alias (axis=) or given twice: bind says which
                        spec = attr_specs[k]
                        attrs[key] = spec.check(self.name, key, n_in + k, v) if spec.check is not None else v
                    else:
                        if not self._required_attrs or all(attrs[n] is not _MISSING for n in self._required_attrs):
                            return run_op(self, list(args[:n_in]), attrs)
        inputs, attrs = self.bind(args, kwargs)
        return run_op(self, inputs, attrs)

    def __repr__(self) -> str:
        return f"<op {self.name}>"


def _grads_in_input_dtypes(opdef: "OpDef", fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a backward formula so each gradient has its input's dtype.

    An op whose inputs were promoted to a common dtype (``x_f32 * y_f64``)
    computes its gradients in that dtype; each one is cast back (a recorded
    ``cast``, so still differentiable) to the dtype of the input it belongs to,
    as ``.grad`` must match its tensor.
    """

    def backward(ctx: Any, grad: Any) -> Any:
        cast = OPS["cast"]  # ops/math.py defines it after some of the ops it serves
        result = fn(ctx, grad)
        out = list(result) if isinstance(result, (tuple, list)) else [result]
        for slot, row in enumerate(ctx.node.next_edges):
            if slot >= len(out) or out[slot] is None:
                continue
            if opdef.inputs[slot].is_list:
                out[slot] = [
                    g if g is None or e.dtype is None or g._dtype is e.dtype else cast(g, e.dtype)
                    for g, e in zip(out[slot], row)
                ]
            elif row[0].dtype is not None and out[slot]._dtype is not row[0].dtype:
                out[slot] = cast(out[slot], row[0].dtype)
        return tuple(out)

    backward.__name__ = getattr(fn, "__name__", "backward")
    backward.__doc__ = fn.__doc__
    return backward


def _wrap_scalar(value: Any, inputs: list[Any], like: Any) -> Any:
    """Wrap a Python number as a 0-d tensor that does not widen the other operand.

    ``2 * x`` keeps ``x``'s dtype; a float with an integer tensor gives the
    default float dtype, as in PyTorch.
    """
    dt = like._dtype
    if isinstance(value, bool):
        target = dt
    elif isinstance(value, int):
        target = dt if dt is not _dt.bool_ else _dt.int64
    else:
        target = dt if dt.is_floating else _dt.float32
    return Tensor._scalar(value, target, like._device)


def defop(name: str, inputs: Sequence[Input | str], **kwargs: Any) -> OpDef:
    """Define an op (see ``OpDef``); returns the callable ``OpDef``."""
    return OpDef(name, inputs, **kwargs)
