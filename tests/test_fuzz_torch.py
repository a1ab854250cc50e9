"""A differential fuzzer: random programs run in lockstep under PyTorch and minigrad (float64).

Hypothesis's ``RuleBasedStateMachine`` builds a program step by step over a
pool of tensor *pairs* (one PyTorch tensor, one minigrad tensor, made from the
same values) and runs every step on both sides:

* **leaves** of random shapes (0-d, empty, 1 to 3 dims), with or without ``requires_grad``;
* **ops** over leaves and intermediates: unary, binary with broadcasting (and
  Python numbers), reductions over a random (possibly invalid) ``dim``, views
  (reshape, view, unsqueeze, squeeze, transpose, permute, t, slicing, integer indexing, select, narrow,
  diagonal with and without an offset, unfold with overlapping windows too, expand, split, unbind, detach), ``no_grad`` blocks, and
  ``cross_entropy`` / ``nll_loss`` with class-index targets of the input's batch or any shape;
* **in-place ops** (``add_`` ``sub_`` ``mul_`` ``div_``, ``relu_`` ``tanh_`` ``sigmoid_`` ``exp_``
  ``neg_`` ``abs_`` ``sqrt_`` ``pow_`` ``clamp_`` ``zero_`` ``fill_``, ``x[0] = y``, ``x[0] += y``,
  ``x[...] = y``, ``copy_``) on non-leaves, on views of them and of views (the base's history
  rewritten), on bases that have views, on leaves and views of leaves (refused while they require
  grad) and on detached aliases, under ``no_grad`` too;
* **backward**: implicit or explicit seeds (sometimes of a wrong shape),
  ``retain_graph``, repeated backward (gradients accumulate), a second backward
  through a released graph; ``retain_grad``; tensor **hooks**; in-place changes of ``.grad``;
  ``optimizer.zero_grad(set_to_none=...)`` and ``step()``;
* ``mg.grad`` / ``torch.autograd.grad`` with ``create_graph`` (the results join
  the pool, so higher derivatives are fuzzed too).

After every step it compares values, ``requires_grad``, ``is_leaf`` and ``.grad``
of every tensor in the pool, and whether a step raised: both must raise or
neither. The error class must be PyTorch's, or minigrad's documented class for
the same refusal (minigrad raises ``ValueError`` for shape and dtype
mismatches where PyTorch raises ``RuntimeError`` or ``IndexError``); engine
misuse (backward, grad, a leaf changed in place) is ``RuntimeError`` on both
sides, and anything else (``ZeroDivisionError``, a NumPy error) is a crash.

Where minigrad departs from PyTorch by design, the fuzzer follows the documented
rule instead of reporting it (docs/architecture.md, Engine rules): a second backward through a released
node raises even when PyTorch's node saved nothing (rule 3); ``mg.grad`` never
releases the graph (rule 4: PyTorch's ``autograd.grad`` runs with
``retain_graph=True`` here) and its ``create_graph`` results always require grad
(a result PyTorch leaves constant is detached on minigrad's side; one whose
graph PyTorch builds but minigrad need not - relu's second derivative is 0 - is
detached on both); duplicate
``inputs`` are not generated (rule 7), nor a tensor that has hooks among several
``inputs`` of ``grad`` (PyTorch applies its hooks to that input's result only when it
is the sole input; minigrad always does, rule 6). A backward that fails part-way (a saved
tensor changed in place) fails on both sides, but the ``.grad`` the nodes that ran before the
failure wrote follows each engine's order (rule 5: Paddle's deque; PyTorch runs the newest node
first), so after it both sides' ``.grad`` are put back as they were. Where PyTorch accumulates a
*ZeroTensor* into ``.grad`` (its internal stand-in for zeros, e.g. the second
derivative of ``abs``), which then refuses ``zero_()``, the fuzzer replaces it with
ordinary zeros, which is what minigrad's ``.grad`` holds. A composite (``var``, ``std``, the losses) saves what its
sub-ops need rather than its input, as one fused PyTorch op does: where PyTorch
refuses a backward because such an input was changed in place afterwards,
minigrad computes (with the values of the forward pass); the fuzzer counts these
and goes on. The other way round, ``cross_entropy`` is one fused op in minigrad
that saves its input, where PyTorch's composite saves ``log_softmax``'s output: an
in-place change of that input (or an alias of it, or an optimizer step on it) is not generated, since minigrad
refuses the backward after it and PyTorch computes. Views and in-place changes through them are generated (``view``, ``inplace``,
``inplace_unary``, ``setitem``): an in-place change of a view rewrites its base's
history and the other views follow (``autograd/views.py``), and PyTorch's refusals
(views of leaves, outputs of ``unbind``, overlapping ``expand`` writes) must match.
Not generated: an in-place change of a view whose elements overlap (``unfold`` with a
step smaller than its size, its views and detached aliases): PyTorch cannot prove the
overlap (it refuses only stride-0 writes) and applies the op once per occurrence, in
memory order - ``x.unfold(-1, 2, 1).exp_()`` of a (1, 3) ``x`` takes the exp of the
middle element twice - where minigrad computes the result, then writes it. Nor an in-place change of a ``grad()`` result or of a view or ``detach()`` of one (PyTorch's
results may share storage - the gradient through a reshape is the seed reshaped - and be
views made while its engine ran, where minigrad's are not, or the other way round); an
in-place op whose other operand
overlaps the memory it writes (a view of a detached alias: PyTorch refuses a
partial overlap or reads elements it has already written; minigrad computes the
result first, then writes it). Nor is a hook or ``retain_grad()`` registered on a view: after an in-place
change of its base (even under ``no_grad``), PyTorch makes the view a new ``grad_fn``
when it is next read and what was registered on the old one no longer runs; minigrad
keeps them. Nor ``x[mask] = value`` or ``x[[0, 0]] = value`` on an expanded ``x`` (PyTorch's
``masked_fill`` and ``index_put_`` only warn there; minigrad refuses, as for ``masked_fill_``).
Nor an in-place view op (``squeeze_``, ``unsqueeze_``, ``t_``, ``transpose_``) on a leaf that requires
grad or a ``detach()`` of one (under ``no_grad``, where it is allowed): PyTorch's gradient accumulator
keeps the shape the leaf had, so a later backward refuses (``output with shape [] doesn't match the
broadcast shape [1]``) and ``grad()`` answers in the old shape; minigrad's gradients take the new one.
Nor one under ``no_grad`` on a tensor that has a ``grad_fn``: its node keeps the old shape, and PyTorch's
engine sums the new-shaped gradient down to it (``validate_outputs``: ``a = x.abs()``, ``a.unsqueeze_(0)``
under ``no_grad``, ``a.backward()``), where minigrad's refuses a gradient of another shape.
Nor one on a tensor that called ``retain_grad()``: a later in-place op on it fails an internal assert
of PyTorch's (``out != nullptr INTERNAL ASSERT FAILED at .../autograd/variable.cpp``; ``a = x.abs();
a.retain_grad(); a.squeeze_(); a.add_(0.5)``).
Nor ``cummax``/``cummin`` of an empty tensor: PyTorch's ``cummaxmin_backward`` returns the input
*itself* as the gradient when it is empty (the same tensor object, requiring grad even without
``create_graph``), so the gradient aliases the input and a gradient of it reaches the input's own history:
``x = zeros(0).requires_grad_(); g, = grad(x.cummax(0).values, [x], zeros(0), create_graph=True)`` gives
``g is x``, and ``grad(g, [x], zeros(0))`` a tensor where minigrad's ``g`` is a new empty tensor and that
gradient ``None`` (a saved tensor comes back as a new tensor in minigrad, ``autograd/tensor_wrapper.py``).

Runs:
    The default run (``make test``) is bounded (``max_examples`` below, under a
    minute) and derandomized: the same programs every time. A failure prints the
    shrunk program, step by step with the seeds of its values, and a
    ``@reproduce_failure`` blob.

    The long profile is one command; it runs thousands of programs with fresh
    randomness and prints how many ran without a mismatch::

        MINIGRAD_FUZZ=long python -m pytest -q -s tests/test_fuzz_torch.py

    ``MINIGRAD_FUZZ_EXAMPLES=N`` sets the number of programs of either profile.

Device mode:
    ``MINIGRAD_FUZZ_DEVICE=gpu`` puts every tensor of both frameworks on the GPU:
    leaves, backward seeds, loss targets. PyTorch's oracle is CUDA where
    ``torch.cuda.is_available()``, else its CPU; minigrad's GPU is the device, or
    the stand-in CuPy (``tests/gpu/fake_cupy.py``) with ``MINIGRAD_FAKE_CUPY=1``.
    The default run runs it as well, in a subprocess on the stand-in where no GPU
    exists (``test_minigrad_runs_random_programs_on_the_gpu_as_pytorch_does``); the
    long profile on a device (``scripts/gpu_device_check.sh``). The strides of new
    floating-point tensors are compared there too: the GPU's hand-written kernels lay
    their results out as PyTorch does (``x.t().abs()`` is transposed, so its
    ``view(-1)`` raises in both), and a gather (``x.permute(2, 1, 0)[[1, 0, 1]]``) is copied
    into PyTorch's layout from CuPy's row-major one (``strided.laid_out_as_torch``). CuPy's own kernels (integer ``where``, integer
    arithmetic) lay theirs out by CuPy's rule, which the stand-in, whose CuPy is
    NumPy, cannot show; so integer and bool tensors' strides are not compared on the
    GPU, and ``view()`` of a tensor whose strides differ from PyTorch's is not
    generated there. Nor ``max()`` of all elements against PyTorch's CPU: PyTorch's own CPU and CUDA backward
    differ where its gradient is NaN, and minigrad's GPU follows CUDA. Nor one sample's ``nll_loss`` or
    ``cross_entropy`` (a ``(C,)`` input, a 0-d target) against PyTorch's CPU: its CUDA kernel gives 0 for an
    ignored target (the CPU's mean: NaN) and ``-x[t]`` for the mean (-0.0 for a log-probability of 0, the CPU's
    0.0), and minigrad's GPU follows CUDA (a device's fuzzer found both: ``atan2`` of the sign-flipped zero
    loss, and ``nll_loss(x, t, ignore_index=t)``). Nor is PyTorch CUDA given an index or
    a class target out of range (``x[[1, 0, 1]]`` of a tensor of one row, a target of an input without classes):
    it checks them on the device, and the failed device-side assert poisons the process's CUDA context (every
    later call of PyTorch's and CuPy's fails; hypothesis then reports a ``FlakyStrategyDefinition``). Where the
    oracle is CUDA (``DEVICE_ASSERTS``), such a step's PyTorch side runs on CPU copies first and a value out of
    range is refused there, on the host, with the CPU's words (``_oracle``); minigrad's GPU runs the step as
    ever, its check reported at the next sync. A step that gave the oracle such a value unchecked is a
    mismatch, which the default run checks with the switch set (``MINIGRAD_FUZZ_DEVICE_ASSERTS=1`` sets it
    for any run). With the guard off, 3,514 programs on
    the stand-in found no mismatch::

        MINIGRAD_FUZZ=long MINIGRAD_FUZZ_DEVICE=gpu python -m pytest -q -s tests/test_fuzz_torch.py -k gpu
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test

import minigrad as mg

torch = pytest.importorskip("torch")

F64 = mg.float64
LONG = os.environ.get("MINIGRAD_FUZZ", "") == "long"
EXAMPLES = int(os.environ.get("MINIGRAD_FUZZ_EXAMPLES", "4000" if LONG else "120"))
#: Device mode (module docstring): where each framework's tensors live.
ON_GPU = os.environ.get("MINIGRAD_FUZZ_DEVICE", "cpu") == "gpu"
#: ``MINIGRAD_FUZZ_PROGRESS=1``: a line per finished program, so a run its timeout stops still says how far it
#: got without a mismatch (a device's minutes are few).
PROGRESS = os.environ.get("MINIGRAD_FUZZ_PROGRESS") == "1"
#: ``MINIGRAD_FUZZ_SHRINK=0``: a mismatch is reported at once, as generated, instead of after shrinking.
SHRINK = os.environ.get("MINIGRAD_FUZZ_SHRINK", "1") != "0"


def _synced(fn: Callable[[], Any]) -> Callable[[], Any]:
    """``fn`` then a device sync: a check the GPU makes on the device (an index, a class target out of
    range) is reported at the next sync, as CUDA's asserts are, and the step is where it belongs."""
    def run() -> Any:
        try:
            out = fn()
        except BaseException:
            try:  # the step failed on the host: its device checks are reported with it, not at a later step
                mg.cuda.synchronize()
            except Exception:  # noqa: BLE001 - the host's error is the one the step compares
                pass
            raise
        mg.cuda.synchronize()
        return out
    return run
MG_DEVICE = "gpu" if ON_GPU else "cpu"
TORCH_DEVICE = "cuda" if ON_GPU and torch.cuda.is_available() else "cpu"
#: PyTorch CUDA checks an index or a class target on the device: a value out of range fails a device-side
#: assert (``IndexKernel.cu``: "index out of bounds"; ``nll_loss``'s "t >= 0 && t < n_classes"), which poisons
#: the process's CUDA context - every later call of PyTorch's and of CuPy's fails. Set where PyTorch's oracle is
#: CUDA: a step that reads an index or a target (``_oracle``) runs on CPU copies first, and a value out of range
#: is refused there, on the host, instead of on the device (module docstring). A test of the default run sets it,
#: and ``MINIGRAD_FUZZ_DEVICE_ASSERTS=1`` does for a run whose oracle is the CPU (the stand-in's).
DEVICE_ASSERTS = TORCH_DEVICE == "cuda" or os.environ.get("MINIGRAD_FUZZ_DEVICE_ASSERTS") == "1"
#: PyTorch's CPU refusals of an index or target value out of range, raised on the host where CUDA asserts on
#: the device (and ``index_select`` of an empty dim, a refusal PyTorch's own tests expect of its CPU only). An integer index
#: (``select``) is checked on the host on CUDA too, in the same words: the fuzzer's (0, -1) are out of range
#: only in an empty dim, which the advanced index's words never name ("index is out of bounds for dimension
#: with size 0"), hence ``size [1-9]``.
_OUT_OF_RANGE = re.compile(r"index -?\d+ is out of bounds for dimension \d+ with size [1-9]|Target -?\d+ is out of bounds|"
                           r"INDICES element is out of DATA bounds|index out of range in self|"
                           r"self indexing axis dim should be positive")
STEPS = 40 if LONG else 25
POOL_MAX = 12

#: Programs that ran to the end with no mismatch (printed by the long profile).
PROGRAMS = {"ok": 0, "steps": 0, "composite_saves": 0, "refused_on_host": 0}

_CLEAR = (TypeError, ValueError, RuntimeError, IndexError)
#: PyTorch's error class -> the classes minigrad may raise for the same refusal (minigrad/errors.py).
_SAME_REFUSAL = {
    RuntimeError: (RuntimeError, ValueError),
    IndexError: (IndexError, ValueError),
    ValueError: (ValueError,),
    TypeError: (TypeError,),
}


class Mismatch(AssertionError):
    """PyTorch and minigrad disagree: the message says on what."""


@dataclass(eq=False)
class Pair:
    """One tensor of the program, on both sides."""

    t: Any
    m: Any
    name: str
    view_of: "Pair | None" = None  # made by a view op
    has_views: bool = False
    from_grad: bool = False  # a grad() result, a view or a detach() of one: no in-place change is generated
    overlapping: bool = False  # elements that share memory (unfold's overlapping windows): no in-place change
    retained: bool = False
    hooks: int = 0


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None


pytestmark = pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")


def _run(fn: Callable[[], Any]) -> Outcome:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Outcome(value=fn())
    except Exception as exc:  # noqa: BLE001 - compared below, a crash is reported
        return Outcome(error=exc)


def _describe(o: Outcome) -> str:
    return f"{type(o.error).__name__}: {o.error}" if o.error is not None else "no error"


def _values(rng_seed: int, shape: tuple[int, ...]) -> np.ndarray:
    return np.random.default_rng(rng_seed).normal(size=shape) * 1.5


def _torch(arr: Any, **kw: Any) -> Any:
    return torch.tensor(arr, device=TORCH_DEVICE, **kw)


def _mg(arr: Any, **kw: Any) -> Any:
    return mg.tensor(arr, device=MG_DEVICE, **kw)


def _may_share_memory(a: Any, b: Any) -> bool:
    """Whether minigrad's tensors ``a`` and ``b`` may overlap in memory (the bounds check of NumPy's and
    CuPy's ``may_share_memory``); on the GPU, ``.numpy()`` is a host copy, so the device arrays are asked."""
    if not ON_GPU:
        return np.may_share_memory(a.detach().numpy(), b.detach().numpy())
    import cupy

    return bool(cupy.may_share_memory(a._data, b._data))


def _np(x: Any) -> np.ndarray:
    return x.detach().numpy(force=True) if isinstance(x, torch.Tensor) else x.detach().numpy()  # force: ZeroTensors


def assert_same_tensor(t: Any, m: Any, what: str, layout: bool = False) -> None:
    if t is None or m is None:
        if (t is None) != (m is None):
            raise Mismatch(f"{what}: PyTorch has {'None' if t is None else 'a tensor'}, "
                           f"minigrad {'None' if m is None else 'a tensor'}")
        return
    if tuple(t.shape) != tuple(m.shape):
        raise Mismatch(f"{what}: shape {tuple(m.shape)} vs PyTorch's {tuple(t.shape)}")
    tv, mv = _np(t), _np(m)
    if tv.dtype.kind != mv.dtype.kind:
        raise Mismatch(f"{what}: dtype {mv.dtype} vs PyTorch's {tv.dtype}")
    if not np.allclose(mv, tv, rtol=1e-7, atol=1e-9, equal_nan=True):
        raise Mismatch(f"{what}: values {mv.ravel()[:6]} vs PyTorch's {tv.ravel()[:6]}")
    if layout and not _same_steps(t, m):
        raise Mismatch(f"{what}: strides {tuple(m.stride())} vs PyTorch's {tuple(t.stride())} (shape {tuple(t.shape)})")


def _same_steps(t: Any, m: Any) -> bool:
    """Whether the strides agree where a step is taken (a size-1 dim's stride is never used). On the GPU
    floating-point tensors only: the hand-written kernels' results (module docstring)."""
    if not t.numel() or (ON_GPU and not t.dtype.is_floating_point):
        return True
    return all(n <= 1 or a == b for n, a, b in zip(t.shape, tuple(t.stride()), tuple(m.stride())))


def _same_storage_geometry(t: Any, m: Any) -> bool:
    """Whether ``as_strided`` reads the same values from both tensors: the same strides, offset and storage size,
    and equal values in all of the storage (a view's base's; a result minigrad laid out otherwise than PyTorch
    - a GPU kernel's row-major one - or kept in a larger buffer fails here)."""
    from minigrad.tensor import storage_array

    root = storage_array(m)
    size = t.untyped_storage().nbytes() // t.element_size()
    if tuple(t.stride()) != tuple(m.stride()) or t.storage_offset() != m.storage_offset() or size != root.size:
        return False
    if not root.flags.c_contiguous:  # (its storage order is not its row-major one)
        return False
    theirs = t.detach().as_strided((size,), (1,), 0).cpu().numpy()
    ours = np.asarray(root.get() if hasattr(root, "get") else root).reshape(-1)
    return bool(np.array_equal(theirs, ours, equal_nan=theirs.dtype.kind in "fc"))


def _sides(fn: Callable[..., Any], pairs: tuple["Pair", ...], grad_off: bool) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """``fn`` on the PyTorch tensors of ``pairs`` and on minigrad's, each under ``no_grad`` when ``grad_off``."""
    def t_fn() -> Any:
        with torch.set_grad_enabled(not grad_off):
            return fn(*(p.t for p in pairs))

    def m_fn() -> Any:
        with mg.set_grad_enabled(not grad_off):
            return fn(*(p.m for p in pairs))

    return t_fn, m_fn


def _oracle(fn: Callable[..., Any], *tensors: Any) -> Callable[[], Any]:
    """PyTorch's side of a step that reads an index or a class target: ``fn(*tensors)``. Where its oracle
    asserts on the device (``DEVICE_ASSERTS``), ``fn`` runs on CPU copies of ``tensors`` first, and a value
    out of range is refused there (its CPU refusal is the oracle's), never given to the device; minigrad's
    GPU still runs the step, whose check is reported at the next sync (``_synced``)."""
    def run() -> Any:
        if DEVICE_ASSERTS:
            host = _run(lambda: fn(*(None if t is None else t.detach().cpu().requires_grad_(t.requires_grad)
                                     for t in tensors)))
            if host.error is not None and _OUT_OF_RANGE.search(str(host.error)):
                PROGRAMS["refused_on_host"] += 1
                raise host.error
        return fn(*tensors)

    run.checks_on_host = True  # type: ignore[attr-defined]
    return run


#: PyTorch's refusals of a saved tensor changed in place since (the second: one that is a view made under no_grad)
_STALE_SAVED = ("modified by an inplace operation", "A view was created in no_grad mode and its base")


class Differential(RuleBasedStateMachine):
    """The program under construction and its lockstep checks (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        self.pool: list[Pair] = []
        self.count = 0
        #: every tensor of the program so far laid out as PyTorch's (``add``)
        self.layouts_agree = True
        #: The version counters of the inputs of fused cross_entropy calls (see ``inplace``).
        self.fused_saved: set[int] = set()

    # -- helpers ---------------------------------------------------------------------------

    def both(self, step: str, t_fn: Callable[[], Any], m_fn: Callable[[], Any], engine: bool = False) -> tuple[Outcome, Outcome]:
        """Run one step on both sides; raise Mismatch unless both succeed or both refuse alike."""
        m_grads = self.mg_grads() if engine else None
        t_grads = self.torch_grads() if engine else None
        t, m = _run(t_fn), _run(_synced(m_fn) if ON_GPU else m_fn)
        PROGRAMS["steps"] += 1
        if (DEVICE_ASSERTS and t.error is not None and _OUT_OF_RANGE.search(str(t.error))
                and not getattr(t_fn, "checks_on_host", False)):
            raise Mismatch(f"{step}: a value out of range reached PyTorch's oracle, which asserts on a CUDA device "
                           f"(PyTorch {_describe(t)}): the rule must check it on the host (``_oracle``)")
        if engine:
            self.materialise_torch_zero_grads()
        if engine and m.error is None and t.error is not None and any(words in str(t.error) for words in _STALE_SAVED):
            # A composite (var, std, ...) saves what its sub-ops need, not its input: an input changed in
            # place after it is no error in minigrad (the module docstring). PyTorch's words differ when
            # that input is a view made under no_grad (unpacking it reads the view's history). Undo the
            # step on both sides (PyTorch may have run the retain-grad hooks of the nodes before the refusal).
            PROGRAMS["composite_saves"] += 1
            for q in self.pool:
                if id(q) in m_grads:
                    q.m.grad = m_grads[id(q)]
            self.restore_torch_grads(t_grads)
            return t, Outcome(error=RuntimeError("(composite saved other tensors)"))
        if m.error is not None and not isinstance(m.error, _CLEAR):
            raise Mismatch(f"{step}: minigrad crashed with {_describe(m)} (PyTorch: {_describe(t)})")
        if (t.error is None) != (m.error is None):
            raise Mismatch(f"{step}: PyTorch {_describe(t)}; minigrad {_describe(m)}")
        if t.error is not None:
            allowed = (RuntimeError,) if engine and isinstance(t.error, RuntimeError) else next(
                (v for k, v in _SAME_REFUSAL.items() if isinstance(t.error, k)), _CLEAR)
            if not isinstance(m.error, allowed):
                raise Mismatch(f"{step}: PyTorch raised {_describe(t)} but minigrad {_describe(m)}")
        return t, m

    def add(self, t: Any, m: Any, how: str, view_of: Pair | None = None, layout: bool = True) -> Pair:
        """A new pair of tensors into the pool, after checking they agree (values; strides too, but for
        gradients, whose layouts follow each framework's formulas, and for every tensor made once a
        gradient of another layout joined the pool: a layout follows the inputs')."""
        assert_same_tensor(t, m, how, layout=layout and self.layouts_agree)
        if not _same_steps(t, m):
            self.layouts_agree = False
        if t.requires_grad != m.requires_grad:
            raise Mismatch(f"{how}: requires_grad {m.requires_grad} vs PyTorch's {t.requires_grad}")
        if t.is_leaf != m.is_leaf:
            raise Mismatch(f"{how}: is_leaf {m.is_leaf} vs PyTorch's {t.is_leaf}")
        self.count += 1
        pair = Pair(t, m, f"v{self.count}", view_of=view_of)
        if view_of is not None:
            view_of.has_views = True
            pair.from_grad = view_of.from_grad
            pair.overlapping = view_of.overlapping
        self.pool.append(pair)
        if len(self.pool) > POOL_MAX:  # forget the oldest tensor (a view keeps its base alive)
            self.pool.pop(0)
        return pair

    def pick(self, i: int) -> Pair:
        return self.pool[i % len(self.pool)]

    def drop_graphs(self) -> None:
        """After a backward that released its graph, keep only what no released node can reach."""
        self.pool = [p for p in self.pool if p.t.grad_fn is None]

    # -- leaves ----------------------------------------------------------------------------

    @rule(shape=st.lists(st.sampled_from([1, 2, 3, 2, 3, 0]), max_size=3).map(tuple),
          requires_grad=st.booleans(), seed=st.integers(0, 2**16))
    def leaf(self, shape: tuple[int, ...], requires_grad: bool, seed: int) -> None:
        arr = _values(seed, shape)
        self.add(_torch(arr, dtype=torch.float64, requires_grad=requires_grad),
                 _mg(arr, dtype=F64, requires_grad=requires_grad), f"leaf{shape}")

    @staticmethod
    def _may_start(p: Pair) -> bool:
        # (not a grad() result: PyTorch's results may be one tensor - the seed passed through an expand of the
        # same shape is the seed - whose flag then changes for each of them; minigrad's are distinct tensors)
        return p.t.is_leaf and not p.t.requires_grad and p.t._base is None and not p.from_grad

    @precondition(lambda self: any(self._may_start(p) for p in self.pool))
    @rule(i=st.integers(0, 99))
    def start_requiring_grad(self, i: int) -> None:
        """``x.requires_grad_()`` on a leaf that did not require grad and is no view: its views taken before
        ask it from then on (they require grad, and keep no gradient; one whose storage changed since it
        was taken is replayed). Not on a view: ``docs/concepts/views.md``, "Where minigrad differs"."""
        leaves = [p for p in self.pool if self._may_start(p)]
        p = leaves[i % len(leaves)]
        t, m = _run(p.t.requires_grad_), _run(p.m.requires_grad_)
        if (t.error is None) != (m.error is None):
            raise Mismatch(f"{p.name}.requires_grad_(): PyTorch {_describe(t)}; minigrad {_describe(m)}")
        self.drop_invalid_views()  # a view made under no_grad whose storage changed: refused alike, then dropped
        for q in self.pool:
            if (q.t.requires_grad, q.t.is_leaf) != (q.m.requires_grad, q.m.is_leaf):
                raise Mismatch(f"after {p.name}.requires_grad_(): {q.name}'s requires_grad/is_leaf "
                               f"{q.m.requires_grad}/{q.m.is_leaf} vs PyTorch's {q.t.requires_grad}/{q.t.is_leaf}")

    # -- ops ---------------------------------------------------------------------------------

    UNARY = {
        "exp": lambda x: x.exp(), "log": lambda x: x.abs().log(), "sqrt": lambda x: x.abs().sqrt(),
        "abs": lambda x: x.abs(), "tanh": lambda x: x.tanh(), "sigmoid": lambda x: x.sigmoid(),
        "relu": lambda x: x.relu(), "neg": lambda x: -x, "sin": lambda x: x.sin(), "cos": lambda x: x.cos(),
        "pow2": lambda x: x ** 2, "pow3": lambda x: x.pow(3), "clamp": lambda x: x.clamp(min=-0.5, max=0.7),
        "clamp_min": lambda x: x.clamp(min=0.2), "scale": lambda x: 2.5 * x, "rsub": lambda x: 1.0 - x,
        "rdiv": lambda x: 3.0 / x, "softmax": lambda x: x.softmax(-1), "log_softmax": lambda x: x.log_softmax(-1),
        "clone": lambda x: x.clone(), "floor": lambda x: x.floor(), "sign": lambda x: x.sign(),
        # matmul's decomposition (a batch folded, expanded for bmm, a vector times a matrix)
        "gram": lambda x: x @ x.transpose(-1, -2) if x.ndim >= 2 else x @ x,
        "gram-T": lambda x: x.transpose(-1, -2) @ x if x.ndim >= 2 else x @ x,
        "vector-matrix": lambda x: x[(0,) * (x.ndim - 1)] @ x.transpose(-1, -2) if x.ndim >= 2 else x @ x.unsqueeze(-1),
        "masked_fill": lambda x: x.masked_fill(x > 0.3, -1.0), "tril": lambda x: x.tril(), "triu": lambda x: x.triu(1),
        "batch_norm": lambda x: _batch_norm(x), "std": lambda x: x.std(-1),
        "flip": lambda x: x.flip(-1), "cumsum": lambda x: x.cumsum(-1), "roll": lambda x: x.roll(1, -1),
        "sort": lambda x: x.sort(-1, descending=True)[0], "gather-sorted": lambda x: x.gather(-1, x.argsort(-1)),
        "leaky_relu": lambda x: _F(x).leaky_relu(x, 0.2), "elu": lambda x: _F(x).elu(x),
        "hardtanh": lambda x: _F(x).hardtanh(x, -0.5, 0.5), "pad": lambda x: _F(x).pad(x, (1, 2)),
        "sinh": lambda x: x.sinh(), "atan": lambda x: x.atan(), "repeat": lambda x: x.repeat(2, *([1] * x.ndim)),
        "mask-index": lambda x: x[x > 0.1], "masked_select": lambda x: x.masked_select(x < 0),
        "cummax": lambda x: x.cummax(-1)[0], "cummin": lambda x: x.cummin(0)[0],
        "logcumsumexp": lambda x: x.logcumsumexp(-1),
        "index-repeated": lambda x: x[[1, 0, 1]], "int-then-index": lambda x: x[0, ..., [-1, 0, -1]],
        "index_select": lambda x: x.index_select(-1, _index_like(x, [0, 0])),
        "frac": lambda x: x.frac(), "sgn": lambda x: x.sgn(), "rsqrt": lambda x: (x.abs() + 0.5).rsqrt(),
        "erfinv": lambda x: x.tanh().erfinv(), "erfc": lambda x: x.erfc(), "square": lambda x: x.square(),
        "nan_to_num": lambda x: x.nan_to_num(posinf=2.0), "deg2rad": lambda x: x.deg2rad(),
        # a channels-last image (a 4-D view of the tensor, copied channels last) and what keeps the format
        "channels_last": lambda x: _channels_last(x), "avg_pool": lambda x: _F(x).avg_pool2d(_channels_last(x), 1),
        "channels_last-pad": lambda x: _F(x).pad(_channels_last(x), (1, 0, 0, 1)),
    }

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), op=st.sampled_from(sorted(UNARY)))
    def unary(self, i: int, op: str) -> None:
        p, fn = self.pick(i), self.UNARY[op]
        if op in ("cummax", "cummin") and p.t.numel() == 0:
            return  # PyTorch's gradient of an empty cummax is its input itself (see the module docstring)
        t, m = self.both(f"{op}({p.name})", _oracle(fn, p.t), lambda: fn(p.m))
        if t.error is None:
            self.add(t.value, m.value, f"{op}({p.name})")

    BINARY = {
        "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y, "div": lambda x, y: x / y,
        "maximum": lambda x, y: x.maximum(y), "minimum": lambda x, y: x.minimum(y), "pow": lambda x, y: x.abs() ** y,
        "matmul": lambda x, y: x @ y, "where": lambda x, y: _where(x > 0, x, y),
        "clamp_t": lambda x, y: x.clamp(min=y), "cat": lambda x, y: _cat([x, y]),
        "masked_fill_t": lambda x, y: x.masked_fill(x > 0, y.sum()),
        "atan2": lambda x, y: x.atan2(y), "remainder": lambda x, y: x.remainder(y),
        "logaddexp": lambda x, y: x.logaddexp(y), "logaddexp2": lambda x, y: x.logaddexp2(y),
        "hypot": lambda x, y: x.hypot(y), "fmax": lambda x, y: x.fmax(y), "fmin": lambda x, y: x.fmin(y),
        "lerp": lambda x, y: x.lerp(y, 0.7), "lerp_t": lambda x, y: x.lerp(y, y.sigmoid()),
        "addcmul": lambda x, y: x.addcmul(y, y, value=0.5), "addcdiv": lambda x, y: x.addcdiv(y, y.exp(), value=-2),
    }

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), j=st.integers(0, 99), op=st.sampled_from(sorted(BINARY)), grad_off=st.booleans())
    def binary(self, i: int, j: int, op: str, grad_off: bool) -> None:
        """A binary op (broadcasting, or refused on both sides), now and then inside ``no_grad``."""
        a, b, fn = self.pick(i), self.pick(j), self.BINARY[op]
        step = f"{op}({a.name}, {b.name}){' under no_grad' if grad_off else ''}"
        t, m = self.both(step, *_sides(fn, (a, b), grad_off))
        if t.error is None:
            self.add(t.value, m.value, step)

    REDUCE = {
        "sum": lambda x, d, k: x.sum() if d is None else x.sum(dim=d, keepdim=k),
        "mean": lambda x, d, k: x.mean() if d is None else x.mean(dim=d, keepdim=k),
        "amax": lambda x, d, k: x.amax() if d is None else x.amax(dim=d, keepdim=k),
        "max": lambda x, d, k: x.max() if d is None else x.max(dim=d, keepdim=k)[0],
        "logsumexp": lambda x, d, k: x.logsumexp(dim=-1 if d is None else d, keepdim=k),
        "var": lambda x, d, k: x.var() if d is None else x.var(dim=d, keepdim=k),
    }

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), op=st.sampled_from(sorted(REDUCE)), dim=st.none() | st.integers(-4, 3),
          keepdim=st.booleans())
    def reduce(self, i: int, op: str, dim: int | None, keepdim: bool) -> None:
        if op == "max" and dim is None and ON_GPU and TORCH_DEVICE == "cpu":
            # PyTorch's backward of max() differs by device where the gradient is NaN (evenly_distribute_backward:
            # its CPU fills zeros beside the maximum, its CUDA multiplies by the mask, NaN * 0 = NaN); minigrad's
            # GPU follows CUDA, so against PyTorch's CPU (the stand-in's oracle) max() is not generated
            return
        p, fn = self.pick(i), self.REDUCE[op]
        step = f"{op}({p.name}, dim={dim}, keepdim={keepdim})"
        t, m = self.both(step, lambda: fn(p.t, dim, keepdim), lambda: fn(p.m, dim, keepdim))
        if t.error is None:
            self.add(t.value, m.value, step)

    VIEWS = {
        "flatten": lambda x: x.reshape(-1), "unsqueeze": lambda x: x.unsqueeze(0),
        "transpose": lambda x: x.transpose(0, -1), "slice": lambda x: x[::2], "last": lambda x: x[..., -1],
        "expand": lambda x: x.expand(2, *x.shape), "squeeze": lambda x: x.squeeze(), "t": lambda x: x.t(),
        "select": lambda x: x.select(0, -1), "narrow": lambda x: x.narrow(-1, 1, 1), "diagonal": lambda x: x.diagonal(),
        "unbind": lambda x: x.unbind(0)[0], "split": lambda x: x.split(1)[-1], "view": lambda x: x.view(-1),
        "permute": lambda x: x.permute(tuple(reversed(range(x.ndim)))), "unfold": lambda x: x.unfold(0, 1, 1),
        "expand-same": lambda x: x.expand(tuple(x.shape)), "int-index": lambda x: x[(0,) * x.ndim],
        "diagonal-offset": lambda x: x.diagonal(-1, 0, -1), "unfold-overlap": lambda x: x.unfold(-1, 2, 1),
        "diagonal-dims": lambda x: x.diagonal(1, -1, 0),
        # as_strided reads the storage by the geometry it is given (generated where both sides' geometries agree)
        "as_strided-same": lambda x: x.as_strided(tuple(x.shape), x.stride()),
        "as_strided-flat": lambda x: x.as_strided((x.numel(),), (1,)),
        "as_strided-windows": lambda x: x.as_strided((max(x.numel() - 1, 0), 2), (1, 1)),
    }

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), op=st.sampled_from(sorted(VIEWS)), grad_off=st.sampled_from([False, False, True]))
    def view(self, i: int, op: str, grad_off: bool) -> None:
        """A view, now and then made under ``no_grad`` (it requires grad when its base does, yet keeps no
        gradient; an in-place change through it, or of its base, then refuses its history)."""
        p, fn = self.pick(i), self.VIEWS[op]
        if ON_GPU and op == "view" and tuple(p.t.stride()) != tuple(p.m.stride()):
            return  # some of minigrad's GPU kernels write row-major results (module docstring)
        if op.startswith("as_strided") and not _same_storage_geometry(p.t, p.m):
            return  # a result laid out otherwise than PyTorch's (module docstring): as_strided would read otherwise
        step = f"{op}({p.name}){' under no_grad' if grad_off else ''}"
        t, m = self.both(step, *_sides(fn, (p,), grad_off))
        if t.error is None:
            q = self.add(t.value, m.value, step, view_of=p)
            q.overlapping = q.overlapping or (op == "unfold-overlap" and q.t.shape[-2] > 1) or (
                op == "as_strided-windows" and q.t.shape[0] > 1)

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99))
    def detach(self, i: int) -> None:
        """``detach()`` shares storage (an in-place change on it reaches the original, and its version)."""
        p = self.pick(i)
        q = self.add(p.t.detach(), p.m.detach(), f"detach({p.name})")
        # its storage is the original's: a grad() result's may be another result's too (PyTorch passes a
        # gradient through unchanged where minigrad may copy it), so no in-place change of it either
        q.overlapping, q.from_grad = p.overlapping, p.from_grad

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), loss=st.sampled_from(["cross_entropy", "nll_loss"]),
          target_shape=st.sampled_from(["batch", "other batch", "random"]), shape=st.lists(st.integers(0, 3), max_size=3).map(tuple),
          seed=st.integers(0, 2**16), reduction=st.sampled_from(["mean", "sum", "none"]),
          form=st.sampled_from(["plain", "weighted", "ignore_index", "label_smoothing", "all"]))
    def loss(self, i: int, loss: str, target_shape: str, shape: tuple[int, ...], seed: int, reduction: str,
             form: str) -> None:
        """A classification loss whose class-index target fits the input's batch, or has any shape; with a
        weight per class, an ignored class, label smoothing (cross_entropy's), or all three."""
        p = self.pick(i)
        dims = tuple(p.t.shape)
        if len(dims) == 1 and ON_GPU and TORCH_DEVICE == "cpu":
            return  # one sample's loss against PyTorch's CPU on the GPU: not generated (module docstring)
        classes = (dims[0] if len(dims) == 1 else dims[1]) if dims else 1
        if target_shape == "batch":
            shape = () if len(dims) <= 1 else dims[:1] + dims[2:]
        elif target_shape == "other batch":  # the right rank, a batch one larger
            shape = (2,) if len(dims) <= 1 else (dims[0] + 1,) + dims[2:]
        if len(dims) == 1 and shape == (1,):
            shape = ()  # PyTorch's forward accepts a (1,) target for a 1-D input, its backward refuses it
        rng = np.random.default_rng(seed)
        target = rng.integers(0, max(classes, 1), size=shape)
        kw: dict[str, Any] = {"reduction": reduction}
        if form in ("ignore_index", "all"):
            kw["ignore_index"] = 0  # the targets of class 0 add nothing
        if form in ("label_smoothing", "all") and loss == "cross_entropy":
            kw["label_smoothing"] = 0.25
        weight = rng.uniform(0.5, 2.0, size=max(classes, 1)) if form in ("weighted", "all") else None
        t_fn, m_fn = getattr(torch.nn.functional, loss), getattr(mg.nn.functional, loss)
        step = f"{loss}({p.name}, target{shape}, {', '.join(f'{k}={v}' for k, v in kw.items())}" + (
            ", weight)" if weight is not None else ")")

        def t_call(x: Any, tg: Any, w: Any) -> Any:
            return t_fn(x, tg, weight=w, **kw)

        def m_call() -> Any:
            w = None if weight is None else _mg(weight, dtype=p.m.dtype)
            return m_fn(p.m, _mg(target), weight=w, **kw)

        t_weight = None if weight is None else _torch(weight, dtype=p.t.dtype)
        t, m = self.both(step, _oracle(t_call, p.t, _torch(target), t_weight), m_call)
        if t.error is None:
            self.add(t.value, m.value, step)
            # every form ends in nll_loss's fused op (NllLossBackward0, NllLoss2DBackward0), which saved its input
            self.fused_saved.add(id(p.m._vc))

    # -- in-place --------------------------------------------------------------------------

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), j=st.none() | st.integers(0, 99), op=st.sampled_from(["add_", "sub_", "mul_", "div_"]),
          grad_off=st.booleans())
    def inplace(self, i: int, j: int | None, op: str, grad_off: bool) -> None:
        p = self.pick(i)
        if p.from_grad or p.overlapping or id(p.m._vc) in self.fused_saved:
            return  # not generated (module docstring)
        other_t, other_m = (0.5, 0.5) if j is None else (self.pick(j).t, self.pick(j).m)
        if j is not None and other_m is not p.m and _may_share_memory(p.m, other_m):
            return  # an operand overlapping the written memory: not generated (module docstring)
        name = "0.5" if j is None else self.pick(j).name

        def t_fn() -> Any:
            with torch.set_grad_enabled(not grad_off):
                return getattr(p.t, op)(other_t)

        def m_fn() -> Any:
            with mg.set_grad_enabled(not grad_off):
                return getattr(p.m, op)(other_m)

        try:  # a refused broadcast is a shape error; the rest of in-place misuse is the engine's
            engine = j is None or np.broadcast_shapes(tuple(p.t.shape), tuple(other_t.shape)) == tuple(p.t.shape)
        except ValueError:
            engine = False
        self.both(f"{p.name}.{op}({name}){' under no_grad' if grad_off else ''}", t_fn, m_fn, engine=engine)
        self.same_flags(p, op)

    INPLACE_UNARY = {
        "relu_": lambda x: x.relu_(), "tanh_": lambda x: x.tanh_(), "sigmoid_": lambda x: x.sigmoid_(),
        "exp_": lambda x: x.exp_(), "neg_": lambda x: x.neg_(), "abs_": lambda x: x.abs_(),
        "zero_": lambda x: x.zero_(), "fill_": lambda x: x.fill_(0.25), "clamp_": lambda x: x.clamp_(-0.5, 0.7),
        "pow_": lambda x: x.pow_(2), "sqrt_abs": lambda x: x.abs_().add_(0.5).sqrt_(),
        # (its threshold is no constant another step makes exactly: against clamp_min's 0.2, the mean of clamped
        # values sat on it, 0.2 on minigrad's GPU and PyTorch's CUDA, which multiply by 1/n, 0.2 + an ulp on
        # PyTorch's CPU, which divides by n - one comparison apart)
        "masked_fill_": lambda x: x.masked_fill_(x > 0.31, 0.5),
        # in-place view ops: the shape changes, the storage and the elements stay
        "squeeze_": lambda x: x.squeeze_(), "unsqueeze_": lambda x: x.unsqueeze_(-1), "t_": lambda x: x.t_(),
        "transpose_": lambda x: x.transpose_(0, -1),
    }

    SHAPE_CHANGING = ("squeeze_", "unsqueeze_", "t_", "transpose_")

    def shape_change_not_generated(self, p: Pair, grad_off: bool) -> bool:
        """An in-place view op where PyTorch keeps an old shape (module docstring): on a tensor that retains
        its gradient, on one with a ``grad_fn`` under ``no_grad``, on a leaf that requires grad or a
        ``detach()`` of one."""
        if p.t.retains_grad or (grad_off and p.t.grad_fn is not None):
            return True
        return not p.t._is_view() and any(q.t.is_leaf and q.t.requires_grad and q.t.data_ptr() == p.t.data_ptr()
                                          for q in self.pool)

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), op=st.sampled_from(sorted(INPLACE_UNARY)), grad_off=st.booleans())
    def inplace_unary(self, i: int, op: str, grad_off: bool) -> None:
        """An in-place method without operand, on any tensor (a view too), now and then under ``no_grad``."""
        p, fn = self.pick(i), self.INPLACE_UNARY[op]
        if p.from_grad or p.overlapping or id(p.m._vc) in self.fused_saved:
            return  # not generated (module docstring)
        if op in self.SHAPE_CHANGING and self.shape_change_not_generated(p, grad_off):
            return  # not generated (module docstring)
        if op == "masked_fill_" and any(st == 0 and n > 1 for n, st in zip(p.t.shape, p.t.stride())):
            return  # PyTorch only warns ("Use of masked_fill_ on expanded tensors is deprecated"); minigrad refuses
        self.both(f"{p.name}.{op}(){' under no_grad' if grad_off else ''}", *_sides(fn, (p,), grad_off), engine=True)
        self.same_flags(p, op)

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), j=st.integers(0, 99),
          how=st.sampled_from(["row=", "row+=", "all=", "copy_", "mask=", "mask=sum", "rows=", "rows+="]))
    def setitem(self, i: int, j: int, how: str) -> None:
        """``x[0] = y``, ``x[0] += y``, ``x[...] = y``, ``x.copy_(y)`` (y broadcast into place), through a mask
        ``x[x > 0] = 0.5`` (PyTorch's masked_fill) and ``x[x > 0] = y.sum()``, and at a repeated index
        ``x[[0, 0]] = y`` and ``x[[0, 0]] += y`` (``index_put_``: the last write stays, each gets its gradient)."""
        p, q = self.pick(i), self.pick(j)
        if p.from_grad or p.overlapping or id(p.m._vc) in self.fused_saved or _may_share_memory(p.m, q.m):
            return  # not generated (module docstring)

        def run(x: Any, y: Any) -> Any:
            if how == "row=":
                x[0] = y
            elif how == "row+=":
                x[0] += y
            elif how == "all=":
                x[...] = y
            elif how == "mask=":
                x[x.detach() > 0] = 0.5
            elif how == "mask=sum":
                x[x.detach() > 0] = y.sum()
            elif how == "rows=":
                x[[0, 0]] = y
            elif how == "rows+=":
                x[[0, 0]] += y
            else:
                x.copy_(y)

        shape_ok = True
        try:
            target = (tuple(p.t.shape[1:]) if how.startswith("row=") or how.startswith("row+") else
                      (2,) + tuple(p.t.shape[1:]) if how.startswith("rows") else tuple(p.t.shape))
            shape_ok = how.startswith("mask") or np.broadcast_shapes(target, tuple(q.t.shape)) == target
        except (ValueError, IndexError):
            shape_ok = False
        if not shape_ok or (how.startswith("row") and p.t.ndim == 0):
            return  # the shape errors differ in class by design (ValueError): covered by the other rules
        if how.startswith(("mask", "rows")) and any(st == 0 and n > 1 for n, st in zip(p.t.shape, p.t.stride())):
            return  # PyTorch's masked_fill and index_put_ only warn on an expanded tensor; minigrad refuses
        self.both(f"{p.name} {how} {q.name}", lambda: run(p.t, q.t), lambda: run(p.m, q.m), engine=True)
        self.same_flags(p, how)

    def same_flags(self, p: Pair, op: str) -> None:
        self.drop_invalid_views()
        if p not in self.pool:
            return
        if p.t.is_leaf != p.m.is_leaf or p.t.requires_grad != p.m.requires_grad:
            raise Mismatch(f"{p.name}.{op}: is_leaf/requires_grad {p.m.is_leaf}/{p.m.requires_grad} vs "
                           f"PyTorch's {p.t.is_leaf}/{p.t.requires_grad}")

    def drop_invalid_views(self) -> None:
        """A view PyTorch will not regenerate (an output of ``split``/``unbind``, one made under ``no_grad``)
        after its base changed in place raises when its history is read: minigrad's must raise alike; both
        then leave the pool."""
        keep = []
        for q in self.pool:
            t, m = _run(lambda: q.t.grad_fn), _run(lambda: q.m.grad_fn)
            if (t.error is None) != (m.error is None):
                raise Mismatch(f"{q.name}.grad_fn after an in-place change: PyTorch {_describe(t)}; minigrad {_describe(m)}")
            if t.error is None:
                keep.append(q)
        self.pool = keep

    # -- autograd --------------------------------------------------------------------------

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), retain=st.booleans(), seed_kind=st.sampled_from(["implicit", "random", "wrong"]),
          seed=st.integers(0, 2**16), again=st.booleans())
    def backward(self, i: int, retain: bool, seed_kind: str, seed: int, again: bool) -> None:
        p = self.pick(i)
        shape = tuple(p.t.shape)
        if seed_kind == "implicit":
            gt = gm = None
        else:
            arr = _values(seed, shape if seed_kind == "random" else shape + (2,))
            gt, gm = _torch(arr), _mg(arr, dtype=F64)
        before = self.torch_grads(), self.torch_grads("m")
        t, m = self.both(f"{p.name}.backward({seed_kind} seed, retain_graph={retain})",
                         lambda: p.t.backward(gt, retain_graph=retain), lambda: p.m.backward(gm, retain_graph=retain),
                         engine=True)
        if t.error is not None:
            # Both failed part-way (a saved tensor changed in place): the nodes that ran before the failure, and
            # the .grad they wrote, follow each engine's order - Paddle's deque here (docs/architecture.md,
            # Engine rules, rule 5), PyTorch's sequence numbers there - so that .grad is put back on both sides.
            self.restore_torch_grads(before[0])
            self.restore_torch_grads(before[1], "m")
            if not retain:  # a pass that failed part-way released the nodes it ran, in minigrad
                self.drop_graphs()  # even those that saved nothing (rule 3): those graphs are not reused
            return
        self.compare_grads("after backward")
        if retain:
            return
        if again:  # a second backward through the released graph (docs/architecture.md, Engine rules, rule 3)
            saved = self.torch_grads()
            t2, m2 = _run(lambda: p.t.backward(gt)), _run(lambda: p.m.backward(gm))
            if p.m.grad_fn is None:  # a leaf: no graph, both accumulate again
                self.both(f"{p.name}.backward() again", lambda: t2.value, lambda: m2.value)
            elif not isinstance(m2.error, RuntimeError) or "retain_graph" not in str(m2.error):
                raise Mismatch(f"second backward of {p.name} without retain_graph: minigrad {_describe(m2)}")
            else:  # PyTorch ran its nodes that saved nothing (and retain_grad hooks) first: undo (rule 3)
                self.restore_torch_grads(saved)
            self.compare_grads("after a second backward")
        self.drop_graphs()

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), picks=st.lists(st.integers(0, 99), min_size=1, max_size=3, unique=True),
          create_graph=st.booleans(), seed=st.integers(0, 2**16))
    def grad(self, i: int, picks: list[int], create_graph: bool, seed: int) -> None:
        """``mg.grad`` against ``torch.autograd.grad`` (``allow_unused``; results join the pool)."""
        out = self.pick(i)
        inputs = list({id(self.pick(k)): self.pick(k) for k in picks}.values())
        if len(inputs) > 1 and any(q.hooks for q in inputs):
            # PyTorch applies an input's hooks to its result only when it is the sole input (module docstring).
            inputs = [q for q in inputs if not q.hooks] or inputs[:1]
        arr = _values(seed, tuple(out.t.shape))
        saved = self.torch_grads()  # PyTorch's retain_grad hooks fire in autograd.grad; rule 1: mg.grad writes no .grad
        step = f"grad({out.name}, [{', '.join(q.name for q in inputs)}], create_graph={create_graph})"
        t, m = self.both(
            step,
            lambda: torch.autograd.grad(out.t, [q.t for q in inputs], _torch(arr), retain_graph=True,
                                        create_graph=create_graph, allow_unused=True),
            lambda: mg.grad(out.m, [q.m for q in inputs], _mg(arr, dtype=F64), retain_graph=True,
                            create_graph=create_graph, allow_unused=True),
            engine=True,
        )
        self.restore_torch_grads(saved)
        if t.error is not None:
            return
        added: list[Pair] = []
        for k, (gt, gm) in enumerate(zip(t.value, m.value)):
            assert_same_tensor(gt, gm, f"{step} result {k}")
            if gt is None:
                continue
            if gm.requires_grad != create_graph:
                raise Mismatch(f"{step}: result requires_grad {gm.requires_grad}, docs/architecture.md's engine rule 4 says {create_graph}")
            if create_graph:
                # Rule 4: minigrad's result requires grad even where PyTorch's is a constant; and where
                # the derivative is identically 0 (relu's), PyTorch may build a node and minigrad not.
                if gt.requires_grad and gm.grad_fn is None and gt.grad_fn is not None:
                    gt, gm = gt.detach(), gm.detach()
                added.append(self.add(gt, gm if gt.requires_grad else gm.detach(), f"{step}[{k}]", layout=False))
        # PyTorch's results may share storage (one a view of another: the gradient through a
        # reshape is the seed reshaped); in-place changes of such views are not generated.
        for a in added:
            a.from_grad = True
        self.compare_grads("after grad (which writes no .grad)")

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99))
    def retain_grad(self, i: int) -> None:
        p = self.pick(i)
        if p.view_of is not None:
            return  # not on a view (module docstring)
        self.both(f"{p.name}.retain_grad()", p.t.retain_grad, p.m.retain_grad, engine=True)
        p.retained = p.retained or (p.t.requires_grad and not p.t.is_leaf)

    @precondition(lambda self: self.pool)
    @rule(i=st.integers(0, 99), scale=st.sampled_from([None, 2.0, -1.0]))
    def hook(self, i: int, scale: float | None) -> None:
        """A tensor hook that keeps the gradient (returns None) or replaces it (``g * scale``)."""
        p = self.pick(i)
        if p.hooks >= 2 or p.view_of is not None:  # not on a view (module docstring)
            return
        fn = (lambda g: None) if scale is None else (lambda g: g * scale)
        t, _ = self.both(f"{p.name}.register_hook(x{scale})", lambda: p.t.register_hook(fn),
                         lambda: p.m.register_hook(fn), engine=True)
        p.hooks += t.error is None

    @precondition(lambda self: self.pool)
    @rule(set_to_none=st.booleans(), step=st.booleans())
    def optimizer(self, set_to_none: bool, step: bool) -> None:
        """``SGD.step()`` on the leaves that require grad, then ``zero_grad(set_to_none=...)``."""
        leaves = [p for p in self.pool if p.t.is_leaf and p.t.requires_grad]
        if not leaves:
            return
        t_opt = torch.optim.SGD([p.t for p in leaves], lr=0.1)
        m_opt = mg.optim.SGD([p.m for p in leaves], lr=0.1)
        if step and not any(id(p.m._vc) in self.fused_saved for p in leaves):  # see ``inplace``
            self.both("optimizer.step()", t_opt.step, m_opt.step, engine=True)
            self.drop_invalid_views()  # the step changed leaves in place: outputs of unbind/split refuse
        self.both(f"zero_grad(set_to_none={set_to_none})", lambda: t_opt.zero_grad(set_to_none=set_to_none),
                  lambda: m_opt.zero_grad(set_to_none=set_to_none), engine=True)

    def materialise_torch_zero_grads(self) -> None:
        """PyTorch may accumulate a *ZeroTensor* into ``.grad`` (the derivative of ``sgn`` under
        ``create_graph``): an internal stand-in for zeros that refuses in-place changes. minigrad's
        ``.grad`` is an ordinary zero tensor; the fuzzer gives PyTorch the same (module docstring)."""
        for q in self.pool:
            g = q.t.grad
            if g is not None and g._is_zerotensor():
                q.t.grad = torch.zeros_like(g)

    def mg_grads(self) -> dict[int, Any]:
        return {id(q): (q.m.grad.detach_copy() if q.m.grad is not None else None) for q in self.pool
                if q.m.is_leaf or q.retained}

    def torch_grads(self, side: str = "t") -> dict[int, Any]:
        """A copy of the ``.grad`` of every leaf and retained tensor, PyTorch's (``side="t"``) or minigrad's."""
        grads = {id(q): getattr(q, side).grad for q in self.pool if q.t.is_leaf or q.retained}
        return {k: (g.clone() if g is not None else None) for k, g in grads.items()}

    def restore_torch_grads(self, saved: dict[int, Any], side: str = "t") -> None:
        for q in self.pool:
            if id(q) in saved:
                getattr(q, side).grad = saved[id(q)]

    @precondition(lambda self: any(p.t.grad is not None and p.t.is_leaf for p in self.pool))
    @rule(i=st.integers(0, 99), op=st.sampled_from(["zero_", "add_", "mul_"]))
    def change_grad(self, i: int, op: str) -> None:
        """An in-place change of a leaf's ``.grad`` (what optimizers and training loops do)."""
        leaves = [p for p in self.pool if p.t.grad is not None and p.t.is_leaf]
        p = leaves[i % len(leaves)]
        args = () if op == "zero_" else (2.0,)
        with torch.no_grad():
            t = _run(lambda: getattr(p.t.grad, op)(*args))
        with mg.no_grad():
            m = _run(lambda: getattr(p.m.grad, op)(*args))
        if (t.error is None) != (m.error is None):
            raise Mismatch(f"{p.name}.grad.{op}{args}: PyTorch {_describe(t)}; minigrad {_describe(m)}")

    # -- what must hold after every step -------------------------------------------------

    def compare_grads(self, when: str) -> None:
        for p in self.pool:
            if p.t.is_leaf or p.retained:
                assert_same_tensor(p.t.grad, p.m.grad, f"{p.name}.grad {when}")

    @invariant()
    def same_values_and_grads(self) -> None:
        """In-place changes reach aliases (detach, views) alike; gradients agree."""
        for p in self.pool:
            assert_same_tensor(p.t, p.m, f"{p.name} (value)")
        self.compare_grads("")

    def teardown(self) -> None:
        PROGRAMS["ok"] += 1
        if PROGRESS:
            print(f"differential fuzzer progress: {PROGRAMS['ok']} programs, {PROGRAMS['steps']} steps", flush=True)


def _where(c: Any, x: Any, y: Any) -> Any:
    return torch.where(c, x, y) if isinstance(x, torch.Tensor) else mg.where(c, x, y)


def _F(x: Any) -> Any:
    """The ``nn.functional`` of ``x``'s framework."""
    return torch.nn.functional if isinstance(x, torch.Tensor) else mg.nn.functional


def _channels_last(x: Any) -> Any:
    """``x`` seen as an image (leading dims of size 1 added below four) laid out channels last."""
    lib = torch if isinstance(x, torch.Tensor) else mg
    image = x.reshape((1,) * (4 - x.ndim) + tuple(x.shape)) if x.ndim < 4 else x
    fmt = lib.channels_last if image.ndim == 4 else lib.channels_last_3d
    return image.to(memory_format=fmt)


def _batch_norm(x: Any) -> Any:
    """Training-mode batch norm, no running statistics (a refusal of a shape is compared like any other)."""
    F = torch.nn.functional if isinstance(x, torch.Tensor) else mg.nn.functional
    return F.batch_norm(x, None, None, training=True)


def _index_like(x: Any, values: list[int]) -> Any:
    """An int64 index tensor of ``x``'s framework, on its device."""
    lib = torch if isinstance(x, torch.Tensor) else mg
    return lib.tensor(values).to(x.device)


def _cat(xs: list[Any]) -> Any:
    return torch.cat(xs) if isinstance(xs[0], torch.Tensor) else mg.cat(xs)


def _run_machine() -> None:
    PROGRAMS.update(ok=0, steps=0, composite_saves=0, refused_on_host=0)
    run_state_machine_as_test(Differential, settings=settings(
        max_examples=EXAMPLES,
        stateful_step_count=STEPS,
        deadline=None,
        derandomize=not LONG,
        print_blob=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        **({} if SHRINK else {"phases": (Phase.explicit, Phase.reuse, Phase.generate)}),
    ))
    where = f"minigrad on {MG_DEVICE}, PyTorch on {TORCH_DEVICE}" + (" (stand-in CuPy)" if _stand_in() else "")
    print(f"\ndifferential fuzzer: {PROGRAMS['ok']} programs, {PROGRAMS['steps']} steps, no mismatch "
          f"({'long' if LONG else 'default'} profile, {where}; {PROGRAMS['composite_saves']} backward steps PyTorch "
          f"refused for an input its fused op saved" + (f"; {PROGRAMS['refused_on_host']} indices or targets out of "
                                                        f"range refused on the host" if DEVICE_ASSERTS else "") + ")")


def _stand_in() -> bool:
    return ON_GPU and getattr(sys.modules.get("cupy"), "__fake__", False)


@pytest.mark.skipif(ON_GPU, reason="the device mode runs the GPU test below")
def test_minigrad_runs_random_programs_as_pytorch_does() -> None:
    _run_machine()


def test_a_value_out_of_range_is_refused_on_the_host_where_the_oracle_asserts(monkeypatch: pytest.MonkeyPatch) -> None:
    """``DEVICE_ASSERTS`` (set where PyTorch's oracle is CUDA, which asserts on the device): an index or a class
    target out of range - ``x[[1, 0, 1]]`` of one row, ``index_select`` of an empty dim, a target of an input
    without classes - is refused on CPU copies, never given to the oracle, and minigrad's refusal is compared
    with that one; a step that gave the oracle such a value unchecked is a mismatch. Then programs run so."""
    monkeypatch.setattr(sys.modules[__name__], "DEVICE_ASSERTS", True)
    PROGRAMS.update(refused_on_host=0)
    machine = Differential()
    machine.leaf(shape=(1, 3), requires_grad=True, seed=1)
    machine.unary(i=0, op="index-repeated")
    machine.leaf(shape=(2, 0), requires_grad=False, seed=2)
    machine.unary(i=1, op="index_select")
    machine.loss(i=1, loss="cross_entropy", target_shape="batch", shape=(), seed=3, reduction="mean", form="plain")
    machine.loss(i=1, loss="nll_loss", target_shape="batch", shape=(), seed=3, reduction="sum", form="ignore_index")
    assert PROGRAMS["refused_on_host"] == 3  # (the ignored targets are no refusal)
    assert len(machine.pool) == 3
    with pytest.raises(Mismatch, match="reached PyTorch's oracle"):
        machine.both("x[[1]]", lambda: torch.zeros(1)[[1]], lambda: mg.zeros(1)[[1]])
    monkeypatch.setattr(sys.modules[__name__], "EXAMPLES", 30)
    _run_machine()


def test_minigrad_runs_random_programs_on_the_gpu_as_pytorch_does() -> None:
    """The device mode: here when it was asked for (``MINIGRAD_FUZZ_DEVICE=gpu``), else in a subprocess,
    on the device where minigrad has one and on the stand-in CuPy elsewhere."""
    if ON_GPU:
        assert mg.is_gpu_available(), "MINIGRAD_FUZZ_DEVICE=gpu without a GPU: set MINIGRAD_FAKE_CUPY=1 for the stand-in"
        _run_machine()
        return
    env = dict(os.environ, MINIGRAD_FUZZ_DEVICE="gpu")
    if not mg.is_gpu_available():
        env["MINIGRAD_FAKE_CUPY"] = "1"
    env.setdefault("MINIGRAD_FUZZ_EXAMPLES", "60" if not LONG else str(EXAMPLES))
    env.pop("PYTEST_XDIST_WORKER", None)
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "no:xdist", __file__,
         "-k", "on_the_gpu"],
        cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))), env=env, capture_output=True, text=True,
        timeout=1800,
    )
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-6000:]
    summary = [line for line in out.splitlines() if line.startswith("differential fuzzer:")]
    assert summary and "minigrad on gpu" in summary[0], out[-3000:]
    print("\n" + summary[0])
