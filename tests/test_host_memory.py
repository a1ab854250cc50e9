"""minigrad keeps freed array memory for reuse (NOTE [ Fresh pages for every large array ]).

Measured as the page faults a large NumPy temporary costs in a fresh process,
with minigrad's setting and with ``MINIGRAD_MALLOC_PAD=0`` (glibc's own).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from minigrad import _host_memory

_GLIBC = bool(getattr(os, "confstr", None) and os.confstr_names.get("CS_GNU_LIBC_VERSION")
              and os.confstr("CS_GNU_LIBC_VERSION"))

_PROGRAM = """
import resource
import numpy as np
import minigrad
a = np.ones((512, 256), dtype=np.float32)  # 512 KB
def step():
    return [a + 1 for _ in range(10)]  # ten live temporaries, then all freed, as at the end of a step
for _ in range(3):
    step()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(50):
    step()
print((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 500)
"""


def _faults_per_array(pad: str | None) -> float:
    env = {k: v for k, v in os.environ.items() if k != "MINIGRAD_MALLOC_PAD"}
    if pad is not None:
        env["MINIGRAD_MALLOC_PAD"] = pad
    out = subprocess.run([sys.executable, "-c", _PROGRAM], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


@pytest.mark.skipif(not _GLIBC or sys.platform != "linux", reason="the pad is glibc's (Linux)")
def test_a_large_temporary_reuses_freed_pages_unless_turned_off() -> None:
    assert _faults_per_array(None) < 5  # the pages of the last step's arrays, reused
    assert _faults_per_array("0") > 50  # glibc's own setting: a 512 KB array is ~128 fresh pages


def test_the_environment_variable_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_host_memory, "reused", _host_memory.reused)  # put back after the test
    monkeypatch.setenv("MINIGRAD_MALLOC_PAD", "0")
    assert _host_memory.configure_from_environment() is False  # left alone
    monkeypatch.setenv("MINIGRAD_MALLOC_PAD", "lots")
    with pytest.raises(ValueError, match="MINIGRAD_MALLOC_PAD must be a number of bytes"):
        _host_memory.configure_from_environment()
    monkeypatch.setenv("MINIGRAD_MALLOC_PAD", str(_host_memory.PAD_BYTES))
    assert _host_memory.configure_from_environment() is _GLIBC


@pytest.mark.parametrize("reused", [False, True])
def test_by_chunks_gives_the_kernel_over_the_whole_array(monkeypatch: pytest.MonkeyPatch, reused: bool) -> None:
    import numpy as np

    from minigrad.kernels import special

    monkeypatch.setattr(_host_memory, "reused", reused)  # chunk by chunk only where freed pages are not reused
    calls: list[int] = []

    def kernel(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        calls.append(a.size)
        return a * b + 1

    x = np.arange(3 * special._CHUNK + 5, dtype=np.float32).reshape(-1, 1)
    y = np.full_like(x, 0.5)
    np.testing.assert_array_equal(special.by_chunks(kernel, x, y), x * y + 1)
    assert calls == ([x.size] if reused else [special._CHUNK] * 3 + [5])
