"""In-place sampling: ``x.normal_()``, ``x.uniform_()``, ``x.random_()``, ``x.bernoulli_()``,
``x.exponential_()`` - PyTorch's numbers for the same seed (``minigrad/random.py``).

Each fills the tensor's storage with fresh draws from the default generator (or
``generator=``) and bumps its version counter, as any in-place op does (docs/architecture.md, Engine rules,
rule 8): a leaf that requires grad must be filled under ``no_grad``, which is how
``nn.init`` fills parameters. The draws are no op of the graph: a filled tensor
carries no history of the fill.

Example:
    >>> import minigrad as mg
    >>> g = mg.Generator().manual_seed(0)
    >>> mg.empty(3).uniform_(-1, 1, generator=g)
    tensor([-0.0075,  0.5364, -0.8230])
"""

from __future__ import annotations

from typing import Any

import math

import numpy as np

from .. import random as _random
from ..dispatch.dygraph import run_inplace
from ..dtypes import cpp_type_name, float32
from ..kernels.infer_meta import scalar_type_name
from ..random import Generator, generator_arg
from ..tensor import Tensor

__all__: list[str] = []  # tensor methods only (PyTorch has no torch.normal_)

#: the Tensor methods this module defines
METHODS = ("normal_", "uniform_", "random_", "bernoulli_", "exponential_", "cauchy_", "log_normal_", "geometric_")


def fill_(self: Tensor, op_name: str, values: Any) -> Tensor:
    """Write ``values`` into ``self`` in place (no node; version bumped; recorded as ``tensor.update``):
    host draws (copied to ``self``'s device) or draws already made there (``_drawn_on_device``).

    NOTE [ Draws land in memory order ]
    PyTorch's CPU samplers fill a tensor as its TensorIterator walks it: in the
    order its elements lie in memory, not in the order of its indices. The two
    differ for a tensor that is not row-major (``x.t()``, a channels-last image):
    the second draw of ``x.t().uniform_()`` lands in ``x.t()[1, 0]``. Host draws
    for such a tensor are put in place by their elements' memory offsets."""
    if type(values) is np.ndarray and values.size > 1 and not _is_contiguous(self):
        placed = np.empty(values.size, values.dtype)
        placed[_memory_order(self)] = values.reshape(-1)
        values = placed
    if type(values) is not np.ndarray and self.device != "cpu":  # made on the device
        new = Tensor._make(values.reshape(self.shape), self.dtype, self.device)
        return run_inplace(self, op_name, lambda: new)
    new = Tensor._make(np.asarray(values, self.dtype.np).reshape(self.shape), self.dtype, "cpu")
    if self.device != "cpu":
        new = new.to(self.device)
    return run_inplace(self, op_name, lambda: new)


def _memory_order(t: Tensor) -> np.ndarray:
    """The flat (row-major) positions of ``t``'s elements in the order they lie in memory."""
    offsets = sum(np.indices(t.shape)[d] * t._data.strides[d] for d in range(t.ndim)).reshape(-1)
    return np.argsort(offsets, kind="stable")


def _drawn_on_device(kind: str, self: Tensor, generator: Any, *numbers: Any) -> Any:
    """Draws for ``self`` made on its device by the device generator or a ``generator=`` made for the GPU
    (no copy), or ``None`` on the CPU and where a CPU generator was given."""
    return _random.device_draws(kind, tuple(self.shape), self.dtype.np, self.device, *numbers, generator=generator)


def _number(fn: str, name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.floating, np.integer)):
        raise TypeError(f"{fn}(): argument '{name}' must be float, but got {type(v).__name__}")
    return float(v)


def _is_contiguous(t: Tensor) -> bool:
    flags = getattr(t._data, "flags", None)
    return flags is None or bool(flags["C_CONTIGUOUS"])


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill with samples of N(mean, std**2) in place."""
    mean, std = _number("normal_", "mean", mean), _number("normal_", "std", std)
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    _float_only("normal_", self)
    gen = generator_arg("normal_", generator)
    n = self.numel()
    drawn = _drawn_on_device("normal", self, generator, mean, std)
    if drawn is not None:
        return fill_(self, "normal_", drawn)
    if n >= 16 and not _is_contiguous(self):
        # PyTorch takes the scalar path for a non-contiguous tensor, element by element (in memory order: fill_)
        values = np.concatenate([gen.normal(1, self.dtype, mean, std) for _ in range(n)])
    else:
        values = gen.normal(n, self.dtype, mean, std)
    return fill_(self, "normal_", values)


def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Generator | None = None,
             **kwargs: Any) -> Tensor:
    """Fill with samples of U[from, to) in place (``from`` may be given by keyword, as in PyTorch)."""
    if "from" in kwargs:
        from_ = kwargs.pop("from")
    if kwargs:
        raise TypeError(f"uniform_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    low, high = _number("uniform_", "from", from_), _number("uniform_", "to", to)
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}")
    _float_only("uniform_", self)
    gen = generator_arg("uniform_", generator)
    drawn = _drawn_on_device("uniform", self, generator, low, high)
    return fill_(self, "uniform_", gen.uniform(self.numel(), self.dtype, low, high) if drawn is None else drawn)


def random_(self: Tensor, from_: int = 0, to: int | None = None, *, generator: Generator | None = None) -> Tensor:
    """Fill with integers in ``[from, to)`` in place; ``random_(to)`` starts at 0."""
    gen = generator_arg("random_", generator)
    if to is None and from_ == 0:
        return fill_(self, "random_", _random_full(gen, self))
    if to is None:
        from_, to = 0, from_
    if to <= from_:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    drawn = _drawn_on_device("randint", self, generator, int(from_), int(to))
    return fill_(self, "random_", _random.randint_array(gen, self.numel(), int(from_), int(to)) if drawn is None else drawn)


def _random_full(gen: Generator, t: Tensor) -> np.ndarray:
    """``random_()`` with no bounds: integers from 0 up to the largest the dtype holds exactly
    (``2**mantissa`` for floats, the maximum for integers), as PyTorch's ``uniform_int_distribution``."""
    n, kind = t.numel(), t.dtype.np
    if kind == np.bool_:
        return (gen.random32(n) & np.uint64(1)).astype(bool)
    if kind in (np.int64, np.float64):
        span = 2 ** 63 if kind == np.int64 else 2 ** 53 + 1
        return (gen.random64(n) % np.uint64(span)).astype(kind)
    span = {np.int32: 2 ** 31, np.float32: 2 ** 24 + 1, np.float16: 2 ** 11 + 1}[kind.type]
    return (gen.random32(n) % np.uint64(span)).astype(kind)


def bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """Fill with 0/1 draws that are 1 with probability ``p`` (a number or a tensor of probabilities)."""
    gen = generator_arg("bernoulli_", generator)
    n = self.numel()
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p.detach().numpy(), self.shape).reshape(-1)
        if n > 1 and not _is_contiguous(self):  # each draw meets its element's probability (fill_: memory order)
            probs = probs[_memory_order(self)]
        if probs.dtype == np.float64:
            values = _random.bernoulli_array(gen, probs, n)
        else:  # a float32 probability tensor draws float32 uniforms, as PyTorch's kernel does
            values = gen.uniform(n, float32) < probs.astype(np.float32)
    else:
        q = _number("bernoulli_", "p", p)
        if not 0.0 <= q <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={q}")
        drawn = _drawn_on_device("bernoulli", self, generator, q, 1.0)
        values = _random.bernoulli_array(gen, q, n) if drawn is None else drawn
    return fill_(self, "bernoulli_", values)


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill with samples of Exp(lambd) in place."""
    lam = _number("exponential_", "lambd", lambd)
    if not lam > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lam}")
    _float_only("exponential_", self)
    gen = generator_arg("exponential_", generator)
    drawn = _drawn_on_device("exponential", self, generator, lam, 0.0)
    if drawn is not None:
        return fill_(self, "exponential_", drawn)
    return fill_(self, "exponential_", _random.exponential_array(gen, self.numel(), self.dtype.np, lam))


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Generator | None = None) -> Tensor:
    """Fill with samples of Cauchy(median, sigma) in place: ``median + sigma * tan(pi * (u - 1/2))``, one
    float64 uniform each, in memory order (PyTorch's serial CPU kernel)."""
    median, sigma = _number("cauchy_", "median", median), _number("cauchy_", "sigma", sigma)
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    if not self.dtype.is_floating:
        raise RuntimeError("Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {cpp_type_name(self.dtype)}")
    gen = generator_arg("cauchy_", generator)
    drawn = _drawn_on_device("cauchy", self, generator, median, sigma)
    if drawn is not None:
        return fill_(self, "cauchy_", drawn)
    u = gen.uniform_double(self.numel())
    return fill_(self, "cauchy_", median + sigma * _random.libm(math.tan, math.pi * (u - 0.5)))


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Generator | None = None) -> Tensor:
    """Fill with ``exp`` of N(mean, std**2) samples in place (each a double normal, the generator's cached
    twin first, as PyTorch's serial kernel draws them)."""
    mean, std = _number("log_normal_", "mean", mean), _number("log_normal_", "std", std)
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if not self.dtype.is_floating:
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{scalar_type_name(self.dtype)}'")
    gen = generator_arg("log_normal_", generator)
    drawn = _drawn_on_device("log_normal", self, generator, mean, std)
    if drawn is not None:
        return fill_(self, "log_normal_", drawn)
    z = np.array([gen.normal_double() for _ in range(self.numel())], dtype=np.float64)
    return fill_(self, "log_normal_", _random.libm(math.exp, _random.fma64(z, std, mean)))


def geometric_(self: Tensor, p: float, *, generator: Generator | None = None) -> Tensor:
    """Fill with the number of trials to the first success (probability ``p``) in place:
    ``ceil(log(u) / log1p(-p))`` for a float64 uniform ``u``."""
    q = _number("geometric_", "p", p)
    if not 0 < q < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={q:g}")
    gen = generator_arg("geometric_", generator)
    drawn = _drawn_on_device("geometric", self, generator, q, 0.0)
    if drawn is not None:
        return fill_(self, "geometric_", drawn)
    u = gen.uniform_double(self.numel())
    return fill_(self, "geometric_", np.ceil(_random.libm(math.log, u) / math.log1p(-q)))


def _float_only(fn: str, t: Tensor) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}(): 'self' must be Tensor, but got {type(t).__name__}")
    if not t.dtype.is_floating:
        raise RuntimeError(f"{fn}(): expected a floating point tensor, but got {t.dtype}")
