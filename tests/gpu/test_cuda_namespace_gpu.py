"""``mg.cuda`` as a GPU course uses it: events time work, their waits are named syncs, memory statistics
follow a tensor's bytes, the device answers questions about itself.

Runs where CuPy finds a GPU, and everywhere on the stand-in CuPy (``MINIGRAD_FAKE_CUPY=1``): its
events read the host's clock and its memory pool counts the live stand-in arrays (``fake_cupy.py``
says what it cannot prove). The copy/sync counts are the stand-in's (``counted``).
"""

from __future__ import annotations

import time
import warnings
from pathlib import Path

import pytest

import fake_cupy
import minigrad as mg

needs_gpu = pytest.mark.gpu
counted = pytest.mark.skipif(fake_cupy.installed() is None, reason="syncs are counted by the stand-in CuPy")
MiB = 1024 * 1024


def _line(marker):
    return next(i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1)
                if text.rstrip().endswith("# " + marker))


# -- events --------------------------------------------------------------------------------------


@needs_gpu
def test_an_event_pair_times_a_loop_within_the_hosts_wall_time():
    x = mg.randn(256, 256, device="cuda")
    start, end = mg.cuda.Event(enable_timing=True), mg.cuda.Event(enable_timing=True)
    mg.cuda.synchronize()
    t0 = time.perf_counter()
    start.record()
    for _ in range(20):
        x = (x @ x).tanh()
    end.record()
    end.synchronize()
    wall_ms = (time.perf_counter() - t0) * 1e3
    ms = start.elapsed_time(end)
    assert type(ms) is float and 0.0 < ms <= wall_ms
    assert start.query() and end.query()


@needs_gpu
def test_elapsed_time_refuses_as_pytorch_in_its_words():
    timed, untimed = mg.cuda.Event(enable_timing=True), mg.cuda.Event()
    late = mg.cuda.Event(enable_timing=True)
    # c10/cuda/CUDAEvent.h: the timing flag is checked first, then that both were recorded (ValueError each)
    with pytest.raises(ValueError, match=r"^Both events must be created with argument 'enable_timing=True'\.$"):
        timed.elapsed_time(untimed)
    timed.record()
    with pytest.raises(ValueError, match=r"^Both events must be recorded before calculating elapsed time\.$"):
        timed.elapsed_time(late)
    assert repr(late) == "<torch.cuda.Event uninitialized>" and late.cuda_event == 0
    assert late.query() is True  # an event never recorded has nothing to wait for
    late.synchronize()
    late.record()
    late.synchronize()
    assert late.cuda_event != 0 and repr(late).startswith("<torch.cuda.Event 0x") and timed.elapsed_time(late) >= 0.0


@needs_gpu
def test_event_synchronize_is_a_device_sync_named_event_at_the_users_line():
    e = mg.cuda.Event()
    e.record()
    with mg.trace(values=False) as tr:
        e.query()
        e.synchronize()  # event sync
        mg.cuda.current_stream().synchronize()  # stream sync
    syncs = [ev for ev in tr.events if ev.kind == "device.sync"]
    assert [ev.reason for ev in syncs] == ["event", "event"]
    assert syncs[0].source.endswith(f"test_cuda_namespace_gpu.py:{_line('event sync')}")
    assert syncs[1].source.endswith(f"test_cuda_namespace_gpu.py:{_line('stream sync')}")


@needs_gpu
def test_sync_debug_mode_raises_at_stream_synchronize_and_lets_an_events_pass(sync_mode):
    """As PyTorch's: ``Stream.synchronize`` is checked by the sync debug mode, an event's ``synchronize`` (how a
    program times the GPU) is not - though both are ``device.sync`` events."""
    start, end = mg.cuda.Event(enable_timing=True), mg.cuda.Event(enable_timing=True)
    start.record()
    end.record()
    mg.cuda.set_sync_debug_mode("error")
    end.query()  # no wait: passes
    end.synchronize()  # a wait PyTorch's debug mode lets pass
    with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation") as info:
        mg.cuda.default_stream().synchronize()  # raises here
    assert f"test_cuda_namespace_gpu.py:{_line('raises here')}" in str(info.value)
    assert "Stream.synchronize()" in str(info.value)
    mg.cuda.set_sync_debug_mode("warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        end.synchronize()
        mg.cuda.current_stream().synchronize()  # warned
    assert [(Path(w.filename).name, w.lineno) for w in caught if "synchronizing" in str(w.message)] == [
        ("test_cuda_namespace_gpu.py", _line("warned"))]
    assert start.elapsed_time(end) >= 0.0  # reading the stamps does not wait: no warning, no error
    mg.cuda.set_sync_debug_mode("default")
    with mg.trace() as tr:
        end.synchronize()
    assert [e.reason for e in tr.events if e.kind == "device.sync"] == ["event"]


@counted
def test_only_synchronize_waits_on_the_stand_in():
    fake = fake_cupy.installed()
    e = mg.cuda.Event(enable_timing=True)
    fake.reset_counts()
    e.record()
    e.query()
    e.wait()
    mg.cuda.current_stream().wait_event(e)
    assert fake.counts()["syncs"] == 0
    e.synchronize()
    mg.cuda.current_stream().synchronize()
    assert fake.counts()["syncs"] == 2


# -- streams -------------------------------------------------------------------------------------


@needs_gpu
def test_the_current_stream_is_the_default_stream_and_a_side_streams_context_is_refused():
    default = mg.cuda.current_stream()
    assert default == mg.cuda.default_stream() and default.cuda_stream == 0
    assert repr(default) == "<torch.cuda.Stream device=cuda:0 cuda_stream=0x0>"
    with mg.cuda.stream(default) as s:
        assert s is default
    with mg.cuda.stream(None):
        pass
    side = mg.cuda.Stream()
    assert side != default and side.cuda_stream != 0
    with pytest.raises(RuntimeError, match="runs its kernels on the default stream"):
        with mg.cuda.stream(side):
            pass
    side.wait_stream(default)
    event = side.record_event()
    side.synchronize()
    assert event.query() and side.query()


# -- memory ----------------------------------------------------------------------------------------


@needs_gpu
def test_memory_allocated_rises_by_a_tensors_bytes_and_falls_when_it_is_freed():
    mg.cuda.synchronize()
    base = mg.cuda.memory_allocated()
    x = mg.empty(MiB, device="cuda")  # float32: 4 MiB, a multiple of CuPy's 512-byte unit
    assert mg.cuda.memory_allocated() - base == 4 * MiB
    assert mg.cuda.memory_reserved() >= mg.cuda.memory_allocated()
    del x
    assert mg.cuda.memory_allocated() == base


@needs_gpu
def test_the_peak_after_a_reset_is_the_largest_held_since():
    base = mg.cuda.memory_allocated()
    big = mg.empty(4 * MiB, device="cuda")  # 16 MiB
    del big
    mg.cuda.reset_peak_memory_stats()
    assert mg.cuda.max_memory_allocated() == base  # the 16 MiB held before the reset is forgotten
    small = mg.empty(MiB // 2, device="cuda")  # 2 MiB
    other = mg.empty(MiB // 4, device="cuda")  # 1 MiB
    del small, other
    assert mg.cuda.max_memory_allocated() == base + 3 * MiB
    stats = mg.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == mg.cuda.memory_allocated() == base
    assert stats["allocated_bytes.all.peak"] == base + 3 * MiB
    assert stats["reserved_bytes.all.peak"] >= stats["reserved_bytes.all.current"] == mg.cuda.memory_reserved()
    assert list(stats) == sorted(stats) and stats["num_alloc_retries"] == 0
    assert mg.cuda.max_memory_reserved() == stats["reserved_bytes.all.peak"]
    with pytest.warns(FutureWarning, match="reset_peak_memory_stats"):
        mg.cuda.reset_max_memory_allocated()
    assert mg.cuda.max_memory_allocated() == mg.cuda.memory_allocated()
    assert "Allocated memory" in mg.cuda.memory_summary()


@needs_gpu
def test_empty_cache_gives_back_the_cached_blocks():
    x = mg.empty(2 * MiB, device="cuda")
    del x
    cached = mg.cuda.memory_reserved() - mg.cuda.memory_allocated()
    assert cached >= 8 * MiB  # the pool kept the freed block
    mg.cuda.empty_cache()
    assert mg.cuda.memory_reserved() - mg.cuda.memory_allocated() < cached
    free, total = mg.cuda.mem_get_info()
    assert 0 < free <= total == mg.cuda.get_device_properties().total_memory


# -- the device's questions ----------------------------------------------------------------------


@needs_gpu
def test_device_properties_print_as_pytorchs():
    p = mg.cuda.get_device_properties(0)
    assert p.name == mg.cuda.get_device_name() and p.total_memory > 0 and p.multi_processor_count > 0
    assert repr(p).startswith(f"_CudaDeviceProperties(name='{p.name}', major={p.major}, minor={p.minor}, "
                              f"total_memory={p.total_memory // MiB}MB, multi_processor_count={p.multi_processor_count}, uuid=")
    assert repr(p).endswith(f", L2_cache_size={p.L2_cache_size // MiB}MB)")
    assert mg.cuda.get_device_capability() == (p.major, p.minor) == mg.cuda.get_device_capability("cuda:0")
    assert mg.cuda.get_arch_list() == [f"sm_{p.major}{p.minor}"]
    with pytest.raises(AssertionError, match="^Invalid device id$"):
        mg.cuda.get_device_properties(1)
    mg.cuda.init()
    assert mg.cuda.is_initialized()


@needs_gpu
def test_set_device_takes_the_one_gpu_and_refuses_another_ordinal():
    mg.cuda.set_device(0)
    mg.cuda.set_device("cuda:0")
    with mg.cuda.device(0):
        pass
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        mg.cuda.set_device(1)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        with mg.cuda.device("cuda:1"):
            pass
    with pytest.raises(ValueError, match="^Expected a cuda device, but got: cpu$"):
        mg.cuda.set_device("cpu")


@needs_gpu
def test_nvtx_ranges_nest_and_report_their_depth():
    assert mg.cuda.nvtx.range_push("outer") == 0
    assert mg.cuda.nvtx.range_push("inner") == 1
    assert mg.cuda.nvtx.range_pop() == 1
    assert mg.cuda.nvtx.range_pop() == 0
    assert mg.cuda.nvtx.range_pop() == -1  # none open
    fake = fake_cupy.installed()
    if fake is not None:
        fake.NVTX.clear()
    with mg.cuda.nvtx.range("step {}", 3):
        mg.cuda.nvtx.mark("here")
    if fake is not None:
        assert fake.NVTX == [("push", "step 3"), ("mark", "here"), ("pop", None)]


def test_out_of_memory_error_is_a_runtime_error():
    assert issubclass(mg.cuda.OutOfMemoryError, RuntimeError)


@needs_gpu
def test_the_small_questions_on_a_gpu():
    state = mg.cuda.get_rng_state()
    assert len(mg.cuda.get_rng_state_all()) == 1 and mg.cuda.default_generators == (mg.cuda.device_generator,)
    mg.cuda.seed()
    assert mg.cuda.initial_seed() != 0 or not mg.cuda.get_rng_state().equal(state)
    mg.cuda.set_rng_state_all([state])
    assert mg.cuda.get_rng_state().equal(state)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        mg.cuda.set_rng_state_all([state, state])
    major, _ = mg.cuda.get_device_capability()
    assert mg.cuda.is_tf32_supported() == (major >= 8)
    assert isinstance(mg.cuda.current_blas_handle(), int)
    assert mg.cuda.get_gencode_flags() == " ".join(f"-gencode compute=compute_{a[3:]},code={a}"
                                                   for a in mg.cuda.get_arch_list())
    with mg.cuda.device_of(mg.ones(2, device="cuda")):
        pass
    mg.cuda.set_stream(mg.cuda.default_stream())
    with pytest.raises(RuntimeError, match="default stream only"):
        mg.cuda.set_stream(mg.cuda.Stream())
    mg.ones(1024, device="cuda")
    nested = mg.cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == mg.cuda.memory_stats()["allocated_bytes.all.current"]
    mg.cuda.reset_accumulated_memory_stats()
    assert mg.cuda.memory_stats()["allocation.all.allocated"] == 0
