"""``mg.cuda`` without a GPU answers as PyTorch 2.13's CPU-only build does: the same values, or the same
exception class and words (events, streams, memory statistics, device questions, NVTX).

Each call runs in both libraries and the outcomes are compared; with a GPU (or the stand-in CuPy,
``MINIGRAD_FAKE_CUPY=1``) minigrad has one and the comparison does not apply: ``tests/gpu/
test_cuda_namespace_gpu.py`` checks that side.
"""

from __future__ import annotations

import collections
import warnings

import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(mg.cuda.is_available() or torch.cuda.is_available(),
                                reason="compares the CPU-only answers (a GPU, or the stand-in CuPy, is present)")


def _enter(ctx):
    with ctx:
        return "entered"


#: name -> the call, made with ``torch`` or ``mg`` as ``m``
CALLS = {
    "Event()": lambda m: m.cuda.Event(),
    "Event(enable_timing=True)": lambda m: m.cuda.Event(enable_timing=True),
    "Stream()": lambda m: m.cuda.Stream(),
    "current_stream()": lambda m: m.cuda.current_stream(),
    "default_stream()": lambda m: m.cuda.default_stream(),
    "with stream(None)": lambda m: _enter(m.cuda.stream(None)),
    "with StreamContext(None)": lambda m: _enter(m.cuda.StreamContext(None)),
    "memory_allocated()": lambda m: m.cuda.memory_allocated(),
    "memory_allocated('cuda')": lambda m: m.cuda.memory_allocated("cuda"),
    "max_memory_allocated(0)": lambda m: m.cuda.max_memory_allocated(0),
    "memory_reserved()": lambda m: m.cuda.memory_reserved(),
    "max_memory_reserved()": lambda m: m.cuda.max_memory_reserved(),
    "reset_peak_memory_stats()": lambda m: m.cuda.reset_peak_memory_stats(),
    "reset_max_memory_allocated()": lambda m: m.cuda.reset_max_memory_allocated(),
    "empty_cache()": lambda m: m.cuda.empty_cache(),
    "mem_get_info()": lambda m: m.cuda.mem_get_info(),
    "memory_stats()": lambda m: m.cuda.memory_stats(),
    "memory_summary()": lambda m: m.cuda.memory_summary(),
    "get_device_properties(0)": lambda m: m.cuda.get_device_properties(0),
    "get_device_properties()": lambda m: m.cuda.get_device_properties(),
    "get_device_capability()": lambda m: m.cuda.get_device_capability(),
    "set_device(0)": lambda m: m.cuda.set_device(0),
    "set_device(-1)": lambda m: m.cuda.set_device(-1),
    "set_device('cuda')": lambda m: m.cuda.set_device("cuda"),
    "set_device('cpu')": lambda m: m.cuda.set_device("cpu"),
    "with device(0)": lambda m: _enter(m.cuda.device(0)),
    "with device(-1)": lambda m: _enter(m.cuda.device(-1)),
    "with device(None)": lambda m: _enter(m.cuda.device(None)),
    "device('cpu')": lambda m: m.cuda.device("cpu"),
    "is_initialized()": lambda m: m.cuda.is_initialized(),
    "init()": lambda m: m.cuda.init(),
    "get_arch_list()": lambda m: m.cuda.get_arch_list(),
    "nvtx.range_push('a')": lambda m: m.cuda.nvtx.range_push("a"),
    "nvtx.range_pop()": lambda m: m.cuda.nvtx.range_pop(),
    "nvtx.mark('a')": lambda m: m.cuda.nvtx.mark("a"),
    "with nvtx.range('a')": lambda m: _enter(m.cuda.nvtx.range("a")),
    "synchronize()": lambda m: m.cuda.synchronize(),
    "memory_cached()": lambda m: m.cuda.memory_cached(),
    "max_memory_cached()": lambda m: m.cuda.max_memory_cached(),
    "reset_max_memory_cached()": lambda m: m.cuda.reset_max_memory_cached(),
    "reset_accumulated_memory_stats()": lambda m: m.cuda.reset_accumulated_memory_stats(),
    "memory_stats_as_nested_dict()": lambda m: m.cuda.memory_stats_as_nested_dict(),
    "seed()": lambda m: m.cuda.seed(),
    "seed_all()": lambda m: m.cuda.seed_all(),
    "get_rng_state_all()": lambda m: m.cuda.get_rng_state_all(),
    "set_rng_state_all([])": lambda m: m.cuda.set_rng_state_all([]),
    "is_tf32_supported()": lambda m: m.cuda.is_tf32_supported(),
    "set_stream(None)": lambda m: m.cuda.set_stream(None),
    "current_blas_handle()": lambda m: m.cuda.current_blas_handle(),
    "default_generators": lambda m: m.cuda.default_generators,
    "with device_of(cpu tensor)": lambda m: _enter(m.cuda.device_of(m.ones(1))),
    "has_half": lambda m: m.cuda.has_half,
    "has_magma": lambda m: m.cuda.has_magma,
    "get_gencode_flags()": lambda m: m.cuda.get_gencode_flags(),
}
#: where minigrad answers differently on purpose: the existing ``synchronize`` returns quietly without a GPU, and
#: PyTorch's CPU build fails ``with device(None)`` with a ``TypeError`` (``None < 0``) where its documentation
#: says a no-op, which minigrad's is
DIFFERS = {"synchronize()", "with device(None)"}


def _outcome(call, m):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("value", call(m))
        except Exception as exc:  # noqa: BLE001  (the class and words are what is compared)
            result = ("raised", type(exc), str(exc))
    return result, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("name", [n for n in CALLS if n not in DIFFERS])
def test_each_answers_as_pytorchs_cpu_build(name):
    mine, theirs = _outcome(CALLS[name], mg), _outcome(CALLS[name], torch)
    assert mine == theirs


def test_the_calls_that_answer_are_values_of_pytorchs_types():
    assert type(mg.cuda.memory_stats()) is collections.OrderedDict is type(torch.cuda.memory_stats())
    assert mg.cuda.memory_allocated() == 0 and mg.cuda.get_arch_list() == [] and mg.cuda.is_initialized() is False


def test_synchronize_without_a_gpu_returns_quietly_where_pytorch_asserts():
    assert mg.cuda.synchronize() is None
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch.cuda.synchronize()


def test_out_of_memory_error_is_a_runtime_error_as_pytorchs():
    assert issubclass(mg.cuda.OutOfMemoryError, RuntimeError) and issubclass(torch.cuda.OutOfMemoryError, RuntimeError)
    assert [c.__name__ for c in mg.cuda.OutOfMemoryError.__mro__] == [c.__name__ for c in torch.cuda.OutOfMemoryError.__mro__]
    assert mg.cuda.OutOfMemoryError.__name__ == "OutOfMemoryError"


def test_the_new_names_are_in_the_namespace():
    for name in ("Event", "Stream", "StreamContext", "current_stream", "default_stream", "stream", "memory_allocated",
                 "max_memory_allocated", "reset_peak_memory_stats", "memory_stats", "memory_summary", "mem_get_info",
                 "empty_cache", "get_device_properties", "get_device_capability", "set_device", "device",
                 "is_initialized", "init", "get_arch_list", "OutOfMemoryError", "nvtx"):
        assert name in mg.cuda.__all__ and hasattr(torch.cuda, name), name
