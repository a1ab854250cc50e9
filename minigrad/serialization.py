"""``mg.save`` / ``mg.load``: tensors, state dicts and optimizer states in a NumPy ``.npz`` file, never a pickle.

A pickle can run any code when it is loaded; an ``.npz`` file holds only
arrays. The object's structure (nested dicts, lists and tuples of tensors,
numbers, strings, bools and ``None``) is written as JSON in one extra array,
``__minigrad__``, and the file is read back with ``allow_pickle=False``, so a
file from anyone can be loaded safely.

Example:
    >>> import minigrad as mg, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "w.npz")
    >>> mg.save({"w": mg.tensor([1.0, 2.0]), "step": 3}, path)
    >>> mg.load(path)
    {'w': tensor([1., 2.]), 'step': 3}
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from typing import Any

import numpy as np

from . import dtypes as _dt
from .kernels.backends import to_numpy
from .tensor import Tensor

__all__ = ["save", "load"]

_STRUCTURE = "__minigrad__"
_FORMAT = {"format": "minigrad.save", "version": 1}


def _encode(obj: Any, arrays: dict[str, np.ndarray], path: str) -> Any:
    if isinstance(obj, Tensor):
        key = f"t{len(arrays)}"
        arrays[key] = np.array(to_numpy(obj._data), order="C")
        return {"tensor": key, "dtype": obj.dtype.name, "requires_grad": obj.requires_grad}
    if isinstance(obj, np.ndarray):
        key = f"t{len(arrays)}"
        arrays[key] = np.array(obj, order="C")
        return {"ndarray": key}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return {"value": obj}
    if isinstance(obj, (np.integer, np.floating, np.bool_)):
        return {"value": obj.item()}
    if isinstance(obj, dict):
        items = []
        for k, v in obj.items():
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise TypeError(f"save(): dict keys must be str or int, but {path} has a key of type {type(k).__name__}")
            items.append([k, _encode(v, arrays, f"{path}[{k!r}]")])
        return {"dict": items, "ordered": isinstance(obj, OrderedDict)}
    if isinstance(obj, (list, tuple)):
        return {"list" if isinstance(obj, list) else "tuple": [_encode(v, arrays, f"{path}[{i}]") for i, v in enumerate(obj)]}
    raise TypeError(
        f"save(): cannot save {type(obj).__name__} at {path}; only Tensors, NumPy arrays, numbers, strings, bools, "
        f"None and dicts/lists/tuples of them can be saved (no pickles)"
    )


def _decode(node: Any, data: Any, where: str) -> Any:
    if not isinstance(node, dict):
        raise ValueError(f"load(): {where}: malformed structure entry")
    if "tensor" in node:
        arr = data[node["tensor"]]
        dt = _dt.as_dtype(node.get("dtype", str(arr.dtype)), "load(): dtype")
        t = Tensor._make(np.array(arr, dtype=dt.np), dt)
        if node.get("requires_grad"):
            t.requires_grad_(True)
        return t
    if "ndarray" in node:
        return np.array(data[node["ndarray"]])
    if "value" in node:
        return node["value"]
    if "dict" in node:
        out = OrderedDict() if node.get("ordered") else {}
        for k, v in node["dict"]:
            out[k] = _decode(v, data, f"{where}[{k!r}]")
        return out
    if "list" in node:
        return [_decode(v, data, f"{where}[{i}]") for i, v in enumerate(node["list"])]
    if "tuple" in node:
        return tuple(_decode(v, data, f"{where}[{i}]") for i, v in enumerate(node["tuple"]))
    raise ValueError(f"load(): {where}: unknown structure entry {sorted(node)}")


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2, **_ignored: Any) -> None:
    """Write ``obj`` (a Tensor, a state dict, an optimizer's ``state_dict()``, nested containers) to ``f``.

    The file is an ordinary ``.npz`` archive (``f``, a path used as given or a binary file object). PyTorch's
    pickle options are accepted and have nothing to choose: nothing is pickled.
    """
    if hasattr(obj, "state_dict") and hasattr(obj, "named_parameters"):  # a whole nn.Module
        name = type(obj).__name__
        raise TypeError(
            f"save(): cannot save a whole {name} module: PyTorch pickles it, and minigrad never writes a pickle. "
            f"Save its weights instead, torch.save(model.state_dict(), path), and load them into a new {name} "
            f"with model.load_state_dict(torch.load(path))")
    arrays: dict[str, np.ndarray] = {}
    structure = {**_FORMAT, "root": _encode(obj, arrays, "obj")}
    arrays[_STRUCTURE] = np.frombuffer(json.dumps(structure).encode("utf-8"), dtype=np.uint8)
    if hasattr(f, "write"):  # a file object (io.BytesIO, an open file)
        np.savez(f, **arrays)
        return
    with open(f, "wb") as fh:
        np.savez(fh, **arrays)


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *, weights_only: bool | None = None,
         mmap: bool | None = None, **_pickle_load_args: Any) -> Any:
    """Read what ``save`` wrote. Never unpickles: a file cannot run code when it is loaded, whatever
    ``weights_only`` says (PyTorch's default, True, is what minigrad always does).

    Args:
        f: a path or a binary file object.
        map_location: where the tensors go, as PyTorch's: a device (``"cpu"``, ``"cuda"``, ``mg.device``), a
            dict from the saved device to another (``{"cuda:0": "cpu"}``) or a function ``(tensor, saved
            device) -> tensor``. By default tensors load on the CPU (a save does not record a device).

    Raises:
        ValueError: the file is not a minigrad ``.npz`` save (or is damaged).
    """
    if map_location is not None:
        return _mapped(load(f), map_location)
    if isinstance(f, os.PathLike):
        f = os.fspath(f)
    try:
        with np.load(f, allow_pickle=False) as data:
            if _STRUCTURE not in data.files:
                raise ValueError(f"load(): {_name(f)!r} is not a file written by minigrad.save (no {_STRUCTURE} entry)")
            structure = json.loads(bytes(data[_STRUCTURE]).decode("utf-8"))
            if structure.get("format") != _FORMAT["format"]:
                raise ValueError(f"load(): {_name(f)!r} has an unknown format {structure.get('format')!r}")
            return _decode(structure["root"], data, "obj")
    except (OSError, EOFError) as exc:
        raise ValueError(f"load(): cannot read {_name(f)!r} as a minigrad save: {exc}") from None
    except ValueError as exc:
        if str(exc).startswith("load():"):
            raise
        raise ValueError(f"load(): cannot read {_name(f)!r} as a minigrad save: {exc}") from None


def _name(f: Any) -> str:
    return os.fspath(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", type(f).__name__)


def _mapped(obj: Any, where: Any) -> Any:
    """``obj`` with every tensor moved as ``map_location`` says (its saved device is the CPU)."""
    if isinstance(obj, Tensor):
        if callable(where):
            out = where(obj, "cpu")
            return obj if out is None else out
        if isinstance(where, dict):
            where = where.get("cpu", "cpu")
        return obj.to(where)
    if isinstance(obj, dict):
        out = type(obj)() if isinstance(obj, OrderedDict) else {}
        for k, v in obj.items():
            out[k] = _mapped(v, where)
        return out
    if isinstance(obj, (list, tuple)):
        return type(obj)(_mapped(v, where) for v in obj)
    return obj
