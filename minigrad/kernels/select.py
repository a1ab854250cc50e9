"""Kernel selection: the search order of PaddlePaddle's ``KernelFactory`` (``SelectKernelOrThrowError``).

For a key ``(backend, layout, dtype)`` the registry is probed in this order,
stopping at the first hit:

1. ``GPUDNN``            ``(GPUDNN, layout, dtype)``       only for GPU keys with ``flags.use_gpudnn``
                         (for a custom backend registered with ``dnn="TOYDNN"``
                         steps 1-2 probe ``TOYDNN`` and are named after it)
2. ``GPUDNN/ALL_LAYOUT`` ``(GPUDNN, ALL_LAYOUT, dtype)``   same, when ``layout`` is not ALL_LAYOUT
3. ``backend``           ``(backend, layout, dtype)``
4. ``backend/ALL_LAYOUT`` ``(backend, ALL_LAYOUT, dtype)``  when ``layout`` is not ALL_LAYOUT
5. ``CPU``               ``(CPU, layout, dtype)``          only with ``flags.enable_api_kernel_fallback``
6. ``CPU/ALL_LAYOUT``    ``(CPU, ALL_LAYOUT, dtype)``      same, when ``layout`` is not ALL_LAYOUT

A hit in steps 5-6 is a *CPU fallback*: the kernel layer moves the inputs to
the CPU and the outputs back to the requested device. Nothing found is a
``RuntimeError`` naming the op and the key.

NOTE [ Selection is cached per key ]
    The search runs once per (op, key, flags); the result and its probes are
    cached, so later calls cost one dict lookup. When a recorder is active the
    cached probes are re-emitted as ``kernel.lookup`` events (and
    ``kernel.select`` says ``cached: true``), so a trace still shows how the
    kernel was found.
"""

from __future__ import annotations

from typing import NamedTuple

from .. import flags
from .backends import dnn_of
from .key import Backend, KernelKey, Layout
from .registry import KERNELS, Kernel, on_change

__all__ = ["Selection", "Probe", "select_kernel", "search_order", "clear_cache", "is_cached"]


class Probe(NamedTuple):
    """One registry probe: the key tried, the step's name, and whether it hit."""

    key: KernelKey
    step: str
    found: bool


class Selection(NamedTuple):
    """The outcome of a search: the kernel, whether it is a CPU fallback, and the probes."""

    kernel: Kernel
    fallback_cpu: bool
    probes: tuple[Probe, ...]


_cache: dict[tuple[str, KernelKey, bool, bool], Selection] = {}


def clear_cache(op: str | None = None) -> None:
    """Forget cached selections (all, or those of ``op``)."""
    if op is None:
        _cache.clear()
    else:
        for k in [k for k in _cache if k[0] == op]:
            del _cache[k]


on_change(clear_cache)


def is_cached(op: str, key: KernelKey, selection: Selection) -> bool:
    """Whether ``select_kernel(op, key)`` would answer ``(selection, True)`` now."""
    return _cache.get((op, key, flags.enable_api_kernel_fallback, flags.use_gpudnn)) is selection


def search_order(key: KernelKey, fallback: bool, use_gpudnn: bool) -> list[tuple[KernelKey, str, bool]]:
    """The (key, step name, is_fallback) probes for ``key``, in order."""
    # BEGIN LESSON 4 TASK 4.1: the search order with CPU fallback
    backend, layout, dtype = key
    steps: list[tuple[KernelKey, str, bool]] = []
    dnn = dnn_of(backend) if use_gpudnn else None
    if dnn is not None:
        steps.append((KernelKey(dnn, layout, dtype), dnn, False))
        if layout != Layout.ALL_LAYOUT:
            steps.append((KernelKey(dnn, Layout.ALL_LAYOUT, dtype), f"{dnn}/ALL_LAYOUT", False))
    steps.append((key, "backend", False))
    if layout != Layout.ALL_LAYOUT:
        steps.append((KernelKey(backend, Layout.ALL_LAYOUT, dtype), "backend/ALL_LAYOUT", False))
    if fallback and backend != Backend.CPU:
        steps.append((KernelKey(Backend.CPU, layout, dtype), "CPU", True))
        if layout != Layout.ALL_LAYOUT:
            steps.append((KernelKey(Backend.CPU, Layout.ALL_LAYOUT, dtype), "CPU/ALL_LAYOUT", True))
    return steps
    # END LESSON 4 TASK 4.1


def select_kernel(op: str, key: KernelKey) -> tuple[Selection, bool]:
    """Find the kernel of ``op`` for ``key``. Returns ``(selection, was_cached)``.

    Raises:
        RuntimeError: no kernel of ``op`` is registered for ``key`` (after fallback).
    """
    fallback = flags.enable_api_kernel_fallback
    gpudnn = flags.use_gpudnn
    ck = (op, key, fallback, gpudnn)
    sel = _cache.get(ck)
    if sel is not None:
        return sel, True
    table = KERNELS.get(op)
    if not table:
        raise RuntimeError(f"{op}(): no kernel is registered for this op at all (key {key})")
    probes: list[Probe] = []
    for probe_key, step, is_fallback in search_order(key, fallback, gpudnn):
        kernel = table.get(probe_key)
        probes.append(Probe(probe_key, step, kernel is not None))
        if kernel is not None:
            sel = Selection(kernel, is_fallback, tuple(probes))
            _cache[ck] = sel
            return sel, False
    available = ", ".join(sorted(str(k) for k in table)) or "none"
    hint = (
        ""
        if fallback or key.backend == Backend.CPU
        else " CPU fallback is off (mg.flags.enable_api_kernel_fallback = False); turn it on to try the CPU kernels."
    )
    raise RuntimeError(
        f"{op}(): no kernel registered for key {key} (searched "
        f"{' -> '.join(p.step for p in probes)}).{hint} Registered keys: {available}"
    )
