"""Array mode: an op's kernels called on arrays, for backward formulas (NOTE [ One formula, two modes ]).

A backward formula computes with ``ctx.ops.<op>``. In array mode each of
those is an ``ArrayOp``: it takes arrays (and Python numbers where the op
takes them), and runs the kernel that calling the op on tensors holding those
arrays would run - the same kernel selection (``kernels.api.KINDS``), the same
attribute checks, the same wrapping of Python numbers, the same ``launch`` -
and returns the kernel's array(s). What it leaves out is what nothing
observes in a backward pass without a recorder: the API layer's type checks,
InferMeta, an output Tensor and its grad node.

A call the kernel layer would transform (inputs of mixed dtypes or devices, a
CPU fallback, a list or optional input), or one made under autocast, goes
through the op itself on tensors wrapping the arrays, and returns the arrays
of its result: the same code as graph mode, so the same bits.

Example:
    >>> import numpy as np, minigrad as mg
    >>> from minigrad.autograd.formula import array_ops
    >>> array_ops("cpu", mg.tensor(0.0)._layout).mul(np.ones(2, np.float32), 3).tolist()
    [3.0, 3.0]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import dtypes as _dt
from .. import flags
from ..kernels.api import KINDS, kernel_of_kind, launch
from ..devices import constant_array
from ..tensor import Tensor
from . import amp_state
from .dygraph import run_op

if TYPE_CHECKING:  # pragma: no cover
    from ..autograd.formula import ArrayOps
    from ..ops.registry import OpDef

__all__ = ["ArrayOp"]

_NUMBERS = (int, float, bool)
_by_numpy = _dt.BY_NUMPY


def _dtype_of(array: Any) -> Any:
    return _by_numpy.get(array.dtype) or _dt.from_numpy(array.dtype)


class ArrayOp:
    """``ctx.ops.<op>`` in array mode: ``op``'s kernel on arrays of one device and layout.

    The kernel of a call is the one the kernel layer picks for tensors holding
    its arrays: the entry of their kind of call in ``kernels.api.KINDS`` (NOTE
    [ Kinds of call ]); a kind with no such entry (False: the call needs
    PrepareData) goes through the op.
    """

    __slots__ = ("op", "device", "layout", "_n_inputs", "_attr_forms", "_forms_kept")

    def __init__(self, op: "OpDef", ns: "ArrayOps") -> None:
        self.op = op
        self.device = ns.device
        self.layout = ns.layout
        plain = not any(i.is_list or i.optional for i in op.inputs)
        self._n_inputs = len(op.inputs) if plain else -1
        self._attr_forms: dict[tuple[Any, ...], dict[str, Any]] = {}
        # An index is no key: its items nest (``x[True]`` and ``x[1]`` are (True,) and (1,), one key)
        self._forms_kept = not any(a.name == "index" for a in op.attrs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        op = self.op
        n = self._n_inputs
        if not kwargs and len(args) == n:
            values, attrs = args, op._default_attrs
        elif n >= 0 and len(args) >= n:
            values = args[:n]
            try:  # a form of attributes seen before (``_attrs`` checks a new one)
                if not self._forms_kept:
                    raise TypeError
                given = args[n:]  # (the key inline: a function here would be a call more per formula op)
                attrs = self._attr_forms.get((given, tuple(map(type, given)), *kwargs.items(),
                                              tuple(map(type, kwargs.values()))))
            except TypeError:  # an unhashable value (an index array), or an index: checked every time
                attrs = self._bind((*self._dummy_inputs(), *args[n:]), kwargs)[1]
            else:
                if attrs is None:
                    attrs = self._attrs(args[n:], kwargs)
        else:
            values, attrs = self._bind(args, kwargs)
        kind = self._kind(values)
        if kind is None:  # a Python number: wrapped as the API layer wraps it
            values = self._wrap_numbers(list(values))
            kind = self._kind(values)
            if kind is None:  # a list or None input: the kernel layer's full path
                return self._through_op(values, attrs)
        if not kind or amp_state.AMP.level:
            return self._through_op(values, attrs)
        return launch(op, kind.kernel, values, attrs)

    def _kind(self, values: Any) -> Any:
        """The ``KINDS`` entry of tensors holding ``values`` on this device and layout (a ``Kind``, or
        False), or None when a value is no array (a number, None or a list)."""
        device, layout = self.device, self.layout
        sig = [self.op, flags.enable_api_kernel_fallback, flags.use_gpudnn]
        for v in values:
            dtype = _by_numpy.get(getattr(v, "dtype", None))
            if dtype is None:
                return None
            sig += (dtype, device, layout)
        kind = KINDS.get(tuple(sig))
        if kind is None:
            kind = kernel_of_kind(self.op, self._tensors(values), tuple(sig))
        return kind

    def _attrs(self, given: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        """The attributes of a call that gives them after the inputs, as ``bind`` checks them, remembered.

        Formulas pass the same attributes again and again (``transpose_y=True``,
        ``dim=(0,), keepdim=True``): each distinct form is checked once, here, and
        ``__call__`` finds it in ``_attr_forms`` after that (a form with an
        unhashable value, an index array, is checked every time). A form's key holds
        its values' types too: ``0`` and ``0.0`` are equal and hash alike, but an
        integer array clamped at ``0.0`` becomes float32.
        """
        attrs = self._bind((*self._dummy_inputs(), *given), kwargs)[1]
        if len(self._attr_forms) >= 256:
            self._attr_forms.clear()
        self._attr_forms[(given, tuple(map(type, given)), *kwargs.items(), tuple(map(type, kwargs.values())))] = attrs
        return attrs

    def _dummy_inputs(self) -> list[Any]:
        """Placeholders for the inputs, so that ``bind`` numbers the attributes' positions as a call does."""
        return [None] * len(self.op.inputs)

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        """Inputs and attributes of a call, by the API layer's parser (the values are arrays: not type-checked)."""
        op = self.op
        values = op.place(args, kwargs)
        inputs = [None if v is op.MISSING else v for v in values[: len(op.inputs)]]
        return inputs, op.bind_attrs(values)

    def _wrap_numbers(self, values: list[Any]) -> list[Any]:
        """Python numbers as 0-d arrays, in the dtype ``ops.registry.wrap_scalar`` gives them; on a device, the
        number's kept constant (``devices.constant_array``: no host -> device copy, as ``Tensor._scalar``)."""
        if not any(type(v) in _NUMBERS for v in values):
            return values
        specs = self.op.inputs
        arrays = [v for v in values if v is not None and type(v) not in _NUMBERS and type(v) is not list]
        like = next((v for s, v in zip(specs, values) if s.scalar_ok and v is not None
                     and type(v) not in _NUMBERS and type(v) is not list), arrays[0] if arrays else None)
        dt = _dtype_of(like)
        for pos, v in enumerate(values):
            if type(v) in _NUMBERS and specs[pos].scalar_ok:
                if type(v) is bool:
                    target = dt
                elif type(v) is int:
                    target = dt if dt is not _dt.bool_ else _dt.int64
                else:
                    target = dt if dt.is_floating else _dt.float32
                a = np.asarray(v, dtype=target.np)
                values[pos] = a if self.device == "cpu" else constant_array(a, self.device)
        return values

    def _tensors(self, values: list[Any]) -> list[Any]:
        """Tensors holding ``values`` (arrays, or lists of arrays), for the kernel layer."""
        device, layout = self.device, self.layout

        def wrap(a: Any) -> Any:
            return Tensor._make(a, _dtype_of(a), device, layout)

        return [None if v is None else [wrap(a) for a in v] if type(v) is list else wrap(v) for v in values]

    def _through_op(self, values: list[Any], attrs: dict[str, Any]) -> Any:
        """The op itself on tensors (the kernel layer's full path; no node: grad mode is off)."""
        out = run_op(self.op, self._tensors(values), attrs)
        return tuple(t._data for t in out) if isinstance(out, tuple) else out._data

    def __repr__(self) -> str:
        return f"<array op {self.op.name} on {self.device}>"
