"""Op definitions: one place per op.

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

    mul = defop("mul", inputs=("x", "y"), infer_meta=im.broadcast, save=("x", "y"),
                save_for={"x": (1,), "y": (0,)}, scalars=True, transform_dtype=True)

    @mul.def_backward
    def _mul_backward(ctx, grad):
        x, y = ctx.saved()  # x is kept only for y's gradient, y only for x's (save_for)
        ops = ctx.ops
        return (ops.sum_to(ops.mul(grad, y), ctx.input_shape(0)) if ctx.needs(0) else None,
                ops.sum_to(ops.mul(grad, x), ctx.input_shape(1)) if ctx.needs(1) else None)

The formula computes only with ``ctx.ops``: the engine runs it on minigrad's
ops (graph mode) or on the same ops' kernels over arrays (array mode); see
NOTE [ One formula, two modes ] in ``autograd/formula.py``.
"""

from __future__ import annotations

import functools
import re
import sys
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from ..errors import ShapeError
from .. import dtypes as _dt
from ..autograd.formula import GRAPH_OPS, define_array_op
from ..autograd.grad_mode import GRAD_MODE
from ..autograd.grad_node import GradNode
from ..tracing.node_names import NODE_VARIANTS, SCALAR_SLOTS, node_class_name, paddle_node_name
from ..dispatch.amp import set_amp_category
from ..dispatch.array_mode import ArrayOp
from ..dispatch.codegen import dygraph_function
from ..dispatch.dygraph import cast_refusal, run_inplace
from ..kernels import infer_meta as _im
from ..devices import partial_overlap
from ..autograd.views import PARTIAL_OVERLAP
from ..kernels.gpu.cuda_src import set_elementwise_expression
from ..dispatch.op_table import OPS
from ..tensor import Tensor

__all__ = ["Input", "Attr", "OpDef", "defop", "define_composite", "OPS", "on_define", "type_name", "call_with_out",
           "ops_taking_out"]

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
        empty: for a list input, the error an empty list raises, as ``(class, message)``;
            default PyTorch's words for a tensor-list argument: ``RuntimeError``
            ``"<op> expects a non-empty TensorList"``.
    """

    __slots__ = ("name", "is_list", "differentiable", "scalar_ok", "optional", "empty")

    def __init__(
        self,
        name: str,
        is_list: bool = False,
        differentiable: bool = True,
        scalar_ok: bool = False,
        optional: bool = False,
        empty: tuple[type[Exception], str] | None = None,
    ) -> None:
        self.name = name
        self.is_list = is_list
        self.differentiable = differentiable
        self.scalar_ok = scalar_ok
        self.optional = optional
        self.empty = empty


class Attr:
    """A non-tensor argument with a default and a checker.

    ``check(op_name, arg_name, position, value)`` returns the normalised
    value or raises ``TypeError``/``ValueError``.
    """

    __slots__ = ("name", "default", "check", "keyword_only")

    def __init__(self, name: str, default: Any = _MISSING, check: Callable[..., Any] | None = None, *,
                 keyword_only: bool = False) -> None:
        self.name = name
        self.default = default
        self.check = check
        #: given by keyword only, as PyTorch's ``*, dtype=None`` (keyword-only attributes come last)
        self.keyword_only = keyword_only


#: Called with each new OpDef (``_tensor_methods.py`` attaches its methods and operators).
_define_listeners: list[Callable[["OpDef"], None]] = []


def on_define(listener: Callable[["OpDef"], None]) -> None:
    """Call ``listener(opdef)`` for every op defined from now on."""
    _define_listeners.append(listener)


def _node_class(opdef: "OpDef", name: str) -> type[GradNode]:
    """The grad-node class of ``opdef`` named ``name`` (PyTorch's ``MulBackward0``)."""
    return type(name, (GradNode,), {"__slots__": (), "opdef": opdef, "op_name": opdef.name,
                                    "paddle_name": paddle_node_name(opdef.name), "scalar_slot": SCALAR_SLOTS.get(name),
                                    "__module__": "minigrad.autograd.nodes"})


def _node_class_of(opdef: "OpDef", variant: Callable[..., str]) -> Callable[[Any, dict[str, Any]], type[GradNode]]:
    """For an op with several PyTorch overloads: the node class of a call, one class per name."""
    classes = {opdef.node_class.__name__: opdef.node_class}

    def node_class_of(inputs: Any, attrs: dict[str, Any]) -> type[GradNode]:
        name = variant(inputs, attrs)
        cls = classes.get(name)
        if cls is None:
            cls = classes[name] = _node_class(opdef, name)
        return cls
    return node_class_of


def _caller_module() -> str:
    """The module whose code defines an op (the first frame outside this module)."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back  # type: ignore[assignment]
    return frame.f_globals.get("__name__", "") if frame is not None else ""


def _all_tensors(args: tuple[Any, ...]) -> bool:
    for a in args:
        if not isinstance(a, Tensor):
            return False
    return True


#: How PyTorch lays out the CPU result of an op, by its InferMeta (NOTE [ An elementwise result is laid out
#: as PyTorch lays it out ] in ``kernels/strided.py``): an elementwise op's result in the order of its inputs'
#: strides (TensorIterator's), a reduction's, a scan's, a softmax's and a concatenation's row-major.
_LAYOUTS = {_im.broadcast: "elementwise", _im.compare: "elementwise", _im.where: "elementwise",
            _im.same: "elementwise", _im.to_bool: "elementwise", _im.reduce: "contiguous", _im.softmax: "contiguous",
            _im.concat: "contiguous", _im.stack: "contiguous"}
#: ``clone`` keeps a dense input's strides and makes the rest row-major (its ``memory_format`` rules);
#: ``fill`` (and the in-place ``zero_``, ``fill_``, ``copy_``) writes a tensor's own layout
_OWN_LAYOUT = ("clone", "fill", "zero_", "fill_", "fill_tensor_", "copy_")


class OpDef:
    """Everything about one op except its kernels (see the module docstring)."""

    #: What ``place`` puts where a call gave no value.
    MISSING = _MISSING

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
        out: bool | None = None,
        output_index: Callable[[Any, dict[str, Any], int], Any] | None = None,
        layout: str | None = None,
        node_extra: Callable[[Any, dict[str, Any]], Any] | None = None,
        dtype_out: bool = False,
    ) -> None:
        self.name = name
        self.inputs: tuple[Input, ...] = tuple(
            Input(i, scalar_ok=scalars) if isinstance(i, str) else i for i in inputs
        )
        self.attrs: tuple[Attr, ...] = tuple(attrs)
        self.infer_meta = infer_meta
        self.save = tuple(save)
        #: Per saved name, the input slot it is, or ``-1 - k`` for output ``k`` (``"out"`` is output 0,
        #: ``"out1"``, ``"out2"`` the others of an op with several: ``eigh``'s eigenvectors).
        self.save_index = tuple(
            -1 - int(s[3:] or 0) if re.fullmatch(r"out\d*", s) else [i.name for i in self.inputs].index(s)
            for s in self.save
        )
        #: ``save_for={"x": (1,)}``: x is saved only for the gradient of input slot 1. When
        #: none of those inputs needs a gradient the tensor is not kept (PyTorch's
        #: ``MulBackward0`` keeps ``other`` only when ``self`` requires grad): ``ctx.saved()``
        #: gives None in its place. Entries not named are always saved.
        self.save_needed_by: tuple[tuple[int, ...] | None, ...] = tuple(
            tuple(save_for[s]) if save_for and s in save_for else None for s in self.save
        )
        #: For grad-node creation: ``(index, mask)`` per saved tensor, ``mask`` the input slots
        #: of ``save_needed_by`` as bits (0: always saved); whether all are single-tensor inputs.
        self.save_plan: tuple[tuple[int, int], ...] = tuple(
            (idx, sum(1 << k for k in ks) if ks is not None else 0) for idx, ks in zip(self.save_index, self.save_needed_by)
        )
        self.saves_inputs_only = bool(self.save_index) and all(
            idx >= 0 and not self.inputs[idx].is_list and not self.inputs[idx].optional for idx in self.save_index
        )
        if promote not in ("all", "float"):
            raise ShapeError(f"promote must be 'all' or 'float', got {promote!r}")
        self.promote_float = promote == "float"
        self.key_inputs = tuple(key_inputs) if key_inputs is not None else tuple(range(len(self.inputs)))
        # An op that computes in floating point must also cast integer inputs to the
        # key's float dtype (``exp(int tensor)``), so promote="float" implies the transform.
        self.transform_dtype = transform_dtype or self.promote_float
        self.differentiable = differentiable
        self.view = view
        #: The layout PyTorch gives the op's CPU result where NumPy's differs (``_LAYOUTS``): "elementwise",
        #: "contiguous", or None (the kernel's own).
        self.torch_layout = layout if layout is not None else None if name in _OWN_LAYOUT else _LAYOUTS.get(infer_meta)
        #: A view op with several outputs (``split``, ``unbind``): ``output_index(x, attrs, k)`` is the
        #: ``x[index]`` that makes output ``k``, its view function (NOTE [ One node for the pieces ] in
        #: ``ops/shape.py``). Its outputs are PyTorch's multi-output views.
        self.output_index = output_index
        #: ``node_extra(inputs, attrs)``: what the backward formula must know of an input it may not save,
        #: kept on the grad node as ``ctx.extra`` (PyTorch's ``MmBackward0`` keeps its operands' strides
        #: to lay their gradients out as they are: ``_mm_layout`` in ``ops/linalg.py``); None for most ops.
        self.node_extra = node_extra
        #: The op's ``dtype`` attribute chooses its output dtype (``sum(x, dtype=torch.int64)``): an integral one
        #: with an input that requires grad is refused, as PyTorch refuses it ("Autograd not support dtype: Long").
        self.dtype_out = dtype_out
        #: Whether the function takes PyTorch's ``out=`` (NOTE [ out= ]): every op that makes a new
        #: tensor does, unless its definition says ``out=False``; a view never does.
        self.takes_out = not view if out is None else out
        self.backward: Callable[..., Any] | None = None
        #: ``decompose(inputs, attrs)``: the other ops a public call runs instead of this one, or None to run
        #: this one (NOTE [ An op that decomposes ]); set with ``def_decomposition``.
        self.decompose: Callable[[list[Any], dict[str, Any]], Any] | None = None
        #: The module that defines the op (its generated dygraph function's module is named after it).
        self.defined_in: str = _caller_module()
        #: The op's dygraph function: the checked-in one (``dispatch/generated/``, attached when
        #: ``minigrad.ops`` is imported), else generated and compiled on the first call.
        self.dygraph_function: Callable[..., Any] = self._first_call
        self.has_list_input = any(i.is_list for i in self.inputs)
        #: Inputs promoted to a common dtype (``x_f32 * y_f64``) get their gradients cast
        #: back to their own dtype by the engine (``engine._grads_per_edge``).
        self.casts_grads = self.transform_dtype and (len(self.key_inputs) > 1 or self.has_list_input)
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
        #: tables of ``kernels/gpu/cuda_src.py`` (kind: ``unary``, ``binary``, ``compare``, ``test``: a bool
        #: of one value, ``param``: of one or two inputs with the op's number attributes as ``p0``, ``p1``, ``p2``,
        #: ``ternary``: of three inputs ``a``, ``b``, ``c``, with the numbers as ``param``'s).
        self.gpu_elementwise = tuple(gpu) if gpu is not None else None
        if gpu is not None:  # a ``param``/``ternary`` expression reads the op's number attributes as p0, p1, p2
            set_elementwise_expression(name, *gpu, params=tuple(a.name for a in self.attrs)
                                       if gpu[0] in ("param", "ternary") else (), arity=len(self.inputs))
        # What the API layer's parser (``bind``) looks up: argument names and positions, the
        # attributes a call must give, and the defaults a common call shares (NOTE [ The common call ]).
        self._arg_names = [i.name for i in self.inputs] + [a.name for a in self.attrs]
        #: how many arguments a call may give by position (the keyword-only attributes last, by keyword)
        self._positional = len(self.inputs) + sum(not a.keyword_only for a in self.attrs)
        self._arg_pos = {n: pos for pos, n in reversed(list(enumerate(self._arg_names)))}
        self._attr_index = {a.name: k for k, a in enumerate(self.attrs)}
        self._required_attrs = tuple(a.name for a in self.attrs if a.default is _MISSING)
        self._default_attrs = {a.name: a.default for a in self.attrs}
        self._any_scalar_ok = any(i.scalar_ok for i in self.inputs)
        #: A binary op whose common call the operators (``a * b``) hand to the dygraph layer directly.
        self._tensor_arity = len(self.inputs) if not any(i.is_list or i.optional for i in self.inputs) else -1
        self._fast_arity = self._tensor_arity if not self._required_attrs else -1
        #: The grad node's class, named as PyTorch names it (``MulBackward0``: ``node_names.py``);
        #: for an op with several PyTorch overloads, ``node_class_of(inputs, attrs)`` picks the call's.
        self.node_class: type[GradNode] = _node_class(self, node_class_name(name))
        variant = NODE_VARIANTS.get(name)
        self.node_class_of = None if variant is None else _node_class_of(self, variant)
        OPS[name] = self
        GRAPH_OPS.define(name, self)
        define_array_op(name, lambda ns: ArrayOp(self, ns))
        for listener in _define_listeners:
            listener(self)

    def def_backward(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: the backward formula ``fn(ctx, grad) -> grads per input slot``, written with ``ctx.ops``."""
        self.backward = fn
        self.dygraph_function = self._first_call  # generated again: it now builds a grad node
        return fn

    def def_decomposition(self, fn: Callable[[list[Any], dict[str, Any]], Any]) -> Callable[..., Any]:
        """Decorator: ``fn(inputs, attrs)`` runs PyTorch's decomposition of a call (other ops, each recorded),
        or returns None where the call is this op itself.

        NOTE [ An op that decomposes ]
            Some of PyTorch's functions are no single node: ``reshape`` is a
            ``view`` where the layout allows, else a ``clone`` and an
            ``_unsafe_view``; ``matmul`` of a batch folds it into ``mm`` or
            expands it into ``bmm`` between views. The graph a learner sees
            is the ops that ran, so the op's public call runs them, after the
            API layer's checks and before any of them makes a node
            (``bind``, then the decomposition's own InferMeta). ``direct``
            calls the op itself: what ``torch.bmm`` or a backward formula
            asks for.
        """
        self.decompose = fn
        return fn

    def direct(self, *args: Any, **kwargs: Any) -> Any:
        """The op itself, without its decomposition (NOTE [ An op that decomposes ])."""
        inputs, attrs = self.bind(args, kwargs)
        return self.dygraph_function(*inputs, attrs)

    def make_dygraph_function(self) -> Callable[..., Any]:
        """Generate and compile this op's dygraph function (``minigrad codegen <op>`` prints its source)."""
        self.dygraph_function = dygraph_function(self)
        return self.dygraph_function

    def _first_call(self, *args: Any) -> Any:
        """The first call of an op with no dygraph function yet: generate it, then run it."""
        return self.make_dygraph_function()(*args)

    # -- the API layer -------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """The API layer: check and bind the arguments (``bind``), then the op's dygraph function; with
        ``out=`` (where the op takes it), the result is written into ``out`` (``call_with_out``)."""
        if kwargs and "out" in kwargs and self.takes_out:
            return self._call_with_out(args, kwargs)
        inputs, attrs = self.bind(args, kwargs)
        if self.decompose is not None:
            out = self.decompose(inputs, attrs)
            if out is not None:
                return out
        return self.dygraph_function(*inputs, attrs)

    def _call_with_out(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """A call with ``out=``: the call without it, written into ``out`` (NOTE [ out= ])."""
        out = kwargs.pop("out")
        return call_with_out(self.name, out, self, args, kwargs)

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """Map call arguments to inputs and attributes, checking types: the API layer's one parser.

        NOTE [ The common call ]
            Most calls pass just the op's tensors, positionally, and give
            attributes by keyword or not at all (``a * b``, ``x @ w``,
            ``matmul(x, w, transpose_y=True)``): those skip the general parse
            (``place``, ``_check_inputs``, ``bind_attrs``), and a call that gives no
            attribute shares one attrs dict with every other such call (attrs
            are never changed after the call: NOTE [ Lean graph data ] in
            autograd/node_creation.py).
        """
        if len(args) == self._fast_arity and _all_tensors(args) and kwargs.keys() <= self._attr_index.keys():
            return list(args), self._keyword_attrs(kwargs) if kwargs else self._default_attrs
        n = self._tensor_arity  # the tensors, then attributes by position (``x.transpose(1, 2)``)
        if not kwargs and 0 < n < len(args) <= self._positional and _all_tensors(args[:n]):
            return list(args[:n]), self._positional_attrs(args[n:])
        values = self.place(args, kwargs)
        inputs = self._check_inputs(values)
        return inputs, self.bind_attrs(values)

    def _keyword_attrs(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """The attributes of a common call that names some of them (``matmul(x, w, transpose_y=True)``)."""
        attrs = dict(self._default_attrs)
        n_in = len(self.inputs)
        for key, v in kwargs.items():
            k = self._attr_index[key]
            check = self.attrs[k].check
            attrs[key] = v if check is None else check(self.name, key, n_in + k, v)
        return attrs

    def _positional_attrs(self, given: tuple[Any, ...]) -> dict[str, Any]:
        """The attributes of a call that gives the first ``len(given)`` of them by position and no keyword:
        ``bind_attrs`` without the placing of keywords."""
        attrs: dict[str, Any] = {}
        n_in = len(self.inputs)
        for k, spec in enumerate(self.attrs):
            if k < len(given):
                v = given[k]
                if spec.check is not None:
                    v = spec.check(self.name, spec.name, n_in + k, v)
            else:
                v = spec.default
                if v is _MISSING:
                    raise TypeError(f"{self.name}() missing required argument '{spec.name}' (position {n_in + k})")
            attrs[spec.name] = v
        return attrs

    def place(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """One value per argument (inputs, then attributes) from positions and keywords; ``_MISSING`` where none."""
        op, names = self.name, self._arg_names
        if len(args) > self._positional:
            shown = names[:self._positional]
            raise TypeError(f"{op}() takes {len(shown)} arguments ({', '.join(shown)}) but {len(args)} were given")
        values: list[Any] = [*args, *[_MISSING] * (len(names) - len(args))]
        for key, value in kwargs.items():
            if key == "axis" and "axis" not in self._arg_pos and "dim" in self._arg_pos:
                if "dim" in kwargs:  # PyTorch (and NumPy) accept ``axis=`` wherever an op takes ``dim``
                    raise TypeError(f"{op}() got both 'dim' and its alias 'axis'; pass one of them")
                key = "dim"
            elif key == "keepdims" and "keepdims" not in self._arg_pos and "keepdim" in self._arg_pos:
                if "keepdim" in kwargs:  # NumPy's spelling, which PyTorch accepts too (``x.sum(1, keepdims=True)``)
                    raise TypeError(f"{op}() got both 'keepdim' and its alias 'keepdims'; pass one of them")
                key = "keepdim"
            pos = self._arg_pos.get(key)
            if pos is None:
                raise TypeError(f"{op}() got an unexpected keyword argument '{key}' (arguments: {', '.join(names)})")
            if values[pos] is not _MISSING:
                raise TypeError(f"{op}() got multiple values for argument '{key}'")
            values[pos] = value
        return values

    def bind_attrs(self, values: list[Any]) -> dict[str, Any]:
        """The attributes of a call: each given one checked, the others at their defaults."""
        n_in = len(self.inputs)
        given = values[n_in:]
        if all(v is _MISSING for v in given):
            if self._required_attrs:
                raise TypeError(f"{self.name}() missing required argument '{self._required_attrs[0]}' "
                                f"(position {n_in + self._attr_index[self._required_attrs[0]]})")
            return self._default_attrs  # shared: NOTE [ The common call ]
        attrs: dict[str, Any] = {}
        for k, (spec, v) in enumerate(zip(self.attrs, given)):
            if v is _MISSING:
                if spec.default is _MISSING:
                    raise TypeError(f"{self.name}() missing required argument '{spec.name}' (position {n_in + k})")
                v = spec.default
            elif spec.check is not None:
                v = spec.check(self.name, spec.name, n_in + k, v)
            attrs[spec.name] = v
        return attrs

    def _check_inputs(self, values: list[Any]) -> list[Any]:
        """The tensor inputs, type-checked; Python numbers wrapped where the op takes them."""
        inputs: list[Any] = []
        any_tensor = None
        for pos, spec in enumerate(self.inputs):
            v = values[pos]
            if isinstance(v, Tensor) and not spec.is_list:
                any_tensor = v if any_tensor is None else any_tensor
            else:
                v = self._check_other_input(pos, spec, v)
                if type(v) is list and any_tensor is None:
                    any_tensor = v[0]
            inputs.append(v)
        if any_tensor is None:
            raise TypeError(f"{self.name}(): at least one of the arguments ({', '.join(i.name for i in self.inputs)}) "
                            f"must be a Tensor")
        if self._any_scalar_ok:
            # A scalar takes the dtype of a tensor it is combined with: another scalar-capable
            # input (where's x/y), not e.g. where's bool condition.
            like = next((v for spec, v in zip(self.inputs, inputs) if spec.scalar_ok and isinstance(v, Tensor)),
                        any_tensor)
            for pos, spec in enumerate(self.inputs):
                v = inputs[pos]
                if spec.scalar_ok and v is not None and not isinstance(v, Tensor):
                    inputs[pos] = wrap_scalar(v, like)
        return inputs

    def _check_other_input(self, pos: int, spec: Input, v: Any) -> Any:
        """An input that is not a Tensor: a list of tensors, None, or a Python number where allowed."""
        op = self.name
        if v is _MISSING:
            if not spec.optional:
                raise TypeError(f"{op}() missing required argument '{spec.name}' (position {pos})")
            return None
        if spec.is_list:
            if not isinstance(v, (list, tuple)):
                raise TypeError(f"{op}(): argument '{spec.name}' (position {pos}) must be a list or tuple "
                                f"of Tensors, but got {type_name(v)}")
            if not v:
                cls, message = spec.empty or (RuntimeError, f"{op} expects a non-empty TensorList")
                raise cls(message)
            for j, item in enumerate(v):
                if not isinstance(item, Tensor):
                    raise TypeError(f"{op}(): argument '{spec.name}' (position {pos}) must be a list of Tensors, "
                                    f"but element {j} is {type_name(item)}")
            return list(v)
        if v is None and spec.optional:
            return None
        if spec.scalar_ok and isinstance(v, (int, float, bool, np.number, np.bool_)):
            # A NumPy scalar (np.float32(0.1) * x) is used as the Python number it holds.
            return v.item() if isinstance(v, (np.number, np.bool_)) else v
        expected = "Tensor or a Python number" if spec.scalar_ok else "Tensor"
        raise TypeError(f"{op}(): argument '{spec.name}' (position {pos}) must be {expected}, but got {type_name(v)}")

    def __repr__(self) -> str:
        return f"<op {self.name}>"


def ops_taking_out() -> list[str]:
    """The ops whose functions take ``out=``, from their definitions (``OpDef.takes_out``)."""
    return sorted(name for name, op in OPS.items() if op.takes_out)


# NOTE [ out= ]
#     ``mg.add(x, y, out=r)`` is PyTorch's: the result is computed as usual, then written into
#     ``r`` in place, and ``r`` is returned. In PyTorch's order, before ``r`` changes:
#       1. ``out`` must be a Tensor (TypeError);
#       2. with grad mode on, neither ``out`` nor an input may require grad: the write would not be
#          recorded (RuntimeError, PyTorch's words);
#       3. ``out`` may not share only some elements with an input (all of them - ``exp(y, out=y)`` -
#          is fine);
#       4. it must be on the result's device, and the result's dtype must cast to its dtype as
#          PyTorch's ``canCast`` allows (not floating into integral, not numbers into bool);
#       5. an ``out`` of another shape is resized to the result's, with PyTorch's deprecation
#          warning when it held elements (none when it was empty).
#     The write is an in-place op (``run_inplace``): ``out``'s version counter moves and a recorder
#     sees ``tensor.version``. A function that is not an op (``add`` with ``alpha=``, ``cat``) passes
#     its ``out`` here too, so there is one implementation.
def call_with_out(op_name: str, out: Any, fn: Callable[..., Tensor], args: Sequence[Any],
                  kwargs: dict[str, Any] | None = None) -> Tensor:
    """``fn(*args, **kwargs)`` (a call without ``out``) written into ``out``, which is returned (NOTE [ out= ]).

    Example:
        >>> import minigrad as mg
        >>> r = mg.empty(2)
        >>> mg.add(mg.ones(2), mg.ones(2), out=r) is r, r.tolist()
        (True, [2.0, 2.0])
    """
    if not isinstance(out, Tensor):
        raise TypeError(f"{op_name}(): argument 'out' must be Tensor, not {type_name(out)}")
    kwargs = kwargs or {}
    operands = (*args, *kwargs.values())
    tensors = [t for v in operands for t in (v if isinstance(v, (list, tuple)) else (v,)) if isinstance(t, Tensor)]
    if GRAD_MODE.enabled and (out.requires_grad or any(t.requires_grad for t in tensors)):
        raise RuntimeError(f"{op_name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    for t in tensors:
        _check_no_partial_overlap(out, t)
    result = fn(*args, **kwargs)
    if result._device != out._device:
        raise RuntimeError(f"Expected out tensor to have device {result.device}, but got {out.device} instead")
    if not _dt.can_cast(result._dtype, out._dtype):
        raise cast_refusal(result._dtype, out._dtype)
    if result._dtype is not out._dtype:
        result = OPS["cast"](result, out._dtype)
    if tuple(out.shape) != tuple(result.shape):
        _resize_out(out, result)
    return run_inplace(out, op_name, lambda: result)


def factory_with_out(factory: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """``factory`` (``rand``, ``randn``: a function of ``*size``) taking PyTorch's ``out=`` as well: the values are
    made in ``out``'s dtype on its device (a float64 ``out`` gets PyTorch's double draws) and written into it
    (NOTE [ out= ]), resized silently as PyTorch's factories resize theirs.

    Example:
        >>> import minigrad as mg
        >>> r = mg.zeros(3)
        >>> mg.rand(2, out=r) is r, r.shape
        (True, minigrad.Size([2]))
    """
    name = factory.__name__

    @functools.wraps(factory)
    def with_out(*size: Any, out: Any = None, **kwargs: Any) -> Tensor:
        if out is None:
            return factory(*size, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type_name(out)}")
        dtype = kwargs.pop("dtype", None)
        dt = out._dtype if dtype is None else _dt.as_dtype(dtype, f"{name}(): argument 'dtype'")
        if dt is not out._dtype:
            raise RuntimeError(f"dtype {_im.scalar_type_name(dt)} does not match dtype of out parameter "
                               f"({_im.scalar_type_name(out._dtype)})")
        kwargs.update(dtype=dt, device=out.device)
        with warnings.catch_warnings():  # a factory's out= is resized without PyTorch's deprecation warning
            warnings.filterwarnings("ignore", "An output with one or more elements was resized")
            return call_with_out(name, out, factory, size, kwargs)

    return with_out


def _check_no_partial_overlap(out: Tensor, t: Tensor) -> None:
    """PyTorch's ``assert_no_partial_overlap``: ``out`` is exactly ``t``'s elements, or none of them (on any
    device: ``devices.partial_overlap`` reads addresses, shapes and strides)."""
    if out._device == t._device and partial_overlap(out._data, t._data):
        raise RuntimeError(PARTIAL_OVERLAP)


def _resize_out(out: Tensor, result: Tensor) -> None:
    """Give ``out`` the result's shape, as PyTorch's ``resize_output`` (a warning when it held elements)."""
    if out._view is not None:
        raise RuntimeError(f"out= of shape {list(out.shape)} is a view and cannot be resized to {list(result.shape)}; "
                           "pass a tensor of the result's shape, or one with no elements")
    if out.numel() > 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape {list(out.shape)}, which does not "
            f"match the required output shape {list(result.shape)}. This behavior is deprecated, and in a future "
            "PyTorch release outputs will not be resized unless they have zero elements. You can explicitly reuse an "
            "out tensor t by resizing it, inplace, to zero elements with t.resize_(0).", UserWarning, stacklevel=4)
    out._data = result._data.copy()


def wrap_scalar(value: Any, like: Any) -> Any:
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


def define_composite(name: str, fn: Callable[..., Any]) -> None:
    """Make a composite ``fn(..., ops=GRAPH_OPS)`` reachable as ``ctx.ops.<name>`` in both modes.

    ``fn`` computes with the namespace passed as ``ops`` (``sum_to`` in
    ``ops/math.py``); each namespace gets ``fn`` bound to itself.
    """
    GRAPH_OPS.define(name, fn)
    define_array_op(name, lambda ns: functools.partial(fn, ops=ns))


def defop(name: str, inputs: Sequence[Input | str], **kwargs: Any) -> OpDef:
    """Define an op (see ``OpDef``); returns the callable ``OpDef``."""
    return OpDef(name, inputs, **kwargs)
